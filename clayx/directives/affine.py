"""Clay directives: affine (see the package docstring)."""
