import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("MPLBACKEND", "Agg")

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
