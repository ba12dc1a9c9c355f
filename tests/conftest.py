import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("MPLBACKEND", "Agg")
# pytest-xdist runs one test process per core (``make test``): the exact engines' parallel loops (numba prange) then
# start a thread per core in every process, and the processes' threads (and the report kernels and CLI runs they
# start, which inherit this) compete for the same cores.  One thread per process when the processes fill the
# machine: tests/test_tuning.py + tests/test_consistency.py on 2 processes took 222 s instead of 238 s, with 401
# instead of 450 s of CPU.  Set before numba is imported (it reads the variable once); a value already set wins.
_workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
if _workers:
    os.environ.setdefault("NUMBA_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // _workers)))

import hyp  # noqa: E402,F401  (registers the hypothesis profiles and loads HYPOTHESIS_PROFILE, default "ci")


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def classic():
    from workbench.io import load_game

    return load_game("classic_tens")


def pytest_configure(config):
    from compile_times import CompileTimes

    config.pluginmanager.register(CompileTimes(), "workbench_compile_times")
