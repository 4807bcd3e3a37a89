"""Clay's transformation directives (seed 004 §5, Fig. 8), one function each,
registered in :mod:`.registry`.  Importing this package registers them all."""

from .registry import (REGISTRY, Beta, Bool, Directive, Int, Ints, List, Param,
                       String, apply, directive, listing, lookup, names)

__all__ = ["REGISTRY", "Beta", "Bool", "Directive", "Int", "Ints", "List", "Param",
           "String", "apply", "directive", "listing", "lookup", "names"]

from . import affine, layout, marks, structure, tiling  # noqa: E402,F401  (registration)
