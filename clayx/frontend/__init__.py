"""Front ends: C (tree-sitter, :mod:`.c`, with the preprocessor definitions
by position in :mod:`.macros`) and OpenScop (:mod:`.openscop`).

:func:`load` picks one by the file's extension.
"""

from __future__ import annotations

from pathlib import Path

from ..model import Scop

__all__ = ["load"]


def load(path: str | Path) -> list[Scop]:
    """Read ``path`` into SCoPs: ``.scop`` files with the OpenScop reader
    (every ``<OpenScop>`` block, none for a file without one: osl's NULL
    scop), anything else as C (one SCoP per ``#pragma scop`` region)."""
    p = Path(path)
    if p.suffix == ".scop":
        from .openscop import read_all_file
        return read_all_file(p)
    from .c import parse_file
    return parse_file(p)
