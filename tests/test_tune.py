"""The tuner (issue 10, ``clayx FILE.c --tune``).

- with a fake timer (programs compiled for real, their runs replaced): the
  fastest verified candidate wins, deterministically; the original is kept
  when nothing beats it (also when a candidate only seemed faster and the
  final interleaved measurement does not confirm it, or it loses two of
  the confirmation's pairs; then the next fastest is confirmed); the budget
  is respected; a candidate that prints another output is excluded;
- timing runs stop after the last SCoP region (``CLAYX_REGION_STOPS``);
- the stride-1 heuristic orders gemm's point loops i, k, j;
- privatization (doitgen's ``sum``), distribution and permutation
  candidates;
- the winner's script replays, and the command writes it (or the code);
  ``:tune`` at the prompt (table, accept, from the current state, errors);
- differential: every preset, the new candidates and a tuned result,
  compiled with OpenMP, run equal to the original on 1 and 4 threads
  (several examples, some slow).
"""

from __future__ import annotations

import io
import itertools
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

import clayx
from clayx.errors import VerifyError
from clayx.run import program_text
from clayx.session import Session
from clayx.tune import (CONFIRM_PAIRS, DISTRIBUTE, ORIGINAL, PERMUTE, PRESETS, Candidate, Trial,
                        _Space, best_orders, candidate_script, confirm, point_order, tune)
from clayx.verify import compare_outputs, compile_c, run
from clayx_repl.cli import run as cli

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

OUT = "begin dump: C\n1 2 3\nend   dump: C\n"


class FakeTimer:
    """Region times by candidate label (``default`` for the others): a
    number, or a list of the times of its successive runs (the last one
    repeated); the original's output unless a label is in ``wrong``; each
    call advances the fake clock by one second."""

    def __init__(self, times: dict, default: float = 2.0, wrong=()):
        self.times, self.default, self.wrong = times, default, set(wrong)
        self.now = 0.0
        self.calls: list[str] = []

    def __call__(self, exe, candidate):
        self.now += 1.0
        label = candidate.label
        self.calls.append(label)
        out = OUT.replace("3", "4") if label in self.wrong else OUT
        t = self.times.get(label, self.default)
        if isinstance(t, list):
            t = t.pop(0) if len(t) > 1 else t[0]
        return out, t

    def clock(self) -> float:
        return self.now


def _tune(tmp_path, timer, **kw):
    s = clayx.load(EXAMPLES / "gemm.c")
    return tune(s, timer=timer, clock=timer.clock, workdir=tmp_path, **kw)


FIXED = [Candidate("cpu"), Candidate("cpu", 16), Candidate("feautrier"), Candidate("cpu", 0)]


@needs_gcc
def test_fastest_verified_candidate_wins(tmp_path):
    timer = FakeTimer({"original": 1.0, "cpu t16": 0.25, "cpu t32": 0.5})
    r = _tune(tmp_path, timer, candidates=FIXED, budget=1000)
    assert r.best.candidate == Candidate("cpu", 16)
    assert r.best.verified and r.confirmed == pytest.approx(4.0)
    assert [t.candidate for t in r.trials][:1] == [Candidate()]
    assert r.speedup(r.best) == pytest.approx(4.0)
    # deterministic: the same search picks the same winner
    again = _tune(tmp_path / "again", FakeTimer({"original": 1.0, "cpu t16": 0.25,
                                                 "cpu t32": 0.5}),
                  candidates=FIXED, budget=1000)
    assert again.best.candidate == r.best.candidate
    assert again.best.script == r.best.script
    # the table names every candidate, the winner starred
    table = r.table()
    assert "* cpu t16" in table and "original" in table and "winner: cpu t16" in table


@needs_gcc
def test_original_kept_when_nothing_wins(tmp_path):
    r = _tune(tmp_path, FakeTimer({"original": 1.0}, default=1.5), candidates=FIXED,
              budget=1000)
    assert r.best is r.original and r.best.script == "" and r.confirmed == 1.0


@needs_gcc
def test_original_kept_when_the_gain_is_noise(tmp_path):
    """A candidate 1% faster than the original is within :data:`NOISE`: the
    final measurement keeps the original."""
    r = _tune(tmp_path, FakeTimer({"original": 1.0, "cpu t32": 0.99}), candidates=FIXED,
              budget=1000)
    assert r.best is r.original


@needs_gcc
def test_a_gain_not_confirmed_interleaved_keeps_the_original(tmp_path):
    """cpu t32 seemed twice as fast in the search (3 runs) but runs as fast
    as the original in the final interleaved pairs: the original wins, the
    tuned program is the original itself (1.00x)."""
    timer = FakeTimer({"original": 1.0, "cpu t32": [0.5, 0.5, 0.5, 0.98]})
    r = _tune(tmp_path, timer, candidates=[Candidate("cpu")], budget=1000)
    assert r.best is r.original and r.confirmed == 1.0
    [c] = r.confirmations
    # interleaved: original, candidate, original, candidate …, stopped when
    # more than half the pairs are below the margin (3 of 5)
    stop = CONFIRM_PAIRS // 2 + 1
    assert not c.kept and len(c.candidate) == stop
    assert c.ratio == pytest.approx(1 / 0.98)
    assert "not kept (within noise)" in r.table() and "(1.00x)" in r.table()
    assert timer.calls[-2 * stop:] == ["original", "cpu t32"] * stop


@needs_gcc
def test_one_slow_pair_is_forgiven_two_are_not(tmp_path):
    """A 20 % faster median is kept when one pair of five is a spike (a run
    slower than the original's), not when two are: the gain is not
    robust then."""
    timer = FakeTimer({"original": 1.0,
                       "cpu t32": [0.8, 0.8, 0.8, 0.8, 1.3, 0.8, 0.8, 0.8]})
    r = _tune(tmp_path, timer, candidates=[Candidate("cpu")], budget=1000)
    assert r.best.candidate == Candidate("cpu")
    assert r.confirmations[0].ratio == pytest.approx(1.25) and r.confirmations[0].kept
    assert "faster in 4 of them" in r.table()
    timer = FakeTimer({"original": 1.0,
                       "cpu t32": [0.8, 0.8, 0.8, 0.8, 1.3, 0.8, 1.2, 0.8]})
    r = _tune(tmp_path / "two", timer, candidates=[Candidate("cpu")], budget=1000)
    assert r.best is r.original
    [c] = r.confirmations
    assert not c.kept and len(c.candidate) == 4       # stopped at the second loss


@needs_gcc
def test_the_next_fastest_is_confirmed_when_the_fastest_is_not(tmp_path):
    timer = FakeTimer({"original": 1.0, "cpu t16": [0.3, 0.3, 0.3, 1.0],
                       "cpu t32": 0.6})
    r = _tune(tmp_path, timer, candidates=FIXED, budget=1000)
    assert [c.label for c in r.confirmations] == ["cpu t16", "cpu t32"]
    assert r.best.candidate == Candidate("cpu") and r.confirmed == pytest.approx(1 / 0.6)


def test_confirm_rule_margin_and_lost_pairs():
    """:func:`confirm` alone, on injected times: a 4 % gain is within the
    margin; 10 % is kept, also with one pair lost, not with two."""
    def timer_of(orig, cand):
        seq = {"o": list(orig), "c": list(cand)}
        return lambda exe, c: ("", seq["o" if exe == "o" else "c"].pop(0))
    o = Trial(Candidate())
    c = Trial(Candidate("cpu"), exe="c")
    assert not confirm(timer_of([1.0] * 5, [1 / 1.04] * 5), o, "o", c).kept
    assert confirm(timer_of([1.0] * 5, [0.9] * 5), o, "o", c).kept
    assert confirm(timer_of([1.0] * 5, [0.9] * 4 + [1.01]), o, "o", c).kept
    assert not confirm(timer_of([1.0] * 5, [0.9] * 3 + [1.01] * 2), o, "o", c).kept
    assert confirm(timer_of([1.0] * 7, [0.9] * 7), o, "o", c, pairs=7).ratio == \
        pytest.approx(1 / 0.9)
    # two pairs won within the margin: all five run, the median decides
    seq = confirm(timer_of([1.0] * 5, [0.99, 0.9, 0.99, 0.9, 0.9]), o, "o", c)
    assert len(seq.candidate) == 5 and seq.kept
    # a run that fails keeps the original, and the verdict still prints
    def failing(exe, cand):
        raise VerifyError("killed")
    bad = confirm(failing, o, "o", c)
    assert not bad.kept and "not kept" in bad.line()
    # three within the margin: stopped after the third (the median cannot reach it)
    assert len(confirm(timer_of([1.0] * 5, [0.99, 0.98, 0.99, 0.9, 0.9]), o, "o", c)
               .candidate) == 3


@needs_gcc
def test_wrong_output_is_excluded(tmp_path):
    timer = FakeTimer({"original": 1.0, "cpu t32": 0.01, "cpu t16": 0.5},
                      wrong={"cpu t32"})
    r = _tune(tmp_path, timer, candidates=FIXED, budget=1000)
    bad = next(t for t in r.trials if t.candidate == Candidate("cpu"))
    assert not bad.verified and "other output" in bad.error
    assert r.best.candidate == Candidate("cpu", 16)
    assert "no: other output" in r.table()


@needs_gcc
def test_budget_is_respected(tmp_path):
    """Each fake run costs one second: with a budget of 8 s and 2 runs per
    candidate, the search stops after a few candidates (the original's runs
    and the final confirmation come on top)."""
    timer = FakeTimer({"original": 1.0}, default=0.9)
    r = _tune(tmp_path, timer, budget=8, repeat=2)
    timed = [t for t in r.trials[1:] if t.times]
    assert 1 <= len(timed) <= 4
    confirming = sum(2 * len(c.candidate) for c in r.confirmations)
    searched = len(timer.calls) - 2 - confirming
    assert searched <= 8 + 2                   # at most one candidate's runs over
    # the staged search goes on without a budget: more candidates
    timer2 = FakeTimer({"original": 1.0}, default=0.9)
    r2 = _tune(tmp_path / "more", timer2, budget=1000, repeat=1)
    assert len([t for t in r2.trials[1:] if t.times]) > len(timed)


@needs_gcc
def test_refused_candidates_are_reported_not_timed(tmp_path, monkeypatch):
    import clayx.tune as tune_mod

    def broken(self, c):
        if c.tile == 16:
            return "interchange([0], 1, 2);\n"          # illegal on gemm's fused nest
        return real(self, c)
    real = tune_mod._Space.script
    monkeypatch.setattr(tune_mod._Space, "script", broken)
    timer = FakeTimer({"original": 1.0, "cpu t16": 0.001, "cpu t32": 0.5})
    r = _tune(tmp_path, timer, candidates=FIXED, budget=1000)
    bad = next(t for t in r.trials if t.candidate == Candidate("cpu", 16))
    assert not bad.times and not bad.verified and bad.error
    assert "cpu t16" not in timer.calls
    assert r.best.candidate == Candidate("cpu")


@needs_gcc
def test_timing_runs_stop_after_the_last_region(tmp_path):
    """The instrumented program reports how many times its regions ended;
    run again with ``CLAYX_REGION_STOPS`` set to that, it exits right after
    the last one: the region time is there, the printing of the arrays is
    not.  The tuner's default timer checks the first run's output and times
    the later ones so."""
    from clayx.run import STOPS_ENV, instrument, region_seconds, region_stops
    from clayx.tune import region_timer
    s = clayx.load(EXAMPLES / "gemm.c")
    c = tmp_path / "g.c"
    c.write_text(instrument(s.original.source, [s.original.region]))
    compile_c(c, tmp_path / "g", opt="-O1", include_dirs=[EXAMPLES])
    full = run(tmp_path / "g")
    assert region_stops(full) == 1 and "begin dump: C" in full
    quick = run(tmp_path / "g", env=dict(os.environ, **{STOPS_ENV: "1"}))
    assert "begin dump" not in quick and region_seconds(quick, "g")[1] >= 0
    assert "clayx-region-stops" not in region_seconds(full, "g")[0]
    timer = region_timer(dict(os.environ), [])
    first = timer(tmp_path / "g", Candidate())
    again = timer(tmp_path / "g", Candidate())
    assert first[0] == again[0] == region_seconds(full, "g")[0]


def test_point_order_makes_gemm_innermost_loop_stride_one():
    """gemm's product ``C[i][j] += A[i][k] * B[k][j]``: with j innermost
    every access moves by 0 or 1 element; isl's order (i, j, k) has B jump."""
    s = clayx.load(EXAMPLES / "gemm.c")
    space = _Space(s)
    c = Candidate("cpu")
    chains = space.chains(c)
    assert [(p, n) for p, n, _f in chains] == [((0,), 2), ((1,), 3)]
    sched = replace(s.original, schedule=space.auto(c).schedule)
    assert point_order(sched, (1,), 3, 4) == 1                 # j innermost: i, k, j
    assert point_order(sched, (0,), 2, 3) == 1                 # C[i][j]: j stays inside
    script = candidate_script(s, c)
    # reordered, then the outermost parallel loops marked again
    assert script.endswith("interchange([1], 5, 6);\nparallelize([0]);\nparallelize([1]);\n")


def test_original_loops_with_parallel_marks_are_a_candidate():
    s = clayx.load(EXAMPLES / "gemm.c")
    assert candidate_script(s, Candidate("original", 0)) == "parallelize([0]);\n"
    assert Candidate("original", 0).label == "original parallel"


def test_candidate_labels():
    assert Candidate().label == "original"
    assert Candidate("cpu", 64, order=(0, 1), marks="vectorize").label == \
        "cpu t64 inner(0,1) vectorize"
    assert Candidate("nofuse", 0, wavefront=False, order=(-1,) * 8).label == \
        "nofuse untiled isl-order no-wavefront"


def test_openscop_input_is_refused(tmp_path):
    s = clayx.load(EXAMPLES / "gemm.c")
    path = tmp_path / "g.scop"
    path.write_text(s.openscop())
    with pytest.raises(VerifyError, match="needs a C program"):
        tune(clayx.load(path))


@needs_gcc
def test_command_writes_the_winner_as_script_and_as_code(tmp_path, monkeypatch):
    import clayx.tune as tune_mod
    real = tune_mod.tune

    def fake(session, **kw):
        timer = FakeTimer({"original": 1.0, "cpu t32": 0.5})
        kw.pop("progress", None)
        return real(session, timer=timer, clock=timer.clock, workdir=tmp_path / "w",
                    candidates=[Candidate("cpu")], **kw)
    monkeypatch.setattr(tune_mod, "tune", fake)
    err = io.StringIO()
    out_script = tmp_path / "best.clay"
    assert cli([str(EXAMPLES / "gemm.c"), "--tune", "--budget", "5", "--threads", "2",
                "-o", str(out_script)], stderr=err) == 0
    text = out_script.read_text()
    assert text.startswith("# clayx --tune: cpu t32, 2.00x") and "tile(" in text
    assert "winner: cpu t32" in err.getvalue()
    # the script replays, legality checked
    s = clayx.load(EXAMPLES / "gemm.c")
    s.apply(text)
    out_c = tmp_path / "best.c"
    assert cli([str(EXAMPLES / "gemm.c"), "--tune", "--emit", "omp", "-o", str(out_c)],
               stderr=io.StringIO()) == 0
    assert "#pragma omp parallel for schedule(static)" in out_c.read_text()
    assert cli([str(EXAMPLES / "gemm.c"), "--tune", "--run"], stderr=io.StringIO()) == 2


# -- differential: presets and tuned results on 1 and 4 threads ---------------------

def _run_equal(tmp_path, name: str, script: str, defines: dict) -> None:
    """The program with ``script`` applied, OpenMP on, prints what the
    original prints, on 1 and on 4 threads."""
    path = EXAMPLES / f"{name}.c"
    tmp_path.mkdir(parents=True, exist_ok=True)
    s = clayx.load(path)
    s2 = Session(s.original, others=s.others)
    if script:
        s2.apply(script)
    text, _, _ = program_text(s2, target="omp")
    gen = tmp_path / f"{name}_gen.c"
    gen.write_text(text)
    compile_c(path, tmp_path / "orig", defines=defines, opt="-O2")
    compile_c(gen, tmp_path / "gen", defines=defines, opt="-O2", openmp=True,
              include_dirs=[EXAMPLES])
    expected = run(tmp_path / "orig")
    for threads in (1, 4):
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        compare_outputs(expected, run(tmp_path / "gen", env=env))


#: examples and sizes (odd, so tiles of 8–32 are partial at the edges)
DIFF = {"gemm": {"NI": 37, "NJ": 45, "NK": 29}, "jacobi-2d": {}, "lu": {}, "covariance": {},
        "seidel-2d": {}, "trisolv": {}}


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("name,preset", list(itertools.product(sorted(DIFF), PRESETS)))
def test_presets_run_equal_on_1_and_4_threads(tmp_path, name, preset):
    s = clayx.load(EXAMPLES / f"{name}.c")
    try:
        script = candidate_script(s, Candidate(preset))
    except clayx.ClayxError as e:      # a preset isl cannot schedule: nothing to run
        pytest.skip(f"{preset} on {name}: {e}")
    _run_equal(tmp_path, name, script, DIFF[name])


@needs_gcc
@pytest.mark.parametrize("name", ["gemm", "jacobi-2d"])
def test_tile_sizes_orders_and_marks_run_equal(tmp_path, name):
    s = clayx.load(EXAMPLES / f"{name}.c")
    for k, c in enumerate([Candidate("cpu", 8, order=(0,) * 4),
                           Candidate("cpu", 0, marks="vectorize+unroll4"),
                           Candidate("cpu", 16, wavefront=False, marks="unroll4")]):
        _run_equal(tmp_path / str(k), name, candidate_script(s, c), DIFF[name])


def test_doitgen_privatization_candidates():
    """doitgen's ``sum[p]`` serializes its r and q loops: privatized per q
    (or per r and q), with the copy back of its final values split off,
    the loop at that depth is marked parallel."""
    s = clayx.load(EXAMPLES / "doitgen.c")
    assert _Space(s).privatizations() == [("sum", 2), ("sum", 1)]
    script = candidate_script(s, Candidate(ORIGINAL, 0, private=("sum", 1)))
    assert 'priv = add_array("sum_priv");' in script
    assert "datacopy_at(" in script and "split([0, 0, 1, 0], 1);" in script
    assert script.endswith("parallelize([0]);\n")       # not the copy back's loops
    assert Candidate(ORIGINAL, 0, private=("sum", 1)).label == \
        "original parallel private(sum, 1)"
    # nothing to privatize in gemm
    assert _Space(clayx.load(EXAMPLES / "gemm.c")).privatizations() == []


@needs_gcc
@pytest.mark.parametrize("depth", [1, 2])
def test_privatized_doitgen_runs_equal_on_1_and_4_threads(tmp_path, depth):
    s = clayx.load(EXAMPLES / "doitgen.c")
    script = candidate_script(s, Candidate(ORIGINAL, 0, private=("sum", depth)))
    s2 = Session(s.original, others=s.others)
    s2.apply(script)
    code = s2.code("omp")
    assert "sum_priv" in code and "#pragma omp parallel for schedule(static)" in code
    _run_equal(tmp_path, "doitgen", script, {"NR": 7, "NQ": 9, "NP": 11})


def test_best_orders_of_perfect_nests():
    """gemm's product nest (i, k, j) is stride 1 already; a (j, i) nest over
    ``A[i][j]`` wants i outside."""
    s = clayx.load(EXAMPLES / "gemm.c")
    assert best_orders(s.original) == []
    s = clayx.load(EXAMPLES / "mvt.c")
    assert [(p, n, i) for p, n, i in best_orders(s.original)] == [((1,), 2, 0)]


@needs_gcc
@pytest.mark.parametrize("name", ["correlation", "covariance", "gramschmidt"])
def test_distributed_permuted_candidate_runs_equal(tmp_path, name):
    """Pluto's wins on these come from distributing the loops and
    permuting them for stride 1: the candidate does that, legality checked,
    and runs equal on 1 and 4 threads."""
    s = clayx.load(EXAMPLES / f"{name}.c")
    script = candidate_script(s, Candidate(ORIGINAL, 0, order=DISTRIBUTE))
    assert "split(" in script and "interchange(" in script and "parallelize(" in script
    _run_equal(tmp_path, name, script, {})


@needs_gcc
@pytest.mark.parametrize("parallel", [True, False])
def test_permuted_candidate_runs_equal(tmp_path, parallel):
    """mvt's second nest reads ``A[j][i]`` with j inside: permuted, i is
    inside (stride 1), in parallel or not."""
    s = clayx.load(EXAMPLES / "mvt.c")
    c = Candidate(ORIGINAL, 0, order=PERMUTE, parallel=parallel)
    script = candidate_script(s, c)
    assert "interchange([1], 1, 2);" in script
    assert ("parallelize(" in script) == parallel
    assert c.label == ("original permuted parallel" if parallel else "original permuted")
    _run_equal(tmp_path, "mvt", script, {"N": 37})


@needs_gcc
@pytest.mark.slow
def test_tuned_result_runs_equal_on_1_and_4_threads(tmp_path):
    """A real (short) tuning run of jacobi-2d at a small size: its winner
    runs equal to the original on 1 and 4 threads."""
    s = clayx.load(EXAMPLES / "jacobi-2d.c")
    r = tune(s, budget=10, repeat=1, threads=2, workdir=tmp_path / "w")
    assert r.trials[0].verified
    assert all(t.verified or t.error for t in r.trials)
    _run_equal(tmp_path, "jacobi-2d", r.best.script, {})


def test_examples_sizes_are_macros():
    """The differential sizes above are macros of the examples (a renamed
    macro would silently test the default size)."""
    text = (EXAMPLES / "gemm.c").read_text()
    assert all(f"#ifndef {m}" in text for m in DIFF["gemm"])


# -- :tune at the prompt ---------------------------------------------------------------

def _fake_tune(monkeypatch, tmp_path, times, candidates):
    """Replace :func:`clayx.tune.tune` by the real one with a fake timer and
    a fixed candidate list (programs still compiled); returns the calls'
    keyword arguments."""
    import clayx.tune as tune_mod
    real = tune_mod.tune
    calls = []

    def fake(session, **kw):
        calls.append(kw)
        timer = FakeTimer(dict(times))
        return real(session, timer=timer, clock=timer.clock,
                    workdir=tmp_path / f"w{len(calls)}", candidates=candidates,
                    **{k: v for k, v in kw.items() if k not in ("workdir", "candidates")})
    monkeypatch.setattr(tune_mod, "tune", fake)
    return calls


@needs_gcc
def test_repl_tune_shows_the_table_and_accepts_the_winner(tmp_path, monkeypatch):
    from test_repl import drive, lines
    calls = _fake_tune(monkeypatch, tmp_path, {"original": 1.0, "cpu t32": 0.5},
                       [Candidate("cpu")])
    out, repl = drive(EXAMPLES / "gemm.c", lines(":tune 7 threads=2 -D NI=40", ":tune accept"),
                      width=170)
    assert calls[0]["budget"] == 7 and calls[0]["threads"] == 2
    assert calls[0]["defines"] == {"NI": "40"} and calls[0]["current"] is True
    assert "tuning from the original for 7 s" in out
    assert "* cpu t32" in out and "winner: cpu t32 (2.00x confirmed" in out
    assert ":tune 7s: cpu t32:" in out and "measured 2.00x the current code" in out
    assert "code it produces (omp)" in out
    assert "applied" in out and "from :tune 7s: cpu t32" in out
    s = repl.session
    assert s.entries and "tile" in str(s.script)
    expected = Session(s.original, others=s.others)
    expected.apply(candidate_script(s, Candidate("cpu")))
    assert s.current.schedule.union_map().is_equal(expected.current.schedule.union_map())


@needs_gcc
def test_repl_tune_starts_from_the_current_state(tmp_path, monkeypatch):
    """After a step, the program to beat is the current code (row
    ``current``) and the winner's script continues the applied steps."""
    _fake_tune(monkeypatch, tmp_path, {"original": 1.0, "cpu t32": 0.5}, [Candidate("cpu")])
    out, repl = drive_repl(EXAMPLES / "gemm.c", lines("reverse([0], 1);", ":tune 30",
                                                      ":tune accept"))
    assert "tuning from the current state for 30 s" in out
    assert "  current " in out
    steps = [str(e.step) for e in repl.session.entries]
    assert steps[0] == "reverse([0], 1);" and len(steps) > 1


@needs_gcc
def test_repl_tune_keeps_the_current_code_when_nothing_wins(tmp_path, monkeypatch):
    _fake_tune(monkeypatch, tmp_path, {"original": 1.0, "cpu t32": 0.99}, [Candidate("cpu")])
    out, repl = drive_repl(EXAMPLES / "gemm.c", lines(":tune 30", ":tune accept"))
    assert "winner: original (1.00x" in out
    assert "nothing to accept: the current code is the fastest" in out
    assert "no pending script" in out and not repl.session.entries


@needs_gcc
def test_repl_tune_refuses_a_file_without_main_and_bad_words(tmp_path):
    src = tmp_path / "gemm.c"
    src.write_text((EXAMPLES / "gemm.c").read_text().replace("int main(", "int not_main("))
    out, repl = drive_repl(src, lines(":tune 2", ":tune x y", ":tune -5", ":tune threads=0"))
    assert "gemm.c has no main function: tuning runs the program" in out
    assert "unexpected 'x'" in out
    assert "the budget is a positive number of seconds, not -5" in out
    assert "'threads=0': threads is a positive whole number" in out
    assert "Traceback" not in out and not repl.session.entries


def drive_repl(path, keys):
    """:func:`test_repl.drive` (imported late: it is a test module)."""
    from test_repl import drive
    return drive(path, keys, width=150)


def lines(*typed: str) -> str:
    """Each input followed by Enter (as test_repl's)."""
    return "".join(t + "\r" for t in typed)
