"""A plain line game: line and scatter pays only, no special features.

Everything such a game pays is computed exactly by :mod:`workbench.exact`.
"""

from __future__ import annotations

FEATURES: dict = {}
