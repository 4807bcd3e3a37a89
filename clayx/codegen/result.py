"""The structured result of code generation: lines and what each loop is.

A printer (:class:`~clayx.codegen.c.CPrinter` and its subclasses) walks the
isl AST and writes lines; for every ``for`` statement it prints it records a
:class:`LoopSpan`: which loop of the Clay schedule it is (β-prefix, α
depth), its printed iterator, the lines it covers, its pragmas and marks,
and the variables declared outside the region that its body assigns.
:class:`GeneratedRegion` holds the lines and the spans: the OpenMP printer
reads ``assigns`` for its ``private`` clauses, the prompt reads the spans to
mark the loops a step changed, a CUDA printer reads the marks and
iterators, and :attr:`GeneratedRegion.text` is what is spliced into the
file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..model import Beta, Mark


@dataclass(frozen=True)
class LoopSpan:
    """One printed ``for`` statement.

    ``beta`` is the loop's β-prefix and ``depth`` its α depth (None for a
    loop isl adds below a statement whose schedule is not injective);
    ``dim`` its schedule dimension; ``name`` the printed iterator,
    ``declared`` when that is a variable declared outside the region
    (assigned, not declared, by the loop).  ``first`` is the index in
    :attr:`GeneratedRegion.lines` of its first line (its first pragma, or
    the ``for`` line), ``header`` that of the ``for`` line, ``last`` that of
    its last line (the closing brace, or the last line of its body).
    ``pragmas`` are the pragma texts above it (without indentation),
    ``marks`` the schedule marks it carries, ``assigns`` the variables
    declared outside the region that its body assigns (inner loops over
    such a variable, ``{ j = …; }`` blocks), sorted, and ``statements`` the
    statements below it.  One β-loop may be printed as several ``for``
    statements (isl separates bounds): each has its span.
    """

    beta: Beta | None
    depth: int | None
    dim: int
    name: str
    declared: bool
    first: int
    header: int
    last: int
    pragmas: tuple[str, ...] = ()
    marks: tuple[Mark, ...] = ()
    assigns: tuple[str, ...] = ()
    statements: tuple[str, ...] = ()

    def shifted(self, by: int) -> "LoopSpan":
        """The same span ``by`` lines further down."""
        return replace(self, first=self.first + by, header=self.header + by,
                       last=self.last + by)


@dataclass(frozen=True)
class GeneratedRegion:
    """The code replacing a SCoP's region: ``lines`` (without line ends)
    and the :class:`LoopSpan` of every printed loop, in the order their
    ``for`` lines come; ``target`` the printer's target (``c``, ``omp``)."""

    lines: tuple[str, ...]
    loops: tuple[LoopSpan, ...]
    target: str = "c"

    @property
    def text(self) -> str:
        """The region as text: every line ended by a newline (empty when
        there is no code)."""
        return "".join(ln + "\n" for ln in self.lines)

    def spans(self, beta: Beta) -> list[LoopSpan]:
        """The printed loops of the β-loop ``beta`` (several when isl split
        it, none when it runs once and is printed without ``for``)."""
        beta = tuple(beta)
        return [s for s in self.loops if s.beta == beta]
