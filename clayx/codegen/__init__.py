"""Code generation: isl AST from a Clay schedule, printed by our own printers.

- :func:`build_ast` scans the schedule with isl (under an operation budget);
- :class:`CPrinter` prints that AST as plain C (subclass it for OpenMP/CUDA:
  :meth:`CPrinter.before_for` and :class:`LoopInfo` say which α depth,
  β-prefix, statements and marks each loop has);
- :class:`~clayx.codegen.omp.OmpPrinter` adds OpenMP pragmas on the loops
  marked parallel/vectorize (target ``omp``); both targets print
  ``#pragma GCC unroll`` on loops marked for unrolling;
- :func:`generate_region` / :func:`generate_file` splice the result into the
  original source in place of each SCoP.
"""

from .build import (AST_OPTIONS, DEFAULT_MAX_OPERATIONS, alpha_depth, build_ast,
                    isl_guard, iterator_dim, user_relation)
from .c import (MACROS, TARGETS, CPrinter, LoopInfo, detect_indent, generate_file,
                generate_region, macro_names, printer_class)

__all__ = ["AST_OPTIONS", "DEFAULT_MAX_OPERATIONS", "CPrinter", "LoopInfo", "MACROS",
           "alpha_depth", "build_ast", "detect_indent", "generate_file",
           "generate_region", "isl_guard", "iterator_dim", "macro_names",
           "printer_class", "TARGETS", "user_relation"]
