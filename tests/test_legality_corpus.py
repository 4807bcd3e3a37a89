"""The legality corpus: one table of (kernel, Clay script, verdict) cases.

Every row was reasoned out from the dependences before it was run (the
comment on the row says why).  Each script is applied through the public
session API, all-or-nothing:

- an ``illegal`` row must raise :class:`~clayx.errors.LegalityError` whose
  message names the dependence kind and array given on the row and shows a
  witness pair of instances with parameter values, and leave the session
  unchanged;
- a ``legal`` row must be accepted and keep, in a concrete run at small
  sizes, every pair of conflicting accesses in order (:mod:`oracle`, which
  shares nothing with clayx's analyses), and (slow test) its generated C,
  written next to a copy of the source, must compile, run and print exactly
  what the original prints (:func:`clayx.verify.verify`);
- an ``illegal`` row that reorders instances, forced through with
  ``unchecked``, runs such a pair out of order at those sizes (the refusal
  is no false alarm), and (slow test) prints something else.

Kernels are ``examples/<stem>.c`` or the small programs written below
(``chain``: ``a[i] = a[i-1]``; ``diag``: ``b[i][j] = b[i-1][j+1]``;
``fusion``: a producer loop and a consumer loop reading ``a[i+1]``).
Sign convention: shift and skew substitute, so ``skew(β, 2, 1, -1)`` is the
wavefront ``j' = j + i`` and ``shift(β, d, {}, -1)`` delays a loop by one.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

import clayx
from clayx.errors import LegalityError, MismatchError
from clayx.verify import SMALL_SIZES, verify

from oracle import broken_pairs

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

_HEAD = """#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 20
#endif
"""

#: Small programs written for the corpus: name -> C source.  Each prints
#: every array it changes in ``begin dump`` / ``end dump`` sections.
INLINE: dict[str, str] = {
    # S0(i) reads a[i-1] written by S0(i-1): one RAW of distance 1 on a.
    "chain": _HEAD + r"""
static double a[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) a[i] = 0.5 * i + 1.0;
#pragma scop
  for (i = 1; i < N; i++)
    a[i] = a[i - 1] * 0.75 + 1.0;
#pragma endscop
  printf("begin dump: a\n");
  for (i = 0; i < N; i++) printf("%.17g ", a[i]);
  printf("\nend   dump: a\n");
  return 0;
}
""",
    # S0(i, j) reads b[i-1][j+1] written by S0(i-1, j+1): RAW of distance (1, -1).
    "diag": _HEAD + r"""
static double b[N][N];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) b[i][j] = i * N + j + 1.0;
#pragma scop
  for (i = 1; i < N; i++)
    for (j = 0; j < N - 1; j++)
      b[i][j] = b[i - 1][j + 1] * 0.5 + j;
#pragma endscop
  printf("begin dump: b\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", b[i][j]);
  printf("\nend   dump: b\n");
  return 0;
}
""",
    # S1(i) reads a[i+1], written by S0(i+1) in the first loop: RAW on a of
    # "distance +1" if the loops are fused without a shift.
    "fusion": _HEAD + r"""
static double a[N], b[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) { a[i] = -1.0; b[i] = -2.0; }
#pragma scop
  for (i = 0; i < N; i++)
    a[i] = 0.5 * i + 1.0;
  for (i = 0; i < N - 1; i++)
    b[i] = a[i + 1] * 2.0 + a[i];
#pragma endscop
  printf("begin dump: a\n");
  for (i = 0; i < N; i++) printf("%.17g ", a[i]);
  printf("\nend   dump: a\nbegin dump: b\n");
  for (i = 0; i < N; i++) printf("%.17g ", b[i]);
  printf("\nend   dump: b\n");
  return 0;
}
""",
    # examples/seidel-2d.c's scop, standalone, with a non-polynomial initial
    # field (PolyBench's bilinear one is a fixed point of the 9-point average
    # up to rounding, so a wrong order would hardly change the output).
    "seidel": _HEAD + r"""
#ifndef TSTEPS
# define TSTEPS 3
#endif
static double A[N][N];
int main(void) {
  int t, i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) A[i][j] = (i * i * 7 + j * j * j) % 19;
#pragma scop
  for (t = 0; t <= TSTEPS - 1; t++)
    for (i = 1; i <= N - 2; i++)
      for (j = 1; j <= N - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
  printf("begin dump: A\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", A[i][j]);
  printf("\nend   dump: A\n");
  return 0;
}
""",
}

#: ``-D`` sizes for the inline programs.
INLINE_SIZES: dict[str, dict[str, int]] = {"chain": {"N": 13}, "diag": {"N": 11},
                                           "fusion": {"N": 12}, "seidel": {"N": 10, "TSTEPS": 3}}


@dataclass(frozen=True)
class Case:
    """One corpus row: ``kernel`` an ``examples/`` stem or an :data:`INLINE`
    name; ``script`` Clay script text; ``verdict`` ``legal``/``illegal``;
    for illegal rows the dependence ``kind`` and ``array`` the refusal names."""

    id: str
    kernel: str
    script: str
    verdict: str
    kind: str = ""
    array: str = ""


def L(id: str, kernel: str, script: str) -> Case:
    """A legal row."""
    return Case(id, kernel, script, "legal")


def X(id: str, kernel: str, script: str, kind: str, array: str) -> Case:
    """An illegal row: the refusal must name ``kind`` on ``array``."""
    return Case(id, kernel, script, "illegal", kind, array)


CASES: list[Case] = [
    # --- the two false accepts of Clay's own checker -------------------------------
    # reversing i runs S0(i) before S0(i-1), whose a[i-1] it reads.
    X("chain-reverse", "chain", "reverse([0], 1);", "RAW", "a"),
    # tile loop of j outermost: for j = 4k+3 the source (i-1, j+1) lies in tile
    # k+1, after the sink (i, j) in tile k.
    X("diag-tile-j-outer", "diag", "tile([0,0], 2, 1, 4);", "RAW", "b"),
    # after j' = j + i the distance is (1, 0): both loops carry nothing
    # backwards, the band is permutable and the tile is legal.
    L("diag-skew-tile-j-outer", "diag", "skew([0], 2, 1, -1); tile([0,0], 2, 1, 4);"),

    # --- reverse ------------------------------------------------------------------
    # gemm's i loop carries nothing: every C[i][*] is private to iteration i.
    L("gemm-reverse-i", "gemm", "reverse([0], 1);"),
    # k carries the accumulation C[i][j] += … (RAW of distance 1 on k).
    X("gemm-reverse-k", "gemm", "reverse([0,1], 2);", "RAW", "C"),
    # jacobi-1d: within one t, the instances of S0 are independent (S0 writes B,
    # reads A only).
    L("jacobi-1d-reverse-inner", "jacobi-1d", "reverse([0,0], 2);"),
    # trmm: S0(i, j, k) reads B[k][j] for k > i before row k is updated; with i
    # reversed row k is updated first.
    X("trmm-reverse-i", "trmm", "reverse([0], 1);", "WAR", "B"),
    # beamforming: a_r[i] += … over j is a reduction carried by j.
    X("beamforming-reverse-j", "beamforming", "reverse([2,2], 2);", "RAW", "a_r"),

    # --- interchange --------------------------------------------------------------
    # (1, -1) becomes (-1, 1): the sink runs first.
    X("diag-interchange", "diag", "interchange([0], 1, 2);", "RAW", "b"),
    # after j' = j + i the distance (1, 0) becomes (0, 1): legal.
    L("diag-skew-interchange", "diag", "skew([0], 2, 1, -1); interchange([0], 1, 2);"),
    # gemm k <-> j for S1: for each (i, j) the k order is kept; S0(i, j) still
    # precedes S1(i, *, j) by β.
    L("gemm-interchange-kj", "gemm", "interchange([0,1], 2, 3);"),
    # syrk: the same k <-> j interchange on the triangular j <= i.
    L("syrk-interchange-kj", "syrk", "interchange([0,1], 2, 3);"),
    # mvt: x2[i] accumulates over j; j outermost keeps the j order per i.
    L("mvt-interchange", "mvt", "interchange([1], 1, 2);"),
    # trmm: every access of iteration (i, j, …) is in column j: j carries
    # nothing, so i <-> j is legal.
    L("trmm-interchange-ij", "trmm", "interchange([0], 1, 2);"),
    # jacobi-2d: S0(t+1, i, j) reads A[i+1][j] from S1(t, i+1, j): distance
    # (1, -1, 0) becomes (-1, 1, 0) with t and i swapped.
    X("jacobi-2d-interchange-ti", "jacobi-2d", "interchange([0], 1, 2);", "RAW", "A"),

    # --- fuse / split / split_children---------------------------------------------------
    # fused, S1(i) reads a[i+1] before S0(i+1) writes it.
    X("fusion-fuse", "fusion", "fuse([0]);", "RAW", "a"),
    # delaying S1 by one iteration (date i+1) puts it after S0(i+1): legal.
    L("fusion-shift-fuse", "fusion", "shift([1], 1, {}, -1); fuse([0]);"),
    # shifting the wrong way (date i-1) keeps the break.
    X("fusion-shift-wrong-fuse", "fusion", "shift([1], 1, {}, 1); fuse([0]);", "RAW", "a"),
    # atax: fusing the y[i] = 0 loop into the i loop zeroes y[j] (j > i) after
    # S3(i, j) accumulated into it.
    X("atax-fuse", "atax", "fuse([0]);", "RAW", "y"),
    # mvt: the two nests share only reads of A: fusing both levels is legal.
    L("mvt-fuse-fuse", "mvt", "fuse([0]); fuse([0,0]);"),
    # 2mm: row i of D needs row i of tmp only, done earlier in iteration i.
    L("2mm-fuse-i", "2mm", "fuse([0]);"),
    # …but fusing j too makes D[i][j] read tmp[i][k] for k > j, not computed yet.
    X("2mm-fuse-i-j", "2mm", "fuse([0]); fuse([0,0]);", "RAW", "tmp"),
    # jacobi-1d: fusing the two i loops: S1(t, i) reads B[i+1] before S0(t, i+1).
    X("jacobi-1d-fuse", "jacobi-1d", "fuse([0,0]);", "RAW", "B"),
    # delaying S1 by one (date i+1) repairs it; the WAR S0(t, i+1) -> S1(t, i)
    # on A[i] meets at date i+1 with S0 first.
    L("jacobi-1d-shift-fuse", "jacobi-1d", "shift([0,1], 2, {}, -1); fuse([0,0]);"),
    # gemm: all S0(i, *) before all S1(i', …): the only S0/S1 dependences are
    # within the same i.
    L("gemm-split", "gemm", "split([0,0], 1);"),
    # atax: distributing after the tmp loop: S3(i) needs tmp[i], done in the
    # first loop; y is touched by S3 only.
    L("atax-split-children", "atax", "split_children([1], 2);"),
    # the same with split's spelling.
    L("atax-split", "atax", "split([1,1,0], 1);"),
    # jacobi-1d: S0(t+1) reads A written by S1(t); split puts every S1 after every S0.
    X("jacobi-1d-split-t", "jacobi-1d", "split([0,0,0], 1);", "RAW", "A"),
    # jacobi-2d likewise with split_children.
    X("jacobi-2d-split-children-t", "jacobi-2d", "split_children([0], 1);", "RAW", "A"),
    # beamforming: S6/S7 need a_r[i], a_i[i] only, final after the j loop.
    L("beamforming-split-after-j", "beamforming", "split([2,2,1], 1);"),
    # beamforming: S7(i) reads val before S6(i+1) overwrites it (WAR on val);
    # split, every S6 runs before every S7.  (The RAW S6(i) -> S7(i) keeps its
    # order: it is the WAR that breaks.)
    X("beamforming-split-val", "beamforming", "split([2,3], 1);", "WAR", "val"),

    # --- reorder ------------------------------------------------------------------------------
    # mvt: the two nests are independent.
    L("mvt-reorder", "mvt", "reorder([], [1, 0]);"),
    # 3mm: E and F are independent; G comes last.
    L("3mm-reorder-EF", "3mm", "reorder([], [1, 0, 2]);"),
    # 3mm: G = E * F moved before F.
    X("3mm-reorder-GF", "3mm", "reorder([], [0, 2, 1]);", "RAW", "F"),
    # atax: the y update (S3) before the tmp loop (S2) reads tmp[i] too early.
    X("atax-reorder-inner", "atax", "reorder([1], [0, 2, 1]);", "RAW", "tmp"),

    # --- tiling and stripmining --------------------------------------------------------------
    # stripmining a whole loop never changes the order.
    L("chain-stripmine", "chain", "stripmine([0], 1, 4);"),
    # seidel-2d: tile loop of i outside t: the dependence (1, -1, 0) crosses
    # tiles backwards (the sink's i tile is smaller).
    X("seidel-tile-i-outer", "seidel", "tile([0,0,0], 2, 1, 4);", "RAW", "A"),
    # the same on examples/seidel-2d.c itself.
    X("seidel-2d-tile-i-outer", "seidel-2d", "tile([0,0,0], 2, 1, 4);", "RAW", "A"),
    # after i' = i + t every distance has di' >= 0 (dt >= 0 already): (t, i') is
    # permutable and the tile loop may go outermost.
    L("seidel-skew-tile", "seidel", "skew([0], 2, 1, -1); tile([0,0,0], 2, 1, 4);"),
    # Pluto's (t, t + i, 2t + i + j): every distance is >= 0 in all three, so
    # i' and j' can both be tiled with their tile loops outside t (tile swaps
    # the tile loop of j' with t; the interchange puts t back above i').
    L("seidel-wavefront-tile-2d", "seidel",
      "skew([0], 2, 1, -1); skew([0], 3, 1, -1); skew([0], 3, 2, -1);"
      " tile([0,0,0], 2, 1, 4); tile([0,0,0,0], 4, 2, 4); interchange([0,0,0,0,0], 3, 4);"),
    # with j' = j + t only, the dependence (0, 1, -1) (row i-1, column j+1,
    # already updated in this t) has dj' = -1: tiling j' outside i breaks it.
    X("seidel-skew-tile-j-early", "seidel",
      "skew([0], 2, 1, -1); skew([0], 3, 1, -1); tile([0,0,0], 3, 2, 4);", "RAW", "A"),
    # syrk: tile j (triangular) and hoist its tile loop over k: (i, j) keeps its
    # k order.
    L("syrk-tile-j-over-k", "syrk", "tile([0,1], 3, 2, 4);"),
    # gemm: tiling the outer i loop of both statements is a stripmine: legal.
    L("gemm-tile-i", "gemm", "tile([0], 1, 1, 4);"),
    # gemm: the (k, j) band of S1 is permutable (k carries only the reduction,
    # j nothing): tile both, tile loops outside, tiles of k in order.
    L("gemm-tile-kj", "gemm", "tile([0,1], 2, 2, 4); tile([0,1,0,0], 4, 3, 4);"),

    # --- shift / skew -----------------------------------------------------------------------
    # a uniform shift of the only loop changes no order.
    L("chain-shift", "chain", "shift([0], 1, {}, 3);"),
    # jacobi-1d: S0's inner loop shifted by the parameter N alone: it is its
    # own loop inside t.
    L("jacobi-1d-shift-param", "jacobi-1d", "shift([0,0], 2, {0 | 1}, 0);"),
    # jacobi-1d: S1's t moved one earlier (date t-1) runs S1(t) before the S0(t)
    # that produces its B.
    X("jacobi-1d-shift-t", "jacobi-1d", "shift([0,1], 1, {}, 1);", "RAW", "B"),
    # seidel-2d: t' = t + i makes the dependence (1, -1, 0) (0, -1, 0).
    X("seidel-skew-t-by-i", "seidel", "skew([0], 1, 2, -1);", "RAW", "A"),

    # --- iss / peel / collapse / embed ------------------------------------------------------
    # seidel-2d: Clay's iss keeps j >= 4 (the complement of j <= 3) first and
    # moves j <= 3 after it: S(t, i, 4) reads A[i][3] written by S(t, i, 3),
    # which now runs after it.
    X("seidel-iss-backwards", "seidel", "iss([0,0], {0, 0, -1 | | 0, 0 | 3});",
      "RAW", "A"),
    # j <= 3 (the complement of j >= 4) first, then j >= 4: the j order is kept.
    L("seidel-iss", "seidel", "iss([0,0], {0, 0, 1 | | 0, 0 | -4});"),
    # lu: split i at 4 (the {I | P | c} form: -i + 4 >= 0) and merge back.
    L("lu-iss-collapse", "lu", "iss([0], {-1 | 0 | 4}); collapse([0]);"),
    # chain: Clay's peel: i >= 3 goes to the second loop, i <= 2 stays first.
    L("chain-peel-front", "chain", "peel([0], {-3});"),
    # chain: the same, then the loops swapped: a[3] is computed from the stale a[2].
    X("chain-peel-back-first", "chain", "peel([0], {0 | -3}); reorder([], [1, 0]);",
      "RAW", "a"),
    # beamforming: i >= 2 to a second loop, so i <= 1 is peeled off the
    # front ({P | c} with two parameters N, M).
    L("beamforming-peel", "beamforming", "peel([2], {0, 0 | -2});"),
    # gemm: a one-iteration loop around S0 changes no order; undo it.
    L("gemm-embed-unembed", "gemm", "embed([0,0,0]); unembed([0,0,0,0]);"),
    # gemm: S1 alone in a one-iteration loop inside j: same dates, one more level.
    L("gemm-embed", "gemm", "embed([0,1,0,0]);"),

    # --- parallel marks ---------------------------------------------------------------------
    # chain: i carries the RAW on a.
    X("chain-parallelize", "chain", "parallelize([0]);", "RAW", "a"),
    # diag: the RAW (1, -1) is carried by i, not by j.
    L("diag-parallelize-j", "diag", "parallelize([0,0], 2);"),
    # gemm: the k loop carries the reduction.
    X("gemm-parallelize-k", "gemm", "parallelize([0,1], 2);", "RAW", "C"),
    # gemm: i carries nothing.
    L("gemm-parallelize-i", "gemm", "parallelize([0], 1); unroll([0,1,0], 4);"),
    # gemm: j of S1 carries nothing; after k <-> j the mark sits on the k level,
    # which now carries the reduction.
    X("gemm-parallel-then-interchange", "gemm",
      "parallelize([0,1,0], 3); interchange([0,1], 2, 3);", "RAW", "C"),
    # jacobi-1d: t carries S1(t) -> S0(t+1) on A.
    X("jacobi-1d-parallelize-t", "jacobi-1d", "parallelize([0], 1);", "RAW", "A"),
    L("jacobi-1d-parallelize-i", "jacobi-1d", "parallelize([0,0], 2); parallelize([0,1], 2);"),
    # trmm: j carries nothing.
    L("trmm-parallelize-j", "trmm", "parallelize([0,0], 2);"),
    # lu: i carries the elimination (row i reads rows k < i).
    X("lu-parallelize-i", "lu", "parallelize([0], 1);", "RAW", "A"),
    # bicg: the s[j] += r[i] * A[i][j] accumulation is carried by i.
    X("bicg-parallelize-i", "bicg", "parallelize([1], 1);", "RAW", "s"),
    # beamforming: the running maximum t_val (read and written by S7) is
    # carried by i (as are val, overwritten in every iteration, and t).
    X("beamforming-parallelize-i", "beamforming", "parallelize([2], 1);", "RAW", "t_val"),
]

_WITNESS = re.compile(r"e\.g\. \w+ = -?\d+.*: S\d+\[[^\]]*\] -> S\d+\[[^\]]*\]")


def _source(case: Case, tmp_path: Path) -> tuple[Path, dict[str, int]]:
    """A copy of the row's kernel in ``tmp_path`` and its ``-D`` sizes."""
    if case.kernel in INLINE:
        text, sizes = INLINE[case.kernel], INLINE_SIZES[case.kernel]
    else:
        text = (EXAMPLES / f"{case.kernel}.c").read_text()
        sizes = SMALL_SIZES[case.kernel]
    path = tmp_path / f"{case.kernel}.c"
    path.write_text(text)
    return path, sizes


def test_corpus_shape():
    """The table is big enough, ids are unique, every row is well formed."""
    assert len(CASES) >= 35
    assert len({c.id for c in CASES}) == len(CASES)
    verdicts = {c.verdict for c in CASES}
    assert verdicts == {"legal", "illegal"}
    for c in CASES:
        assert c.kernel in INLINE or (EXAMPLES / f"{c.kernel}.c").is_file(), c.id
        assert bool(c.kind and c.array) == (c.verdict == "illegal"), c.id


#: Parameter values of the oracle's concrete runs.
ORACLE_SIZE = 6


def _broken(s) -> set:
    """The conflicting pairs of a concrete run of the original that the
    current schedule runs out of order (every parameter ``ORACLE_SIZE``)."""
    return broken_pairs(s.original, s.current, {p: ORACLE_SIZE for p in s.original.params})


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_verdict(case: Case, tmp_path):
    """Apply the row's script through a session; the verdict must match."""
    path, _ = _source(case, tmp_path)
    s = clayx.load(path)
    if case.verdict == "illegal":
        with pytest.raises(LegalityError) as e:
            s.apply(case.script)
        msg = str(e.value)
        assert f"{case.kind} on {case.array}:" in msg, msg
        assert _WITNESS.search(msg), msg
        assert e.value.total >= len(e.value.violations) >= 1
        assert (case.kind, case.array) in {(v.dependence.kind, v.dependence.array)
                                           for v in e.value.violations}
        assert s.entries == () and s.current is s.original
        assert str(s.script) == ""
        if "parallelize" not in case.script:
            steps = [x.strip() for x in case.script.split(";") if x.strip()]
            s.apply(" ".join(f"unchecked {x};" for x in steps))
            assert _broken(s), "refused, yet a run keeps every conflicting pair in order"
    else:
        new = s.apply(case.script)
        assert new and len(s.entries) == len(new)
        assert s.current is not s.original and not s.has_unchecked
        assert not _broken(s)


LEGAL = [c for c in CASES if c.verdict == "legal"]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("case", LEGAL, ids=[c.id for c in LEGAL])
def test_legal_code_runs_the_same(case: Case, tmp_path):
    """A legal row's generated program prints exactly what the original does."""
    path, sizes = _source(case, tmp_path)
    s = clayx.load(path)
    s.apply(case.script)
    gen = tmp_path / f"{case.kernel}_gen.c"
    gen.write_text(s.code("c"))
    res = verify(path, gen, sizes, workdir=tmp_path / "build")
    assert res.ok and res.values > 0, res


#: Illegal rows whose refused step changes dates (not only a parallel mark,
#: which plain C ignores): applied without the check, they must print
#: something else than the original -- the refusal was not a false alarm.
REORDERING = [c for c in CASES if c.verdict == "illegal" and "parallelize" not in c.script]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("case", REORDERING, ids=[c.id for c in REORDERING])
def test_illegal_rows_change_the_output(case: Case, tmp_path):
    """Forced through with ``unchecked``, an illegal row's code computes a
    different result (at the small sizes), so the verdict is a real break."""
    path, sizes = _source(case, tmp_path)
    s = clayx.load(path)
    steps = [x.strip() for x in case.script.split(";") if x.strip()]
    s.apply(" ".join(f"unchecked {x};" for x in steps))
    assert s.has_unchecked and not s.legal
    gen = tmp_path / f"{case.kernel}_gen.c"
    gen.write_text(s.code("c", unchecked=True))
    with pytest.raises(MismatchError):
        verify(path, gen, sizes, workdir=tmp_path / "build")
