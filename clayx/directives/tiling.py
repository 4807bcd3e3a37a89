"""Clay directives: tiling (see the package docstring)."""
