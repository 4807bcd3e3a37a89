"""A test-process memo of the C front end: the same text under the same
path name is parsed once, later loads get the same SCoPs.

Hundreds of tests load the same few dozen examples (``clayx.load``, the
command line, the prompt), and each load made new SCoPs whose dependences
(remembered on the SCoP's :class:`~clayx.model.scop.Origin`) were computed
again: the analysis and isl's RAR flow were a large part of many tests.  A
:class:`~clayx.model.Scop` is immutable (a frozen dataclass of isl objects,
which are values) and its origin only remembers what is computed from it,
so a SCoP read before is the SCoP a new parse would give, with its
dependences already known: nothing a test checks changes, only the time.

The key is everything :func:`clayx.frontend.c.parse_string` reads: the
text and the path name (kept in the SCoP, as given).  A parse that raises
is not remembered (its error comes from the front end every time).

:func:`install` wraps ``parse_string`` in :mod:`clayx.frontend.c` (which
``parse_file``, ``clayx.load`` and every other reader of C go through);
``CLAYX_TEST_SCOP_CACHE=0`` turns the memo off.  A test that needs SCoPs
of its own (one that counts the analyses a load makes) asks for the
``fresh_scops`` fixture.
"""

from __future__ import annotations

import os
import threading

#: Statistics of the process (parses made, loads served from the memo).
STATS = {"parses": 0, "reused": 0}

_MEMO: dict[tuple, tuple] = {}
_LOCK = threading.Lock()
_STATE = {"real": None, "off": False}


def install() -> None:
    """Replace ``parse_string`` in :mod:`clayx.frontend.c` by a remembering
    one (once per process)."""
    if os.environ.get("CLAYX_TEST_SCOP_CACHE", "1") == "0" or _STATE["real"] is not None:
        return
    from clayx.frontend import c

    real = _STATE["real"] = c.parse_string

    def parse_string(text, path=None):
        if _STATE["off"]:
            return real(text, path)
        key = (text, path)
        with _LOCK:
            hit = _MEMO.get(key)
        if hit is not None:
            STATS["reused"] += 1
            return list(hit)
        scops = real(text, path)
        STATS["parses"] += 1
        with _LOCK:
            _MEMO[key] = tuple(scops)
        return list(scops)

    parse_string.__doc__ = real.__doc__
    c.parse_string = parse_string


def paused():
    """A context in which every parse is made anew (and not remembered)."""
    return _Paused()


class _Paused:
    def __enter__(self):
        self.was = _STATE["off"]
        _STATE["off"] = True

    def __exit__(self, *exc):
        _STATE["off"] = self.was
