"""GPU code from a session or from the automatic ``gpu`` preset.

:func:`nested_parallel_marks` adds ``parallel`` marks on the loops nested
alone inside a marked loop that carry no dependence either (checked with
:func:`clayx.analysis.legality.parallel_violations`), so the CUDA printer
(:mod:`clayx.codegen.cuda`) can map two or three dimensions to the grid
(PPCG maps the outer coincident members of a band; the ``gpu`` preset marks
only the outermost).  :func:`gpu_schedule` is the ``gpu`` preset of
:func:`clayx.auto.schedule` (untiled by default: a tile loop alone would
give a block per tile and one thread per block) with those marks, and
:func:`cuda_code` the whole ``.cu`` (or emulated C) text of a file's SCoPs.

Before/after ``nested_parallel_marks`` on ``parallelize([0])`` of::

    for (i = 0; i < n; i++)         // parallel        (unchanged text; the
      for (j = 0; j < m; j++)       // parallel added   marks only steer
        A[i][j] = B[j][i];                               the mapping)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from .model import Mark, Scop

__all__ = ["cuda_code", "gpu_schedule", "nested_parallel_marks"]


def nested_parallel_marks(scop: Scop, deps=None, *, depth: int = 6) -> Scop:
    """``scop`` with a ``parallel`` mark added on each loop that is the
    only child of a loop marked parallel (up to ``depth`` marked loops in
    a row) when it carries no dependence."""
    from .analysis import dependences
    from .analysis.legality import parallel_violations
    if deps is None:
        deps = dependences(scop)
    sched = scop.schedule
    marked = {m.loop for m in sched.marks if m.kind == "parallel"}
    new: list[Mark] = []
    for top in sorted(marked, key=len):
        if any(top[:k] in marked for k in range(1, len(top))):
            continue                      # not an outermost marked loop
        loop, n = top, 1
        while n < depth:
            kids = sched.children(loop)
            if len(kids) != 1 or not sched.is_loop(kids[0]):
                break
            loop = tuple(kids[0])
            if loop not in marked:
                probe = replace(scop, schedule=sched)
                if parallel_violations(probe, loop, deps=deps, limit=1):
                    break
                new.append(Mark("parallel", loop))
            n += 1
    if not new:
        return scop
    return replace(scop, schedule=replace(sched, marks=tuple(sched.marks) + tuple(new)))


def gpu_schedule(scop: Scop, *, tile: int = 0, deps=None) -> Scop:
    """``scop`` rescheduled by the ``gpu`` preset of
    :func:`clayx.auto.schedule` (``tile``: its tile size, 0 for none),
    with :func:`nested_parallel_marks`."""
    from .analysis import dependences
    from .auto import schedule
    if deps is None:
        deps = dependences(scop)
    auto = schedule(scop, "gpu", tile=tile, deps=deps)
    return nested_parallel_marks(replace(scop, schedule=auto.schedule), deps)


def cuda_code(scops: Sequence[Scop], *, emulate: bool = False,
              block: Sequence[int] | None = None,
              grid: Sequence[int] | None = None, shared: bool = False) -> str:
    """The whole file of ``scops`` as CUDA (``emulate``: plain C running
    the same mapping; ``shared``: reused tiles of read-only arrays in
    shared memory), see :func:`clayx.codegen.cuda.generate_cuda_file`."""
    from .codegen.cuda import generate_cuda_file
    return generate_cuda_file(scops, emulate=emulate, block=block, grid=grid, shared=shared)
