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
        where = f"{path}: " if path else ""
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
        where = (f"{path or '<openscop>'}:{line}: " if line is not None
                 else f"{path}: " if path else "")
        super().__init__(f"{where}{message}")


class ModelError(ClayxError):
    """A schedule or model object is inconsistent (bad β-vector, wrong arity...)."""


class CodegenError(ClayxError):
    """Code could not be generated (isl AST blow-up, unsupported construct...)."""


class CodegenWarning(UserWarning):
    """Code was generated, but something about it could not be established
    (e.g. the exactness check of the AST ran out of its budget)."""


class InputWarning(UserWarning):
    """Input was read, but part of it was dropped or reinterpreted (an
    OpenScop extension osl does not know, an array accessed with different
    numbers of subscripts); the command prints it as ``clayx: warning: …``."""


class VerifyError(ClayxError):
    """A program could not be compiled or run while verifying."""


class MismatchError(VerifyError):
    """Original and generated programs printed different results."""


class ScriptSyntaxError(ClayxError):
    """A Clay script does not parse; ``line``/``column`` are 1-based."""

    def __init__(self, message: str, *, line: int, column: int,
                 source_line: str | None = None, path: str | None = None):
        self.line = line
        self.column = column
        self.message = message
        self.source_line = source_line
        self.path = path
        caret = ""
        if source_line is not None:
            caret = f"\n  {source_line}\n  {' ' * (column - 1)}^"
        super().__init__(f"{path or '<script>'}:{line}:{column}: {message}{caret}")


class DirectiveError(ClayxError):
    """A directive's arguments are wrong or its target does not exist
    (Clay's catalogue: "the beta vector was not found", "depth overflow",
    "the beta is not a loop", ...).  ``directive`` names the step."""

    def __init__(self, message: str, *, directive: str | None = None,
                 argument: int | None = None, line: int | None = None,
                 column: int | None = None):
        self.directive = directive
        self.argument = argument
        self.message = message
        self.line = line
        self.column = column
        where = f"{line}:{column}: " if line is not None else ""
        arg = f"argument {argument}: " if argument is not None else ""
        step = f"error in {directive}: " if directive else ""
        super().__init__(f"{where}{step}{arg}{message}")


class LegalityError(ClayxError):
    """A step would break dependences.  ``violations`` holds the violated
    dependences (each with a witness pair of instances), ``total`` their
    number."""

    def __init__(self, message: str, *, violations=(), total: int = 0,
                 directive: str | None = None):
        self.violations = tuple(violations)
        self.total = total
        self.directive = directive
        self.message = message
        super().__init__(message)
