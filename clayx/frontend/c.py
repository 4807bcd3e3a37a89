"""C SCoP extraction with tree-sitter (no preprocessor).

Every ``#pragma scop`` … ``#pragma endscop`` region of a C file becomes a
:class:`~clayx.model.Scop` with Clay's original 2d+1 schedule (normalized
β-vectors, α = the loop iterator, or its negation for a decreasing loop).

What is understood inside a region:

- ``for`` loops whose init is ``i = e`` or ``int i = e``, whose condition is
  made of comparisons ``< <= > >=`` bounding the iterator (joined with
  ``&&``/``||``), and whose step is ``i++``, ``++i``, ``i--``, ``i += c``,
  ``i -= c``, ``i = i ± c`` (c a positive constant);
- ``if``/``else`` with affine conditions (``&&``, ``||``, ``!``, ``==``,
  ``!=``);
- affine expressions: ``+ - *`` by constants, ``/`` and ``%`` by constants
  (C truncating semantics), ``min``/``max``/``MIN``/``MAX``, ``floord``/
  ``ceild``, ternaries, integer casts;
- expression statements with ``=``, compound assignments, ``++``/``--``, on
  scalars and array elements with affine subscripts; calls (``sqrt``,
  ``SCALAR_VAL``, user functions) are pure; a write under a ternary branch or
  the right of ``&&``/``||`` is a may-write.

Integers: every constant is a 64-bit value at most (``2**63 - 1`` in
magnitude; a larger one is refused).  Each loop iterator's declared type
is recorded (``for (long i = …``, or the declaration of an ``i`` the
function declares outside the SCoP; ``int`` when none is found) in
``Statement.iterator_types`` and ``Scop.declared_iterator_types``, so that
generated code keeps it.  A loop whose iterator's type cannot hold a value
the loop gives it (its initial value, a value of the body, its exit value:
``for (int i = 0; i < 3000000000L; i++)``) is refused at its bound, when
the overflow happens whatever the values of parameters that are not
integer macros (whose values are used).

Unknown identifiers in bounds, conditions and subscripts are parameters.

Macros are those in force at the SCoP, by position (:mod:`.macros`): the
last ``#define`` before ``#pragma scop`` unless ``#undef``-ined since, at
file level or inside the function.  An object-like macro whose value is an
integer keeps its name as a parameter (its value is recorded in
``Scop.param_values``); one whose value is an affine expression is expanded
in bounds, conditions and subscripts (else it is an opaque parameter, which
must not depend on a loop iterator or on what the SCoP writes).  In a
statement body a macro is analysed through its expansion: a constant reads
nothing, a function-like macro that only reads its arguments is a pure call,
anything else (an array it reads or writes, an argument it assigns) is
recorded as the expansion does it; a macro definition naming a loop
iterator is refused (generated code renames iterators in bodies, not in
macros).

``#define``/``#undef`` lines inside the SCoP: clayx's own ``floord``/
``ceild``/``min``/``max`` helpers (and their ``#undef``) are recognised and
left to code generation; the others are kept (``Scop.macro_lines``, which
code generation repeats at the top of the region) when every use of the
name in the SCoP comes after its last ``#define``/``#undef`` there, so all
statements see one definition whatever their order; otherwise refused.

Liveness: an array is dead after the SCoP (``Array.live_out`` false) when
it is a local variable of the function around the region, not ``static``/
``extern``, declared once in that function before the region, whose name
occurs in the function nowhere outside the region but in that declaration,
and that no ``#define`` of the file mentions; every other array is live.

Anything else is refused with :class:`~clayx.errors.NotAScopError` naming
the construct, line and column; no partial model is ever returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import islpy as isl
import tree_sitter as ts
import tree_sitter_c as tsc

from ..errors import NotAScopError
from ..model import (MAY_WRITE, READ, WRITE, Access, Array, ClaySchedule,
                     Relation, Scop, Statement, identifiers)
from ..model import expr as bx
from ..model.inttypes import INT64_MAX, int_type
from . import macros as pp

__all__ = ["parse_file", "parse_string", "parse_expression_text", "statement_syntax_error"]

_MIN = {"min", "MIN", "clayx_min", "fmin", "__min"}
_MAX = {"max", "MAX", "clayx_max", "fmax", "__max"}
_FLOORD = {"floord", "clayx_floord", "FLOORD"}
_CEILD = {"ceild", "clayx_ceild", "CEILD"}
_PRAGMA = re.compile(r"\s*#\s*pragma\s+(scop|endscop)\s*$")
# what gcc's preprocessor removes from a directive line before reading it
_PP_NOISE = re.compile(r"/\*.*?\*/|//[^\n]*|\\\n", re.S)
#: The deepest syntax tree read (PolyBench kernels nest about 25 levels).
MAX_DEPTH = 200
_INT_TYPES = re.compile(r"^(unsigned|signed|int|long|short|char|size_t|ptrdiff_t|"
                        r"int\d+_t|uint\d+_t|\s)+$")

# leaves of the tree the preprocessor would replace if they named a macro
_IDENTIFIER_LEAVES = ("identifier", "type_identifier", "field_identifier",
                      "statement_identifier")
_ITERATOR_IN_MACRO = "loop iterator in a macro"

# statement kinds refused inside a SCoP, with the name the error shows
_REFUSED_STMT = {
    "while_statement": "while loop",
    "do_statement": "do-while loop",
    "break_statement": "break",
    "continue_statement": "continue",
    "return_statement": "return",
    "goto_statement": "goto",
    "switch_statement": "switch",
    "labeled_statement": "label",
    "declaration": "declaration inside the SCoP",
    "case_statement": "case label",
    "type_definition": "typedef inside the SCoP",
}


@lru_cache(maxsize=1)
def _parser() -> ts.Parser:
    return ts.Parser(ts.Language(tsc.language()))


def parse_file(path: str | Path) -> list[Scop]:
    """Read a C file and return one :class:`Scop` per ``#pragma scop`` region.

    Raises :class:`NotAScopError` when the file has no region or a region
    holds an unsupported construct.
    """
    from .text import read_text
    p = str(path)
    text = read_text(path, lambda m, line, col: NotAScopError(m, line=line, column=col, path=p),
                     lambda why: NotAScopError(f"cannot read the file: {why}", path=p))
    # universal newlines, as Python's text mode reads them
    return parse_string(text.replace("\r\n", "\n").replace("\r", "\n"), path=p)


def parse_string(text: str, path: str | None = None) -> list[Scop]:
    """Like :func:`parse_file` on the C source ``text``."""
    return _Extractor(text, path).run()


def parse_expression_text(text: str) -> ts.Node:
    """Parse a C expression with tree-sitter (used for macro bodies)."""
    src = f"int __clayx_probe = ({text});\n".encode()
    tree = _parser().parse(src)
    node = tree.root_node
    decl = node.children[0] if node.children else None
    if decl is None or decl.type != "declaration" or node.has_error:
        return None
    init = decl.child_by_field_name("declarator")
    if init is None or init.type != "init_declarator":
        return None
    return init.child_by_field_name("value")


def statement_syntax_error(text: str) -> tuple[int, int, str] | None:
    """Where the C statement text ``text`` (an OpenScop ``<body>``) is not
    C statements: (0-based line, 0-based column, what is wrong: ``missing
    ;``, ``unexpected ')'``, ``a declaration``), or None when it parses as
    statements of a function body."""
    src = ("void __clayx_body(void) {\n" + text + "\n}\n").encode()
    root = _parser().parse(src).root_node
    if not root.has_error:
        fn = root.named_children[0] if root.named_child_count == 1 else None
        body = fn.child_by_field_name("body") if fn is not None else None
        if body is None:                    # the text closed the function early
            return 0, 0, f"unexpected {text.strip().splitlines()[0][:40]!r}"
        for c in body.named_children:       # statements, not declarations
            if not (c.type.endswith("statement") or c.type == "comment"
                    or c.type.startswith("preproc")):
                row, col = c.start_point
                return row - 1, col, f"a {c.type.replace('_', ' ')}"
        return None
    node = root
    while True:
        bad = next((c for c in node.children if c.is_missing or c.type == "ERROR"
                    or c.has_error), None)
        if bad is None or bad.is_missing or bad.type == "ERROR":
            node = bad or node
            break
        node = bad
    row, col = node.start_point
    if node.is_missing:
        return row - 1, col, f"missing {node.type}"
    shown = node.text.decode("utf8", errors="replace").splitlines() or [""]
    return row - 1, col, f"unexpected {shown[0][:40]!r}"


# ---------------------------------------------------------------------------

def _text(node: ts.Node) -> str:
    return node.text.decode("utf8", errors="replace")


@dataclass
class _Loop:
    iterator: str
    increasing: bool
    node: ts.Node
    ctype: str = "int"        # the iterator's declared C type


@dataclass
class _Ctx:
    """Where we are while walking a region: enclosing loops and the domain."""

    loops: list[_Loop]
    domain: isl.Set           # over the enclosing iterators (unnamed tuple)
    beta: list[int]           # β prefix of the enclosing loops
    may: bool = False         # inside a conditionally evaluated sub-expression


@dataclass
class _RawStmt:
    name: str
    node: ts.Node
    domain: isl.Set
    iterators: tuple[str, ...]
    beta: tuple[int, ...]
    alphas: tuple[str, ...]
    iterator_types: tuple[str, ...] = ()
    accesses: list[tuple[str, str, list[isl.PwAff] | None, str, ts.Node]] = field(default_factory=list)
    # an access with text was recorded at a macro's site (not at its own
    # node): the body tree could not place it, the text is printed instead
    macro_site: bool = False


@dataclass
class _Frame:
    """A macro expansion being walked: ``site`` is the outermost use in the
    source (errors and accesses point there), ``spans`` the byte ranges of
    the parsed expansion copied from the source (the arguments); ``may``
    when the macro has several possible definitions (their writes are
    may-writes)."""

    macro: pp.Macro
    site: ts.Node
    spans: tuple[tuple[int, int], ...]
    may: bool

    def covers(self, start: int, end: int) -> bool:
        """True when bytes ``start:end`` of the expansion are from the source."""
        return any(a <= start and end <= b for a, b in self.spans)


class _Extractor:
    def __init__(self, text: str, path: str | None):
        self.text = text
        self.path = path
        self.src = text.encode("utf8")
        self.tree = _parser().parse(self.src)
        self._check_depth()
        self.ctx = isl.DEFAULT_CONTEXT
        self.pp = pp.directives(self.tree.root_node, self.src)
        # per region (see _region_macros): the macros in force, clayx's own
        # helpers (name -> role), the directives code generation repeats
        self.env: dict[str, tuple[pp.Macro, ...]] = {}
        self.helper_roles: dict[str, str] = {}
        self.macro_lines: tuple[str, ...] = ()
        self._frames: list[_Frame] = []
        self._in_body = False

    # -- errors ----------------------------------------------------------
    def _check_depth(self) -> None:
        """Refuse a syntax tree nested deeper than :data:`MAX_DEPTH` (the
        walks over it recurse; real code nests a few dozen levels)."""
        stack = [(self.tree.root_node, 1)]
        while stack:
            node, d = stack.pop()
            if d > MAX_DEPTH:
                raise self.error(node, "nesting", f"the code nests more than {MAX_DEPTH} "
                                 "levels deep (expressions, blocks, parentheses)")
            stack.extend((ch, d + 1) for ch in node.children)

    def error(self, node: ts.Node, construct: str, message: str) -> NotAScopError:
        line, col = node.start_point
        # tree-sitter columns are bytes; convert to characters
        line_start = self.src.rfind(b"\n", 0, node.start_byte) + 1
        col = len(self.src[line_start:node.start_byte].decode("utf8", errors="replace"))
        snippet = _text(node).split("\n")[0]
        if len(snippet) > 60:
            snippet = snippet[:57] + "..."
        return NotAScopError(message, construct=construct, line=line + 1,
                             column=col + 1, path=self.path, text=snippet)

    def char_offset(self, byte: int) -> int:
        return len(self.src[:byte].decode("utf8", errors="replace"))

    # -- macros ----------------------------------------------------------
    def _macros(self, name: str, function_like: bool) -> tuple[pp.Macro, ...]:
        """The definitions of ``name`` of that kind that may be in force in
        the SCoP (none while ``name`` is being expanded: the preprocessor
        does not expand a macro inside its own expansion)."""
        if any(f.macro.name == name for f in self._frames):
            return ()
        return tuple(m for m in self.env.get(name, ()) if m.function_like == function_like)

    def macro_int(self, name: str) -> int | None:
        """The integer value of the object-like macro ``name`` in force in the
        SCoP (all its possible definitions agree), else None."""
        defs = self.env.get(name, ())
        vals = {m.int_value() for m in defs}
        return vals.pop() if defs and len(vals) == 1 and None not in vals else None

    def _closure(self, name: str) -> set[str]:
        """The identifiers the definitions of ``name`` in force reach,
        through other macros too (``name`` itself excluded)."""
        seen: set[str] = set()
        todo = [name]
        while todo:
            for m in self.env.get(todo.pop(), ()):
                new = m.identifiers() - seen - {name}
                seen |= new
                todo.extend(new)
        return seen

    def _helper_role(self, name: str) -> str | None:
        """``min``/``max``/``floord``/``ceild`` for a name understood as that
        function, else None."""
        for role, names in (("min", _MIN), ("max", _MAX), ("floord", _FLOORD),
                            ("ceild", _CEILD)):
            if name in names:
                return role
        return self.helper_roles.get(name)

    def _region_macros(self, kids: list[ts.Node], start: ts.Node) -> None:
        """Set the macros in force in the region whose top-level nodes are
        ``kids`` (``start``: its ``#pragma scop``): those before the pragma,
        then the ``#define``/``#undef`` lines inside the region, which must
        not change a name between two of its uses (see the module doc)."""
        state = pp.state_at(self.pp, start.start_byte)
        entry = pp.in_force(state)
        found: list[tuple[ts.Node, pp.Macro | pp.Undef]] = []

        def visit(n: ts.Node) -> None:
            ev = pp.directive(n, self.src)
            if ev is not None:
                prev = n.prev_sibling
                if prev is not None and prev.has_error and prev.type in (
                        "for_statement", "if_statement", "else_clause"):
                    raise self.error(n, "preprocessor line in a statement",
                                     "a #define/#undef between a loop or if header and its "
                                     "statement is not supported")
                found.append((n, ev))
            elif not n.type.startswith("preproc_if"):  # refused by _stmt
                for ch in n.children:
                    visit(ch)
        for k in kids:
            visit(k)
        self.env, self.helper_roles, self.macro_lines = entry, {}, ()
        if not found:
            return
        self.env = {**entry}
        for _, ev in found:
            if isinstance(ev, pp.Macro):
                self.env[ev.name] = self.env.get(ev.name, ()) + (ev,)
        uses: dict[str, list[ts.Node]] = {}

        def use(n: ts.Node) -> None:
            if n.type in _IDENTIFIER_LEAVES:
                tok = _text(n)
                for name in {tok} | self._closure(tok):
                    uses.setdefault(name, []).append(n)
            elif pp.directive(n, self.src) is None:
                for ch in n.children:
                    use(ch)
        for k in kids:
            use(k)
        self.helper_roles = self._clayx_helpers(found, entry, uses)
        user = [(n, ev) for n, ev in found if ev.name not in self.helper_roles]
        for n, ev in user:
            early = [u for u in uses.get(ev.name, ()) if u.start_byte < n.start_byte]
            if early:
                u = early[0]
                via = "" if _text(u) == ev.name else f" (through '{_text(u)}')"
                kind = "#define" if isinstance(ev, pp.Macro) else "#undef"
                raise self.error(
                    n, f"{kind} inside the SCoP",
                    f"the SCoP uses '{ev.name}' at line {u.start_point[0] + 1}{via}, before "
                    f"this line changes it: statements on either side see different "
                    f"definitions, and a transformation may reorder them (move the "
                    f"{kind} out of the SCoP)")
        for _, ev in user:
            pp.apply(state, ev)
        self.env = pp.in_force(state)
        self.macro_lines = tuple(ev.text for _, ev in user)

    def _clayx_helpers(self, found: list, entry: dict, uses: dict) -> dict[str, str]:
        """The ``#define``/``#undef`` pairs of the region that are clayx's own
        ``floord``/``ceild``/``min``/``max`` (the text code generation
        writes, a name not defined before the region, used only between the
        pair and only in loop headers and conditions, which code generation
        rewrites): name -> role."""
        from ..model.helpers import MACROS  # the definitions code generation writes
        out: dict[str, str] = {}
        for name in {ev.name for _, ev in found}:
            m = re.fullmatch(r"(floord|ceild|min|max)|clayx_(floord|ceild|min|max)_*", name)
            evs = [(n, ev) for n, ev in found if ev.name == name]
            if m is None or name in entry or len(evs) != 2:
                continue
            role = m.group(1) or m.group(2)
            (dn, d), (un, u) = evs
            if not (isinstance(d, pp.Macro) and isinstance(u, pp.Undef)
                    and d.function_like and pp.normalized(re.sub(r"^#\s*", "#", d.text))
                    == pp.normalized(MACROS[role].format(n=name))):
                continue
            if all(dn.end_byte <= x.start_byte < un.start_byte and not _in_statement(x)
                   for x in uses.get(name, ())):
                out[name] = role
        return out

    def _expansion(self, site: ts.Node, pieces: list[pp.Piece], macro: pp.Macro, walk,
                   may: bool = False):
        """``walk`` the parsed expansion ``pieces`` of ``macro`` used at
        ``site``; an error inside points at the outermost use in the source
        and names the macro."""
        outer = self._frames[-1] if self._frames else None
        text, spans, pos = "", [], 0
        for piece, origin in pieces:
            size = len(piece.encode("utf8"))
            if origin is not None and (outer is None or outer.covers(*origin)):
                spans.append((pos, pos + size))
            text += piece
            pos += size
        top = outer.site if outer is not None else site
        root = parse_expression_text(text)
        if root is None:
            err = self.error(top, f"macro '{macro.name}'",
                             f"its expansion `{text}` (#define at line {macro.line}) is not "
                             "an expression")
            err.in_macro = True
            raise err
        base = root.start_byte + 1
        self._frames.append(_Frame(macro, top, tuple((a + base, b + base) for a, b in spans),
                                   may or (outer is not None and outer.may)))
        try:
            return walk(root)
        except NotAScopError as e:
            msg = e.message if getattr(e, "in_macro", False) else (
                f"in the expansion of macro '{macro.name}' (#define at line {macro.line}): "
                f"{e.message}")
            err = self.error(top, e.construct, msg)
            err.in_macro = True
            raise err from None
        finally:
            self._frames.pop()

    @staticmethod
    def _spliced(site: ts.Node, ident: ts.Node, body: str) -> list[pp.Piece]:
        """The text of ``site`` with the identifier ``ident`` in it replaced
        by ``body``."""
        raw = site.text
        a, b = ident.start_byte - site.start_byte, ident.end_byte - site.start_byte
        return [(raw[:a].decode("utf8", errors="replace"), (site.start_byte, ident.start_byte)),
                (body, None),
                (raw[b:].decode("utf8", errors="replace"), (ident.end_byte, site.end_byte))]

    def _arguments(self, call: ts.Node, macro: pp.Macro) -> list[pp.Piece]:
        """``macro``'s body for the call ``call``, arguments substituted."""
        args = call.child_by_field_name("arguments")
        argn = [a for a in (args.named_children if args else []) if a.type != "comment"]
        try:
            return pp.substitute(macro, [(_text(a), (a.start_byte, a.end_byte)) for a in argn])
        except ValueError as e:
            raise self.error(call, f"call to macro '{macro.name}'", str(e)) from None

    def _iterator_in_macro(self, node: ts.Node, name: str) -> None:
        """Refuse the loop iterator ``name`` at ``node`` when a macro
        definition, not the statement, names it (bodies only)."""
        if self._in_body and self._frames and not self._frames[-1].covers(
                node.start_byte, node.end_byte):
            raise self.error(node, _ITERATOR_IN_MACRO,
                             f"the definition names the loop iterator '{name}': generated "
                             "code renames the iterators of a statement, not those inside "
                             "a macro definition")

    # -- driver ----------------------------------------------------------
    def run(self) -> list[Scop]:
        regions = self._find_regions()
        if not regions:
            raise NotAScopError(
                "no '#pragma scop' region found: mark the loop nest with "
                "'#pragma scop' and '#pragma endscop' lines",
                construct="#pragma scop", path=self.path)
        return [self._region(parent, a, b) for parent, a, b in regions]

    def _pragma(self, node: ts.Node) -> str | None:
        """``scop``/``endscop`` for those pragma lines (``# pragma scop``,
        comments and line continuations anywhere, as gcc reads them), else
        None."""
        if node.type != "preproc_call":
            return None
        text = _PP_NOISE.sub(lambda m: "" if m.group(0) == "\\\n" else " ", _text(node))
        m = _PRAGMA.match(text)
        return m.group(1) if m else None

    def _find_regions(self) -> list[tuple[ts.Node, int, int]]:
        regions: list[tuple[ts.Node, int, int]] = []

        def visit(node: ts.Node) -> None:
            kids = node.children
            start = None
            for idx, ch in enumerate(kids):
                p = self._pragma(ch)
                if p == "scop":
                    if start is not None:
                        raise self.error(ch, "#pragma scop",
                                         "nested '#pragma scop' before '#pragma endscop'")
                    start = idx
                elif p == "endscop":
                    if start is None:
                        raise self.error(ch, "#pragma endscop",
                                         "'#pragma endscop' without '#pragma scop'")
                    regions.append((node, start, idx))
                    start = None
                elif start is None:
                    visit(ch)
            if start is not None:
                raise self.error(kids[start], "#pragma scop",
                                 "'#pragma scop' without a matching '#pragma endscop' "
                                 "in the same block")

        visit(self.tree.root_node)
        return regions

    # -- one region -------------------------------------------------------
    def _region(self, parent: ts.Node, a: int, b: int) -> Scop:
        kids = parent.children[a + 1:b]
        start_node, end_node = parent.children[a], parent.children[b]
        # region = from the line after '#pragma scop' to the start of the
        # '#pragma endscop' line
        rs = self.src.find(b"\n", start_node.start_byte)
        rs = len(self.src) if rs < 0 else rs + 1
        rs = max(rs, start_node.end_byte) if self.src[start_node.end_byte - 1:start_node.end_byte] == b"\n" else rs
        re_ = self.src.rfind(b"\n", 0, end_node.start_byte) + 1

        self.params: list[str] = []
        self.param_values: dict[str, int] = {}
        self.iterators_all: set[str] = set()
        self.declared_outside: set[str] = set()
        self.declared_types: dict[str, str] = {}
        self.stmts: list[_RawStmt] = []
        self.written: dict[str, ts.Node] = {}
        self.param_nodes: dict[str, ts.Node] = {}

        self._region_macros(kids, start_node)
        self._prescan(kids)
        ctx = _Ctx(loops=[], domain=self._universe([]), beta=[])
        counter = [0]
        for ch in kids:
            self._stmt(ch, ctx, counter)

        # parameters must not be written in the SCoP
        for p in self.params:
            if p in self.written:
                node = self.written[p]
                raise self.error(node, "data-dependent bound",
                                 f"'{p}' is used in a loop bound, condition or "
                                 "subscript and written inside the SCoP")
            # nor be a macro standing for something that varies in it
            for x in sorted(self._closure(p) & (set(self.written) | self.iterators_all)):
                what = "a loop iterator" if x in self.iterators_all else "written inside the SCoP"
                raise self.error(self.param_nodes[p], "macro parameter",
                                 f"'{p}' (#define at line {self.env[p][0].line}) depends on "
                                 f"'{x}', {what}: it is not a constant of the SCoP")
        return self._build(rs, re_)

    def _prescan(self, kids: list[ts.Node]) -> None:
        """Collect the loop iterators (all loops) before the real walk, so an
        identifier in a bound can be classified as iterator or parameter."""
        def visit(n: ts.Node) -> None:
            if n.type == "for_statement":
                init = n.child_by_field_name("initializer")
                it = self._loop_iterator_name(init)
                if it in self.env:
                    raise self.error(init, "macro as loop iterator",
                                     f"loop iterator '{it}' is a macro (#define at line "
                                     f"{self.env[it][0].line})")
                if it:
                    self.iterators_all.add(it)
            for ch in n.children:
                visit(ch)
        for k in kids:
            visit(k)

    @staticmethod
    def _loop_iterator_name(init: ts.Node | None) -> str | None:
        if init is None:
            return None
        if init.type == "assignment_expression":
            left = init.child_by_field_name("left")
            if left is not None and left.type == "identifier":
                return _text(left)
        if init.type == "declaration":
            d = init.child_by_field_name("declarator")
            if d is not None and d.type == "init_declarator":
                nm = d.child_by_field_name("declarator")
                if nm is not None and nm.type == "identifier":
                    return _text(nm)
        return None

    # -- isl helpers -----------------------------------------------------------
    def _space(self, its: list[str]) -> isl.Space:
        return isl.Space.create_from_names(self.ctx, set=list(its), params=list(self.params))

    def _universe(self, its: list[str]) -> isl.Set:
        return isl.Set.universe(self._space(its))

    def _add_param(self, name: str) -> None:
        if name not in self.params:
            self.params.append(name)

    def _align(self, obj):
        """Align an isl object's parameters to the current parameter list."""
        return obj.align_params(isl.Space.create_from_names(self.ctx, set=[], params=list(self.params)).params())

    # -- statements ------------------------------------------------------------
    def _stmt(self, node: ts.Node, ctx: _Ctx, counter: list[int]) -> None:
        t = node.type
        if t in ("comment", ";"):
            return
        if t == "ERROR" or node.has_error:
            bad = self._first_error(node)
            raise self.error(bad, "syntax error", "the C parser could not read this")
        if self._pragma(node) is not None:
            raise self.error(node, f"#pragma {self._pragma(node)}",
                             f"'#pragma {self._pragma(node)}' inside a SCoP (SCoPs do not "
                             "nest)")
        if t == "preproc_call" or t == "preproc_def" or t == "preproc_function_def":
            # #define / #undef lines (clayx's own output has them) are allowed
            d = node.child_by_field_name("directive")
            if t in ("preproc_def", "preproc_function_def") or (
                    d is not None and _text(d) in ("#undef",)):
                return
            raise self.error(node, "preprocessor directive",
                             "preprocessor lines other than #define/#undef are not "
                             "supported inside a SCoP")
        if t == "compound_statement":
            for ch in node.named_children:
                self._stmt(ch, ctx, counter)
            return
        if t == "expression_statement":
            if node.named_child_count == 0:
                return
            self._expression_statement(node, ctx, counter)
            return
        if t == "for_statement":
            self._for(node, ctx, counter)
            return
        if t == "if_statement":
            self._if(node, ctx, counter)
            return
        if t in _REFUSED_STMT:
            raise self.error(node, _REFUSED_STMT[t],
                             "not supported inside a SCoP")
        if t.startswith("preproc"):
            raise self.error(node, "preprocessor directive",
                             "conditional compilation is not supported inside a SCoP")
        raise self.error(node, t.replace("_", " "), "not supported inside a SCoP")

    def _first_error(self, node: ts.Node) -> ts.Node:
        if node.type == "ERROR" or node.is_missing:
            return node
        for ch in node.children:
            if ch.has_error or ch.type == "ERROR" or ch.is_missing:
                return self._first_error(ch)
        return node

    def _if(self, node: ts.Node, ctx: _Ctx, counter: list[int]) -> None:
        cond = node.child_by_field_name("condition")
        cons = node.child_by_field_name("consequence")
        alt = node.child_by_field_name("alternative")
        its = [l.iterator for l in ctx.loops]
        cset = self._cond(cond, its, "if condition")
        then_ctx = _Ctx(ctx.loops, self._align(ctx.domain).intersect(self._align(cset)), ctx.beta)
        self._stmt(cons, then_ctx, counter)
        if alt is not None:
            body = alt
            if alt.type == "else_clause":
                body = alt.named_children[0] if alt.named_children else None
            if body is not None:
                else_ctx = _Ctx(ctx.loops, self._align(ctx.domain).subtract(self._align(cset)), ctx.beta)
                self._stmt(body, else_ctx, counter)

    def _for(self, node: ts.Node, ctx: _Ctx, counter: list[int]) -> None:
        init = node.child_by_field_name("initializer")
        cond = node.child_by_field_name("condition")
        upd = node.child_by_field_name("update")
        body = node.child_by_field_name("body")
        outer = [l.iterator for l in ctx.loops]
        if init is None:
            raise self.error(node, "for loop without initialization",
                             "a SCoP loop must initialize its iterator")
        it = self._loop_iterator_name(init)
        if it is None:
            raise self.error(init, "loop initialization",
                             "expected 'i = expression' or 'int i = expression'")
        if not it.isascii():
            raise self.error(init, "non-ASCII identifier",
                             f"loop iterator '{it}': clayx names iterators in ASCII")
        if it in outer:
            raise self.error(init, "shadowed iterator",
                             f"loop iterator '{it}' is already the iterator of an enclosing loop")
        if init.type == "declaration":
            d = init.child_by_field_name("declarator")
            lb_node = d.child_by_field_name("value")
            tnode = init.child_by_field_name("type")
            if tnode is not None and not _INT_TYPES.match(_text(tnode)):
                raise self.error(tnode, "non-integer loop iterator",
                                 f"iterator type '{_text(tnode)}' is not an integer type")
            if len(init.named_children) > 2:
                raise self.error(init, "loop initialization",
                                 "only one iterator may be declared in a SCoP loop")
            ctype = " ".join(_text(tnode).split()) if tnode is not None else "int"
        else:
            lb_node = init.child_by_field_name("right")
            if _text(init.child_by_field_name("operator")) != "=":
                raise self.error(init, "loop initialization",
                                 "expected 'i = expression'")
            self.declared_outside.add(it)
            ctype = self._declared_type(it, node) or "int"
            self.declared_types[it] = ctype
        step = self._step(upd, it, node)
        if cond is None:
            raise self.error(node, "for loop without condition",
                             "a SCoP loop needs a condition bounding its iterator")
        its = outer + [it]
        lb = self._lift(self._aff(lb_node, outer, "loop bound"), 1)
        var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(self._space(its)),
                                      isl.dim_type.set, len(outer))
        lb = self._align(lb)
        increasing = step > 0
        dom = var.ge_set(lb) if increasing else var.le_set(lb)
        cset = self._loop_cond(cond, its, it, increasing)
        dom = self._align(dom).intersect(self._align(cset))
        if abs(step) > 1:
            diff = self._align(var).sub(self._align(lb))
            zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(self._align(self._universe(its)).get_space()))
            dom = dom.intersect(diff.mod_val(isl.Val(abs(step))).eq_set(zero))
        outer_dom = self._align(ctx.domain).add_dims(isl.dim_type.set, 1)
        outer_dom = outer_dom.set_dim_name(isl.dim_type.set, len(outer), it)
        dom = _named(outer_dom.intersect(self._align(dom)), its)
        starts = outer_dom.intersect(self._align(var.eq_set(lb)))
        self._check_type(it, ctype, dom, starts, step, init, cond)
        beta = ctx.beta + [counter[0]]
        counter[0] += 1
        inner = _Ctx(ctx.loops + [_Loop(it, increasing, node, ctype)], dom, beta)
        sub_counter = [0]
        self._stmt(body, inner, sub_counter)

    def _declared_type(self, name: str, at: ts.Node) -> str | None:
        """The type of the declaration of ``name`` visible at ``at`` (the
        innermost block, ``for`` header, function parameter or file-scope
        declaration before it), ``"int"``-like text; ``"?"`` when ``name``
        is declared as something else than a plain scalar; None when no
        declaration is found."""
        child, parent = at, at.parent
        while parent is not None:
            found = None
            for ch in parent.children:
                if ch.start_byte >= child.start_byte:
                    break
                for decl in _declarations_in(ch):
                    t = _declares(decl, name)
                    if t is not None:
                        found = t
            if found is not None:
                return found
            child, parent = parent, parent.parent
        return None

    def _check_type(self, it: str, ctype: str, dom: isl.Set, starts: isl.Set,
                    step: int, init: ts.Node, cond: ts.Node) -> None:
        """Refuse a loop whose iterator's declared type cannot hold a value
        the loop gives it: a start value (``starts``: the iterations of the
        enclosing loops with the iterator at its initial value), a value of
        the body (``dom``), or the exit value (the last plus ``step``).
        Parameters with an integer macro value take it; a value that still
        depends on another parameter is not judged."""
        t = int_type(ctype)
        if t is None:
            return
        pos = dom.dim(isl.dim_type.set) - 1
        checks = [(v, init, "initial value") for f in ("dim_min", "dim_max")
                  for v in self._certain(getattr(starts, f)(pos))]
        checks += [(v, cond, "value") for f in ("dim_min", "dim_max")
                   for v in self._certain(getattr(dom, f)(pos))]
        checks += [(v + step, cond, "exit value") for v in
                   self._certain(dom.dim_max(pos) if step > 0 else dom.dim_min(pos))]
        for v, node, what in checks:
            if not t.holds(v, v):
                raise self.error(node, "loop bound beyond the iterator's type",
                                 f"'{it}' is declared {t} ({t.lo} to {t.hi}) but the "
                                 f"loop gives it the {what} {v}")

    def _certain(self, pa: isl.PwAff) -> list[int]:
        """The values of ``pa`` once the parameters with integer macro
        values take them; pieces that still depend on another parameter
        are left out."""
        known = isl.Set.universe(pa.get_domain_space().params())
        for k, name in enumerate(self.params):
            if name in self.param_values:
                known = known.fix_val(isl.dim_type.param, k, isl.Val.read_from_str(
                    self.ctx, str(self.param_values[name])))
        out: list[int] = []

        def piece(dom: isl.Set, aff: isl.Aff) -> None:
            # a piece over the parameters only (a bound of a set dimension)
            if (dom.is_empty() or aff.dim(isl.dim_type.div)
                    or not aff.get_denominator_val().is_one()):
                return
            value = int(aff.get_constant_val().to_python())
            for k, name in enumerate(self.params):
                c = int(aff.get_coefficient_val(isl.dim_type.param, k).to_python())
                if c and name not in self.param_values:
                    return
                value += c * self.param_values.get(name, 0)
            out.append(value)
        pa.intersect_params(known).foreach_piece(piece)
        return out

    def _step(self, upd: ts.Node | None, it: str, loop: ts.Node) -> int:
        if upd is None:
            raise self.error(loop, "for loop without increment",
                             "a SCoP loop must step its iterator by a constant")
        if upd.type == "update_expression":
            arg = upd.child_by_field_name("argument")
            op = _text(upd.child_by_field_name("operator"))
            if arg is not None and _text(arg) == it:
                return 1 if op == "++" else -1
        elif upd.type == "assignment_expression":
            left = upd.child_by_field_name("left")
            op = _text(upd.child_by_field_name("operator"))
            right = upd.child_by_field_name("right")
            if left is not None and _text(left) == it:
                if op in ("+=", "-="):
                    c = self._const_int(right)
                    if c is not None and c > 0:
                        return c if op == "+=" else -c
                elif op == "=" and right is not None and right.type == "binary_expression":
                    l2 = right.child_by_field_name("left")
                    o2 = _text(right.child_by_field_name("operator"))
                    r2 = right.child_by_field_name("right")
                    if o2 in ("+", "-") and l2 is not None and _text(l2) == it:
                        c = self._const_int(r2)
                        if c is not None and c > 0:
                            return c if o2 == "+" else -c
                    if o2 == "+" and r2 is not None and _text(r2) == it:
                        c = self._const_int(l2)
                        if c is not None and c > 0:
                            return c
        raise self.error(upd, "loop increment",
                         f"expected '{it}++', '{it}--', '{it} += c' or '{it} -= c' "
                         "with a positive integer constant c")

    def _const_int(self, node: ts.Node | None) -> int | None:
        if node is None:
            return None
        while node.type == "parenthesized_expression":
            node = node.named_children[0]
        if node.type == "number_literal":
            return self._literal(node)
        if node.type == "identifier":
            v = self.macro_int(_text(node))
            if v is not None and abs(v) > INT64_MAX:
                raise self.error(node, "integer constant",
                                 f"{v} is beyond 64 bits (clayx handles integers up "
                                 f"to 2^63 - 1 = {INT64_MAX} in magnitude)")
            return v
        return None

    def _literal(self, node: ts.Node) -> int | None:
        """The value of an integer literal (None for another number);
        refused beyond 64 bits (``2**63 - 1`` in magnitude)."""
        v = _int_literal(_text(node))
        if v is not None and abs(v) > INT64_MAX:
            raise self.error(node, "integer constant",
                             f"{_text(node)} is beyond 64 bits (clayx handles integers up "
                             f"to 2^63 - 1 = {INT64_MAX} in magnitude)")
        return v

    def _loop_cond(self, cond: ts.Node, its: list[str], it: str, increasing: bool) -> isl.Set:
        """The loop condition as a set; every comparison must bound the
        iterator on the side the loop moves to (else the loop may not end)."""
        def atoms(n: ts.Node) -> None:
            while n.type == "parenthesized_expression":
                n = n.named_children[0]
            if n.type == "binary_expression":
                op = _text(n.child_by_field_name("operator"))
                if op in ("&&", "||"):
                    atoms(n.child_by_field_name("left"))
                    atoms(n.child_by_field_name("right"))
                    return
                if op in ("<", "<=", ">", ">="):
                    left = self._aff(n.child_by_field_name("left"), its, "loop condition")
                    right = self._aff(n.child_by_field_name("right"), its, "loop condition")
                    # bound form: small < big ; iterator coefficient in big - small
                    diff = right.sub(left) if op in ("<", "<=") else left.sub(right)
                    coefs: list[int] = []
                    pos = len(its) - 1
                    diff.foreach_piece(lambda s, a: coefs.append(
                        int(a.get_coefficient_val(isl.dim_type.in_, pos).to_python())))
                    ok = bool(coefs) and all((c < 0) if increasing else (c > 0) for c in coefs)
                    if not ok:
                        raise self.error(n, "loop condition",
                                         f"'{_text(n)}' does not bound the iterator '{it}' "
                                         f"{'from above' if increasing else 'from below'}")
                    return
            raise self.error(n, "loop condition",
                             f"expected comparisons (<, <=, >, >=) bounding '{it}', "
                             "joined with && or ||")
        atoms(cond)
        return self._cond(cond, its, "loop condition")

    # -- affine expressions and conditions ----------------------------------
    def _ls(self, its: list[str]) -> isl.LocalSpace:
        return isl.LocalSpace.from_space(self._space(its))

    def _cst(self, its: list[str], v: int) -> isl.PwAff:
        return isl.PwAff.from_aff(isl.Aff.zero_on_domain(self._ls(its)).set_constant_val(isl.Val(v)))

    def _lift(self, pa: isl.PwAff, n: int) -> isl.PwAff:
        """Add ``n`` unused trailing iterator dimensions to ``pa``'s domain."""
        return pa.add_dims(isl.dim_type.in_, n)

    def _aff(self, node: ts.Node, its: list[str], where: str) -> isl.PwAff:
        """Convert an affine C expression over ``its`` and parameters."""
        pa = self._aff_rec(node, its, where)
        return self._align(pa)

    def _bin(self, a: isl.PwAff, b: isl.PwAff):
        a, b = self._align(a), self._align(b)
        return a, b

    def _aff_rec(self, node: ts.Node, its: list[str], where: str) -> isl.PwAff:
        t = node.type
        if t == "parenthesized_expression":
            return self._aff_rec(node.named_children[0], its, where)
        if t == "number_literal":
            v = self._literal(node)
            if v is None:
                raise self.error(node, "non-integer constant",
                                 f"'{_text(node)}' in a {where} is not an integer")
            return self._cst(its, v)
        if t == "char_literal":
            raise self.error(node, "character constant", f"not supported in a {where}")
        if t == "identifier":
            name = _text(node)
            if name in its:
                self._iterator_in_macro(node, name)
                return isl.PwAff.var_on_domain(self._ls(its), isl.dim_type.set, its.index(name))
            if name in self.iterators_all:
                raise self.error(node, "iterator outside its loop",
                                 f"'{name}' is a loop iterator used outside its loop")
            defs = () if name in self.params or self.macro_int(name) is not None \
                else self._macros(name, False)
            if len(defs) == 1:
                saved = list(self.params), dict(self.param_values), dict(self.param_nodes)
                try:
                    return self._expansion(node, self._spliced(node, node, defs[0].body),
                                           defs[0], lambda root: self._aff_rec(root, its, where))
                except NotAScopError as e:
                    if e.construct == _ITERATOR_IN_MACRO:
                        raise
                    # not affine: an opaque parameter (without the ones the
                    # attempt introduced)
                    self.params[:] = saved[0]
                    self.param_values, self.param_nodes = saved[1:]
            if not name.isascii():
                raise self.error(node, "non-ASCII identifier",
                                 f"'{name}' in a {where}: clayx names parameters in ASCII")
            self._add_param(name)
            self.param_nodes.setdefault(name, self._frames[0].site if self._frames else node)
            v = self.macro_int(name)
            if v is not None:
                self.param_values[name] = v
            return isl.PwAff.var_on_domain(self._ls(its), isl.dim_type.param,
                                           self.params.index(name))
        if t == "unary_expression":
            op = _text(node.child_by_field_name("operator"))
            arg = self._aff_rec(node.child_by_field_name("argument"), its, where)
            if op == "-":
                return arg.neg()
            if op == "+":
                return arg
            raise self.error(node, f"operator '{op}'", f"not affine (in a {where})")
        if t == "cast_expression":
            ty = node.child_by_field_name("type")
            if ty is not None and _INT_TYPES.match(_text(ty)):
                return self._aff_rec(node.child_by_field_name("value"), its, where)
            raise self.error(node, "non-integer cast", f"not affine (in a {where})")
        if t == "binary_expression":
            op = _text(node.child_by_field_name("operator"))
            ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op in ("+", "-", "*", "/", "%"):
                a, b = self._bin(self._aff_rec(ln, its, where), self._aff_rec(rn, its, where))
                if op == "+":
                    return a.add(b)
                if op == "-":
                    return a.sub(b)
                if op == "*":
                    if not (a.is_cst() or b.is_cst()):
                        raise self.error(node, "non-affine expression",
                                         f"product of two non-constant terms in a {where}")
                    return a.mul(b)
                if not b.is_cst():
                    raise self.error(node, "non-affine expression",
                                     f"division by a non-constant in a {where}")
                if self._may_be_zero(b):
                    raise self.error(node, "division by zero", f"in a {where}")
                return a.tdiv_q(b) if op == "/" else a.tdiv_r(b)
            raise self.error(node, f"operator '{op}'", f"not affine (in a {where})")
        if t == "conditional_expression":
            c = self._cond(node.child_by_field_name("condition"), its, where)
            a, b = self._bin(self._aff_rec(node.child_by_field_name("consequence"), its, where),
                             self._aff_rec(node.child_by_field_name("alternative"), its, where))
            ind = self._align(c).indicator_function()
            return ind.cond(a, b)
        if t == "call_expression":
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            name = _text(fn) if fn is not None else ""
            argn = [x for x in args.named_children if x.type != "comment"] if args else []
            role = self._helper_role(name)
            if role in ("min", "max"):
                if len(argn) < 2:
                    raise self.error(node, f"call to {name}", "needs at least two arguments")
                vals = [self._aff_rec(x, its, where) for x in argn]
                acc = self._align(vals[0])
                for v in vals[1:]:
                    acc, v = self._bin(acc, v)
                    acc = acc.min(v) if role == "min" else acc.max(v)
                return acc
            if role in ("floord", "ceild"):
                if len(argn) != 2:
                    raise self.error(node, f"call to {name}", "needs two arguments")
                a = self._aff_rec(argn[0], its, where)
                d = self._const_int_expr(argn[1], its, where)
                if d is None or d <= 0:
                    raise self.error(argn[1], "non-affine expression",
                                     f"{name} needs a positive constant divisor")
                q = self._align(a).scale_down_val(isl.Val(d))
                return q.floor() if role == "floord" else q.ceil()
            defs = self._macros(name, True)
            if len(defs) == 1:
                return self._expansion(node, self._arguments(node, defs[0]), defs[0],
                                       lambda root: self._aff_rec(root, its, where))
            raise self.error(node, f"call to {name or 'a function'}",
                             f"a function call is not affine (in a {where})")
        if t == "subscript_expression":
            raise self.error(node, "array access in an affine expression",
                             f"an array element in a {where} is data-dependent "
                             "(indirection is not supported)")
        if t in ("pointer_expression", "field_expression"):
            raise self.error(node, t.replace("_", " "), f"not supported in a {where}")
        if t == "sizeof_expression":
            raise self.error(node, "sizeof", f"not supported in a {where}")
        raise self.error(node, t.replace("_", " "), f"not affine (in a {where})")

    def _const_int_expr(self, node: ts.Node, its: list[str], where: str) -> int | None:
        pa = self._aff_rec(node, its, where)
        if not pa.is_cst():
            return None
        pieces: list[int] = []
        pa.foreach_piece(lambda s, a: pieces.append(int(a.get_constant_val().to_python())))
        return pieces[0] if len(set(pieces)) == 1 else None

    def _may_be_zero(self, b: isl.PwAff) -> bool:
        zero = b.eq_set(isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(b.get_domain_space())))
        return not zero.is_empty()

    def _cond(self, node: ts.Node, its: list[str], where: str) -> isl.Set:
        t = node.type
        if t == "parenthesized_expression":
            return self._cond(node.named_children[0], its, where)
        if t == "binary_expression":
            op = _text(node.child_by_field_name("operator"))
            ln, rn = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op in ("&&", "||"):
                a = self._align(self._cond(ln, its, where))
                b = self._align(self._cond(rn, its, where))
                a, b = self._align(a), self._align(b)
                return a.intersect(b) if op == "&&" else a.union(b)
            cmp = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set",
                   "==": "eq_set", "!=": "ne_set"}
            if op in cmp:
                a, b = self._bin(self._aff_rec(ln, its, where), self._aff_rec(rn, its, where))
                return getattr(a, cmp[op])(b)
        if t == "unary_expression" and _text(node.child_by_field_name("operator")) == "!":
            inner = self._align(self._cond(node.child_by_field_name("argument"), its, where))
            return self._align(self._universe(its)).subtract(inner)
        # an affine value used as a truth value
        pa = self._aff(node, its, where)
        zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(pa.get_domain_space()))
        return pa.ne_set(zero)

    # -- expression statements and accesses -------------------------------------
    def _expression_statement(self, node: ts.Node, ctx: _Ctx, counter: list[int]) -> None:
        its = [l.iterator for l in ctx.loops]
        name = f"S{len(self.stmts)}"
        beta = tuple(ctx.beta + [counter[0]])
        counter[0] += 1
        alphas = tuple(l.iterator if l.increasing else f"-{l.iterator}" for l in ctx.loops)
        raw = _RawStmt(name, node, ctx.domain, tuple(its), beta, alphas,
                       tuple(l.ctype for l in ctx.loops))
        self.stmts.append(raw)
        self._in_body = True
        try:
            self._expr(node.named_children[0], its, raw, ctx.may, lvalue=None)
        finally:
            self._in_body = False

    def _expr(self, node: ts.Node, its: list[str], st: _RawStmt, may: bool,
              lvalue: str | None) -> None:
        """Walk an expression recording accesses; ``lvalue`` is None for a
        read, else the kind of write ('write' or 'readwrite')."""
        t = node.type
        if t in ("number_literal", "string_literal", "char_literal", "true", "false",
                 "null", "comment", "concatenated_string"):
            return
        if t == "parenthesized_expression":
            for ch in node.named_children:
                self._expr(ch, its, st, may, lvalue)
            return
        if t == "identifier":
            name = _text(node)
            if name in its or name in self.iterators_all:
                self._iterator_in_macro(node, name)
                if lvalue is not None:
                    raise self.error(node, "write to a loop iterator",
                                     f"loop iterator '{name}' is modified in the loop body")
                if name not in its:
                    raise self.error(node, "iterator outside its loop",
                                     f"'{name}' is a loop iterator used outside its loop")
                return
            if self._body_macro(node, node, its, st, may, lvalue):
                return
            if lvalue is None and (name in self.params or self.macro_int(name) is not None):
                return
            self._record(st, node, name, [], lvalue, may)
            return
        if t == "subscript_expression":
            base, subs = self._subscripts(node)
            if base.type == "identifier" and self._body_macro(node, base, its, st, may, lvalue):
                return
            if base.type != "identifier":
                raise self.error(base, "pointer access",
                                 "only named arrays can be accessed in a SCoP")
            name = _text(base)
            if name in its or name in self.iterators_all:
                raise self.error(base, "subscripted iterator", f"'{name}' is a loop iterator")
            affs = []
            for s in subs:
                self._no_nested_access(s)
                affs.append(self._aff(s, its, "subscript"))
            self._record(st, node, name, affs, lvalue, may)
            return
        if t == "assignment_expression":
            left = node.child_by_field_name("left")
            op = _text(node.child_by_field_name("operator"))
            right = node.child_by_field_name("right")
            self._expr(right, its, st, may, None)
            if left.type in ("pointer_expression", "field_expression"):
                self._expr(left, its, st, may, None)  # refused with its own name
            if left.type not in ("identifier", "subscript_expression",
                                 "parenthesized_expression") and not self._macro_call(left):
                raise self.error(left, "assignment target",
                                 "only scalars and array elements can be assigned in a SCoP")
            self._expr(left, its, st, may, "write" if op == "=" else "readwrite")
            return
        if t == "update_expression":
            arg = node.child_by_field_name("argument")
            self._expr(arg, its, st, may, "readwrite")
            return
        if t == "binary_expression":
            op = _text(node.child_by_field_name("operator"))
            self._expr(node.child_by_field_name("left"), its, st, may, None)
            self._expr(node.child_by_field_name("right"), its, st,
                       may or op in ("&&", "||"), None)
            return
        if t == "unary_expression":
            self._expr(node.child_by_field_name("argument"), its, st, may, None)
            return
        if t == "conditional_expression":
            self._expr(node.child_by_field_name("condition"), its, st, may, None)
            self._expr(node.child_by_field_name("consequence"), its, st, True, None)
            self._expr(node.child_by_field_name("alternative"), its, st, True, None)
            return
        if t == "comma_expression":
            for ch in node.named_children:
                self._expr(ch, its, st, may, None)
            return
        if t == "cast_expression":
            self._expr(node.child_by_field_name("value"), its, st, may, None)
            return
        if t == "call_expression":
            args = node.child_by_field_name("arguments")
            fn = node.child_by_field_name("function")
            if fn is not None and fn.type != "identifier":
                raise self.error(fn, "call through a pointer",
                                 "only calls of named functions are supported")
            if self._macro_call(node):
                self._call_macro(node, its, st, may, lvalue)
                return
            if fn is not None and self._body_macro(node, fn, its, st, may, lvalue):
                return
            for a in (args.named_children if args else []):
                if a.type == "pointer_expression" and _text(a).startswith("&"):
                    raise self.error(a, "address-of",
                                     "passing an address to a call (a possible write "
                                     "through a call) is not supported")
                self._expr(a, its, st, may, None)
            return
        if t == "sizeof_expression":
            return
        if t == "pointer_expression":
            what = "address-of" if _text(node).startswith("&") else "pointer dereference"
            raise self.error(node, what, "pointers are not supported in a SCoP")
        if t == "field_expression":
            raise self.error(node, "struct member access",
                             "struct fields are not supported in a SCoP")
        if t == "ERROR" or node.has_error:
            raise self.error(self._first_error(node), "syntax error",
                             "the C parser could not read this")
        raise self.error(node, t.replace("_", " "), "not supported in a SCoP statement")

    # -- macros in statement bodies --------------------------------------------
    def _body_macro(self, site: ts.Node, ident: ts.Node, its: list[str], st: _RawStmt,
                    may: bool, lvalue: str | None) -> bool:
        """Walk ``site`` with the object-like macro ``ident`` in it expanded
        (``site`` is the identifier itself, or the subscript or call it
        heads); False when ``ident`` is no such macro or an integer
        constant.  With several possible definitions, each is walked and
        its writes are may-writes."""
        name = _text(ident)
        defs = self._macros(name, False)
        if not defs or self.macro_int(name) is not None:
            return False
        for m in defs:
            self._expansion(site, self._spliced(site, ident, m.body), m,
                            lambda root: self._expr(root, its, st, may, lvalue),
                            may=len(defs) > 1)
        return True

    def _macro_call(self, node: ts.Node) -> bool:
        """True for a call of a function-like macro in force."""
        fn = node.child_by_field_name("function") if node.type == "call_expression" else None
        return fn is not None and fn.type == "identifier" and bool(self._macros(_text(fn), True))

    def _call_macro(self, node: ts.Node, its: list[str], st: _RawStmt, may: bool,
                    lvalue: str | None) -> None:
        """A call of a function-like macro in a statement body.  When every
        possible definition only reads its arguments it is a pure call (the
        arguments are walked as written, so the accesses keep their text);
        otherwise the expansion is walked: what the definition reads or
        writes itself is recorded without text."""
        defs = self._macros(_text(node.child_by_field_name("function")), True)
        expansions = [(m, self._arguments(node, m)) for m in defs]
        if lvalue is None and all(self._reads_only_arguments(node, m, pieces, its)
                                  for m, pieces in expansions):
            args = node.child_by_field_name("arguments")
            for a in (args.named_children if args else []):
                self._expr(a, its, st, may, None)
            return
        for m, pieces in expansions:
            self._expansion(node, pieces, m, lambda root: self._expr(root, its, st, may, lvalue),
                            may=len(defs) > 1)

    def _reads_only_arguments(self, node: ts.Node, macro: pp.Macro, pieces: list[pp.Piece],
                              its: list[str]) -> bool:
        """True when the expansion of ``macro`` at ``node`` only reads what
        its arguments access (a trial walk; the extractor's state is kept)."""
        saved = (list(self.params), dict(self.param_values), dict(self.written),
                 dict(self.param_nodes))
        trial = _RawStmt("", node, None, (), (), ())
        try:
            self._expansion(node, pieces, macro,
                            lambda root: self._expr(root, its, trial, False, None))
        except NotAScopError:
            return False
        finally:
            self.params[:] = saved[0]
            self.param_values, self.written, self.param_nodes = saved[1:]
        return all(kind == READ and text for kind, _, _, text, _ in trial.accesses)

    def _subscripts(self, node: ts.Node) -> tuple[ts.Node, list[ts.Node]]:
        subs: list[ts.Node] = []
        while node.type == "subscript_expression":
            idx = node.child_by_field_name("index")
            subs.append(idx)
            node = node.child_by_field_name("argument")
            while node.type == "parenthesized_expression":
                node = node.named_children[0]
        subs.reverse()
        return node, subs

    def _no_nested_access(self, node: ts.Node) -> None:
        if node.type == "subscript_expression":
            raise self.error(node, "indirection",
                             "an array element used in a subscript is data-dependent")
        if node.type in ("assignment_expression", "update_expression"):
            raise self.error(node, "side effect in a subscript",
                             "assignments inside subscripts are not supported")
        for ch in node.named_children:
            self._no_nested_access(ch)

    def _record(self, st: _RawStmt, node: ts.Node, name: str,
                subs: list[isl.PwAff], lvalue: str | None, may: bool) -> None:
        text = _text(node)
        if self._frames:
            # in a macro expansion: the text only when the statement has it
            frame = self._frames[-1]
            text = text if frame.covers(node.start_byte, node.end_byte) else ""
            node, may = frame.site, may or frame.may
            st.macro_site = st.macro_site or bool(text)
        if lvalue is None or lvalue == "readwrite":
            st.accesses.append((READ, name, subs, text, node))
        if lvalue is not None:
            st.accesses.append((MAY_WRITE if may else WRITE, name, subs, text, node))
            self.written.setdefault(name, node)

    # -- assemble -----------------------------------------------------------------
    def _build(self, rs: int, re_: int) -> Scop:
        params = tuple(self.params)
        pspace = isl.Space.create_from_names(self.ctx, set=[], params=list(params)).params()
        context = isl.Set.universe(pspace)
        arrays: dict[str, tuple[int, ts.Node]] = {}
        statements: list[Statement] = []
        relations: list[Relation] = []
        decls = self._declarations()
        for raw in self.stmts:
            dom = raw.domain.align_params(pspace).set_tuple_name(raw.name)
            dom = dom.coalesce()
            accs: list[Access] = []
            at: dict[tuple[int, int], list[str]] = {}
            # a parameter read in a body before its first use in a bound was
            # taken for a scalar while walking: it is no access
            # a read-only, undeclared, all-caps name (DBL_MIN, M_PI) is a
            # constant from a header: no access either (no dependence is lost)
            kept = [a for a in raw.accesses
                    if not (a[0] == READ and not a[2] and (
                        a[1] in self.params
                        or (a[1] not in self.written and a[1] not in decls
                            and re.fullmatch(r"[A-Z][A-Z0-9_]*", a[1]))))]
            for k, (kind, arr, subs, text, node) in enumerate(kept):
                nd = len(subs)
                if arr in arrays and arrays[arr][0] != nd:
                    raise self.error(node, "inconsistent array dimensionality",
                                     f"'{arr}' is accessed with {nd} subscripts here and "
                                     f"{arrays[arr][0]} elsewhere")
                arrays.setdefault(arr, (nd, node))
                rel = self._access_map(dom, arr, subs)
                accs.append(Access(kind, arr, rel, text, f"{raw.name}_r{k}"))
                if text:
                    at.setdefault((node.start_byte, node.end_byte), []).append(accs[-1].ref)
            body = _text(raw.node)
            tree = None if raw.macro_site else body_tree(raw.node, at)
            statements.append(Statement(raw.name, dom, raw.iterators, body, tuple(accs),
                                        raw.node.start_point[0] + 1, raw.iterator_types,
                                        body_expr=tree))
            relations.append(Relation.build(dom, raw.beta, raw.alphas))
        schedule = ClaySchedule(tuple(relations)).normalized()
        arr_objs = []
        dead = _dead_locals(self.tree.root_node, self.src, rs, re_, set(arrays))
        for name, (nd, _) in arrays.items():
            ctype, ext = decls.get(name, (None, ()))
            arr_objs.append(Array(name, nd, ctype, tuple(ext) if len(ext) == nd else (),
                                  live_out=name not in dead))
        return Scop(params=params, context=context, statements=tuple(statements),
                    arrays=tuple(arr_objs), schedule=schedule, source=self.text,
                    path=self.path, region=(self.char_offset(rs), self.char_offset(re_)),
                    param_values=dict(self.param_values),
                    declared_iterators=frozenset(self.declared_outside),
                    declared_iterator_types=dict(self.declared_types),
                    macro_lines=self.macro_lines)

    def _access_map(self, dom: isl.Set, arr: str, subs: list[isl.PwAff]) -> isl.Map:
        space = dom.get_space()
        if not subs:
            rng = isl.Set.universe(isl.Space.create_from_names(
                self.ctx, set=[], params=list(self.params))).set_tuple_name(arr)
            m = isl.Map.from_domain_and_range(isl.Set.universe(space), rng)
        else:
            m = None
            for pa in subs:
                pa = pa.align_params(space)
                mm = isl.Map.from_pw_aff(pa)
                m = mm if m is None else m.flat_range_product(mm)
            m = m.set_tuple_name(isl.dim_type.out, arr)
            m = m.set_tuple_name(isl.dim_type.in_, dom.get_tuple_name())
            for k in range(space.dim(isl.dim_type.set)):
                m = m.set_dim_name(isl.dim_type.in_, k, space.get_dim_name(isl.dim_type.set, k))
        return m.intersect_domain(dom).coalesce()

    def _declarations(self) -> dict[str, tuple[str, list[str]]]:
        """Element types and extents of declared arrays/scalars in the file
        (``double A[N][M]``, ``DATA_TYPE POLYBENCH_2D(A,N,M,n,m)``)."""
        out: dict[str, tuple[str, list[str]]] = {}

        def from_declarator(ty: str, d: ts.Node) -> None:
            ext: list[str] = []
            while d is not None:
                if d.type == "init_declarator":
                    d = d.child_by_field_name("declarator")
                elif d.type == "array_declarator":
                    sz = d.child_by_field_name("size")
                    ext.insert(0, _text(sz) if sz is not None else "")
                    d = d.child_by_field_name("declarator")
                elif d.type == "parenthesized_declarator":
                    d = d.named_children[0] if d.named_children else None
                elif d.type == "function_declarator":
                    fn = d.child_by_field_name("declarator")
                    m = re.fullmatch(r"POLYBENCH_(\d)D", _text(fn) if fn is not None else "")
                    params = d.child_by_field_name("parameters")
                    if m and params is not None:
                        names = [_text(p) for p in params.named_children]
                        k = int(m.group(1))
                        if len(names) >= 1 + k:
                            out.setdefault(names[0], (ty, names[1:1 + k]))
                    return
                elif d.type == "identifier":
                    out.setdefault(_text(d), (ty, ext))
                    return
                else:
                    return

        def visit(n: ts.Node) -> None:
            if n.type in ("declaration", "parameter_declaration", "field_declaration"):
                ty = n.child_by_field_name("type")
                tytext = _text(ty) if ty is not None else "int"
                for d in n.children_by_field_name("declarator"):
                    from_declarator(tytext, d)
            for ch in n.children:
                visit(ch)

        visit(self.tree.root_node)
        return out


# -- statement bodies as expression trees -------------------------------------

class _NoTree(Exception):
    """The body holds something the tree does not model faithfully."""


_LEAVES = ("number_literal", "string_literal", "char_literal", "concatenated_string",
           "true", "false", "null")


def body_tree(stmt: ts.Node, refs: dict[tuple[int, int], list[str]]) -> bx.Expr | None:
    """The expression tree (:mod:`clayx.model.expr`) of an expression
    statement, its accesses linked by position: ``refs`` maps the byte span
    of each access's node (the outermost subscript expression, or the
    scalar's identifier) to the refs recorded there.  None when the body
    has a comment inside or an access the tree cannot place (inside a piece
    it keeps as text)."""
    if stmt.type != "expression_statement" or not stmt.named_children:
        return None
    try:
        tree = _tree(stmt.named_children[0], refs)
    except _NoTree:
        return None
    placed = bx.refs_of(tree)
    if any(r not in placed for rs in refs.values() for r in rs):
        return None
    return tree


def _tree(n: ts.Node, refs: dict[tuple[int, int], list[str]]) -> bx.Expr:
    t = n.type
    kids = [c for c in n.named_children]
    if any(c.type == "comment" for c in kids):
        raise _NoTree
    span = (n.start_byte, n.end_byte)
    if t in _LEAVES:
        return bx.Lit(_text(n))
    if t == "identifier":
        if span in refs:
            return bx.Ref(tuple(refs[span]), _text(n), (), _text(n))
        return bx.Name(_text(n))
    if t == "parenthesized_expression":
        if len(kids) != 1:
            raise _NoTree
        return bx.Paren(_tree(kids[0], refs))
    if t == "subscript_expression":
        subs: list[ts.Node] = []
        base = n
        while base.type == "subscript_expression":
            subs.append(base.child_by_field_name("index"))
            base = base.child_by_field_name("argument")
        subs.reverse()
        sub_trees = tuple(_tree(x, refs) for x in subs)
        if span in refs:
            while base.type == "parenthesized_expression" and base.named_children:
                base = base.named_children[0]
            return bx.Ref(tuple(refs[span]), _text(base), sub_trees, _text(n))
        return bx.Index(_tree(base, refs), sub_trees)
    if t == "assignment_expression":
        return bx.Assign(_text(n.child_by_field_name("operator")),
                         _tree(n.child_by_field_name("left"), refs),
                         _tree(n.child_by_field_name("right"), refs))
    if t == "binary_expression":
        left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
        between = n.text[left.end_byte - n.start_byte:right.start_byte - n.start_byte]
        return bx.Binary(_text(n.child_by_field_name("operator")), _tree(left, refs),
                         _tree(right, refs), newline=b"\n" in between)
    if t in ("unary_expression", "pointer_expression"):
        return bx.Unary(_text(n.child_by_field_name("operator")),
                        _tree(n.child_by_field_name("argument"), refs))
    if t == "update_expression":
        arg = n.child_by_field_name("argument")
        op = _text(n.child_by_field_name("operator"))
        return bx.Unary(op, _tree(arg, refs), postfix=arg.start_byte < n.child_by_field_name(
            "operator").start_byte)
    if t == "conditional_expression":
        return bx.Cond(_tree(n.child_by_field_name("condition"), refs),
                       _tree(n.child_by_field_name("consequence"), refs),
                       _tree(n.child_by_field_name("alternative"), refs))
    if t == "comma_expression":
        return bx.Comma(tuple(_tree(c, refs) for c in kids))
    if t == "cast_expression":
        return bx.Cast(" ".join(_text(n.child_by_field_name("type")).split()),
                       _tree(n.child_by_field_name("value"), refs))
    if t == "call_expression":
        fn = n.child_by_field_name("function")
        args = n.child_by_field_name("arguments")
        if fn.type != "identifier" or (fn.start_byte, fn.end_byte) in refs:
            raise _NoTree
        return bx.Call(_text(fn), tuple(_tree(a, refs) for a in
                                        (args.named_children if args else [])
                                        if a.type != "comment"))
    # not modelled (sizeof, a compound literal…): text, when no access is inside
    if any(n.start_byte <= a and b <= n.end_byte for a, b in refs):
        raise _NoTree
    return bx.Raw(_text(n))


def _dead_locals(root: ts.Node, data: bytes, start: int, end: int,
                 names: set[str]) -> set[str]:
    """The ``names`` that are dead after the region ``data[start:end]``:
    locals of the function around it (see the module docstring).  A token
    scan of the function outside the region, and of the file's macros."""
    fn = None
    stack = [root]
    while stack:
        n = stack.pop()
        if n.start_byte <= start and end <= n.end_byte:
            if n.type == "function_definition":
                fn = n
            stack.extend(n.children)
    if fn is None:
        return set()
    text = lambda n: data[n.start_byte:n.end_byte].decode()  # noqa: E731
    # names mentioned by macros anywhere in the file: never dead
    in_macros: set[str] = set()
    decls: dict[str, list[bool]] = {}
    counts: dict[str, int] = {}
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type in ("preproc_def", "preproc_function_def"):
            val = n.child_by_field_name("value")
            if val is not None:
                in_macros |= identifiers(text(val))
        stack.extend(n.children)
    body = fn.child_by_field_name("body")
    stack = [fn]
    while stack:
        n = stack.pop()
        if start <= n.start_byte and n.end_byte <= end:
            continue                          # inside the region
        if n.type == "identifier":
            counts[text(n)] = counts.get(text(n), 0) + 1
        elif n.type == "preproc_arg":
            for x in identifiers(text(n)):
                counts[x] = counts.get(x, 0) + 2   # a macro use: never dead
        elif n.type == "declaration" and body is not None \
                and body.start_byte <= n.start_byte and n.end_byte <= start:
            storage = {text(c) for c in n.children if c.type == "storage_class_specifier"}
            for d in n.children_by_field_name("declarator"):
                ident = _declared_identifier(d)
                if ident is not None:
                    decls.setdefault(text(ident), []).append(
                        bool(storage & {"static", "extern"}))
        stack.extend(n.children)
    return {name for name in names
            if decls.get(name) == [False] and counts.get(name, 0) == 1
            and name not in in_macros}


def _declared_identifier(d: ts.Node | None) -> ts.Node | None:
    """The identifier node a declarator declares (through arrays, pointers,
    initializers, parentheses), or None for a function declarator."""
    while d is not None:
        if d.type == "identifier":
            return d
        if d.type in ("init_declarator", "array_declarator", "pointer_declarator",
                      "attributed_declarator"):
            d = d.child_by_field_name("declarator")
        elif d.type == "parenthesized_declarator":
            d = d.named_children[0] if d.named_children else None
        else:
            return None
    return None


def _in_statement(node: ts.Node) -> bool:
    """True when ``node`` is inside an expression statement (a body)."""
    while node is not None:
        if node.type == "expression_statement":
            return True
        node = node.parent
    return False


def _declarations_in(node: ts.Node) -> list[ts.Node]:
    """The declarations a node of a block, ``for`` header or function
    definition makes visible after it: itself when it is a declaration,
    the parameters of a function declarator."""
    if node.type == "declaration":
        return [node]
    while node.type in ("pointer_declarator", "parenthesized_declarator"):
        node = node.child_by_field_name("declarator") or node.named_children[-1]
    if node.type == "function_declarator":
        params = node.child_by_field_name("parameters")
        return [p for p in (params.named_children if params else [])
                if p.type == "parameter_declaration"]
    return []


def _declares(decl: ts.Node, name: str) -> str | None:
    """The type text a declaration gives ``name`` (``"?"`` when it declares
    it as a pointer, array or function), None when it does not declare it."""
    ty = decl.child_by_field_name("type")
    for d in decl.children_by_field_name("declarator"):
        if d.type == "init_declarator":
            d = d.child_by_field_name("declarator")
        plain = True
        while d is not None and d.type != "identifier":
            plain = False
            d = d.child_by_field_name("declarator")
        if d is not None and _text(d) == name:
            if not plain:
                return "?"
            return " ".join(_text(ty).split()) if ty is not None else "int"
    return None


def _named(s: isl.Set, its: list[str]) -> isl.Set:
    """``s`` with its set dimensions named ``its`` (isl drops names when
    operands disagree)."""
    for k, name in enumerate(its):
        s = s.set_dim_name(isl.dim_type.set, k, name)
    return s


def _int_literal(text: str) -> int | None:
    """The value of a C integer literal (decimal, hex, octal, suffixes, and
    the sign tree-sitter sometimes folds into the literal), else None."""
    t = text.strip().rstrip("uUlL")
    sign = 1
    while t[:1] in ("-", "+"):
        sign = -sign if t[0] == "-" else sign
        t = t[1:].strip()
    v = _unsigned_literal(t)
    return None if v is None else sign * v


def _unsigned_literal(t: str) -> int | None:
    try:
        if re.fullmatch(r"0[xX][0-9a-fA-F]+", t):
            return int(t, 16)
        if re.fullmatch(r"0[0-7]+", t):
            return int(t, 8)
        if re.fullmatch(r"\d+", t):
            return int(t)
    except ValueError:
        return None
    return None
