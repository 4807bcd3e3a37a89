"""Whitebox recovery of wavefronts of whole loop nests, as isl's raw
Feautrier schedule trees (``ppcg --save-schedule``, clayx's
``auto.schedule(..., "feautrier").tree`` before its post-processing) and
Pluto-like time skews give them (issue 9: the sweep of the examples' auto
schedules given as text refused cholesky's, lu's and deriche's raw trees
with "cannot order the steps that give the relations under [0] their
target dimension 1 legally").

* cholesky (``i + j + k``, ``i + 2j``, ``2i + k``, ``3i``) and lu: each
  statement's own plan (a ``reshape``, a skew of another dimension) is
  illegal alone, in every order.  The last try through one model plan on
  the whole loop (``through_model``) now embeds the statements shallower
  than the model first (``_deepened``): their new dimension is aligned
  (reshaped) so that the model's skew gives them their target date too.
* deriche: a row's initializations rotated to the end of the previous
  row's iteration, *inside* the fused inner loop (at ``j = h``): the
  rotation (``rotate``) now orders the loop's children by the target's
  dates there (``_sort_by_dates``), and shifts the loop by the parameters
  common to all its plans first (``w`` of the column pass,
  ``_common_parameters``).
* a wavefront ``[t, i] -> [2t + i, t]`` of jacobi-1d (the second
  statement one later), jacobi-2d: the statements' skews, then one
  ``interchange`` of the loop once its loops are fused (``fused_tail``);
  the loops as they were do not fuse legally, and the interchange of the
  distributed ones runs one statement's wavefront before the other's.

Each recovered script, simplified or not, replays (every step checked) to
the target's dates; the new tries are checked alone (they change nothing
when they do not apply), and recovered scripts are compiled and run
against the original."""

from __future__ import annotations

from pathlib import Path

import pytest

import clayx
from clayx.whitebox import Oracle, symbolic, whitebox
from clayx.whitebox.model import Aff, Divs
from clayx.whitebox.steps import Recorder
from clayx.whitebox.targets import read_target, start_of

from whitebox_cases import assert_target_code_runs, core_module, replays, session, tiling_module

#: isl's Feautrier schedule trees (today's ``auto.schedule(scop,
#: "feautrier").tree.to_str()``), fixed here so that a change of isl's
#: scheduler does not change the cases.
CHOLESKY_TREE = (
    '{ domain: "[N] -> { S3[i] : 0 <= i < N; S2[i, k] : 0 <= i < N and 0 <= k < i; '
    'S0[i, j, k] : i < N and 0 <= j < i and 0 <= k < j; S1[i, j] : 0 <= i < N and 0 <= j < i }", '
    'child: { schedule: "[N] -> [{ S3[i] -> [(3i)]; S2[i, k] -> [(2i + k)]; '
    'S0[i, j, k] -> [(i + j + k)]; S1[i, j] -> [(i + 2j)] }]", child: { set: [ '
    '{ filter: "[N] -> { S1[i, j] }", child: { schedule: "[N] -> [{ S1[i, j] -> [(i)] }]", '
    'permutable: 1, coincident: [ 1 ] } }, { filter: "[N] -> { S0[i, j, k] }", child: { '
    'schedule: "[N] -> [{ S0[i, j, k] -> [(i)] }, { S0[i, j, k] -> [(j)] }]", permutable: 1, '
    'coincident: [ 1, 1 ] } }, { filter: "[N] -> { S2[i, k] }", child: { schedule: '
    '"[N] -> [{ S2[i, k] -> [(i)] }]", permutable: 1, coincident: [ 1 ] } }, '
    '{ filter: "[N] -> { S3[i] }" } ] } } }')
LU_TREE = (
    '{ domain: "[N] -> { S2[i, j, k] : i >= 0 and i <= j < N and 0 <= k < i; '
    'S0[i, j, k] : i < N and 0 <= j < i and 0 <= k < j; S1[i, j] : 0 <= i < N and 0 <= j < i }", '
    'child: { schedule: "[N] -> [{ S2[i, j, k] -> [(i + k)]; S0[i, j, k] -> [(j + k)]; '
    'S1[i, j] -> [(2j)] }]", child: { set: [ { filter: "[N] -> { S1[i, j] }", child: { '
    'schedule: "[N] -> [{ S1[i, j] -> [(i)] }]", permutable: 1, coincident: [ 1 ] } }, '
    '{ filter: "[N] -> { S2[i, j, k]; S0[i, j, k] }", child: { schedule: "[N] -> '
    '[{ S2[i, j, k] -> [(i)]; S0[i, j, k] -> [(j)] }, { S2[i, j, k] -> [(j)]; '
    'S0[i, j, k] -> [(i)] }]", permutable: 1, coincident: [ 1, 1 ] } } ] } } }')
JACOBI1D_WAVE = "{ S0[t, i] -> [0, 2t + i, 0, t, 0]; S1[t, i] -> [0, 2t + i + 1, 0, t, 1] }"
JACOBI2D_WAVE = ("{ S0[t, i, j] -> [0, 2t + i, 0, t, 0, j, 0]; "
                 "S1[t, i, j] -> [0, 2t + i + 1, 0, t, 0, j, 1] }")

#: (kernel, target, the script recovered today).  Each was refused on main
#: before.
CASES = [
    ("cholesky", CHOLESKY_TREE,
     "embed([0, 0, 1]);\nembed([0, 1, 0]);\nembed([0, 2]);\nembed([0, 2, 0]);\n"
     "reshape([0, 0, 1], 3, 2, -1);\nreshape([0, 1], 3, 1, -1);\nreshape([0, 2], 3, 1, -2);\n"
     "skew([0], 3, 1, -1);\nskew([0], 3, 2, -1);\ninterchange([0], 2, 3);\n"
     "interchange([0], 1, 2);\nreorder([0, 0], [1, 0]);\nsplit([0, 0, 0], 2);\n"
     "unembed([0, 3, 0, 0]);\nunembed([0, 3, 0]);\nunembed([0, 0, 0, 0]);\n"
     "unembed([0, 2, 0, 0]);\n"),
    ("lu", LU_TREE,
     "embed([0, 0, 1]);\nreshape([0, 0, 1], 3, 2, -1);\ninterchange([0, 1], 1, 2);\n"
     "skew([0], 3, 2, -1);\ninterchange([0], 2, 3);\ninterchange([0], 1, 2);\n"
     "reorder([0, 0], [1, 0]);\nsplit([0, 0, 0], 2);\nfuse([0, 1]);\n"
     "interchange([0, 1], 2, 3);\nunembed([0, 0, 0, 0]);\nfuse([0, 1, 0]);\n"),
    ("jacobi-1d", JACOBI1D_WAVE,
     "skew([0], 2, 1, -2);\nshift([0, 1], 2, {}, -1);\nfuse([0, 0]);\ninterchange([0], 1, 2);\n"),
    ("jacobi-2d", JACOBI2D_WAVE,
     "skew([0], 2, 1, -2);\nshift([0, 1], 2, {}, -1);\nfuse([0, 0]);\ninterchange([0], 1, 2);\n"
     "fuse([0, 0, 0]);\n"),
]


@pytest.mark.parametrize("stem,target,want", CASES, ids=[c[0] for c in CASES])
def test_wavefront_is_recovered_and_replays(stem, target, want):
    sched = read_target(target, session(stem).original)
    r = whitebox(session(stem).original, target)
    assert r.exact
    assert r.text(comments=False) == want
    assert replays(stem, want, sched)
    # the sequence before simplification too (one recovery: the careful
    # retry of cholesky and lu costs as much as the first)
    raw = "".join(st.text(r.params) + "\n" for st in r.raw)
    assert replays(stem, raw, sched)


def _core(original, target, careful: bool = False):
    """The recovery's state before part 3 (:meth:`Core.process`), as
    :func:`recover` makes it, for ``target`` (any text :func:`whitebox`
    reads) on the SCoP ``original``; ``careful``: the tiling reduced as in
    careful mode (cholesky's ``3i`` is no grain there)."""
    scop, _, deps = start_of(original, None)
    divs = Divs()
    O = symbolic(scop, scop.schedule, divs, tags=False)
    T = symbolic(scop, read_target(target, scop), divs, tags=True)
    oracle = Oracle(scop, deps, divs)
    core_T = T.copy()
    tiling_module.reduce(core_T, oracle, careful, False)
    core = core_module.Core(Recorder(O), core_T, oracle)
    core.split_parts()
    _embed_as_target(core)
    return core


def _embed_as_target(core) -> None:
    """Embed the current relations the target has deeper (as :func:`recover`)."""
    for r in list(core.C.rels):
        for _ in range(core.T.by_tag(r.tag).depth - r.depth):
            core.rec.do("embed", core.C.by_tag(r.tag).beta)


def _state(core):
    return [(r.beta, list(r.alphas)) for r in core.C.rels], len(core.rec.steps)


def _at_target(core, prefix, d) -> bool:
    return all(r.alphas[d - 1] == core.T.by_tag(r.tag).alphas[d - 1]
               for r in core.C.under(prefix))


def test_through_model_embeds_the_shallower_statements():
    core = _core(session("cholesky").original, CHOLESKY_TREE, careful=True)
    n = len(core.rec.steps)
    assert core.through_model((0,), 1)
    names = [st.name for st in core.rec.steps[n:]]
    assert names == ["embed"] * 4 + ["reshape"] * 3 + ["skew", "skew", "interchange",
                                                       "interchange"]
    assert _at_target(core, (0,), 1) and core.oracle(core.C)


def test_through_model_without_the_embedding_finds_nothing(monkeypatch):
    core = _core(session("cholesky").original, CHOLESKY_TREE, careful=True)
    before = _state(core)
    # every model plan reshapes the statements one at a time otherwise
    monkeypatch.setattr(core_module.Core, "_deepened", lambda self, c, depth: False)
    assert not core.through_model((0,), 1)
    assert _state(core) == before
    monkeypatch.undo()
    core.oracle = None
    assert not core.through_model((0,), 1)
    assert _state(core) == before


def test_fused_tail_skews_then_fuses_then_interchanges():
    core = _core(session("jacobi-1d").original, JACOBI1D_WAVE)
    units = core.units((0,), 1)
    n = len(core.rec.steps)
    assert core.fused_tail((0,), units)
    assert [st.name for st in core.rec.steps[n:]] == [
        "skew", "skew", "shift", "fuse", "interchange"]
    assert _at_target(core, (0,), 1) and core.oracle(core.C)


def test_fused_tail_refuses_and_changes_nothing():
    core = _core(session("jacobi-1d").original, JACOBI1D_WAVE)
    units = core.units((0,), 1)
    before = _state(core)
    # plans without a common interchange at their end: nothing to fuse for
    assert not core.fused_tail((0,), [(p, q[:-1]) for p, q in units])
    assert _state(core) == before
    core.oracle = None
    assert not core.fused_tail((0,), units)
    assert _state(core) == before


def test_interchange_of_the_distributed_loops_is_illegal():
    # the cause: the plans' common interchange on the loop without the
    # fusion (as set_alpha's variants try it) breaks a dependence
    core = _core(session("jacobi-1d").original, JACOBI1D_WAVE)
    tail = core._common_tail((0,), core.units((0,), 1))
    assert tail is not None and tail[-1] == ((0,), (("interchange", 1, 2),))
    assert not all(core._apply_checked(p, q) for p, q in tail)


#: deriche's first pass, alone: a row's initialization, then its scan.
ROWSCAN = """
#include <stdio.h>
#ifndef W
# define W 6
#endif
#ifndef H
# define H 5
#endif
static double x[W][H], y[W][H];
int main(void)
{
  int i, j, w = W, h = H;
  double m;
  for (i = 0; i < W; i++)
    for (j = 0; j < H; j++)
      x[i][j] = (double)((3 * i + 7 * j) % 11);
#pragma scop
  for (i = 0; i < w; i++) {
    m = 0.0;
    for (j = 0; j < h; j++) {
      y[i][j] = x[i][j] + 0.5 * m;
      m = y[i][j];
    }
  }
#pragma endscop
  for (i = 0; i < W; i++)
    for (j = 0; j < H; j++)
      printf("%.17g\\n", y[i][j]);
  return 0;
}
"""

#: the row's scan one iteration later, the next row's initialization after
#: it at ``j = h`` (as isl's Feautrier tree of deriche).
ROWSCAN_ROTATED = "{ S0[i] -> [0, i, 1, 0, 0]; S1[i, j] -> [0, i + 1, 0, j, 0]; " \
                  "S2[i, j] -> [0, i + 1, 0, j, 1] }"


@pytest.fixture(scope="module")
def rowscan(tmp_path_factory) -> clayx.Session:
    path = Path(tmp_path_factory.mktemp("rowscan")) / "rowscan.c"
    path.write_text(ROWSCAN)
    return clayx.load(path)


def _rotated_core(rowscan, shift: Aff = Aff()):
    """The core of ``ROWSCAN_ROTATED`` with the initialization inside the
    scan's loop, at ``j = h`` (target β ``[0, 0, 2]``, as in deriche's tree:
    the flat reading hoists it out), every α 1 of the target plus ``shift``."""
    core = _core(rowscan.original, ROWSCAN_ROTATED)
    h = Aff({("p", "h"): 1})
    for r in core.T.rels:
        r.alphas[0] = r.alphas[0] + shift
        if r.stmt == "S0":
            r.beta, r.alphas = (0, 0, 2), [r.alphas[0], h]
    _embed_as_target(core)
    return core


def test_rotate_orders_the_children_by_the_target_dates(rowscan):
    core = _rotated_core(rowscan)
    # one target child (label) for the scan and the initialization
    assert len(set(core.labels((0,)).values())) == 1
    n = len(core.rec.steps)
    assert core.rotate((0,), 1, core.units((0,), 1))
    steps = core.rec.steps[n:]
    assert [st.name for st in steps] == ["grain", "shift", "reorder", "shift", "densify"]
    assert steps[2].args == ((0,), (1, 0))       # the scan first
    assert _at_target(core, (0,), 1) and core.oracle(core.C)


def test_rotate_by_labels_alone_is_refused(rowscan, monkeypatch):
    core = _rotated_core(rowscan)
    before = _state(core)
    monkeypatch.setattr(core_module.Core, "_date_order", lambda self, c, d, idx: idx)
    assert not core.rotate((0,), 1, core.units((0,), 1))
    assert _state(core) == before


def test_rotate_shifts_the_loop_by_the_common_parameters_first(rowscan):
    w = Aff({("p", "w"): 1})
    core = _rotated_core(rowscan, shift=w)
    units = core.units((0,), 1)
    assert core._common_parameters((0,), 1, units) == -w
    n = len(core.rec.steps)
    assert core.rotate((0,), 1, units)
    assert core.rec.steps[n].name == "shift" and core.rec.steps[n].args[:2] == ((0,), 1)
    assert _at_target(core, (0,), 1) and core.oracle(core.C)


def test_common_parameters_must_be_common(rowscan):
    w = Aff({("p", "w"): 1})
    core = _rotated_core(rowscan, shift=w)
    units = core.units((0,), 1)
    # one relation without it: none common
    assert core._common_parameters((0,), 1, units[:1]) is None
    core.T.by_tag(core.C.under((0, 0))[0].tag).alphas[0] += w
    assert core._common_parameters((0,), 1, core.units((0,), 1)) is None


@pytest.mark.slow
@pytest.mark.parametrize("stem,target,sizes", [
    ("cholesky", CHOLESKY_TREE, {"N": 9}),
    ("jacobi-1d", JACOBI1D_WAVE, {"TSTEPS": 4, "N": 12}),
], ids=["cholesky", "jacobi-1d"])
def test_recovered_wavefront_runs_equal_to_the_original(tmp_path, stem, target, sizes):
    # the recovered script applied, compiled and run: the original's
    # output bit for bit
    assert_target_code_runs(tmp_path, stem, read_target(target, session(stem).original), sizes)
