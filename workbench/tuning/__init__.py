"""The RTP tuner, and helpers a math designer uses to build strips.

:func:`tune` changes as few reel stops and weights as it can so that a game
(or one bet mode of it, x its own cost) reaches a target RTP while chosen
figures (hit frequency, volatility index, trigger rates) stay in their bands,
then confirms the tuned file's RTP on its own; :func:`tune_targets` does it
for several bet modes on one file, :func:`tune_versions` makes several RTP
versions of one game that differ only in the allowed symbols.  What it
optimises, what "reached" means and why the edit is small is in
docs/tuning.md.  The package:

- :mod:`.figures`: :func:`measure` (the exact figures; the whole-game RTP with
  the held :class:`FeatureTerms`), :class:`FeatureProxy`, the ``--keep``
  bands (:class:`Keep`, :func:`parse_keep`);
- :mod:`.search`: one search, :func:`find_edit` (exact effects per swap,
  :func:`scipy.optimize.milp`, placement checked against the plan);
- :mod:`.confirm`: :func:`tune`: the search, the confirmation by an
  independent estimate (or exactly) and another aim when it is off;
- :mod:`.modes`: what a bet mode plays and varies; :mod:`.targets`: several
  ``--target`` modes in one run;
- :mod:`.result`: :class:`TuneResult`, :class:`Confirmation`, the changes,
  :func:`versions_table`;
- :mod:`.strips`: :func:`spread_strip` lays out a strip from symbol counts,
  :func:`with_counts` rebuilds a strip set from counts, :func:`scale_to_rtp`
  finds the factor that brings one component to a target.
"""

from __future__ import annotations

from .confirm import (CONFIRM_PRECISION_SHARE, DEFAULT_CONFIRM_SECONDS, DEFAULT_FEATURE_TOLERANCE, MAX_CONFIRM_ROUNDS,
                      SEARCH_SHARE, confirm_seed, default_tolerance, held_terms, shared_terms, tune, tune_versions)
from .figures import (DEFAULT_KEEP_TOLERANCE, KEEP_METRICS, FeatureProxy, FeatureTerms, Keep, _fmt, has_simulated_terms,
                      measure, parse_keep, table_mean_value)
from .modes import ModePlan, feature_modes, order_targets, plan_mode, strips_played
from .result import STATUSES, Confirmation, StopChange, TuneResult, WeightChange, version_path, versions_table
from .search import DEFAULT_MAX_STEPS, DEFAULT_TOLERANCE, find_edit
from .vary import _default_strip_set, _resolve_vary, _special_symbols
from .strips import scale_to_rtp, spread_strip, with_counts
from .targets import ModeTarget, TargetsResult, parse_target, tune_targets

__all__ = [
    "CONFIRM_PRECISION_SHARE",
    "DEFAULT_CONFIRM_SECONDS",
    "DEFAULT_FEATURE_TOLERANCE",
    "DEFAULT_KEEP_TOLERANCE",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_TOLERANCE",
    "KEEP_METRICS",
    "MAX_CONFIRM_ROUNDS",
    "SEARCH_SHARE",
    "STATUSES",
    "Confirmation",
    "FeatureProxy",
    "FeatureTerms",
    "Keep",
    "ModePlan",
    "ModeTarget",
    "StopChange",
    "TargetsResult",
    "TuneResult",
    "WeightChange",
    "confirm_seed",
    "default_tolerance",
    "feature_modes",
    "find_edit",
    "has_simulated_terms",
    "held_terms",
    "measure",
    "order_targets",
    "parse_keep",
    "parse_target",
    "plan_mode",
    "scale_to_rtp",
    "shared_terms",
    "spread_strip",
    "strips_played",
    "table_mean_value",
    "tune",
    "tune_targets",
    "tune_versions",
    "version_path",
    "versions_table",
    "with_counts",
]
