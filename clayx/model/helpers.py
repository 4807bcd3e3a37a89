"""The C helper macros clayx's generated code defines.

Generated code computes loop bounds with ``floord``/``ceild``/``min``/
``max``, each ``#define``-d at the top of the region it is used in and
``#undef``-ined at its end (:mod:`clayx.codegen.c`); the C front end
recognises those exact definitions when it reads generated code back, and
leaves them to code generation (:mod:`clayx.frontend.c`).  Both read the
definitions here, so neither depends on the other.
"""

from __future__ import annotations

#: Macro definitions by role; ``{n}`` is the name used.  ``floord`` is floor
#: division for a positive divisor, correct for negative dividends.
MACROS = {
    "floord": "#define {n}(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))",
    "ceild": "#define {n}(n, d) (((n) < 0) ? -((-(n)) / (d)) : ((n) + (d) - 1) / (d))",
    "min": "#define {n}(x, y) ((x) < (y) ? (x) : (y))",
    "max": "#define {n}(x, y) ((x) > (y) ? (x) : (y))",
}
