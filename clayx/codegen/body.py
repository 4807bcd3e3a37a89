"""Statement bodies printed from their expression trees.

:class:`BodyPrinter` prints a statement's :attr:`~clayx.model.Statement.
body_expr` (:mod:`clayx.model.expr`) for one AST call, with C's precedence:
operators are spaced (``a + b``), the parentheses the source has are kept,
and parentheses are added only where a substituted value needs them.

- An iterator outside subscripts is replaced by the value the AST gives it
  (cast to its declared type when C would compute it in another one), in
  parentheses only when its precedence needs them: ``x[i] = (c2 - i) * 2;``.
- An array reference is printed with the array's current name and:
  its subscripts as written, with the iterators replaced, when the
  reference is unchanged (its access's text is the one written) and every
  iterator in them is printed as a plain name (the loop kept a name), so
  ``A[i][1 + j]`` stays ``A[i][1 + j]``; otherwise the subscripts isl writes
  from the access relation at that AST node (the relation pulled back
  through the inverse of the schedule, as PPCG does), their terms in the
  order a person writes them (positive terms first, the constant last):
  ``A[i][c2 - i - 1]`` after a skew, and a reshaped array's new subscripts
  without any text rewriting.
- Scalars and names that are no iterator are printed as written; where the
  source breaks a long expression across lines, the printed body breaks it
  too (before the operator, the next lines indented one level deeper).

A statement whose tree is stale (:meth:`~clayx.model.Statement.
printable_expr`) or whose access relation isl cannot write is printed from
its text (:meth:`BodyPrinter.statement` returns None).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import islpy as isl

from ..errors import CodegenError
from ..model import Statement
from ..model import expr as bx

if TYPE_CHECKING:
    from .c import CPrinter

#: C precedence levels (smaller binds tighter), as in :mod:`clayx.codegen.c`.
PRIMARY, POSTFIX, UNARY, MUL, ADD, SHIFT, REL, EQ = 0, 1, 2, 3, 4, 5, 6, 7
BITAND, XOR, BITOR, AND, OR, COND, ASSIGN, COMMA = 8, 9, 10, 11, 12, 13, 14, 15

_BINARY = {"*": MUL, "/": MUL, "%": MUL, "+": ADD, "-": ADD, "<<": SHIFT, ">>": SHIFT,
           "<": REL, "<=": REL, ">": REL, ">=": REL, "==": EQ, "!=": EQ, "&": BITAND,
           "^": XOR, "|": BITOR, "&&": AND, "||": OR}

_NAME = re.compile(r"[A-Za-z_]\w*")


def _wrap(tp: tuple[str, int], limit: int) -> str:
    text, prec = tp
    return f"({text})" if prec > limit else text


class BodyPrinter:
    """Prints statement bodies for a :class:`~clayx.codegen.c.CPrinter`
    (whose expression printer writes isl's subscripts and the iterators'
    values, in its scope)."""

    def __init__(self, printer: "CPrinter"):
        self.printer = printer
        self._trees: dict[str, bx.Expr | None] = {}

    def tree(self, st: Statement) -> bx.Expr | None:
        """The statement's printable tree (cached per statement)."""
        if st.name not in self._trees:
            self._trees[st.name] = st.printable_expr()
        return self._trees[st.name]

    def statement(self, st: Statement, values: dict[str, tuple[str, int]],
                  subscripts: dict[str, isl.AstExpr]) -> str | None:
        """The C text of one instance of ``st`` (``…;``), or None when it
        must be printed from its text.  ``values`` gives each iterator's
        printed value and precedence, ``subscripts`` isl's access
        expressions by ref (:class:`~clayx.codegen.build.UserInfo`)."""
        tree = self.tree(st)
        if tree is None:
            return None
        accesses = {a.ref: a for a in st.accesses}
        try:
            text, _ = self._expr(tree, values, subscripts, accesses)
        except _NeedText:
            return None
        return text + ";"

    # -- nodes ---------------------------------------------------------------
    def _expr(self, e: bx.Expr, values, subs, accesses) -> tuple[str, int]:
        """(text, precedence) of a node."""
        def sub(x: bx.Expr, limit: int) -> str:
            return _wrap(self._expr(x, values, subs, accesses), limit)

        if isinstance(e, bx.Lit):
            return e.text, PRIMARY
        if isinstance(e, bx.Name):
            if e.text in values:
                return values[e.text]
            return e.text, PRIMARY
        if isinstance(e, bx.Ref):
            return self._ref(e, values, subs, accesses), PRIMARY
        if isinstance(e, bx.Index):
            return sub(e.base, POSTFIX) + "".join(
                f"[{sub(s, COMMA)}]" for s in e.subscripts), POSTFIX
        if isinstance(e, bx.Paren):
            return f"({sub(e.inner, COMMA)})", PRIMARY
        if isinstance(e, bx.Unary):
            if e.postfix:
                return sub(e.arg, POSTFIX) + e.op, POSTFIX
            arg = sub(e.arg, UNARY)
            if arg[:1] in "+-&" and arg[:1] == e.op[-1:]:
                arg = f"({arg})"                   # - -x, not --x
            return e.op + arg, UNARY
        if isinstance(e, bx.Binary):
            prec = _BINARY.get(e.op)
            if prec is None:
                raise CodegenError(f"unknown operator {e.op!r} in a statement body")
            gap = "\n" if e.newline else " "
            return f"{sub(e.left, prec)}{gap}{e.op} {sub(e.right, prec - 1)}", prec
        if isinstance(e, bx.Assign):
            return f"{sub(e.target, UNARY)} {e.op} {sub(e.value, ASSIGN)}", ASSIGN
        if isinstance(e, bx.Cond):
            return (f"{sub(e.test, OR)} ? {sub(e.then, COMMA)} : {sub(e.other, COND)}",
                    COND)
        if isinstance(e, bx.Call):
            return f"{e.fn}({', '.join(sub(a, ASSIGN) for a in e.args)})", POSTFIX
        if isinstance(e, bx.Cast):
            return f"({e.ctype})" + sub(e.arg, UNARY), UNARY
        if isinstance(e, bx.Comma):
            return ", ".join(sub(x, ASSIGN) for x in e.items), COMMA
        if isinstance(e, bx.Raw):
            from ..model import substitute_iterators
            return substitute_iterators(e.text, {k: v for k, (v, _) in values.items()}), UNARY
        raise CodegenError(f"unknown body node {e!r}")

    def _ref(self, e: bx.Ref, values, subs, accesses) -> str:
        """An access: the array's current name and its subscripts, as
        written or as isl writes them (module docstring)."""
        acc = next((accesses[r] for r in e.refs if r in accesses), None)
        if acc is None:
            raise _NeedText
        if not e.subscripts and acc.relation.dim(isl.dim_type.out) == 0:
            return acc.array
        if acc.text == e.text and self._plain(e, values):
            return self.printer.array_ref(acc, [
                _wrap(self._expr(s, values, subs, accesses), COMMA) for s in e.subscripts])
        expr = next((subs[r] for r in e.refs if r in subs), None)
        if expr is None:
            raise _NeedText
        pr = self.printer
        args = [expr.get_op_arg(k) for k in range(1, expr.get_op_n_arg())]
        return pr.array_ref(acc, [pr.subscript(a) for a in args])

    @staticmethod
    def _plain(e: bx.Ref, values) -> bool:
        """Whether every iterator in the written subscripts of ``e`` is
        printed as a plain name."""
        for s in e.subscripts:
            for n in bx.walk(s):
                if isinstance(n, bx.Name) and n.text in values:
                    text, prec = values[n.text]
                    if prec != PRIMARY or not _NAME.fullmatch(text):
                        return False
        return True


class _NeedText(Exception):
    """The tree cannot be printed for this instance: print the text."""
