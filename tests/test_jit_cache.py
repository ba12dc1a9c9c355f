"""The per-module numba cache of :mod:`workbench._jit`: keys, locator, trust check."""

from __future__ import annotations

import ast
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from workbench._jit import _import_nodes, _ModuleGraph

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "workbench"


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def keys(root: Path, modules=("a", "b", "c", "d")) -> dict[str, str]:
    graph = _ModuleGraph(root / "pkg", "pkg")  # a fresh graph: keys are memoised per process
    return {m: graph.key(f"pkg.{m}") for m in modules}


@pytest.fixture
def fake(tmp_path: Path) -> Path:
    write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "a.py": "from . import b\n\nX = b.f()\n",
            "b.py": "def f():\n    from .c import g\n    return g()\n",
            "c.py": "def g():\n    return 1\n",
            "d.py": "Y = 2\n",
            "data.toml": "x = 1\n",
        },
    )
    return tmp_path


def changed(before: dict, after: dict) -> set:
    return {m for m in before if before[m] != after[m]}


def test_keys_follow_imports(fake: Path) -> None:
    graph = _ModuleGraph(fake / "pkg", "pkg")
    assert graph.closure("pkg.a") == {"pkg.a", "pkg.b", "pkg.c"}
    assert graph.closure("pkg.d") == {"pkg.d"}

    k0 = keys(fake)
    assert len(set(k0.values())) == 4
    assert keys(fake) == k0  # deterministic

    (fake / "pkg/c.py").write_text("def g():\n    return 3\n")
    k1 = keys(fake)
    assert changed(k0, k1) == {"a", "b", "c"}

    (fake / "pkg/d.py").write_text("Y = 3\n")
    k2 = keys(fake)
    assert changed(k1, k2) == {"d"}

    (fake / "pkg/a.py").write_text((fake / "pkg/a.py").read_text() + "# a comment\n")
    k3 = keys(fake)
    assert changed(k2, k3) == {"a"}

    (fake / "pkg/data.toml").write_text("x = 2\n")
    (fake / "pkg/notes.txt").write_text("import pkg.d\n")
    assert keys(fake) == k3


def test_salt_is_part_of_the_key(fake: Path) -> None:
    assert _ModuleGraph(fake / "pkg", "pkg", b"numba 1").key("pkg.d") != _ModuleGraph(fake / "pkg", "pkg", b"numba 2").key("pkg.d")


def test_import_forms(fake: Path) -> None:
    write(
        fake / "pkg",
        {
            "sub/__init__.py": "from .e import E\n",
            "sub/e.py": "from ..d import Y as E\n",
            "sub/deep/__init__.py": "",
            "sub/deep/z.py": "from ... import c\nfrom .. import e\n",
            "f.py": "import pkg.c\nimport os, pkg.d as dd\n",
            "g.py": "from pkg import sub\n",  # a submodule: its __init__, which imports e
            "h.py": "import sys\nif sys: from .sub import E  # a name: the package's __init__\n",
            "i.py": "from .a import (  # a comment with a (\n    X,\n)\nx = 1; from . import d\n",
            "j.py": "from .b \\\n    import f\nfrom .nothing import q\nfrom . import *\n",
            "k.py": 'TEXT = """\nimport pkg.c\n"""\n',  # inside a string: may add a dependency, never lose one
        },
    )
    graph = _ModuleGraph(fake / "pkg", "pkg")
    assert graph.imports("pkg.sub") == {"pkg.sub.e"}
    assert graph.imports("pkg.sub.e") == {"pkg.d"}
    assert graph.imports("pkg.sub.deep.z") == {"pkg.c", "pkg.sub.e"}
    assert graph.imports("pkg.f") == {"pkg.c", "pkg.d"}
    assert graph.closure("pkg.g") == {"pkg.g", "pkg.sub", "pkg.sub.e", "pkg.d"}
    assert graph.imports("pkg.h") == {"pkg.sub"}
    assert graph.imports("pkg.i") == {"pkg.a", "pkg.d"}
    assert graph.imports("pkg.j") == {"pkg.b", "pkg"}
    with pytest.raises(ValueError):
        graph.key("pkg.nothing")


def test_module_for_file(fake: Path) -> None:
    graph = _ModuleGraph(fake / "pkg", "pkg")
    assert graph.module_for_file(str(fake / "pkg" / "a.py")) == "pkg.a"
    assert graph.module_for_file(str(fake / "pkg" / "__init__.py")) == "pkg"
    assert graph.module_for_file(str(fake / "pkg" / "data.toml")) is None
    assert graph.module_for_file(str(fake / "elsewhere.py")) is None
    assert graph.module_for_file("<string>") is None


def test_scan_finds_every_import_of_the_package() -> None:
    """The cheap scan parses the same import statements as a full parse (maybe more)."""
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert len(files) > 10
    for path in files:
        source = path.read_bytes()
        full = {ast.dump(n) for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.Import, ast.ImportFrom))}
        fast = {ast.dump(n) for n in _import_nodes(source)}
        assert full <= fast, path


def run(code: str, **env: str) -> dict:
    environ = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    environ.update(env)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=environ, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


# Compiles, with cache=True, a function whose code claims to live in workbench/_jit.py
# (no module may be added to the package for the test), and reports where it went.
PROBE = """
    import json, os, sys, warnings
    from pathlib import Path
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        import numba.core.caching as caching
        import workbench, workbench._jit as jit
        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
        jit_file = str(Path(workbench.__file__).parent / "_jit.py")
        space = {"njit": jit.njit, "__name__": "workbench._jit"}  # numba rebuilds globals from it
        exec(compile("@njit(cache=True)\\ndef _probe_add(a, b):\\n    return a + b\\n", jit_file, "exec"), space)
        probe = space["_probe_add"]
        result = probe(2, 3)
        def plain():
            pass
        locator = impl._locator_classes[0].from_function(plain, jit_file)
        print(json.dumps({
            "first": impl._locator_classes[0] is jit._ModuleCacheLocator,
            "path": locator.get_cache_path(),
            "stamp": locator.get_source_stamp(),
            "other": impl._locator_classes[0].from_function(plain, os.path.abspath("elsewhere.py")) is None,
            "key": jit.module_key("workbench._jit"),
            "folder": str(jit.cache_folder("workbench._jit")),
            "folder_cache": str(jit.cache_folder("workbench._cache")),
            "probe_path": probe.stats.cache_path,
            "result": result,
            "hits": sum(probe.stats.cache_hits.values()),
            "misses": sum(probe.stats.cache_misses.values()),
            "warnings": [[w.category.__name__, str(w.message)] for w in caught if issubclass(w.category, jit.CacheFolderWarning)],
        }))
"""


def test_locator_end_to_end(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    first = run(PROBE, NUMBA_CACHE_DIR=str(base))
    assert first["first"] and first["other"] and first["warnings"] == []
    expected = base / "workbench._jit" / first["key"]
    assert Path(first["path"]) == expected == Path(first["folder"]) == Path(first["probe_path"])
    assert first["stamp"] == first["key"] and len(first["key"]) == 16
    assert first["result"] == 5 and first["misses"] == 1 and first["hits"] == 0
    assert any(p.suffix == ".nbi" for p in expected.iterdir())
    for folder in (base, base / "workbench._jit", expected):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    # workbench._cache imports nothing of the package; _jit imports _cache
    assert Path(first["folder_cache"]).parent == base / "workbench._cache"
    assert Path(first["folder_cache"]).name != first["key"]

    second = run(PROBE, NUMBA_CACHE_DIR=str(base))
    assert second["key"] == first["key"]
    assert second["hits"] == 1 and second["misses"] == 0  # loaded from the module's folder


def test_default_base_and_its_parent_are_private(tmp_path: Path) -> None:
    out = run(PROBE, XDG_CACHE_HOME=str(tmp_path))
    assert out["warnings"] == []
    assert Path(out["folder"]) == tmp_path / "workbench" / "numba" / "workbench._jit" / out["key"]
    for folder in (tmp_path / "workbench", tmp_path / "workbench" / "numba"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def untrusted(tmp_path: Path, case: str) -> tuple[dict, Path]:
    """Make the folder of ``case`` fail the trust check; the environment and that folder."""
    if case == "base":
        bad = tmp_path / "shared"
        env = {"NUMBA_CACHE_DIR": str(bad)}
    elif case == "module":
        env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
        bad = tmp_path / "cache" / "workbench._jit"
    else:  # the cache root above the default base
        env = {"XDG_CACHE_HOME": str(tmp_path)}
        bad = tmp_path / "workbench"
    bad.mkdir(parents=True)
    bad.chmod(0o777)
    return env, bad


@pytest.mark.parametrize("case", ["base", "module", "root"])
def test_untrusted_folder_is_not_used(tmp_path: Path, case: str) -> None:
    env, bad = untrusted(tmp_path, case)
    out = run(PROBE, **env)
    assert len(out["warnings"]) == 1  # one warning, although two modules asked
    message = out["warnings"][0][1]
    assert str(bad) in message and "writable by group or others" in message
    for path in (out["folder"], out["probe_path"], out["path"]):
        assert not Path(path).is_relative_to(bad)
        assert Path(path).name == out["key"] and Path(path).parent.name == "workbench._jit"
    assert Path(out["folder"]).parent.parent.name.startswith("workbench-numba-")
    assert out["result"] == 5 and out["hits"] == 0
    assert list(bad.iterdir()) == []  # nothing created in (nor loaded from) it
    assert not Path(out["folder"]).exists()  # the private folder is removed at exit


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give a folder away")
def test_folder_of_another_user_is_not_used(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    base.mkdir(mode=0o700)
    os.chown(base, 65534, 65534)
    out = run(PROBE, NUMBA_CACHE_DIR=str(base))
    assert len(out["warnings"]) == 1 and "owned by uid 65534" in out["warnings"][0][1]
    assert not Path(out["folder"]).is_relative_to(base)


# Cached functions of the package (claiming to live in workbench/_jit.py, as PROBE): one allocates (NRT) and
# hashes a string (numba's hash-secret symbols), one is a parfor (threading layer); then a compilation in the same
# process that needs numba's whole compiler (np.dot: BLAS support, in numba.np.linalg, which imports scipy.linalg).
LOAD_PROBE = """
    import json, sys
    from pathlib import Path
    import numpy as np
    import workbench, workbench._jit as jit
    HEAVY = ("scipy.linalg", "numba.np.linalg", "numba.np.arraymath", "pycparser")
    source = (
        "@njit(cache=True)\\n"
        "def _probe_load(n, s):\\n"
        "    a = np.zeros(n, dtype=np.int64)\\n"
        "    for i in range(n):\\n"
        "        a[i] = i * i\\n"
        "    t = 0\\n"
        "    for i in range(n):\\n"
        "        t += a[i]\\n"
        "    return t + hash(s) % 1000\\n"
        "@njit(cache=True, parallel=True)\\n"
        "def _probe_parallel(n, out):\\n"
        "    for i in prange(n):\\n"
        "        out[i] = i * 3\\n"
    )
    space = {"njit": jit.njit, "prange": jit.prange, "np": np, "__name__": "workbench._jit"}
    exec(compile(source, str(Path(workbench.__file__).parent / "_jit.py"), "exec"), space)
    probe, parallel = space["_probe_load"], space["_probe_parallel"]
    heavy_before = [m for m in HEAVY if m in sys.modules]
    value = int(probe(10, "workbench"))
    out = np.zeros(100, dtype=np.int64)
    parallel(100, out)  # a parfor: loading it starts numba's threading layer again
    heavy_after = [m for m in HEAVY if m in sys.modules]
    dot = jit.njit(lambda a: np.dot(a, a))
    print(json.dumps({
        "value": value, "expected": sum(i * i for i in range(10)) + hash("workbench") % 1000,
        "hits": sum(probe.stats.cache_hits.values()) + sum(parallel.stats.cache_hits.values()),
        "misses": sum(probe.stats.cache_misses.values()) + sum(parallel.stats.cache_misses.values()),
        "parallel_ok": out.tolist() == [3 * i for i in range(100)],
        "heavy_before": heavy_before, "heavy_after": heavy_after,
        "dot": float(dot(np.arange(4.0))), "linalg_after_compile": "numba.np.linalg" in sys.modules,
    }))
"""


def test_cache_hit_loads_without_numba_compiler(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    first = run(LOAD_PROBE, NUMBA_CACHE_DIR=str(base))
    assert first["misses"] == 2 and first["hits"] == 0 and first["value"] == first["expected"] and first["parallel_ok"]
    second = run(LOAD_PROBE, NUMBA_CACHE_DIR=str(base), PYTHONHASHSEED="12345")  # another hash secret
    assert second["hits"] == 2 and second["misses"] == 0
    # linked against this process's runtime, hash secret and threading layer
    assert second["value"] == second["expected"] and second["parallel_ok"]
    assert second["heavy_before"] == [] and second["heavy_after"] == []  # loading imported no compiler module
    # compiling afterwards still gets numba's whole compiler
    assert second["dot"] == 14.0 and second["linalg_after_compile"]
