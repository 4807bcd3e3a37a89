"""Clay's transformation directives (seed 004 §5, Fig. 8), its queries and
control steps, one function each, registered in :mod:`.registry` with the
parameter types of :mod:`.params`.  Importing this package registers them
all."""

from .params import (AccessNumber, ArrayId, Beta, Bool, Depth, Int, Ints, List, Param, String,
                     Value)
from .registry import (CHECKS, FOREIGN, KINDS, REGISTRY, Directive, Outcome, apply,
                       clay_listing, directive, listing, lookup, names)

__all__ = ["AccessNumber", "ArrayId", "Beta", "Bool", "CHECKS", "Depth", "Directive", "FOREIGN",
           "Int", "Ints", "KINDS", "List", "Outcome", "Param", "REGISTRY", "String", "Value",
           "apply", "array_ids", "clay_listing", "clay_matching", "directive", "listing",
           "lookup", "names"]

from . import affine, control, exo, layout, marks, structure, tiling, unroll  # noqa: E402,F401,I001
from .common import clay_matching  # noqa: E402
from .layout import array_ids  # noqa: E402
