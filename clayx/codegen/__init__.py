"""Code generation: a schedule tree from the Clay schedule, isl's AST,
printers that are visitors over it, and a structured result.

- :func:`~clayx.codegen.tree.schedule_tree` builds the isl schedule tree
  (sequence/filter per β level, one band per α, the marks as mark nodes,
  AST build options per band);
- :func:`build_ast` scans it with isl (under an operation budget), proves
  the AST exact (:mod:`clayx.codegen.ast_check`) and falls back to other
  band options when isl's AST is not;
- :class:`CPrinter` prints the AST as plain C, statement bodies from their
  expression trees (:mod:`clayx.codegen.body`); subclasses override its
  visitors or its hooks :meth:`CPrinter.loop_pragmas` /
  :meth:`CPrinter.complete_pragmas`; :class:`LoopInfo` says which α depth,
  β-prefix, statements and marks each loop has;
  :class:`~clayx.codegen.omp.OmpPrinter` adds OpenMP pragmas on the loops
  marked parallel/vectorize (target ``omp``); both targets print
  ``#pragma GCC unroll`` on loops marked for unrolling;
- :func:`generate` returns a :class:`GeneratedRegion` (the lines and a
  :class:`LoopSpan` per printed loop: β-prefix, lines, pragmas, marks,
  assigned variables), which the prompt and the next printers read;
  :func:`generate_region` / :func:`generate_file` splice its text into the
  original source in place of each SCoP.
"""

from .budget import isl_guard
from .build import AST_OPTIONS, DEFAULT_MAX_OPERATIONS, STRATEGIES, build_ast, user_relation
from .c import (MACROS, TARGETS, CPrinter, LoopInfo, detect_indent, generate,
                generate_file, generate_region, macro_names, printer_class)
from .result import GeneratedRegion, LoopSpan
from .tree import alpha_depth, iterator_dim, schedule_tree

__all__ = ["AST_OPTIONS", "DEFAULT_MAX_OPERATIONS", "STRATEGIES", "CPrinter",
           "GeneratedRegion", "LoopInfo", "LoopSpan", "MACROS", "alpha_depth", "build_ast",
           "detect_indent", "generate", "generate_file", "generate_region", "isl_guard",
           "iterator_dim", "macro_names", "printer_class", "schedule_tree", "TARGETS",
           "user_relation"]
