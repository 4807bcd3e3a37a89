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


class DirectiveWarning(UserWarning):
    """A step was applied, but Clay would warn about it (its ``[Clay]
    Warning: …``: a layout directive that finds no access to its array under
    its β, and changes nothing); the command prints it as ``clayx: warning:
    …``, the REPL under the step."""


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
        #: the β-prefix of the loop at the dimension where the first
        #: violation breaks (in the refused schedule), and its α label
        #: (``(0, 1)``, ``"j"``); None when not located
        self.loop: tuple[int, ...] | None = None
        self.loop_label: str | None = None
        self._excerpt = None
        super().__init__(message)

    def located(self, loop, label: str, excerpt) -> "LegalityError":
        """This error with the loop where it breaks (β-prefix and α label)
        and ``excerpt``: a function giving the code lines around that loop,
        the loop marked, and the loop's printed iterator (called once, when
        first needed: :func:`clayx.view.code_excerpt`)."""
        self.loop, self.loop_label, self._excerpt = tuple(loop), label, excerpt
        return self

    def _code(self) -> tuple[tuple[str, ...], str | None]:
        if callable(self._excerpt):
            try:
                lines, name = self._excerpt()
                self._excerpt = (tuple(lines), name)
            except ClayxError:
                self._excerpt = ((), None)
        return self._excerpt or ((), None)

    @property
    def where(self) -> str | None:
        """``loop [0, 1] (j)``: the β-prefix of the loop where the first
        violation breaks, and its iterator as printed in :attr:`excerpt`
        (its α label when it is not printed as a loop)."""
        if self.loop is None:
            return None
        name = self._code()[1] or self.loop_label
        return f"loop [{', '.join(str(b) for b in self.loop)}] ({name})"

    @property
    def excerpt(self) -> tuple[str, ...]:
        """The code the refused step would make, around :attr:`loop`: a
        ``>`` gutter on the loop's ``for`` line, ``|`` on the rest of the
        loop (empty when the loop is not located or not printed)."""
        return self._code()[0]

    def __str__(self) -> str:
        if self.loop is None:
            return self.message
        text = f"{self.message}\n  it breaks at {self.where}"
        if self.excerpt:
            text += " (marked > in the code the step would make):\n" + "\n".join(
                "    " + ln for ln in self.excerpt)
        return text
