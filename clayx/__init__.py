"""clayx: an interactive loop-transformation workbench for the polyhedral model.

The library: open a file as a session (:func:`load`), apply Clay directives
checked against exact dependences, regenerate code (:mod:`clayx.codegen`)
and prove the result equal by running it (:mod:`clayx.verify`).

Automatic schedules, opened up: :meth:`Session.auto` computes isl's
(Pluto-like) schedule and returns it as a replay-verified Clay script;
``clayx.whitebox(original, target)`` recovers the script from ``original``
(a Session or Scop) to any target schedule (a ClaySchedule, Scop, Session,
a .c/.scop/isl file, or isl schedule text).
"""

from .errors import (ClayxError, CodegenError, DirectiveError, LegalityError,
                     MismatchError, ModelError, NotAScopError, OpenScopError,
                     ScriptSyntaxError, VerifyError)
from .session import Session, load
from . import whitebox  # noqa: E402  (the package; called, it returns the Script)
from .whitebox import WhiteboxError, WhiteboxResult

__version__ = "0.1.0"

__all__ = ["ClayxError", "CodegenError", "DirectiveError", "LegalityError",
           "MismatchError", "ModelError", "NotAScopError", "OpenScopError",
           "ScriptSyntaxError", "Session", "VerifyError", "WhiteboxError", "WhiteboxResult",
           "__version__", "load", "whitebox"]
