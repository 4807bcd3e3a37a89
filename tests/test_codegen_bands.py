"""The schedule tree codegen scans (codegen/tree.py) puts perfectly nested
loops with no AST option of their own in one band of several members, the
marks of all of them above it: isl scans such a band like nested bands but
far faster on a tile wavefront (issue 9's speed target), and the printers
find each mark on the loops of its own dimension as before."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from clayx.auto import schedule
from clayx.codegen import build_ast, generate_region
from clayx.codegen.tree import schedule_tree
from clayx.frontend import load
from clayx.whitebox import whitebox

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _auto(stem: str):
    scop = load(EXAMPLES / f"{stem}.c")[0]
    # isl's schedule as it is (the locality pass keeps jacobi-1d as written)
    return whitebox(scop, schedule(scop, "cpu", locality=False).schedule).scop


def _bands(node: isl.ScheduleNode, out: list) -> list:
    """(members, marks right above) of every band below ``node``, in order."""
    t = node.get_type()
    if t == isl.schedule_node_type.band:
        marks, up = [], node.parent()
        while up.get_type() == isl.schedule_node_type.mark:
            marks.append(up.mark_get_id().get_name())
            up = up.parent()
        out.append((node.band_n_member(), marks))
    for k in range(node.n_children()):
        _bands(node.child(k), out)
    return out


def test_wavefront_tile_loops_and_point_loops_form_one_band():
    scop = _auto("jacobi-1d")
    assert [m.loop for m in scop.schedule.marks] == [(0, 0)]
    bands = _bands(schedule_tree(scop).get_root(), [])
    # wavefront tile loop, tile loop (marked parallel), two point loops
    assert bands == [(4, ["clayx:parallel"])]


def test_mark_stays_on_its_loop_when_above_a_band_of_several():
    code = generate_region(_auto("jacobi-1d"), target="omp")
    lines = code.splitlines()
    pragma = next(k for k, line in enumerate(lines) if "#pragma omp parallel for" in line)
    fors = [k for k, line in enumerate(lines) if line.lstrip().startswith("for (")]
    # the wavefront loop is not parallel, the tile loop right inside it is
    assert fors[0] == pragma - 1 and fors[1] == pragma + 1


@pytest.mark.parametrize("stem", ["jacobi-1d", "jacobi-2d"])
def test_wavefront_ast_is_cheap_for_isl(stem):
    # nested one-member bands: 0.37 M (jacobi-1d) and 0.44 M isl operations
    # (0.4-0.5 s); one band: 0.05 M and 0.1 M
    build_ast(_auto(stem), max_operations=250_000)


def test_loops_with_their_own_ast_options_keep_their_band():
    # gemm tiled: the first point loop isolates its full tiles and the point
    # loops are atomic: those bands keep one member each (the tile loops
    # above them, with no option, share one)
    scop = _auto("gemm")
    from clayx.codegen.tiles import band_options
    hook = band_options(scop)
    assert hook is not None
    sizes = [n for n, _m in _bands(schedule_tree(scop, hook).get_root(), [])]
    assert sizes[0] >= 2 and sizes[-3:] == [1, 1, 1]


def test_nested_marked_loops_keep_a_mark_node_between_them():
    # the CUDA printer maps nested parallel loops to the grid by the mark
    # nodes between them: one marked loop per band
    import clayx
    s = clayx.load(EXAMPLES / "gemm.c")
    s.apply("parallelize([0]); parallelize([0, 0]);")
    bands = _bands(schedule_tree(s.current).get_root(), [])
    assert [m for _n, m in bands if m] == [["clayx:parallel"], ["clayx:parallel"]]
    assert bands[0] == (1, ["clayx:parallel"])
