"""Worker process of :func:`clayx.codegen.generate_region`'s ``timeout``.

Run as ``python -m clayx.codegen._worker``: writes ``ready`` once imported,
reads a pickled ``(scop, target, max_operations)`` from stdin, writes a pickled
``("ok", text)`` or ``("error", message)`` to stdout.  A separate
interpreter (not ``multiprocessing``) so the caller's ``__main__`` is never
re-imported, and so the parent can kill it: islpy holds the GIL.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:
    """Serve one generation request on stdin/stdout."""
    from clayx.codegen.c import generate_region
    from clayx.errors import ClayxError

    out = sys.stdout.buffer
    out.write(b"ready\n")
    out.flush()
    scop, target, max_operations = pickle.load(sys.stdin.buffer)
    try:
        result = ("ok", generate_region(scop, target=target,
                                        max_operations=max_operations))
    except ClayxError as e:
        result = ("error", str(e))
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        result = ("error", f"{type(e).__name__}: {e}")
    pickle.dump(result, out)
    out.flush()


if __name__ == "__main__":
    main()
