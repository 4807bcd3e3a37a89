"""Clay's pseudo-transformations: semantic marks on loops (seed 004 §5.1,
PARALLELIZE; "other semantic information may allow code generator to unroll
loops or introduce vector operations").

A mark changes no date: it is a :class:`~clayx.model.Mark` ``(kind, loop,
arg)`` added to ``scop.schedule.marks``, naming the loop by its β-prefix.
Marks stay on their β-prefix when α dimensions are rewritten (interchange,
skew: Clay attaches the information to the output dimension) and follow
their loop when β-vectors move (normalization, stripmine, linearize).
Whether a ``parallel``/``vectorize`` mark is legal (no dependence carried at
that depth) is checked by the session; ``unroll`` is legal by construction.
A ``vectorize`` mark must also stay on an innermost loop: the session
re-checks that after every later step (:func:`check_innermost`), since
stripmine, tile, fuse or embed can put a loop inside the marked one.
Marking a loop again with the same kind replaces the earlier mark.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import DirectiveError, LegalityError
from ..model import ClaySchedule, Mark, Relation, Scop
from .params import Beta, Depth, Int
from .registry import directive


def with_mark(scop: Scop, mark: Mark) -> Scop:
    """``scop`` with ``mark`` on its loop (replacing a mark of the same kind
    there); the schedule's dates are unchanged."""
    sched = scop.schedule
    marks = tuple(m for m in sched.marks if (m.kind, m.loop) != (mark.kind, mark.loop))
    return replace(scop, schedule=ClaySchedule(sched.relations, marks + (mark,)))


def loop_inside(schedule: ClaySchedule, loop) -> Relation | None:
    """A relation under ``loop`` with a loop inside ``loop`` (its first
    one), or None when ``loop`` is innermost for every statement below it."""
    loop = tuple(loop)
    return next((r for r in schedule.relations_under(loop) if r.depth > len(loop)), None)


def check_innermost(scop: Scop, blame: str) -> None:
    """Raise :class:`~clayx.errors.LegalityError` when a ``vectorize`` mark
    of ``scop`` is on a loop that is not innermost for every statement below
    it (``#pragma omp simd`` on it would run inner loops in SIMD lanes).
    The message starts with ``blame`` (what made it so: ``stripmine is
    illegal: afterwards``) and names the marked loop and a loop inside it."""
    for m in scop.schedule.marks:
        if m.kind != "vectorize":
            continue
        r = loop_inside(scop.schedule, m.loop)
        if r is not None:
            inner = list(r.beta[:len(m.loop) + 1])
            raise LegalityError(
                f"{blame} the loop {list(m.loop)} marked vectorize is not innermost "
                f"(the loop {inner} around {r.stmt} is inside it)")


@directive("parallelize", Beta("beta", loop=True),
           Depth("depth", bound="path", optional=True), kind="mark")
def parallelize(scop: Scop, beta, depth: int | None = None) -> Scop:
    """Mark the loop ``beta[:depth]`` parallel (Clay's PARALLELIZE; an
    OpenMP ``parallel for`` in generated code).

    Arguments: ``beta`` a loop; ``depth`` (default ``len(beta)``) which
    enclosing level of it to mark::

        for (i = 0; i < n; i++)          parallelize([0])
          S(i);                    =>    #pragma omp parallel for
                                         for (i = 0; i < n; i++) S(i);

    Checks: ``beta`` a loop, ``1 <= depth <= len(beta)``.  Legality: no
    dependence may be carried at that depth among the statements of the
    loop (checked by the session).  Dates are unchanged.
    """
    loop = beta[:len(beta) if depth is None else depth]
    return with_mark(scop, Mark("parallel", loop, None))


@directive("vectorize", Beta("beta", loop=True),
           Depth("depth", bound="path", optional=True), kind="mark")
def vectorize(scop: Scop, beta, depth: int | None = None) -> Scop:
    """Mark the innermost loop ``beta[:depth]`` for vectorization
    (``#pragma omp simd`` in generated code).

    Arguments: ``beta`` a loop; ``depth`` (default ``len(beta)``).  The loop
    must be innermost (no loop inside it), else "the loop is not
    innermost"::

        for (i …)                        vectorize([0, 0])
          for (j …) S(i, j);       =>    for (i …)
                                           #pragma omp simd
                                           for (j …) S(i, j);

    Checks: ``beta`` a loop, ``1 <= depth <= len(beta)``, the loop
    innermost.  Legality: no dependence carried at that depth (checked by
    the session); a later step that carries a dependence there, or puts a
    loop inside it (stripmine or tile of it, fuse, embed …), is refused.
    """
    loop = beta[:len(beta) if depth is None else depth]
    if loop_inside(scop.schedule, loop) is not None:
        raise DirectiveError("the loop is not innermost", directive="vectorize",
                             argument=2 if depth is not None else 1)
    return with_mark(scop, Mark("vectorize", loop, None))


#: gcc's largest ``#pragma GCC unroll`` argument.
GCC_UNROLL_MAX = 65535


def unroll_marked(scop: Scop, loop, factor: int, name: str, argument: int) -> Scop:
    """``scop`` with the ``unroll`` mark ``factor`` on ``loop``; a factor
    above gcc's limit (:data:`GCC_UNROLL_MAX`) is refused, blaming
    ``argument`` of directive ``name``."""
    if factor > GCC_UNROLL_MAX:
        raise DirectiveError(f"the unroll factor {factor} is above gcc's limit "
                             f"({GCC_UNROLL_MAX}) for '#pragma GCC unroll'",
                             directive=name, argument=argument)
    return with_mark(scop, Mark("unroll", tuple(loop), factor))


@directive("unroll_mark", Beta("beta", loop=True), Int("factor", positive=True), kind="mark")
def unroll_mark(scop: Scop, beta, factor: int) -> Scop:
    """Ask the C compiler to unroll the loop ``beta`` by ``factor``: a mark,
    printed as ``#pragma GCC unroll factor``; dates are unchanged.  (Clay's
    ``unroll`` really unrolls in the schedule: :func:`.unroll.unroll`.)

    Arguments: ``beta`` a loop; ``factor`` in 1..65535 (gcc's limit; 1: no
    unrolling)::

        for (i = 0; i < n; i++)          unroll_mark([0], 4)
          S(i);                    =>    #pragma GCC unroll 4
                                         for (i = 0; i < n; i++) S(i);

    Checks: ``factor > 0``, ``beta`` a loop, ``factor <= 65535``.
    Legality: always legal (dates are unchanged).  Exo's
    ``unroll_loop(loop)`` (the whole loop) is :func:`.exo.unroll_loop`.
    """
    return unroll_marked(scop, beta, factor, "unroll_mark", 2)
