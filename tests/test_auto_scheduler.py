"""isl's schedule trees under the ``cpu`` preset, pinned by shape for the
31 examples (issue 9): band depths, permutability, coincident members,
sequences and sets, and which statements each filter keeps.  A change of
scheduler options or of the schedule constraints that changes a shape
(less fusion, shallower bands, fewer parallel members) fails here; the
data file is rewritten on purpose with ``CLAYX_PIN_SHAPES=1``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import islpy as isl
import pytest

from clayx.auto.presets import resolve
from clayx.auto.scheduler import schedule_tree
from clayx.frontend import load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KERNELS = sorted(p.stem for p in EXAMPLES.glob("*.c"))
SHAPES = Path(__file__).resolve().parent / "data" / "auto" / "tree_shapes.json"

_T = isl.schedule_node_type


def shape(node: isl.ScheduleNode) -> str:
    """A schedule tree's shape: ``B<n>[p][c-…](…)`` for a band of ``n``
    members (``p`` permutable, ``c``/``-`` per member coincident or not),
    ``seq[…]``/``set[…]`` with their children, ``{S0,S1}`` for a filter's
    statements."""
    t = node.get_type()
    kids = [shape(node.child(k)) for k in range(node.n_children())]
    inner = ",".join(k for k in kids if k)
    if t == _T.band:
        n = node.band_n_member()
        flags = "".join("c" if node.band_member_get_coincident(m) else "-" for m in range(n))
        return f"B{n}{'p' if node.band_get_permutable() else ''}{flags}({inner})"
    if t in (_T.sequence, _T.set):
        return f"{'seq' if t == _T.sequence else 'set'}[{inner}]"
    if t == _T.filter:
        f = node.filter_get_filter()
        names = sorted(f.get_set_list().get_at(k).get_tuple_name()
                       for k in range(f.n_set()))
        return "{" + ",".join(names) + "}" + (f"({inner})" if inner else "")
    return inner


@pytest.fixture(scope="module")
def pinned() -> dict:
    return json.loads(SHAPES.read_text())


@pytest.mark.parametrize("stem", KERNELS)
def test_isl_tree_shape_is_pinned(stem, pinned):
    scop = load(EXAMPLES / f"{stem}.c")[0]
    got = shape(schedule_tree(scop, resolve("cpu")).get_root())
    if os.environ.get("CLAYX_PIN_SHAPES"):
        pinned[stem] = got
        SHAPES.write_text(json.dumps(pinned, indent=1, sort_keys=True) + "\n")
    assert got == pinned[stem]


def test_shape_sees_fusion_and_coincidence():
    # jacobi-1d: one permutable band of two members (time, skewed space), no
    # coincident member, the two statements fused below it, in sequence
    scop = load(EXAMPLES / "jacobi-1d.c")[0]
    assert shape(schedule_tree(scop, resolve("cpu")).get_root()) == "B2p--(seq[{S0},{S1}])"
    # 2mm: cpu fuses the initialization into each product's band (two
    # coincident members); nofuse keeps them apart
    scop = load(EXAMPLES / "2mm.c")[0]
    cpu = shape(schedule_tree(scop, resolve("cpu")).get_root())
    assert cpu.startswith("seq[{S0,S1}(B3pcc-(seq[{S0},{S1}]))")
    assert shape(schedule_tree(scop, resolve("nofuse")).get_root()) != cpu
