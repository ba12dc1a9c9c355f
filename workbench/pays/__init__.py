"""Pay rules: one module per rule, each giving the rule's exact parts and its compiled form.

- :mod:`.lines`: paylines (left to right, right to left or both ways; symbol
  groups; multiplier wilds), highest win per line: the line automaton (``compile``: :func:`~.lines.build_automaton`), its exact hit
  counts per line (:func:`~.lines.line_state_counts`), and the simulator's
  packed steps with the inline pay function :func:`~.lines.line_pay_screen`;
- :mod:`.scatter`: counts of a symbol group anywhere (or on adjacent reels
  from reel 1) paid by count: pay tables by count code and the inline
  :func:`~.scatter.update_code` / :func:`~.scatter.scatter_pay`;
- :mod:`.ways`: ways pays (adjacent reels from reel 1, any row, fixed or
  per-spin reel heights, multiplier wilds): per-outcome tables and the
  inline :func:`~.ways.ways_pay`;
- :mod:`.anywhere`: pay anywhere (``scatter_pays``: a count of a symbol
  anywhere on the screen) and its inline pay function;
- :mod:`.cluster`: cluster pays (``cluster``: orthogonally adjacent cells of a
  symbol, wilds joining, paid by size) and the inline bitboard evaluator
  :func:`~.cluster.cluster_pay_screen`;
- :mod:`.scale`: the integer pay unit every rule pays in.

The exact engine (:mod:`workbench.exact`) and the simulator
(:mod:`workbench.simulate`) both read a game's pays only through these.
"""
