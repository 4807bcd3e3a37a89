"""clayx: an interactive loop-transformation workbench for the polyhedral model.

The library: read a C SCoP (:func:`clayx.frontend.parse_file`), inspect its
model and dependences, regenerate code (:mod:`clayx.codegen`) and prove the
result equal by running it (:mod:`clayx.verify`).
"""

from .errors import (ClayxError, CodegenError, MismatchError, ModelError,
                     NotAScopError, OpenScopError, VerifyError)

__version__ = "0.1.0"

__all__ = ["ClayxError", "CodegenError", "MismatchError", "ModelError",
           "NotAScopError", "OpenScopError", "VerifyError", "__version__"]
