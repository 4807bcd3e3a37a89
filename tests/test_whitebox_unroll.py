"""Whitebox recovery of Clay's ``unroll`` / ``unroll_noepilog``
(:mod:`clayx.whitebox.unrolls`): targets whose statements are split into an
unroll's main part, copies and epilog (strided parts) are recovered, the
script replayed to the same dates; strided parts that no unroll makes are
refused with a clear message.  Every target here was refused before
("the part … is not convex … unroll's copies and epilog", or "the parts of
a target statement are not separated by index-set splits")."""

from __future__ import annotations

import shutil
from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx.model import ClaySchedule, Relation
from clayx.whitebox import Oracle, WhiteboxError, symbolic, whitebox
from clayx.whitebox.model import Divs
from clayx.whitebox.replay import same_dates
from whitebox_cases import EXAMPLES, session as _session

def _recovered(s: clayx.Session):
    """Whitebox ``s``'s schedule from its original; check the script
    replays (in a fresh session) to the same dates; return the result."""
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact
    again = clayx.Session(s.original, others=s.others)
    again.apply(r.text(comments=False))
    assert same_dates(s.original, again.current.schedule, target)
    return r


#: (kernel, script that makes the target, the unroll step the recovery
#: must emit).  Fuzzer sequences (scripts/fuzz_whitebox.py seeds 12000-21000)
#: and hand-made ones.
CASES = [
    # alone, depth 1 (two statements in the time loop, unrolled together)
    ("jacobi-1d", "unroll([0], 4);", "unroll([0], 4);"),
    # alone, depth 2
    ("gemm", "unroll([0, 0], 2);", "unroll([0, 0], 2);"),
    ("gemm", "unroll([0, 0], 3);", "unroll([0, 0], 3);"),
    # depth 3, after a grain, the unrolled loop peeled after (its copies too)
    ("lu", "grain([0, 0], 2, 2); unroll([0, 1, 0], 4); peel([0, 1, 0], {0 | 5});",
     "unroll([0, 1, 0], 4);"),
    # a shifted loop: α_k brought to the residue class first; then the
    # epilog fused into the main loop
    ("seidel-2d", "shift([0, 0, 0, 0], 3, {}, -2); unroll([0, 0, 0], 3); fuse([0, 0, 0]);",
     "unroll([0, 0, 0], 3);"),
    # unroll then fuse and reorder, grains of the copies
    ("bicg", "reorder([0], [0]); unroll([0], 3); fuse([2, 1]); grain([0, 0], 1, 3); "
             "vectorize([1]); grain([0, 1], 1, 3);", "unroll([0], 3);"),
    ("atax", "unroll([1, 2], 2); interchange([1, 1], 1, 1); fuse([1]);", "unroll([1, 2], 2);"),
    # index-set split before the unroll, split_children after
    ("lu", "iss([0], {0 | | 0 | 2}); unroll([0, 2, 0], 3); split_children([0], 2); "
           "unroll_mark([1, 0, 1], 2); parallelize([0, 1], 1);", "unroll("),
    # the epilog loop peeled and split, a copy skewed
    ("atax", "unroll([1], 3); fuse([2, 2]); peel([1, 7], {-1, -1 | 4}); "
             "iss([1, 2], {1, 0 | | 0, -1 | 5}); split_children([1, 2], 1);", "unroll([1], 3);"),
    ("bicg", "unroll([1], 4); skew([2, 1], 2, 1, -2); split_children([1, 3], 1);",
     "unroll([1], 4);"),
    ("jacobi-1d", "unroll([0], 4); peel([0, 2], {1, -1 | -2});", "unroll([0], 4);"),
    # two statements fused, then their loop unrolled together
    ("syrk", "parallelize([0], 1); fuse([0]); unroll([0, 0], 3);", "unroll([0, 0], 3);"),
    # unroll inside a strip-mined loop; and a strip-mine of the copies after
    ("gemm", "stripmine([0, 0], 2, 3); unroll([0, 1, 0], 2); shift([0, 1, 1, 0], 2, {}, 0);",
     "unroll("),
    ("gemm", "unroll([0, 1, 0], 4); embed([0, 1, 1, 0]); fuse([0]); fuse([0, 1, 1, 0]); "
             "stripmine([0, 1, 0], 2, 2);", "unroll([0, 1, 0], 4);"),
    # a skewed, embedded copy; an unrolled loop of an interchanged nest
    ("atax", "grain([0], 1, 1); unroll([1, 1], 4); embed([1, 2, 0]); embed([0, 0]); "
             "skew([1, 3], 2, 1, -2);", "unroll([1, 1], 4);"),
    ("syrk", "grain([0, 1], 3, 1); unroll([0, 1, 0], 3); reorder_loops([0, 1, 0, 0], 2); "
             "peel([0, 1, 1], {1, 0 | 4}); iss([0, 0], {-1 | | 0, 0 | 0});", "unroll("),
    ("jacobi-2d", "interchange([0], 1, 1); reverse([0], 3); skew([0, 0], 2, 3, -1); "
                  "embed([0, 0, 0, 0]); unroll([0], 2);", "unroll([0], 2);"),
    # a tile of the unrolled statements' outer loop after the unroll
    ("syrk", "unroll([0, 1, 0], 2); tile([0], 1, 1, 2); parallelize([0], 1);",
     "unroll([0, 1, 0], 2);"),
    ("gemm", "parallelize([0, 0], 1); unroll([0, 0], 3); stripmine([0], 1, 4); "
             "peel([0, 0], {-1, 0, 1 | -1});", "unroll("),
    # nested: the main loop's inner loop unrolled again; one loop twice
    ("gemm", "unroll([0], 2); unroll([0, 0], 3);", "unroll([0], 2);\nunroll([0, 0], 3);"),
    ("syrk", "unroll([0, 1], 2); unroll([0, 1, 0], 2);", "unroll([0, 1, 0], 2);"),
    # the class of α_k the main part keeps, reached first: by a reshape
    # (a skewed loop), a parametric shift, a reverse; a later shift
    ("gemm", "skew([0, 1], 3, 1, 1); unroll([0, 1, 0], 3);", "reshape([0, 1], 3, 1, 1);"),
    ("gemm", "shift([0, 0], 2, {0 | 1 | 0}, 0); unroll([0, 0], 2);",
     "shift([0, 0], 2, {0 | 1 | 0}, 0);\nunroll([0, 0], 2);"),
    ("gemm", "reverse([0, 0], 2); unroll([0, 0], 3);", "unroll([0, 0], 3);"),
    ("jacobi-1d", "unroll([0, 0], 3); shift([0, 0], 2, {1}, 0);", "unroll([0, 0], 3);"),
    # an index-set split before the unroll, both halves unrolled together
    ("gemm", "iss([0, 0], {1, -1 | | 0, 0, 0 | 0}); unroll([0, 0], 2);", "unroll([0, 0], 2);"),
    ("jacobi-2d", "vectorize([0, 0, 0]); shift([0, 1, 0, 0], 3, {0 | 0}, 0); "
                  "iss([0, 0, 0], {1, -1 | | 0, -1 | 3}); unroll([0, 0], 3); "
                  "reshape([0, 2, 0], 3, 1, -1); fuse([0, 0, 1]);", "unroll([0, 0], 3);"),
    # other factors
    ("gemm", "unroll([0, 1, 0], 7);", "unroll([0, 1, 0], 7);"),
    ("jacobi-1d", "unroll([0, 0], 5);", "unroll([0, 0], 5);"),
]


@pytest.mark.parametrize("stem,seq,step", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_unrolled_target_is_recovered_and_replays(stem, seq, step):
    r = _recovered(_session(stem, seq))
    text = r.text(comments=False)
    assert step in text
    raw = whitebox(_session(stem).original, _session(stem, seq).current.schedule,
                   simplify=False)
    assert any(st.name == "unroll" for st in raw.raw)


@pytest.mark.slow
def test_the_largest_factor_is_recovered():
    r = _recovered(_session("gemm", "unroll([0, 0], 16);"))
    assert r.text(comments=False) == "unroll([0, 0], 16);\n"


def test_the_unroll_comes_first_and_says_what_it_does():
    r = _recovered(_session("gemm", "unroll([0, 0], 3);"))
    assert r.steps[0].name == "unroll" and r.steps[0].args[1:] == (3,)
    assert "unroll the loop by 3" in r.text()


def _constant_kernel(tmp_path: Path) -> Path:
    src = tmp_path / "k.c"
    src.write_text("""#include <stdio.h>
int main(void)
{
  static double a[16], b[16], c[16];
  int i;
  for (i = 0; i < 16; i++)
    b[i] = i * 0.5;
#pragma scop
  for (i = 0; i < 16; i++) {
    a[i] = b[i] * 2.0;
    c[i] = b[i] + 1.0;
  }
#pragma endscop
  for (i = 0; i < 16; i++)
    printf("%.17g %.17g %.17g\\n", a[i], b[i], c[i]);
  return 0;
}
""")
    return src


@pytest.mark.parametrize("seq,step", [
    ("unroll_noepilog([0], 4);", "unroll_noepilog([0], 4);"),
    ("unroll_noepilog([0], 2); reorder([0], [1, 0, 3, 2]);", "unroll_noepilog([0], 2);"),
    ("unroll([0], 4);", "unroll([0], 4);"),
])
def test_unroll_noepilog_is_told_from_unroll(tmp_path, seq, step):
    # 16 iterations: unroll_noepilog by 4 leaves no epilog, unroll by 4 has
    # one (Clay's: the last 4 iterations); the recovery tells them apart
    b = clayx.load(_constant_kernel(tmp_path))
    s = clayx.Session(b.original, others=b.others)
    s.apply(seq)
    r = _recovered(s)
    assert step in r.text(comments=False)
    other = "unroll(" if step.startswith("unroll_noepilog") else "unroll_noepilog("
    assert other not in r.text(comments=False)


def test_symbolic_unroll_gives_the_directive_s_parts():
    # Sched.unroll (what the recovery and simplification follow) against
    # clayx's unroll directive, dates compared exactly
    for stem, pre, loop, f, epilog in [("gemm", "", (0, 0), 3, True),
                                       ("jacobi-1d", "", (0,), 4, True),
                                       ("lu", "", (0, 1, 0), 4, True),
                                       ("syrk", "fuse([0]);", (0, 0), 3, True),
                                       ("seidel-2d", "shift([0, 0, 0, 0], 3, {}, -2);",
                                        (0, 0, 0), 3, True)]:
        s = _session(stem, pre)
        base = s.current
        s.apply(f"{'unroll' if epilog else 'unroll_noepilog'}({list(loop)}, {f});")
        divs = Divs()
        S = symbolic(base, base.schedule, divs, tags=True)
        S.unroll(loop, f, lambda r, m: 1000 + 10 * r.tag + m, epilog)
        got = Oracle(base, None, divs).schedule(S)
        assert same_dates(base, got, s.current.schedule), (stem, loop, f)


def test_strides_that_no_unroll_makes_are_refused():
    # bicg's first loop split by parity (even iterations, then the odd
    # ones): legal, strided, but not what any unroll makes
    s = _session("bicg")
    rels = list(s.current.schedule.relations)
    ctx = rels[0].map.get_ctx()
    new = [Relation("S0", (0, 0), isl.Map("[m, n] -> { S0[i] -> [0, i, 0] : i mod 2 = 0 }",
                                          context=ctx)),
           Relation("S0", (1, 0), isl.Map("[m, n] -> { S0[i] -> [1, i, 0] : i mod 2 = 1 }",
                                          context=ctx))]
    new += [r.with_beta((r.beta[0] + 1,) + r.beta[1:]) for r in rels[1:]]
    with pytest.raises(WhiteboxError, match="not the main part, copies and epilog of an unroll"):
        whitebox(s.original, ClaySchedule(tuple(new)))


@pytest.mark.slow
def test_recovered_unroll_code_runs_equal_to_the_original(tmp_path):
    # the recovered script's code (unrolled main loop, copies, epilog),
    # compiled and run at sizes whose trip counts leave 0, 1, 2 iterations
    # to the epilog: every output array bit for bit the original's
    from clayx.verify import verify
    if shutil.which("gcc") is None:
        pytest.skip("gcc not available")
    for stem, seq, sizes in [
            ("gemm", "unroll([0, 0], 3);", [{"NI": 7, "NJ": 9, "NK": 5},
                                            {"NI": 6, "NJ": 10, "NK": 4}]),
            ("seidel-2d", "shift([0, 0, 0, 0], 3, {}, -2); unroll([0, 0, 0], 3); "
                          "fuse([0, 0, 0]);", [{"TSTEPS": 3, "N": 11}, {"TSTEPS": 2, "N": 13}]),
            ("jacobi-1d", "unroll([0], 4); peel([0, 2], {1, -1 | -2});",
             [{"TSTEPS": 9, "N": 12}, {"TSTEPS": 6, "N": 10}])]:
        s = _session(stem, seq)
        r = _recovered(s)
        replayed = clayx.Session(s.original, others=s.others)
        replayed.apply(r.text(comments=False))
        gen = tmp_path / f"{stem}_gen.c"
        gen.write_text(replayed.code("c"))
        for k, d in enumerate(sizes):
            res = verify(EXAMPLES / f"{stem}.c", gen, d, workdir=tmp_path / f"b_{stem}_{k}")
            assert res.ok and res.values > 0, (stem, d, res)


def test_an_empty_split_half_of_tile_loops_is_no_unroll_part():
    """An index-set split of tile loops whose second half is empty (fuzz
    seed 16114): the empty half's chunks are read as divs, as before unrolls
    were recovered, not as an unroll's strided part (that refused it)."""
    r = _recovered(_session("bicg", "tile([1], 1, 1, 16); tile([1, 0], 1, 1, 4); "
                                    "split([1, 0, 0, 0], 1); iss([1], {1, -1, 0 | | 0, -1 | -1});"))
    assert "unroll" not in r.text(comments=False)
