"""Plain C from a Clay schedule: our printer over the isl AST.

:func:`generate` returns the code replacing a SCoP's region (the lines
strictly between ``#pragma scop`` and ``#pragma endscop``) as a
:class:`~clayx.codegen.result.GeneratedRegion`: the lines and, per printed
loop, a :class:`~clayx.codegen.result.LoopSpan`; :func:`generate_region`
returns its text and :func:`generate_file` splices every SCoP of a file.
:class:`CPrinter` is a visitor over the AST of
:func:`~clayx.codegen.build.build_ast`: its ``visit_*`` methods write lines,
and the hooks :meth:`CPrinter.loop_pragmas` / :meth:`CPrinter.complete_pragmas`
are what an OpenMP or CUDA printer overrides.  Each ``for`` node is described
by a :class:`LoopInfo` (schedule dimension, α depth, β-prefix, enclosed
relations and statements, and the marks of the mark nodes around it), so a
subclass can put ``#pragma omp parallel for`` on the loops marked parallel.

Printing choices:

- Statement bodies are printed from their expression trees
  (:mod:`clayx.codegen.body`): the iterators replaced by the printed values,
  parenthesized only where precedence needs it, array subscripts as written
  while they still read right, else as isl writes them from the access
  relations (``A[i][c2 - i - 1]``).  A body without a (current) tree is its
  C text with the iterators replaced (:func:`clayx.model.substitute_iterators`).
- A loop is named after an original iterator ``x`` when every statement
  instance below it that depends on the loop gets the loop iterator itself
  as ``x``'s value, ``x`` is not the name of an enclosing loop and does not
  occur otherwise in those bodies: the body then reads as written.  When they
  get its negation (``α = -x``, a reversed loop) and the bound is a single
  ``c <= e``, the loop is printed counting down over ``x``
  (``for (i = N - 1; i >= 0; i--)``), so reversed loops of the input come
  back as written.  Otherwise the loop is ``c<k>`` (``k`` the α depth), made
  unique against every identifier of the source and the bodies.  A name the
  function declares outside the SCoP (``scop.declared_iterators``) is
  assigned, not redeclared.
- Iterator types (:mod:`clayx.codegen.types`): a generated iterator is
  ``int`` when ``int`` holds every value it takes, from its initial value
  to its exit value (the file's integer macros give the parameters their
  values, the other parameters are taken at 0), else ``long long``, else
  :class:`~clayx.errors.CodegenError`.  A loop named after an original
  iterator keeps that iterator's declared type (``for (long i = …``), and
  an outside-declared variable is assigned, only when the type holds the
  loop's values; otherwise the loop gets a fresh ``c<k>`` name.  An
  unsigned declared type is never the loop's (isl's bounds are signed:
  ``j <= n - 1`` with ``n = 0``): such a loop is ``int`` or ``long long``.  A
  statement body sees each iterator with its declared type: a value whose
  printed expression computes in another type (``c1 + 4294967296`` for an
  ``int i``) is cast to it (``(int)(c1 + 4294967296)``).  A product or
  partial sum that would leave ``int`` is computed in ``long long``.
- Affine expressions are printed as sums in isl's term order with the
  constant last (``-N + c1 + 1``), negations distributed.
- Braces only around several statements, and around an ``if``'s
  then-branch when it has an ``else`` and is not a plain statement or when
  it ends in an unbraced ``if`` (no dangling ``else``, no
  ``-Wdangling-else``); ``c++`` for unit steps; minimal parentheses following
  C precedence, plus the ones ``gcc -Wparentheses`` asks for.
- ``floord``/``min``/``max`` are macros ``#define``-d at the top of the region
  and ``#undef``-ined at its end, renamed ``clayx_…`` when the source already
  uses the name.
"""

from __future__ import annotations

import os
import pickle
import re
import selectors
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import islpy as isl

from ..errors import CodegenError
from ..model import Beta, Mark, Scop, identifiers, substitute_iterators
from ..model.helpers import MACROS
from ..model.inttypes import INT, LONG_LONG, IntType, int_type, literal_type
from . import types
from .body import BodyPrinter
from .build import DEFAULT_MAX_OPERATIONS, build_ast, user_info, user_relation
from .result import GeneratedRegion, LoopSpan
from .tree import alpha_depth, iterator_dim, node_mark
from .types import LoopValues, Value

_N = isl.ast_node_type
_E = isl.ast_expr_type
_O = isl.ast_expr_op_type

#: C precedence levels (smaller binds tighter).
PRIMARY, UNARY, MUL, ADD, REL, EQ, AND, OR, COND, ANY = 0, 2, 3, 4, 6, 7, 11, 12, 13, 15

_BINARY = {
    _O.add: ("+", ADD), _O.sub: ("-", ADD),
    _O.mul: ("*", MUL), _O.div: ("/", MUL), _O.pdiv_q: ("/", MUL),
    _O.pdiv_r: ("%", MUL), _O.zdiv_r: ("%", MUL),
    _O.le: ("<=", REL), _O.lt: ("<", REL), _O.ge: (">=", REL), _O.gt: (">", REL),
    _O.eq: ("==", EQ),
    _O.and_: ("&&", AND), _O.and_then: ("&&", AND),
    _O.or_: ("||", OR), _O.or_else: ("||", OR),
}

#: Expressions more complex than this (op count) are not substituted for the
#: iterator of a degenerate loop; the loop becomes ``{ int c = init; … }``.
_SUBSTITUTE_LIMIT = 3


@dataclass(frozen=True)
class LoopInfo:
    """What a printer knows about one ``for`` node of the AST.

    ``dim`` is the 0-based schedule dimension; ``depth`` the 1-based α depth
    (None for a dimension isl added for a non-injective schedule); ``beta``
    the loop's β-prefix (length ``depth``); ``relations`` the indices in
    ``scop.schedule.relations`` of the relations with instances below, in
    AST order, and ``statements`` their statement names; ``marks`` the
    schedule marks of the mark nodes around the loop's band (those on
    ``beta``).  ``name`` is the printed iterator, ``declared``
    true when it is a variable declared outside the region (assigned, not
    declared); ``reversed`` when the printed iterator is the negation of the
    schedule dimension (a loop with ``α = -x`` printed as ``x`` counting
    down).  ``degenerate`` loops run once; ``substituted`` ones are printed
    without a loop, their value put in place of the iterator.  ``ctype`` is
    the iterator's C type and ``values`` the values it takes (None when
    they could not be computed), see :mod:`clayx.codegen.types`.
    """

    dim: int
    depth: int | None
    beta: Beta | None
    relations: tuple[int, ...]
    statements: tuple[str, ...]
    marks: tuple[Mark, ...]
    name: str
    declared: bool
    degenerate: bool
    substituted: bool
    reversed: bool = False
    ctype: IntType = INT
    values: LoopValues | None = None


class _Neg:
    """Scope value of a reversed loop's AST iterator: ``-name``."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


#: :func:`~clayx.model.identifiers` of source files and statement bodies, by
#: text (every generation of a SCoP reads the same ones again).
_IDS: dict[str, frozenset[str]] = {}


def _identifiers(text: str) -> frozenset[str]:
    """:func:`~clayx.model.identifiers` of ``text``, computed once per text
    (:data:`_IDS`, a few hundred texts' worth)."""
    hit = _IDS.get(text)
    if hit is None:
        if len(_IDS) > 512:
            _IDS.clear()
        hit = _IDS[text] = frozenset(identifiers(text))
    return hit


def macro_names(scop: Scop) -> dict[str, str]:
    """The names used for ``floord``/``ceild``/``min``/``max``: the plain
    name when no identifier of the source or of a statement body has it,
    else ``clayx_<name>`` (with ``_`` appended until free)."""
    ids = [_identifiers(scop.source or "")] + [_identifiers(st.body) for st in scop.statements]

    def taken(name: str) -> bool:
        return any(name in x for x in ids)
    out = {}
    for role in MACROS:
        name = role
        if taken(name):
            name = f"clayx_{role}"
            while taken(name):
                name += "_"
        out[role] = name
    return out


def detect_indent(region_text: str) -> tuple[str, str]:
    """(base indentation, one level's indentation) of a region's text: the
    first non-blank line's leading whitespace, and the shortest extra
    indentation a deeper line adds (two spaces when none does)."""
    lines = [ln for ln in region_text.splitlines() if ln.strip()]
    if not lines:
        return "", "  "
    ws = [ln[:len(ln) - len(ln.lstrip())] for ln in lines]
    base = ws[0]
    extras = [w[len(base):] for w in ws if w.startswith(base) and len(w) > len(base)]
    unit = min(extras, key=len) if extras else "  "
    if unit.strip(" ") and unit != "\t":
        unit = "  "  # mixed whitespace: fall back
    if unit != "\t" and len(unit) > 8:
        unit = "  "
    return base, unit


class _Buffer:
    """Lines being written and the loops recorded in them (spans relative
    to the buffer)."""

    __slots__ = ("lines", "loops")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.loops: list[LoopSpan] = []


class CPrinter:
    """Print an AST of :func:`build_ast` as C: a visitor writing lines.

    :meth:`visit` dispatches on the node type to :meth:`visit_for`,
    :meth:`visit_if`, :meth:`visit_block`, :meth:`visit_mark` and
    :meth:`visit_user`, which write indented lines with :meth:`emit`;
    :meth:`expr` prints an expression.  :meth:`generate` prints a whole
    region as a :class:`~clayx.codegen.result.GeneratedRegion` (the lines and
    a :class:`~clayx.codegen.result.LoopSpan` per printed loop).  Subclasses
    override the visitors or the hooks :meth:`loop_pragmas` (the pragmas
    above a loop), :meth:`complete_pragmas` (the same once the loop's body
    is printed: what it assigns is known) and :meth:`for_header`;
    :meth:`loop_info` describes a ``for`` node, marks included (the mark
    nodes of :func:`~clayx.codegen.tree.schedule_tree` around it).
    """

    #: the target name recorded in the result
    target = "c"

    def __init__(self, scop: Scop, *, base_indent: str = "", indent: str = "  "):
        self.scop = scop
        self.base_indent = base_indent
        self.indent_unit = indent
        self.statements = {s.name: s for s in scop.statements}
        self.max_depth = scop.schedule.max_depth
        self.macros = macro_names(scop)
        self.used_macros: set[str] = set()
        self._body_ids = {s.name: _identifiers(s.body) for s in scop.statements}
        reserved = set(_identifiers(scop.source or "")) | set(scop.params)
        for s in scop.statements:
            reserved |= self._body_ids[s.name] | set(s.iterators)
        reserved |= set(self.macros.values())
        self._reserved = reserved
        # AST iterator id -> printed name (str), its negation (_Neg, for a
        # reversed loop) or substituted value (AstExpr, degenerate loop)
        self._scope: dict[str, str | _Neg | isl.AstExpr] = {}
        self._enclosing: list[str] = []
        # printed iterator name -> its values inside its loop and its type
        self._values: dict[str, Value] = {}
        # what is being printed, for errors: "the loop at [0, 1]"...
        self._where: list[str] = []
        # schedule dimension -> the marks of the mark nodes around it
        self._marks: dict[int, list[Mark]] = {}
        # per enclosing loop: the outside-declared variables its body assigns
        self._assigned: list[set[str]] = []
        self._buffers: list[_Buffer] = [_Buffer()]
        self._bodies = BodyPrinter(self)
        self._positive_first = 0

    # -- layout ----------------------------------------------------------------
    def ind(self, level: int) -> str:
        """The indentation of nesting ``level``."""
        return self.base_indent + self.indent_unit * level

    def emit(self, line: str) -> None:
        """Write one line (already indented)."""
        self._buffers[-1].lines.append(line)

    @contextmanager
    def capture(self) -> Iterator[_Buffer]:
        """Write into a fresh buffer for the duration (to be :meth:`splice` d
        or dropped)."""
        buf = _Buffer()
        self._buffers.append(buf)
        try:
            yield buf
        finally:
            self._buffers.pop()

    def splice(self, buf: _Buffer) -> None:
        """Write the lines of a captured buffer, its loops with them."""
        cur = self._buffers[-1]
        at = len(cur.lines)
        cur.lines.extend(buf.lines)
        cur.loops.extend(s.shifted(at) for s in buf.loops)

    def print_node(self, node: isl.AstNode, level: int) -> list[str]:
        """The lines of a node (its loops' spans are dropped)."""
        with self.capture() as buf:
            self.visit(node, level)
        return buf.lines

    def region(self, node: isl.AstNode, original: str | None = None) -> str:
        """:meth:`generate`'s text."""
        return self.generate(node, original).text

    def generate(self, node: isl.AstNode, original: str | None = None) -> GeneratedRegion:
        """The whole region for ``node``: the region's own ``#define``/
        ``#undef`` lines (``scop.macro_lines``), macro definitions, ``(void)``
        uses of outer iterators the new code no longer uses, the code, and
        the ``#undef`` lines, with the span of every printed loop.  Arrays a
        layout change gave a new shape are declared at the top of the code,
        wrapped in ``{ … }`` (:mod:`clayx.codegen.arrays`)."""
        from .arrays import declarations
        self.used_macros = set()
        decls = declarations(self.scop, self)
        wrap = bool(decls.lines)
        with self.capture() as code:
            if wrap:
                self.emit(f"{self.ind(0)}{{")
                for d in decls.lines:
                    self.emit(self.ind(1) + d)
            self.visit(node, 1 if wrap else 0)
            if wrap:
                for f in decls.frees:
                    self.emit(self.ind(1) + f)
                self.emit(f"{self.ind(0)}}}")
        used = identifiers("\n".join(code.lines))
        # An iterator declared outside the SCoP (``int i, j;`` at the top of
        # the function) that the generated loops no longer use would make
        # ``gcc -Wall`` report an unused variable: read it once with a cast
        # to void, which generates no code.
        before = _identifiers(original) if original is not None else None
        unused = sorted(x for x in self.scop.declared_iterators
                        if x not in used and (before is None or x in before))
        # the source's own #define/#undef lines of the region come first
        head = list(self.scop.macro_lines)
        head += [MACROS[r].format(n=self.macros[r]) for r in MACROS if r in self.used_macros]
        tail = [f"#undef {self.macros[r]}" for r in MACROS if r in self.used_macros]
        head += [f"{self.ind(0)}(void){x};" for x in unused]
        head += [f"{self.ind(0)}(void){x};" for x in decls.voids]
        return GeneratedRegion(tuple(head + code.lines + tail),
                               tuple(sorted((s.shifted(len(head)) for s in code.loops),
                                            key=lambda s: s.header)),
                               self.target)

    # -- nodes -----------------------------------------------------------------
    def visit(self, node: isl.AstNode, level: int) -> None:
        """Write any node (dispatch on its type)."""
        t = node.get_type()
        if t == _N.for_:
            self.visit_for(node, level)
        elif t == _N.if_:
            self.visit_if(node, level)
        elif t == _N.block:
            self.visit_block(node, level)
        elif t == _N.user:
            self.visit_user(node, level)
        elif t == _N.mark:
            self.visit_mark(node, level)
        else:
            raise CodegenError(f"unsupported AST node type {t}")

    def visit_block(self, node: isl.AstNode, level: int) -> None:
        """The children of a block, one after the other (no braces)."""
        for child in self._children(node):
            self.visit(child, level)

    def visit_mark(self, node: isl.AstNode, level: int) -> None:
        """A mark node: its child, the loops of the marked band inside
        carrying the mark (:meth:`loop_info`)."""
        with self._marked(node):
            self.visit(node.mark_get_node(), level)

    @contextmanager
    def _marked(self, node: isl.AstNode) -> Iterator[None]:
        """Inside a mark node of :func:`~clayx.codegen.tree.schedule_tree`:
        the ``for`` nodes of its band's dimension carry its mark."""
        mark = node_mark(node.mark_get_id())
        if mark is None:
            yield
            return
        dim = 2 * len(mark.loop) - 1
        self._marks.setdefault(dim, []).append(mark)
        try:
            yield
        finally:
            self._marks[dim].pop()

    def visit_user(self, node: isl.AstNode, level: int) -> None:
        """A statement instance: its body with the iterators replaced by the
        values the AST gives them, each cast to the iterator's declared type
        when C would compute it in another one (``(int)(c1 + 4294967296)``):
        the body computes as in the original.  The body is printed from its
        expression tree (:class:`~clayx.codegen.body.BodyPrinter`: subscripts
        from isl's access expressions) when it has one, else its text."""
        rel = self.scop.schedule.relations[user_relation(node)]
        st = self.statements[rel.stmt]
        args = self._user_args(node)
        if len(args) != st.dim:
            raise CodegenError(f"AST call of {st.name} has {len(args)} arguments, "
                               f"expected {st.dim}")
        values: dict[str, tuple[str, int]] = {}
        self._where.append(f"statement {st.name} ({' '.join(st.body.split())})")
        try:
            for k, (it, a) in enumerate(zip(st.iterators, args)):
                text, prec = self.body_value(a)
                want, got = int_type(st.iterator_type(k) or ""), self.value(a)
                if want is not None and got is not None and not want.same(got.ctype):
                    text, prec = f"({want})" + self._wrap((text, prec), UNARY), UNARY
                values[it] = (text, prec)
            text = self._bodies.statement(st, values, user_info(node).subscripts)
        finally:
            self._where.pop()
        if text is None and not st.body.strip():
            # no text (an OpenScop file without <body>): CLooG's form, the
            # statement called with its iterators' values
            text = f"{st.name}({', '.join(v for v, _ in values.values())});"
        if text is None:
            text = substitute_iterators(st.body, {k: v for k, (v, _) in values.items()})
        for ln in self._reindent(text.strip(), level):
            self.emit(ln)

    def visit_if(self, node: isl.AstNode, level: int) -> None:
        """``if (cond) …`` with an optional ``else`` / ``else if`` chain.
        The then-branch is braced when it has an ``else`` and is not a plain
        statement, or when it ends in an unbraced ``if`` (no dangling
        ``else``, no ``-Wdangling-else``); the ``else`` follows its style."""
        ind = self.ind(level)
        keyword = "if"
        while True:
            then = node.if_get_then_node()
            els = node.if_get_else_node() if node.if_has_else_node() else None
            braces = (not self._is_single(then) or self._has_open_if(then)
                      or (els is not None and then.get_type() != _N.user))
            head = f"{ind}{keyword} ({self.expr(node.if_get_cond())})"
            self.emit(head + " {" if braces else head)
            self.visit(then, level + 1)
            if els is None:
                if braces:
                    self.emit(f"{ind}}}")
                return
            if els.get_type() == _N.if_:
                keyword = "} else if" if braces else "else if"
                node = els
                continue
            if braces or not self._is_single(els):
                self.emit(f"{ind}{'} ' if braces else ''}else {{")
                self.visit(els, level + 1)
                self.emit(f"{ind}}}")
            else:
                self.emit(f"{ind}else")
                self.visit(els, level + 1)
            return

    def visit_for(self, node: isl.AstNode, level: int) -> None:
        """A loop: its pragmas (:meth:`loop_pragmas`, completed by
        :meth:`complete_pragmas` once the body is written), the
        :meth:`for_header`, the body; records its
        :class:`~clayx.codegen.result.LoopSpan`.  A degenerate loop is
        printed without a loop (its value substituted for its iterator), or
        as ``{ int c = value; … }`` when the value is too complex to
        repeat."""
        info = self.loop_info(node)
        it = node.for_get_iterator().get_id().get_name()
        body = node.for_get_body()
        if info.degenerate:
            if info.substituted:
                self._scope[it] = node.for_get_init()
                try:
                    self.visit(body, level)
                finally:
                    del self._scope[it]
                return
            self._print_degenerate_block(node, info, level)
            return
        buf = self._buffers[-1]
        ind = self.ind(level)
        with self._inside(it, info):
            pragmas = self.loop_pragmas(info)
            first = len(buf.lines)
            for p in pragmas:
                self.emit(ind + p)
            header = len(buf.lines)
            self._assigned.append(set())
            try:
                self._compound(self.for_header(node, info), body, level)
            finally:
                assigns = self._assigned.pop()
            done = self.complete_pragmas(info, pragmas, assigns)
            if len(done) != len(pragmas):
                raise CodegenError("complete_pragmas must keep the number of pragmas")
            for k, p in enumerate(done):
                buf.lines[first + k] = ind + p
        if info.declared:
            self._assign(info.name)
        buf.loops.append(LoopSpan(
            beta=info.beta, depth=info.depth, dim=info.dim, name=info.name,
            declared=info.declared, first=first, header=header, last=len(buf.lines) - 1,
            pragmas=tuple(done), marks=info.marks, assigns=tuple(sorted(assigns)),
            statements=info.statements))

    def _assign(self, name: str) -> None:
        """An outside-declared variable is assigned here: every enclosing
        loop's body assigns it."""
        for s in self._assigned:
            s.add(name)

    @contextmanager
    def _inside(self, it: str, info: LoopInfo) -> Iterator[None]:
        """The printing scope of a loop's body: its AST iterator ``it``
        printed as ``info.name`` (negated for a reversed loop), the name
        taken, its values known."""
        self._scope[it] = _Neg(info.name) if info.reversed else info.name
        self._enclosing.append(info.name)
        saved = self._values.get(info.name)
        if info.values is not None:
            self._values[info.name] = Value(*info.values.body, info.ctype)
        try:
            yield
        finally:
            self._enclosing.pop()
            del self._scope[it]
            self._values.pop(info.name, None)
            if saved is not None:
                self._values[info.name] = saved

    def array_ref(self, access, subscripts: list[str]) -> str:
        """The text of an array reference in a statement body: the array's
        name and the printed ``subscripts`` (a CUDA printer reads promoted
        arrays from shared memory instead); ``access`` is the
        :class:`~clayx.model.Access`."""
        return access.array + "".join(f"[{s}]" for s in subscripts)

    def loop_pragmas(self, info: LoopInfo) -> list[str]:
        """The pragma texts (without indentation) printed right above a
        loop; none in plain C."""
        return []

    def complete_pragmas(self, info: LoopInfo, pragmas: list[str],
                         assigns: set[str]) -> list[str]:
        """The final pragma texts of a loop, once its body is printed:
        ``assigns`` are the variables declared outside the region its body
        assigns.  As many as :meth:`loop_pragmas` gave; unchanged here."""
        return pragmas

    def for_header(self, node: isl.AstNode, info: LoopInfo) -> str:
        """``for (int c1 = init; cond; c1++)`` (the type is
        ``info.ctype``; none for a variable declared outside the region)."""
        name = info.name
        decl = "" if info.declared else f"{info.ctype} "
        inc_e = node.for_get_inc()
        unit = inc_e.get_type() == _E.int and inc_e.get_val().to_python() == 1
        if info.reversed:
            # c = -x runs up to ``c <= e`` / ``c < e``: x runs down to -e
            c = node.for_get_cond()
            rel = ">=" if c.get_op_type() == _O.le else ">"
            init, _ = self.neg_prec(node.for_get_init())
            bound = self._wrap(self.neg_prec(c.get_op_arg(1)), ADD)
            inc = f"{name}--" if unit else f"{name} -= {self.expr(inc_e)}"
            return f"for ({decl}{name} = {init}; {name} {rel} {bound}; {inc})"
        init = self.expr(node.for_get_init())
        cond = self.expr(node.for_get_cond())
        inc = f"{name}++" if unit else f"{name} += {self.expr(inc_e)}"
        return f"for ({decl}{name} = {init}; {cond}; {inc})"

    def _print_degenerate_block(self, node: isl.AstNode, info: LoopInfo,
                                level: int) -> None:
        it = node.for_get_iterator().get_id().get_name()
        with self._inside(it, info), self.capture() as inner:
            self.visit(node.for_get_body(), level + 1)
        if info.name not in identifiers("\n".join(inner.lines)):
            self.visit(node.for_get_body(), level)
            return
        decl = "" if info.declared else f"{info.ctype} "
        ind = self.ind(level)
        init = self.expr(node.for_get_init())
        self.emit(f"{ind}{{")
        self.emit(f"{self.ind(level + 1)}{decl}{info.name} = {init};")
        self.splice(inner)
        self.emit(f"{ind}}}")
        if info.declared:
            self._assign(info.name)

    # -- loop description ---------------------------------------------------------
    def loop_info(self, node: isl.AstNode) -> LoopInfo:
        """Describe a ``for`` node (in the current printing scope: the name
        avoids the names of the loops enclosing it)."""
        it = node.for_get_iterator().get_id().get_name()
        dim = iterator_dim(it)
        depth = alpha_depth(dim, self.max_depth)
        users = self._users_below(node)
        rel_ids: list[int] = []
        for k, _ in users:
            if k not in rel_ids:
                rel_ids.append(k)
        rels = [self.scop.schedule.relations[k] for k in rel_ids]
        stmts: list[str] = []
        for r in rels:
            if r.stmt not in stmts:
                stmts.append(r.stmt)
        beta = rels[0].beta[:depth] if depth is not None and rels else None
        marks = tuple(self._marks.get(dim, ()))
        degenerate = bool(node.for_is_degenerate())
        substituted = degenerate and _op_count(node.for_get_init()) <= _SUBSTITUTE_LIMIT
        name, rev, ctype, values = "", False, INT, None
        if not substituted:
            where = f"the loop at {list(beta)}" if beta is not None else "a loop"
            self._where.append(f"the bounds of {where}")
            try:
                values = self._loop_values(node)
            finally:
                self._where.pop()
            name, rev, ctype = self._loop_name(
                it, depth or dim, users, stmts, values, where,
                reversible=not degenerate and self._reversible(node))
            if rev and values is not None:
                values = values.negated()
        return LoopInfo(dim=dim, depth=depth, beta=beta, relations=tuple(rel_ids),
                        statements=tuple(stmts), marks=marks, name=name,
                        declared=name in self.scop.declared_iterators,
                        degenerate=degenerate, substituted=substituted, reversed=rev,
                        ctype=ctype, values=values)

    def _loop_name(self, it: str, k: int, users, stmts: list[str],
                   values: LoopValues | None, where: str, *,
                   reversible: bool = False) -> tuple[str, bool, IntType]:
        """(name, reversed, C type) of the loop whose AST iterator is ``it``
        and takes ``values``.

        A statement instance below *agrees* with an original iterator ``x``
        when the AST passes the loop iterator itself as ``x``'s value (or its
        negation, for a reversed loop); one whose arguments do not mention
        the loop is neutral.  The loop is named ``x`` when every other
        instance agrees with ``x``, ``x`` names no enclosing loop, no
        parameter, and nothing else in those bodies, and ``x``'s declared
        type holds the loop's values (:meth:`_declared_type`); it then has
        that type.  Else ``c<k>``, ``int`` or ``long long``
        (:func:`~clayx.codegen.types.wide_enough`).
        """
        for rev in (False, True) if reversible else (False,):
            vals = values.negated() if rev and values is not None else values
            for x in self._agreeing(it, users, negated=rev):
                if self._free_for(x, stmts):
                    t = self._declared_type(x, stmts, vals)
                    if t is not None:
                        return x, rev, t
        name = f"c{k}"
        while name in self._reserved or name in self._enclosing:
            name += "_"
        if values is None:
            return name, False, INT
        return name, False, types.wide_enough(*values.every, f"the iterator {name} of {where}")

    def _declared_type(self, x: str, stmts: list[str],
                       values: LoopValues | None) -> IntType | None:
        """The C type a loop printed as the original iterator ``x`` gets:
        the type of the variable declared outside the region
        (``scop.declared_iterator_types``), or the type every statement
        below declares ``x`` with.  With no declaration known (OpenScop) or
        an unsigned one, the loop declares ``x`` signed, ``int`` or ``long
        long`` (isl's bounds are signed expressions, which an unsigned
        iterator would compare wrongly: ``i <= N - 1`` for ``N = 0``), and
        the bodies get ``(unsigned)x``.  None (the loop then gets a fresh
        name) when the statements disagree, when the type cannot hold
        ``values``, or for an unsigned variable declared outside."""
        outside = x in self.scop.declared_iterators
        if outside:
            found = [int_type(self.scop.declared_iterator_types.get(x, "int")) or INT]
        else:
            found = []
            for s in stmts:
                st = self.statements[s]
                if x in st.iterators:
                    text = st.iterator_type(st.iterators.index(x))
                    if text is not None:
                        found.append(int_type(text) or INT)
        if found and any(not found[0].same(u) for u in found):
            return None
        if not found or (not found[0].signed and not outside):
            # no declaration known (OpenScop), or an unsigned one: isl's
            # bounds are signed (``i <= N - 1`` is -1 for N = 0) and would
            # compare wrongly with an unsigned iterator, so the loop's own
            # iterator is signed; the body casts it back to its type
            return INT if values is None else types.wide_enough(
                *values.every, f"the iterator {x} of the loop")
        t = found[0]
        if not t.signed or (values is not None and not t.holds(*values.every)):
            return None
        return t

    def _loop_values(self, node: isl.AstNode) -> LoopValues | None:
        """The values the iterator of a ``for`` node takes (see
        :func:`~clayx.codegen.types.loop_values`), None when its bounds are
        not of the form isl prints (``c <= e``, ``c < e``, joined by
        ``&&``) or their values are unknown."""
        init = self.value(node.for_get_init())
        if init is None:
            return None
        if node.for_is_degenerate():
            return LoopValues((init.lo, init.hi), (init.lo, init.hi))
        it = node.for_get_iterator().get_id().get_name()
        uppers = self._upper_bounds(node.for_get_cond(), it)
        inc = node.for_get_inc()
        if uppers is None or inc.get_type() != _E.int:
            return None
        stride = int(inc.get_val().to_python())
        if stride <= 0:
            return None
        return types.loop_values(init, uppers, stride)

    def _upper_bounds(self, cond: isl.AstExpr, it: str) -> list[Value] | None:
        """The values of the upper bounds in a loop condition ``c <= e``,
        ``c < e`` (as ``e - 1``), ``… && …``; None for another shape."""
        if cond.get_type() != _E.op:
            return None
        op = cond.get_op_type()
        if op in (_O.and_, _O.and_then):
            out: list[Value] = []
            for k in range(cond.get_op_n_arg()):
                part = self._upper_bounds(cond.get_op_arg(k), it)
                if part is None:
                    return None
                out += part
            return out
        if op not in (_O.le, _O.lt):
            return None
        lhs, rhs = cond.get_op_arg(0), cond.get_op_arg(1)
        if not (lhs.get_type() == _E.id and lhs.get_id().get_name() == it) or _mentions(rhs, it):
            return None
        v = self.value(rhs)
        if v is None:
            return None
        return [v if op == _O.le else Value(v.lo - 1, v.hi - 1, v.ctype)]

    def _agreeing(self, it: str, users, *, negated: bool) -> list[str]:
        cands: list[str] | None = None
        for rk, args in users:
            if not any(_mentions(a, it) for a in args):
                continue
            st = self.statements[self.scop.schedule.relations[rk].stmt]
            names = []
            for p, a in enumerate(args[:st.dim]):
                if negated:
                    if not self._is_op(a, _O.minus):
                        continue
                    a = a.get_op_arg(0)
                if a.get_type() == _E.id and a.get_id().get_name() == it:
                    names.append(st.iterators[p])
            cands = names if cands is None else [n for n in cands if n in names]
            if not cands:
                return []
        return cands or []

    def _free_for(self, x: str, stmts: list[str]) -> bool:
        if x in self._enclosing or x in self.scop.params:
            return False
        return not any(x in self._body_ids[s] and x not in self.statements[s].iterators
                       for s in stmts)

    @staticmethod
    def _reversible(node: isl.AstNode) -> bool:
        """Whether a loop's condition is ``c <= e`` or ``c < e`` (so it can be
        printed counting down over ``-c``)."""
        it = node.for_get_iterator().get_id().get_name()
        c = node.for_get_cond()
        if c.get_type() != _E.op or c.get_op_type() not in (_O.le, _O.lt):
            return False
        lhs, rhs = c.get_op_arg(0), c.get_op_arg(1)
        return (lhs.get_type() == _E.id and lhs.get_id().get_name() == it
                and not _mentions(rhs, it))

    # -- expressions ----------------------------------------------------------------
    def expr(self, e: isl.AstExpr, limit: int = ANY) -> str:
        """C text of an AST expression, parenthesized if its precedence is
        looser than ``limit``."""
        text, prec = self.expr_prec(e)
        return f"({text})" if prec > limit else text

    def value(self, e: isl.AstExpr) -> Value | None:
        """The :class:`~clayx.codegen.types.Value` of an expression as this
        printer prints it (casts included), in the current scope; None when
        unknown (an operand that is not an integer expression)."""
        t = e.get_type()
        if t == _E.int:
            return types.constant(e.get_val().to_python(), self._what())
        if t == _E.id:
            name = e.get_id().get_name()
            bound = self._scope.get(name, name)
            if isinstance(bound, str):
                return self._name_value(bound)
            if isinstance(bound, _Neg):
                v = self._name_value(bound.name)
                return None if v is None else v.negated()
            return self.value(bound)
        if t != _E.op:
            return None
        op = e.get_op_type()
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        if op in (_O.add, _O.sub, _O.mul):
            return self._arith(op, args)[0]
        if op == _O.minus:
            return self._sum_plan(self._ordered(self._terms_of(op, args))).value
        vals = [self.value(a) for a in args]
        v = types.combine(op, vals)
        if v is not None and op == _O.fdiv_q and types.floord_cast(*vals, self._what()):
            v = v.widened()
        return v

    def _arith(self, op, args: list[isl.AstExpr]) -> tuple[Value | None, bool]:
        """The value of ``a + b``, ``a - b`` or ``a * b`` as printed, and
        whether its left operand gets a ``(long long)`` cast
        (:func:`~clayx.codegen.types.arith`)."""
        return types.arith(op, self.value(args[0]), self.value(args[1]), self._what())

    def _what(self) -> str:
        """What is being printed, for an error: ``the bounds of the loop at
        [0]``, ``statement S0 (…)``, or ``the generated code``."""
        return self._where[-1] if self._where else "the generated code"

    def _name_value(self, name: str) -> Value | None:
        """The value of a printed name: a loop iterator in scope (its values
        in the loop, its type), or a parameter (its macro value, else 0;
        ``int`` unless the value needs ``long``); None for another name."""
        if name in self._values:
            return self._values[name]
        if name in self.scop.params:
            v = self.scop.param_values.get(name, 0)
            return Value(v, v, literal_type(v))
        return None

    def expr_prec(self, e: isl.AstExpr) -> tuple[str, int]:
        """(text, precedence level) of an expression."""
        t = e.get_type()
        if t == _E.int:
            v = str(types.constant(e.get_val().to_python(), self._what()).lo)
            return v, (UNARY if v.startswith("-") else PRIMARY)
        if t == _E.id:
            name = e.get_id().get_name()
            value = self._scope.get(name, name)
            if isinstance(value, str):
                return value, PRIMARY
            if isinstance(value, _Neg):
                return f"-{value.name}", UNARY
            return self.expr_prec(value)
        if t != _E.op:
            raise CodegenError(f"unsupported AST expression {e.to_C_str()}")
        return self.op(e.get_op_type(), [e.get_op_arg(k) for k in range(e.get_op_n_arg())])

    def op(self, op, args: list[isl.AstExpr]) -> tuple[str, int]:
        """(text, precedence) of an operation (``op`` an
        ``isl.ast_expr_op_type``)."""
        if op in _BINARY:
            sym, prec = _BINARY[op]
            if len(args) != 2:
                raise CodegenError(f"operator {sym} with {len(args)} operands")
            if prec in (REL, EQ):   # no chained comparisons
                left, right = ADD, ADD
            elif prec == OR:        # gcc -Wparentheses: (a && b) || c
                left = OR if self._is_op(args[0], _O.or_, _O.or_else) else AND - 1
                right = AND - 1
            else:
                left, right = prec, prec - 1
            text = self.expr(args[0], left)
            if op in (_O.add, _O.sub, _O.mul) and self._arith(op, args)[1]:
                text = f"({LONG_LONG})" + self._wrap(self.expr_prec(args[0]), UNARY)
            return f"{text} {sym} {self.expr(args[1], right)}", prec
        if op in (_O.add, _O.sub, _O.minus) or (
                op == _O.mul and any(a.get_type() == _E.int for a in args)):
            return self.sum_prec(self._terms_of(op, args))
        if op in (_O.min, _O.max, _O.fdiv_q):
            role = {_O.min: "min", _O.max: "max", _O.fdiv_q: "floord"}[op]
            texts = [self.expr(a) for a in args]
            if op == _O.fdiv_q and types.floord_cast(*map(self.value, args), self._what()):
                texts[0] = f"({LONG_LONG})" + self._wrap(self.expr_prec(args[0]), UNARY)
            return self.macro_call(role, texts), PRIMARY
        if op in (_O.cond, _O.select):
            c, a, b = (self.expr(x, COND - 1) for x in args)
            return f"{c} ? {a} : {b}", COND
        if op == _O.call:
            fn = self.expr(args[0], PRIMARY)
            return f"{fn}({', '.join(self.expr(a) for a in args[1:])})", PRIMARY
        if op == _O.access:
            base = self.expr(args[0], PRIMARY)
            return base + "".join(f"[{self.expr(a)}]" for a in args[1:]), PRIMARY
        if op == _O.member:
            return f"{self.expr(args[0], PRIMARY)}.{self.expr(args[1])}", PRIMARY
        if op == _O.address_of:
            inner = self.expr(args[0], UNARY)
            if inner.startswith("&"):
                inner = f"({inner})"
            return f"&{inner}", UNARY
        raise CodegenError(f"unsupported AST operation {op}")

    def neg_prec(self, e: isl.AstExpr) -> tuple[str, int]:
        """(text, precedence) of ``-e``, simplified: ``-(a - b + 1)`` prints
        as ``-a + b - 1``, ``-min(a, b)`` as ``max(-a, -b)``, ``--x`` as ``x``."""
        if self._is_op(e, _O.min, _O.max):
            role = "max" if e.get_op_type() == _O.min else "min"
            args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
            return self.macro_call(role, [self._wrap(self.neg_prec(a), ANY) for a in args]), PRIMARY
        return self.sum_prec(self._terms(e, -1))

    def _terms(self, e: isl.AstExpr, sign: int) -> list[tuple[int, isl.AstExpr | str | None]]:
        """``sign·e`` as a list of (coefficient, atom) terms: atoms are
        expressions that are not sums or integer multiples, printed names
        (str), or None for a constant."""
        t = e.get_type()
        if t == _E.int:
            return [(sign * e.get_val().to_python(), None)]
        if t == _E.id:
            value = self._scope.get(e.get_id().get_name(), e.get_id().get_name())
            if isinstance(value, str):
                return [(sign, value)]
            if isinstance(value, _Neg):
                return [(-sign, value.name)]
            return self._terms(value, sign)
        if t == _E.op:
            op = e.get_op_type()
            if op in (_O.add, _O.sub):
                right = sign if op == _O.add else -sign
                return self._terms(e.get_op_arg(0), sign) + self._terms(e.get_op_arg(1), right)
            if op == _O.minus:
                return self._terms(e.get_op_arg(0), -sign)
            if op == _O.mul:
                a, b = e.get_op_arg(0), e.get_op_arg(1)
                if a.get_type() == _E.int:
                    return self._terms(b, sign * a.get_val().to_python())
                if b.get_type() == _E.int:
                    return self._terms(a, sign * b.get_val().to_python())
        return [(sign, e)]

    def _ordered(self, terms: list[tuple[int, isl.AstExpr | str | None]]
                 ) -> list[tuple[int, isl.AstExpr | str | None]]:
        """The terms of a sum in printed order: constants added up and put
        last, zero terms dropped (a lone 0 when nothing is left); inside
        :meth:`subscript`, positive terms before negative ones."""
        const = sum(c for c, a in terms if a is None)
        out = [(c, a) for c, a in terms if a is not None and c != 0]
        if self._positive_first:
            out.sort(key=lambda t: t[0] < 0)
            if const > 0 and out and out[0][0] < 0:
                return [(const, None)] + out        # 1 - c2, not -c2 + 1
        if const or not out:
            out.append((const, None))
        return out

    def subscript(self, e: isl.AstExpr) -> str:
        """An array subscript written by isl, as a person writes it: its
        sums with the positive terms first (``c2 - i - 1``, not
        ``-i + c2 - 1``)."""
        return self.body_value(e)[0]

    def body_value(self, e: isl.AstExpr) -> tuple[str, int]:
        """(text, precedence) of an expression inside a statement body (a
        subscript, an iterator's value): sums with the positive terms first
        (``c2 - i``, ``1 - c2``)."""
        self._positive_first += 1
        try:
            if self._is_op(e, _O.add, _O.sub, _O.minus):
                return self.sum_prec(self._terms(e, 1))
            return self.expr_prec(e)
        finally:
            self._positive_first -= 1

    def _sum_plan(self, terms: list[tuple[int, isl.AstExpr | str | None]]) -> types.SumPlan:
        """The casts and value of a sum of terms in printed order
        (:func:`~clayx.codegen.types.sum_value`)."""
        atoms = []
        for c, a in terms:
            if a is None:
                atoms.append((c, None))
                continue
            v = self._name_value(a) if isinstance(a, str) else self.value(a)
            if v is None:
                return types.SumPlan(frozenset(), None)
            atoms.append((c, v))
        return types.sum_value(atoms, self._what())

    def sum_prec(self, terms: list[tuple[int, isl.AstExpr | str | None]]) -> tuple[str, int]:
        """(text, precedence) of a sum of terms, constants added up and
        printed last (isl's order otherwise kept): ``-N + c1 + 1``.  A term
        whose product, or the first term when a partial sum, would leave
        ``int`` is cast to ``long long`` (:func:`_sum_plan`)."""
        terms = self._ordered(terms)
        casts = self._sum_plan(terms).casts
        parts: list[str] = []
        prec = PRIMARY
        for n, (c, a) in enumerate(terms):
            mag = abs(c)
            cast = f"({LONG_LONG})" if n in casts else ""
            if a is None:
                text, prec = cast + str(types.constant(mag, self._what()).lo), PRIMARY
            elif mag == 1:
                if isinstance(a, str):
                    text, prec = cast + a, PRIMARY
                elif cast:
                    text, prec = cast + self.expr(a, UNARY), UNARY
                else:
                    limit = (UNARY if c < 0 else ADD) if n == 0 else ADD - 1
                    text, prec = self.expr(a, limit), self.expr_prec(a)[1]
            else:
                text = f"{cast}{mag} * " + (a if isinstance(a, str) else self.expr(a, MUL - 1))
                prec = MUL
            if n == 0:
                if c < 0:
                    if text.startswith(("-", "+")):
                        text = f"({text})"
                    text = "-" + text
                    prec = max(prec, UNARY)
                parts.append(text)
            else:
                parts.append(f"{'-' if c < 0 else '+'} {text}")
        return " ".join(parts), (ADD if len(parts) > 1 else prec)

    def _terms_of(self, op, args: list[isl.AstExpr]):
        if op == _O.minus:
            return self._terms(args[0], -1)
        if op == _O.mul:
            a, b = args
            if a.get_type() == _E.int:
                return self._terms(b, a.get_val().to_python())
            return self._terms(a, b.get_val().to_python())
        return self._terms(args[0], 1) + self._terms(args[1], 1 if op == _O.add else -1)

    def macro_call(self, role: str, args: list[str]) -> str:
        """``floord(a, b)`` / nested ``min(min(a, b), c)`` with the macro's
        name for this file; records that the macro must be defined."""
        self.used_macros.add(role)
        name = self.macros[role]
        text = args[0]
        for a in args[1:]:
            text = f"{name}({text}, {a})"
        return text

    @staticmethod
    def _wrap(tp: tuple[str, int], limit: int) -> str:
        text, prec = tp
        return f"({text})" if prec > limit else text

    # -- helpers ----------------------------------------------------------------------
    @staticmethod
    def _is_op(e: isl.AstExpr, *ops) -> bool:
        return e.get_type() == _E.op and e.get_op_type() in ops

    @staticmethod
    def _children(node: isl.AstNode) -> list[isl.AstNode]:
        lst = node.block_get_children()
        return [lst.get_at(k) for k in range(lst.n_ast_node())]

    @staticmethod
    def _user_args(node: isl.AstNode) -> list[isl.AstExpr]:
        e = node.user_get_expr()
        return [e.get_op_arg(k) for k in range(1, e.get_op_n_arg())]

    def _users_below(self, node: isl.AstNode) -> list[tuple[int, list[isl.AstExpr]]]:
        """(relation index, call arguments) of every user node below."""
        out: list[tuple[int, list[isl.AstExpr]]] = []
        stack = [node]
        while stack:
            n = stack.pop()
            t = n.get_type()
            if t == _N.user:
                out.append((user_relation(n), self._user_args(n)))
            elif t == _N.for_:
                stack.append(n.for_get_body())
            elif t == _N.if_:
                if n.if_has_else_node():
                    stack.append(n.if_get_else_node())
                stack.append(n.if_get_then_node())
            elif t == _N.block:
                stack.extend(reversed(self._children(n)))
            elif t == _N.mark:
                stack.append(n.mark_get_node())
        return out

    def _has_open_if(self, node: isl.AstNode) -> bool:
        """Whether ``node`` prints as (or ends, through unbraced loop
        bodies, in) an ``if`` statement."""
        t = node.get_type()
        if t == _N.if_:
            return True
        if t == _N.for_:
            body = node.for_get_body()
            if node.for_is_degenerate() and _op_count(node.for_get_init()) > _SUBSTITUTE_LIMIT:
                return False  # printed as a braced block
            return self._is_single(body) and self._has_open_if(body)
        if t == _N.mark:
            return self._has_open_if(node.mark_get_node())
        if t == _N.block:
            kids = self._children(node)
            return len(kids) == 1 and self._has_open_if(kids[0])
        return False

    def _is_single(self, node: isl.AstNode) -> bool:
        """Whether ``node`` prints as exactly one C statement."""
        t = node.get_type()
        if t == _N.block:
            kids = self._children(node)
            return len(kids) == 1 and self._is_single(kids[0])
        if t == _N.user:
            st = self.statements[self.scop.schedule.relations[user_relation(node)].stmt]
            return _single_statement(st.body)
        if t == _N.for_:
            if node.for_is_degenerate() and _op_count(node.for_get_init()) <= _SUBSTITUTE_LIMIT:
                return self._is_single(node.for_get_body())
            return True
        if t == _N.mark:
            with self._marked(node):
                return self._is_single(node.mark_get_node())
        return True

    def _compound(self, header: str, body: isl.AstNode, level: int) -> None:
        ind = self.ind(level)
        if self._is_single(body):
            self.emit(f"{ind}{header}")
            self.visit(body, level + 1)
        else:
            self.emit(f"{ind}{header} {{")
            self.visit(body, level + 1)
            self.emit(f"{ind}}}")

    def _reindent(self, text: str, level: int) -> list[str]:
        lines = text.splitlines()
        first = f"{self.ind(level)}{lines[0].strip()}"
        rest = [ln for ln in lines[1:]]
        if not rest:
            return [first]
        nonblank = [ln for ln in rest if ln.strip()]
        cut = min((len(ln) - len(ln.lstrip()) for ln in nonblank), default=0)
        return [first] + [f"{self.ind(level + 1)}{ln[cut:]}" if ln.strip() else ""
                          for ln in rest]


def _single_statement(body: str) -> bool:
    """Whether a body is one C statement (so it needs no braces)."""
    s = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', body.strip())
    if s.startswith("{"):
        return True
    return s.count(";") <= 1 and not re.match(r"(if|for|while|do)\b", s)


def _mentions(e: isl.AstExpr, name: str) -> bool:
    """Whether the id ``name`` occurs in an expression."""
    t = e.get_type()
    if t == _E.id:
        return e.get_id().get_name() == name
    if t == _E.op:
        return any(_mentions(e.get_op_arg(k), name) for k in range(e.get_op_n_arg()))
    return False


def _op_count(e: isl.AstExpr) -> int:
    """Number of operation nodes of an expression, min/max/div/select
    counted heavier (they repeat text when substituted)."""
    if e.get_type() != _E.op:
        return 0
    op = e.get_op_type()
    weight = 4 if op in (_O.min, _O.max, _O.fdiv_q, _O.cond, _O.select) else 1
    return weight + sum(_op_count(e.get_op_arg(k)) for k in range(e.get_op_n_arg()))


# -- entry points -------------------------------------------------------------------

#: Code generation targets: name -> (module, printer class).  ``c`` honours
#: only the ``unroll`` marks; ``omp`` adds the OpenMP pragmas.
TARGETS = {"c": ("clayx.codegen.omp", "MarkPrinter"),
           "omp": ("clayx.codegen.omp", "OmpPrinter")}


def printer_class(target: str) -> type[CPrinter]:
    """The printer class of a code generation ``target`` (``c``, ``omp``);
    :class:`~clayx.errors.CodegenError` for an unknown one."""
    if target not in TARGETS:
        raise CodegenError(f"unknown target {target!r} (available: {', '.join(TARGETS)})")
    import importlib
    module, name = TARGETS[target]
    return getattr(importlib.import_module(module), name)


def generate(scop: Scop, *, target: str = "c",
             max_operations: int | None = DEFAULT_MAX_OPERATIONS) -> GeneratedRegion:
    """The code replacing ``scop``'s region as a structured result: its
    lines (indented like the original region) and the
    :class:`~clayx.codegen.result.LoopSpan` of every printed loop (β-prefix,
    lines, pragmas, marks, the variables its body assigns).  ``target``
    picks the printer (:data:`TARGETS`); ``max_operations`` bounds isl's
    AST generation (None: no bound).  :class:`~clayx.errors.CodegenError`
    when code cannot be generated."""
    printer = printer_class(target)
    if not scop.schedule.relations:             # an empty SCoP: no code
        return GeneratedRegion((), (), target)
    original = None
    if scop.source is not None and scop.region is not None:
        original = scop.source[scop.region[0]:scop.region[1]]
    base, unit = detect_indent(original or "")
    node = build_ast(scop, max_operations=max_operations)
    try:
        return printer(scop, base_indent=base, indent=unit).generate(node, original)
    except isl.Error as e:
        raise CodegenError(f"printing the generated code failed in isl: {e}") from None


def generate_region(scop: Scop, *, target: str = "c",
                    max_operations: int | None = DEFAULT_MAX_OPERATIONS,
                    timeout: float | None = None) -> str:
    """The C text replacing ``scop.source[scop.region[0]:scop.region[1]]``:
    :func:`generate`'s text, with the original region's line endings.

    The text between the ``#pragma scop`` and ``#pragma endscop`` lines
    (both kept by the caller), indented like the original region, ending with
    a newline.  ``target`` picks the printer (:data:`TARGETS`: ``c``, or
    ``omp`` for OpenMP pragmas on the loops marked parallel or vectorize).
    ``max_operations`` bounds isl's AST generation (None: no
    bound); ``timeout`` (seconds), when given, also runs the generation in a
    fresh worker interpreter that is killed past the limit (its start-up,
    ~0.3 s, is not counted).  Either limit raises
    :class:`~clayx.errors.CodegenError`.
    """
    printer_class(target)
    if timeout is not None:
        return _generate_in_worker(scop, target, max_operations, timeout)
    text = generate(scop, target=target, max_operations=max_operations).text
    original = scop.source[scop.region[0]:scop.region[1]] \
        if scop.source is not None and scop.region is not None else None
    if original is not None and "\r\n" in original:  # keep the file's line endings
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


def generate_file(scops: Sequence[Scop], **kwargs) -> str:
    """The whole file text (``scops[0].source``) with each SCoP's region
    replaced by :func:`generate_region` (keyword arguments are passed on).
    The SCoPs must come from the same source with disjoint regions; all text
    outside the regions is kept byte for byte."""
    if not scops:
        raise CodegenError("no SCoP to generate")
    source = scops[0].source
    if source is None:
        raise CodegenError("the SCoP has no source text to splice into")
    for s in scops:
        if s.source != source or s.region is None:
            raise CodegenError("generate_file needs SCoPs of one source, each with a region")
    order = sorted(scops, key=lambda s: s.region[0])
    for a, b in zip(order, order[1:]):
        if a.region[1] > b.region[0]:
            raise CodegenError(f"SCoP regions {a.region} and {b.region} overlap")
    text = source
    for s in reversed(order):
        start, end = s.region
        text = text[:start] + generate_region(s, **kwargs) + text[end:]
    return text


# -- timeout guard: a worker process -------------------------------------------------

#: Seconds allowed for the worker interpreter to start (import islpy, clayx);
#: not counted in ``timeout``.  Start-up measured here: ~0.3 s.
WORKER_STARTUP_LIMIT = 60.0


def _generate_in_worker(scop: Scop, target: str, max_operations: int | None,
                        timeout: float) -> str:
    """Run :func:`generate_region` in a fresh interpreter
    (:mod:`clayx.codegen._worker`) and kill it ``timeout`` seconds after it
    has started: islpy holds the GIL, so a thread could not be stopped."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    try:
        payload = pickle.dumps((scop, target, max_operations))
    except Exception as e:  # noqa: BLE001 - unpicklable user data
        raise CodegenError(f"cannot send the SCoP to a worker process: {e}") from None
    proc = subprocess.Popen([sys.executable, "-m", "clayx.codegen._worker"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)
            ready = sel.select(WORKER_STARTUP_LIMIT)
        if not ready or proc.stdout.readline() != b"ready\n":
            raise CodegenError("the code generation worker did not start: "
                               + proc.stderr.read(2000).decode(errors="replace")
                               if proc.poll() is not None else
                               "the code generation worker did not start")
        try:
            out, err = proc.communicate(payload, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise CodegenError(
                f"AST generation took longer than {timeout:g} s and was stopped; "
                "the schedule is probably too complex to scan") from None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    try:
        status, value = pickle.loads(out)
    except Exception:  # noqa: BLE001 - a crashed worker
        raise CodegenError("the code generation worker died: "
                           + err.decode(errors="replace")[-2000:]) from None
    if status == "ok":
        return value
    raise CodegenError(value)
