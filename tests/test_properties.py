"""Property tests over random directive sequences (hypothesis).

On small ``examples/`` kernels, sequences of 1–5 directives are drawn step
by step with arguments taken from the *current* schedule (loops and
statements that exist, depths they have), sometimes deliberately out of
range.  Every step goes through the public session API:

- a step that raises any :class:`~clayx.errors.ClayxError` leaves the session
  exactly as it was (entries, ``current`` object, script text, generated
  code);
- an accepted (checked) step leaves a legal schedule (``s.legal``);
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
from clayx.errors import ClayxError, DirectiveError, LegalityError
from clayx.verify import SMALL_SIZES, verify

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

#: Small-domain kernels that generate, compile and run fast; their outputs
#: change when an order is broken (unlike seidel-2d/jacobi-2d, whose initial
#: fields are fixed points of their stencils up to rounding).
STEMS = ("gemm", "atax", "mvt", "jacobi-1d", "beamforming", "bicg", "trmm")

#: Directive kinds the generator draws (no layout directives, no queries).
KINDS = ("reorder", "fuse", "split", "distribute", "shift", "skew", "reverse",
         "interchange", "reorder_loops", "stripmine", "tile", "linearize", "iss",
         "peel", "collapse", "embed", "unembed", "parallelize", "vectorize", "unroll",
         "grain", "densify")

_SESSIONS: dict[str, clayx.Session] = {}


def _fresh(stem: str) -> clayx.Session:
    """A new session on ``examples/<stem>.c`` (the parsed SCoP is reused)."""
    if stem not in _SESSIONS:
        _SESSIONS[stem] = clayx.load(EXAMPLES / f"{stem}.c")
    base = _SESSIONS[stem]
    return clayx.Session(base.original, others=base.others)


def _beta(b) -> str:
    return "[" + ", ".join(str(x) for x in b) + "]"


def _clay_list(items) -> str:
    parts = [_beta(x) if isinstance(x, (list, tuple)) else str(x) for x in items]
    return "{" + " | ".join(parts) + "}"


def draw_step(data, scop) -> str:
    """One directive call (script text) drawn against ``scop``'s schedule.

    Arguments come from the current β-tree: loops, statements, the depths
    the statements under a prefix have; with small probability a β-vector,
    depth, size or coefficient is out of range on purpose."""
    sched = scop.schedule
    loops = sched.loops()
    stmts = sched.betas
    n_par = len(scop.params)
    # ~10% out of range (9, not 0: hypothesis starts from the simplest values)
    bad = data.draw(st.integers(0, 9), label="bad") == 9

    def pick(options, label):
        return data.draw(st.sampled_from(list(options)), label=label)

    def a_loop():
        if bad and data.draw(st.booleans()):
            return pick([(9,), (0, 7), *stmts], "bad loop")
        return pick(loops, "loop") if loops else (0,)

    def a_prefix():
        return pick([*loops, *stmts], "prefix") if not bad else pick([(8,), ()], "bad prefix")

    def limit(prefix):
        rels = sched.relations_under(prefix)
        return min((r.depth for r in rels), default=1)

    def a_depth(prefix, lo=1, hi=None):
        hi = limit(prefix) if hi is None else hi
        if bad or hi < lo:
            return pick([0, hi + 1, -1], "bad depth")
        return data.draw(st.integers(lo, hi), label="depth")

    kind = pick(KINDS, "kind")
    if kind == "reorder":
        loop = pick([(), *loops], "reorder loop")
        n = len(sched.children(loop))
        order = data.draw(st.permutations(list(range(n))), label="order")
        if bad:
            order = order + [n] if data.draw(st.booleans()) else order[:-1]
        return f"reorder({_beta(loop)}, {_beta(order)});"
    if kind in ("fuse", "collapse", "linearize", "parallelize", "vectorize", "unroll"):
        loop = a_loop()
        # bias collapse/linearize towards loops where they can apply: a loop
        # holding two relations of one statement (after iss), a loop whose
        # only child is a loop (after stripmine)
        if kind == "collapse" and not bad:
            split_loops = [l for l in loops
                           if len({r.stmt for r in sched.relations_under(l)})
                           < len(sched.relations_under(l))]
            loop = pick(split_loops, "iss loop") if split_loops else loop
        if kind == "linearize" and not bad:
            chains = [l for l in loops if len(sched.children(l)) == 1
                      and sched.is_loop(sched.children(l)[0])]
            loop = pick(chains, "chunk loop") if chains else loop
            return f"linearize({_beta(loop)}, {len(loop)});"
        if kind == "unroll":
            return f"unroll({_beta(loop)}, {data.draw(st.integers(0 if bad else 1, 4))});"
        if kind == "linearize":
            return f"linearize({_beta(loop)}, {a_depth(loop, hi=len(loop))});"
        if kind in ("parallelize", "vectorize") and data.draw(st.booleans()):
            return f"{kind}({_beta(loop)}, {a_depth(loop, hi=len(loop))});"
        return f"{kind}({_beta(loop)});"
    if kind == "split":
        beta = pick(stmts, "split stmt") if not bad else (5, 5)
        return f"split({_beta(beta)}, {a_depth(beta, hi=len(beta) - 1)});"
    if kind == "distribute":
        loop = a_loop()
        n = len(sched.children(loop))
        k = data.draw(st.integers(1, max(1, n - 1))) if not bad else n
        return f"distribute({_beta(loop)}, {k});"
    if kind in ("embed", "unembed"):
        stmt = pick(stmts, "stmt") if not bad else pick(loops or [(4,)], "bad stmt")
        return f"{kind}({_beta(stmt)});"
    if kind == "shift":
        beta = a_prefix()
        params = "{}" if data.draw(st.booleans()) else _clay_list(
            data.draw(st.lists(st.integers(-1, 1), min_size=n_par, max_size=n_par)))
        const = data.draw(st.integers(-3, 3), label="const")
        return f"shift({_beta(beta)}, {a_depth(beta)}, {params}, {const});"
    if kind == "skew":
        loop = a_loop()
        d1 = a_depth(loop)
        d2 = a_depth(loop)
        if d1 == d2 and not bad and limit(loop) > 1:
            d2 = d1 % limit(loop) + 1           # a loop is not skewed by itself
        coeff = data.draw(st.sampled_from([-2, -1, 1, 2] + ([0] if bad else [])))
        return f"skew({_beta(loop)}, {d1}, {d2}, {coeff});"
    if kind in ("reverse", "densify"):
        beta = a_prefix()
        return f"{kind}({_beta(beta)}, {a_depth(beta)});"
    if kind == "grain":
        beta = a_prefix()
        return f"grain({_beta(beta)}, {a_depth(beta)}, {data.draw(st.integers(1, 3))});"
    if kind == "interchange":
        beta = a_prefix()
        return f"interchange({_beta(beta)}, {a_depth(beta)}, {a_depth(beta)});"
    if kind == "reorder_loops":
        beta = a_prefix()
        return f"reorder_loops({_beta(beta)}, {a_depth(beta, hi=limit(beta) - 1)});"
    if kind in ("stripmine", "tile"):
        loop = a_loop()
        size = data.draw(st.integers(2, 5)) if not bad else 0
        depth = a_depth(loop)
        if kind == "stripmine":
            text = f"stripmine({_beta(loop)}, {depth}, {size});"
            if data.draw(st.integers(0, 3), label="undo it") == 3:
                # and back, in the same all-or-nothing apply
                text += f" linearize({_beta(tuple(loop)[:depth])}, {depth});"
            return text
        outer = data.draw(st.integers(1, max(1, depth)), label="outer")
        return f"tile({_beta(loop)}, {depth}, {outer}, {size});"
    # iss / peel: u·α + w·p + C >= 0, flat form
    loop = a_loop()
    n_alpha = limit(loop) + (1 if bad else 0)
    alphas = data.draw(st.lists(st.integers(-1, 1), min_size=1, max_size=max(1, n_alpha)))
    params = [data.draw(st.sampled_from([0, 0, 1, -1])) for _ in range(n_par)]
    const = data.draw(st.integers(-2, 6), label="const")
    text = f"{kind}({_beta(loop)}, {_clay_list([*alphas, *params, const])});"
    if kind == "iss" and data.draw(st.integers(0, 3), label="undo it") == 3:
        text += f" collapse({_beta(loop)});"
    return text


def _state(s: clayx.Session) -> tuple:
    return s.entries, s.current, str(s.script)


def _run_sequence(s: clayx.Session, data, stats: Counter, *, code: bool) -> int:
    """Draw and apply 1–5 steps on ``s``; check every refusal changes nothing
    and every accepted step keeps the schedule legal.  Returns the number of
    accepted steps.  ``code``: also compare the generated C on refusals."""
    accepted = 0
    for _ in range(data.draw(st.integers(1, 5), label="length")):
        step = draw_step(data, s.current)
        if data.draw(st.integers(0, 7), label="pair") == 7:
            # two steps drawn on the same schedule, applied all-or-nothing:
            # the second may not fit after the first, and then both go
            step += " " + draw_step(data, s.current)
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
        assert s.legal, f"accepted but illegal: {s.script}"
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
