"""Whitebox in bounded time, with its progress shown (issue 9): the
phases ``progress`` is told of, in order; the deterministic effort bound
(legality checks isl answers, reductions tried: counted, never timed) that
ends a hopeless search with a :class:`~clayx.whitebox.SearchGaveUp` naming
the phase and the first reason met; the fuzz cases that took seconds to
tens of seconds on main; the memo of the oracle; ``scripts/fuzz_whitebox.py
--slow-ms``; the prompt's progress line (only on a terminal, only for long
work)."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest
from rich.console import Console

import clayx
import clayx.whitebox as wb
from clayx.whitebox import Effort, SearchGaveUp, WhiteboxError, whitebox
from clayx_repl import auto as repl_auto

from whitebox_cases import (EXAMPLES, assert_recovered, assert_recovered_code_runs,
                            tiling_module, session, symbolic_target)

ROOT = Path(__file__).resolve().parent.parent

# bicg fuzz seed 19154 (an iss of the point loops inside a tile whose loops
# were interchanged): recovered, 2.1 s CPU on main; 81 legality checks and
# 1536 reductions tried (932 before wbtile4's last passes); 84 checks since
# wbtile6 (its last reduction kind, _unswap_part_once, checks a swap it reads)
BICG = ("bicg", "tile([1], 1, 1, 32); shift([0], 1, {1 | 1}, -1); skew([1, 0], 2, 1, 1); "
        "reorder_loops([1, 0, 1], 1); iss([1, 0], {0, 1 | | -1, 1 | 5}); stripmine([1], 2, 4);",
        "split([1, 0], 1);\nshift([0], 1, {1 | 1}, -1);\nstripmine([1], 1, 32);\nfuse([1]);\n"
        "skew([1, 0], 2, 1, 1);\nstripmine([1, 1], 1, 32);\ninterchange([1, 0, 1], 1, 2);\n"
        "stripmine([1], 2, 4);\nskew([1, 0, 0, 1], 1, 3, 1);\n"
        "iss([1, 0, 0], {[0, 0, 1] | [] | [-1, 1] | 5});\n")

# gemm fuzz seed 69150: refused after tens of seconds (wall) on main, every
# reading of its strip-mined dimensions tried in the plain recovery and in
# both careful retries; recovered since wbtile6 (test_whitebox_chunks6)

# trmm fuzz seed 59225: refused after ~5 s (wall) on main (the halves of
# a split changed separately after it), recovered since wbtile6 after every
# other way failed (its first reason kept); mvt 59132, ~20 s on main, is
# recovered since wbtile4
TRMM = ("trmm", "tile([0, 0, 0], 1, 1, 3); iss([0], {1, 1 | | -1, 1 | 6}); "
        "reshape([0, 1, 0, 0], 4, 2, 3); stripmine([0, 0, 0, 0], 1, 4); fuse([0, 1, 0]); "
        "iss([0, 1, 0, 0], {-1, -1 | | 0, 0 | 4}); collapse([0, 1, 0, 0]); "
        "split([0, 0, 0, 0, 0, 0], 1); reverse([0, 0, 0], 4);")

# a hand-made mvt target, refused after the careful retry: S0's last
# dimension i mod 4 beside the tile loop floor(i / 3) is not a tile or
# chunk (seidel-2d 106066 and jacobi-1d 101203, used here before, are
# recovered since wbpart and wbempty3)
MOD = ("mvt", "[N] -> { S0[i, j] -> [0, floor(i/3), j, i mod 4]; S1[i, j] -> [1, i, j, 0] }")

# syrk (tests/test_whitebox_regressions.py CASES[5]): the first sequence
# fails its replay, the careful retry's replays
SYRK = ("syrk", "tile([0, 0], 1, 1, 4); reshape([0], 1, 1, -2);")


def _told(s, target=None, **options):
    """Whitebox ``s``'s current schedule from its original; the
    ``(phase, done, total)`` progress was told, and the result."""
    calls = []
    r = whitebox(s.original, s.current.schedule if target is None else target,
                 progress=lambda *a: calls.append(a), **options)
    return calls, r


def _phases(calls) -> list[str]:
    """The phases in the order they started (a start is told with 0 done)."""
    return [p for p, done, _ in calls if done == 0]


# --- progress ----------------------------------------------------------------------

def test_progress_is_told_each_phase_in_order_with_its_counts():
    calls, r = _told(session(BICG[0], BICG[1]))
    assert r.text(comments=False) == BICG[2]
    assert _phases(calls) == ["reading", "recovering", "simplifying", "replaying"]
    # the recovery's legality checks, counted up to the effort it spent, of the bound
    checks = [(d, t) for p, d, t in calls if p == "recovering" and d]
    assert [d for d, _ in checks] == list(range(1, len(checks) + 1))
    assert len(checks) == r.timings["effort"] and {t for _, t in checks} == {wb.MAX_EFFORT}
    # each replayed step, of the steps
    steps = [(d, t) for p, d, t in calls if p == "replaying"]
    assert steps == [(k, len(r.steps)) for k in range(len(r.steps) + 1)]
    # the timings say the same phases, in order
    assert [n for n, _ in r.timings["phases"]] == _phases(calls)


def test_a_sequence_failing_its_replay_shows_the_careful_retry_after_it():
    calls, r = _told(session(*SYRK))
    assert r.timings.get("careful")
    phases = _phases(calls)
    assert phases[:4] == ["reading", "recovering", "simplifying", "replaying"]
    k = phases.index("careful retry 1")
    assert set(phases[4:k]) <= {"replaying"}            # the raw sequence, replayed too
    assert phases[k:] == ["careful retry 1", "simplifying", "replaying"]


def test_a_refusal_tells_every_retry_and_keeps_its_timings():
    calls = []
    with pytest.raises(WhiteboxError) as e:
        whitebox(session(MOD[0]).original, MOD[1], progress=lambda *a: calls.append(a))
    assert _phases(calls) == ["reading", "recovering", "careful retry 1"]
    assert [n for n, _ in e.value.timings["phases"]] == _phases(calls)
    assert "not a tile or chunk" in str(e.value)


def test_auto_tells_scheduling_first_and_passes_progress_through():
    s = session("jacobi-1d")
    calls = []
    r = s.auto_result("cpu", 8, locality=0, progress=lambda *a: calls.append(a))
    assert _phases(calls)[:3] == ["scheduling", "reading", "recovering"]
    assert _phases(calls)[-1] == "replaying" and r.exact
    calls2 = []
    assert str(s.auto("cpu", 8, locality=0, progress=lambda *a: calls2.append(a))) \
        == str(r.script)
    assert _phases(calls2) == _phases(calls)
    calls3 = []
    r3 = s.whitebox(r.scop.schedule, progress=lambda *a: calls3.append(a))
    assert r3.exact and _phases(calls3)[0] == "reading"


# --- the effort bound --------------------------------------------------------------

def test_a_search_that_needs_more_than_the_bound_gives_up_cleanly(monkeypatch):
    stem, seq, _ = BICG
    target = session(stem, seq).current.schedule
    s = session(stem)
    before = (len(s.script), s.current)
    monkeypatch.setattr(wb, "MAX_EFFORT", 30)
    with pytest.raises(SearchGaveUp) as e:
        whitebox(s, target)
    msg = str(e.value)
    assert msg.startswith("whitebox gave up: the search spent its bound of 30 legality "
                          "checks (clayx.whitebox.MAX_EFFORT) in its phase 'recovering'")
    # the effort counter stopped at the bound, whatever the time it took
    assert e.value.effort.spent == 30 and e.value.timings["effort"] == 30
    assert e.value.phase == "recovering"
    assert isinstance(e.value, WhiteboxError) and not msg.startswith("bug:")
    assert (len(s.script), s.current) == before             # the session is unchanged
    # the same bound as an argument; deterministic: the same message, the same count
    with pytest.raises(SearchGaveUp) as again:
        whitebox(s, target, effort=30)
    assert str(again.value) == msg and again.value.effort.spent == 30
    # just enough effort: recovered, the same script
    monkeypatch.setattr(wb, "MAX_EFFORT", 84)
    r = whitebox(s, target)
    assert r.timings["effort"] == 84 and r.text(comments=False) == BICG[2]


def test_a_give_up_keeps_the_first_reason_the_search_met():
    # trmm 59225: the plain recovery refuses a strip-mined dimension, then
    # falls back to other ways; a bound reached there says why it fell back
    s = session(*TRMM)
    with pytest.raises(SearchGaveUp) as e:
        whitebox(s.original, s.current.schedule, effort=3)
    assert "in its phase 'recovering'" in str(e.value)
    assert str(e.value).endswith(
        "the first reason it could not recover the target: cannot express the strip-mined "
        "dimension 1 of S0 (d1): it is not a tile or chunk of another dimension of the same "
        "loop nest")


def test_no_bound_and_the_bound_give_the_same_result_below_it():
    s = session(BICG[0], BICG[1])
    free = whitebox(s.original, s.current.schedule, effort=10**9)
    assert free.text(comments=False) == BICG[2] and free.timings["effort"] == 84


def test_the_effort_counts_checks_and_reductions_and_stops_at_their_limits():
    e = Effort(3, 2)
    for _ in range(3):
        e.spend()
    e.spend("reduction")
    e.spend("reduction")
    with pytest.raises(wb.GaveUp) as up:
        e.spend()
    assert up.value.what == "check"
    with pytest.raises(wb.GaveUp) as up:
        e.spend("reduction")
    assert up.value.what == "reduction"
    assert e.spent == 3 and e.counts == {"check": 3, "reduction": 2}
    unbounded = Effort(None, None)
    for _ in range(10):
        unbounded.spend()
        unbounded.spend("reduction")
    assert unbounded.spent == 10 and unbounded.counts["reduction"] == 10


def test_a_search_past_its_reductions_gives_up_cleanly(monkeypatch):
    s = session(*TRMM)
    monkeypatch.setattr(wb, "MAX_REDUCTIONS", 100)
    with pytest.raises(SearchGaveUp) as e:
        whitebox(s.original, s.current.schedule)
    assert str(e.value).startswith(
        "whitebox gave up: the search spent its bound of 100 reductions of the target's "
        "tiling tried (clayx.whitebox.MAX_REDUCTIONS) in its phase 'recovering'")
    assert e.value.timings["reduction"] == 100 and e.value.effort.counts["reduction"] == 100


# --- the slow fuzz cases -----------------------------------------------------------

def test_bicg_19154_is_recovered_and_replays():
    assert_recovered(*BICG)


@pytest.mark.slow
@pytest.mark.parametrize("case,words", [
    (MOD, "not a tile or chunk"),
])
def test_slow_refusals_answer_with_their_reason(case, words):
    with pytest.raises(WhiteboxError) as e:
        whitebox(session(case[0]).original, case[1])
    assert words in str(e.value) and not str(e.value).startswith("bug:")
    assert e.value.timings["effort"] <= wb.MAX_EFFORT


@pytest.mark.slow
def test_bicg_19154_code_runs_like_the_original(tmp_path):
    assert_recovered_code_runs(tmp_path, BICG[0], BICG[1], {"M": 37, "N": 45})


# --- the oracle's memo -------------------------------------------------------------

def test_the_oracle_answers_a_schedule_once():
    T, oracle = symbolic_target("jacobi-1d", "skew([0, 0], 2, 1, 1);")
    assert oracle(T) is True and (oracle.calls, oracle.checks) == (1, 1)
    assert oracle(T.copy()) is True and (oracle.calls, oracle.checks) == (2, 1)
    # a different schedule is asked again; an illegal one (time reversed) false
    X = T.copy()
    for r in X.rels:
        r.alphas[0] = -r.alphas[0]
    assert oracle(X) is False and oracle.checks == 2
    assert oracle(X) is False and oracle.checks == 2
    # the parts and equalities too (the same isl objects)
    r = T.rels[0]
    assert oracle.part(r.stmt, r.cons) is oracle.part(r.stmt, list(r.cons))


def test_a_reduction_that_did_nothing_is_not_tried_again():
    T, oracle = symbolic_target(*TRMM)
    with pytest.raises(WhiteboxError):
        tiling_module.reduce(T.copy(), oracle)
    first = dict(oracle.reductions)
    assert first
    checks = oracle.checks
    with pytest.raises(WhiteboxError) as e:
        tiling_module.reduce(T.copy(), oracle)
    # the same refusal; every reduction that did nothing came from the memo
    # (a new one would be a new entry), no schedule asked of isl again
    assert "strip-mined dimension 1 of S0" in str(e.value)
    assert oracle.reductions == first and oracle.checks == checks


# --- scripts/fuzz_whitebox.py --slow-ms ---------------------------------------------

def _fuzz():
    spec = importlib.util.spec_from_file_location("fuzz_whitebox",
                                                  ROOT / "scripts" / "fuzz_whitebox.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fuzz_prints_each_case_slower_than_the_threshold_with_its_phases(capsys):
    fuzz = _fuzz()
    stats = fuzz.run(11000, 3, False, slow_ms=0, only={11000, 11002})
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("--- time ")]
    assert [ln.split(":")[0] for ln in lines] == ["--- time recovered gemm seed 11000",
                                                 "--- time recovered mvt seed 11002"]
    assert all("(reading " in ln and ", recovering " in ln and ", replaying " in ln
               and "; effort " in ln and ", reductions " in ln for ln in lines)
    assert stats["exact"] + stats["same order"] == 2
    assert "whitebox ms: median " in out and " over 2 cases; effort max: recovered " in out
    # above the threshold only
    fuzz.run(11000, 3, False, slow_ms=10**7, only={11000})
    out = capsys.readouterr().out
    assert "--- time " not in out and "over 1 cases" in out


def test_fuzz_percentiles():
    fuzz = _fuzz()
    v = list(range(1, 101))
    assert fuzz.percentile(v, 0.5) == 50 and fuzz.percentile(v, 0.99) == 99
    assert fuzz.percentile(v, 1.0) == 100 and fuzz.percentile([7], 0.99) == 7
    assert fuzz.time_summary([(5.0, 1), (30.0, 2), (10.0, 3)]) == \
        "whitebox ms: median 10, p99 30, max 30 (seed 2) over 3 cases"


# --- the prompt's progress line ----------------------------------------------------

class _Clock:
    """A clock the test moves."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_progress_shows_on_a_terminal_only_after_the_delay():
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=100)
    clock = _Clock()
    with repl_auto.Progress(console, after=0.3, clock=clock) as told:
        told("scheduling", 0, None)
        told("recovering", 0, 2000)
        assert told.live is None and buf.getvalue() == ""      # short work: nothing
        clock.t = 0.5
        told("recovering", 12, 2000)
        told("replaying", 0, 7)
        told("replaying", 3, 7)
        assert told.live is not None
    assert told.live is None
    out = buf.getvalue()
    assert "replaying: step 3 of 7" in out
    assert told.shown == ["recovering", "replaying"]
    assert repl_auto.Progress.describe("careful retry 1", 40, 2000) == \
        "careful retry 1: 40 legality checks (at most 2000)"
    assert repl_auto.Progress.describe("simplifying") == "simplifying…"


def test_progress_never_shows_when_the_console_is_not_a_terminal():
    buf = io.StringIO()
    console = Console(file=buf)
    assert not console.is_terminal
    with repl_auto.Progress(console, after=0) as told:
        for phase in ("scheduling", "recovering", "replaying"):
            told(phase, 0, None)
    assert told.live is None and told.shown == [] and buf.getvalue() == ""


def test_the_prompt_prints_the_same_off_a_terminal_however_soon_progress_shows(monkeypatch):
    from test_repl import drive, lines
    typed = lines(":auto tile=8 locality=0", ":auto drop")

    def run() -> str:
        out, _ = drive(EXAMPLES / "jacobi-1d.c", typed, width=170)
        return "\n".join(ln for ln in out.splitlines() if not ln.startswith("done in"))

    plain = run()
    monkeypatch.setattr(repl_auto, "PROGRESS_AFTER", 0.0)
    assert run() == plain
    assert ":auto cpu, tile 8, locality=0: 7 steps, replayed ✓ same dates" in plain


# --- the legality check's memo of relation pairs -----------------------------------

def test_the_pairs_a_step_left_unchanged_are_not_built_again():
    from clayx.analysis import legality as L
    s = session("jacobi-1d")
    before = s.current.schedule
    s.apply("skew([0, 0], 2, 1, 1);")
    after = s.current.schedule
    kept = [r for r in after.relations if any(r.map is x.map for x in before.relations)]
    assert kept                                    # the step left a relation's map as it was
    for rs in after.relations:
        for rt in after.relations:
            got = L._bad_pairs(rs, rt)
            assert L._bad_pairs(rs, rt) is got     # asked again: the same object
            k = next((i for i, (a, b) in enumerate(zip(rs.beta, rt.beta)) if a != b),
                     min(len(rs.beta), len(rt.beta)))
            if got is None:
                assert k < min(len(rs.beta), len(rt.beta)) and k == 0
                continue
            how = ("whole" if rs is rt else "all" if k == 0
                   else "gt" if rt.beta[k] > rs.beta[k] else "ge")
            assert got.is_equal(L._pairs_in_order(rs.map, rt.map, k, how))
    # the judge answers as before: the step is legal, its reverse in time not
    assert L.is_legal(s.current, s.deps)
    s2 = session("jacobi-1d")
    with pytest.raises(clayx.errors.LegalityError):
        s2.apply("reverse([0], 1);")
