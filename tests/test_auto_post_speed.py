"""The speed-ups of the automatic schedule's post-processing
(``clayx.auto.post``) leave every result as the plain computation gives
it: hoisting that skips the (relation, depth) pairs it already found
staying, against a full rescan after every step."""

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


def _shape(rels) -> list:
    return [(r.stmt, tuple(r.betas), tuple(map(str, r.alphas)), str(r.cons)) for r in rels]


def _rescanning(monkeypatch):
    """Make every hoist step scan all (relation, depth) pairs again."""
    hoist_once = post._hoist_once

    def rescan(scop, rels, memo=None):
        memo.stays.clear()
        return hoist_once(scop, rels, memo)
    monkeypatch.setattr(post, "_hoist_once", rescan)


@pytest.mark.parametrize("stem", KERNELS)
def test_hoist_skipping_staying_pairs_is_a_full_rescan(stem, monkeypatch):
    scop = load(EXAMPLES / f"{stem}.c")[0]
    rels = from_tree(schedule_tree(scop, resolve("cpu")), scop)
    asked = {"n": 0}
    hoistable = post._hoistable_memo

    def counted(*args):
        asked["n"] += 1
        return hoistable(*args)
    monkeypatch.setattr(post, "_hoistable_memo", counted)
    fast = post.hoist(scop, rels)
    n_fast, asked["n"] = asked["n"], 0
    _rescanning(monkeypatch)
    full = post.hoist(scop, rels)
    assert _shape(fast) == _shape(full)
    assert n_fast <= asked["n"]
    if stem == "deriche":                   # 24 hoists in a row: most pairs stay
        assert 2 * n_fast < asked["n"], (n_fast, asked["n"])


@pytest.mark.parametrize("stem", ["covariance", "durbin", "gemver"])
def test_a_hoist_forgets_the_pairs_of_its_loop(stem, monkeypatch):
    # here a hoist is possible only once another left the loop: keeping
    # every staying pair across steps (no forgetting) hoists less
    scop = load(EXAMPLES / f"{stem}.c")[0]
    rels = from_tree(schedule_tree(scop, resolve("cpu")), scop)
    right = post.hoist(scop, rels)

    class Forgetless(dict):
        def pop(self, key, default=None):
            return self.get(key, default)

        def clear(self):
            pass
    init = post._Memo.__init__

    def forgetless_init(self, scop):
        init(self, scop)
        self.stays = Forgetless()
    monkeypatch.setattr(post._Memo, "__init__", forgetless_init)
    wrong = post.hoist(scop, rels)
    assert _shape(wrong) != _shape(right)


def test_the_loops_as_written_are_read_once_per_scop_state(monkeypatch):
    import clayx.auto as auto
    from clayx.directives.registry import apply
    scop = load(EXAMPLES / "gemver.c")[0]
    first = auto.schedule(scop, "cpu")
    reads = {"n": 0}
    to_tree = auto.to_tree

    def counted(*args, **kwargs):
        reads["n"] += 1
        return to_tree(*args, **kwargs)
    monkeypatch.setattr(auto, "to_tree", counted)
    again = auto.schedule(scop, "cpu", tree=first.tree)
    assert str(again.schedule) == str(first.schedule) and again.kept_order == first.kept_order
    assert reads["n"] == 0
    # another state of the program is read on its own
    other = apply(scop, "interchange", [(0,), 1, 2])
    auto.schedule(other, "cpu")
    assert reads["n"] == 1
