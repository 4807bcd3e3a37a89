"""clayx: an interactive loop-transformation workbench for the polyhedral model.

The library: open a file as a session (:func:`load`), apply Clay directives
checked against exact dependences, regenerate code (:mod:`clayx.codegen`)
and prove the result equal by running it (:mod:`clayx.verify`).
"""

from .errors import (ClayxError, CodegenError, DirectiveError, LegalityError,
                     MismatchError, ModelError, NotAScopError, OpenScopError,
                     ScriptSyntaxError, VerifyError)
from .session import Session, load

__version__ = "0.1.0"

__all__ = ["ClayxError", "CodegenError", "DirectiveError", "LegalityError",
           "MismatchError", "ModelError", "NotAScopError", "OpenScopError",
           "ScriptSyntaxError", "Session", "VerifyError", "__version__", "load"]
