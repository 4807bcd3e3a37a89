"""Calling isl's scheduler on a SCoP's exact dependences.

:func:`schedule_tree` builds isl schedule constraints from
:class:`~clayx.analysis.Dependences` (seed 001 §4.3, the kinds a
:class:`~.presets.Preset` names), sets the preset's isl options on the
context for the duration of the call (restored afterwards, the context is
shared) and returns isl's schedule tree.

The constraints are unions of the dependence relations as the analysis
gives them, *not* coalesced: on heat-3d the seven stencil reads of one
statement pair coalesce into one diamond-shaped relation of twenty
constraints, and isl's Farkas step on it takes 1.1 s against 0.05 s for the
seven simple ones (same schedule; measured on all 31 examples, none
changes).

isl's scheduler is the slowest step of ``--auto`` on adi and deriche: a few
large ILPs (``isl_tab_basic_set_non_trivial_lexmin``, the search for
non-trivial rows).  On adi three of them, the rows of the band of its
14-statement strongly connected component (computed alone, before any
merging of clusters), take ~75% of the time.  What was measured (process
time, medians of pairwise ratios of interleaved runs, tree text compared
on all 31 examples):

- isl's operation count (pivots and allocations, what ``max_operations``
  bounds) does not measure this time: ``serialize_sccs=1`` counts 78 k
  operations on adi against 581 k and takes about 0.8x the time.
- A bound on the constant terms (``max_constant_term``, any value from 16
  to 2**30) takes adi's scheduling to 0.64-0.72x with the same schedules
  for every preset but ``maxfuse``: the presets set it
  (:data:`~.presets.MAX_CONSTANT_TERM`).
- ``max_coefficient`` (even 2**20) makes adi slower (1.27x), and 2
  changes ludcmp's schedule.  ``treat_coalescing=0`` gives the same
  schedules on all 31 and no steady gain; ``split_scaled=0``,
  ``carry_self_first=0`` and ``separate_components=0`` leave adi's and
  deriche's schedules and time as they are; ``whole_component``,
  ``serialize_sccs``, ``maximize_coincidence``, ``outer_coincidence`` and
  ``algorithm=1`` change them.
- Coalescing or simplifying the dependence relations, computing the flows
  with a schedule tree, or dropping the RAR proximity of scalars (which
  changes deriche's schedule and seven others') bring nothing steady.
- Later, the same way: isl's ILP options ``gbr_only_first=1`` (adi 1.00x)
  and ``pip_symmetry=0`` (0.98x) change nothing; dropping from the
  proximity union the basic maps equal to or inside another of the same
  map (adi's 170 have 37, its Farkas constraints are the same) leaves the
  schedules as they are but covariance's under ``maxfuse`` and costs what
  it saves (adi 0.96x, heat-3d 1.6x).  Validity and coincidence are the
  same object for ``cpu`` and isl merges equal edges of different kinds
  itself: there is nothing to deduplicate.
- The RAR dependences (proximity only, computed once per program, on the
  first ``--auto``) take 0.35-0.49 s on heat-3d, more than the scheduler;
  flowing them along the schedule tree instead of the schedule map gives
  the same relations but is not faster (heat-3d 1.2x, adi 0.6x, deriche
  1.2x); nor are one flow per array or untagged reads.
- Later still: the proximity relation of each statement pair replaced by
  its convex hull (the same Farkas constraints: f >= 0 on a union iff on
  its hull) gives adi's schedule in the same time (and hangs on heat-3d);
  dropping the RAR of a statement with itself keeps adi's schedule, no
  faster; dropping RAR proximity altogether takes adi to ~0.4x but changes
  its schedule (and seven others').
- Why nothing is steady (instruction counts under valgrind's callgrind,
  which the machine's load does not blur): the order in which isl visits
  the maps of a union, not their form (below).  Making adi's and deriche's thirteen
  straight-line scalar statements one node (they run once, in the order
  written; isl's ``expand``/pullback puts them back) changes adi's ``gpu``
  and ``nofuse`` trees and deriche's ``gpu`` one.  isl's ``gbr``,
  ``gbr_only_first`` and ``context`` options (set through
  ``isl_ctx_parse_options``) change nothing (±0.01 %).
- The form of the constraints, measured (``scripts/isl_form_probe.py``,
  instructions of ``isl_schedule_constraints_compute_schedule``; adi
  4.94·10⁹, deriche 1.30·10⁹ as built here).  The relations are already
  in isl's simplest form: ``detect_equalities``, ``remove_redundancies``,
  ``compute_divs``, the same per basic map, and sorting basic maps by size
  change no map of adi or deriche, and the Farkas sets isl builds from them
  have the same number of constraints whatever the form (adi 1559,
  coalesced 1557; deriche 2157).  What changes is the order of the maps in
  isl's hash table (their spaces' hashes, collisions by insertion order):
  the same maps put in again in isl's visiting order take adi to 0.98x,
  the whole constraints printed and read back 1.34x (the 6.6·10⁹ above),
  coalesced 1.22x, two random orders 1.00x and 1.24x.  deriche does not
  move: three orders and coalescing within ±0.1 %; its time is ~34 % ILPs
  and ~40 % isl's clustering (1750 ``isl_union_map_apply_range``/
  ``_domain`` and 3354 ``isl_map_is_empty`` on the edges between
  clusters), which depend on the edges, not on their form (without its
  read-after-read proximity, another schedule, 0.97x).  And the order is no free
  knob: the same maps put in in another order change correlation's
  ``cpu``, ``gpu`` and ``maxfuse`` trees (its fusion) and adi's
  ``maxfuse`` one, random orders also 3mm's and covariance's ``maxfuse``
  ones: isl breaks ties by the order of its edges.  So the order is
  fixed here, on purpose, as part of every preset: :func:`edge_order`.
  Proximity given apart (a statement pair's validity relation as its
  proximity, which isl then bounds from above only, its read-after-read
  relations reversed onto the other direction: the same bounds) changes
  adi's ``cpu`` tree (isl's clustering reads the direction).  So no form
  of the same constraints takes adi and deriche 20 % down: nothing was
  adopted.
- ``schedule_parametric`` (islpy has no setter: :mod:`.islargs`), off
  against isl's default on, 31 examples x 5 presets, medians of 5
  interleaved runs (process time of ``compute_schedule``): ``cpu`` 0.63x
  in all (adi 0.41x, deriche 0.83x), 11 trees change (adi, correlation,
  covariance, deriche, doitgen, durbin, gemver, gesummv, gramschmidt,
  ludcmp, symm: the statements a parametric shift put after a loop inside
  a fused band come in a sequence), and after post-processing the code of
  four: adi (isl's schedule, tiled, 4 parallel loops, instead of the loops
  as written with 2; the same sequential time), correlation (the same
  time), covariance (gcc -O3 0.65x the speed, a vectorization accident:
  the same under -O2) and gemver (fused and interchanged, 3-5x faster on one
  thread, but none of its 4 parallel loops left).  ``bench_whitebox.py
  --cpu``: adi 0.41 -> 0.33 s (the longer script costs replay and code
  generation), deriche 0.24 -> 0.23 s.  So ``cpu`` keeps it on (a lost
  parallel loop, deriche no faster).  ``gpu`` 0.79x, 6 trees change
  (PPCG's default is on: kept); ``feautrier`` 0.88x, 7 change;
  ``maxfuse`` 0.42x, 15 change; ``nofuse`` 0.47x (adi 0.27x, deriche
  0.58x), no tree changes: ``nofuse`` turns it off
  (:data:`~.presets.NOFUSE_PARAMETRIC`).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from contextlib import contextmanager
from typing import Iterator

import islpy as isl

from ..codegen.budget import ctx_options
from ..errors import ClayxError
from ..model import Scop
from .islargs import bool_option, set_bool_option
from .presets import ISL_OPTIONS, Preset

__all__ = ["MAX_OPERATIONS", "SchedulingError", "TREE_CACHE_SIZE", "cache_stats",
           "clear_cache", "edge_order", "isl_options", "schedule_constraints",
           "schedule_tree"]

#: isl operation budget of one scheduler call (0: none).  The slowest
#: example (adi) needs about 2·10⁸; the budget stops a runaway ILP after a
#: minute or so instead of hanging the prompt.
MAX_OPERATIONS = 5_000_000_000


class SchedulingError(ClayxError):
    """isl's scheduler failed or ran out of its operation budget."""


@contextmanager
def isl_options(ctx: isl.Context, options: dict[str, int]) -> Iterator[None]:
    """Set isl scheduler options (names of :data:`~.presets.ISL_OPTIONS`) on
    ``ctx`` for the duration of the block; the old values come back after.

    ``parametric`` (isl's ``schedule_parametric``, which islpy does not
    wrap) is set through :mod:`.islargs`; where that cannot be done (the
    context's pointer does not validate) and another value than the one in
    force is asked for, a :class:`RuntimeWarning` says so once and isl
    keeps its value."""
    wrapped = {k: v for k, v in options.items() if k != "parametric"}
    names = [k for k in ISL_OPTIONS if k != "parametric"]
    with ctx_options(ctx, "schedule_", wrapped, names):
        old = bool_option(ctx, _PARAMETRIC)
        want = options.get("parametric", old)
        changed = want != old
        if changed and not set_bool_option(ctx, _PARAMETRIC, want):
            _warn_parametric(want, old)
            changed = False
        try:
            yield
        finally:
            if changed:
                set_bool_option(ctx, _PARAMETRIC, old)


_PARAMETRIC = "schedule-parametric"
_WARNED: set[int] = set()


def _warn_parametric(value: int, kept: int) -> None:
    """Say once per value that ``schedule_parametric`` could not be set."""
    if value not in _WARNED:
        _WARNED.add(value)
        warnings.warn(f"isl's schedule_parametric={value} could not be set through this "
                      "islpy (its context pointer did not validate); isl's scheduler runs "
                      f"with schedule_parametric={kept}", RuntimeWarning, stacklevel=4)


#: How many isl trees :func:`schedule_tree` remembers (the most recently
#: used ones).
TREE_CACHE_SIZE = 8

#: key -> (dependences, tree): the dependences are kept alive with the
#: tree, so the ``id`` in the key is never reused while the entry lives
_TREES: OrderedDict = OrderedDict()
_STATS = {"hits": 0, "misses": 0}


def clear_cache() -> None:
    """Forget the isl trees :func:`schedule_tree` remembers (benchmarks
    that time isl's scheduler call it before each run)."""
    _TREES.clear()


def cache_stats() -> dict[str, int]:
    """How many :func:`schedule_tree` calls were answered from memory
    (``hits``) and by isl (``misses``) since the process started."""
    return dict(_STATS)


def edge_order(scop: Scop, deps) -> list:
    """``deps`` in the order isl's scheduler is given them: by kind (RAW,
    WAR, WAW, RAR), then source and sink statement in the program's order,
    then the source's and the sink's access in their statement's order.

    The order is part of a preset's definition, not an accident of the
    analysis: isl keeps a union's maps in a hash table whose collisions keep
    insertion order, and a map's basic maps in the order they were united,
    and its scheduler breaks ties by the order it meets its edges.  The same
    relations inserted in another order give correlation another ``cpu``,
    ``gpu`` and ``maxfuse`` tree (another fusion) and adi another
    ``maxfuse`` one (``scripts/isl_form_probe.py``).  Sorting here makes
    ``--auto`` independent of how :class:`~clayx.analysis.Dependences`
    lists its dependences (this is the order the analysis gives today, so
    the pinned trees of ``tests/data/auto/tree_shapes.json`` are those of
    this order)."""
    from ..analysis.dependences import KINDS
    kinds = {k: i for i, k in enumerate(KINDS)}
    stmts = {s.name: i for i, s in enumerate(scop.statements)}
    refs = {}
    for s in scop.statements:
        for k, a in enumerate(s.accesses):
            refs.setdefault((s.name, a.ref or f"{s.name}_r{k}"), k)
    n = len(refs)

    def key(d):
        return (kinds[d.kind], stmts.get(d.source, n), d.source, stmts.get(d.sink, n), d.sink,
                refs.get((d.source, d.source_ref), n), d.source_ref,
                refs.get((d.sink, d.sink_ref), n), d.sink_ref)
    return sorted(deps, key=key)


def _union(space: isl.Space, deps) -> isl.UnionMap:
    um = isl.UnionMap.empty(space)
    for d in deps:
        um = um.union(isl.UnionMap.from_map(d.relation))
    return um


def schedule_tree(scop: Scop, preset: Preset, deps=None, *,
                  max_operations: int | None = MAX_OPERATIONS) -> isl.Schedule:
    """isl's schedule tree for ``scop`` under ``preset``.

    ``deps`` are the dependences in force (default: those of ``scop``,
    :func:`clayx.analysis.dependences`).  Raises :class:`SchedulingError`
    when isl fails (no schedule, operation budget exhausted).

    isl's answer depends only on the statements' domains, the context, the
    dependences and the preset, not on the current schedule: the last
    :data:`TREE_CACHE_SIZE` trees are remembered, keyed by those (the
    dependences by identity: one object per program, :func:`dependences`),
    so ``:auto`` again after a few steps, or with another tile size, and
    the tuner's candidates of one preset, run isl's scheduler once."""
    from ..analysis import dependences
    if deps is None:
        deps = dependences(scop)
    dom = scop.domains()
    key = (id(deps), str(dom), str(scop.context), preset.validity, preset.proximity,
           preset.coincidence, tuple(sorted(preset.isl_options().items())), max_operations)
    hit = _TREES.get(key)
    if hit is not None and hit[0] is deps:
        _TREES.move_to_end(key)
        _STATS["hits"] += 1
        return hit[1]
    _STATS["misses"] += 1
    tree = _compute(scop, dom, preset, deps, max_operations)
    _TREES[key] = (deps, tree)
    while len(_TREES) > TREE_CACHE_SIZE:
        _TREES.popitem(last=False)
    return tree


def schedule_constraints(scop: Scop, dom: isl.UnionSet, preset: Preset,
                         deps) -> isl.ScheduleConstraints:
    """isl's schedule constraints of ``scop`` (domains ``dom``) under
    ``preset``: the unions of the dependences of the kinds the preset names
    (what :func:`schedule_tree` hands isl's scheduler), each united in
    :func:`edge_order`."""
    sc = isl.ScheduleConstraints.on_domain(dom).set_context(scop.context)
    unions: dict[tuple[str, ...], isl.UnionMap] = {}     # cpu: coincidence = validity

    def union(kinds: tuple[str, ...]) -> isl.UnionMap:
        if kinds not in unions:
            unions[kinds] = _union(deps.space, edge_order(scop, deps.of_kind(*kinds)))
        return unions[kinds]
    sc = sc.set_validity(union(preset.validity))
    sc = sc.set_proximity(union(preset.proximity))
    return sc.set_coincidence(union(preset.coincidence))


def _compute(scop: Scop, dom: isl.UnionSet, preset: Preset, deps,
             max_operations: int | None) -> isl.Schedule:
    """isl's scheduler on ``scop``'s domains ``dom`` (:func:`schedule_tree`
    without memory)."""
    ctx = scop.context.get_ctx()
    sc = schedule_constraints(scop, dom, preset, deps)
    prev = ctx.get_max_operations()
    try:
        with isl_options(ctx, preset.isl_options()):
            ctx.reset_operations()
            ctx.set_max_operations(int(max_operations or 0))
            return sc.compute_schedule()
    except isl.Error as e:
        if "maximal number of operations" in str(e):
            raise SchedulingError(
                f"isl's scheduler exceeded {max_operations} operations with preset "
                f"{preset.name!r}; try another preset") from None
        raise SchedulingError(f"isl's scheduler failed with preset {preset.name!r}: "
                              f"{e}") from None
    finally:
        ctx.set_max_operations(prev)
        ctx.reset_operations()
