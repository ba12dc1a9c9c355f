"""Compliance checks of a whole game against a jurisdiction profile: what a test lab asks before it signs.

A *profile* is a small TOML file (the shipped ones in ``workbench/report/profiles/``: ``gli11``, the generic GLI-11
figures, and ``strict``, a stricter example; or any path) with:

- ``name`` and ``description``: what it is, for the table's caption;
- ``min_rtp_percent``: the lowest RTP every mode (base game, every bet mode, x its own cost) may return;
- ``award_odds``: every paytable award must be reachable at least once in this many games (GLI-11: 100,000,000);
- ``bet_mode_band_percent`` (optional): every bet mode's RTP within this many points of the base game's;
- ``require_max_win`` (optional, default false): every mode must declare a ``max_win`` cap.

:func:`check_game` runs the checks on a game and returns a :class:`ComplianceResult`: one :class:`Check` per check
and mode, each ``pass``, ``fail`` or ``not applicable`` with its evidence, and the table of every award's odds.  A
figure that is simulated passes only when its whole 95 % interval is on the right side of the limit; when the
interval straddles it the check fails as *not shown* and says what precision would decide it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..errors import ExactBudgetError, Problem, ReelsetError
from ..model import Game
from .formats import fmt_ci, fmt_estimated_odds, fmt_one_in, fmt_pct, fmt_x

PROFILES_DIR = Path(__file__).with_name("profiles")
PASS, FAIL, NOT_APPLICABLE = "pass", "fail", "not applicable"
# the checks, in the order the table lists them
MIN_RTP = "minimum RTP"
AWARDS = "every award reachable"
MAX_WIN = "maximum win stated"
BAND = "bet mode RTP within the band"
CAP = "max_win cap applied"
_KEYS = {"name": str, "description": str, "min_rtp_percent": (int, float), "award_odds": int,
         "bet_mode_band_percent": (int, float), "require_max_win": bool}
_REQUIRED = ("name", "min_rtp_percent", "award_odds")


@dataclass(frozen=True)
class Profile:
    """A jurisdiction profile (see the module docstring); RTPs as fractions (0.75 = 75 %)."""

    name: str
    description: str
    min_rtp: float
    award_odds: int
    bet_mode_band: float | None = None
    require_max_win: bool = False
    path: str = ""


def profile_names() -> list[str]:
    """The shipped profiles' names (their file names without ``.toml``)."""
    return sorted(p.stem for p in PROFILES_DIR.glob("*.toml"))


def load_profile(name_or_path: str) -> Profile:
    """A shipped profile by name, or a profile file by path.  Raises :class:`~workbench.errors.ReelsetError` naming
    the file, the line and the key of every problem (a bad value, an unknown or a missing key)."""
    from ..io.toml import plain, read_document

    path = PROFILES_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        path = Path(name_or_path)
        if not path.is_file():
            raise ReelsetError([Problem(str(name_or_path), "", "no such compliance profile: give one of "
                                                                f"{', '.join(profile_names())} or a .toml file")])
    doc, source = read_document(path)
    data = plain(doc)
    problems = [source.problem((key,), f"unknown key: a profile has {', '.join(_KEYS)}") for key in data
                if key not in _KEYS]
    problems += [source.problem((), f"missing key {key}") for key in _REQUIRED if key not in data]
    for key, kind in _KEYS.items():
        if key in data and (not isinstance(data[key], kind) or (kind is not bool and isinstance(data[key], bool))):
            problems.append(source.problem((key,), f"{key} must be {_kind_text(kind)}, got {data[key]!r}"))
    if not problems:
        problems += _range_problems(data, source)
    if problems:
        raise ReelsetError(problems)
    band = data.get("bet_mode_band_percent")
    return Profile(name=data["name"], description=data.get("description", ""), min_rtp=data["min_rtp_percent"] / 100,
                   award_odds=data["award_odds"], bet_mode_band=None if band is None else band / 100,
                   require_max_win=data.get("require_max_win", False), path=str(path))


def _kind_text(kind) -> str:
    return {str: "text", int: "a whole number", bool: "true or false"}.get(kind, "a number")


def _range_problems(data: dict, source) -> list:
    problems = []
    if not 0 < data["min_rtp_percent"] <= 100:
        problems.append(source.problem(("min_rtp_percent",), "min_rtp_percent must be above 0 and at most 100"))
    if data["award_odds"] < 1:
        problems.append(source.problem(("award_odds",), "award_odds must be 1 or more (1 in N games)"))
    if not 0 <= data.get("bet_mode_band_percent", 0) <= 100:
        problems.append(source.problem(("bet_mode_band_percent",), "bet_mode_band_percent must be 0 to 100 points"))
    return problems


@dataclass(frozen=True)
class Check:
    """One check of one mode: ``status`` pass / fail / not applicable, ``evidence`` the figures it rests on."""

    check: str
    scope: str
    status: str
    evidence: str


@dataclass
class ComplianceResult:
    """The checks of a game against a profile, the award odds they read, and the estimates behind them."""

    game: Game
    profile: Profile
    checks: list = field(default_factory=list)
    awards: pd.DataFrame = field(default_factory=pd.DataFrame)
    estimates: list = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """No check failed."""
        return all(c.status != FAIL for c in self.checks)

    @property
    def failures(self) -> list:
        return [c for c in self.checks if c.status == FAIL]

    def table(self) -> pd.DataFrame:
        """The checks as a lab reads them: check, applies to, result, evidence."""
        return pd.DataFrame([{"check": c.check, "applies to": c.scope, "result": c.status, "evidence": c.evidence}
                             for c in self.checks], columns=["check", "applies to", "result", "evidence"])

    def to_dict(self) -> dict:
        return {"game": self.game.name, "profile": self.profile.name, "profile_file": Path(self.profile.path).name,
                "passed": self.passed,
                "checks": [{"check": c.check, "applies_to": c.scope, "result": c.status, "evidence": c.evidence}
                           for c in self.checks],
                "awards": self.awards.to_dict(orient="records")}


def check_game(game: Game, profile: Profile, *, precision: float = 0.001, seed: int = 1, estimates=None,
               **options) -> ComplianceResult:
    """The profile's checks of ``game`` (every bet mode): RTPs from
    :func:`~workbench.simulate.estimate_bet_modes` to ``precision`` x each mode's cost with ``seed`` and ``options``
    (workers, max_seconds, ...), or from ``estimates`` (a list of :class:`~workbench.simulate.BetModeEstimate`, the
    base game first) when given; award odds exact from the PAR sheets."""
    from ..simulate import estimate_bet_modes

    base = game.in_bet_mode("base")
    if estimates is None:
        estimates = estimate_bet_modes(base, precision=precision, seed=seed, **options)
    awards = award_odds(base)
    checks = [*_min_rtp(estimates, profile), _awards_check(awards, profile), *_max_win(estimates),
              *_band(estimates, profile), *_caps(estimates, profile)]
    return ComplianceResult(game=base, profile=profile, checks=checks, awards=_awards_table(awards, profile),
                            estimates=list(estimates))


def _scope(e) -> str:
    return "base game" if e.name == "base" else f"bet mode {e.name} ({fmt_x(e.cost)} total bet)"


def _rtp_text(e) -> str:
    spread = ("exact" if e.rtp_ci95 == 0 else f"{fmt_ci(e.rtp_ci95)}, 95 %" if math.isfinite(e.rtp_ci95)
              else "no interval: a trigger state was not played")
    return f"RTP {fmt_pct(e.rtp)} ({spread}) x the mode's cost"


def _min_rtp(estimates, profile: Profile) -> list:
    out = []
    for e in estimates:
        low, high = e.rtp - e.rtp_ci95, e.rtp + e.rtp_ci95
        limit = f"the minimum is {fmt_pct(profile.min_rtp, 2)}"
        if low >= profile.min_rtp:
            out.append(Check(MIN_RTP, _scope(e), PASS, f"{_rtp_text(e)}; {limit}"))
        elif high < profile.min_rtp:
            out.append(Check(MIN_RTP, _scope(e), FAIL, f"{_rtp_text(e)}: below it; {limit}"))
        else:
            out.append(Check(MIN_RTP, _scope(e), FAIL, f"not shown: {_rtp_text(e)} reaches below the minimum "
                                                       f"{fmt_pct(profile.min_rtp, 2)}; {_decide(e.rtp - profile.min_rtp, e.rtp_ci95)}"))
    return out


def _decide(distance: float, half: float = 0.0) -> str:
    """What precision would decide a check whose figure is ``distance`` from its limit (``half``: its 95 %
    half-width now; infinite when a trigger state got no rounds before a time box)."""
    if not math.isfinite(half):
        return "the estimate stopped before every trigger state was played (a time box): give it more time"
    if abs(distance) < 1e-9:
        return "the estimate is at the limit"
    return f"estimate with --precision {abs(distance) / 2:.6f} or smaller to decide"


# ---------------------------------------------------------------------------
# every paytable award reachable
# ---------------------------------------------------------------------------
def award_odds(game: Game) -> list[dict]:
    """Every paytable award (a target's listed count with a pay above 0, and every scatter group's paying count) with
    its best exact odds per game: on a base spin (the PAR sheet's probability per spin), or in the free spins of
    ``[features] free_spins_mode`` / ``meter_spins_mode``, where a game reaches it with probability at least
    P(trigger per spin) x P(award per free spin) (a lower bound: the feature plays one free spin or more).  A game
    whose exact sheet is over its budget gets ``probability`` None for the awards it does not show."""
    from ..exact import par

    awards = {(t, int(k)): None for t, pays in game.paytable.items() for k, p in pays.items() if p > 0}
    awards.update({(f"{name} (scatter)", int(k)): None for name, group in game.scatters.items()
                   for k in group.pays if group.pay(k) > 0})
    where: dict = {}
    try:
        sheet = par(game, full_cycle=False)
    except ExactBudgetError as exc:
        return [_award_row(a, None, f"exact odds over budget: {exc}") for a in awards]
    for key, p in _sheet_odds(sheet).items():
        if key in awards and p > (awards[key] or 0):
            awards[key], where[key] = p, "on base spins, exact"
    f = game.features
    trigger = f.get("trigger")
    if trigger in game.triggers and game.triggers[trigger].scatter is not None:
        p_trigger = sheet.trigger_probability(trigger)
        for mode in dict.fromkeys(m for m in (f.get("free_spins_mode"), f.get("meter_spins_mode")) if m):
            try:
                free = par(game.in_strip_mode(mode), mode, full_cycle=False)
            except ExactBudgetError:
                continue
            for key, p in _sheet_odds(free).items():
                if key in awards and p_trigger * p > (awards[key] or 0):
                    awards[key] = p_trigger * p
                    where[key] = f"in the free spins of mode {mode}: P(trigger) x P(per free spin), exact, at least"
    return [_award_row(a, p, where.get(a, "never lands on any strips of the modes checked")) for a, p in awards.items()]


def _award_row(award: tuple, probability, where: str) -> dict:
    target, count = award
    return {"award": f"{count} x {target}", "probability": probability, "where": where}


def _sheet_odds(sheet) -> dict:
    """(target, count) -> probability per spin of every award the sheet's rule and scatter groups pay."""
    out: dict = {}

    def add(key, p):
        out[key] = out.get(key, 0.0) + p

    if sheet.game.pays.is_lines and sheet.line_hits.size:
        hits = sheet.line_hits.sum(axis=0)
        for c, combo in enumerate(sheet.automaton.combinations):
            for part in combo.parts or (combo,):  # both ways: each side is an award of its own
                add((part.symbol, part.count), int(hits[c]) / sheet.cycle)
    else:
        for row in sheet.combinations.itertuples(index=False):
            add((row.symbol, int(row.count)), float(row.probability))
    scat = sheet.scatter_pays
    for row in scat[scat["pay"] > 0].itertuples(index=False):
        add((f"{row.scatter} (scatter)", int(row.count)), float(row.probability))
    return out


def _awards_table(awards: list, profile: Profile) -> pd.DataFrame:
    rows = [{"award": a["award"], "odds per game": "not shown" if a["probability"] is None else
             fmt_one_in(a["probability"]), "where": a["where"],
             "result": FAIL if a["probability"] is None or a["probability"] * profile.award_odds < 1 else PASS}
            for a in awards]
    return pd.DataFrame(rows, columns=["award", "odds per game", "where", "result"])


def _awards_check(awards: list, profile: Profile) -> Check:
    limit = f"1 in {profile.award_odds:,} games"
    if not awards:
        return Check(AWARDS, "base game", NOT_APPLICABLE, "the paytable lists no award")
    rare = [a for a in awards if a["probability"] is None or a["probability"] * profile.award_odds < 1]
    if rare:
        listed = "; ".join(f"{a['award']}: " + ("not shown" if a["probability"] is None else
                                                  fmt_one_in(a["probability"])) + f" ({a['where']})" for a in rare[:8])
        more = f" and {len(rare) - 8} more" if len(rare) > 8 else ""
        return Check(AWARDS, "base game", FAIL, f"{len(rare)} of {len(awards)} awards rarer than {limit}: {listed}{more}")
    rarest = min(awards, key=lambda a: a["probability"])
    return Check(AWARDS, "base game", PASS, f"all {len(awards)} awards at least once in {profile.award_odds:,} games; "
                                            f"the rarest {rarest['award']} {fmt_one_in(rarest['probability'])} "
                                            f"({rarest['where']})")


# ---------------------------------------------------------------------------
# maximum win, bet-mode band, cap
# ---------------------------------------------------------------------------
def _cap_odds(e) -> str:
    """How often a round of the mode reaches its cap: the estimate's probability per round with its 95 % interval, or,
    never seen, the rule of three over the rounds played."""
    return "odds of reaching it per round: " + fmt_estimated_odds(e.max_win_probability, e.max_win_probability_ci95,
                                                                  int(getattr(e.estimate, "samples", 0) or 0))


def _max_win(estimates) -> list:
    out = []
    for e in estimates:
        sheet = e.estimate.sheet
        exact_mode = e.rtp_ci95 == 0 and not e.mode.buy and getattr(sheet, "max_win_exact", False)
        if e.max_win_cap is not None:
            out.append(Check(MAX_WIN, _scope(e), PASS, f"max_win {fmt_x(e.max_win_cap)} total bet (the cap, x the base "
                                                       f"total bet); {_cap_odds(e)}"))
        elif _template_cap(e) is not None:
            out.append(Check(MAX_WIN, _scope(e), PASS, _template_cap(e)))
        elif exact_mode:
            out.append(Check(MAX_WIN, _scope(e), PASS, f"max win {fmt_x(e.max_win * e.cost)} total bet, exact (every "
                                                       "outcome of the mode is priced exactly)"))
        else:
            out.append(Check(MAX_WIN, _scope(e), FAIL, "no max_win cap: the largest win is not a figure the game can "
                                                       f"state (the largest seen: {fmt_x(e.max_win * e.cost)} total bet"
                                                       f"{_bound_text(e)}); declare [bet] max_win (or the mode's "
                                                       "max_win)"))
    return out


def _template_cap_total_bets(e) -> float | None:
    """A round template's own cap in currency (``[features] max_win`` at ``reference_stake``, as Bier Haus
    declares it) x the total bet at the reference stake; None without one."""
    f = e.estimate.model.game.features
    if not (isinstance(f.get("max_win"), (int, float)) and f["max_win"] > 0 and f.get("reference_stake")):
        return None
    return f["max_win"] / float(f["reference_stake"])


def _template_cap(e) -> str | None:
    """:func:`_template_cap_total_bets` as evidence."""
    cap = _template_cap_total_bets(e)
    if cap is None:
        return None
    f = e.estimate.model.game.features
    return (f"max_win {f['max_win']:,} in currency for any single game ([features] max_win, the round template's "
            f"own cap): {fmt_x(cap)} total bet at the reference stake {float(f['reference_stake']):g}")


def _bound_text(e) -> str:
    """The round template's proven bound of what a round of the mode pays (x the base total bet), as text."""
    from ..errors import WorkbenchError
    from ..simulate.engine import round_bound

    game = e.estimate.model.game
    try:
        bound = round_bound(game)
    except WorkbenchError:
        return ""
    if bound is None or bound.units is None:
        return "; the rules set no limit"
    return f"; the rules bound a round by {fmt_x(bound.units / e.estimate.cost_units)} total bet"


def _band(estimates, profile: Profile) -> list:
    others = [e for e in estimates if e.name != "base"]
    if profile.bet_mode_band is None or not others:
        why = "the profile sets no band" if profile.bet_mode_band is None else "the game has no bet modes"
        return [Check(BAND, "bet modes", NOT_APPLICABLE, why)]
    base = next(e for e in estimates if e.name == "base")
    band = profile.bet_mode_band
    out = []
    for e in others:
        diff = e.rtp - base.rtp
        half = math.hypot(e.rtp_ci95, base.rtp_ci95)
        text = (f"{_rtp_text(e)} against the base game's {fmt_pct(base.rtp)} ({fmt_ci(base.rtp_ci95)}): "
                f"{100 * diff:+.4f} points (± {100 * half:.4f} points, 95 %); the band is ± {100 * band:.2f} points")
        if abs(diff) + half <= band:
            out.append(Check(BAND, _scope(e), PASS, text))
        elif abs(diff) - half > band:
            out.append(Check(BAND, _scope(e), FAIL, text))
        else:
            out.append(Check(BAND, _scope(e), FAIL, f"not shown: {text}; {_decide(abs(diff) - band, half)}"))
    return out


def _caps(estimates, profile: Profile) -> list:
    out = []
    for e in estimates:
        cap = e.max_win_cap if e.max_win_cap is not None else _template_cap_total_bets(e)
        if cap is None:
            if profile.require_max_win:
                out.append(Check(CAP, _scope(e), FAIL, "no max_win declared; the profile requires every mode to cap "
                                                       "its wins"))
            else:
                out.append(Check(CAP, _scope(e), NOT_APPLICABLE, "no max_win declared"))
            continue
        top = e.max_win * e.cost  # x the base total bet, as the cap
        status = PASS if top <= cap * (1 + 1e-12) else FAIL
        taken = (f"; the cap takes {fmt_pct(e.cap_cost.value)} ({fmt_ci(e.cap_cost.ci95)}) of the RTP"
                 if e.max_win_cap is not None else "")
        out.append(Check(CAP, _scope(e), status, f"the largest round seen paid {fmt_x(top)} total bet, "
                                                 f"{'within' if status == PASS else 'above'} max_win {fmt_x(cap)}"
                                                 f"{taken}"))
    return out


def compliance_checks(game: Game, est, modes, profile: str = "gli11") -> ComplianceResult:
    """The report's checks: :func:`check_game` of ``game`` against the profile named ``profile`` (or its file) from
    the report's estimates: ``modes`` (every bet mode's :class:`~workbench.simulate.BetModeEstimate`, the base game
    first), or, for a game without bet modes, ``est`` as the base game's."""
    from ..simulate import BetModeEstimate

    estimates = list(modes) or [BetModeEstimate(game.all_bet_modes["base"], est)]
    return check_game(game, load_profile(profile), estimates=estimates)
