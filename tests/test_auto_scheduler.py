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

from clayx.auto.presets import MAX_CONSTANT_TERM, resolve
from clayx.auto.scheduler import isl_options, schedule_tree
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


# --- the bound on constant terms (a speed-up, not a change of schedule) --------

def _unbounded(preset: str):
    return resolve(preset, {"max_constant_term": -1})


@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_constant_bound_gives_isl_s_unbounded_schedule(stem):
    # the presets bound the constant terms (MAX_CONSTANT_TERM) only to make
    # isl's ILPs faster (adi ~0.7x): every tree is the one isl computes
    # unbounded, to the text
    scop = load(EXAMPLES / f"{stem}.c")[0]
    for name in ("cpu", "gpu", "feautrier", "nofuse"):
        assert resolve(name).isl_options()["max_constant_term"] == MAX_CONSTANT_TERM
        assert str(schedule_tree(scop, resolve(name))) == \
            str(schedule_tree(scop, _unbounded(name))), name


def test_constant_bound_reaches_isl_and_maxfuse_has_none():
    # a bound that binds changes the schedule: the option is really set
    # (jacobi-1d's skewed band needs a constant of 1), while the presets'
    # bound leaves it as isl computes it unbounded
    scop = load(EXAMPLES / "jacobi-1d.c")[0]
    free = str(schedule_tree(scop, _unbounded("cpu")))
    assert str(schedule_tree(scop, resolve("cpu"))) == free
    assert str(schedule_tree(scop, resolve("cpu", {"max_constant_term": 0}))) != free
    # maxfuse keeps isl's default: a bound groups adi's and deriche's scalar
    # statements differently under whole_component
    assert resolve("maxfuse").isl_options()["max_constant_term"] == -1


# --- schedule_parametric (islpy has no setter: clayx.auto.islargs) ------------------

#: a read shifted by the parameter: isl fuses the loops with ``S1[i] -> [n + i]``
#: when parametric shifts are allowed, and puts them in sequence otherwise
SHIFT_C = """void shift(int n, double A[], double B[])
{
  int i;
#pragma scop
  for (i = 0; i < 2 * n; i++)
    A[i] = i;
  for (i = 0; i < n; i++)
    B[i] = A[i + n];
#pragma endscop
}
"""


@pytest.fixture()
def shift_scop(tmp_path):
    src = tmp_path / "shift.c"
    src.write_text(SHIFT_C)
    return load(src)[0]


def test_schedule_parametric_reaches_isl_and_is_restored(shift_scop):
    from clayx.auto import islargs
    from clayx.auto.scheduler import schedule_constraints
    from clayx.analysis import dependences
    scop = shift_scop
    ctx = scop.context.get_ctx()
    on = str(schedule_tree(scop, resolve("cpu")))
    assert resolve("cpu").isl_options()["parametric"] == 1 and "(n + i)" in on
    off = str(schedule_tree(scop, resolve("cpu", {"schedule_parametric": 0})))
    assert off.split("child: ")[1].startswith("{ sequence") and "n + i" not in off
    # restored on the shared context: isl itself, outside the presets'
    # options, computes the parametric shift again
    assert islargs.bool_option(ctx, "schedule-parametric") == 1
    sc = schedule_constraints(scop, scop.domains(), resolve("cpu"), dependences(scop))
    assert "(n + i)" in str(sc.compute_schedule())
    # the option is off only inside the block, even when isl fails inside it
    with pytest.raises(RuntimeError):
        with isl_options(ctx, {"parametric": 0}):
            assert islargs.bool_option(ctx, "schedule-parametric") == 0
            assert "n + i" not in str(sc.compute_schedule())
            raise RuntimeError
    assert islargs.bool_option(ctx, "schedule-parametric") == 1
    assert "(n + i)" in str(sc.compute_schedule())


def test_the_context_pointer_is_validated_before_use(monkeypatch, shift_scop):
    from clayx.auto import islargs, scheduler
    ctx = shift_scop.context.get_ctx()
    ptr = islargs.ctx_pointer(ctx)
    other = isl.Context()
    assert ptr and ptr == islargs.ctx_pointer(isl.Set("{ : }", context=ctx).get_ctx())
    assert islargs.ctx_pointer(other) not in (None, ptr)
    assert islargs.ctx_pointer(object()) is None
    # a pointer read wrongly (here: another live context's) fails the check
    # of the options read back through isl's getter: never used
    real = islargs._raw_pointer
    wrong = real(other)
    monkeypatch.setattr(islargs, "_raw_pointer", lambda o: wrong if real(o) == ptr else real(o))
    assert islargs.ctx_pointer(ctx) is None
    assert not islargs.set_bool_option(ctx, "schedule-parametric", 0)
    # then the scheduler says so once and runs with isl's default
    monkeypatch.setattr(scheduler, "_WARNED", set())
    scheduler.clear_cache()
    with pytest.warns(RuntimeWarning, match="schedule_parametric=0 could not be set"):
        tree = str(schedule_tree(shift_scop, resolve("cpu", {"parametric": 0})))
    assert "(n + i)" in tree
    scheduler.clear_cache()


def test_schedule_parametric_override_through_session_and_cli(shift_scop, tmp_path):
    import io

    import clayx
    from clayx_repl.cli import EXIT_OK
    from clayx_repl.cli import run as cli
    s = clayx.load(tmp_path / "shift.c")
    r = s.auto_result("cpu", 0, schedule_parametric=0)
    assert r.exact and r.auto.preset.options["parametric"] == 0
    assert "n + i" not in str(r.auto.tree)
    assert "(n + i)" in str(s.auto_result("cpu", 0).auto.tree)

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        rc = cli([str(EXAMPLES / "gemver.c"), "--auto", *argv], stdout=out, stderr=err,
                 stdin=io.StringIO(""))
        assert rc == EXIT_OK, err.getvalue()
        return out.getvalue()
    # gemver: with parametric shifts isl's schedule is not taken (the loops
    # as written, parallel); without, its fusion is
    assert "fuse(" not in run() and run("--isl", "schedule_parametric=1") == run()
    assert "fuse(" in run("--isl", "schedule_parametric=0")


def test_nofuse_has_no_parametric_shifts():
    from clayx.auto.presets import NOFUSE_PARAMETRIC
    assert NOFUSE_PARAMETRIC == 0 and resolve("nofuse").isl_options()["parametric"] == 0
    assert resolve("nofuse", {"parametric": 1}).isl_options()["parametric"] == 1
    for name in ("cpu", "gpu", "feautrier", "maxfuse"):
        assert resolve(name).isl_options()["parametric"] == 1, name


#: the examples whose cpu trees change without parametric shifts
PARAMETRIC_UNDER_CPU = ("adi", "correlation", "covariance", "deriche", "doitgen", "durbin",
                        "gemver", "gesummv", "gramschmidt", "ludcmp", "symm")


@pytest.mark.slow
def test_nofuse_without_parametric_shifts_gives_the_same_trees():
    # nofuse turns schedule_parametric off for speed (0.47x), not shape:
    # every tree is the one isl computes with it on (measured on all 31;
    # here the kernels whose cpu trees have parametric shifts)
    for stem in PARAMETRIC_UNDER_CPU:
        scop = load(EXAMPLES / f"{stem}.c")[0]
        assert str(schedule_tree(scop, resolve("nofuse"))) == \
            str(schedule_tree(scop, resolve("nofuse", {"parametric": 1}))), stem


def test_schedule_constraints_are_the_dependences_of_the_preset_s_kinds():
    # what schedule_tree hands isl: validity = RAW+WAR+WAW, proximity adds
    # RAR under cpu and not under gpu, coincidence = validity; isl's tree
    # from them is schedule_tree's, to the text
    from clayx.analysis import dependences
    from clayx.auto.scheduler import isl_options, schedule_constraints
    scop = load(EXAMPLES / "jacobi-1d.c")[0]
    deps = dependences(scop)
    val, rar = deps.union_map("RAW", "WAR", "WAW"), deps.union_map("RAR")
    assert not rar.is_empty()
    cpu = schedule_constraints(scop, scop.domains(), resolve("cpu"), deps)
    assert cpu.get_validity().is_equal(val) and cpu.get_coincidence().is_equal(val)
    assert cpu.get_proximity().is_equal(val.union(rar))
    gpu = schedule_constraints(scop, scop.domains(), resolve("gpu"), deps)
    assert gpu.get_proximity().is_equal(val)
    assert cpu.get_domain().is_equal(scop.domains())
    with isl_options(scop.context.get_ctx(), resolve("cpu").isl_options()):
        tree = cpu.compute_schedule()
    assert str(tree) == str(schedule_tree(scop, resolve("cpu"), deps))


def _reversed(deps):
    from clayx.analysis.dependences import Dependences
    return Dependences(tuple(reversed(deps.all)), space=deps.space, schedule=deps.schedule)


def test_edge_order_is_the_analysis_order_on_every_example():
    # the order isl is given the dependences in is defined by the scheduler
    # (kind, source, sink, references in program order); the analysis lists
    # them in that order already, so the pinned trees are this order's
    from clayx.analysis import dependences
    from clayx.auto.scheduler import edge_order
    for stem in KERNELS:
        scop = load(EXAMPLES / f"{stem}.c")[0]
        deps = dependences(scop)
        assert list(deps.all) == edge_order(scop, deps.all), stem
        assert edge_order(scop, _reversed(deps).all) == list(deps.all), stem


@pytest.mark.parametrize("stem", ["correlation", "3mm"])
def test_isl_s_tree_does_not_depend_on_the_order_dependences_are_listed_in(stem):
    # isl breaks ties by the order of its edges: the same relations united
    # in reverse order give correlation and 3mm another maxfuse tree (the
    # check that this test can fail); schedule_tree sorts them first
    from clayx.analysis import dependences
    from clayx.auto.scheduler import _compute, _union, isl_options
    scop = load(EXAMPLES / f"{stem}.c")[0]
    deps = dependences(scop)
    preset = resolve("maxfuse")
    want = str(_compute(scop, scop.domains(), preset, deps, None))
    assert str(_compute(scop, scop.domains(), preset, _reversed(deps), None)) == want

    def union(kinds):
        return _union(deps.space, reversed(deps.of_kind(*kinds)))
    sc = isl.ScheduleConstraints.on_domain(scop.domains()).set_context(scop.context)
    sc = sc.set_validity(union(preset.validity)).set_proximity(union(preset.proximity))
    sc = sc.set_coincidence(union(preset.coincidence))
    with isl_options(scop.context.get_ctx(), preset.isl_options()):
        assert str(sc.compute_schedule()) != want


def test_locality_fallback_runs_isl_s_scheduler_once(monkeypatch):
    # when the locality pass's loop orders are not recovered (forced here:
    # lu's are), whiteboxed falls back on isl's own order and tiling,
    # post-processing the same isl tree again
    import clayx.auto as auto
    import clayx.whitebox as wb
    calls = []
    real = auto.schedule_tree
    monkeypatch.setattr(auto, "schedule_tree", lambda *a, **k: calls.append(1) or real(*a, **k))
    real_wb = wb.whitebox
    refused = []

    def refuse_once(original, target, **kw):
        if not refused:
            refused.append(1)
            raise wb.WhiteboxError("cannot order the steps (forced)")
        return real_wb(original, target, **kw)
    monkeypatch.setattr(wb, "whitebox", refuse_once)
    scop = load(EXAMPLES / "lu.c")[0]
    target, result = auto.whiteboxed(scop, "cpu")
    assert result.timings.get("locality_undone") and result.exact
    assert len(calls) == 1 and target.timings["isl"] == 0
    fresh = auto.schedule(scop, "cpu", locality=False)
    assert str(fresh.tree) == str(target.tree)
    assert str(fresh.schedule) == str(target.schedule)


# --- the post-processing's results, pinned (its speed-ups change no schedule) ------

POST = Path(__file__).resolve().parent / "data" / "auto" / "post_schedules.json"


def _post_result(a) -> dict:
    return {"schedule": str(a.schedule), "marks": [str(m) for m in a.schedule.marks],
            "tiled": repr(a.tiled)}


@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_post_processed_schedule_is_pinned(stem):
    # the final cpu schedule (hoisting, distribution, tiling, loop order,
    # parallel marks, the choice of keeping the loops as written) and isl's
    # own order and tiling (locality off, whiteboxed's fallback), to the
    # text, as computed before the post-processing was made faster; the
    # data file is rewritten on purpose with ``CLAYX_PIN_POST=1``
    import clayx.auto as auto
    pinned = json.loads(POST.read_text())
    scop = load(EXAMPLES / f"{stem}.c")[0]
    a = auto.schedule(scop, "cpu")
    b = auto.schedule(scop, "cpu", tree=a.tree, locality=False)
    got = dict(_post_result(a), kept_order=a.kept_order, isl_order=_post_result(b))
    if os.environ.get("CLAYX_PIN_POST"):
        pinned[stem] = got
        POST.write_text(json.dumps(pinned, indent=1, sort_keys=True) + "\n")
    assert got == pinned[stem]


# --- isl's trees remembered ------------------------------------------------------------

def _counts():
    from clayx.auto.scheduler import cache_stats
    s = cache_stats()
    return s["hits"], s["misses"]


def test_isl_trees_are_remembered_per_domains_dependences_and_preset():
    """isl runs once per (domains, dependences, preset): again for another
    tile size, or after a step that leaves the domains as they are, the tree
    comes from memory; another preset, new domains (an index-set split) or
    other dependences run isl again."""
    import clayx
    from clayx.analysis import compute_dependences
    from clayx.auto import schedule
    from clayx.auto.scheduler import clear_cache
    clear_cache()
    s = clayx.load(EXAMPLES / "gemm.c")
    h0, m0 = _counts()
    a = s.auto_result("cpu", 32)
    b = s.auto_result("cpu", 16)
    assert _counts() == (h0 + 1, m0 + 1)
    assert str(a.auto.tree) == str(b.auto.tree)
    assert str(a.auto.schedule) != str(b.auto.schedule)     # the tiles differ
    s.apply("interchange([0, 1], 2, 3);")
    c = s.auto_result("cpu", 32)
    assert _counts() == (h0 + 2, m0 + 1) and str(c.auto.tree) == str(a.auto.tree)
    s.auto_result("nofuse", 32)
    assert _counts() == (h0 + 2, m0 + 2)
    s.apply("iss([0], {1 | | 0 | -4});")                    # S0, S1 each split in two
    schedule(s.current, "cpu", deps=s.deps)
    assert _counts() == (h0 + 3, m0 + 2)
    s.apply("unroll([0], 2);")                              # more relations, same domains
    schedule(s.current, "cpu", deps=s.deps)
    assert _counts() == (h0 + 4, m0 + 2)
    schedule(load(EXAMPLES / "atax.c")[0], "cpu")           # another program
    assert _counts() == (h0 + 4, m0 + 3)
    fresh = schedule(s.original, "cpu", deps=compute_dependences(s.original))
    assert _counts() == (h0 + 4, m0 + 4) and str(fresh.tree) == str(a.auto.tree)


def test_the_remembered_trees_are_bounded():
    from clayx.auto.scheduler import TREE_CACHE_SIZE, _TREES, clear_cache
    clear_cache()
    scop = load(EXAMPLES / "atax.c")[0]
    for k in range(TREE_CACHE_SIZE + 3):
        schedule_tree(scop, resolve("cpu", {"max_constant_term": 100 + k}))
    assert len(_TREES) == TREE_CACHE_SIZE
    h, m = _counts()
    schedule_tree(scop, resolve("cpu", {"max_constant_term": 100}))    # the oldest: gone
    assert _counts() == (h, m + 1)
    schedule_tree(scop, resolve("cpu", {"max_constant_term": 100 + TREE_CACHE_SIZE + 2}))
    assert _counts() == (h + 1, m + 1)
