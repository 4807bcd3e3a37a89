"""Array ids: the numbers Clay's scripts name arrays by (``dimreorder([0], 4,
[1, 0])``, ``get_array_id``, ``add_array``), which OpenScop's ``<arrays>``
extension maps to names.

A SCoP read from OpenScop keeps the file's numbering (Clan numbers every
symbol, so ``A`` may be 4 after ``i``, ``N`` and ``j``) as the record
``(ARRAY_IDS_TAG, "4 A\\n5 B …")`` in :attr:`Scop.extensions`; the OpenScop
writer writes it back as ``<arrays>``.  Arrays the record does not name (a
SCoP read from C, arrays added by layout steps) get the next ids in order:
1, 2, … without a record, ``max + 1`` after it, as Clay's ``add_array``
does (reference §6.5).
"""

from __future__ import annotations

from .scop import Scop

__all__ = ["ARRAY_IDS_TAG", "array_ids", "id_record"]

#: The tag of the record in :attr:`Scop.extensions` (OpenScop's own).
ARRAY_IDS_TAG = "arrays"


def id_record(scop: Scop) -> dict[int, str]:
    """The recorded numbering, id -> name (the symbols of ``<arrays>`` that
    are no array included); empty without a record."""
    text = dict(scop.extensions).get(ARRAY_IDS_TAG, "")
    out: dict[int, str] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].lstrip("-").isdigit():
            out.setdefault(int(parts[0]), parts[1])
    return out


def array_ids(scop: Scop) -> dict[str, int]:
    """Array name -> id: the SCoP's arrays in order, then arrays only
    accesses name; an array the record names keeps its id, the others take
    the next ids after the largest recorded one."""
    names = [a.name for a in scop.arrays]
    for st in scop.statements:
        for a in st.accesses:
            if a.array not in names:
                names.append(a.array)
    fixed: dict[str, int] = {}
    for i, n in sorted(id_record(scop).items()):
        fixed.setdefault(n, i)
    top = max(fixed.values(), default=0)
    out: dict[str, int] = {}
    for n in names:
        if n in fixed:
            out[n] = fixed[n]
        else:
            top += 1
            out[n] = top
    return out
