"""Clay directives: marks (see the package docstring)."""
