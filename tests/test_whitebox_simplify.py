"""Unit tests of the whitebox simplification rules (:mod:`clayx.whitebox.simplify`):
golden before/after sequences per rule, and the guarantee that a simplified
sequence replays to exactly the dates of the sequence it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

import clayx
from clayx.whitebox.model import ONE, Aff, par
from clayx.whitebox.replay import same_dates
from clayx.whitebox.simplify import simplify
from clayx.whitebox.steps import Step

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PARAMS = ("ni", "nj", "nk")                     # gemm's


def _text(steps) -> str:
    return " ".join(s.text(PARAMS) for s in steps)


def shift(beta, d, c, **p):
    return Step("shift", (tuple(beta), d, Aff({ONE: c, **{par(k): v for k, v in p.items()}})))


def skew(beta, d, o, c):
    return Step("skew", (tuple(beta), d, o, c))


def reverse(beta, d):
    return Step("reverse", (tuple(beta), d))


def interchange(beta, d1, d2):
    return Step("interchange", (tuple(beta), d1, d2))


def stripmine(beta, d, size):
    return Step("stripmine", (tuple(beta), d, size))


def tile(beta, d, o, size):
    return Step("tile", (tuple(beta), d, o, size))


GOLDEN = [
    # (rule, before, after)
    ("no-op shift", [shift([0], 1, 0)], []),
    ("no-op skew", [skew([0, 1], 3, 2, 0)], []),
    ("no-op interchange", [interchange([0, 1], 2, 2)], []),
    ("cancel reverse", [reverse([0], 1), reverse([0], 1)], []),
    ("cancel interchange", [interchange([0, 1], 2, 3), interchange([0, 1], 3, 2)], []),
    ("merge shifts", [shift([0], 1, 1), shift([0], 1, -1, ni=1)], [shift([0], 1, 0, ni=1)]),
    ("merge shifts to nothing", [shift([0], 1, 2), shift([0], 1, -2)], []),
    ("merge skews", [skew([0, 1], 3, 2, 1), skew([0, 1], 3, 2, -2)], [skew([0, 1], 3, 2, -1)]),
    ("cascade", [reverse([0], 1), shift([0], 1, 1), shift([0], 1, -1), reverse([0], 1)], []),
    ("different loops kept", [reverse([0], 1), reverse([0, 1], 3)],
     [reverse([0], 1), reverse([0, 1], 3)]),
    ("different depths kept", [shift([0, 1], 2, 1), shift([0, 1], 3, 1)],
     [shift([0, 1], 2, 1), shift([0, 1], 3, 1)]),
    ("different skew sources kept", [skew([0, 1], 3, 2, 1), skew([0, 1], 3, 1, 1)],
     [skew([0, 1], 3, 2, 1), skew([0, 1], 3, 1, 1)]),
    ("different directives kept", [interchange([0, 1], 2, 3), skew([0, 1], 3, 2, 1)],
     [interchange([0, 1], 2, 3), skew([0, 1], 3, 2, 1)]),
    ("stripmine and interchange are a tile",
     [stripmine([0, 1], 3, 4), interchange([0, 1], 2, 3)], [tile([0, 1], 3, 2, 4)]),
    ("stripmine and another interchange kept",
     [stripmine([0, 1], 3, 4), interchange([0, 1], 3, 4)],
     [stripmine([0, 1], 3, 4), interchange([0, 1], 3, 4)]),
    ("skews that are a permutation",
     [skew([0, 1], 2, 3, 1), skew([0, 1], 3, 2, -1), skew([0, 1], 2, 3, 1)],
     [interchange([0, 1], 2, 3), reverse([0, 1], 2)]),
    ("interchanges that are one swap",
     [interchange([0], 1, 2), interchange([0], 2, 3), interchange([0], 1, 2)],
     [interchange([0], 1, 3)]),
    ("reverses around an interchange",
     [reverse([0, 1], 3), interchange([0, 1], 2, 3), reverse([0, 1], 2)],
     [interchange([0, 1], 2, 3)]),
    ("a skew that is no permutation kept", [skew([0, 1], 3, 2, -1), interchange([0, 1], 2, 3)],
     [skew([0, 1], 3, 2, -1), interchange([0, 1], 2, 3)]),
    ("shifts merge across a skew by another dimension",
     [shift([0, 1], 2, 1), skew([0, 1], 2, 1, 3), shift([0, 1], 2, -1)], [skew([0, 1], 2, 1, 3)]),
    ("shifts across a skew by their dimension kept",
     [shift([0, 1], 2, 1), skew([0, 1], 3, 2, 1), shift([0, 1], 2, -1)],
     [shift([0, 1], 2, 1), skew([0, 1], 3, 2, 1), shift([0, 1], 2, -1)]),
    ("shifts of a dimension outside their loop kept",
     [shift([0, 1], 1, 1), skew([0, 1], 2, 3, 1), shift([0, 1], 1, -1)],
     [shift([0, 1], 1, 1), skew([0, 1], 2, 3, 1), shift([0, 1], 1, -1)]),
]


@pytest.mark.parametrize("rule,before,after", GOLDEN, ids=[g[0] for g in GOLDEN])
def test_rule_golden(rule, before, after):
    """Each rule rewrites its golden sequence to the golden result."""
    assert _text(simplify(before)) == _text(after)


#: clayx refuses a skew by 0 and an interchange of a dimension with itself,
#: so those rules have no raw sequence to replay; gemm has no three loops
#: whose order can change legally; a shift of S1's i alone breaks gemm's
#: dependences (why such shifts do not move).
REPLAYABLE = [g for g in GOLDEN if g[0] not in ("no-op skew", "no-op interchange",
                                                 "interchanges that are one swap",
                                                 "shifts of a dimension outside their loop kept")]


@pytest.mark.parametrize("rule,before,after", REPLAYABLE, ids=[g[0] for g in REPLAYABLE])
def test_simplified_replays_exactly(rule, before, after):
    """On gemm, the simplified sequence replays to the same dates as the raw one."""
    base = clayx.load(EXAMPLES / "gemm.c")
    raw = clayx.Session(base.original)
    raw.apply(_text(before))
    short = clayx.Session(base.original)
    if after:
        short.apply(_text(simplify(before)))
    assert same_dates(base.original, raw.current.schedule, short.current.schedule)


def test_comments_joined_on_merge():
    """A merged step keeps both comments."""
    a = Step("shift", ((0,), 1, Aff.const(1)), "first")
    b = Step("shift", ((0,), 1, Aff.const(2)), "second")
    (m,) = simplify([a, b])
    assert m.comment == "first; second" and m.args[2] == Aff.const(3)


def _gemm_symbolic():
    from clayx.whitebox import symbolic
    from clayx.whitebox.model import Divs
    scop = clayx.load(EXAMPLES / "gemm.c").original
    return scop, symbolic(scop, scop.schedule, Divs(), tags=False)


@pytest.mark.parametrize("before,after", [
    # S1 alone under [0, 1]: its statement β and inner loops are named [0, 1]
    ([reverse([0, 1, 0, 0], 3)], [reverse([0, 1], 3)]),
    ([interchange([0, 1, 0], 2, 3)], [interchange([0, 1], 2, 3)]),
    # S0 and S1 share [0] only: [0, 0] (S0's loop) keeps its name
    ([shift([0, 0], 2, 1)], [shift([0, 0], 2, 1)]),
    # after a fission of [0], [0, 0] alone holds S0: it is the shortest name
    ([Step("split", ((0, 0, 0), 1)), shift([0, 0, 0], 2, 1)],
     [Step("split", ((0, 0, 0), 1)), shift([0], 2, 1)]),
    # marks keep the loop they name
    ([Step("parallelize", ((0, 1, 0),))], [Step("parallelize", ((0, 1, 0),))]),
])
def test_loop_names(before, after):
    """The loop-name rule: the outermost loop holding exactly the statements,
    in the schedule the step applies to; the result replays to the same dates."""
    scop, O = _gemm_symbolic()
    got = simplify(before, O)
    assert _text(got) == _text(after)
    raw = clayx.Session(scop)
    raw.apply(_text(before))
    short = clayx.Session(scop)
    short.apply(_text(got))
    assert same_dates(scop, raw.current.schedule, short.current.schedule)


def test_tile_step_is_the_only_tile_maker():
    """The tile that simplification makes comes from :func:`tile_step` (one
    place to adapt tile's semantics), with ``d - o = 1``."""
    from clayx.whitebox.steps import tile_step
    (t,) = simplify([stripmine([0, 1], 3, 4), interchange([0, 1], 3, 2)])
    assert t == tile_step((0, 1), 3, 2, 4)[0]


# --- merge across a fusion -----------------------------------------------------------

#: b is read one cell ahead: the loops fuse only when both run backwards
AHEAD = """
void f(int n, double a[100], double b[100], double c[100]) {
  int i;
#pragma scop
  for (i = 0; i < n - 1; i++)
    b[i] = a[i];
  for (i = 0; i < n - 1; i++)
    c[i] = b[i + 1];
#pragma endscop
}
"""


def _fusion_case(stem_or_src: str, seq: str):
    from clayx.frontend.c import parse_string
    if stem_or_src.lstrip().startswith("void"):
        s = clayx.Session(parse_string(stem_or_src)[0])
    else:
        s = clayx.load(EXAMPLES / f"{stem_or_src}.c")
    s.apply(seq)
    return s


def _text_of(r) -> str:
    return r.text(comments=False)


def test_the_same_skews_before_a_fusion_are_one_skew_after_it():
    from clayx.whitebox import whitebox
    s = _fusion_case("fdtd-2d", "fuse([0, 1]); skew([0, 1], 2, 1, -1);")
    target = s.current.schedule
    r = whitebox(s.original, target)
    raw = whitebox(s.original, target, simplify=False)
    assert _text_of(raw) == "skew([0, 1], 2, 1, -1);\nskew([0, 2], 2, 1, -1);\nfuse([0, 1]);\n"
    assert _text_of(r) == "fuse([0, 1]);\nskew([0, 1], 2, 1, -1);\n"
    assert r.exact and not r.timings.get("simplification_undone")
    a = clayx.load(EXAMPLES / "fdtd-2d.c")
    a.apply(_text_of(r))
    b = clayx.load(EXAMPLES / "fdtd-2d.c")
    b.apply(_text_of(raw))
    assert same_dates(s.original, a.current.schedule, target)
    # the same dates: the same program
    assert a.code() == b.code() == s.code()


def test_a_fusion_that_needs_the_steps_first_is_kept_after_them():
    from clayx.whitebox import whitebox
    s = _fusion_case(AHEAD, "reverse([0], 1); reverse([1], 1); fuse([0]);")
    r = whitebox(s.original, s.current.schedule)
    # fuse([0]); reverse([0], 1) would run c[i] = b[i + 1] before b[i + 1] is written
    assert _text_of(r) == "reverse([0], 1);\nreverse([1], 1);\nfuse([0]);\n"
    # kept by the simplifier's own check, not by the replay's fallback
    assert not r.timings.get("simplification_undone")


def test_merge_across_fusion_needs_the_same_steps_on_every_fused_loop():
    from clayx.whitebox import Oracle, symbolic
    from clayx.whitebox.model import Divs
    from clayx.whitebox.simplify import merge_across_fusion
    s = clayx.load(EXAMPLES / "fdtd-2d.c")
    divs = Divs()
    O = symbolic(s.original, s.original.schedule, divs, tags=False)
    oracle = Oracle(s.original, s.deps, divs)
    fuse = Step("fuse", ((0, 1),))
    same = [skew([0, 1], 2, 1, -1), skew([0, 2], 2, 1, -1), fuse]
    assert _text(merge_across_fusion(same, O, oracle)) == \
        "fuse([0, 1]); skew([0, 1], 2, 1, -1);"
    other = [skew([0, 1], 2, 1, -1), skew([0, 2], 2, 1, -2), fuse]
    assert merge_across_fusion(other, O, oracle) == other
    one = [skew([0, 1], 2, 1, -1), fuse]
    assert merge_across_fusion(one, O, oracle) == one
    # a step on a loop around them does not commute with the moved ones
    around = [skew([0, 1], 2, 1, -1), skew([0, 2], 2, 1, -1), shift([0], 1, 1), fuse]
    assert merge_across_fusion(around, O, oracle) == around
    # steps on another loop stay before the fusion
    apart = [skew([0, 1], 2, 1, -1), skew([0, 3], 2, 1, -1), skew([0, 2], 2, 1, -1), fuse]
    assert _text(merge_across_fusion(apart, O, oracle)) == \
        "skew([0, 3], 2, 1, -1); fuse([0, 1]); skew([0, 1], 2, 1, -1);"


@pytest.mark.slow
def test_the_fused_skew_runs_equal_to_the_original():
    import shutil
    from clayx.verify import SMALL_SIZES, verify
    from clayx.whitebox import whitebox
    if shutil.which("gcc") is None:
        pytest.skip("gcc not available")
    s = _fusion_case("fdtd-2d", "fuse([0, 1]); skew([0, 1], 2, 1, -1);")
    r = whitebox(s.original, s.current.schedule)
    a = clayx.load(EXAMPLES / "fdtd-2d.c")
    a.apply(_text_of(r))
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        gen = Path(tmp) / "fdtd-2d_fused.c"
        gen.write_text(a.code())
        res = verify(EXAMPLES / "fdtd-2d.c", gen, SMALL_SIZES["fdtd-2d"], workdir=Path(tmp) / "b")
    assert res.ok and res.values > 0


# --- tile chains ---------------------------------------------------------------------

#: every order of the three loops is legal (the only dependence is carried by k)
MATMUL = """
void f(int n, double a[100][100], double b[100][100], double c[100][100]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        c[i][j] = c[i][j] + a[i][k] * b[k][j];
#pragma endscop
}
"""


def _matmul_chain(steps, oracle=None):
    from clayx.frontend.c import parse_string
    from clayx.whitebox import Oracle, symbolic
    from clayx.whitebox.model import Divs
    from clayx.whitebox.simplify import tile_chains
    s = clayx.Session(parse_string(MATMUL)[0])
    divs = Divs()
    O = symbolic(s.original, s.original.schedule, divs, tags=False)
    return s, tile_chains(steps, O, oracle or Oracle(s.original, s.deps, divs))


def test_a_tile_chain_is_rewritten_from_its_effect():
    """Tiles at their final depths, outermost first, then one swap: 4 steps
    for 6, the same dates."""
    raw = [stripmine([0], 1, 4), tile([0], 3, 2, 4), tile([0], 5, 3, 4),
           interchange([0], 5, 6), interchange([0], 4, 5), interchange([0], 5, 6)]
    s, short = _matmul_chain(raw)
    assert _text(short) == ("stripmine([0], 1, 4); tile([0], 3, 2, 4); tile([0], 5, 3, 4); "
                            "interchange([0], 4, 6);")
    a = clayx.Session(s.original)
    a.apply(_text(raw))
    b = clayx.Session(s.original)
    b.apply(_text(short))
    assert same_dates(s.original, a.current.schedule, b.current.schedule)
    assert a.code() == b.code()


@pytest.mark.parametrize("raw", [
    # already as short as the rewrite
    [stripmine([0], 1, 4), tile([0], 3, 2, 4), tile([0], 5, 3, 4)],
    # a loop strip-mined twice (nested tiles) is left alone
    [stripmine([0], 1, 8), stripmine([0], 2, 2), interchange([0], 2, 3), interchange([0], 1, 2)],
    # a tile loop inside its own point loop is left alone
    [stripmine([0], 1, 4), interchange([0], 1, 2), interchange([0], 2, 3),
     interchange([0], 1, 2)],
], ids=["minimal", "nested tiles", "tile loop inside"])
def test_tile_chains_left_alone(raw):
    _, short = _matmul_chain(raw)
    assert short == raw


def test_the_tile_chain_rule_shortens_the_auto_scripts_of_symm_and_trmm():
    """Each nest's tiling in one tile per loop: the scripts of ``--auto``
    (tile 32) replay exactly and are 2 steps shorter than before the rule."""
    import clayx.auto as auto
    from clayx.frontend import load
    for stem, n in (("symm", 10), ("trmm", 8)):
        _, r = auto.whiteboxed(load(EXAMPLES / f"{stem}.c")[0], "cpu")
        assert r.exact and len(r.steps) == n and len(r.raw) == n + 2, (stem, r.text())
        assert not r.timings.get("simplification_undone")


def test_a_tile_chain_with_an_illegal_new_step_is_kept():
    """The rewrite is taken only when the oracle accepts the schedule after
    each of its steps (here an oracle that never does)."""
    raw = [stripmine([0], 1, 4), tile([0], 3, 2, 4), tile([0], 5, 3, 4),
           interchange([0], 5, 6), interchange([0], 4, 5), interchange([0], 5, 6)]
    asked = []
    _, short = _matmul_chain(raw, oracle=lambda sched: asked.append(sched) or False)
    assert short == raw and asked
