"""What ``--auto`` (preset ``cpu``) produces is code a performance engineer
would accept (issue 10): innermost loops that walk the arrays with stride
1, parallel loops only where a parallel region pays for itself, no tiling
where there is no reuse, and the loops as written when isl's schedule would
walk the arrays worse.  The changed kernels run like the original on 1 and
4 threads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx.auto import post, schedule
from clayx.verify import SMALL_SIZES, verify

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KERNELS = sorted(p.stem for p in EXAMPLES.glob("*.c"))
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")


def _auto(stem: str, tile: int = 32):
    s = clayx.load(EXAMPLES / f"{stem}.c")
    return s, schedule(s.original, "cpu", tile)


def _innermost_strides(scop, sched, min_dim: int) -> list[int | None]:
    """The stride class of every access of the statements with at least
    ``min_dim`` iterators in their innermost loop."""
    out = []
    for rel in sched.relations:
        st = scop.statement(rel.stmt)
        if st.domain.dim(isl.dim_type.set) < min_dim or not rel.depth:
            continue
        out += [post.stride_class(scop, rel, a, 2 * rel.depth - 1) for a in st.accesses]
    return out


@pytest.mark.parametrize("stem", ["atax", "bicg", "gesummv", "mvt", "gemm", "trisolv"])
def test_innermost_loops_walk_the_matrices_with_stride_one(stem):
    s, a = _auto(stem)
    strides = _innermost_strides(s.original, a.schedule, 2)
    assert strides and 2 not in strides, strides


def test_innermost_stride_is_never_worse_than_the_original_on_the_shapes_isl_spoils():
    # isl's schedules of these walk a column innermost (atax's second
    # product, trisolv's L[i][k], gemver's fused band): the loops stay as written
    for stem in ("atax", "bicg", "trisolv", "gemver", "cholesky"):
        s, a = _auto(stem)
        assert a.kept_order, stem
        assert post.jumps(s.original, a.schedule) == post.jumps(s.original, s.original.schedule)


@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_auto_never_walks_the_arrays_worse_than_the_original(stem):
    s, a = _auto(stem)
    assert post.jumps(s.original, a.schedule) <= post.jumps(s.original, s.original.schedule)


@pytest.mark.parametrize("stem", ["cholesky", "trisolv", "durbin", "jacobi-1d", "doitgen"])
def test_no_parallel_loop_inside_sequential_loops_over_too_little_work(stem):
    # doitgen: for r, q { parallel p { for s … } }: NR·NQ regions of NP² work
    for tile in (32, 0):
        s, a = _auto(stem, tile)
        assert all(len(m.loop) == 1 for m in a.schedule.marks if m.kind == "parallel"), \
            (tile, a.schedule.marks)
        s.apply(s.auto(tile=tile))
        assert [len(m.loop) for m in s.current.schedule.marks] == \
            [len(m.loop) for m in a.schedule.marks]


def test_a_time_loop_around_a_two_dimensional_sweep_keeps_its_parallel_sweeps():
    # jacobi-2d untiled: for t { for i (parallel) for j …; for i (parallel) for j … }
    s, a = _auto("jacobi-2d", 0)
    marks = [m.loop for m in a.schedule.marks if m.kind == "parallel"]
    assert marks and all(len(loop) == 2 for loop in marks)


def test_gemm_point_loops_are_i_k_j():
    s = clayx.load(EXAMPLES / "gemm.c")
    _, a = _auto("gemm")
    assert a.tiled == [((1,), 3)] and not a.kept_order
    s.apply(s.auto())
    code = s.code("omp")
    nest = re.findall(r"for \((\w+) = 32 \* c(\d)", code)
    # the full tiles' point loops: i over c1, then k over c3, then j over c2
    assert nest[:3] == [("i", "1"), ("k", "3"), ("j", "2")], nest
    assert re.search(r"for \(j = [^\n]*\n\s*C\[i\]\[j\] \+= alpha \* A\[i\]\[k\] \* B\[k\]\[j\]",
                     code)


def test_two_loop_bands_with_stride_one_access_are_not_tiled():
    for stem in ("mvt", "gesummv", "atax"):
        _, a = _auto(stem)
        assert a.tiled == [], stem
    _, a = _auto("seidel-2d")                   # a time loop and two space loops: tiled
    assert a.tiled == [((0,), 3)]


def test_wavefront_tiles_only_where_they_fit_the_cache_or_nothing_else_is_parallel():
    # heat-3d: 4-loop time tiles of 32 (32^3 elements of two arrays) have
    # no reuse left; its parallel sweeps stay as written
    _, a = _auto("heat-3d")
    assert a.kept_order and not a.tiled and a.schedule.marks
    # jacobi-2d: 3-loop time tiles (32^2 elements) pay; the tile loop
    # inside the wavefront is parallel
    _, a = _auto("jacobi-2d")
    assert not a.kept_order and a.tiled == [((0,), 3)]
    assert [m.loop for m in a.schedule.marks] == [(0, 0)]
    # seidel-2d updates in place: no parallel sweep; tiled likewise
    _, a = _auto("seidel-2d")
    assert not a.kept_order and [m.loop for m in a.schedule.marks] == [(0, 0)]


def test_an_initialisation_beside_a_deeper_loop_is_distributed_so_the_product_tiles():
    # 2mm: for i, j { tmp[i][j] = 0; for k … } ⇒ the k loop joins the tiled band
    s, a = _auto("2mm")
    assert a.tiled == [((1,), 3), ((3,), 3)]
    assert post.jumps(s.original, a.schedule) == (0, 0)


def test_the_gpu_preset_keeps_isl_order_and_inner_parallel_loops():
    s = clayx.load(EXAMPLES / "cholesky.c")
    a = schedule(s.original, "gpu", 0)
    assert not a.kept_order
    assert any(len(m.loop) > 1 for m in a.schedule.marks)
    b = schedule(s.original, "gpu", 0, locality=True)
    assert all(len(m.loop) == 1 for m in b.schedule.marks)


CHANGED = ["atax", "bicg", "gesummv", "cholesky", "trisolv", "durbin", "gemm", "gemver",
           "mvt", "fdtd-2d", "jacobi-2d", "heat-3d"]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("stem", CHANGED)
def test_auto_code_runs_like_the_original(tmp_path, monkeypatch, stem, threads):
    """``--auto`` with tiles of 4 (sizes span several tiles, partial ones
    included), replayed as a script, OpenMP code: the same output as the
    original, bit for bit, on 1 and 4 threads."""
    monkeypatch.setenv("OMP_NUM_THREADS", str(threads))
    s = clayx.load(EXAMPLES / f"{stem}.c")
    r = s.auto_result("cpu", 4)
    assert r.exact
    s.apply(r.script)
    gen = tmp_path / f"{stem}.c"
    gen.write_text(s.code("omp"))
    res = verify(EXAMPLES / f"{stem}.c", gen, SMALL_SIZES[stem], openmp=True,
                 workdir=tmp_path / "build")
    assert res.ok and res.values > 0
