"""Hoisting and fission of the automatic schedule (``clayx.auto.post.hoist``)
answer every order question pair by pair and memoize the answers across
steps (issue 9's speed target); these tests hold them to the checks on
whole unions of dates that they replace, on all 31 examples."""

from __future__ import annotations

from pathlib import Path

import pytest

import clayx.auto.post as post
from clayx.auto.presets import resolve
from clayx.auto.scheduler import schedule_tree
from clayx.auto.tree import from_tree
from clayx.frontend import load

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
KERNELS = sorted(p.stem for p in EXAMPLES.glob("*.c"))


def _truncated(scop, r, n_out: int):
    """The first ``n_out`` dimensions of ``r``'s dates."""
    m = r.map(post._space(scop, r)).intersect_domain(post._instances(scop, r))
    return m.project_out(post._dt.out, n_out, m.dim(post._dt.out) - n_out)


def _union_runs_before(scop, ys, xs, k) -> bool:
    """Some instance of ``ys`` before one of ``xs`` in the same outer
    iteration, on the unions of their actual dates up to β_k."""
    n_out = 2 * k + 1
    dy = post._union(_truncated(scop, r, n_out) for r in ys)
    dx = post._union(_truncated(scop, r, n_out) for r in xs)
    same = post._project(dy, n_out, 2 * k - 1).apply_range(
        post._project(dx, n_out, 2 * k - 1).reverse())
    return not dy.lex_lt_union_map(dx).intersect(same).is_empty()


@pytest.mark.parametrize("stem", KERNELS)
def test_pairwise_memoized_checks_answer_like_the_union_checks(stem, monkeypatch):
    scop = load(EXAMPLES / f"{stem}.c")[0]
    rels = from_tree(schedule_tree(scop, resolve("cpu")), scop)
    seen = {"hoist": 0, "fission": 0}
    hoistable, runs_before = post._hoistable_memo, post._runs_before

    def checked_hoistable(memo, scop, rels, r, k):
        got = hoistable(memo, scop, rels, r, k)
        assert got == post._hoistable(scop, rels, r, k), (stem, r.stmt, k)
        seen["hoist"] += 1
        return got

    def checked_runs_before(memo, scop, ys, xs, k, y_first):
        got = runs_before(memo, scop, ys, xs, k, y_first)
        assert got == _union_runs_before(scop, ys, xs, k), (stem, k)
        seen["fission"] += 1
        return got

    monkeypatch.setattr(post, "_hoistable_memo", checked_hoistable)
    monkeypatch.setattr(post, "_runs_before", checked_runs_before)
    post.hoist(scop, rels)
    if stem in ("adi", "deriche"):
        assert seen["hoist"] and seen["fission"]


def test_memo_spares_most_isl_checks(monkeypatch):
    """deriche: 24 hoists in a row; without the memo every step asks isl
    again about pairs no hoist touched."""
    scop = load(EXAMPLES / "deriche.c")[0]
    rels = from_tree(schedule_tree(scop, resolve("cpu")), scop)
    calls = {"n": 0}
    around, chained = post._runs_around, post._chained_before

    def count(fn):
        def wrapper(*args):
            calls["n"] += 1
            return fn(*args)
        return wrapper
    monkeypatch.setattr(post, "_runs_around", count(around))
    monkeypatch.setattr(post, "_chained_before", count(chained))
    memoized = post.hoist(scop, rels)
    with_memo, calls["n"] = calls["n"], 0
    monkeypatch.setattr(post._Memo, "get", lambda self, key, compute: compute())
    hoist_once = post._hoist_once           # and every step scans all relations again

    def rescan(scop, rels, memo=None):
        memo.stays.clear()
        return hoist_once(scop, rels, memo)
    monkeypatch.setattr(post, "_hoist_once", rescan)
    plain = post.hoist(scop, rels)
    assert [r.betas for r in plain] == [r.betas for r in memoized]
    assert 2 * with_memo < calls["n"], (with_memo, calls["n"])


# --- the pair questions, one by one, against the dates they stand for ---------------

def _dates_before(scop, x, xb, r, rb, k) -> bool:
    """Some instance of ``x`` before one of ``r`` in the same iteration of
    the loops outside depth ``k``, on their padded dates (β tails ``xb``,
    ``rb`` from β k on) with ``lex_lt_map``: the check the pair questions
    replace."""
    n_out = 2 * max(len(x.alphas), len(r.alphas)) + 1
    dx = post._dates(scop, post.replace(x, betas=(0,) * k + xb), n_out)
    dr = post._dates(scop, post.replace(r, betas=(0,) * k + rb), n_out)
    pre = 2 * k - 1
    same = dx.project_out(post._dt.out, pre, n_out - pre).apply_range(
        dr.project_out(post._dt.out, pre, n_out - pre).reverse())
    return not dx.lex_lt_map(dr).intersect(same).is_empty()


def _single_valued(scop, r, k) -> bool:
    """α ``k`` of ``r`` a function of α 1 … k-1 on its instances, through
    the map of the α tuples (the check :func:`post._is_degenerate` replaces)."""
    m = None
    for a in r.alphas[:k]:
        x = post.isl.Map.from_pw_aff(a)
        m = x if m is None else m.flat_range_product(x)
    rng = m.intersect_domain(post._instances(scop, r)).range()
    return post.isl.Map.from_domain(rng).move_dims(
        post._dt.out, 0, post._dt.in_, k - 1, 1).is_single_valued()


@pytest.mark.parametrize("stem", ["adi", "deriche", "2mm", "lu", "cholesky", "gramschmidt"])
def test_pair_questions_answer_like_the_dates(stem):
    scop = load(EXAMPLES / f"{stem}.c")[0]
    rels = from_tree(schedule_tree(scop, resolve("cpu")), scop)
    memo = post._Memo(scop)
    seen = {True: 0, False: 0}
    for r in rels:
        for k in range(1, len(r.alphas) + 1):
            assert post._is_degenerate(scop, r, k, memo) == _single_valued(scop, r, k), \
                (stem, r.stmt, k)
            for x in rels:
                if x.betas[:k] != r.betas[:k] or len(x.betas) <= k:
                    continue
                for xb, rb in ((x.betas[k:], r.betas[k:]), ((1,), (0,)), ((0,), (1,))):
                    got = memo.before(x, xb, r, rb, k)
                    assert got == _dates_before(scop, x, xb, r, rb, k), (stem, x.stmt, r.stmt, k)
                    seen[got] += 1
    assert seen[True] and seen[False], seen      # both answers occur: the check can fail


def test_passes_after_hoist_share_its_memo_for_that_scop_only():
    # _chains asks hoist's memo (same α, answers keyed by content); another
    # SCoP never gets it: statement names and scalar relations would collide
    a = load(EXAMPLES / "deriche.c")[0]
    b = load(EXAMPLES / "adi.c")[0]
    rels = from_tree(schedule_tree(a, resolve("cpu")), a)
    post.hoist(a, rels)
    memo = post._memo(a)
    assert memo is post._last_memo and memo.scop is a and memo.answers
    assert post._memo(b) is not memo and post._memo(b).scop is b and not post._memo(b).answers
    post._chains(a, post.hoist(a, rels))
    assert post._memo(a) is not memo           # a new hoist, a new memo
