"""The package's layers: no import cycles, lower layers never import higher ones, light imports.

The module graph is read from the source with :mod:`ast` (every ``import`` at
any depth, including inside functions, except ``if TYPE_CHECKING:`` blocks),
so a lazy import counts like any other.  docs/architecture.md shows the same
layers.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "workbench"

# lowest first; a module may import only modules of its own layer or lower ones
LAYERS = [
    ("errors", "_cache", "_jit", "_atomic"),
    ("model",),
    ("stats", "figures"),
    ("registry",),
    ("io",),
    ("pays",),
    ("exact", "reference"),
    ("simulate",),
    ("rounds", "games"),
    ("plots", "plot_layout", "plot_rounds", "tuning", "lints", "checks", "export"),
    ("report",),
    ("widgets",),
    ("cli",),
]
# the one upward reference is by name, not by import: the registry's table of built-in
# template names (strings imported on first lookup), checked in test_registry.py


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str) -> set[str]:
    """Package modules ``module`` imports (a ``from P import x`` of submodule x counts as P.x)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()

    def visit(node):
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "workbench")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "workbench":
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    out.add(sub if sub in MODULES else target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in out if m in MODULES and m != module}


GRAPH = {m: _imports(m) for m in MODULES}


def _layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else ""
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer of LAYERS: add its package to tests/test_architecture.py and docs/architecture.md")


def test_every_module_has_a_layer():
    for module in MODULES:
        if module != "workbench":
            _layer(module)


def test_no_import_cycle_in_the_package():
    # Tarjan's strongly connected components over the module graph
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    cycles = []
    counter = [0]

    def connect(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            # a package importing its own submodule (its __init__ re-exports) is not a cycle unless the
            # submodule imports the package back
            if len(component) > 1:
                cycles.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(GRAPH):
        if v not in index:
            connect(v)
    assert not cycles, f"import cycles: {cycles}"


def test_lower_layers_never_import_higher_ones():
    wrong = []
    for module, imported in GRAPH.items():
        if module == "workbench":
            continue
        for other in imported:
            if other != "workbench" and _layer(other) > _layer(module):
                wrong.append(f"{module} (layer {_layer(module)}) imports {other} (layer {_layer(other)})")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_exact_engine_imports_nothing_from_the_file_format_layer():
    def reach(module, seen):
        for other in GRAPH[module]:
            if other not in seen:
                seen.add(other)
                reach(other, seen)
        return seen

    for module in MODULES:
        if module.startswith(("workbench.exact", "workbench.pays", "workbench.model")):
            reached = reach(module, set())
            assert not {m for m in reached if m.startswith("workbench.io")}, module


def test_the_engines_receive_template_facts_as_data_and_nothing_imports_the_reference_oracle():
    """The model, the pay rules and the exact engine never look up the round-template registry (what a template
    says of a game, such as what its exact sheet covers and the money it pays, is on the Game, read when the file
    was validated); only the test suite imports the slow reference evaluator (the substitution rule the rounds
    share lives in the model: Game.counts_for)."""
    below = [m for m in MODULES if m.startswith(("workbench.model", "workbench.stats", "workbench.pays",
                                                  "workbench.exact", "workbench.figures"))]
    assert not [m for m in below if "workbench.registry" in GRAPH[m]], "lower layers look up the registry"
    users = [m for m, imported in GRAPH.items() if "workbench.reference" in imported]
    assert not users, f"the reference oracle is imported by {users}"


def test_the_graph_sees_lazy_imports():
    # guards the test itself: a function-level import is an edge
    assert "workbench.io" in GRAPH["workbench.simulate.engine"]
    assert "workbench.model.edits" in GRAPH["workbench.model.game"]
    assert "workbench.io.store" in GRAPH["workbench.io"]


@pytest.mark.parametrize("module, forbidden", [
    ("workbench", ("numba", "pandas", "matplotlib", "workbench.exact", "workbench.io")),
    ("workbench.model", ("numba", "pandas", "matplotlib", "tomlkit", "workbench.io")),
    ("workbench.io", ("numba", "pandas", "matplotlib", "workbench.exact", "workbench.simulate")),
    ("workbench.registry", ("numba", "pandas", "workbench.games", "workbench.rounds")),
])
def test_imports_stay_light(module, forbidden):
    code = (f"import sys, {module}\n"
            f"print([m for m in {list(forbidden)!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]", f"import {module} loaded {out}"


def test_loading_and_validating_a_game_compiles_nothing():
    code = ("import sys\nfrom workbench import load_game\n"
            "for name in ('classic_tens', 'super_10_stars', 'bier_haus_oktober_fest'):\n    load_game(name)\n"
            "print('numba' in sys.modules, 'workbench.games.bier_haus.play' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False False"


def test_the_architecture_doc_names_every_layer_and_module_group():
    doc = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for names in LAYERS:
        for name in names:
            assert name in doc, f"docs/architecture.md does not mention layer {name!r}"
    for module in MODULES:
        parts = module.split(".")
        if len(parts) == 3 and MODULES[module].name != "__init__.py":
            # every module of a layer package is listed by its file name
            assert f"{parts[2]}.py" in doc or f"{parts[1]}/{parts[2]}" in doc or parts[1] == "widgets" or parts[1] == "report", module


# -- sizes: a module holds one concern, a function one step ------------------------------------------------------
MODULE_LINES_MAX = 700
FUNCTION_LINES_MAX = 100  # lines of code, the docstring left out
_BESPOKE = ("a shipped game's own round template, retired when the game is written as data on the general "
            "templates (docs/architecture.md, 'Shipped games')")
# reasoned exceptions, "path" (a module) or "path:function"; an entry no longer needed fails the test below
SIZE_EXCEPTIONS = {
    "workbench/games/bier_haus/play.py": _BESPOKE,
    "workbench/games/bier_haus/play.py:round_model": _BESPOKE,
    "workbench/games/super_10_stars/__init__.py:check_features": _BESPOKE,
    "workbench/exact/cluster.py:_walk": "compiled kernel: the parallel walk keeps its per-depth bitboards, union-find "
                                        "and sums in one frame (numba would copy them at every call of a smaller step)",
    "workbench/exact/cluster_transfer.py:_symbol_layers": "compiled kernel: one pass over a reel's windows and the open "
                                                          "components joins them with a union-find local to the pass",
    "workbench/exact/cluster_transfer.py:_joint_sweep": "compiled kernel: the sweep over the joint states of every "
                                                        "symbol and the scatter counts holds one hash table in one frame",
    "workbench/exact/enumerate.py:_walk_max": "compiled kernel: the branch-and-bound keeps its explicit stack and "
                                              "bounds in one frame (numba compiles no recursion across calls cheaply)",
    "workbench/exact/unpaid.py:_unpaid_step": "compiled kernel: the next reel's unpaid paths are expanded, hashed and "
                                              "merged in one pass over the current ones",
    "workbench/exact/cluster_moments.py:_step_layer": "compiled kernel: the runs' union-find, the probe and the sums of "
                                                      "one step written out in the hot loop (a helper taking arrays costs "
                                                      "atomic reference counts per call there: half a sweep's time)",
    "workbench/exact/cluster_unpaid.py:_unpaid_step_layer": "compiled kernel: the runs' growth, the probe and the sum of "
                                                            "one step written out in the hot loop (a helper taking arrays "
                                                            "costs atomic reference counts per call there)",
}


def _function_sizes():
    """(key, code lines) of every function and method of the package, its docstring left out."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                    lines -= first.end_lineno - first.lineno + 1
                yield f"{rel}:{node.name}", lines


def test_modules_and_functions_stay_small_or_say_why():
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MODULE_LINES_MAX and rel not in SIZE_EXCEPTIONS:
            too_long.append(f"{rel}: {lines} lines (over {MODULE_LINES_MAX}): split it by concern")
    for key, lines in _function_sizes():
        if lines > FUNCTION_LINES_MAX and key not in SIZE_EXCEPTIONS:
            too_long.append(f"{key}: {lines} lines of code (over {FUNCTION_LINES_MAX}): split it into steps")
    assert not too_long, "\n".join(too_long)


def test_every_size_exception_is_still_needed_and_says_why():
    sizes = dict(_function_sizes())
    for path in sorted(PACKAGE.rglob("*.py")):
        sizes[path.relative_to(PACKAGE.parent).as_posix()] = len(path.read_text(encoding="utf-8").splitlines())
    for key, reason in SIZE_EXCEPTIONS.items():
        limit = FUNCTION_LINES_MAX if ":" in key else MODULE_LINES_MAX
        assert key in sizes, f"{key}: no such module or function; drop it from SIZE_EXCEPTIONS"
        assert sizes[key] > limit, f"{key}: {sizes[key]} lines, within the limit: drop it from SIZE_EXCEPTIONS"
        assert len(reason) > 20, key


def _njit_options(node) -> dict | None:
    """The keyword options of a function's ``@njit`` decorator ({} for a bare ``@njit``), or None if it has none."""
    for deco in node.decorator_list:
        if isinstance(deco, ast.Name) and deco.id == "njit":
            return {}
        if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == "njit":
            return {k.arg: getattr(k.value, "value", None) for k in deco.keywords}
    return None


# cached functions that compiled code calls and Python calls too (each is an entry point of its own); not inlined
CACHED_HELPERS_CALLED_FROM_PYTHON = {
    "_row_bound": "the bound of one row of reels: max_spin_search calls it from Python, _walk_max from its walk",
}


def test_a_function_compiled_code_calls_is_not_cached_apart():
    """A jitted function called from another jitted function is inlined or not cached on its own (see
    workbench/_jit.py, "What to cache"): its caller's cached code holds it, and a caller compiled against a copy
    loaded from the cache runs slower (measured 4x on the tumble round)."""
    jitted, calls = {}, []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {a.asname: a.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                   for a in node.names if a.asname}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and (options := _njit_options(node)) is not None:
                jitted.setdefault(node.name, []).append((rel, options))
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and isinstance(call.func, (ast.Name, ast.Attribute)):
                        name = call.func.id if isinstance(call.func, ast.Name) else call.func.attr
                        calls.append((f"{rel}:{node.name}", aliases.get(name, name)))
    wrong = sorted({f"{where} calls {name} ({rel}), cached on its own: make it a plain @njit or inline"
                    for where, name in calls for rel, options in jitted.get(name, ())
                    if options.get("cache") is True and "inline" not in options and not where.endswith(f":{name}")
                    and name not in CACHED_HELPERS_CALLED_FROM_PYTHON})
    assert not wrong, "\n".join(wrong)
    assert all(name in jitted for name in CACHED_HELPERS_CALLED_FROM_PYTHON)
