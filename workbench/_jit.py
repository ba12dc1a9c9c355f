"""The one place the package imports numba from, and where its compiled code is cached.

Use ``from .._jit import njit, prange, get_num_threads`` instead of importing
numba directly: importing this module installs the cache locator below.

Per-module cache keys
---------------------
Numba's own on-disk cache (``cache=True``) notices edits to a function's own
file only, not to the functions it calls or inlines from other files, so it
can run stale compiled code.  Here, the compiled code of a function defined in
a ``workbench`` module lives in ::

    <base>/<dotted module name>/<key>

where ``key`` is a short sha256 of the module's source, the sources of every
``workbench`` module it imports (directly or transitively; found by parsing
with :mod:`ast`, imports inside functions included), numba's version and
Python's version (``from P import y`` counts as importing ``P.y`` when that
is a module, else ``P``).  So an edit to a game module recompiles only that module
(and the modules importing it); an edit to a shared module recompiles every
module importing it; edits to non-Python files recompile nothing.  Imports
done by name at run time (``importlib.import_module``) are not seen.  Stale
``<key>`` folders are never reused; delete ``<base>`` to reclaim the space.

``<base>`` is ``$NUMBA_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/workbench/numba`` (``~/.cache/workbench/numba``); see
:func:`workbench._cache.cache_root`.  Functions of other packages keep
numba's usual locators.  ``$NUMBA_CACHE_LOCATOR_CLASSES`` replaces numba's
locator list and so bypasses this one unless it names
``workbench._jit._ModuleCacheLocator``.

Trust boundary
--------------
Numba reads its cache index with :mod:`pickle`, so whoever can write a file in
a cache folder can run code in this process.  Folders are therefore created
with mode 0o700, and before a module's folder is used, every folder from the
top (``~/.cache/workbench`` when the base is the default one, else the base
itself) down to ``<base>/<module>/<key>`` must be a folder owned by the
current user, not writable by group or others, and writable by us.  If one
is not, nothing is loaded from it: one :class:`CacheFolderWarning` names the
folder and the reason, and this process uses a private fresh folder from
``tempfile.mkdtemp(prefix="workbench-numba-")`` instead (removed at exit),
so the code still runs, it just compiles again.  The parents of a
``$NUMBA_CACHE_DIR`` are the user's choice and are not checked.  Keys and
checks are computed once per process, at the first use of a module; the
check is POSIX-only.

What to cache
-------------
Only a function called from Python (a round's chunk loop, an exact engine's
kernel) is ``cache=True``.  A function called only from compiled code is a
plain ``@njit`` (or ``inline="always"``): its caller's cached code holds it.
Were it cached on its own, a caller compiled in a process that loaded it from
the cache would link its machine code as is, without optimizing the two
together, and that slower caller would then be cached for good: the tumble
round ran at 0.23 instead of 1.0 M rounds/s when a test had compiled its
``chain`` first (``tests/test_architecture.py`` keeps this rule).

Loading
-------
Loading a cached function of this package registers only what its machine
code links against (numba's runtime and hash secret), not numba's whole
compiler (whose lowering modules import scipy.linalg, pycparser, ...: ~0.4 s
of the first run of a process); the first compilation in a process still
loads all of it.  See ``_install_cache_loader`` below.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import os
import shutil
import stat
import string
import sys
import tempfile
import warnings
from pathlib import Path

import numba
from numba import get_num_threads, literally, njit, prange, set_num_threads
from numba.core import caching

from ._cache import cache_root

__all__ = [
    "CacheFolderWarning",
    "cache_folder",
    "get_num_threads",
    "literally",
    "module_key",
    "njit",
    "prange",
    "set_num_threads",
]


class CacheFolderWarning(UserWarning):
    """A cache folder failed the trust check; a private temporary one is used instead."""


_IDENTIFIER_BYTES = frozenset((string.ascii_letters + string.digits + "_").encode()) | frozenset(range(128, 256))


def _statement_starts(source: bytes):
    """Offsets of the words ``import``/``from`` that may start a simple statement:
    at a line start or after ``:``/``;`` (and blanks), not part of a longer name."""
    for word in (b"import", b"from"):
        i = source.find(word)
        while i >= 0:
            j = i + len(word)
            k = i
            while k and source[k - 1] in b" \t":
                k -= 1
            if (k == 0 or source[k - 1] in b"\n\r:;") and (j == len(source) or source[j] not in _IDENTIFIER_BYTES):
                yield i
            i = source.find(word, j)


def _import_nodes(source: bytes) -> list[ast.Import | ast.ImportFrom]:
    """The import statements of ``source``, at any nesting level, parsed with :mod:`ast`.

    Parsing whole files would cost a few hundred ms for the package, so only
    the text of each statement starting with ``import``/``from`` is parsed.  An
    import statement holds no strings, so it ends at a ``;`` or at a newline
    outside brackets and not after a backslash, and a ``#`` starts a comment.
    Such text inside strings or comments is dropped if it does not parse; if it
    does, it can only add dependencies (more recompiling, never stale code).
    """
    statements = []
    for pos in _statement_starts(source):
        lines, depth = [], 0
        while len(lines) < 1000:
            end = source.find(b"\n", pos)
            line = source[pos:] if end < 0 else source[pos:end]
            code, semicolon, _ = line.split(b"#", 1)[0].partition(b";")
            code = code.rstrip()
            depth += code.count(b"(") - code.count(b")")
            backslash = code.endswith(b"\\")
            lines.append(code[:-1] if backslash else code)
            if semicolon or end < 0 or (depth <= 0 and not backslash):
                break
            pos = end + 1
        statements.append(b" ".join(lines))
    try:
        trees = [ast.parse(b"\n".join(statements))]
    except (SyntaxError, ValueError):
        trees = []
        for statement in statements:
            try:
                trees.append(ast.parse(statement))
            except (SyntaxError, ValueError):
                pass
    return [node for tree in trees for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]


class _ModuleGraph:
    """Import graph of the modules of package ``package`` whose folder is ``root``.

    ``from P import y`` depends on ``P.y`` if that is a module of the package,
    else on ``P``; ``import P.Q`` depends on ``P.Q``.  The package's files,
    sources, direct imports and keys are read once and memoised: an edit is
    seen by the next process.
    """

    def __init__(self, root: Path, package: str, salt: bytes = b"") -> None:
        self.root = Path(root).resolve()
        self.package = package
        self.salt = salt
        self._files: dict[str, Path] | None = None
        self._names: dict[str, str | None] = {}
        self._sources: dict[str, bytes] = {}
        self._digests: dict[str, bytes] = {}
        self._imports: dict[str, frozenset[str]] = {}
        self._keys: dict[str, str] = {}

    def file(self, name: str) -> Path | None:
        """Source file of module ``name``, None if it is not one of the package."""
        if self._files is None:
            self._files = {}
            for folder, subfolders, files in os.walk(self.root):
                parts = Path(folder).relative_to(self.root).parts
                subfolders[:] = [d for d in subfolders if d.isidentifier() and d != "__pycache__"]
                for file in files:
                    stem, ext = os.path.splitext(file)
                    if ext == ".py" and stem.isidentifier():
                        module = ".".join([self.package, *parts] + ([] if stem == "__init__" else [stem]))
                        # a package shadows a module of the same name
                        if stem == "__init__" or module not in self._files:
                            self._files[module] = Path(folder, file)
        return self._files.get(name)

    def module_for_file(self, py_file: str) -> str | None:
        """Dotted name of the package module in file ``py_file``, None if none."""
        if py_file not in self._names:
            name = None
            path = Path(os.path.realpath(py_file))
            if path.suffix == ".py" and path.is_relative_to(self.root):
                parts = list(path.relative_to(self.root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                candidate = ".".join([self.package, *parts])
                if self.file(candidate) == path:
                    name = candidate
            self._names[py_file] = name
        return self._names[py_file]

    def source(self, name: str) -> bytes:
        """Source bytes of module ``name``."""
        if name not in self._sources:
            self._sources[name] = self._require(name).read_bytes()
        return self._sources[name]

    def digest(self, name: str) -> bytes:
        """sha256 of module ``name``'s name and source."""
        if name not in self._digests:
            self._digests[name] = hashlib.sha256(b"%s\0%s" % (name.encode(), self.source(name))).digest()
        return self._digests[name]

    def imports(self, name: str) -> frozenset[str]:
        """Package modules that module ``name`` imports directly."""
        if name not in self._imports:
            package = name if self._require(name).name == "__init__.py" else name.rpartition(".")[0]
            found = set()
            for node in _import_nodes(self.source(name)):
                if isinstance(node, ast.Import):
                    found.update(alias.name for alias in node.names)
                    continue
                target = node.module or ""
                if node.level:
                    parts = package.split(".")
                    if node.level > len(parts):
                        continue
                    target = ".".join(parts[: len(parts) - node.level + 1] + ([target] if target else []))
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if alias.name != "*" and self.file(sub) else target)
            self._imports[name] = frozenset(m for m in found if m != name and self.file(m))
        return self._imports[name]

    def closure(self, name: str) -> set[str]:
        """Module ``name`` and every package module it imports, transitively."""
        self._require(name)
        seen, todo = {name}, [name]
        while todo:
            for dep in self.imports(todo.pop()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        return seen

    def key(self, name: str) -> str:
        """Short sha256 of the sources in :meth:`closure` (and ``salt``)."""
        if name not in self._keys:
            digest = hashlib.sha256(self.salt)
            for module in sorted(self.closure(name)):
                digest.update(self.digest(module))
            self._keys[name] = digest.hexdigest()[:16]
        return self._keys[name]

    def _require(self, name: str) -> Path:
        path = self.file(name)
        if path is None:
            raise ValueError(f"{name!r} is not a module of package {self.package!r} in {self.root}")
        return path


_PACKAGE = __name__.rpartition(".")[0]
_GRAPH = _ModuleGraph(Path(__file__).parent, _PACKAGE, salt=f"numba {numba.__version__}\npython {sys.version}\n".encode())


def module_key(module_name: str) -> str:
    """Cache key of package module ``module_name`` (e.g. ``"workbench.rounds.plain"``)."""
    return _GRAPH.key(module_name)


def _check_folder(path: Path) -> str | None:
    """Create ``path`` (mode 0o700) if missing; the reason it cannot be trusted, or None."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        return f"cannot create it ({error})"
    if os.name != "posix":
        return None
    try:
        st = os.stat(path)
    except OSError as error:
        return f"cannot read it ({error})"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a folder"
    if st.st_uid != os.geteuid():
        return f"it is owned by uid {st.st_uid}, not by the current user (uid {os.geteuid()})"
    if st.st_mode & 0o022:
        return f"it is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    if not os.access(path, os.W_OK | os.X_OK):
        return "the current user cannot write in it"
    return None


_folders: dict[tuple[Path, str], Path] = {}
_warned: set[Path] = set()
_private: list[Path] = []


def _private_base() -> Path:
    if not _private:
        _private.append(Path(tempfile.mkdtemp(prefix="workbench-numba-")))
        atexit.register(shutil.rmtree, _private[0], True)
    return _private[0]


def cache_folder(module_name: str) -> Path:
    """The folder where package module ``module_name``'s compiled code lives.

    Created (mode 0o700) and checked as the module docstring says; a folder
    failing the check gives one warning and a private temporary folder instead.
    """
    base = cache_root()
    if (base, module_name) not in _folders:
        key = module_key(module_name)
        top = base if os.environ.get("NUMBA_CACHE_DIR") else base.parent
        folder = base / module_name / key
        try:
            top.parent.mkdir(parents=True, exist_ok=True)  # above the checked folders: default mode
        except OSError:
            pass  # reported by the check of ``top``
        parts = folder.relative_to(top).parts
        for path in [top] + [top.joinpath(*parts[: i + 1]) for i in range(len(parts))]:
            reason = _check_folder(path)
            if reason:
                if path not in _warned:
                    _warned.add(path)
                    warnings.warn(
                        f"not loading compiled code from {path}: {reason}; compiling into a private temporary folder "
                        "instead (delete that folder, or chmod go-w it if you trust its content)",
                        CacheFolderWarning,
                        stacklevel=2,
                    )
                folder = _private_base() / module_name / key
                folder.mkdir(mode=0o700, parents=True, exist_ok=True)
                break
        _folders[base, module_name] = folder
    return _folders[base, module_name]


_ensured_paths: set[str] = set()


class _ModuleCacheLocator(caching._CacheLocator):
    """Numba cache locator for functions defined in this package (see the module docstring)."""

    def __init__(self, py_func, py_file: str, module: str) -> None:
        self._py_file = py_file  # numba reads it in its messages
        self._lineno = py_func.__code__.co_firstlineno
        self._module = module
        self._cache_path = str(cache_folder(module))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        # the folder already depends on the sources; the key makes the index agree
        return module_key(self._module)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    def ensure_cache_path(self) -> None:
        # numba's check (make the folder, write and delete a temporary file in it) once per folder and process,
        # not once per function: a round module defines dozens of functions, all in one folder
        if self._cache_path not in _ensured_paths:
            super().ensure_cache_path()
            _ensured_paths.add(self._cache_path)

    @classmethod
    def from_function(cls, py_func, py_file: str):
        module = _GRAPH.module_for_file(py_file)
        if module is None:
            return None  # not ours: numba's own locators decide
        self = cls(py_func, py_file, module)
        try:
            self.ensure_cache_path()  # cache_folder() checked it is writable: this rarely fails
        except OSError:
            return None
        return self


def _install() -> None:
    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # older numba: _CacheImpl
    classes = impl._locator_classes
    classes[:] = [_ModuleCacheLocator] + [c for c in classes if c.__name__ != _ModuleCacheLocator.__name__]


_install()


# Loading compiled code from the cache
# ------------------------------------
# Before loading a cached function numba refreshes its whole target context: it imports every lowering
# module of numba (numba.np.linalg and arraymath, which import scipy.linalg, and through scipy's array-API
# shim numpy.f2py, numpy.ma and numpy.testing; numba.misc.cffiimpl, which imports pycparser, ...) and
# installs their registries.  That is ~0.4 s of the first run of a process, and none of it is used by
# cached machine code, which only needs the symbols it links against: numba's C helpers and the math
# functions (registered when the target context is made), the NRT runtime (``rtsys.initialize``) and the
# hash secret (``numba.cpython.hashing``, at import).  So for the functions of this package a cache load
# registers just those; the first *compilation* still refreshes everything (numba's compiler does so
# itself), so compiled code and results are the same either way.


def _runtime_for_cached_code(target_context) -> None:
    """Register what cached machine code links against (see above): the NRT runtime and the hash secret."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)
    import numba.cpython.hashing  # noqa: F401  (adds the _numba_hashsecret_* symbols at import)


def _install_cache_loader() -> None:
    cache_class = getattr(caching, "Cache", None)
    full_load = getattr(cache_class, "load_overload", None)
    needed = ("_load_overload", "_guard_against_spurious_io_errors")
    if full_load is None or getattr(full_load, "_workbench", False) or not all(hasattr(cache_class, n) for n in needed):
        return  # another numba layout: keep numba's own loading

    def load_overload(self, sig, target_context):
        impl = getattr(self, "_impl", None)
        if not isinstance(getattr(impl, "locator", None), _ModuleCacheLocator):
            return full_load(self, sig, target_context)
        _runtime_for_cached_code(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        # None when the guard swallowed an I/O error (as numba's own load_overload)

    load_overload._workbench = True
    load_overload.__doc__ = full_load.__doc__
    cache_class.load_overload = load_overload


_install_cache_loader()


def is_cached(module_name: str) -> bool:
    """Whether compiled code of ``module_name`` (at its current source) is in the cache.

    True once any of its functions has been compiled and saved; the editors use
    it to say "compiling (first run only)" before a wait.
    """
    folder = cache_folder(module_name)
    return folder.is_dir() and any(folder.glob("*.nbi"))
