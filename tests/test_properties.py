"""Property tests over random directive sequences (hypothesis).

On small ``examples/`` kernels, sequences of 1–5 directives are drawn step
by step with arguments taken from the *current* schedule (loops and
statements that exist, depths they have), sometimes deliberately out of
range.  Every step goes through the public session API:

- a step that raises any :class:`~clayx.errors.ClayxError` leaves the session
  exactly as it was (entries, ``current`` object, script text, generated
  code);
- an accepted (checked) step leaves a schedule that keeps every pair of
  conflicting accesses of a concrete run (all parameters 4) in order
  (:mod:`oracle`, which shares nothing with clayx's analyses);
- (slow) at the end of a sequence with accepted steps, the generated program
  is compiled, run and compared with the original (:func:`clayx.verify.verify`).

Each test counts accepted and refused steps and asserts that both branches
(and both kinds of refusal: bad arguments, broken dependences) occur.
Runs are derandomized, so CI sees the same sequences every time.
The data-layout directives and the OpenMP target are left out: they have
their own tests.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import clayx
from clayx.errors import ClayxError, CodegenError, DirectiveError, LegalityError
from clayx.fuzz import ALL_KINDS, DEEP_KINDS
from clayx.fuzz import draw_step as fuzz_step
from clayx.verify import SMALL_SIZES, verify

from oracle import broken_pairs, ordered_pairs

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

#: Small-domain kernels that generate, compile and run fast; their outputs
#: change when an order is broken (unlike seidel-2d/jacobi-2d, whose initial
#: fields are fixed points of their stencils up to rounding).
STEMS = ("gemm", "atax", "mvt", "jacobi-1d", "beamforming", "bicg", "trmm")

_SESSIONS: dict[str, clayx.Session] = {}
_PAIRS: dict[str, set] = {}
#: The parameter values of the concrete runs the oracle makes.
ORACLE_SIZE = 4


class HypothesisChooser:
    """A :class:`clayx.fuzz.Chooser` drawing through hypothesis (so failing
    sequences shrink)."""

    def __init__(self, data):
        self.data = data

    def pick(self, options, label):
        return self.data.draw(st.sampled_from(list(options)), label=label)

    def integer(self, lo, hi, label):
        return self.data.draw(st.integers(lo, hi), label=label)

    def permutation(self, items, label):
        return self.data.draw(st.permutations(list(items)), label=label)


def _fresh(stem: str) -> clayx.Session:
    """A new session on ``examples/<stem>.c`` (the parsed SCoP is reused)."""
    if stem not in _SESSIONS:
        _SESSIONS[stem] = clayx.load(EXAMPLES / f"{stem}.c")
    base = _SESSIONS[stem]
    s = clayx.Session(base.original, others=base.others)
    s.stem = stem
    return s


def _broken(s: clayx.Session) -> set:
    """The pairs of a concrete run of the original that the current schedule
    runs out of order (:func:`oracle.broken_pairs`)."""
    params = {p: ORACLE_SIZE for p in s.original.params}
    if s.stem not in _PAIRS:
        _PAIRS[s.stem] = ordered_pairs(s.original, params)
    return broken_pairs(s.original, s.current, params, _PAIRS[s.stem])


def draw_step(data, scop, kinds=ALL_KINDS) -> str:
    """One directive call drawn against ``scop`` (see :func:`clayx.fuzz.draw_step`)."""
    return fuzz_step(HypothesisChooser(data), scop, kinds)


def _state(s: clayx.Session) -> tuple:
    return s.entries, s.current, str(s.script)


def _run_sequence(s: clayx.Session, data, stats: Counter, *, code: bool,
                  max_len: int = 5, kinds=ALL_KINDS) -> int:
    """Draw and apply 1–``max_len`` steps (of ``kinds``) on ``s``; check every
    refusal changes nothing and every accepted step keeps the schedule legal.
    Returns the number of accepted steps.  ``code``: also compare the
    generated C on refusals."""
    accepted = 0
    for _ in range(data.draw(st.integers(1, max_len), label="length")):
        step = draw_step(data, s.current, kinds)
        if data.draw(st.integers(0, 7), label="pair") == 7:
            # two steps drawn on the same schedule, applied all-or-nothing:
            # the second may not fit after the first, and then both go
            step += " " + draw_step(data, s.current, kinds)
        entries, current, script = _state(s)
        before = s.code("c") if code else None
        try:
            s.apply(step)
        except ClayxError as e:
            stats["refused"] += 1
            stats["refused: " + ("legality" if isinstance(e, LegalityError) else
                                 "arguments" if isinstance(e, DirectiveError) else
                                 type(e).__name__)] += 1
            assert s.entries == entries, step
            assert s.current is current, step
            assert str(s.script) == script, step
            if code:
                assert s.code("c") == before, step
            continue
        stats["accepted"] += 1
        for call in step.split(";")[:-1]:
            stats["ok " + call.split("(")[0].strip()] += 1
        accepted += 1
        assert len(s.entries) == len(entries) + step.count(";"), step
        assert str(s.script).startswith(script), step
        bad = _broken(s)
        assert not bad, f"accepted but {sorted(bad)[:3]} run out of order: {s.script}"
    stats["sequences"] += 1
    stats["sequences with an accepted step"] += bool(accepted)
    return accepted


def _report(name: str, stats: Counter) -> None:
    """Print the counts (``pytest -s`` shows them) and check both branches ran."""
    print(f"\n{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    assert stats["accepted"] > 0 and stats["refused: legality"] > 0
    assert stats["refused: arguments"] > 0


def test_refused_steps_change_nothing():
    """Fast: many random sequences; refusals leave the session unchanged,
    accepted steps keep it legal (no compilation)."""
    stats: Counter = Counter()

    @settings(max_examples=600, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(stem=st.sampled_from(STEMS), data=st.data())
    def prop(stem, data):
        _run_sequence(_fresh(stem), data, stats, code=False)

    prop()
    _report("fast", stats)


@needs_gcc
@pytest.mark.slow
def test_accepted_sequences_compute_the_same(tmp_path, monkeypatch):
    """Slow: refusals leave even the generated code unchanged; every
    sequence with accepted steps generates a program whose output equals the
    original's (compiled, run, compared; with ``-fopenmp`` on 4 threads when
    a loop is marked parallel or vectorized)."""
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    stats: Counter = Counter()

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(stem=st.sampled_from(STEMS), data=st.data())
    def prop(stem, data):
        s = _fresh(stem)
        if not _run_sequence(s, data, stats, code=True):
            return
        work = Path(tempfile.mkdtemp(dir=tmp_path))
        # with a parallel/vectorize mark, the OpenMP code is what is run
        # (4 threads: see the monkeypatched OMP_NUM_THREADS)
        omp = any(m.kind in ("parallel", "vectorize") for m in s.current.schedule.marks)
        gen = work / f"{stem}_gen.c"
        gen.write_text(s.code("omp" if omp else "c"))
        res = verify(EXAMPLES / f"{stem}.c", gen, SMALL_SIZES[stem], workdir=work, openmp=omp)
        assert res.ok and res.values > 0, str(s.script)
        stats["verified"] += 1
        stats["verified with OpenMP"] += omp

    prop()
    _report("slow", stats)
    assert stats["verified"] > 0 and stats["verified with OpenMP"] > 0


#: Kernels with 3-deep nests (heat-3d: 4-deep), for long sequences of tiling,
#: reshaping, interchanges and skews: the shapes on which isl's AST generator
#: dropped instances (issue 13, item 1).
DEEP_STEMS = ("gemm", "symm", "syrk", "trmm", "2mm", "doitgen", "heat-3d", "lu",
              "seidel-2d", "floyd-warshall")


def _deep_code(data, stats: Counter) -> tuple[clayx.Session, str] | None:
    """Draw a kernel and up to 20 steps of :data:`DEEP_KINDS` on it; the
    session and its generated C (None when no step was accepted).  Code
    generation may only refuse for isl's operation budget: every other
    schedule must give an AST that :func:`build_ast` proves exact."""
    stem = data.draw(st.sampled_from(DEEP_STEMS), label="stem")
    s = _fresh(stem)
    _run_sequence(s, data, stats, code=False, max_len=20, kinds=DEEP_KINDS)
    if not s.entries:
        return None
    try:
        text = s.code("c")
    except CodegenError as e:
        assert "exceeded" in str(e), f"{s.script}: {e}"
        stats["too complex to generate"] += 1
        return None
    stats["generated"] += 1
    return s, text


def test_deep_sequences_generate_code():
    """Fast: up to 20 steps of tile/reshape/interchange/skew/… on 3-deep
    nests; every accepted sequence generates code (see :func:`_deep_code`)."""
    stats: Counter = Counter()

    @settings(max_examples=150, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def prop(data):
        _deep_code(data, stats)

    prop()
    _report("deep", stats)
    assert stats["generated"] > 100


@needs_gcc
@pytest.mark.slow
def test_deep_sequences_compute_the_same(tmp_path):
    """Slow: long sequences on 3-deep nests, every generated program
    compiled, run and compared with the original (this would have caught
    issue 13's dropped instances; ``scripts/fuzz_codegen.py`` runs thousands
    of such sequences)."""
    stats: Counter = Counter()

    @settings(max_examples=40, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(data=st.data())
    def prop(data):
        got = _deep_code(data, stats)
        if got is None:
            return
        s, text = got
        work = Path(tempfile.mkdtemp(dir=tmp_path))
        gen = work / f"{s.stem}_gen.c"
        gen.write_text(text)
        res = verify(EXAMPLES / f"{s.stem}.c", gen, SMALL_SIZES[s.stem], workdir=work)
        assert res.ok and res.values > 0, str(s.script)
        stats["verified"] += 1

    prop()
    _report("deep, run", stats)
    assert stats["verified"] >= 25
