"""isl AST generation for a :class:`~clayx.model.Scop`, with a guard.

:func:`build_ast` scans the schedule tree of
:func:`~clayx.codegen.tree.schedule_tree` into an ``isl.AstNode`` that every
printer (plain C, OpenMP, CUDA) walks.  The AST it returns is
self-describing:

- the marks of a loop are ``mark`` nodes around the code of its band (ids
  ``clayx:parallel``…, the :class:`~clayx.model.Mark` as user object);
- every ``for`` node's iterator is the isl id ``c<d>`` (``<d>`` the 0-based
  schedule dimension, so α depth ``k`` is ``c<2k-1>``; see
  :func:`~clayx.codegen.tree.iterator_dim`);
- every ``user`` node is a call ``S0(e1, e2, …)`` (the statement name and
  the values of its original iterators) annotated with the id
  ``clayx_rel<k>``, ``k`` the index of the relation in
  ``scop.schedule.relations`` that produced it (see :func:`user_relation`).
  Index-set split statements therefore stay distinguishable.  The
  annotation's user object is a :class:`UserInfo`: isl's access expressions
  of the statement's array references at that node (:func:`user_info`),
  from which bodies print their subscripts.

isl AST generation can run for minutes on some tiled/wavefront shapes and
islpy holds the GIL, so the build runs under ``ctx.set_max_operations``: when
isl exceeds the budget it fails with a quota error, which becomes a
:class:`~clayx.errors.CodegenError`; the context's counter and limit are
restored afterwards, so the context stays usable.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial

import islpy as isl

from ..analysis.isl_util import pieces
from ..errors import CodegenError, CodegenWarning
from ..model import Beta, Scop
from .ast_check import check_ast
from .budget import ctx_options, isl_guard
from .tree import (REL_PREFIX, BandOptions, iterator_ids, iterator_prefix, schedule_tree,
                   tag_index)

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




def user_relation(node: isl.AstNode) -> int:
    """The index in ``scop.schedule.relations`` of the relation that produced
    a user node of an AST made by :func:`build_ast`."""
    name = node.get_annotation().get_name()
    if not name.startswith(REL_PREFIX):
        raise CodegenError(f"user node without a clayx annotation ({name!r})")
    return tag_index(name)


def user_info(node: isl.AstNode) -> UserInfo:
    """The :class:`UserInfo` :func:`build_ast` attached to a user node (an
    empty one for a node another builder made)."""
    info = node.get_annotation().user
    return info if isinstance(info, UserInfo) else UserInfo()


def _pinned_options(ctx: isl.Context):
    """Set :data:`AST_OPTIONS` on ``ctx`` for the duration of a build."""
    return ctx_options(ctx, "ast_build_", AST_OPTIONS)


#: How the AST can be generated, tried in this order until one passes
#: :func:`~clayx.codegen.ast_check.check_ast`.  Every strategy scans the
#: schedule tree of :func:`~clayx.codegen.tree.schedule_tree` (so marks are
#: mark nodes whatever the strategy); they differ in the AST build options
#: of the bands (:func:`band_options`):
#:
#: - ``tiles``: the full tiles of every tiled nest isolated from the partial
#:   ones (:func:`clayx.codegen.tiles.band_options`; skipped when the
#:   schedule has no tiles), no option elsewhere;
#: - ``tree``: none (isl's default per band);
#: - ``separate``: ``separate`` on every band;
#: - ``isolate``: every band's whole domain isolated, ``separate`` inside;
#: - ``atomic``: ``atomic`` on every band.
#:
#: isl 0.27–0.28 (islpy 2025.1–2026.2) drops instances on some tiled and
#: reshaped schedules: ``detect_mod`` in ``isl_map.c`` accepts a window of
#: width ``d`` with ``n <= d < m`` (it checks the width against the wrong
#: modulus), so ``isl_set_remove_divs_involving_dims`` returns a subset of its
#: input, and the AST builder's loop bounds with it; a strided dimension whose
#: offset is a floor of an outer dimension, inside a tile, then looks
#: single-valued and is generated as one iteration.  The one-line fix and a
#: reproducer are in ``docs/isl-detect-mod-bug.md``.  The other strategies
#: only avoid the bug by luck (``scripts/fuzz_codegen.py`` counts how often);
#: what none of them gets right is refused, never printed.
STRATEGIES = ("tiles", "tree", "separate", "isolate", "atomic")


def band_options(strategy: str, scop: Scop | None = None) -> BandOptions | None:
    """The per-band AST option hook of a :data:`STRATEGIES` entry (``tiles``
    needs the ``scop``)."""
    if strategy == "tree":
        return None
    if strategy == "tiles":
        from .tiles import band_options as full_tiles
        return full_tiles(scop) if scop is not None else None
    if strategy == "separate":
        return lambda beta: "{ separate[x] }"
    if strategy == "atomic":
        return lambda beta: "{ atomic[x] }"
    if strategy == "isolate":
        def isolate(beta: Beta) -> str:
            outer = ", ".join(f"o{k}" for k in range(len(beta) - 1))
            return f"{{ isolate[[{outer}] -> [x]]; separate[x] }}"
        return isolate
    raise CodegenError(f"unknown AST strategy {strategy!r}")


#: isl operation budget of one exactness check of an AST (see
#: :func:`~clayx.codegen.ast_check.check_ast`); the examples' schedules need
#: well under 1 M.
CHECK_MAX_OPERATIONS = 20_000_000

#: isl operation budget of the ``tiles`` strategy's build and of its check:
#: isolating the full tiles of a skewed or wavefront-tiled nest can cost
#: seconds of isl work (jacobi-2d with 8x8 tiles: 5 s to build, more than 15 s
#: to prove); past this budget the AST is built without the isolation.
TILES_MAX_OPERATIONS = 3_000_000


def _tile_options(scop: Scop) -> BandOptions | None:
    """The ``tiles`` strategy's hook, found under
    :data:`TILES_MAX_OPERATIONS` (finding the tiles of a deeply transformed
    nest can cost unbounded isl work): past it, no isolation (None)."""
    try:
        with isl_guard(scop.context.get_ctx(), TILES_MAX_OPERATIONS, "finding full tiles"):
            return band_options("tiles", scop)
    except CodegenError:
        return None


def build_ast(scop: Scop, *,
              max_operations: int | None = DEFAULT_MAX_OPERATIONS,
              check: bool = True, full_tiles: bool = True) -> isl.AstNode:
    """Generate the isl AST of ``scop``'s current schedule.

    The schedule tree of :func:`~clayx.codegen.tree.schedule_tree` (the
    relations intersected with the statement domains) is scanned under
    ``scop.context``.  Loop iterators are ``c<d>`` for schedule dimension
    ``d`` (:func:`~clayx.codegen.tree.iterator_dim`, :func:`~clayx.codegen.tree.alpha_depth`); user nodes are calls
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

    ``full_tiles`` (the default) tries the ``tiles`` strategy first (full
    tiles isolated from partial ones, for CPU code); the CUDA mapping turns
    it off (its tiled kernels map one tile loop nest to blocks).
    """
    if not check:
        return _build(scop, "tree", max_operations)
    first: list[str] | None = None
    tiles = _tile_options(scop) if full_tiles else None
    for strategy in STRATEGIES:
        if strategy == "tiles" and tiles is None:
            continue                                # no tiles: the same as "tree"
        ops, check_ops = max_operations, CHECK_MAX_OPERATIONS
        if strategy == "tiles":         # an option: not worth a long build or proof
            ops = min(ops or TILES_MAX_OPERATIONS, TILES_MAX_OPERATIONS)
            check_ops = TILES_MAX_OPERATIONS
        try:
            node = _build(scop, strategy, ops, tiles if strategy == "tiles" else None)
        except CodegenError:
            if strategy == "tree":
                raise
            continue
        try:
            problems = check_ast(scop, node, max_operations=check_ops)
        except CodegenError as e:
            if strategy == "tiles":
                continue                    # isolated tiles too costly to prove: without
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


@dataclass(frozen=True)
class UserInfo:
    """What :func:`build_ast` attaches to each user node (as the user object
    of its ``clayx_rel<k>`` annotation): ``subscripts`` maps the ref
    (:attr:`~clayx.model.Access.ref`) of each access the statement's body
    tree prints to isl's ``access`` expression of it at that node (the
    array id, then one subscript per dimension, in the AST's iterators),
    built like PPCG's: the access relation pulled back through the inverse
    of the node's schedule.  A ref is missing when isl cannot write it (an
    access relation that is not a function); the printer then prints the
    body's text.  :func:`build_ast` gives a :class:`LazySubscripts`: isl
    writes them when a printer first reads them (most references print
    their subscripts as written)."""

    subscripts: Mapping = field(default_factory=dict)


class LazySubscripts(Mapping):
    """A mapping computed by ``compute`` (no argument) when first read.

    isl's access expressions at a user node cost a simplification against
    the node's domain each (3mm's tiled nests: 30 ms of 400), and printers
    read them only for the references whose written subscripts no longer
    fit (:mod:`clayx.codegen.body`): the AST build keeps the node's
    ``isl.AstBuild`` (a value) in ``compute``, and the expressions are the
    ones isl would have written during the build."""

    def __init__(self, compute: Callable[[], dict]):
        self._compute: Callable[[], dict] | None = compute
        self._value: dict | None = None

    def _get(self) -> dict:
        if self._value is None:
            self._value = self._compute()
            self._compute = None
        return self._value

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self) -> Iterator:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


def _access_functions(scop: Scop) -> dict[str, dict[str, isl.MultiPwAff]]:
    """Per statement with a body tree, the access function of each ref that
    tree prints (``S[i…] -> A[…]`` as a ``MultiPwAff``); refs whose relation
    is not a function are left out."""
    from ..model.expr import refs_of
    out: dict[str, dict[str, isl.MultiPwAff]] = {}
    for st in scop.statements:
        tree = st.printable_expr()
        if tree is None:
            continue
        wanted = refs_of(tree)
        funcs = {}
        for a in st.accesses:
            if a.ref in wanted and a.relation.dim(isl.dim_type.out) > 0:
                rel = a.relation.intersect_domain(st.domain)
                if rel.is_single_valued():
                    funcs[a.ref] = _unrestricted(isl.PwMultiAff.from_map(rel))
        out[st.name] = funcs
    return out


def _unrestricted(f: isl.PwMultiAff) -> isl.MultiPwAff:
    """``f`` (an access function on its statement's domain) as a
    ``MultiPwAff``, without its domain when it is one affine function on
    the whole domain (the usual case): pulled back through a user node's
    schedule (:func:`_subscripts`) it then costs isl no preimage of the
    statement's domain under every piece of the node's tiled domain (3mm:
    23 ms of 60), and its values on the node's instances are the same."""
    if f.n_piece() == 1:
        return isl.MultiPwAff.from_multi_aff(pieces(f)[0][1])
    return isl.MultiPwAff.from_pw_multi_aff(f)


def _build(scop: Scop, strategy: str, max_operations: int | None,
           hook: BandOptions | None = None) -> isl.AstNode:
    """One AST of ``scop`` with ``strategy`` (see :data:`STRATEGIES`; ``hook``
    its band options when already computed)."""
    ctx = scop.context.get_ctx()
    sched = scop.schedule
    extra = max((s.dim for s in scop.statements), default=0) + 2
    prefix = iterator_prefix(scop)
    failures: list[BaseException] = []
    funcs: dict[str, dict[str, isl.MultiPwAff]] = {}

    def access_functions(stmt: str) -> dict[str, isl.MultiPwAff]:
        # computed when a printer first reads a node's subscripts
        if not funcs:
            funcs.update(_access_functions(scop))
        return funcs.get(stmt, {})
    tagged: dict[tuple[int, str], isl.MultiPwAff] = {}

    def at_each_domain(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        # islpy turns an exception escaping a callback into a NULL node and a
        # crash: catch everything, keep the node, report afterwards.
        try:
            expr = node.user_get_expr()
            tag = expr.get_op_arg(0).get_id().get_name()
            k = tag_index(tag)
            stmt = sched.relations[k].stmt
            args = isl.AstExprList.alloc(ctx, expr.get_op_n_arg() - 1)
            for a in range(1, expr.get_op_n_arg()):
                args = args.add(expr.get_op_arg(a))
            name = isl.AstExpr.from_id(isl.Id(stmt, context=ctx))
            new = isl.AstNode.user_from_expr(name.call(args))
            subs = _lazy_subscripts(build, k, tag, partial(access_functions, stmt), tagged)
            return new.set_annotation(isl.Id(tag, user=UserInfo(subs), context=ctx))
        except BaseException as e:  # noqa: BLE001 - see comment above
            failures.append(e)
            return node

    with _pinned_options(ctx), isl_guard(ctx, max_operations):
        tree = schedule_tree(scop, hook or band_options(strategy, scop))
        build = isl.AstBuild.from_context(scop.context)
        build = build.set_iterators(iterator_ids(ctx, prefix, sched.max_depth, extra))
        build, _handle = build.set_at_each_domain(at_each_domain)
        node = build.node_from_schedule(tree)
        del _handle
    if failures:
        raise CodegenError(f"AST generation failed: {failures[0]!r}")
    return node


def _lazy_subscripts(build: isl.AstBuild, k: int, tag: str,
                     funcs: Callable[[], dict[str, isl.MultiPwAff]],
                     tagged: dict) -> LazySubscripts:
    """:func:`_subscripts` at the user node being built, computed when first
    read (``funcs`` gives the access functions then): from a copy of
    ``build`` (islpy's callback argument is borrowed), under the same
    pinned AST options (they shape isl's expressions)."""
    build = build.copy()

    def compute() -> dict:
        f = funcs()
        if not f:
            return {}
        with _pinned_options(build.get_ctx()):
            return _subscripts(build, k, tag, f, tagged)
    return LazySubscripts(compute)


def _subscripts(build: isl.AstBuild, k: int, tag: str, funcs: dict[str, isl.MultiPwAff],
                tagged: dict) -> dict[str, isl.AstExpr]:
    """isl's access expressions of ``funcs`` (ref -> access function of the
    statement of relation ``k``) at the user node being built: the access
    relation pulled back through the inverse of the node's schedule, each
    subscript written by isl once (a stencil's refs share most of them:
    ``A[i+1][j][k]``, ``A[i][j][k]``… and each costs isl a simplification
    against the node's tiled domain, ~2 ms on heat-3d)."""
    iterators = isl.PwMultiAff.from_map(
        isl.Map.from_union_map(build.get_schedule()).reverse())
    ctx = build.get_ctx()
    written: dict[str, isl.AstExpr] = {}
    out = {}
    for ref, f in funcs.items():
        key = (k, ref)
        g = tagged.get(key)
        if g is None:
            g = tagged[key] = f.set_tuple_name(isl.dim_type.in_, tag)
        g = g.pullback_pw_multi_aff(iterators)
        if not g.has_tuple_id(isl.dim_type.out):
            out[ref] = build.access_from_multi_pw_aff(g)
            continue
        subs = isl.AstExprList.alloc(ctx, g.dim(isl.dim_type.out))
        for d in range(g.dim(isl.dim_type.out)):
            pa = g.get_at(d)
            text = str(pa)
            if text not in written:
                written[text] = build.expr_from_pw_aff(pa)
            subs = subs.add(written[text])
        out[ref] = isl.AstExpr.from_id(g.get_tuple_id(isl.dim_type.out)).access(subs)
    return out
