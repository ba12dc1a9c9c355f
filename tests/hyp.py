"""Hypothesis profiles of the test suite, shared by every property test.

- ``ci`` (the default): derandomized (the same examples on every run, so a failure reproduces and a pass stays a
  pass), no example database, no deadline (a compiled round's first call compiles), the health check for slow
  data generation off (random games are built from text).
- ``deep``: ten times the examples each test asks for, random ones, for a long run before a release:
  ``HYPOTHESIS_PROFILE=deep .venv/bin/python -m pytest tests/``.

A property test asks for ``max_examples=examples(N)``: N under ``ci``, 10 N under ``deep``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
SCALE = 10 if PROFILE == "deep" else 1

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.register_profile("deep", derandomize=False, database=None, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.load_profile(PROFILE if PROFILE in ("ci", "deep") else "ci")


def examples(n: int) -> int:
    """How many examples a test that asks for ``n`` plays under the loaded profile."""
    return max(1, int(n * SCALE))
