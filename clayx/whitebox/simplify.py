"""Shortening a recovered sequence (the paper's future work, seed 004 §6.4).

Rules, applied to adjacent steps on the same loop until none applies (each
keeps the schedule reached exactly, and the intermediate schedules it drops
were legal or the recovered sequence would not have replayed; the final
replay in :func:`clayx.whitebox.whitebox` proves the result anyway):

- a step that does nothing goes: ``shift`` by 0, ``skew`` by 0,
  ``interchange(β, d, d)``;
- steps that cancel go: ``reverse(β, d); reverse(β, d)``,
  ``interchange(β, d1, d2); interchange(β, d1, d2)`` (either order of d1, d2);
- consecutive shifts of one loop merge:
  ``shift(β, d, P1, c1); shift(β, d, P2, c2)`` → ``shift(β, d, P1+P2, c1+c2)``;
- consecutive skews of one dimension by the same other merge:
  ``skew(β, d, o, c1); skew(β, d, o, c2)`` → ``skew(β, d, o, c1+c2)``.

Before/after (gemm, a loop shifted twice then reversed twice)::

    shift([0,0], 2, {0}, 1); shift([0,0], 2, {0}, 2);   →   shift([0,0], 2, {0}, 3);
    reverse([0,0], 3); reverse([0,0], 3);               →   (nothing)
"""

from __future__ import annotations

from .steps import Step

__all__ = ["RULES", "simplify"]


def _noop(s: Step) -> bool:
    if s.name == "shift":
        return not s.args[2].c
    if s.name == "skew":
        return s.args[3] == 0
    if s.name == "interchange":
        return s.args[1] == s.args[2]
    return False


def _pair(a: Step, b: Step) -> list[Step] | None:
    """What the adjacent steps ``a; b`` become (``None``: unchanged)."""
    if a.name != b.name or tuple(a.args[0]) != tuple(b.args[0]):
        return None
    if a.name == "reverse" and a.args[1] == b.args[1]:
        return []
    if a.name == "interchange" and {a.args[1], a.args[2]} == {b.args[1], b.args[2]}:
        return []
    if a.name == "shift" and a.args[1] == b.args[1]:
        return [Step("shift", (a.args[0], a.args[1], a.args[2] + b.args[2]),
                     _join(a, b))]
    if a.name == "skew" and a.args[1:3] == b.args[1:3]:
        return [Step("skew", (a.args[0], a.args[1], a.args[2], a.args[3] + b.args[3]),
                     _join(a, b))]
    return None


def _join(a: Step, b: Step) -> str:
    return "; ".join(c for c in (a.comment, b.comment) if c)


#: The rule names, for reports and tests.
RULES = ("no-op", "cancel reverse", "cancel interchange", "merge shifts", "merge skews")


def simplify(steps, O=None, T=None) -> list[Step]:
    """``steps`` made shorter, same result (see the module docstring).
    ``O`` and ``T`` (the symbolic original and target) are not needed by
    the current rules."""
    out: list[Step] = []
    for s in steps:
        if _noop(s):
            continue
        out.append(s)
        while len(out) >= 2:
            new = _pair(out[-2], out[-1])
            if new is None:
                break
            del out[-2:]
            out.extend(x for x in new if not _noop(x))
    return out
