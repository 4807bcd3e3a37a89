#!/usr/bin/env python3
"""Does the installed isl have the ``detect_mod`` bug (docs/isl-detect-mod-bug.md)?

``isl_set_remove_divs_involving_dims`` must return a superset of its input;
with the bug it drops points, and isl's AST generator drops statement
instances on some tiled schedules (clayx's AST check catches and avoids
those).  Prints the verdict and exits 1 when the bug is present.

    python scripts/isl_detect_mod_bug.py
"""

from __future__ import annotations

import sys

import islpy as isl


def has_detect_mod_bug() -> bool:
    """True when ``remove_divs_involving_dims`` loses points of the
    reproducer set (the isl 0.27–0.28 bug)."""
    s = isl.Set("{ [x, i] : (3i - x) mod 6 <= 2 and 0 <= i <= 2 }")
    r = s.remove_divs_involving_dims(isl.dim_type.set, 1, 1)
    return not s.is_subset(r)


def main() -> int:
    """Print the verdict; exit status 1 when the bug is present."""
    bug = has_detect_mod_bug()
    print(f"islpy {getattr(isl, '__version__', '?')}: "
          + ("HAS the detect_mod bug (see docs/isl-detect-mod-bug.md); clayx's AST "
             "check guards against it" if bug else "no detect_mod bug"))
    return 1 if bug else 0


if __name__ == "__main__":
    sys.exit(main())
