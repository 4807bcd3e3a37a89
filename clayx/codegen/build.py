"""isl AST generation for a :class:`~clayx.model.Scop`, with a guard.

:func:`build_ast` turns the Clay schedule into an ``isl.AstNode`` that every
printer (plain C, OpenMP, CUDA) walks.  The AST it returns is
self-describing:

- every ``for`` node's iterator is the isl id ``c<d>`` (``<d>`` the 0-based
  schedule dimension, so α depth ``k`` is ``c<2k-1>``; see
  :func:`iterator_dim`);
- every ``user`` node is a call ``S0(e1, e2, …)`` (the statement name and
  the values of its original iterators) annotated with the id
  ``clayx_rel<k>``, ``k`` the index of the relation in
  ``scop.schedule.relations`` that produced it (see :func:`user_relation`).
  Index-set split statements therefore stay distinguishable.

isl AST generation can run for minutes on some tiled/wavefront shapes and
islpy holds the GIL, so the build runs under ``ctx.set_max_operations``: when
isl exceeds the budget it fails with a quota error, which becomes a
:class:`~clayx.errors.CodegenError`; the context's counter and limit are
restored afterwards, so the context stays usable.
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from typing import Iterator

import islpy as isl

from ..errors import CodegenError, CodegenWarning
from ..model import Scop

#: Default isl operation budget of one AST build.  Measured on this machine:
#: isl counts 1–6 million operations per second during AST generation, and
#: the count tracks time (a tiled, wavefront-skewed two-statement heat-3d
#: needs 0.43 M operations / 0.5 s; budgets of 0.1 M and 0.3 M stop it after
#: 0.1 s and 0.3 s).  The default stops a runaway build after roughly 5–20 s
#: and leaves ~50x headroom over that tiled case; PolyBench-style kernels
#: with their original schedules need well under 1 M.
DEFAULT_MAX_OPERATIONS = 20_000_000

#: isl AST build options pinned during :func:`build_ast` (isl's defaults,
#: except ``scale_strides``: disabling it keeps every loop iterator equal to
#: its schedule dimension, which loop naming and later printers rely on).
AST_OPTIONS = {
    "allow_else": 1,
    "allow_or": 1,
    "atomic_upper_bound": 1,
    "detect_min_max": 0,
    "exploit_nested_bounds": 1,
    "group_coscheduled": 0,
    "prefer_pdiv": 1,
    "scale_strides": 0,
    "separation_bounds": 0,
}

_REL_PREFIX = "clayx_rel"
_QUOTA_MARK = "maximal number of operations exceeded"


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


def user_relation(node: isl.AstNode) -> int:
    """The index in ``scop.schedule.relations`` of the relation that produced
    a user node of an AST made by :func:`build_ast`."""
    name = node.get_annotation().get_name()
    if not name.startswith(_REL_PREFIX):
        raise CodegenError(f"user node without a clayx annotation ({name!r})")
    return int(name[len(_REL_PREFIX):])


def _iterator_prefix(scop: Scop) -> str:
    """``c``, or ``_c``… when a parameter is itself named like ``c3`` (isl ids
    of parameters and iterators must stay distinct in the AST)."""
    prefix = "c"
    while any(re.fullmatch(re.escape(prefix) + r"\d+", p) for p in scop.params):
        prefix = "_" + prefix
    return prefix


@contextmanager
def isl_guard(ctx: isl.Context, max_operations: int | None,
              what: str = "AST generation") -> Iterator[None]:
    """Run a block of isl calls under an operation budget.

    Sets ``ctx``'s ``max_operations`` (0 or None: unlimited) and resets its
    counter; restores the previous limit and resets the counter on exit.  An
    ``isl.Error`` raised inside becomes a :class:`CodegenError` (a quota hit
    says so, with the budget).
    """
    prev = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(int(max_operations or 0))
    try:
        yield
    except isl.Error as e:
        if _QUOTA_MARK in str(e):
            raise CodegenError(
                f"{what} exceeded {max_operations} operations; the schedule is "
                "probably too complex to scan (try smaller tiles, fewer "
                "statements per loop, or raise max_operations)") from None
        raise CodegenError(f"{what} failed in isl: {e}") from None
    finally:
        ctx.set_max_operations(prev)
        ctx.reset_operations()


@contextmanager
def _pinned_options(ctx: isl.Context) -> Iterator[None]:
    """Set :data:`AST_OPTIONS` on ``ctx`` for the duration of a build."""
    saved = {k: getattr(ctx, f"get_ast_build_{k}")() for k in AST_OPTIONS}
    try:
        for k, v in AST_OPTIONS.items():
            getattr(ctx, f"set_ast_build_{k}")(v)
        yield
    finally:
        for k, v in saved.items():
            getattr(ctx, f"set_ast_build_{k}")(v)


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
        m = m.set_tuple_name(isl.dim_type.in_, f"{_REL_PREFIX}{k}")
        um = um.union(isl.UnionMap.from_map(m))
    return um


#: How the AST can be generated, tried in this order until one passes
#: :func:`~clayx.codegen.ast_check.check_ast`:
#:
#: - ``map``: the flat schedule map (isl's default way);
#: - ``dims-separate``: a schedule tree with one band per schedule dimension,
#:   each with the ``separate`` AST option;
#: - ``isolate``: one band whose whole domain is isolated, ``separate`` inside;
#: - ``map-atomic``: the flat map with the ``atomic`` option on every dimension.
#:
#: isl 0.27–0.28 (islpy 2025.1–2026.2) drops instances on some tiled and
#: reshaped schedules: ``detect_mod`` in ``isl_map.c`` accepts a window of
#: width ``d`` with ``n <= d < m`` (it checks the width against the wrong
#: modulus), so ``isl_set_remove_divs_involving_dims`` returns a subset of its
#: input, and the AST builder's loop bounds with it; a strided dimension whose
#: offset is a floor of an outer dimension, inside a tile, then looks
#: single-valued and is generated as one iteration.  The one-line fix and a
#: reproducer are in ``docs/isl-detect-mod-bug.md``.  The other strategies
#: only avoid the bug by luck (measured on 423 generated schedules: 281
#: exact with ``map`` alone, 411 with ``dims-separate`` after it, 415 with the
#: whole chain); what none of them gets right is refused, never printed.
STRATEGIES = ("map", "dims-separate", "isolate", "map-atomic")


#: isl operation budget of one exactness check of an AST (see
#: :func:`~clayx.codegen.ast_check.check_ast`); the examples' schedules need
#: well under 1 M.
CHECK_MAX_OPERATIONS = 20_000_000


def build_ast(scop: Scop, *,
              max_operations: int | None = DEFAULT_MAX_OPERATIONS,
              check: bool = True) -> isl.AstNode:
    """Generate the isl AST of ``scop``'s current schedule.

    The schedule (:meth:`ClaySchedule.union_map` form, ``[β0, α1, β1, …]``) is
    intersected with the statement domains and scanned under
    ``scop.context``.  Loop iterators are ``c<d>`` for schedule dimension
    ``d`` (:func:`iterator_dim`, :func:`alpha_depth`); user nodes are calls
    ``S(e…)`` of the statement's original iterators' values, annotated with
    their relation (:func:`user_relation`).

    ``check`` (the default) proves the AST exact with
    :func:`~clayx.codegen.ast_check.check_ast` — every scheduled instance
    run once, in an order that gives the schedule's results — and, when isl's
    AST is not, tries the next of :data:`STRATEGIES`; when none is exact,
    :class:`~clayx.errors.CodegenError` (wrong code is never returned).  A
    check that exceeds :data:`CHECK_MAX_OPERATIONS` is given up with a
    :class:`~clayx.errors.CodegenWarning` and the AST is used unchecked.

    ``max_operations`` bounds isl's work per AST build (None or 0:
    unlimited); exceeding it raises :class:`~clayx.errors.CodegenError`, as
    does any isl failure.
    """
    if not check:
        return _build(scop, STRATEGIES[0], max_operations)
    from .ast_check import check_ast
    first: list[str] | None = None
    for strategy in STRATEGIES:
        try:
            node = _build(scop, strategy, max_operations)
        except CodegenError:
            if strategy == STRATEGIES[0]:
                raise
            continue
        try:
            problems = check_ast(scop, node, max_operations=CHECK_MAX_OPERATIONS)
        except CodegenError as e:
            warnings.warn(f"the generated code could not be proven exact ({e}); "
                          "it is used unchecked", CodegenWarning, stacklevel=2)
            return node
        if not problems:
            return node
        first = first if first is not None else problems
    raise CodegenError(
        "isl's AST generator gives code that does not run this schedule exactly, with "
        f"every strategy clayx knows ({', '.join(STRATEGIES)}), so no code is printed: "
        + "; ".join(first or []) + ".  This is an isl bug (docs/isl-detect-mod-bug.md); "
        "other tile sizes or another order of the tiling steps usually avoid it")


def _build(scop: Scop, strategy: str, max_operations: int | None) -> isl.AstNode:
    """One AST of ``scop`` with ``strategy`` (see :data:`STRATEGIES`)."""
    ctx = scop.context.get_ctx()
    sched = scop.schedule
    n_ids = 2 * sched.max_depth + 1 + max((s.dim for s in scop.statements), default=0) + 2
    prefix = _iterator_prefix(scop)
    failures: list[BaseException] = []

    def at_each_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        # islpy turns an exception escaping a callback into a NULL node and a
        # crash: catch everything, keep the node, report afterwards.
        try:
            expr = node.user_get_expr()
            tag = expr.get_op_arg(0).get_id().get_name()
            k = int(tag[len(_REL_PREFIX):])
            args = isl.AstExprList.alloc(ctx, expr.get_op_n_arg() - 1)
            for a in range(1, expr.get_op_n_arg()):
                args = args.add(expr.get_op_arg(a))
            name = isl.AstExpr.from_id(isl.Id(sched.relations[k].stmt, context=ctx))
            new = isl.AstNode.user_from_expr(name.call(args))
            return new.set_annotation(isl.Id(tag, context=ctx))
        except BaseException as e:  # noqa: BLE001 - see comment above
            failures.append(e)
            return node

    with _pinned_options(ctx), isl_guard(ctx, max_operations):
        um = scheduled_relations(scop)
        build = isl.AstBuild.from_context(scop.context)
        ids = isl.IdList.alloc(ctx, n_ids)
        for d in range(n_ids):
            ids = ids.add(isl.Id(f"{prefix}{d}", context=ctx))
        build = build.set_iterators(ids)
        build, _handle = build.set_at_each_domain(at_each_domain)
        n_out = 2 * sched.max_depth + 1
        if strategy == "map":
            node = build.node_from_schedule_map(um)
        elif strategy == "map-atomic":
            dims = ", ".join(f"x{d}" for d in range(n_out))
            build = build.set_options(isl.UnionMap(f"{{ [{dims}] -> atomic[x] }}", context=ctx))
            node = build.node_from_schedule_map(um)
        elif strategy in ("dims-separate", "isolate"):
            mupa = isl.MultiUnionPwAff.from_union_map(um)
            band = isl.Schedule.from_domain(um.domain()).get_root().child(0)
            if strategy == "dims-separate":
                separate = isl.UnionSet("{ separate[x] }", context=ctx)
                for d in reversed(range(n_out)):
                    band = band.insert_partial_schedule(
                        isl.MultiUnionPwAff.from_union_pw_aff(mupa.get_at(d)))
                    band = band.band_set_ast_build_options(separate)
            else:
                dims = ", ".join(f"x{d}" for d in range(n_out))
                band = band.insert_partial_schedule(mupa).band_set_ast_build_options(
                    isl.UnionSet(f"{{ isolate[[] -> [{dims}]]; separate[x] }}", context=ctx))
            node = build.node_from_schedule(band.get_schedule())
        else:
            raise CodegenError(f"unknown AST strategy {strategy!r}")
        del _handle
    if failures:
        raise CodegenError(f"AST generation failed: {failures[0]!r}")
    return node
