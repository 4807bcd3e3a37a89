"""Directive steps as whitebox emits them, and the recorder that applies
each one to the symbolic schedule as it is decided.

A :class:`Step` is a directive name and Python arguments (β-vectors as
tuples, a shift amount or an index-set split inequality as an
:class:`~.model.Aff`); :meth:`Step.text` prints it in Clay's syntax, with
the parameters in the SCoP's order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .model import ONE, Aff, Sched, par, it

__all__ = ["Recorder", "Step", "peel", "tile_step"]


def _beta(b: Sequence[int]) -> str:
    return "[" + ", ".join(str(x) for x in b) + "]"


@dataclass(frozen=True)
class Step:
    """One directive: ``name`` and ``args`` (see the module docstring);
    ``comment`` says what it does, in the user's terms."""

    name: str
    args: tuple
    comment: str = field(default="", compare=False)

    def text(self, params: Sequence[str]) -> str:
        """The directive in Clay's syntax (without comment); ``params`` the
        SCoP's parameters."""
        if self.name == "iss" and len(self.args) == 3:
            # an inequality with strip-mined dimensions: its form on the α
            # dimensions ``(coefficients, rest)``, printed as Clay's
            # (the complement, as below)
            coef, rest = self.args[2]
            rest = -rest - Aff.const(1)
            ps = [int(rest[par(p)]) for p in params]
            return (f"iss({_beta(self.args[0])}, {{{_beta([-x for x in coef])} | [] | "
                    f"{_beta(ps)} | {int(rest[ONE])}}});")
        if self.name == "peel":
            # peel(β, {P | c}): the iterations where α_|β| + P·p + c >= 0
            # go to a new loop right after
            q = self.args[1]
            ps = ", ".join(str(int(q[par(p)])) for p in params)
            return f"peel({_beta(self.args[0])}, {{{ps} | {int(q[ONE])}}});"
        return f"{self.name}({', '.join(_arg(a, self.name, params) for a in self.args)});"


def _arg(a, name: str, params: Sequence[str]) -> str:
    if isinstance(a, tuple):
        return _beta(a)
    if isinstance(a, Aff):
        if name in ("iss", "peel"):
            # the model keeps ``a >= 0`` at the β; Clay's iss keeps the
            # complement there and moves ``a >= 0`` after: print the complement
            a = -a - Aff.const(1)
            n = max((k[1] + 1 for k in a.keys("i")), default=0)
            iters = [int(a[it(k)]) for k in range(n)]
            ps = [int(a[par(p)]) for p in params]
            return "{[] | " + _beta(iters) + " | " + _beta(ps) + f" | {int(a[ONE])}" + "}"
        ps = [int(a[par(p)]) for p in params]
        plist = "{}" if not any(ps) else "{" + " | ".join(str(x) for x in ps) + "}"
        return f"{plist}, {int(a[ONE])}"
    return str(a)


def tile_step(beta: Sequence[int], d: int, o: int, size: int, comment: str = "") -> list[Step]:
    """The steps that strip-mine the dimension ``d`` of the statements under
    ``beta`` by ``size`` and put the chunk (tile) loop at depth ``o ≤ d``,
    the dimensions ``o … d-1`` moving one inward: today one ``tile(beta, d,
    o, size)``.  Simplification creates tiles only through this helper (and
    only with ``d - o ≤ 1``, where a rotation and a swap of depths ``d`` and
    ``o`` agree), so a change of ``tile``'s semantics is adapted here."""
    return [Step("tile", (tuple(beta), d, o, size),
                 comment or f"tile the loop at depth {d} by {size}, tile loop at depth {o}")]


def peel(sched: Sched, loop: Sequence[int], q: Aff, new_tag) -> None:
    """Clay's ``peel(loop, {P | c})`` on the symbolic ``sched`` (``q`` the
    form ``P·p + c``): every relation under ``loop`` (depth ``d``) keeps the
    instances where ``α_d + q < 0``; a copy of it with the others
    (``α_d + q >= 0``, tag ``new_tag(relation)``) goes, in the same order,
    into a new loop right after ``loop``::

        for (i = 0; i < N; i++)         peel([0], {0 | -2})     for (i = 0; i < min(N, 2); i++)
          S(i);                         →                         S(i);
                                                                for (i = 2; i < N; i++)
                                                                  S(i);
    """
    loop = tuple(loop)
    d = len(loop)
    k = len(sched.children(loop))
    for r in sched.under(loop):
        c = r.copy()
        keep = -(r.alphas[d - 1] + q) - Aff.const(1)
        r.cons = r.cons + [keep]
        c.cons = c.cons + [-keep - Aff.const(1)]
        c.beta = loop + (r.beta[d] + k,) + r.beta[d + 1:]
        c.tag = new_tag(r)
        sched.rels.append(c)
    sched.normalize()
    sched.split(loop + (k - 1,), d)


class Recorder:
    """The current symbolic schedule and the steps applied to it so far."""

    def __init__(self, sched: Sched):
        self.sched = sched
        self.steps: list[Step] = []

    #: Directives whose :class:`~.model.Sched` method has the same name and
    #: arguments.
    PLAIN = frozenset({"reorder", "fuse", "split", "interchange", "reverse", "skew",
                       "reshape", "shift", "grain", "stripmine", "tile", "linearize",
                       "embed", "unembed"})

    def do(self, name: str, *args, comment: str = "", **kw) -> None:
        """Apply directive ``name`` to the schedule and record it
        (``densify`` takes its ``factor=``, ``iss`` its ``new_tag=``, the
        tag of the copies it makes, ``unroll``/``unroll_noepilog`` theirs
        as ``new_tag(relation, m)``; ``unroll_mark`` is the mark, not
        Clay's ``unroll``)."""
        s = self.sched
        if name in self.PLAIN:
            getattr(s, name)(*args)
        elif name == "densify":
            s.densify(args[0], args[1], kw.get("factor"))
        elif name == "iss":
            s.iss(args[0], args[1], kw["new_tag"])
        elif name == "peel":
            peel(s, args[0], args[1], kw.get("new_tag", lambda r: -1))
        elif name in ("parallelize", "vectorize"):
            s.mark("parallel" if name == "parallelize" else "vectorize", args[0])
        elif name in ("unroll", "unroll_noepilog"):
            s.unroll(args[0], args[1], kw.get("new_tag", lambda r, m: -1), name == "unroll")
        elif name == "unroll_mark":
            s.mark("unroll", args[0], args[1])
        else:
            raise ValueError(f"unknown step {name}")
        self.steps.append(Step(name, tuple(args), comment))
