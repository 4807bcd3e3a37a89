"""Automatic scheduling: isl's scheduler (seed 001) with Pluto's
post-processing, as a Clay schedule and as a verified Clay script.

::

    from clayx.auto import auto, schedule
    s = clayx.load("examples/gemm.c")
    script = auto(s.original, "cpu", tile=32)     # a replayed, verified Script
    target = schedule(s.original, "cpu", tile=32) # the ClaySchedule it reaches

:func:`schedule` runs isl's scheduler with a :mod:`preset <.presets>`
(:func:`.scheduler.schedule_tree`), reads the tree into β/α relations
(:func:`.tree.from_tree`), hoists constant dimensions, tiles the permutable
band chains, adds wavefronts and parallel marks (:mod:`.post`) and checks
the result against the dependences.  For a CPU (every preset but ``gpu``,
``locality=False`` turns it off) the band loops are ordered so the
innermost walks the arrays with stride 1, two-loop bands with such access
stay untiled, parallel regions inside sequential loops need two-dimensional
work, and the loops as written are kept (with parallel marks) when isl's
schedule walks the arrays worse or brings only skews and wavefronts.  :func:`auto` then whiteboxes it
(:func:`clayx.whitebox.whitebox`): the sequence of Clay directives from the
SCoP's schedule to that target, replayed with clayx's own engine before it
is returned.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import islpy as isl

from ..errors import LegalityError
from ..model import ClaySchedule, Scop
from .presets import PRESETS, Preset, resolve
from .scheduler import SchedulingError, schedule_tree
from .tree import copy_relations, from_tree, relations_schedule, to_tree

__all__ = ["AutoSchedule", "PRESETS", "Preset", "SchedulingError", "auto", "from_tree",
           "schedule", "to_tree", "whiteboxed"]

#: Default tile size (Pluto's).
DEFAULT_TILE = 32


#: Bytes a wavefront (time) tile may touch and still bring reuse: a chain of
#: ``n`` loops tiled by ``size`` touches ``size ** (n - 1)`` elements of each
#: array (the time loop adds none).  Measured on the 2-core machine, 2
#: threads: jacobi-2d's 3-loop tiles (16 KiB) 1.25x the original against
#: 0.82x for its parallel sweeps; heat-3d's 4-loop tiles (512 KiB) 0.51x
#: against 1.02x.
WAVE_FOOTPRINT = 256 * 1024


def _cached(scop: Scop, rels, prefix: tuple, n: int, size: int) -> bool:
    """Whether the tiles of the chain of ``n`` loops at ``prefix`` (tiled
    by ``size``) fit :data:`WAVE_FOOTPRINT` (8-byte elements)."""
    arrays = {a.array for r in rels if tuple(r.betas[:len(prefix)]) == prefix
              for a in scop.statement(r.stmt).accesses}
    return 8 * len(arrays) * size ** (n - 1) <= WAVE_FOOTPRINT


class _Written:
    """The loops of a SCoP as they are (its schedule read back as isl's
    tree would be) and how they walk the arrays, computed on first use."""

    def __init__(self, scop: Scop):
        self.scop = scop
        self._rels = self._jumps = None

    def relations(self) -> list:
        """``from_tree(to_tree(scop), scop)`` (a fresh copy each time:
        the passes change relations in place)."""
        if self._rels is None:
            self._rels = from_tree(to_tree(self.scop), self.scop)
        return copy_relations(self._rels)

    def jumps(self) -> tuple:
        """:func:`.post.jumps` of the SCoP's schedule."""
        from .post import jumps
        if self._jumps is None:
            self._jumps = jumps(self.scop, self.scop.schedule)
        return self._jumps


#: :class:`_Written` by SCoP (its statements, context and schedule, kept
#: alive here, so an identity is never reused): a second ``auto`` of the
#: same state (another preset, ``whiteboxed``'s fallback, the benchmark's
#: repeats) reads the loops as written once; a few SCoPs' worth.
_WRITTEN: dict[int, tuple] = {}


def _as_written(scop: Scop) -> _Written:
    key = id(scop.schedule)
    hit = _WRITTEN.get(key)
    if hit is None or hit[0] is not scop.schedule or hit[1] is not scop.statements \
            or hit[2] is not scop.context:
        if len(_WRITTEN) > 16:
            _WRITTEN.clear()
        hit = _WRITTEN[key] = (scop.schedule, scop.statements, scop.context, _Written(scop))
    return hit[3]


@dataclass
class AutoSchedule:
    """What :func:`schedule` computed: the Clay ``schedule`` (marks
    included), isl's ``tree`` before post-processing, the ``preset`` used,
    the tiled chains ``(prefix, number of tile loops)`` and the time spent
    in seconds (``timings``: ``isl`` for isl's scheduler, ``post`` for the
    rest); ``kept_order``: the loops of the input schedule were kept
    (isl's would walk the arrays worse), only parallel marks added;
    ``locality``: the CPU post-processing was on."""

    schedule: ClaySchedule
    tree: isl.Schedule
    preset: Preset
    tiled: list = field(default_factory=list)
    timings: dict = field(default_factory=dict)
    kept_order: bool = False
    locality: bool = False


def schedule(scop: Scop, preset: str | Preset = "cpu", tile: int = DEFAULT_TILE, *,
             deps=None, scale_tiles: bool = False, wavefront: bool = True,
             parallel: bool = True, locality: bool | None = None,
             tree: isl.Schedule | None = None, **isl_options) -> AutoSchedule:
    """The automatic schedule of ``scop`` (see the module docstring).

    ``preset``: a name of :data:`PRESETS` or a :class:`Preset`;
    ``isl_options`` override its options (:func:`.presets.resolve`);
    ``tile``: tile size of every permutable band chain (0: no tiling);
    ``scale_tiles``: tile loops step by the tile size (isl's
    ``tile_scale_tile_loops``) instead of by 1; ``wavefront``: skew the tile
    loops of bands without a parallel member; ``parallel``: add parallel
    marks; ``deps``: the dependences in force (default: ``scop``'s);
    ``tree``: isl's schedule tree for ``scop`` under this preset and these
    dependences when it is already known (an :attr:`AutoSchedule.tree`:
    only the post-processing runs, ``timings["isl"]`` is 0);
    ``locality``: the CPU post-processing (default: on, except for the
    ``gpu`` preset, whose bands are mapped as PPCG maps them): band loops
    ordered for stride-1 innermost access, two-loop bands tiled only when
    that access still jumps, parallel marks inside sequential loops only
    over at least two-dimensional work, more dimensions than the
    sequential loops around (:mod:`.post`).

    Raises :class:`SchedulingError` when isl fails, and
    :class:`~clayx.errors.LegalityError` if the result breaks a dependence
    (a bug: isl's schedules respect the validity constraints)."""
    from ..analysis import check, dependences
    from . import post
    p = resolve(preset, isl_options)
    if deps is None:
        deps = dependences(scop)
    t_isl = 0.0
    if tree is None:
        t0 = time.perf_counter()
        tree = schedule_tree(scop, p, deps)
        t_isl = time.perf_counter() - t0
    t1 = time.perf_counter()
    rels = from_tree(tree, scop)
    rels = post.hoist(scop, rels)
    if locality is None:
        locality = p.name != "gpu"
    if locality:
        rels = post.distribute(scop, rels, deps)
    waves: list = []
    rels, tiled = post.tile(scop, rels, tile, scale=scale_tiles, wavefront=wavefront,
                            locality=locality, waves=waves)
    min_work = 2 if locality else 0

    def marked(rels):
        return post.parallel_marks(scop, rels, deps, min_work=min_work) if parallel else ()

    kept = False
    if locality:
        # keep the loops as they are, with parallel marks, unless isl's
        # schedule walks the arrays better, or as well and tiled (not only
        # wavefront tiles too big for the cache, where the loops as written
        # have as much parallel work) or more parallel (skewed or fused
        # loops that bring neither cost only)
        ja = post.jumps(scop, relations_schedule(rels, scop))
        written = _as_written(scop)
        jo = written.jumps()
        orig = written.relations() if ja >= jo else None
        if ja > jo:
            rels, tiled, marks, kept = orig, [], marked(orig), True
        else:
            marks = marked(rels)
            if ja == jo and all(p in waves and not _cached(scop, rels, p, n, tile)
                                for p, n in tiled):
                orig_marks = marked(orig)
                if (post.parallel_work(scop, rels, marks)
                        <= post.parallel_work(scop, orig, orig_marks)):
                    rels, tiled, marks, kept = orig, [], orig_marks, True
    else:
        marks = marked(rels)
    sched = relations_schedule(rels, scop, marks)
    try:
        check(replace(scop, schedule=sched), deps, directive=f"the {p.name} schedule")
    except LegalityError as e:
        raise LegalityError(f"bug: the automatic schedule breaks a dependence: {e}",
                            violations=e.violations, total=e.total) from None
    t2 = time.perf_counter()
    return AutoSchedule(sched, tree, p, tiled, {"isl": t_isl, "post": t2 - t1}, kept,
                        locality)


def whiteboxed(original, preset: str | Preset = "cpu", tile: int = DEFAULT_TILE, *,
               deps=None, progress=None, **options):
    """:func:`schedule` on ``original`` (a Session or a Scop: its current
    SCoP), whiteboxed into a verified script: ``(AutoSchedule,
    WhiteboxResult)``.  When no sequence of legal directives is recovered for
    the locality pass's loop orders (lu's reordered point loops after tiling:
    :class:`~clayx.whitebox.WhiteboxError`), isl's own order and tiling are
    taken instead (``locality=False``, from the same isl tree: isl's
    scheduler runs once), as ``--auto`` does; ``result.timings
    ["locality_undone"]`` then says so.  ``progress(phase, done, total)``:
    told ``"scheduling"`` before isl's scheduler runs, then what
    :func:`clayx.whitebox.whitebox` tells it."""
    from ..whitebox import WhiteboxError, whitebox
    scop = getattr(original, "current", original)
    if progress is not None:
        progress("scheduling", 0, None)
    target = schedule(scop, preset, tile, deps=deps, **options)
    try:
        result = whitebox(original, target.schedule, progress=progress)
    except WhiteboxError:
        if not target.locality:
            raise
        if progress is not None:
            progress("scheduling", 0, None)
        target = schedule(scop, preset, tile, deps=deps, tree=target.tree,
                          **dict(options, locality=False))
        result = whitebox(original, target.schedule, progress=progress)
        result.timings["locality_undone"] = True
    return target, result
