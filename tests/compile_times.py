"""How much of each test is numba compiling (issue 33: measure before choosing what to share or warm).

A pytest plugin loaded by conftest.py: every test process records the wall time of numba's top-level
compilations (``numba.core.event``, as benchmarks/bench_compile.py does) while a test's setup, call and teardown
run, and hands it to the controlling process in the test's ``user_properties`` (pytest-xdist carries those over).
The terminal summary then says how many seconds of the run were compiling, and the tests that compiled longest:
a test that compiles what ``workbench warm --all`` did not is a signature the warm-up misses, or a type a random
game makes that the gallery never does.
"""

from __future__ import annotations

import time

import pytest

KEY = "numba_compile_seconds"
KEY_FUNCTIONS = "numba_compile_functions"
SHOWN = 15


class _CompileClock:
    """Seconds spent in numba's outermost compilations since the clock was created."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.by_function: dict[str, float] = {}  # outermost compilations only, by module.qualname
        self._depth = 0
        self._started = 0.0

    def on_start(self, _event) -> None:
        if self._depth == 0:
            self._started = time.perf_counter()
        self._depth += 1

    def on_end(self, event) -> None:
        self._depth -= 1
        if self._depth == 0:
            spent = time.perf_counter() - self._started
            self.seconds += spent
            function = event.data["dispatcher"].py_func
            name = f"{function.__module__}.{function.__qualname__}"
            self.by_function[name] = self.by_function.get(name, 0.0) + spent


class CompileTimes:
    def __init__(self) -> None:
        from numba.core import event

        clock = _CompileClock()

        class _Listener(event.Listener):
            def on_start(self, ev):
                clock.on_start(ev)

            def on_end(self, ev):
                clock.on_end(ev)

        event.register("numba:compile", _Listener())
        self.clock = clock
        self.by_test: dict[str, float] = {}
        self.by_function: dict[str, float] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        self._started = self.clock.seconds
        self._functions = dict(self.clock.by_function)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        if call.when == "teardown":
            spent = self.clock.seconds - getattr(self, "_started", self.clock.seconds)
            if spent > 0:
                before = getattr(self, "_functions", {})
                functions = {name: seconds - before.get(name, 0.0) for name, seconds in self.clock.by_function.items()
                             if seconds > before.get(name, 0.0)}
                outcome.get_result().user_properties.extend([(KEY, spent), (KEY_FUNCTIONS, functions)])

    def pytest_runtest_logreport(self, report):
        if report.when != "teardown":
            return
        for key, value in report.user_properties:
            if key == KEY:
                self.by_test[report.nodeid] = value
            elif key == KEY_FUNCTIONS:
                for name, seconds in value.items():
                    self.by_function[name] = self.by_function.get(name, 0.0) + seconds

    def pytest_terminal_summary(self, terminalreporter):
        if not self.by_test:
            return
        total = sum(self.by_test.values())
        terminalreporter.write_sep("=", f"numba compiling inside tests: {total:.1f} s in {len(self.by_test)} tests")
        for nodeid, seconds in sorted(self.by_test.items(), key=lambda kv: -kv[1])[:SHOWN]:
            terminalreporter.write_line(f"{seconds:8.2f}s compiling  {nodeid}")
        terminalreporter.write_line("compiled longest (outermost compilations, every test process):")
        for name, seconds in sorted(self.by_function.items(), key=lambda kv: -kv[1])[:SHOWN]:
            terminalreporter.write_line(f"{seconds:8.2f}s  {name}")
