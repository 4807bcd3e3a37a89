"""The clayx error hierarchy.

Every error a user can cause is a :class:`ClayxError` subclass carrying enough
context (a position, the offending construct) to be understood without a
traceback.  A raw ``islpy.Error`` never reaches a user: wrap it.
"""

from __future__ import annotations


class ClayxError(Exception):
    """Root of every error clayx reports to a user."""


class NotAScopError(ClayxError):
    """The C input cannot be represented in the polyhedral model.

    ``construct`` names what was refused (``"while loop"``, ``"non-affine
    subscript"``...), ``line``/``column`` are 1-based positions in the file.
    """

    def __init__(self, message: str, *, construct: str | None = None,
                 line: int | None = None, column: int | None = None,
                 path: str | None = None, text: str | None = None):
        self.construct = construct
        self.line = line
        self.column = column
        self.path = path
        self.text = text
        self.message = message
        where = ""
        if line is not None:
            where = f"{path or '<input>'}:{line}:{column or 1}: "
        what = f"{construct}: " if construct else ""
        snippet = f" (in `{text}`)" if text else ""
        super().__init__(f"{where}{what}{message}{snippet}")


class OpenScopError(ClayxError):
    """An OpenScop file is malformed; ``line`` is 1-based when known."""

    def __init__(self, message: str, *, line: int | None = None,
                 path: str | None = None):
        self.line = line
        self.path = path
        self.message = message
        where = f"{path or '<openscop>'}:{line}: " if line is not None else ""
        super().__init__(f"{where}{message}")


class ModelError(ClayxError):
    """A schedule or model object is inconsistent (bad β-vector, wrong arity...)."""


class CodegenError(ClayxError):
    """Code could not be generated (isl AST blow-up, unsupported construct...)."""


class VerifyError(ClayxError):
    """A program could not be compiled or run while verifying."""


class MismatchError(VerifyError):
    """Original and generated programs printed different results."""
