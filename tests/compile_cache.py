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
off.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import threading
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>|(.*))', re.M)
_NEEDS_PATH = re.compile(r"__FILE__|\bassert\b")

#: Statistics of the session (shown by the terminal summary).
STATS = {"hits": 0, "misses": 0, "uncached": 0}


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


def _key(source: Path, flags: tuple, dirs: list[Path]) -> str | None:
    """The build's digest: ``flags`` (everything but the include
    directories, which count through what they resolve), the source text,
    the headers it includes (see :func:`_headers`)."""
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
    if _NEEDS_PATH.search(data.decode("utf-8", errors="replace")):
        h.update(str(source.resolve()).encode())
    return h.hexdigest()


def install() -> None:
    """Replace ``compile_c`` in :mod:`clayx.verify`, :mod:`clayx.run` and
    :mod:`clayx.tune` by a caching one (once per process)."""
    if os.environ.get("CLAYX_TEST_COMPILE_CACHE", "1") == "0":
        return
    from clayx import run, tune, verify

    if getattr(verify.compile_c, "_cached", False):
        return
    real = verify.compile_c
    store = Path(tempfile.mkdtemp(prefix="clayx-test-builds-"))
    lock = threading.Lock()

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
        cached = store / key
        if cached.is_file():
            STATS["hits"] += 1
            shutil.copy2(cached, exe_path)
            return None
        real(source_path, exe_path, **kwargs)   # a failure raises, nothing is kept
        STATS["misses"] += 1
        with lock:
            tmp = store / f"{key}.{os.getpid()}.{threading.get_ident()}"
            shutil.copy2(exe_path, tmp)
            os.replace(tmp, cached)
        return None

    compile_c._cached = True
    compile_c.__doc__ = real.__doc__
    compile_c._store = store
    for module in (verify, run, tune):
        module.compile_c = compile_c


def uninstall() -> None:
    """Remove the session's executables."""
    from clayx import verify

    store = getattr(verify.compile_c, "_store", None)
    if store is not None:
        shutil.rmtree(store, ignore_errors=True)
