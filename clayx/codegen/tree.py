"""The isl schedule tree of a Clay schedule, with marks and AST options.

:func:`schedule_tree` turns a :class:`~clayx.model.ClaySchedule` into the
schedule tree isl's AST generator scans (seed 001, §4–5)::

    domain: the statement domains, each relation's instances named clayx_rel<k>
      sequence                      (β0: one filter per child, in β order)
        filter: instances under [0]
          mark "clayx:parallel"     (one mark node per mark on the loop [0])
            band [α1]               (the loop at [0]; AST options per band)
              sequence              (β1)
                filter: …
        filter: instances of [1]    (a statement: a leaf)

- one ``sequence`` node per β level with several children, one
  ``filter`` per child in β order (a single child needs neither);
- one ``band`` member per loop (β-prefix ``p`` of length ``k``): the
  ``α_k`` of every relation under ``p``, as a ``MultiUnionPwAff``; a loop
  whose only child is a loop shares its band with it (and so on down),
  unless one of them has AST options of its own or both have marks (the
  CUDA printer reads nested parallel loops from the mark nodes between
  them): isl scans a band of several members like nested one-member
  bands, but on a tile wavefront (an outer tile loop that is a sum of
  floors) an order of magnitude faster (jacobi-1d: 0.45 s -> 0.03 s);
- above the band of each marked loop, one ``mark`` node per mark (those
  of the one marked loop of the band), its id named by
  :func:`mark_name` (``clayx:parallel``, ``clayx:vectorize``,
  ``clayx:unroll:4``) and carrying the :class:`~clayx.model.Mark` as its
  user object, so a printer finds the marks of a ``for`` node in the AST
  itself: the mark node wraps what isl generates for the band, and its
  mark belongs to the loops of its loop's dimension inside;
- AST build options per band from a hook (:data:`BandOptions`: none by
  default; the fallbacks of :mod:`clayx.codegen.build` ask for ``separate``
  or ``atomic`` on every band, or isolate it whole), so tiling and GPU
  mapping can ask for ``isolate``/``unroll`` on the bands they made.

β levels produce no loop, so the band member of α depth ``k`` is the
``k``-th band member on every path: :func:`iterator_ids` names it
``c<2k-1>``, the schedule dimension it scans, as every printer and the AST
check expect.
"""

from __future__ import annotations

import re
from typing import Callable

import islpy as isl

from ..errors import CodegenError
from ..model import Beta, Mark, Scop

#: Prefix of the tuple name of relation ``k``'s instances in the tree and of
#: the AST's user-node annotations.
REL_PREFIX = "clayx_rel"

#: Prefix of the ids of clayx's mark nodes.
MARK_PREFIX = "clayx:"

#: The order of the mark nodes above one band, outermost first.
MARK_ORDER = ("parallel", "vectorize", "unroll")

#: A hook giving the AST build options of the band of a loop: called with
#: the loop's β-prefix, returns isl option text for
#: ``isl_schedule_node_band_set_ast_build_options`` (``"{ separate[x] }"``;
#: ``x`` the band's one dimension, an ``isolate`` option relates the
#: ``depth - 1`` outer band dimensions to it) or None for isl's default.
BandOptions = Callable[[Beta], "str | None"]


def relation_tag(k: int) -> str:
    """The tuple name of the instances of ``scop.schedule.relations[k]``."""
    return f"{REL_PREFIX}{k}"


def tag_index(name: str) -> int:
    """The relation index of a tag made by :func:`relation_tag`."""
    if not name.startswith(REL_PREFIX):
        raise CodegenError(f"unexpected tag {name!r}")
    return int(name[len(REL_PREFIX):])


def mark_name(mark: Mark) -> str:
    """The id of a mark node: ``clayx:<kind>`` (``clayx:unroll:4`` with an
    argument)."""
    arg = f":{mark.arg}" if mark.arg is not None else ""
    return f"{MARK_PREFIX}{mark.kind}{arg}"


def node_mark(mark_id: isl.Id) -> Mark | None:
    """The :class:`~clayx.model.Mark` a mark node of :func:`schedule_tree`
    carries (None for a mark node clayx did not make)."""
    if not mark_id.get_name().startswith(MARK_PREFIX):
        return None
    user = mark_id.user
    return user if isinstance(user, Mark) else None


def iterator_ids(ctx: isl.Context, prefix: str, max_depth: int, extra: int) -> isl.IdList:
    """The AST iterator ids of a tree of :func:`schedule_tree`, by band
    depth: ``c1, c3, …, c<2n-1>`` for the α bands (``c<d>`` for schedule
    dimension ``d``), then ``extra`` more ``c<2n+1>, c<2n+2>, …`` for the
    loops isl adds below a leaf whose schedule is not injective."""
    names = [f"{prefix}{2 * k - 1}" for k in range(1, max_depth + 1)]
    names += [f"{prefix}{2 * max_depth + 1 + e}" for e in range(extra)]
    ids = isl.IdList.alloc(ctx, len(names))
    for n in names:
        ids = ids.add(isl.Id(n, context=ctx))
    return ids


def schedule_tree(scop: Scop, band_options: BandOptions | None = None) -> isl.Schedule:
    """The schedule tree of ``scop``'s Clay schedule (module docstring):
    sequence/filter per β level, one band per α, mark nodes above the
    marked loops' bands, AST options per band from ``band_options``.
    Relations shallower than the deepest one get constant bands down to
    :attr:`~clayx.model.ClaySchedule.max_depth` (isl prints no loop for
    them), so every leaf is at one band depth and the loops isl adds for a
    non-injective schedule are named alike everywhere.

    :class:`~clayx.errors.CodegenError` when a relation does not give each
    instance one date (isl's tree needs functions)."""
    sched = scop.schedule
    ctx = scop.context.get_ctx()
    n_depth = sched.max_depth
    dates: dict[int, isl.PwMultiAff] = {}
    domains: dict[int, isl.UnionSet] = {}
    index = {r.beta: k for k, r in enumerate(sched.relations)}
    for k, rel in enumerate(sched.relations):
        m = rel.map.intersect_domain(scop.statement(rel.stmt).domain)
        m = m.intersect_params(scop.context).set_tuple_name(isl.dim_type.in_, relation_tag(k))
        if not m.is_single_valued():
            raise CodegenError(f"the schedule of {rel.stmt} at {list(rel.beta)} gives some "
                               "instances several dates: code cannot be generated for it")
        dates[k] = isl.PwMultiAff.from_map(m)
        domains[k] = isl.UnionSet.from_set(m.domain())
    marks: dict[Beta, list[Mark]] = {}
    for mk in sched.marks:
        marks.setdefault(tuple(mk.loop), []).append(mk)

    def under(prefix: Beta) -> list[int]:
        n = len(prefix)
        return [index[r.beta] for r in sched.relations if r.beta[:n] == prefix]

    def domain_of(rels: list[int]) -> isl.UnionSet:
        out = domains[rels[0]]
        for k in rels[1:]:
            out = out.union(domains[k])
        return out

    def member(rels: list[int], depth: int, constant: bool = False) -> isl.UnionPwAff:
        upa = None
        for k in rels:
            if constant:
                pa = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(
                    dates[k].get_domain_space()))
                pa = pa.intersect_domain(dates[k].domain())
            else:
                pa = dates[k].get_pw_aff(2 * depth - 1)
            u = isl.UnionPwAff.from_pw_aff(pa)
            upa = u if upa is None else upa.union_add(u)
        return upa

    def band(rels: list[int], depth: int, constant: bool = False,
             members: int = 1) -> isl.MultiUnionPwAff:
        mupa = isl.MultiUnionPwAff.from_union_pw_aff(member(rels, depth, constant))
        for d in range(depth + 1, depth + members):
            mupa = mupa.flat_range_product(
                isl.MultiUnionPwAff.from_union_pw_aff(member(rels, d, constant)))
        return mupa

    def options(kid: Beta) -> str | None:
        return band_options(kid) if band_options is not None else None

    def nest(kid: Beta) -> list[Beta]:
        """The loops one band scans from the loop ``kid`` down: ``kid``,
        and while the last has one child, a loop with no AST option of its
        own, that child too (when ``kid`` has no AST option either), as
        long as only one of them has marks (a printer reads the loops
        marked parallel nested in one another, CUDA's grid, from the mark
        nodes between them).  isl scans a band of several members like
        nested bands, but far faster when an outer member is a sum of
        floors (a tile wavefront: the stride detection of the inner tile
        loop otherwise costs 0.4 s on jacobi-1d)."""
        loops = [kid]
        if options(kid):
            return loops
        marked = kid in marks
        while True:
            kids = sched.children(loops[-1])
            if len(kids) != 1 or kids[0] in index or options(kids[0]) or (
                    marked and kids[0] in marks):
                return loops
            loops.append(kids[0])
            marked = marked or kids[0] in marks

    def contents(node: isl.ScheduleNode, prefix: Beta) -> isl.ScheduleNode:
        """Fill the leaf ``node`` with what is under ``prefix`` (below its
        band); returns the node at the same position."""
        kids = sched.children(prefix)
        if len(kids) == 1:
            return child(node, kids[0])
        filters = isl.UnionSetList.alloc(ctx, len(kids))
        for kid in kids:
            filters = filters.add(domain_of(under(kid)))
        node = node.insert_sequence(filters)
        for i, kid in enumerate(kids):
            node = child(node.child(i).child(0), kid).parent().parent()
        return node

    def child(node: isl.ScheduleNode, kid: Beta) -> isl.ScheduleNode:
        depth = len(kid)
        if kid in index:                           # a statement
            rel = sched.relations[index[kid]]
            for d in range(n_depth, rel.depth, -1):
                node = node.insert_partial_schedule(band([index[kid]], d, constant=True))
            return node
        loops = nest(kid)
        node = node.insert_partial_schedule(band(under(kid), depth, members=len(loops)))
        opts = options(kid)
        if opts:
            node = node.band_set_ast_build_options(isl.UnionSet(opts, context=ctx))
        node = contents(node.child(0), loops[-1]).parent()
        # the marks of the (at most one) marked loop of the band above it
        for loop in loops:
            kinds = sorted(marks.get(loop, ()), key=lambda m: MARK_ORDER.index(m.kind)
                           if m.kind in MARK_ORDER else len(MARK_ORDER))
            for mk in reversed(kinds):
                node = node.insert_mark(isl.Id(mark_name(mk), user=mk, context=ctx))
        return node

    if not sched.relations:
        raise CodegenError("the schedule has no statement")
    root = isl.Schedule.from_domain(domain_of(list(range(len(sched.relations)))))
    node = contents(root.get_root().child(0), ())
    return node.get_schedule()


def iterator_dim(name: str) -> int:
    """The 0-based schedule dimension of an AST loop iterator named by
    :func:`build_ast` (``"c3"`` → 3).  α depth ``k`` is dimension ``2k-1``."""
    m = re.search(r"(\d+)$", name)
    if m is None:
        raise CodegenError(f"unexpected AST iterator name {name!r}")
    return int(m.group(1))


def alpha_depth(dim: int, max_depth: int) -> int | None:
    """The 1-based α depth of schedule dimension ``dim`` (``2k-1`` → ``k``),
    or None for a β dimension or an extra dimension isl added beyond the
    ``2·max_depth+1`` schedule dimensions (non-injective schedules)."""
    if dim % 2 == 1 and dim < 2 * max_depth + 1:
        return (dim + 1) // 2
    return None


def scheduled_relations(scop: Scop) -> isl.UnionMap:
    """The schedule as isl scans it: each relation padded to
    ``2·max_depth+1`` outputs, restricted to its statement's domain, its
    domain tuple renamed ``clayx_rel<k>`` (so relations of one statement stay
    apart)."""
    sched = scop.schedule
    n_out = 2 * sched.max_depth + 1
    um = isl.UnionMap.empty(scop.context.get_space())
    for k, rel in enumerate(sched.relations):
        st = scop.statement(rel.stmt)
        m = rel.padded(n_out).intersect_domain(st.domain)
        m = m.set_tuple_name(isl.dim_type.in_, relation_tag(k))
        um = um.union(isl.UnionMap.from_map(m))
    return um


def iterator_prefix(scop: Scop) -> str:
    """``c``, or ``_c``… when a parameter is itself named like ``c3`` (isl ids
    of parameters and iterators must stay distinct in the AST)."""
    prefix = "c"
    while any(re.fullmatch(re.escape(prefix) + r"\d+", p) for p in scop.params):
        prefix = "_" + prefix
    return prefix
