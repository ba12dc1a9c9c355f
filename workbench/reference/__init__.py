"""A deliberately slow, obviously correct evaluator of single screens.

It exists only to check the fast exact engines and the simulator: plain
Python, written straight from the rules, sharing no code with them (it
imports :mod:`workbench.model` only).  Every win is built by looking at the
screen cell by cell; ways are enumerated one by one, never counted by a
formula.

Screens
-------
- A reel stopped at ``stop`` shows strip positions stop, stop+1, ... (top row
  first), wrapping around the strip.  It shows ``game.rows[i]`` rows, or, in a
  ways game with ``game.heights``, the ``h`` rows drawn for it this spin
  (stops stop..stop+h-1).
- Pays are in the line pay unit (``game.bet.line_pay_unit``) and become
  credits per bet multiplier with ``game.bet.credits``.

Matching (lines and ways)
-------------------------
A *target* is a paytable entry: a symbol (regular or wild) or a group
(``game.groups``).  A shown symbol matches
- a regular target ``x``: if it is ``x`` or a wild whose ``substitutes``
  contain ``x``;
- a group target: if it is a member, or a wild substituting for at least one
  member;
- a wild target ``w``: only if it is ``w`` itself (a wild's own run counts
  only that wild).
A target's *combination* for a run ``r`` is ``(target, k)``, ``k`` the largest
listed count not above ``r`` with a pay > 0 (none: no win).

Multipliers
-----------
Multiplier wilds are wilds with ``Symbol.multiplier > 1``.  The multiplier
``M`` of a win (a line's first ``k`` symbols, or one way through reels 1..k):
- ``combine = "product"``: the product of the multipliers of the wilds in it
  (plain symbols and plain wilds count 1);
- ``combine = "sum"``: the sum of the multipliers of the multiplier wilds in
  it, or 1 if it holds none.
A win of a wild target (the wild's own paytable entry) has ``M = 1`` unless
``multiply_wild_only`` is true.  A win of a regular target or group made
only of wilds is a win of that target: it is multiplied.

A wild whose ``multiplier`` names a table (``Symbol.multiplier_table``) draws,
on every visible cell showing it, its own multiplier from the table each spin;
:func:`spin_result` takes the drawn multipliers as ``multipliers`` (cell ->
m; a table-wild cell without one counts ``Symbol.multiplier``, 1), and a cell
that drew m is a wild of multiplier m in every rule above (it is still that
wild for the wild's own paytable entry).

Rule "lines"
------------
- left_to_right: every target's run is the number of leading symbols of the
  line matching it; its candidate is ``(t, k)`` paying ``pay(t, k) x M``.  The
  line pays its best candidate: the highest multiplied pay, then more symbols,
  then a symbol before a group, then file order (symbols in ``[symbols]``
  order, then groups in ``[groups]`` order).
- right_to_left: the same, reading the line from the last reel to the first.
- both_ways: the best left_to_right win plus the best right_to_left win;
  when both are the same full-length combination (count == reels) it is paid
  once.
- The spin pays the sum over all paylines.

Rule "ways"
-----------
For every paying target ``t`` (symbols and groups, wilds included),
independently of the others: its run ``r`` is the number of leading reels
(from reel 1) showing at least one cell matching ``t``; ``k`` as above; if
``k > 0`` it pays ``pay(t, k) x W``, where ``W`` is the sum, over every way
through reels 1..k (one matching cell per reel), of the way's multiplier ``M``
(so without multiplier wilds ``W`` is the plain number of ways, the product of
the matching cells per reel).  A wild cell counts for every target it
substitutes for.  Each visible cell is one position (a tall symbol's visible
rows are separate positions).

Rule "scatter_pays"
-------------------
For every paytable symbol ``x``: its count is the number of visible cells
showing ``x`` anywhere on the screen; it pays ``pay_for_count(paytable[x],
count)`` (the band of the largest listed count not above the count; none
below the lowest).  No wilds, no groups.

Rule "cluster"
--------------
Cells (reel, row) and (reel, row +- 1), (reel +- 1, row) are neighbours.  For
every paytable symbol ``x`` that is not a wild: a cluster of ``x`` is a set of
cells, each showing ``x`` or a wild, connected through neighbours, holding at
least one ``x``, and as large as it can be (found by breadth-first search from
each ``x`` cell not yet in a cluster of ``x``).  It pays ``pay_for_count(
paytable[x], size)``; every cluster pays on its own, a wild cell counts in
every cluster it touches, and a group of wilds only is no cluster.  An empty
cell (``None``) joins nothing.  The records are one :class:`Win` per paying
(symbol, band): ``multiplier`` is how many clusters of that band the screen
holds.

Scatter groups ([scatters.*])
-----------------------------
Added to every rule.  A tall symbol instance occupies ``height`` consecutive
stops; runs of a tall symbol are cut into instances from the run's first
stop; a group counts instances that are partly (or, for "full", wholly) in
the window (the reel's rows this spin), anywhere or only on adjacent reels
from reel 1; it pays ``group.pay(count)`` in ``group.unit``.

Records
-------
A win is a :class:`Win` ``(target, count, multiplier, pay, side, line)``:
``pay`` is the paytable pay ``pay(target, count)`` unmultiplied (line pay
unit), ``multiplier`` is ``M`` for lines, ``W`` (ways weighted by their
multipliers) for ways, 1 for scatter_pays, the number of clusters for cluster; the amount paid is ``pay x
multiplier`` (:attr:`Win.paid`).  ``count`` is the listed count paid (for
scatter_pays the band, the symbol's real count is in ``symbol_counts``).
``side`` is "" for left_to_right lines, ways and scatter_pays, "right" for
right_to_left lines, "left"/"right" for the two sides of a both_ways line (a
full-length win paid once is "left").  ``line`` is the payline index (lines)
or None.

Cycle
-----
:func:`enumerate_cycle` visits every stop combination; in a ways game with
heights, every (height, stop) pair of every reel, weighing height weight x
stop weight (a reel without heights shows its ``rows`` with weight 1).

With table wilds it also visits, for every stop combination, every
assignment of a table entry to each visible table-wild cell.  Each table is
taken with its weights summed per distinct multiplier, weight-0 multipliers
left out, and divided by their greatest common divisor (the same
probabilities; T is the total of these weights).  An assignment weighs the
stop combination's weight x the product of the chosen weights x, for every
reel and every table wild its strip holds, T^(rows - j) (rows: the reel's
``game.rows``, also with heights; j: the reel's visible cells showing that
wild).  So every stop combination weighs its stop weights x T^rows per
(reel, table wild on its strip), whatever it shows, and the cycle is the
product over reels of strip total x those factors: the exact engines' cycle.
"""

from __future__ import annotations

from .screens import (Win, window, _rows, screen, _substitutes, matches, _is_wild_target, _listed_count, win_multiplier, _file_order, instances_on_strip, scatter_count)
from .pays import (line_win, line_combination, line_wins, ways_count, ways_wins, symbol_counts, scatter_pays_wins, find_clusters, cluster_band, cluster_screen, cluster_wins, lines_spin_wins, ways_spin_wins, anywhere_spin_wins, cluster_spin_wins, lines_drop, ways_drop, anywhere_drop, cluster_drop, lines_drop_wins, ways_drop_wins, anywhere_drop_wins, cluster_drop_wins)
from .cycle import (spin_result, reel_outcomes, multiplier_tables, multiplier_assignments, combination_key, trigger_starts, enumerate_cycle, reveal_mixture, _visit)
from .wheels import bonus_award, spin_wheel_table, wheel_outcomes
from .features import (_pick, base_spin_with_random_wilds, spin_set, _spins_for, _feature_spins, forced_screen, free_spins_feature, persisting_cells, trigger_screen, wheel_award, _count_on_screen, hold_and_respin_feature, drop_wins, PositionCells, TumbleLadder, tumble_chain, tumble_round)

__all__ = ['base_spin_with_random_wilds', 'bonus_award', 'spin_wheel_table', 'wheel_outcomes', 'Win', 'anywhere_drop', 'anywhere_drop_wins', 'cluster_drop_wins', 'lines_drop_wins', 'ways_drop_wins', 'anywhere_spin_wins', 'cluster_band', 'cluster_drop', 'cluster_screen', 'cluster_spin_wins', 'cluster_wins', 'combination_key', 'drop_wins', 'enumerate_cycle', 'find_clusters', 'forced_screen', 'free_spins_feature', 'persisting_cells', 'trigger_screen', 'hold_and_respin_feature', 'instances_on_strip', 'line_combination', 'line_win', 'line_wins', 'lines_drop', 'lines_spin_wins', 'matches', 'multiplier_assignments', 'multiplier_tables', 'reel_outcomes', 'reveal_mixture', 'spin_set', 'scatter_count', 'scatter_pays_wins', 'screen', 'spin_result', 'symbol_counts', 'trigger_starts', 'PositionCells', 'TumbleLadder', 'tumble_chain', 'tumble_round', 'ways_count', 'wheel_award', 'ways_drop', 'ways_spin_wins', 'ways_wins', 'win_multiplier', 'window']



