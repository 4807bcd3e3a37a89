"""Property test of whiteboxing (hypothesis): random legal directive
sequences on several ``examples/`` kernels (drawn by the shared generator
:func:`clayx.fuzz.draw_step`, as in ``test_properties.py``; refused steps
are skipped), then ``whitebox(original, replayed result)``; the recovered
script, applied by a fresh session, must give every instance the date the
random sequence gave it, and carry the same marks.  Whitebox may refuse a target it cannot express
(:class:`~clayx.whitebox.WhiteboxError`; counted and printed, none allowed
in the fast variant, at most 10 % in the slow one), never return a sequence
that fails its replay.

The fast variant draws about 60 sequences; the slow one (marked ``slow``,
run in CI) 300, with the deep-nest mix of tiling, reshapes and skews too.
Runs are derandomized, so CI sees the same sequences every time
(``CLAYX_WHITEBOX_SEED`` and ``CLAYX_WHITEBOX_EXAMPLES`` draw others).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import clayx
from clayx.errors import ClayxError
from clayx.fuzz import ALL_KINDS, DEEP_KINDS
from clayx.fuzz import draw_step as fuzz_step
from clayx.whitebox import WhiteboxError, whitebox
from clayx.whitebox.replay import same_dates

from test_properties import HypothesisChooser

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
STEMS = ("gemm", "atax", "mvt", "jacobi-1d", "bicg", "trmm", "seidel-2d", "lu")
_BASE: dict[str, clayx.Session] = {}


def _fresh(stem: str) -> clayx.Session:
    if stem not in _BASE:
        _BASE[stem] = clayx.load(EXAMPLES / f"{stem}.c")
    b = _BASE[stem]
    return clayx.Session(b.original, others=b.others)


def _marks(schedule) -> set:
    return {(m.kind, tuple(m.loop), m.arg) for m in schedule.marks}


def _check(stem: str, data, kinds, stats: Counter, max_len: int) -> None:
    s = _fresh(stem)
    ch = HypothesisChooser(data)
    for _ in range(data.draw(st.integers(1, max_len), label="length")):
        try:
            s.apply(fuzz_step(ch, s.current, kinds, bad_rate=0))
        except ClayxError:
            stats["refused steps"] += 1
    if not len(s.script):
        stats["nothing accepted"] += 1
        return
    target = s.current.schedule
    try:
        r = whitebox(s.original, target)
    except WhiteboxError as e:
        # a refusal is allowed (a target part with no Clay expression the
        # recovery knows), a sequence that fails its own replay is not
        assert not str(e).startswith("bug:"), f"{stem}: {s.script}\n{e}"
        stats["refused"] += 1
        REFUSALS.append(f"{stem}: {' '.join(str(s.script).split())}\n    {e}")
        return
    stats["exact" if r.exact else "same order"] += 1
    stats["steps"] += len(s.script)
    stats["recovered"] += len(r.steps)
    # an independent replay of the printed script, from the original
    again = _fresh(stem)
    if len(r.script):
        again.apply(str(r.script))
    got = again.current.schedule
    assert same_dates(s.original, got, target), f"{stem}: {s.script}\n->\n{r.text()}"
    assert _marks(got) == _marks(target), f"{stem}: {s.script}\n->\n{r.text()}"


#: The refusals met (sequence and message), printed by :func:`_report`.
REFUSALS: list[str] = []


def _report(name: str, stats: Counter, refused: float) -> None:
    """Print the counts and the refusals; at least one exact recovery,
    refusals at most ``refused`` of the recoveries tried."""
    print(f"\n{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    for line in REFUSALS:
        print("  refused " + line)
    REFUSALS.clear()
    tried = stats["exact"] + stats["same order"] + stats["refused"]
    assert stats["exact"] > 0 and stats["refused"] <= refused * tried


_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: ``CLAYX_WHITEBOX_SEED=N`` (and ``CLAYX_WHITEBOX_EXAMPLES=K``) run the slow
#: test on other sequences, to look for new failures locally.
_SEED = os.environ.get("CLAYX_WHITEBOX_SEED") or None
_SLOW_EXAMPLES = int(os.environ.get("CLAYX_WHITEBOX_EXAMPLES", "300"))


def test_whitebox_recovers_random_sequences():
    """Fast: ~60 random legal sequences; the recovered script replays to the
    same dates and marks."""
    stats: Counter = Counter()

    @settings(max_examples=60, **_SETTINGS)
    @given(stem=st.sampled_from(STEMS), data=st.data())
    def prop(stem, data):
        _check(stem, data, ALL_KINDS, stats, 5)

    prop()
    _report("fast", stats, 0.0)


@pytest.mark.slow
def test_whitebox_recovers_random_sequences_slow():
    """Slow: 300 longer sequences, half from the deep-nest mix (tiling,
    reshapes, skews)."""
    stats: Counter = Counter()

    options = dict(_SETTINGS, max_examples=_SLOW_EXAMPLES)
    if _SEED is not None:
        options["derandomize"] = False

    @settings(**options)
    @given(stem=st.sampled_from(STEMS), deep=st.booleans(), data=st.data())
    def prop(stem, deep, data):
        _check(stem, data, DEEP_KINDS if deep else ALL_KINDS, stats, 8)

    if _SEED is not None:
        prop = seed(int(_SEED))(prop)

    prop()
    _report("slow", stats, 0.10)


#: Minimal sequences the property tests and random runs found that the
#: recovery got wrong (a recovered script that broke a dependence, was
#: refused or reached another schedule on replay) or refused, now recovered:
#: a reversed tile loop (the point loop's fix-up must cover every statement
#: of the loop), a fission inside a tile loop (tile first, split after), …
FIXED_BUGS = [
    ("trmm", "tile([0], 2, 1, 5); reverse([0, 0], 1);"),
    ("trmm", "tile([0], 2, 1, 2); split([0, 0, 0, 0, 0], 2);"),
    # the unroll mark is ``unroll_mark`` (``unroll`` is Clay's real unrolling)
    ("mvt", "interchange([0, 0], 1, 2); unroll_mark([0], 1); interchange([0, 0], 1, 2);"),
    ("lu", "unroll([0, 1], 1); grain([0, 1, 0], 2, 3); unroll_mark([0, 1], 3); "
           "unroll_mark([0, 1], 4); shift([0, 0], 2, {0}, -2);"),
    # a skew of a lone statement becomes reshapes, in an order that keeps its
    # dates unique
    ("trmm", "stripmine([0], 2, 3); linearize([0], 2); reshape([0, 0, 1], 1, 2, -1); "
             "iss([0, 0, 0], {0, 1, -1 | | 0, 1 | 2}); collapse([0, 0, 0]); "
             "reverse([0, 0, 1], 2); skew([0, 0, 0], 3, 1, -2); stripmine([0, 0, 0], 1, 2);"),
    # index-set split halves with no instance (Clay keeps them), recreated
    ("gemm", "iss([0], {[] | [1] | [0, 0, 0] | 10});"),
    ("gemm", "iss([0], {[] | [-1] | [0, 0, 0] | -10});"),
    ("gemm", "iss([0], {[] | [1] | [0, 0, 0] | 10}); stripmine([0], 1, 4);"),
    ("gemm", "iss([0], {[] | [1] | [0, 0, 0] | 10}); reverse([0], 1); fuse([0, 1]);"),
    ("atax", "iss([0], {0 | | 0, 0 | 3});"),
    # several halves empty everywhere, and one empty on the context only
    ("mvt", "grain([0, 0], 1, 3); reorder_loops([0, 0, 0], 1); iss([1, 0], {-1, 0 | | -1 | -2}); "
            "tile([1, 0], 2, 2, 32); linearize([1, 0], 2); iss([1, 0], {0 | | 0 | 5});"),
    ("seidel-2d", "iss([0, 0, 0], {0, 0 | | -1, -1 | 0}); shift([0], 3, {0 | 1}, 2); "
                  "skew([0, 0], 3, 1, -2); iss([0, 0, 0], {0, 0, 0 | | -1, -1 | 0});"),
    # loops of one statement's parts scaled one at a time: in a legal order
    ("bicg", "reshape([0], 1, 1, -2); reverse([0], 1); iss([1, 1], {0, -1 | | 0, 0 | 0}); "
             "reverse([0], 1); reshape([1], 1, 1, -2); reshape([1, 1, 0], 1, 1, -2); "
             "tile([0], 1, 1, 2);"),
    ("bicg", "iss([1], {-1 | | 0, 1 | 1}); collapse([1]); peel([0], {0, 1 | 4}); "
             "reshape([2, 1, 0], 1, 1, -1); peel([2], {1, 1 | -1}); iss([3], {-1 | | 0, 1 | -2});"),
    ("lu", "reshape([0], 1, 1, -8); iss([0], {0 | | 0 | 0});"),
    # tile loops skewed by a point loop, reversed, moved inside their point loop
    ("gemm", "grain([0, 1, 0, 0], 3, 1); tile([0], 1, 1, 2); skew([0, 0, 0], 1, 2, 1);"),
    ("mvt", "tile([1], 1, 1, 2); fuse([0, 0]); tile([0], 1, 1, 2); reverse([0, 0], 1); "
            "reorder([0, 0, 0], [0]);"),
    ("mvt", "reshape([1], 1, 2, -2); tile([1], 1, 1, 2); reshape([0], 2, 1, 3);"),
    ("mvt", "reverse([0, 0, 0], 1); tile([1, 0], 1, 1, 16); reorder_loops([1, 0], 1); "
            "reorder_loops([0, 0], 1); interchange([1], 3, 2);"),
]

#: Targets the recovery cannot order legally: refused with a message, never
#: a sequence that fails its replay (both once were such bugs).
REFUSED = [
    # a tile loop skewed by a point loop of one statement after the tiling:
    # undoing it for that statement alone breaks a dependence (fuzz seed
    # 137195; gemm's loops distributed inside two tile loops, here before,
    # are recovered now: tests/test_whitebox_order3.py)
    ("trmm", "skew([0], 2, 1, 1); tile([0], 2, 2, 8); skew([0, 0, 0], 3, 1, 2); "
             "interchange([0, 0, 0, 0, 0], 4, 4); skew([0, 0, 0, 0], 3, 1, 2);"),
    # (a chunk loop moved inside its point loop past a loop another statement
    # shares, once here: recovered now, tests/test_whitebox_tiles2.py)
]


@pytest.mark.parametrize("stem,script", REFUSED)
def test_refused_not_bugs(stem, script):
    """These targets are refused cleanly (not a failed replay)."""
    s = _fresh(stem)
    s.apply(script)
    with pytest.raises(WhiteboxError) as e:
        whitebox(s.original, s.current.schedule)
    assert not str(e.value).startswith("bug:")


@pytest.mark.parametrize("stem,script", FIXED_BUGS)
def test_fixed_recovery_bugs(stem, script):
    """Each former bug is recovered exactly, and the printed script replays
    from the original to the same dates."""
    s = _fresh(stem)
    s.apply(script)
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact
    again = _fresh(stem)
    again.apply(str(r.script))
    assert same_dates(s.original, again.current.schedule, target)
