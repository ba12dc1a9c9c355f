"""The shipped games' own round templates, each a package:

- ``__init__``: the rules (docstring), the feature parameters the template
  reads from ``[features]`` and their cross-checks, and ``TEMPLATE`` (what
  :mod:`workbench.registry` lists); plain Python, so validating a file never
  compiles anything;
- ``play``: the compiled round built from the shared steps of
  :mod:`workbench.simulate.steps`, imported only when the game is simulated.
"""
