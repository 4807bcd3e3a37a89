"""An exact check, in isl, that an AST runs what its schedule says.

isl's AST generator is trusted by every polyhedral tool, and it has bugs: on
some tiled and reshaped schedules (a strided dimension whose offset depends
on an outer dimension that was itself eliminated) it takes a loop that runs
several iterations for a degenerate one and drops instances (see
:mod:`clayx.codegen.build`).  Printed code that runs fewer statement
instances, or runs them in another order, computes something else without
any sign.  :func:`check_ast` rules that out symbolically, for every value of
the parameters in the context, by reading the AST back into isl.

Reading.  Every ``for`` and ``if`` node becomes constraints on the loop
iterators (``c >= init``, the condition, ``c ≡ init (mod step)``; a
degenerate loop is ``c = init``, as the printers print it).  Expressions are
quasi-affine: ``min``/``max`` are kept as trees and compared member by
member (``c <= min(a, b)`` is ``c <= a and c <= b``), so loop domains stay
conjunctions; isl's divisions ``fdiv_q``, ``pdiv_q``, ``div``, ``pdiv_r``
and ``zdiv_r`` are floors and moduli — isl guarantees a non-negative
dividend for the ``pdiv`` forms and an exact division for ``div``, where the
printed C ``/`` and ``%`` give the same values.  Every user node ``u`` gives
the set ``D_u`` of iterator values that reach it and the instance its call
arguments name.

Checking.  A loop iterator of :func:`~clayx.codegen.build.build_ast` is
named after its schedule dimension (``c<d>``), so where an instance ``x``
*should* run is known: at the iterator values ``E_u(x)`` = the schedule's
dimensions of the loops around ``u`` — up to a constant offset per call,
which isl introduces on purpose where statements interleave with a common
stride (``generate_shift_component``: it runs ``A[i] -> [2i]`` and
``B[i] -> [2i + 1]`` in one loop ``c += 2``, B at ``c = 2i``; the order is
the same, and an offset read from one run is checked on all of them).  For each relation of the schedule:

1. every run is right: each point ``c`` of ``D_u`` calls an instance ``x``
   of the relation's domain with ``E_u(x) = c`` (so no extra instance, none
   run twice by one call);
2. every instance runs once: the sets ``X_u = {x : E_u(x) ∈ D_u and the
   call at E_u(x) runs x}`` of the relation's calls cover its domain and
   are disjoint;
3. (``order=True``) in schedule order: for two instances ``x``, ``y`` of
   relations that touch a common array, one of them writing it, with
   ``date(x) ≺ date(y)``, the AST position of ``x`` (block indices and loop
   iterators, outermost first: a function of the dates, by 1) comes before
   that of ``y``.

Everything is computed in the instance spaces, from the schedule's own
maps, never by projecting the AST's loop domains; the cost is a few
milliseconds per relation for the examples' schedules.  The isl work can
still be bounded: pass ``max_operations``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import islpy as isl

from ..errors import CodegenError, CodegenWarning
from ..model import Scop
from .budget import isl_guard
from .tree import iterator_dim, scheduled_relations

_N = isl.ast_node_type
_E = isl.ast_expr_type
_O = isl.ast_expr_op_type

__all__ = ["UserNode", "check_ast", "read_ast"]


@dataclass(frozen=True)
class UserNode:
    """One statement call of an AST, read back into isl.

    ``tag`` is the call's annotation (``clayx_rel<k>`` in an AST of
    :func:`~clayx.codegen.build.build_ast`) or else the callee's name;
    ``domain`` the iterator values ``[c…]`` (outermost loop first) that
    reach the call; ``call`` maps them to the statement instance the call
    runs; ``loops`` the names of the enclosing loop iterators and ``steps``
    their increments (1 for a degenerate loop); ``path`` the
    call's place in the AST, one entry per enclosing block child
    (``("block", index)``) or loop (``("for", serial)``), outermost first."""

    tag: str
    statement: str
    domain: isl.Set
    call: isl.Map
    loops: tuple[str, ...]
    path: tuple[tuple[str, int], ...]
    steps: tuple[int, ...] = ()


class _MinMax:
    """``min``/``max`` of expression trees (kept apart so comparisons split
    into conjunctions instead of piecewise functions)."""

    __slots__ = ("kind", "items")

    def __init__(self, kind: str, items: list):
        self.kind, self.items = kind, items

    def map(self, f, flip: bool = False) -> "_MinMax":
        kind = {"min": "max", "max": "min"}[self.kind] if flip else self.kind
        return _MinMax(kind, [f(x) for x in self.items])


_COMPARE = (_O.eq, _O.le, _O.lt, _O.ge, _O.gt)
_LOGIC = (_O.and_, _O.and_then, _O.or_, _O.or_else)


class _Reader:
    """Walks an AST keeping the iteration set of the enclosing loops."""

    def __init__(self):
        self.users: list[UserNode] = []
        self._path: list[tuple[str, int]] = []
        self._steps: list[int] = []
        self._serial = 0

    # -- expressions ---------------------------------------------------------
    def tree(self, e: isl.AstExpr, space: isl.Space, its: list[str]):
        """``e`` as a PwAff, or a :class:`_MinMax` of trees."""
        t = e.get_type()
        ls = isl.LocalSpace.from_space(space)
        if t == _E.int:
            return isl.PwAff.from_aff(isl.Aff.val_on_domain(ls, e.get_val()))
        if t == _E.id:
            name = e.get_id().get_name()
            if name in its:
                return isl.PwAff.from_aff(
                    isl.Aff.var_on_domain(ls, isl.dim_type.set, its.index(name)))
            pos = space.find_dim_by_name(isl.dim_type.param, name)
            if pos < 0:
                raise ValueError(f"unknown identifier {name!r} in the AST")
            return isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, isl.dim_type.param, pos))
        if t != _E.op:
            raise ValueError(f"unsupported AST expression {e.to_C_str()}")
        op = e.get_op_type()
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if op in (_O.min, _O.max):
            return _MinMax("min" if op == _O.min else "max",
                           [self.tree(a, space, its) for a in args])
        if op in (_O.cond, _O.select) or op in _COMPARE or op in _LOGIC:
            return self.pw(e, space, its)
        v = [self.tree(a, space, its) for a in args]
        if op == _O.add:
            return _add(v[0], v[1])
        if op == _O.sub:
            return _add(v[0], _neg(v[1]))
        if op == _O.minus:
            return _neg(v[0])
        if op == _O.mul:
            a, b = v
            c = _constant(b) if _constant(a) is None else _constant(a)
            other = a if _constant(a) is None else b
            if c is None:
                raise ValueError(f"non-affine product {e.to_C_str()}")
            return _scale(other, c)
        if op in (_O.fdiv_q, _O.pdiv_q, _O.div):
            d = _constant(v[1])
            if d is None or d <= 0:
                raise ValueError(f"division by a non-constant {e.to_C_str()}")
            return _floordiv(v[0], d)
        if op in (_O.pdiv_r, _O.zdiv_r):
            d = _constant(v[1])
            if d is None or d <= 0:
                raise ValueError(f"remainder by a non-constant {e.to_C_str()}")
            return _flat(v[0]).mod_val(d)
        raise ValueError(f"unsupported AST operation {op}")

    def pw(self, e: isl.AstExpr, space: isl.Space, its: list[str]) -> isl.PwAff:
        """``e`` as one PwAff (a condition as 1/0)."""
        if e.get_type() == _E.op:
            op = e.get_op_type()
            if op in (_O.cond, _O.select):
                c = self.cond(e.get_op_arg(0), space, its)
                a = self.pw(e.get_op_arg(1), space, its)
                b = self.pw(e.get_op_arg(2), space, its)
                return a.intersect_domain(c).union_add(b.subtract_domain(c))
            if op in _COMPARE or op in _LOGIC:
                c = self.cond(e, space, its)
                ls = isl.LocalSpace.from_space(space)
                one = isl.PwAff.from_aff(isl.Aff.val_on_domain(ls, isl.Val.one(space.get_ctx())))
                zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(ls))
                return one.intersect_domain(c).union_add(zero.subtract_domain(c))
        return _flat(self.tree(e, space, its))

    def cond(self, e: isl.AstExpr, space: isl.Space, its: list[str]) -> isl.Set:
        """A boolean AST expression as the set where it holds."""
        if e.get_type() == _E.op:
            op = e.get_op_type()
            if op in _LOGIC:
                a = self.cond(e.get_op_arg(0), space, its)
                b = self.cond(e.get_op_arg(1), space, its)
                return a.intersect(b) if op in (_O.and_, _O.and_then) else a.union(b)
            if op in _COMPARE:
                a = self.tree(e.get_op_arg(0), space, its)
                b = self.tree(e.get_op_arg(1), space, its)
                if op == _O.eq:
                    return _le(a, b, False).intersect(_le(b, a, False))
                if op in (_O.le, _O.lt):
                    return _le(a, b, op == _O.lt)
                return _le(b, a, op == _O.gt)
        return self.pw(e, space, its).non_zero_set()

    # -- nodes -----------------------------------------------------------------
    def node(self, n: isl.AstNode, dom: isl.Set, its: list[str]) -> None:
        t = n.get_type()
        space = dom.get_space()
        if t == _N.block:
            kids = n.block_get_children()
            for k in range(kids.n_ast_node()):
                self._path.append(("block", k))
                self.node(kids.get_at(k), dom, its)
                self._path.pop()
        elif t == _N.mark:
            self.node(n.mark_get_node(), dom, its)
        elif t == _N.if_:
            c = self.cond(n.if_get_cond(), space, its)
            self.node(n.if_get_then_node(), dom.intersect(c), its)
            if n.if_has_else_node():
                self.node(n.if_get_else_node(), dom.subtract(c), its)
        elif t == _N.for_:
            self._for(n, dom, its)
        elif t == _N.user:
            self._user(n, dom, its)
        else:
            raise ValueError(f"unsupported AST node type {t}")

    def _for(self, n: isl.AstNode, dom: isl.Set, its: list[str]) -> None:
        it = n.for_get_iterator().get_id().get_name()
        inner = dom.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, len(its), it)
        space = inner.get_space()
        its2 = its + [it]
        c = isl.PwAff.from_aff(isl.Aff.var_on_domain(
            isl.LocalSpace.from_space(space), isl.dim_type.set, len(its)))
        init = self.tree(n.for_get_init(), space, its2)
        step = 1
        if n.for_is_degenerate():
            inner = inner.intersect(_le(c, init, False)).intersect(_le(init, c, False))
        else:
            inner = inner.intersect(_le(init, c, False))
            inner = inner.intersect(self.cond(n.for_get_cond(), space, its2))
            inc = n.for_get_inc()
            step = inc.get_val().to_python() if inc.get_type() == _E.int else None
            if step is None or step <= 0:
                raise ValueError(f"unsupported loop increment {inc.to_C_str()}")
            if step != 1:
                inner = inner.intersect(c.sub(_flat(init)).mod_val(step).zero_set())
        self._serial += 1
        self._path.append(("for", self._serial))
        self._steps.append(step)
        self.node(n.for_get_body(), inner, its2)
        self._steps.pop()
        self._path.pop()

    def _user(self, n: isl.AstNode, dom: isl.Set, its: list[str]) -> None:
        e = n.user_get_expr()
        callee = e.get_op_arg(0).get_id().get_name()
        try:
            tag = n.get_annotation().get_name()
        except isl.Error:                       # no annotation: the callee names it
            tag = callee
        space = dom.get_space()
        # the arguments over the whole loop space, restricted to dom once
        # (each product with dom's constraints cost isl as much as the rest)
        call = isl.Map.from_domain(isl.Set.universe(space))
        for k in range(1, e.get_op_n_arg()):
            call = call.flat_range_product(isl.Map.from_pw_aff(self.pw(e.get_op_arg(k),
                                                                       space, its)))
        call = call.set_tuple_name(isl.dim_type.out, callee).intersect_domain(dom)
        self.users.append(UserNode(tag, callee, dom, call, tuple(its), tuple(self._path),
                                   tuple(self._steps)))


# -- min/max trees -------------------------------------------------------------------

def _constant(t) -> int | None:
    """The integer value of a constant tree, else None."""
    if isinstance(t, isl.PwAff) and t.is_cst():
        val = None

        def piece(s, aff):
            nonlocal val
            val = aff.get_constant_val().to_python()
        t.foreach_piece(piece)
        return val
    return None


def _add(a, b):
    if isinstance(a, _MinMax):
        return a.map(lambda x: _add(x, b))
    if isinstance(b, _MinMax):
        return b.map(lambda x: _add(a, x))
    return a.add(b)


def _neg(a):
    if isinstance(a, _MinMax):
        return a.map(_neg, flip=True)
    return a.neg()


def _scale(a, c: int):
    if isinstance(a, _MinMax):
        return a.map(lambda x: _scale(x, c), flip=c < 0)
    return a.scale_val(_val(a.get_ctx(), c))


def _floordiv(a, d: int):
    # floor(·/d) is monotone: it goes inside min and max
    if isinstance(a, _MinMax):
        return a.map(lambda x: _floordiv(x, d))
    return a.scale_down_val(_val(a.get_ctx(), d)).floor()


def _val(ctx: isl.Context, n: int) -> isl.Val:
    """``n`` as an isl value, whatever its size (``int_from_si`` takes 64
    bits only)."""
    return isl.Val(str(n), context=ctx)


def _flat(a) -> isl.PwAff:
    """A tree as one PwAff."""
    if not isinstance(a, _MinMax):
        return a
    items = [_flat(x) for x in a.items]
    out = items[0]
    for x in items[1:]:
        out = out.min(x) if a.kind == "min" else out.max(x)
    return out


def _le(a, b, strict: bool) -> isl.Set:
    """Where ``a <= b`` (``a < b`` when ``strict``), min/max split member by
    member (``max(p, q) <= b`` is ``p <= b and q <= b``)."""
    if isinstance(a, _MinMax):
        parts = [_le(x, b, strict) for x in a.items]
        return _fold(parts, a.kind == "max")
    if isinstance(b, _MinMax):
        parts = [_le(a, x, strict) for x in b.items]
        return _fold(parts, b.kind == "min")
    return a.lt_set(b) if strict else a.le_set(b)


def _fold(sets: list[isl.Set], conjunction: bool) -> isl.Set:
    out = sets[0]
    for s in sets[1:]:
        out = out.intersect(s) if conjunction else out.union(s)
    return out


# -- the check -------------------------------------------------------------------------

def read_ast(node: isl.AstNode, context: isl.Set) -> list[UserNode]:
    """Every user node of ``node`` read back into isl (see :class:`UserNode`),
    for the parameters of ``context`` (a parameter set), in AST order."""
    r = _Reader()
    r.node(node, isl.Set.from_params(context), [])
    return r.users


#: isl operation budget of the order part of :func:`check_ast`: comparing
#: every pair of calls can take seconds when isl splits statements into many
#: calls (about 3 sequences in 1000 of ``scripts/fuzz_codegen.py``'s 20-step
#: ones); past this budget (about 1–3 s) the order is not proven, which
#: :func:`check_ast` reports with a :class:`~clayx.errors.CodegenWarning`.
ORDER_MAX_OPERATIONS = 1_000_000


def check_ast(scop: Scop, node: isl.AstNode, *, order: bool = True,
              max_operations: int | None = None,
              order_max_operations: int | None = ORDER_MAX_OPERATIONS) -> list[str]:
    """Problems of an AST of :func:`~clayx.codegen.build.build_ast` for
    ``scop`` (see the module docstring): instances run at the wrong place,
    twice, or never, and (``order``) pairs of conflicting instances run
    against the schedule's order.  Empty when the AST runs exactly the
    scheduled instances in an order that gives the same results, for every
    parameter value of ``scop.context``.

    ``max_operations`` bounds isl's work on the instances (None:
    unbounded); past it, :class:`~clayx.errors.CodegenError` says the check
    could not finish.  The order part has its own budget,
    ``order_max_operations``: past it the order is left unproven, with a
    :class:`~clayx.errors.CodegenWarning` (every instance is still proven to
    run once, at its dates).
    """
    ctx = scop.context.get_ctx()
    with isl_guard(ctx, max_operations, what="checking the generated AST"):
        problems, state = _check(scop, node)
    if problems or not order:
        return problems
    try:
        with isl_guard(ctx, order_max_operations,
                       what="checking the order of the generated AST"):
            return _order(scop, *state)
    except CodegenError as e:
        if "exceeded" not in str(e):
            raise
        warnings.warn("the order of the generated code was not proven within "
                      f"{order_max_operations} isl operations (every instance is "
                      "proven to run once, at its dates)", CodegenWarning, stacklevel=3)
        return []


def _check(scop: Scop, node: isl.AstNode) -> tuple[list[str], tuple]:
    """The instance problems of an AST, and what the order check needs."""
    users = read_ast(node, scop.context)
    sched: dict[str, isl.Map] = {}
    scheduled_relations(scop).intersect_params(scop.context).foreach_map(
        lambda m: sched.__setitem__(m.get_tuple_name(isl.dim_type.in_), m))
    problems: list[str] = []
    by_tag: dict[str, list[int]] = {}
    for k, u in enumerate(users):
        by_tag.setdefault(u.tag, []).append(k)
    for tag in by_tag:
        if tag not in sched:
            problems.append(f"the AST calls {tag}, which the schedule does not have")
    # per call: X_u (the instances it runs) and where it should run them
    placed: dict[int, isl.Set] = {}
    expect: dict[int, isl.Map] = {}
    shifted: set[int] = set()
    for tag, m in sched.items():
        stmt = scop.schedule.relations[int(tag[len("clayx_rel"):])].stmt
        inst = m.set_tuple_name(isl.dim_type.in_, stmt)      # S[x] -> date
        dom = inst.domain()
        covered = isl.Set.empty(dom.get_space())
        for k in by_tag.get(tag, []):
            u = users[k]
            dims = [iterator_dim(it) for it in u.loops]
            e = _select(inst, dims, u.domain.get_space())    # S[x] -> [c…] expected
            if u.statement not in (stmt, tag):
                problems.append(f"{tag}: the call at {list(u.loops)} runs {u.statement}, "
                                f"not {stmt}")
                continue
            runs = u.call.reverse().set_tuple_name(isl.dim_type.in_, stmt)  # actual
            extra = any(d >= inst.dim(isl.dim_type.out) for d in dims)
            if extra and not u.call.is_injective():
                problems.append(f"{tag} ({stmt}): the call at {list(u.loops)} runs some "
                                "instances twice")
            bad = runs.subtract(e)
            if not bad.is_empty():
                # isl may shift the iterations of a statement by a constant at
                # a dimension where statements interleave with a common
                # stride (generate_shift_component: iterator = date - offset,
                # the order kept): find the offset at one run, retry with it
                e = _shifted(e, runs, u.steps)
                bad = runs.subtract(e)
                shifted.add(k)
            if not bad.is_empty():
                problems.append(f"{tag} ({stmt}): the call at {list(u.loops)} runs "
                                f"instances where it should not, e.g. {_sample(bad.wrap())}")
            # x runs here when the call at E_u(x) runs x itself
            back = e.intersect_range(u.domain).apply_range(runs.reverse())
            x_u = back.intersect(isl.Map.identity(back.get_space())).domain()
            if not covered.intersect(x_u).is_empty():
                problems.append(f"{tag} ({stmt}): some instances run twice, e.g. "
                                f"{_sample(covered.intersect(x_u))}")
            covered = covered.union(x_u)
            placed[k] = x_u
            expect[k] = e if not extra else runs
        missing = dom.subtract(covered)
        if not missing.is_empty():
            problems.append(f"{tag} ({stmt}): instances never run, e.g. {_sample(missing)}")
    return problems, (users, sched, placed, expect, shifted)


def _select(inst: isl.Map, dims: list[int], loop_space: isl.Space) -> isl.Map:
    """``S[x] -> [date_d for d in dims]`` in the loop space of a call."""
    rng = inst.get_space().range()
    loop_space = loop_space.align_params(rng)
    pick = isl.Map.universe(isl.Space.map_from_domain_and_range(
        rng.align_params(loop_space), loop_space))
    n = inst.dim(isl.dim_type.out)
    for j, d in enumerate(dims):
        if d < n:       # a loop isl added for a non-injective schedule is free
            pick = pick.equate(isl.dim_type.in_, d, isl.dim_type.out, j)
    return inst.apply_range(pick)


def _shifted(e: isl.Map, runs: isl.Map, steps: tuple[int, ...]) -> isl.Map:
    """``e`` (instance -> expected iterators) translated by the constant
    offset between the expected and the actual iterators at one run of
    ``runs`` (instance -> actual iterators), when it is one isl makes: at
    each loop, ``0 <= offset < step`` (``e`` unchanged otherwise).  Offsets
    in that range keep loop-independent dependences loop-independent (two
    calls in a loop of step ``s`` with equal dates have equal offsets), so
    the parallel marks proven on the dates hold on the AST's loops too."""
    point = runs.wrap().sample_point()
    if point.is_void():
        return e
    pair = isl.Set.from_point(point).unwrap()
    want = pair.domain().apply(e)
    got = pair.range()
    n = got.dim(isl.dim_type.set)
    offsets = []
    for j in range(n):
        a = want.plain_get_val_if_fixed(isl.dim_type.set, j)
        b = got.plain_get_val_if_fixed(isl.dim_type.set, j)
        if a.is_nan() or b.is_nan():
            return e
        offsets.append((a - b).to_python())
    if not any(offsets) or any(not 0 <= off < step for off, step in zip(offsets, steps)):
        return e
    space = e.get_space().range()
    shift = isl.Map.universe(isl.Space.map_from_set(space))
    for j, off in enumerate(offsets):
        # out_j = in_j - off
        c = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(shift.get_space()))
        c = c.set_coefficient_val(isl.dim_type.in_, j, 1)
        c = c.set_coefficient_val(isl.dim_type.out, j, -1)
        c = c.set_constant_val(-off)
        shift = shift.add_constraint(c)
    return e.apply_range(shift)


def _order(scop: Scop, users: list[UserNode], sched: dict[str, isl.Map],
           placed: dict[int, isl.Set], where: dict[int, isl.Map],
           shifted: set[int]) -> list[str]:
    """Pairs of conflicting instances the AST runs against the schedule's
    order (see the module docstring).  ``placed[k]`` are the instances call
    ``k`` runs and ``where[k]`` maps instances to its loop iterators.

    Two calls ``u`` and ``v`` part at a block (``u`` first) inside their
    common loops ``L``, or at an if/else, or are one call.  Given where
    instances run (proven before), ``x`` of ``u`` runs before ``y`` of ``v``
    exactly when the iterators of ``L`` of ``x`` are lexicographically at
    most (at an if/else, or in one call: less than) those of ``y``; so both
    sides are functions of the dates, compared on the dates up to the first
    β level where the relations differ and the iterators of ``L``.  Each test
    is tried first on the relations' whole domains (cheap, a superset of
    the pairs); only when that finds pairs is it repeated on the instances
    each call really runs (isl's loop-splitting makes those sets complex).

    Most pairs need no isl work at all: when the loops two calls share are
    the α dimensions up to the first β level where their relations differ,
    unshifted, and their block order is that of the β-vectors, the AST's
    order is the schedule's by construction (and within one call whose loops
    are all its relation's α dimensions, likewise).  So is it for two calls
    in the two branches of an if/else inside their shared loops (their
    paths part at two loops, or not at all: the paths record no branch),
    when those loops are the first ``n`` α dimensions, unshifted, and no
    β level before the ``n``-th differs (the full and the partial tiles
    of one nest): ``date(x) ≺ date(y)`` then gives shared iterators
    ``l(x) ⪯ l(y)``, and they are never equal, since at one iteration of
    the shared loops the if runs one branch only, so ``l(x) ≺ l(y)``."""
    rels = scop.schedule.relations

    def beta(tag: str):
        return rels[int(tag[len("clayx_rel"):])].beta
    touch: dict[str, tuple[set[str], set[str]]] = {}
    for tag in sched:
        st = scop.statement(scop.schedule.relations[int(tag[len("clayx_rel"):])].stmt)
        touch[tag] = ({a.array for a in st.accesses},
                      {a.array for a in st.accesses if a.is_write})
    many = {u.tag for u in users if sum(v.tag == u.tag for v in users) > 1}
    for i in range(len(users)):
        for j in range(i, len(users)):
            u, v = users[i], users[j]
            (ra, wa), (rb, wb) = touch[u.tag], touch[v.tag]
            if not (wa & rb or wb & ra or wa & wb):
                continue
            q = next((k for k, (a, b) in enumerate(zip(u.path, v.path)) if a != b), None)
            prefix = u.path[:q] if q is not None else u.path[:min(len(u.path), len(v.path))]
            n_loops = sum(1 for kind, _ in prefix if kind == "for")
            # u before v at equal iterators of the common loops (a block),
            # or never at equal ones (one call, or an if/else: the paths
            # record no branch, so then- and else-calls part at no entry, or
            # at two loops)
            strict = i == j or q is None or u.path[q][0] == "for"
            shared = [it for (kind, _), it in zip(prefix, _loop_names(u, prefix))
                      if kind == "for"]
            if _implied(u, v, i, j, q, shared, beta, iterator_dim, shifted):
                continue
            # name them so that u comes first in the block (the outer loop's
            # u is not rebound)
            u, v, i2, j2 = ((v, u, j, i) if not strict and u.path[q][1] > v.path[q][1]
                            else (u, v, i, j))
            su, sv = sched[u.tag], sched[v.tag]
            d = _first_difference(scop, u.tag, v.tag) if u.tag != v.tag else None
            if d is not None:
                su, sv = _keep(su, 2 * d + 1), _keep(sv, 2 * d + 1)
            su, sv = _keep(su, None), _keep(sv, None)
            lu = _keep(where[i2].set_tuple_name(isl.dim_type.in_, u.tag), n_loops)
            lv = _keep(where[j2].set_tuple_name(isl.dim_type.in_, v.tag), n_loops)
            tests = [(u, v, su.lex_lt_map(sv), lu.lex_gt_map(lv) if not strict
                      else lu.lex_ge_map(lv))]
            if i != j:
                # y of v before x of u by the dates: v's iterators must be less
                tests.append((v, u, sv.lex_lt_map(su), lv.lex_ge_map(lu)))
            for x, y, early, late in tests:
                wrong = early.intersect(late)
                if wrong.is_empty():
                    continue
                kx, ky = (i2, j2) if x is u else (j2, i2)
                if x.tag in many:
                    wrong = wrong.intersect_domain(placed[kx].set_tuple_name(x.tag))
                if y.tag in many:
                    wrong = wrong.intersect_range(placed[ky].set_tuple_name(y.tag))
                if kx == ky:
                    wrong = wrong.subtract(isl.Map.identity(wrong.get_space()))
                if not wrong.is_empty():
                    return [f"{x.tag} and {y.tag}: instances run out of schedule order, "
                            f"e.g. {_sample(wrong.wrap())}"]
    return []


def _loop_names(u: UserNode, prefix) -> list[str]:
    """The iterator names along ``prefix`` of ``u``'s path (None at block
    entries)."""
    names, loops = [], iter(u.loops)
    for kind, _ in prefix:
        names.append(next(loops) if kind == "for" else None)
    return names


def _implied(u: UserNode, v: UserNode, i: int, j: int, q, shared: list[str], beta,
             iterator_dim, shifted: set[int]) -> bool:
    """Whether the AST order of calls ``u`` and ``v`` (indices ``i``, ``j``)
    is the schedule's by construction (see :func:`_order`)."""
    if i in shifted or j in shifted:
        return False
    dims = [iterator_dim(it) for it in shared]
    if i == j:
        return dims == [2 * k + 1 for k in range(len(beta(u.tag)) - 1)]
    bu, bv = beta(u.tag), beta(v.tag)
    d = next((k for k, (a, b) in enumerate(zip(bu, bv)) if a != b), None)
    if q is None or u.path[q][0] == v.path[q][0] == "for":
        # two branches of an if/else inside the shared loops (the full and
        # the partial tiles of a nest): see _order
        n = len(dims)
        return (dims == [2 * k + 1 for k in range(n)]
                and n <= (d if d is not None else len(bu) - 1))
    if d is None or u.path[q][0] != "block":
        return False
    return (dims == [2 * k + 1 for k in range(d)]
            and (u.path[q][1] < v.path[q][1]) == (bu[d] < bv[d]))


def _keep(m: isl.Map, n: int | None) -> isl.Map:
    """``m`` with only its first ``n`` output dimensions (all when None),
    the output tuple unnamed so that maps of different relations compare."""
    total = m.dim(isl.dim_type.out)
    if n is not None and n < total:
        m = m.project_out(isl.dim_type.out, n, total - n)
    return m.reset_tuple_id(isl.dim_type.out)


def _first_difference(scop: Scop, a: str, b: str) -> int | None:
    """The first β level at which relations ``a`` and ``b`` (``clayx_rel<k>``
    tags) differ, None when one β-vector is a prefix of the other."""
    rels = scop.schedule.relations
    ba = rels[int(a[len("clayx_rel"):])].beta
    bb = rels[int(b[len("clayx_rel"):])].beta
    for k, (x, y) in enumerate(zip(ba, bb)):
        if x != y:
            return k
    return None


def _sample(s: isl.Set) -> str:
    """One point of a non-empty set, as text."""
    return str(s.sample_point()).replace("{ ", "").replace(" }", "")
