"""Compiled form of a game for simulation, and the evaluation of one screen.

The strip sets of a game mode become one :class:`ModeArrays` record of plain
arrays whose first axis is the strip set.  A spin picks a strip set, draws one
virtual stop per reel (stop weights expanded into virtual reels) and looks up
the reel's *window*: what its rows show and how many instances of each
scatter group are visible.  Unmodified screens are paid through a prefix
table: for every combination of windows on the first reels it stores what
the lines have already paid and which lines are still undecided, so a spin
only finishes those few lines.  Screens changed by a feature (wilds placed,
reels held or turned wild) are paid by running every line through the line
automaton.

All amounts are integer *pay units* (credits per bet multiplier times the
game's pay denominator, see :mod:`workbench.exact.windows`).

Speed notes (numba): every function here is inlined into the round that uses
it, takes records rather than copies of them, and reads record fields into
locals before looping.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, namedtuple

import numpy as np

from .._jit import njit
from ..errors import SimulationError
from ..exact.sheet_cache import structure_key
from ..exact.windows import strip_set_windows
from ..model import Game
from ..pays.lines import LineArrays
from ..pays.scatter import ADJACENT, ScatterArrays, update_code
from .rng import bounded, weighted_index

PREFIX_BUDGET = 1 << 18  # window combinations in the base game's prefix table (a few MB: it stays in the CPU cache)
FEATURE_PREFIX_BUDGET = 1 << 16  # the same for other modes: rarer, so they should not push the base tables out
VIRTUAL_STOPS_MAX = 1 << 22  # weighted strips are expanded into virtual reels up to this size
TABLE_BYTES_MAX = 1 << 29  # the compiled strip sets of one game mode (each worker holds a copy)
PREFIX_LINES_MAX = 1 << 24  # prefix combinations x lines, all strip sets of a mode (the undecided lines are listed)

ModeArrays = namedtuple(
    "ModeArrays",
    [
        "set_cum",  # int64[n_sets] cumulative choice weights of the strip sets
        "rows",  # int64[n_reels]
        "length",  # int64[n_sets, n_reels] stops per strip
        "symbols",  # int32[n_sets, n_reels, max_len] strip symbol ids
        "total_weight",  # int64[n_sets, n_reels] virtual stops per reel (sum of stop weights)
        "vstop",  # int32[n_sets, n_reels, max_total] stop of each virtual stop
        "vwin",  # int32[n_sets, n_reels, max_total] window of each virtual stop
        "n_windows",  # int64[n_sets, n_reels]
        "win_sym",  # int32[n_sets, n_reels, max_windows, max_rows]
        "win_cnt",  # int64[n_sets, n_reels, max_windows, n_groups] visible instances per scatter group
        "win_packed",  # int64[n_sets, n_reels, max_windows]: counts of the "anywhere" groups, 8 bits each
        "prefix_reels",  # int64[n_sets] reels covered by the prefix table
        "prefix_mult",  # int64[n_sets, n_reels] mixed-radix multipliers of the prefix index
        "pre_info",  # int32[n_sets, max_prefix + 1, 2]: pay decided on the prefix reels, start of its live lines
        "pre_live",  # int32[n_sets, max_nnz] each line still undecided after the prefix, packed:
        #              automaton state << row_bits x (reels after the prefix) | its row on each of those reels
        "row_bits",  # int64: bits per row in pre_live
    ],
)



# ---------------------------------------------------------------------------
# building
# ---------------------------------------------------------------------------
def compile_strip_sets(game: Game, strip_sets: list, lines: LineArrays, with_prefix: bool = True,
                       prefix_budget: int = PREFIX_BUDGET) -> ModeArrays:
    """Numeric form of ``strip_sets`` (chosen by their weights) for the simulator."""
    if not strip_sets:
        raise SimulationError(f"{game.name}: no strip set to compile")
    n_sets = len(strip_sets)
    n = game.reels
    max_total = max(strip.total_weight for s in strip_sets for strip in s.reels)
    if max_total > VIRTUAL_STOPS_MAX:
        raise SimulationError(
            f"{game.name}: stop weights add up to {max_total:,} on one reel; the simulator "
            f"expands weights into virtual reels of at most {VIRTUAL_STOPS_MAX:,} stops"
        )
    max_len = max(len(strip) for s in strip_sets for strip in s.reels)
    max_rows = max(game.rows)
    n_groups = len(game.scatters)
    # every table but the windows' is known from the strips: refuse before the windows are built
    _check_table_bytes(game, strip_sets, {
        "virtual stops (2 tables)": n_sets * n * max_total * 8,
        "strip symbols": n_sets * n * max_len * 4,
        "windows (symbols, counts, packed counts)": n_sets * n * max_len * (max_rows * 4 + n_groups * 8 + 8),
    })
    seen: dict = {}  # reels shared by several sets (mystery reveals, wild reels): their windows worked out once
    windows = [strip_set_windows(game, s, seen) for s in strip_sets]
    max_win = max(len(w.weights) for ws in windows for w in ws)
    length = np.zeros((n_sets, n), dtype=np.int64)
    symbols = np.zeros((n_sets, n, max_len), dtype=np.int32)
    total_weight = np.zeros((n_sets, n), dtype=np.int64)
    vstop = np.zeros((n_sets, n, max_total), dtype=np.int32)
    vwin = np.zeros((n_sets, n, max_total), dtype=np.int32)
    n_windows = np.zeros((n_sets, n), dtype=np.int64)
    win_sym = np.zeros((n_sets, n, max_win, max_rows), dtype=np.int32)
    win_cnt = np.zeros((n_sets, n, max_win, n_groups), dtype=np.int64)
    ids = {name: i for i, name in enumerate(game.symbols)}
    prefixes = []
    for k, (strip_set, wins) in enumerate(zip(strip_sets, windows)):
        for i, (strip, win) in enumerate(zip(strip_set.reels, wins)):
            L = len(strip)
            length[k, i] = L
            symbols[k, i, :L] = [ids[s] for s in strip.symbols]
            total_weight[k, i] = strip.total_weight
            stops = np.repeat(np.arange(L, dtype=np.int32), strip.stop_weights)
            vstop[k, i, : len(stops)] = stops
            vwin[k, i, : len(stops)] = win.stop_window[stops]
            n_windows[k, i] = len(win.weights)
            win_sym[k, i, : len(win.weights), : game.rows[i]] = win.symbols
            win_cnt[k, i, : len(win.weights)] = win.counts
        reels_in_prefix, size = 0, 1
        # the undecided lines of every prefix combination are listed: keep combinations x lines bounded
        # (fewer prefix reels only make spins finish more lines themselves: the pays are the same)
        limit = min(prefix_budget, PREFIX_LINES_MAX // max(1, len(lines.rows) * n_sets))
        if with_prefix:
            while reels_in_prefix < n - 1 and size * n_windows[k, reels_in_prefix] <= limit:
                size *= int(n_windows[k, reels_in_prefix])
                reels_in_prefix += 1
        mult = np.zeros(n, dtype=np.int64)
        m = 1
        for i in range(reels_in_prefix - 1, -1, -1):
            mult[i] = m
            m *= int(n_windows[k, i])
        paid, ptr, line, state = _build_prefix(win_sym[k], n_windows[k], reels_in_prefix, lines.rows, lines.trans, lines.gain, lines.live)
        prefixes.append((reels_in_prefix, mult, paid, ptr, line, state))
    pre_info, pre_live, row_bits = _pack_prefixes(game, strip_sets, prefixes, lines)
    # the counts of up to 8 "anywhere" groups packed in one integer: one addition per reel counts them all
    anywhere = [g for g, grp in enumerate(game.scatters.values()) if grp.counting == "anywhere"][:8]
    packable = int(win_cnt.max(initial=0)) * n < 256
    win_packed = np.zeros((n_sets, n, max_win if packable else 0), dtype=np.int64)  # no columns: count one by one
    if packable:
        for slot, g in enumerate(anywhere):
            win_packed += win_cnt[:, :, :, g] << (8 * slot)
    return ModeArrays(
        win_packed=win_packed,
        set_cum=np.cumsum([s.weight for s in strip_sets]).astype(np.int64),
        rows=np.asarray(game.rows, dtype=np.int64),
        length=length,
        symbols=symbols,
        total_weight=total_weight,
        vstop=vstop,
        vwin=vwin,
        n_windows=n_windows,
        win_sym=win_sym,
        win_cnt=win_cnt,
        prefix_reels=np.array([p[0] for p in prefixes], dtype=np.int64),
        prefix_mult=np.array([p[1] for p in prefixes], dtype=np.int64).reshape(n_sets, n),
        pre_info=pre_info,
        pre_live=pre_live,
        row_bits=np.int64(row_bits),
    )


def _pack_prefixes(game: Game, strip_sets: list, prefixes: list, lines: LineArrays) -> tuple:
    """(pre_info, pre_live, row_bits): each prefix combination's pay and first live line side by side (one cache line
    per spin), and each live line's automaton state and its rows on the remaining reels packed in one 31-bit
    integer (one read per line); refuses pays or states the packed tables cannot hold."""
    n, n_sets = game.reels, len(strip_sets)
    max_prefix = max(len(p[2]) for p in prefixes)
    max_nnz = max(max(len(p[4]) for p in prefixes), 1)
    if max(int(p[2].max(initial=0)) for p in prefixes) >= 2**31 or max_nnz >= 2**31:
        raise SimulationError(f"{game.name}: prefix pays too large for the simulator's tables")
    # pay and first live line side by side: one cache line per spin
    pre_info = np.zeros((n_sets, max_prefix + 1, 2), dtype=np.int32)
    # a live line's state and its rows on the remaining reels in one integer: one read per line
    row_bits = max(1, (max(game.rows) - 1).bit_length())
    pre_live = np.zeros((n_sets, max_nnz), dtype=np.int32)
    for k, (_, _, paid, ptr, line, state) in enumerate(prefixes):
        pre_info[k, : len(paid), 0] = paid
        pre_info[k, : len(ptr), 1] = ptr
        k_reels = prefixes[k][0]
        shift = row_bits * (n - k_reels)
        if len(state) and (shift >= 31 or int(state.max()) >= 1 << (31 - shift)):
            raise SimulationError(
                f"{game.name}: strip set {strip_sets[k].name!r}: undecided lines need automaton state {int(state.max()):,} "
                f"and {n - k_reels} rows of {row_bits} bits packed in 31 bits ({max(game.rows)} rows, {n} reels): too many "
                "line states or rows for the simulator's packed tables")
        packed = state.astype(np.int64) << shift
        for i in range(k_reels, n):
            packed |= lines.rows[line, i] << (row_bits * (i - k_reels))
        pre_live[k, : len(state)] = packed
    return pre_info, pre_live, row_bits


def _check_table_bytes(game: Game, strip_sets: list, sizes: dict) -> None:
    """Raise :class:`~workbench.errors.SimulationError` when the tables in ``sizes`` (name -> bytes)
    exceed :data:`TABLE_BYTES_MAX` together, naming the largest."""
    total = sum(sizes.values())
    if total > TABLE_BYTES_MAX:
        name, size = max(sizes.items(), key=lambda kv: kv[1])
        sets = ", ".join(repr(s.name) for s in strip_sets[:4]) + (", ..." if len(strip_sets) > 4 else "")
        raise SimulationError(
            f"{game.name}: the simulator's tables of strip sets {sets} need {total:,} bytes, over the budget of "
            f"{TABLE_BYTES_MAX:,} (largest: {name}, {size:,} bytes)"
        )


def table_arrays(game: Game, name: str, *fields: str) -> tuple[np.ndarray, list]:
    """Weighted table ``name`` compiled for :func:`~workbench.simulate.steps.draw_table`:
    its cumulative integer weights and the column of each of ``fields``."""
    table = game.tables[name]
    return np.cumsum(np.asarray(table.weights, dtype=np.int64)), [table.column(f) for f in fields]


#: compiled modes recently built (:func:`compile_mode`), most recently used last.  The tuner and the editors build a
#: round model for every edit, and an edit of one mode's strips leaves the other modes' sets as they were: the tuner
#: on examples/mystery_stacks spent 11.2 of its 25.4 s compiling modes, 87 % of it the 385 free-spins sets its base
#: edits never change.  The records are shared by every model built from them: nothing writes into them.
_MODE_CACHE: OrderedDict = OrderedDict()
MODE_CACHE_BYTES = 1 << 28  # the compiled modes kept, in all (one larger than this is not kept)


def compile_mode(game: Game, mode: str, lines: LineArrays) -> ModeArrays:
    """Compiled strip sets of game mode ``mode`` (those with weight > 0), remembered by everything they are built from
    (the game's structure, the sets, the line automaton, the simulator's limits): see :data:`_MODE_CACHE`."""
    sets = [s for s in game.played_strip_sets(mode) if s.weight > 0]
    if not sets:
        raise SimulationError(f"{game.name}: no strip set has mode {mode!r}")
    budget = PREFIX_BUDGET if mode == "base" else FEATURE_PREFIX_BUDGET
    key = (structure_key(game), tuple(sets), _lines_key(lines), budget, VIRTUAL_STOPS_MAX, TABLE_BYTES_MAX, PREFIX_LINES_MAX)
    found = _MODE_CACHE.get(key)
    if found is not None:
        _MODE_CACHE.move_to_end(key)
        return found
    arrays = compile_strip_sets(game, sets, lines, prefix_budget=budget)
    if _mode_bytes(arrays) <= MODE_CACHE_BYTES:
        _MODE_CACHE[key] = arrays
        while sum(_mode_bytes(v) for v in _MODE_CACHE.values()) > MODE_CACHE_BYTES:
            _MODE_CACHE.popitem(last=False)
    return arrays


def _mode_bytes(arrays: ModeArrays) -> int:
    return sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))


def _lines_key(lines: LineArrays) -> tuple:
    """The line automaton's contents (a digest of every array, the other fields as they are)."""
    out = []
    for value in lines:
        if isinstance(value, np.ndarray):
            data = np.ascontiguousarray(value)
            out.append((data.dtype.str, data.shape, hashlib.sha256(data.tobytes()).hexdigest()))
        else:
            out.append(repr(value))
    return tuple(out)


def scatter_components(game: Game, components: list) -> np.ndarray:
    """Component index of each scatter group's pay (-1 for groups that pay nothing)."""
    out = []
    for name, group in game.scatters.items():
        out.append(components.index(f"scatter:{name}") if any(p > 0 for p in group.pays.values()) else -1)
    return np.array(out, dtype=np.int64)


def base_components(game: Game) -> list:
    """``lines`` plus one ``scatter:<name>`` per paying scatter group."""
    return ["lines"] + [f"scatter:{n}" for n, g in game.scatters.items() if any(p > 0 for p in g.pays.values())]


def _build_prefix(win_sym, n_windows, k, line_rows, trans, gain, live):
    """The prefix table of the first ``k`` reels (windows ``win_sym[reel, window, row]``, ``n_windows[reel]``).

    For every combination of their windows (index ``p``, mixed radix, reel 0 the most significant digit):
    ``paid[p]``, what every line has paid on those reels (pay units), and ``ptr[p] .. ptr[p + 1]``, the
    lines still undecided after them (``line``, int32) with their automaton states (``state``, int32), in
    line order.  Walked twice by :func:`_prefix_walk` (count, then fill), so the compiled walk allocates
    nothing: loading it from the cache then needs none of numba's array-creation code.
    """
    k = int(k)
    size = int(np.prod(n_windows[:k], dtype=np.int64))
    n_lines = line_rows.shape[0]
    paid = np.zeros(size, dtype=np.int64)
    ptr = np.zeros(size + 1, dtype=np.int64)
    scratch = (np.zeros(max(k, 1), dtype=np.int64), np.zeros(k + 1, dtype=np.int64),
               np.zeros((k + 1, n_lines), dtype=np.int64), np.zeros((k + 1, n_lines), dtype=np.int64),
               np.zeros(k + 1, dtype=np.int64))
    automaton = (np.int64(k), line_rows, trans, gain, live)
    nnz = _prefix_walk(win_sym, n_windows, *automaton, *scratch, paid, ptr, np.zeros(0, dtype=np.int32),
                       np.zeros(0, dtype=np.int32), False)
    out_line = np.zeros(nnz, dtype=np.int32)
    out_state = np.zeros(nnz, dtype=np.int32)
    _prefix_walk(win_sym, n_windows, *automaton, *scratch, paid, ptr, out_line, out_state, True)
    return paid, ptr, out_line, out_state


@njit(cache=True)
def _prefix_walk(win_sym, n_windows, k, line_rows, trans, gain, live, wins, n_live, live_line, live_state, pays,
                 paid, ptr, out_line, out_state, fill):
    """Walk the combinations of :func:`_build_prefix` in index order, filling ``paid`` and ``ptr`` (and, with
    ``fill``, ``out_line`` / ``out_state``); returns how many undecided lines there are in all.

    After reels 0 .. i - 1 it keeps ``n_live[i]`` undecided lines ``live_line[i, :n_live[i]]`` (in line order)
    in states ``live_state[i, :n_live[i]]`` and ``pays[i]``, what all lines paid on those reels, so a step redoes
    only the reels whose window changed (nearly always the last one) and only for the lines still undecided
    before it.  ``wins`` (k), ``n_live``, ``pays`` (k + 1), ``live_line``, ``live_state`` (k + 1, lines): scratch.
    """
    n_lines = line_rows.shape[0]
    for i in range(wins.shape[0]):
        wins[i] = 0
    n_live[0] = n_lines if live[0] else 0
    for l in range(n_lines):
        live_line[0, l] = l
        live_state[0, l] = 0
    pays[0] = 0
    nnz = 0
    changed = 0  # first reel whose window changed since the previous combination
    for p in range(paid.shape[0]):
        for i in range(changed, k):
            total = pays[i]
            c = 0
            for j in range(n_live[i]):
                l = live_line[i, j]
                st = live_state[i, j]
                sym = win_sym[i, wins[i], line_rows[l, i]]
                total += gain[st, sym]
                st = trans[st, sym]
                if live[st]:
                    live_line[i + 1, c] = l
                    live_state[i + 1, c] = st
                    c += 1
            n_live[i + 1] = c
            pays[i + 1] = total
        if fill:
            for j in range(n_live[k]):
                out_line[nnz + j] = live_line[k, j]
                out_state[nnz + j] = live_state[k, j]
        nnz += n_live[k]
        paid[p] = pays[k]
        ptr[p + 1] = nnz
        changed = k - 1  # the next combination: the last reel's window moves on, carrying into earlier reels
        while changed >= 0:
            wins[changed] += 1
            if wins[changed] < n_windows[changed]:
                break
            wins[changed] = 0
            changed -= 1
    return nnz


# ---------------------------------------------------------------------------
# spinning and paying
# ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def choose_set(ma, rng):
    """Index of the strip set this spin uses (weighted choice; 0 if there is one)."""
    cum = ma.set_cum
    if cum.shape[0] == 1:
        return 0
    return weighted_index(cum, rng)


@njit(cache=True, inline="always")
def draw_stop(ma, s, reel, rng):
    """A stop of ``reel`` of strip set ``s`` drawn by its stop weights."""
    return ma.vstop[s, reel, bounded(rng, ma.total_weight[s, reel])]


@njit(cache=True, inline="always")
def spin_windows(ma, s, rng, wins):
    """Spin every reel of strip set ``s``: fills ``wins`` with each reel's window index."""
    vwin = ma.vwin
    total = ma.total_weight
    for r in range(wins.shape[0]):
        wins[r] = vwin[s, r, bounded(rng, total[s, r])]


@njit(cache=True, inline="always")
def spin_reel(ma, s, reel, rng):
    """Window index of one reel spun on its own (respins)."""
    return ma.vwin[s, reel, bounded(rng, ma.total_weight[s, reel])]


@njit(cache=True, inline="always")
def line_pay_windows(ma, s, la, wins):
    """Line pays (units) of an unmodified screen of strip set ``s`` given by its windows."""
    k = ma.prefix_reels[s]
    mult = ma.prefix_mult
    pre_info = ma.pre_info
    pre_live = ma.pre_live
    bits = ma.row_bits
    row_mask = (1 << bits) - 1
    step = la.step
    n_reels = wins.shape[0]
    p = 0
    for i in range(k):
        p += wins[i] * mult[s, i]
    total = np.int64(pre_info[s, p, 0])
    start = pre_info[s, p, 1]
    end = pre_info[s, p + 1, 1]
    if start == end:
        return total
    win_sym = ma.win_sym
    shift = bits * (n_reels - k)
    for j in range(start, end):
        packed = np.int64(pre_live[s, j])
        st = packed >> shift
        for i in range(k, n_reels):
            code = step[st, win_sym[s, i, wins[i], (packed >> (bits * (i - k))) & row_mask]]
            total += code >> 32
            if code & 1 == 0:
                break
            st = (code & 0xFFFFFFFF) >> 1
    return total


@njit(cache=True, inline="always")
def fill_screen(ma, s, wins, screen):
    """Copy the symbols of the windows into ``screen`` (reels x rows)."""
    rows = ma.rows
    win_sym = ma.win_sym
    for r in range(rows.shape[0]):
        for row in range(rows[r]):
            screen[r, row] = win_sym[s, r, wins[r], row]


@njit(cache=True, inline="always")
def group_count(ma, s, sc, wins, g, skip_reel):
    """Visible instances of scatter group ``g`` (``skip_reel``: a held reel showing none, or -1)."""
    win_cnt = ma.win_cnt
    mode = sc.mode[g]
    code = 0
    for r in range(wins.shape[0]):
        c = 0 if r == skip_reel else win_cnt[s, r, wins[r], g]
        code = update_code(mode, 1 << 30, code, c)
    return code // 2 if mode == ADJACENT else code


@njit(cache=True, inline="always")
def count_groups(ma, s, sc, wins, counts, skip_reel):
    """Fill ``counts[g]`` with the visible instances of every scatter group.

    "anywhere" groups come from the packed per-window counts (one addition
    per reel for all of them); adjacent groups follow their reels in order.
    """
    win_cnt = ma.win_cnt
    packed = ma.win_packed
    mode = sc.mode
    n_groups = counts.shape[0]
    use_packed = packed.shape[2] > 0
    total = 0
    if use_packed:
        for r in range(wins.shape[0]):
            if r != skip_reel:
                total += packed[s, r, wins[r]]
    slot = 0
    for g in range(n_groups):
        if mode[g] == ADJACENT:
            code = 0
            for r in range(wins.shape[0]):
                c = 0 if r == skip_reel else win_cnt[s, r, wins[r], g]
                code = update_code(ADJACENT, 1 << 30, code, c)
            counts[g] = code // 2
        elif use_packed and slot < 8:
            counts[g] = (total >> (8 * slot)) & 255
            slot += 1
        else:
            c = 0
            for r in range(wins.shape[0]):
                if r != skip_reel:
                    c += win_cnt[s, r, wins[r], g]
            counts[g] = c


def quiet_check(game: Game, scat: ScatterArrays, triggers: dict) -> tuple[np.int64, np.int64]:
    """``(bias, mask)`` for :func:`screen_is_quiet`: a screen is quiet when no scatter group
    reaches a count that pays or that ``triggers`` ({group index: count needed}) acts on.

    Works on the packed "anywhere" counts: with each group's byte biased by
    128 - threshold, one addition sets a byte's top bit exactly when its
    group reaches its threshold.  ``mask`` is 0 (never quiet) when some group
    is counted on adjacent reels or beyond the 8 packed slots.
    """
    groups = list(game.scatters.values())
    anywhere = [g for g, grp in enumerate(groups) if grp.counting == "anywhere"]
    if len(anywhere) != len(groups) or len(groups) > 8:
        return np.int64(0), np.int64(0)
    bias = mask = 0
    for slot, g in enumerate(anywhere):
        paying = [c for c in range(scat.pays.shape[1]) if scat.pays[g, c] > 0]
        needed = [c for c in paying[:1] + [triggers.get(g, 128)]]
        threshold = max(0, min(min(needed), 128))
        bias |= (128 - threshold) << (8 * slot)
        mask |= 0x80 << (8 * slot)
    return np.int64(bias), np.int64(mask)


@njit(cache=True, inline="always")
def screen_is_quiet(ma, s, wins, bias, mask):
    """Whether no scatter group reaches a paying or triggering count (see :func:`quiet_check`);
    then the screen pays its lines only.  False whenever it cannot tell."""
    packed = ma.win_packed
    if mask == 0 or packed.shape[2] == 0:
        return False
    total = 0
    for r in range(wins.shape[0]):
        total += packed[s, r, wins[r]]
    return ((total + bias) & mask) == 0
