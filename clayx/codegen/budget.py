"""isl's work under an operation budget (AST generation, its check).

isl AST generation can run for minutes on some tiled/wavefront shapes and
islpy holds the GIL, so a thread cannot stop it: :func:`isl_guard` runs a
block under ``ctx.set_max_operations``; when isl exceeds the budget it fails
with a quota error, which becomes a :class:`~clayx.errors.CodegenError`.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import islpy as isl

from ..errors import CodegenError

_QUOTA_MARK = "maximal number of operations exceeded"


@contextmanager
def isl_guard(ctx: isl.Context, max_operations: int | None,
              what: str = "AST generation") -> Iterator[None]:
    """Run a block of isl calls under an operation budget.

    Sets ``ctx``'s ``max_operations`` (0 or None: unlimited) and resets its
    counter; restores the previous limit and resets the counter on exit.  An
    ``isl.Error`` raised inside becomes a :class:`CodegenError` (a quota hit
    says so, with the budget).
    """
    prev = ctx.get_max_operations()
    ctx.reset_operations()
    ctx.set_max_operations(int(max_operations or 0))
    try:
        yield
    except isl.Error as e:
        if _QUOTA_MARK in str(e):
            raise CodegenError(
                f"{what} exceeded {max_operations} operations; the schedule is "
                "probably too complex to scan (try smaller tiles, fewer "
                "statements per loop, or raise max_operations)") from None
        raise CodegenError(f"{what} failed in isl: {e}") from None
    finally:
        ctx.set_max_operations(prev)
        ctx.reset_operations()


@contextmanager
def ctx_options(ctx: isl.Context, prefix: str, values: dict[str, int],
                names=None) -> Iterator[None]:
    """Set isl context options ``<prefix><name>`` (e.g. ``ast_build_`` +
    ``scale_strides``) from ``values`` for the duration of the block; the
    options in ``names`` (default: those of ``values``) get their old values
    back afterwards."""
    saved = {k: getattr(ctx, f"get_{prefix}{k}")() for k in (names or values)}
    try:
        for k, v in values.items():
            getattr(ctx, f"set_{prefix}{k}")(v)
        yield
    finally:
        for k, v in saved.items():
            getattr(ctx, f"set_{prefix}{k}")(v)
