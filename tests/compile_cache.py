"""A test-session cache of gcc builds: the same C text compiled with the
same command is compiled once, later builds copy the executable.

The differential tests compile the *original* of each example again for
every transformation they check (``verify`` builds both programs); the
originals are a few dozen files, the builds several hundred.  gcc is
deterministic, so a copy of the first build is the executable a second
build would produce: nothing a test checks changes, only the time.

The key of a build is everything its result depends on: the compiler, every
flag (standard, optimization level, ``-D`` values, include directories,
extra flags, OpenMP), the source text and the text of every header it
includes by a quoted name (found, like gcc, in the including file's folder,
then the include directories; recursively), and angle-bracket headers found
in the include directories.  The source's path joins the key when its text
mentions ``__FILE__`` or ``assert``, whose messages print it.  A source
whose includes cannot all be read (a computed ``#include``, a missing
header), or built with extra flags that add include paths or files, is
compiled without the cache, and so is every failed build: their
diagnostics come from gcc every time.

:func:`install` wraps :func:`clayx.verify.compile_c` wherever it was
imported (verify, run, tune); ``CLAYX_TEST_COMPILE_CACHE=0`` turns the cache
off.  The store is one folder for the whole run: the process that makes it
(pytest's controller under pytest-xdist) names it in the environment
(:data:`STORE_ENV`), so that its workers, which inherit it, share the
builds; an entry is written under a private name and renamed into place,
so a reader sees a whole file or none.  :func:`tool_result` keeps, in the
same store, the result of another deterministic tool on a source file (nvcc's
diagnostics), under the same kind of key.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>|(.*))', re.M)
_NEEDS_PATH = re.compile(r"__FILE__|\bassert\b")

#: Statistics of the session (shown by the terminal summary).
STATS = {"hits": 0, "misses": 0, "uncached": 0, "tool_hits": 0, "tool_runs": 0}

#: The environment variable that names the run's store to its workers.
STORE_ENV = "CLAYX_TEST_BUILD_STORE"

#: The store of this process, and whether this process made it (and
#: removes it at the end).
_STORE: dict[str, object] = {"path": None, "owner": False}


def _headers(path: Path, dirs: list[Path], seen: dict[tuple, str]) -> bool:
    """Record in ``seen`` what each ``#include`` of ``path`` (and of the
    headers it reaches) resolves to: ``(includer's digest, name) ->
    header's digest`` (nothing for a system header); False when one cannot
    be resolved (the build is then not cached)."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    mine = hashlib.sha256(data).hexdigest()
    for quoted, angled, other in _INCLUDE.findall(data.decode("utf-8", errors="replace")):
        if other.strip():
            return False                # #include MACRO
        name = quoted or angled
        where = ([path.parent] if quoted else []) + dirs
        found = next((d / name for d in where if (d / name).is_file()), None)
        if found is None:
            if quoted:
                return False
            continue                    # a system header
        if (mine, name) in seen:
            continue
        seen[(mine, name)] = hashlib.sha256(found.read_bytes()).hexdigest()
        if not _headers(found, dirs, seen):
            return False
    return True


def _key(source: Path, flags: tuple, dirs: list[Path], where: bool = True) -> str | None:
    """The build's digest: ``flags`` (everything but the include
    directories, which count through what they resolve), the source text,
    the headers it includes (see :func:`_headers`); the source's path too
    when ``where`` and the text can print it (``__FILE__``, ``assert``)."""
    try:
        data = source.read_bytes()
    except OSError:
        return None
    seen: dict[tuple, str] = {}
    if not _headers(source, dirs, seen):
        return None
    h = hashlib.sha256()
    h.update(repr(flags).encode())
    h.update(data)
    h.update(repr(sorted(seen.items())).encode())
    if where and _NEEDS_PATH.search(data.decode("utf-8", errors="replace")):
        h.update(str(source.resolve()).encode())
    return h.hexdigest()


def _enabled() -> bool:
    return os.environ.get("CLAYX_TEST_COMPILE_CACHE", "1") != "0"


def store() -> Path:
    """The run's store: the folder named by :data:`STORE_ENV` when the
    process inherited one, else a new temporary folder (named there for
    the processes this one starts)."""
    if _STORE["path"] is None:
        inherited = os.environ.get(STORE_ENV)
        if inherited and Path(inherited).is_dir():
            _STORE["path"] = Path(inherited)
        else:
            _STORE["path"] = Path(tempfile.mkdtemp(prefix="clayx-test-builds-"))
            _STORE["owner"] = True
            os.environ[STORE_ENV] = str(_STORE["path"])
    return _STORE["path"]


def _put(path: Path, write) -> None:
    """Make ``path`` in the store atomically: ``write(tmp)`` fills a
    private name, renamed into place."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}")
    write(tmp)
    os.replace(tmp, path)


def tool_result(tool: str, source: Path, flags: tuple, compute, keep=lambda value: True):
    """The result of a deterministic ``tool`` (e.g. nvcc) run with ``flags``
    on ``source``: ``compute()`` (a JSON value) the first time the source's
    text (and the headers it includes by a quoted name, see
    :func:`_headers`) meets these flags in the run, the stored value after.
    The source's folder is not part of the key: a value for which ``keep``
    is false (one that names a path of this build, say) is not stored."""
    key = _key(Path(source), (tool, *flags), [], where=False) if _enabled() else None
    if key is None:
        STATS["tool_runs"] += 1
        return compute()
    cached = store() / f"{tool}-{key}.json"
    if cached.is_file():
        STATS["tool_hits"] += 1
        return json.loads(cached.read_text())
    value = compute()
    STATS["tool_runs"] += 1
    if keep(value):
        _put(cached, lambda tmp: tmp.write_text(json.dumps(value)))
    return value


def install() -> None:
    """Replace ``compile_c`` in :mod:`clayx.verify`, :mod:`clayx.run` and
    :mod:`clayx.tune` by a caching one (once per process)."""
    if not _enabled():
        return
    from clayx import run, tune, verify

    if getattr(verify.compile_c, "_cached", False):
        return
    real = verify.compile_c
    where = store()

    def compile_c(source_path, exe_path, *, defines=None, opt="-O1", include_dirs=(),
                  extra_flags=(), openmp=False, cc=None, std="default"):
        kwargs = dict(defines=defines, opt=opt, include_dirs=include_dirs,
                      extra_flags=extra_flags, openmp=openmp, cc=cc, std=std)
        flags = (cc or verify.CC, std, opt, openmp, tuple(map(str, extra_flags)),
                 tuple((str(k), str(v)) for k, v in (defines or {}).items()))
        key = None
        if not any(str(f).startswith(("-I", "-i", "@")) for f in extra_flags):
            key = _key(Path(source_path), flags, [Path(d) for d in include_dirs])
        if key is None:
            STATS["uncached"] += 1
            return real(source_path, exe_path, **kwargs)
        cached = where / key
        if cached.is_file():
            STATS["hits"] += 1
            shutil.copy2(cached, exe_path)
            return None
        real(source_path, exe_path, **kwargs)   # a failure raises, nothing is kept
        STATS["misses"] += 1
        _put(cached, lambda tmp: shutil.copy2(exe_path, tmp))
        return None

    compile_c._cached = True
    compile_c.__doc__ = real.__doc__
    compile_c._store = where
    for module in (verify, run, tune):
        module.compile_c = compile_c


def uninstall() -> None:
    """Remove the run's store, when this process made it."""
    if _STORE["owner"]:
        shutil.rmtree(_STORE["path"], ignore_errors=True)
        if os.environ.get(STORE_ENV) == str(_STORE["path"]):
            del os.environ[STORE_ENV]
        _STORE.update(path=None, owner=False)
