"""C with OpenMP: the plain C printer plus pragmas on the marked loops.

:class:`OmpPrinter` is a :class:`~clayx.codegen.c.CPrinter` whose
:meth:`~clayx.codegen.c.CPrinter.loop_pragmas` hook puts, above each loop
the schedule marks (``scop.schedule.marks``, see :mod:`clayx.directives.marks`;
they reach the printer as mark nodes of the schedule tree around the
loop's band, :mod:`clayx.codegen.tree`):

- ``parallel``: ``#pragma omp parallel for schedule(static)`` (equal
  chunks, one per thread, decided once: no run-time scheduling), with
  ``private(…)`` naming
  every loop iterator the function declares outside the region
  (``int i, j;`` at its top, ``scop.declared_iterators``) that the loop's body
  assigns (inner loops, ``{ j = …; … }`` blocks): such a variable would
  otherwise be shared by the threads.  The loop's own iterator is private by
  OpenMP's rules; iterators of the enclosing loops are only read inside and
  stay shared.  Iterators the generated code declares itself (``for (int
  c2 = …``) are private by scope.  What the body assigns is data the
  printer records while it prints the body
  (:attr:`~clayx.codegen.result.LoopSpan.assigns`), read by
  :meth:`OmpPrinter.complete_pragmas`.
- ``vectorize``: ``#pragma omp simd`` (``#pragma omp parallel for simd``
  when the loop is also parallel), with the same ``private`` clause: the
  session keeps a vectorized loop innermost, but should a loop still sit
  inside it (a mark forced through with ``unchecked``), its outer-declared
  iterator must not be shared by the SIMD lanes either;
- ``unroll`` (any target, also plain C): ``#pragma GCC unroll N``, a request
  gcc honours (``N`` is the factor; 1 disables unrolling).

A loop with pragmas is always braced when it is the body of another
statement, so the pragma can never be mistaken for part of an unbraced
``if``/``for``.  Marks sit on β-prefixes: when isl prints one β-loop as
several ``for`` statements (after an index-set split, or separated
bounds), each gets the pragma; a loop that runs once and is printed without
``for`` gets none.

Before/after (``parallelize([0]); unroll([0,0], 4)`` on a 2-deep nest
whose iterators are declared at the top of the function)::

    for (i = 0; i < n; i++)              #pragma omp parallel for schedule(static) private(j)
      for (j = 0; j < m; j++)            for (i = 0; i < n; i++) {
        S(i, j);                   =>      #pragma GCC unroll 4
                                           for (j = 0; j < m; j++)
                                             S(i, j);
                                         }

The pragmas are only as legal as the marks: the session refuses a
``parallelize``/``vectorize`` mark whose loop carries a dependence (or a
``vectorize`` mark on a loop that is not innermost), and re-checks the
marks after every later step.  The ``private`` clause does not depend on
the marks being right.
"""

from __future__ import annotations

import islpy as isl

from .c import CPrinter, LoopInfo

_N = isl.ast_node_type

#: the pragmas whose loop runs its iterations concurrently (threads or SIMD
#: lanes): variables the body assigns must be private
_CONCURRENT = ("#pragma omp parallel for", "#pragma omp simd")


def mark_pragmas(info: LoopInfo, *, openmp: bool) -> list[str]:
    """The pragma texts (without indentation) for a loop's marks:
    ``omp parallel for`` / ``omp simd`` when ``openmp``, ``GCC unroll``
    otherwise.  gcc wants a ``for`` right after either pragma, so a loop
    that gets an OpenMP pragma drops its unroll request (a request gcc may
    ignore anyway).  The ``private`` clause is added by :class:`OmpPrinter`."""
    kinds = {m.kind: m for m in info.marks}
    out: list[str] = []
    if openmp:
        if "parallel" in kinds and "vectorize" in kinds:
            out.append("#pragma omp parallel for simd schedule(static)")
        elif "parallel" in kinds:
            out.append("#pragma omp parallel for schedule(static)")
        elif "vectorize" in kinds:
            out.append("#pragma omp simd")
    if "unroll" in kinds and not out:
        out.append(f"#pragma GCC unroll {int(kinds['unroll'].arg)}")
    return out


class MarkPrinter(CPrinter):
    """Plain C that honours the ``unroll`` marks (``#pragma GCC unroll N``)
    and ignores the OpenMP-only ones; :class:`OmpPrinter` adds those."""

    openmp = False
    target = "c"

    def loop_pragmas(self, info: LoopInfo) -> list[str]:
        """The mark pragmas of the loop."""
        return mark_pragmas(info, openmp=self.openmp)

    def _is_single(self, node: isl.AstNode) -> bool:
        # a loop preceded by pragmas is not a plain single statement: brace it
        if node.get_type() == _N.for_ and not (
                node.for_is_degenerate() and self.loop_info(node).substituted):
            if mark_pragmas(self.loop_info(node), openmp=self.openmp):
                return False
        return super()._is_single(node)


class OmpPrinter(MarkPrinter):
    """C with ``#pragma omp`` on the loops marked ``parallel``/``vectorize``,
    with the ``private`` clauses the shared outer-declared iterators need
    (on ``parallel for``, ``parallel for simd`` and ``simd`` alike)."""

    openmp = True
    target = "omp"

    def complete_pragmas(self, info: LoopInfo, pragmas: list[str],
                         assigns: set[str]) -> list[str]:
        """A ``parallel for`` or ``simd`` pragma gets a ``private(…)``
        clause naming the outer-declared variables the loop's body assigns
        (``assigns``, recorded while the body was printed)."""
        private = sorted(x for x in assigns if x not in self.scop.params)
        if not private:
            return pragmas
        out = list(pragmas)
        for k, p in enumerate(out):
            if p.startswith(_CONCURRENT):
                out[k] = f"{p} private({', '.join(private)})"
                break
        return out
