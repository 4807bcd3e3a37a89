"""Clay directives: structure (see the package docstring)."""
