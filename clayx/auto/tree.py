"""Schedule trees ↔ Clay's β/α relations (seed 000 §2, seed 004 §4.2).

:func:`from_tree` reads an isl schedule tree into Clay relations:

- a ``sequence`` or ``set`` node numbers its filter children: that number
  is the β value at the current level (nested sequences with no band in
  between are flattened, in order);
- a ``band`` node adds one α dimension per member, with β = 0 between
  members;
- a ``filter`` restricts the statements below it; a statement that reaches
  several leaves through filters that split its instances gets one
  relation per leaf, each with the filter's constraints (simplified
  against the statement's domain and the context) as its own constraints:
  Clay's index-set split;
- ``mark``, ``context`` and ``guard`` nodes are looked through; ``expansion``
  and ``extension`` nodes have no β/α equivalent and are refused.

Band members are kept as piecewise quasi-affine functions (``floor``
included: tiles come back as implicitly defined dimensions).  Each α
dimension remembers the band member it came from (:class:`Member`), which
:mod:`.post` uses for tiling and parallel marks.

:func:`to_tree` is the other direction: a sequence node per β level with
more than one child, one single-member band per α dimension, ``parallel``
/ ``vectorize`` / ``unroll`` marks as mark nodes above their band.
``from_tree(to_tree(s))`` gives back the same relations.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import NamedTuple, Sequence

import islpy as isl

from ..errors import ClayxError
from ..model import ClaySchedule, Relation, Scop, Statement

__all__ = ["Member", "StmtInfo", "TreeRelation", "TreeError", "copy_relations", "from_tree",
           "relation_map", "relations_schedule", "stmt_info", "to_tree"]

_T = isl.schedule_node_type
_dt = isl.dim_type


class TreeError(ClayxError):
    """A schedule tree (or map) has no Clay β/α equivalent."""


@dataclass(frozen=True)
class Member:
    """The band member an α dimension came from: ``band`` numbers the band
    nodes in tree order, ``index`` the member in it, ``size`` the number of
    members; ``coincident``/``permutable`` are isl's flags."""

    band: int
    index: int
    size: int
    coincident: bool
    permutable: bool


@dataclass
class TreeRelation:
    """One Clay relation under construction: the statement, its β keys (one
    tuple per level, compared lexicographically among siblings), its α
    dimensions as ``isl.PwAff`` s of the statement's iterators, extra
    constraints on its instances (``None``: all of them), and the band
    member of each α (``None`` for dimensions that came from no band)."""

    stmt: str
    keys: list[tuple[int, ...]]
    alphas: list[isl.PwAff]
    cons: isl.Set | None
    members: list[Member | None] = field(default_factory=list)
    betas: tuple[int, ...] = ()

    def map(self, space: isl.Space) -> isl.Map:
        """The relation ``S[i] -> [β0, α1, β1, …]`` (``betas`` must be set);
        ``space`` is the statement's set space."""
        m = _const_map(space, self.betas[0])
        for a, b in zip(self.alphas, self.betas[1:]):
            m = m.flat_range_product(isl.Map.from_pw_aff(a))
            m = m.flat_range_product(_const_map(space, b))
        if self.cons is not None:
            m = m.intersect_domain(self.cons)
        return m


def copy_relations(rels: Sequence[TreeRelation]) -> list[TreeRelation]:
    """Copies of ``rels`` that can be changed in place (their lists are
    new; the isl objects, values, are shared)."""
    return [replace(r, keys=list(r.keys), alphas=list(r.alphas), members=list(r.members))
            for r in rels]


def _const_map(space: isl.Space, value: int) -> isl.Map:
    """``{ S[i…] -> [value] }`` over the statement space ``space``."""
    aff = isl.Aff.zero_on_domain(isl.LocalSpace.from_space(space)).set_constant_val(
        isl.Val.int_from_si(space.get_ctx(), value) if abs(value) < 2 ** 62
        else isl.Val(str(value), context=space.get_ctx()))
    return isl.Map.from_aff(aff)


class StmtInfo(NamedTuple):
    """What the passes ask of a statement over and over: the
    :class:`~clayx.model.Statement`, its set space and its instances (its
    domain in the SCoP's context)."""

    statement: Statement
    space: isl.Space
    instances: isl.Set


#: :class:`StmtInfo` per statement name, per SCoP (by the identity of its
#: statements and context, kept alive here); a few SCoPs' worth.
_INFO: dict[int, tuple] = {}


def stmt_info(scop: Scop, name: str) -> StmtInfo:
    """The :class:`StmtInfo` of ``scop``'s statement ``name`` (computed once
    per SCoP: ``Scop.statement`` is a linear search)."""
    hit = _INFO.get(id(scop.statements))
    if hit is None or hit[0] is not scop.statements or hit[1] is not scop.context:
        if len(_INFO) > 64:
            _INFO.clear()
        hit = _INFO[id(scop.statements)] = (scop.statements, scop.context, {})
    info = hit[2].get(name)
    if info is None:
        st = scop.statement(name)
        info = hit[2][name] = StmtInfo(st, st.domain.get_space(),
                                       st.domain.intersect_params(scop.context))
    return info


def _stmt_space(scop: Scop, name: str) -> isl.Space:
    return stmt_info(scop, name).space


def _gisted(pa: isl.PwAff, dom: isl.Set) -> isl.PwAff:
    """``pa`` simplified on the instances ``dom`` (one piece when possible)."""
    g = pa.gist(dom).coalesce()
    return g if g.n_piece() >= 1 else pa


def from_tree(tree: isl.Schedule, scop: Scop) -> list[TreeRelation]:
    """The Clay relations of an isl schedule tree over ``scop``'s statements
    (see the module docstring); β values are assigned (dense, 0-based).

    Statements of the tree must be statements of ``scop`` (by name); every
    statement of ``scop`` must be reached."""
    names = {s.name for s in scop.statements}
    dom = tree.get_domain()
    parts: list[TreeRelation] = []
    seen = set()
    for st in scop.statements:
        sset = dom.extract_set(st.domain.get_space())
        if sset.is_empty() and not st.domain.is_empty():
            continue
        seen.add(st.name)
        parts.append(TreeRelation(st.name, [()], [], None))
    sl = dom.get_set_list()
    for k in range(sl.n_set()):
        n = sl.get_at(k).get_tuple_name()
        if n not in names:
            raise TreeError(f"the schedule tree has a statement {n!r} that the SCoP lacks")
    missing = names - seen
    if missing:
        raise TreeError("the schedule tree does not schedule "
                        + ", ".join(sorted(missing)))
    out: list[TreeRelation] = []
    counter = [0]
    ctx_set = scop.context
    order = {st.name: k for k, st in enumerate(scop.statements)}

    no_instance: dict[str, bool] = {}

    def empty(stmt: str) -> bool:
        if stmt not in no_instance:
            no_instance[stmt] = stmt_info(scop, stmt).instances.is_empty()
        return no_instance[stmt]

    def instances(p: TreeRelation) -> isl.Set:
        d = stmt_info(scop, p.stmt).instances
        return d if p.cons is None else d.intersect(p.cons)

    def walk(node: isl.ScheduleNode, parts: list[TreeRelation]) -> None:
        t = node.get_type()
        if t == _T.leaf:
            # statements that reach one leaf together are unordered for isl
            # (their dates differ, or no dependence joins them): program order
            for p in parts:
                p.keys[-1] = p.keys[-1] + (order[p.stmt],)
            out.extend(parts)
            return
        if t in (_T.domain, _T.mark, _T.context, _T.guard):
            walk(node.child(0), parts)
            return
        if t == _T.filter:
            f = node.filter_get_filter()
            kept = []
            for p in parts:
                s = f.extract_set(_stmt_space(scop, p.stmt))
                if s.is_empty():
                    continue
                full = stmt_info(scop, p.stmt).instances
                if p.cons is None and s.plain_is_universe():
                    # the filter keeps every instance (isl's filters are
                    # whole statements, to_tree's their instances)
                    if empty(p.stmt):
                        continue
                    cons = None
                    kept.append(TreeRelation(p.stmt, list(p.keys), list(p.alphas), cons,
                                             list(p.members)))
                    continue
                inst = instances(p).intersect(s)
                if inst.is_empty():
                    continue
                if inst.is_equal(full):
                    cons = None
                else:
                    cons = inst.gist(full).coalesce()
                    if cons.plain_is_universe():
                        cons = None
                kept.append(TreeRelation(p.stmt, list(p.keys), list(p.alphas), cons,
                                         list(p.members)))
            walk(node.child(0), kept)
            return
        if t in (_T.sequence, _T.set):
            for k in range(node.n_children()):
                kid = [TreeRelation(p.stmt, p.keys[:-1] + [p.keys[-1] + (k,)],
                                    list(p.alphas), p.cons, list(p.members)) for p in parts]
                walk(node.child(k), kid)
            return
        if t == _T.band:
            band = counter[0]
            counter[0] += 1
            n = node.band_n_member()
            mupa = node.band_get_partial_schedule()
            perm = bool(node.band_get_permutable())
            new = []
            for p in parts:
                space = _stmt_space(scop, p.stmt)
                pa_space = space.from_domain().add_dims(_dt.out, 1)
                alphas, keys, members = list(p.alphas), list(p.keys), list(p.members)
                inst = instances(p)
                for m in range(n):
                    pa = mupa.get_at(m).extract_pw_aff(pa_space)
                    alphas.append(_gisted(pa, inst))
                    keys.append(())
                    members.append(Member(band, m, n, bool(node.band_member_get_coincident(m)),
                                          perm))
                new.append(TreeRelation(p.stmt, keys, alphas, p.cons, members))
            walk(node.child(0), new)
            return
        raise TreeError(f"a schedule tree {t.name} node has no Clay β/α equivalent")

    walk(tree.get_root(), parts)
    assign_betas(out)
    return out


def assign_betas(rels: list[TreeRelation]) -> None:
    """Set ``betas`` of every relation from its keys: at each level the
    siblings (same β prefix) are numbered 0, 1, … in key order."""
    def walk(group: list[TreeRelation], level: int) -> None:
        by_key: dict[tuple[int, ...], list[TreeRelation]] = {}
        for r in group:
            by_key.setdefault(r.keys[level], []).append(r)
        for idx, key in enumerate(sorted(by_key)):
            sub = by_key[key]
            for r in sub:
                r.betas = r.betas[:level] + (idx,)
            deeper = [r for r in sub if len(r.keys) > level + 1]
            if deeper:
                if len(deeper) != len(sub):
                    raise TreeError("a statement and a loop share a position in the "
                                    "schedule tree")
                walk(deeper, level + 1)
    for r in rels:
        r.betas = ()
    walk(rels, 0)


#: :meth:`TreeRelation.map` of relations, by statement, β values, and the
#: identity of the constraints and α (kept alive here with the statement,
#: so an identity is never reused): the post-processing passes read the
#: same relations' maps several times.
_MAPS: dict[tuple, tuple] = {}


def relation_map(scop: Scop, r: TreeRelation) -> isl.Map:
    """``r.map`` on the space of its statement in ``scop``, computed once
    per content (:data:`_MAPS`)."""
    info = stmt_info(scop, r.stmt)
    key = (id(info.statement), tuple(r.betas), id(r.cons), tuple(map(id, r.alphas)))
    hit = _MAPS.get(key)
    if hit is None:
        if len(_MAPS) > 4096:
            _MAPS.clear()
        hit = _MAPS[key] = (info.statement, r.cons, tuple(r.alphas), r.map(info.space))
    return hit[3]


def relations_schedule(rels: Sequence[TreeRelation], scop: Scop,
                       marks: tuple = ()) -> ClaySchedule:
    """The :class:`ClaySchedule` of ``rels`` (β values assigned)."""
    out = [Relation(r.stmt, tuple(r.betas), relation_map(scop, r)) for r in rels]
    return ClaySchedule(tuple(out), tuple(marks))


# --- Clay → tree ------------------------------------------------------------------------

def _instances(scop: Scop, rel: Relation) -> isl.Set:
    dom = stmt_info(scop, rel.stmt).instances
    return rel.map.intersect_domain(dom).domain()


def _alpha_upa(scop: Scop, rels: Sequence[Relation], depth: int) -> isl.UnionPwAff:
    """α ``depth`` of ``rels`` as one union of piecewise affine functions on
    their instances."""
    upa = None
    for r in rels:
        m = r.map.intersect_domain(_instances(scop, r))
        m = m.project_out(_dt.out, 2 * depth, m.dim(_dt.out) - 2 * depth)
        m = m.project_out(_dt.out, 0, 2 * depth - 1)
        if not m.is_single_valued():
            raise TreeError(f"a relation of {r.stmt} gives an instance several dates")
        pa = isl.PwMultiAff.from_map(m).get_at(0)
        u = isl.UnionPwAff.from_pw_aff(pa)
        upa = u if upa is None else upa.union_add(u)
    return upa


def to_tree(scop: Scop, schedule: ClaySchedule | None = None) -> isl.Schedule:
    """An isl schedule tree with the order of ``schedule`` (default
    ``scop.schedule``) on ``scop``'s instances: one sequence node per β
    level with several children, a one-member band per α dimension, marks
    as mark nodes above their band."""
    sched = scop.schedule if schedule is None else schedule
    rel_sets = {id(r): _instances(scop, r) for r in sched.relations}
    dom = None
    for r in sched.relations:
        u = isl.UnionSet.from_set(rel_sets[id(r)])
        dom = u if dom is None else dom.union(u)
    if dom is None:
        dom = scop.domains()
    marks: dict[tuple[int, ...], list] = {}
    for m in sched.marks:
        marks.setdefault(tuple(m.loop), []).append(m)
    ctx = scop.context.get_ctx()

    def filt(prefix) -> isl.UnionSet:
        u = None
        for r in sched.relations_under(prefix):
            s = isl.UnionSet.from_set(rel_sets[id(r)])
            u = s if u is None else u.union(s)
        return u

    def build(node: isl.ScheduleNode, prefix) -> isl.ScheduleNode:
        kids = sched.children(prefix)
        if len(kids) > 1:
            lst = isl.UnionSetList.alloc(ctx, len(kids))
            for k in kids:
                lst = lst.add(filt(k))
            node = node.insert_sequence(lst)
            for i, k in enumerate(kids):
                node = node.child(i).child(0)
                node = child(node, k)
                node = node.parent().parent()
            return node
        return child(node, kids[0])

    def child(node: isl.ScheduleNode, kid) -> isl.ScheduleNode:
        if not sched.is_loop(kid):
            return node
        upa = _alpha_upa(scop, sched.relations_under(kid), len(kid))
        mupa = isl.MultiUnionPwAff.from_union_pw_aff(upa)
        node = node.insert_partial_schedule(mupa)
        node = build(node.child(0), kid).parent()
        for m in marks.get(tuple(kid), ()):
            label = m.kind if m.arg is None else f"{m.kind}_{m.arg}"
            node = node.insert_mark(isl.Id(label, context=ctx)).child(0)
            node = node.parent()
        return node

    tree = isl.Schedule.from_domain(dom)
    if not sched.relations:
        return tree
    node = build(tree.get_root().child(0), ())
    return node.get_schedule()
