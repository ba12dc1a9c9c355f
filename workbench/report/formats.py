"""Number and text formats of the report (what the report shows), and a small DataFrame helper."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd


# ---------------------------------------------------------------------------
# number formats (what the report shows)
# ---------------------------------------------------------------------------
def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(x)


def fmt_pct(x, digits: int = 4) -> str:
    """A fraction as percent: ``0.950790 -> "95.0790 %"``."""
    return f"{100 * x:.{digits}f} %" if _finite(x) else "n/a"


def fmt_ci(x, digits: int = 4) -> str:
    """A 95 % half-width (fraction) as ``"± 0.0123 %"``; exact values (0) as ``"exact"``."""
    if not _finite(x):
        return "n/a"
    return "exact" if x == 0 else f"± {100 * x:.{digits}f} %"


def fmt_x(x, digits: int = 2) -> str:
    """An amount in total bets: ``175 -> "175x"``, ``2.5 -> "2.50x"``."""
    if not _finite(x):
        return "n/a"
    if float(x).is_integer():
        return f"{int(x):,}x"
    return f"{x:,.{digits}f}x"


def fmt_one_in(p) -> str:
    """A probability as ``"1 in 558.25"`` (``"never"`` for 0)."""
    if not _finite(p):
        return "n/a"
    return "never" if p <= 0 else f"1 in {1 / p:,.2f}"


def fmt_seen(hits: int, n: int, unit: str = "rounds") -> str:
    """Simulated odds ``hits`` in ``n`` with their exact binomial (Clopper-Pearson) 95 % interval: ``"1 in 558.25
    (95 %: 1 in 540.10 to 1 in 577.43)"``; none seen: ``"not observed in 30,000 rounds (< 1 in 10,000 at 95 %)"``
    (the rule of three)."""
    if n <= 0:
        return "n/a"
    if hits <= 0:
        return f"not observed in {n:,} {unit} (< 1 in {n / 3:,.0f} at 95 %)"
    from scipy.stats import binomtest

    ci = binomtest(int(hits), int(n)).proportion_ci(confidence_level=0.95, method="exact")
    return f"{fmt_one_in(hits / n)} (95 %: {fmt_one_in(ci.high)} to {fmt_one_in(ci.low)})"


def fmt_estimated_odds(p: float, half: float, rounds: int) -> str:
    """Estimated odds per round ``p`` with a 95 % half-width ``half`` (a stratified estimate, normal interval); none
    seen: the rule of three over ``rounds``."""
    if p <= 0:
        return f"not observed in {rounds:,} rounds (< 1 in {rounds / 3:,.0f} at 95 %)" if rounds else "not simulated"
    low = max(p - half, 0.0)
    return f"{fmt_one_in(p)} (95 %: {fmt_one_in(p + half)} to {'never' if low == 0 else fmt_one_in(low)})"


def fmt_pct_interval(p: float, half: float, digits: int = 2) -> str:
    """A probability estimated with a 95 % half-width ``half``: ``48.20 % (95 %: 48.15 % to 48.24 %)``."""
    if not _finite(p):
        return "n/a"
    if not _finite(half):
        return f"{fmt_pct(p, digits)} (interval unknown: a trigger state has no rounds)"
    return f"{fmt_pct(p, digits)} (95 %: {fmt_pct(max(p - half, 0.0), digits)} to {fmt_pct(min(p + half, 1.0), digits)})"


def fmt_pct_seen(hits: int, n: int, digits: int = 2) -> str:
    """A probability seen ``hits`` times in ``n`` trials, with its exact binomial (Clopper-Pearson) 95 % interval."""
    if not n:
        return "n/a"
    from scipy.stats import binomtest

    ci = binomtest(int(hits), int(n)).proportion_ci(0.95, method="exact")
    return f"{fmt_pct(hits / n, digits)} (95 %: {fmt_pct(ci.low, digits)} to {fmt_pct(ci.high, digits)})"


def fmt_num(x, digits: int = 4) -> str:
    return f"{x:,.{digits}f}" if _finite(x) else "n/a"


def fmt_prob(p, digits: int = 5) -> str:
    """A probability as a plain decimal with ``digits`` significant digits, never in scientific
    notation: ``7.8982e-07 -> "0.00000078982"``, ``0 -> "0"``."""
    if not _finite(p):
        return "n/a"
    if p == 0:
        return "0"
    return np.format_float_positional(float(p), precision=digits, unique=False, fractional=False, trim="-")


def fmt_count(n, unit: str, plural: str | None = None) -> str:
    """A count with its unit, singular or plural: ``1 credit``, ``10 credits``, ``1,000 spins``."""
    if not _finite(n):
        return f"n/a {plural or unit + 's'}"
    text = f"{int(n):,}" if float(n).is_integer() else f"{n:,g}"
    return f"{text} {unit if float(n) == 1 else (plural or unit + 's')}"


def fmt_money(x) -> str:
    """An amount of credits or currency with thousands separators and no needless decimals: ``15000 -> "15,000"``, ``0.75 -> "0.75"``."""
    if not _finite(x):
        return "n/a"
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.6f}".rstrip("0").rstrip(".")


def _frame(rows: list[dict], index: str | list | None = None) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    if index is not None and len(df):
        df = df.set_index(index)
    return df


def parameters_text(parameters) -> str:
    """``[features]`` parameters in words, no Python literals: "multiplier 2; free_spins 3: 15, 4: 22"."""
    def value(v) -> str:
        if isinstance(v, dict) or hasattr(v, "items"):
            return ", ".join(f"{k}: {value(x)}" for k, x in v.items())
        if isinstance(v, (list, tuple)):
            return ", ".join(value(x) for x in v)
        return str(v)

    return "; ".join(f"{k} {value(v)}" for k, v in parameters.items())
