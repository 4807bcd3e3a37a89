"""Automatic scheduling, whiteboxed (issue 9): ``Session.auto`` and the
``--auto``/``--whitebox`` command line.  Every automatic script is replayed
(every step checked) to the automatic schedule's dates; the slow test
compiles the code of ``--auto cpu`` for all 31 examples, C and OpenMP on 4
threads, and runs it against the original."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

import clayx
from clayx.auto import PRESETS, schedule
from clayx.errors import ClayxError
from clayx.script import Script
from clayx.verify import SMALL_SIZES, verify
from clayx.whitebox.replay import same_dates
from clayx_repl.cli import EXIT_ERROR, EXIT_ILLEGAL, EXIT_OK, EXIT_USAGE
from clayx_repl.cli import run as cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DATA = Path(__file__).resolve().parent / "data" / "whitebox"
KERNELS = sorted(p.stem for p in EXAMPLES.glob("*.c"))
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")


def clayx_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = cli([str(a) for a in argv], stdout=out, stderr=err, stdin=io.StringIO(""))
    return rc, out.getvalue(), err.getvalue()


# --- Session.auto ------------------------------------------------------------------

def test_auto_returns_a_script_and_applies_nothing():
    s = clayx.load(EXAMPLES / "gemm.c")
    script = s.auto()
    assert isinstance(script, Script)
    assert not s.entries
    names = [st.call.name for st in script.steps]
    assert "tile" in names and names[-1] == "parallelize"
    s.apply(script)
    want = schedule(s.original, "cpu", 32).schedule
    assert same_dates(s.original, s.current.schedule, want)
    assert {m.loop for m in s.current.schedule.marks} == {m.loop for m in want.marks}
    assert "#pragma omp parallel for" in s.code("omp")


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_gives_a_replayed_script(preset):
    s = clayx.load(EXAMPLES / "jacobi-2d.c")
    r = s.auto_result(preset, 8)
    assert r.exact and r.auto.preset.name == preset
    s.apply(r.script)
    assert same_dates(s.original, s.current.schedule, r.auto.schedule)


def test_tile_size_and_isl_options():
    s = clayx.load(EXAMPLES / "mvt.c")
    untiled = [st.call.name for st in s.auto(tile=0).steps]
    assert not {"tile", "stripmine"} & set(untiled)
    tiled = str(s.auto(tile=16, locality=False))     # Pluto's tiling of every band
    assert "stripmine(" in tiled and ", 16);" in tiled
    r = s.auto_result("cpu", 8, outer_coincidence=1, proximity=("RAW", "WAR", "WAW"))
    assert r.auto.preset.options["outer_coincidence"] == 1


def test_auto_continues_from_the_current_state():
    s = clayx.load(EXAMPLES / "jacobi-1d.c")
    first = s.auto(locality=False)          # the skewed, tiled schedule
    assert str(first.steps[0]) == "skew([0], 2, 1, -2);"    # both statements at once
    s.apply(str(first.steps[0]))
    rest = s.auto(locality=False)
    assert len(rest.steps) == len(first.steps) - 1
    s.apply(rest)
    assert same_dates(s.original, s.current.schedule,
                      schedule(s.original, "cpu", 32, locality=False).schedule)


@pytest.mark.parametrize("call,message", [
    (lambda s: s.auto("pluto"), "unknown scheduling preset 'pluto'"),
    (lambda s: s.auto(fusion=1), "unknown isl scheduler option 'fusion'"),
    (lambda s: s.auto(outer_coincidence="yes"), "takes an integer"),
    (lambda s: s.auto(schedule_parametric=2), "'schedule_parametric' is 0 or 1"),
    (lambda s: s.auto(validity=("RAW",)), "validity must include RAW, WAR and WAW"),
    (lambda s: s.auto(proximity=("RAW", "XYZ")), "unknown dependence kind"),
    (lambda s: s.auto(tile=-1), "tile size must be a whole number"),
    (lambda s: s.auto(tile="32"), "tile size must be a whole number"),
])
def test_bad_presets_and_options_are_refused(call, message):
    s = clayx.load(EXAMPLES / "gemm.c")
    with pytest.raises(ClayxError, match=re.escape(message)):
        call(s)
    assert not s.entries


# --- command line ------------------------------------------------------------------

def test_cli_auto_prints_the_script_which_replays_unchanged(tmp_path):
    src = EXAMPLES / "jacobi-2d.c"
    rc, out, err = clayx_cli(src, "--auto", "--tile", "8")
    assert rc == EXIT_OK, err
    head, *steps = out.splitlines()
    assert head.startswith("# clayx --auto cpu --tile 8 on jacobi-2d.c: ")
    assert "every instance gets the target's date" in head
    assert all(re.fullmatch(r"\w+\(.*\);\s+# .+", ln) for ln in steps), steps
    script = tmp_path / "auto.clay"
    rc, _, err = clayx_cli(src, "--auto", "cpu", "--tile", "8", "-o", script)
    assert rc == EXIT_OK and script.read_text() == out
    for emit in ("c", "omp", "scop"):
        rc1, direct, _ = clayx_cli(src, "--auto", "--tile", "8", "--emit", emit)
        rc2, replayed, err = clayx_cli(src, "--script", script, "--emit", emit)
        assert rc1 == rc2 == EXIT_OK, err
        if emit != "scop":      # the OpenScop records the script it applied
            assert direct == replayed
    assert "#pragma omp parallel for" in direct or "#pragma omp parallel for" in \
        clayx_cli(src, "--script", script, "--emit", "omp")[1]


def test_cli_auto_scop_whiteboxes_back_to_the_same_dates(tmp_path):
    src = EXAMPLES / "gemm.c"
    target = tmp_path / "auto.scop"
    assert clayx_cli(src, "--auto", "--emit", "scop", "-o", target)[0] == EXIT_OK
    rc, out, err = clayx_cli(src, "--whitebox", target)
    assert rc == EXIT_OK, err
    script = tmp_path / "wb.clay"
    script.write_text(out)
    s = clayx.load(src)
    s.apply(script.read_text())
    assert same_dates(s.original, s.current.schedule, clayx.load(target).current.schedule)


@pytest.mark.parametrize("orig,target", [
    ("trisolv-iss-peel.orig.scop", "trisolv-iss-peel.target.scop"),
    ("gemm-fission-tile.orig.scop", "gemm-ppcg.yaml"),
    ("mvt-fuse-interchange.orig.scop", "mvt-renamed.map"),
])
def test_cli_whitebox_round_trip_through_script(tmp_path, orig, target):
    rc, out, err = clayx_cli(DATA / orig, "--whitebox", DATA / target)
    assert rc == EXIT_OK, err
    assert out.startswith(f"# clayx --whitebox {DATA / target} on {orig}: ")
    script = tmp_path / "s.clay"
    script.write_text(out)
    for emit in ("scop", "script"):
        rc1, direct, _ = clayx_cli(DATA / orig, "--whitebox", DATA / target, "--emit", emit)
        rc2, replayed, err = clayx_cli(DATA / orig, "--script", script, "--emit", emit)
        assert rc1 == rc2 == EXIT_OK, err
        if emit == "script":    # the recovered script, commented; the applied one, bare
            direct = str(Script.parse(direct))
        assert direct == replayed


def test_cli_illegal_target_is_refused_with_the_witness():
    rc, out, err = clayx_cli(DATA / "jacobi1d-skew-fuse-tile.orig.scop", "--whitebox",
                             DATA / "jacobi1d-illegal.map")
    assert rc == EXIT_ILLEGAL and out == ""
    assert err.startswith("clayx: refused: the target schedule is illegal: it breaks")
    assert re.search(r"e\.g\. TSTEPS = \d+, N = \d+: S\d\[t=\d+, i=\d+\] -> ", err)


def test_cli_unexpressible_target_is_an_error_naming_the_part(tmp_path):
    target = tmp_path / "t.map"
    target.write_text("[M, N] -> { S0[i] -> [0, 0]; S1[i] -> [1, i, 0, 0]; "
                      "S2[i, j] -> [1, i, 1, j]; S3[i, j] -> [1, i, 2, j] }\n")
    rc, out, err = clayx_cli(DATA / "atax-fission-fuse.orig.scop", "--whitebox", target,
                             "--emit", "c")
    assert rc == EXIT_ERROR and out == ""
    assert "several instances of S0 the same date" in err


@pytest.mark.parametrize("argv,rc,message", [
    (["--auto", "pluto"], EXIT_ERROR, "unknown scheduling preset 'pluto'"),
    (["--auto", "--isl", "nosuch=1"], EXIT_ERROR, "unknown isl scheduler option 'nosuch'"),
    (["--auto", "--isl", "outer_coincidence"], EXIT_ERROR, "expected NAME=VALUE"),
    (["--auto", "--isl", "schedule_parametric=-1"], EXIT_ERROR,
     "'schedule_parametric' is 0 or 1, got -1"),
    (["--tile", "8"], EXIT_USAGE, "--tile and --isl go with --auto"),
    (["--auto", "--tile", "-4"], EXIT_USAGE, "--tile must be 0"),
    (["--auto", "--whitebox", "x.scop"], EXIT_USAGE, "exclude each other"),
    (["--auto", "--run", "--emit", "c"], EXIT_USAGE, "it takes no --emit"),
    (["--whitebox", str(DATA / "gemm-bad.yaml")], EXIT_ERROR, "neither an isl schedule tree"),
    (["--whitebox", "no-such-target.c"], EXIT_ERROR,
     "cannot read the target no-such-target.c: no such file"),
    (["--whitebox", str(EXAMPLES / "README.md")], EXIT_ERROR, "failed: syntax error\n"),  # no isl source place
    (["--whitebox", str(DATA / "mvt-interchange.map")], EXIT_ERROR, "iterators"),
    (["--whitebox", str(EXAMPLES / "mvt.c")], EXIT_ERROR, "S1 of the target has 2 iterators"),
])
def test_cli_must_fail(argv, rc, message):
    got, out, err = clayx_cli(EXAMPLES / "gemm.c", *argv)
    assert got == rc and out == ""
    assert message in err and "Traceback" not in err


# --- all 31 examples, compiled and run -----------------------------------------------

@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_auto_cpu_code_runs_like_the_original(tmp_path, monkeypatch, stem):
    """``--auto cpu`` (tiles of 4, so the small sizes span several tiles,
    partial ones included): the printed script replays with ``--script``,
    and its code, C and OpenMP on 4 threads, prints what the original does,
    bit for bit."""
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    auto_runs_like_the_original(tmp_path, EXAMPLES / f"{stem}.c", SMALL_SIZES[stem])


def auto_runs_like_the_original(tmp_path, src: Path, sizes) -> None:
    """``--auto cpu --tile 4`` on ``src``: the script replays exactly, and
    its C and OpenMP code print what ``src`` prints (``-D`` ``sizes``)."""
    script = tmp_path / "auto.clay"
    rc, _, err = clayx_cli(src, "--auto", "cpu", "--tile", "4", "-o", script)
    assert rc == EXIT_OK, err
    assert "every instance gets the target's date" in script.read_text().splitlines()[0]
    for emit in ("c", "omp"):
        gen = tmp_path / f"{src.stem}_{emit}.c"
        rc, _, err = clayx_cli(src, "--script", script, "--emit", emit, "-o", gen)
        assert rc == EXIT_OK, err
        res = verify(src, gen, sizes, openmp=emit == "omp", workdir=tmp_path / f"build_{emit}")
        assert res.ok and res.values > 0


def test_clayx_auto_file_order_and_the_whitebox_package_stays_a_package():
    rc, out, _ = clayx_cli("--auto", EXAMPLES / "mvt.c")
    assert rc == EXIT_OK and out.startswith("# clayx --auto cpu --tile 32 on mvt.c")
    import clayx.whitebox as W
    assert W.WhiteboxResult is clayx.WhiteboxResult and callable(W) and callable(W.whitebox)


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("stem", ["gemm", "2mm", "lu", "jacobi-2d", "seidel-2d"])
def test_auto_cpu_default_tiles_run_like_the_original(tmp_path, monkeypatch, stem):
    """The default tile size (32) with sizes five times the small ones, so
    that the loops span more than one tile: OpenMP code on 4 threads."""
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    src = EXAMPLES / f"{stem}.c"
    rc, code, err = clayx_cli(src, "--auto", "--emit", "omp")
    assert rc == EXIT_OK, err
    assert "#pragma omp parallel for" in code
    gen = tmp_path / f"{stem}_omp.c"
    gen.write_text(code)
    sizes = {k: 5 * v for k, v in SMALL_SIZES[stem].items()}
    res = verify(src, gen, sizes, openmp=True, workdir=tmp_path / "build")
    assert res.ok and res.values > 0


# --- the post-processing's checks, against what they replace ----------------------

def _composed_stride_class(scop, rel, access, dim):
    """:func:`clayx.auto.post.stride_class` as it was first written: the
    access composed with the dates and their shift by one at ``dim``."""
    import islpy as isl
    st = scop.statement(rel.stmt)
    sched = rel.map.intersect_domain(st.domain.intersect_params(scop.context))
    at = sched.reverse().apply_range(access.relation.intersect_domain(st.domain))
    same = isl.MultiAff.identity_on_domain_space(at.get_space().domain())
    step = same.get_at(dim).set_constant_val(isl.Val.one(same.get_ctx()))
    pairs = at.reverse().apply_range(isl.Map.from_multi_aff(same.set_at(dim, step))) \
        .apply_range(at)
    if pairs.is_empty():
        return None
    deltas = pairs.deltas()
    m = deltas.dim(isl.dim_type.set)
    if m == 0:
        return 0
    zero = isl.Set.universe(deltas.get_space())
    for k in range(m):
        zero = zero.fix_val(isl.dim_type.set, k, 0)
    if deltas.is_subset(zero):
        return 0
    near = isl.Set.universe(deltas.get_space())
    for k in range(m - 1):
        near = near.fix_val(isl.dim_type.set, k, 0)
    near = near.lower_bound_val(isl.dim_type.set, m - 1, -1).upper_bound_val(
        isl.dim_type.set, m - 1, 1)
    return 1 if deltas.is_subset(near) else 2


def _all_stride_classes(scop, sched):
    from clayx.auto import post
    out = []
    for rel in sched.relations:
        accesses = scop.statement(rel.stmt).accesses
        for d in range(1, rel.depth + 1):
            got = post._stride_classes(scop, rel, accesses, 2 * d - 1)
            want = [_composed_stride_class(scop, rel, a, 2 * d - 1) for a in accesses]
            assert got == want, (rel.stmt, d)
            out += got
    return out


@pytest.mark.slow
@pytest.mark.parametrize("stem", KERNELS)
def test_stride_classes_answer_like_the_composed_accesses(stem):
    # affine accesses go through their linear part on the instance steps'
    # deltas, the others through the composition: the same classes as the
    # composition alone, for the loops as written and the cpu schedule
    scop = clayx.load(EXAMPLES / f"{stem}.c").original
    _all_stride_classes(scop, scop.schedule)
    _all_stride_classes(scop, schedule(scop, "cpu").schedule)


def test_stride_classes_of_accesses_with_divisions(tmp_path):
    # A[i % 2][j] and C[j / 2] have integer divisions: no linear part, the
    # composition answers; C[j / 2] steps by 0 or 1 (not one fixed step)
    from clayx.auto import post
    src = tmp_path / "mod.c"
    src.write_text("void k(int n, double A[2][100], double B[100][100], double C[100]) {\n"
                   "#pragma scop\n"
                   "  for (int i = 0; i < n; i++)\n"
                   "    for (int j = 0; j < n; j++) {\n"
                   "      A[i % 2][j] = B[j][i] + C[j / 2];\n"
                   "      C[j] = A[(i + 1) % 2][j];\n"
                   "    }\n"
                   "#pragma endscop\n}\n")
    scop = clayx.load(src).original
    s0 = scop.schedule.relations[0]
    st = scop.statement(s0.stmt)
    assert [post._linear(scop, st, a) is None for a in st.accesses] == [False, True, True]
    by = {a.array: a for a in st.accesses}
    assert [post.stride_class(scop, s0, by[x], 3) for x in "BCA"] == [2, 1, 1]   # j
    assert [post.stride_class(scop, s0, by[x], 1) for x in "BCA"] == [1, 0, 2]   # i
    _all_stride_classes(scop, scop.schedule)


@pytest.mark.parametrize("stem", ["adi", "2mm", "jacobi-2d", "lu", "seidel-2d"])
def test_is_parallel_answers_like_parallel_violations(stem):
    from dataclasses import replace as with_
    from clayx.analysis import dependences, parallel_violations
    from clayx.analysis.legality import is_parallel
    scop = clayx.load(EXAMPLES / f"{stem}.c").original
    deps = dependences(scop)
    seen = set()
    for sched in (scop.schedule, schedule(scop, "cpu", parallel=False).schedule):
        s = with_(scop, schedule=sched)
        loops = {tuple(r.beta[:k]) for r in sched.relations for k in range(1, r.depth + 1)}
        for loop in sorted(loops):
            got = is_parallel(s, loop, len(loop), deps)
            assert got == (not parallel_violations(s, loop, len(loop), deps)), loop
            seen.add(got)
    assert seen == {True, False}


def test_relation_maps_and_statement_facts_are_kept_per_content():
    from dataclasses import replace as with_
    import islpy as isl
    from clayx.auto.tree import from_tree, relation_map, stmt_info, to_tree
    scop = clayx.load(EXAMPLES / "jacobi-1d.c").original
    r = from_tree(to_tree(scop), scop)[0]
    space = scop.statement(r.stmt).domain.get_space()
    m = relation_map(scop, r)
    assert m.is_equal(r.map(space)) and relation_map(scop, r) is m
    moved = with_(r, alphas=[r.alphas[0].add_constant_val(isl.Val(1, context=m.get_ctx()))]
                  + list(r.alphas[1:]))
    assert not relation_map(scop, moved).is_equal(m)
    assert relation_map(scop, moved).is_equal(moved.map(space))
    after = with_(r, betas=(1,) + tuple(r.betas[1:]))
    assert not relation_map(scop, after).is_equal(m)
    # another context: other instances
    small = with_(scop, context=scop.context.lower_bound_val(
        isl.dim_type.param, 0, 7))
    assert stmt_info(small, r.stmt).instances.is_strict_subset(stmt_info(scop, r.stmt).instances)
