"""Random directive sequences drawn against the current schedule.

The property tests (hypothesis) and ``scripts/fuzz_codegen.py`` (a seeded
run of thousands of sequences) share one generator: :func:`draw_step`
returns one directive call as script text, with arguments taken from the
*current* β-tree (loops and statements that exist, depths they have), and
with a small probability a β-vector, depth, size or coefficient out of range
on purpose.  Randomness comes from a :class:`Chooser`, so hypothesis can
drive it (shrinking works) and a plain :class:`RandomChooser` can too.

::

    from clayx.fuzz import RandomChooser, draw_step
    rng = RandomChooser(seed=1)
    text = draw_step(rng, session.current)      # e.g. "tile([0, 0], 2, 1, 4);"
"""

from __future__ import annotations

import random
from typing import Protocol, Sequence

from .model import Scop

__all__ = ["ALL_KINDS", "Chooser", "DEEP_KINDS", "RandomChooser", "draw_step"]

#: Schedule directive kinds (no layout directives, no queries).
ALL_KINDS = ("reorder", "fuse", "split", "split_children", "shift", "skew", "reverse",
             "interchange", "reorder_loops", "reshape", "stripmine", "tile", "linearize",
             "iss", "peel", "collapse", "embed", "unembed", "parallelize", "vectorize",
             "unroll", "grain", "densify")

#: The mix that stresses code generation on deep nests: α rewrites and
#: tiling, drawn more often than the structural steps.
DEEP_KINDS = ("tile", "tile", "reshape", "reshape", "interchange", "interchange", "skew",
              "skew", "stripmine", "shift", "reverse", "grain", "densify", "linearize",
              "fuse", "split", "iss", "reorder_loops")


class Chooser(Protocol):
    """Where :func:`draw_step` gets its random choices."""

    def pick(self, options: Sequence, label: str):
        """One element of a non-empty sequence."""

    def integer(self, lo: int, hi: int, label: str) -> int:
        """An integer in ``[lo, hi]``."""

    def permutation(self, items: list, label: str) -> list:
        """A permutation of ``items``."""


class RandomChooser:
    """A :class:`Chooser` over :class:`random.Random` (seeded, reproducible)."""

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def pick(self, options: Sequence, label: str):
        """One element of ``options``, uniformly."""
        return self.rng.choice(list(options))

    def integer(self, lo: int, hi: int, label: str) -> int:
        """A uniform integer in ``[lo, hi]``."""
        return self.rng.randint(lo, hi)

    def permutation(self, items: list, label: str) -> list:
        """A uniform permutation of ``items``."""
        out = list(items)
        self.rng.shuffle(out)
        return out


def _beta(b) -> str:
    return "[" + ", ".join(str(x) for x in b) + "]"


def _clay_list(items) -> str:
    parts = [_beta(x) if isinstance(x, (list, tuple)) else str(x) for x in items]
    return "{" + " | ".join(parts) + "}"


def draw_step(ch: Chooser, scop: Scop, kinds: Sequence[str] = ALL_KINDS, *,
              bad_rate: int = 10) -> str:
    """One directive call (script text) drawn against ``scop``'s schedule.

    ``kinds`` are the directive names drawn from (repeat a name to draw it
    more often); about one step in ``bad_rate`` (0: none) gets an argument
    out of range on purpose."""
    sched = scop.schedule
    loops = sched.loops()
    stmts = sched.betas
    n_par = len(scop.params)
    # the last value, not the first: hypothesis starts from the simplest values
    bad = bad_rate > 0 and ch.integer(0, bad_rate - 1, "bad") == bad_rate - 1

    def a_loop():
        if bad and ch.integer(0, 1, "bad kind"):
            return ch.pick([(9,), (0, 7), *stmts], "bad loop")
        return ch.pick(loops, "loop") if loops else (0,)

    def a_prefix():
        return ch.pick([*loops, *stmts], "prefix") if not bad else ch.pick([(8,), ()],
                                                                           "bad prefix")

    def limit(prefix):
        rels = sched.relations_under(prefix)
        return min((r.depth for r in rels), default=1)

    def a_depth(prefix, lo=1, hi=None):
        hi = limit(prefix) if hi is None else hi
        if bad or hi < lo:
            return ch.pick([0, hi + 1, -1], "bad depth")
        return ch.integer(lo, hi, "depth")

    kind = ch.pick(kinds, "kind")
    if kind == "reorder":
        loop = ch.pick([(), *loops], "reorder loop")
        n = len(sched.children(loop))
        order = ch.permutation(list(range(n)), "order")
        if bad:
            order = order + [n] if ch.integer(0, 1, "longer") else order[:-1]
        return f"reorder({_beta(loop)}, {_beta(order)});"
    if kind in ("fuse", "collapse", "linearize", "parallelize", "vectorize", "unroll"):
        loop = a_loop()
        # bias collapse/linearize towards loops where they can apply: a loop
        # holding two relations of one statement (after iss), a loop whose
        # only child is a loop (after stripmine)
        if kind == "collapse" and not bad:
            split_loops = [lp for lp in loops
                           if len({r.stmt for r in sched.relations_under(lp)})
                           < len(sched.relations_under(lp))]
            loop = ch.pick(split_loops, "iss loop") if split_loops else loop
        if kind == "linearize" and not bad:
            chains = [lp for lp in loops if len(sched.children(lp)) == 1
                      and sched.is_loop(sched.children(lp)[0])]
            loop = ch.pick(chains, "chunk loop") if chains else loop
            return f"linearize({_beta(loop)}, {len(loop)});"
        if kind == "unroll":
            # Clay's unroll (copies in the schedule) or the compiler's mark
            name = ch.pick(["unroll", "unroll_mark"], "unroll kind")
            return f"{name}({_beta(loop)}, {ch.integer(0 if bad else 1, 4, 'factor')});"
        if kind == "linearize":
            return f"linearize({_beta(loop)}, {a_depth(loop, hi=len(loop))});"
        if kind in ("parallelize", "vectorize") and ch.integer(0, 1, "with depth"):
            return f"{kind}({_beta(loop)}, {a_depth(loop, hi=len(loop))});"
        return f"{kind}({_beta(loop)});"
    if kind == "split":
        beta = ch.pick(stmts, "split stmt") if not bad else (5, 5)
        return f"split({_beta(beta)}, {a_depth(beta, hi=len(beta) - 1)});"
    if kind == "split_children":
        loop = a_loop()
        n = len(sched.children(loop))
        k = ch.integer(1, max(1, n - 1), "n") if not bad else n
        return f"split_children({_beta(loop)}, {k});"
    if kind in ("embed", "unembed"):
        stmt = ch.pick(stmts, "stmt") if not bad else ch.pick(loops or [(4,)], "bad stmt")
        return f"{kind}({_beta(stmt)});"
    if kind == "shift":
        beta = a_prefix()
        params = "{}" if ch.integer(0, 1, "no params") else _clay_list(
            [ch.integer(-1, 1, "param coeff") for _ in range(n_par)])
        const = ch.integer(-3, 3, "const")
        return f"shift({_beta(beta)}, {a_depth(beta)}, {params}, {const});"
    if kind == "skew":
        loop = a_loop()
        d1 = a_depth(loop)
        d2 = a_depth(loop)
        if d1 == d2 and not bad and limit(loop) > 1:
            d2 = d1 % limit(loop) + 1           # a loop is not skewed by itself
        coeff = ch.pick([-2, -1, 1, 2] + ([0] if bad else []), "coeff")
        return f"skew({_beta(loop)}, {d1}, {d2}, {coeff});"
    if kind == "reshape":
        beta = a_prefix()
        depth = a_depth(beta)
        rels = sched.relations_under(beta)
        n_it = min((scop.statement(r.stmt).dim for r in rels), default=1)
        it = ch.integer(1, max(1, n_it), "iterator") if not bad else n_it + 1
        amount = ch.pick([-2, -1, 1, 2, 3], "amount")
        return f"reshape({_beta(beta)}, {depth}, {it}, {amount});"
    if kind in ("reverse", "densify"):
        beta = a_prefix()
        return f"{kind}({_beta(beta)}, {a_depth(beta)});"
    if kind == "grain":
        beta = a_prefix()
        return f"grain({_beta(beta)}, {a_depth(beta)}, {ch.integer(1, 3, 'factor')});"
    if kind == "interchange":
        beta = a_prefix()
        return f"interchange({_beta(beta)}, {a_depth(beta)}, {a_depth(beta)});"
    if kind == "reorder_loops":
        beta = a_prefix()
        return f"reorder_loops({_beta(beta)}, {a_depth(beta, hi=limit(beta) - 1)});"
    if kind in ("stripmine", "tile"):
        loop = a_loop()
        size = ch.integer(2, 5, "size") if not bad else 0
        if kind == "tile" and not bad and ch.integer(0, 3, "big tile") == 3:
            size = ch.pick([8, 16, 32], "big size")
        depth = a_depth(loop)
        if kind == "stripmine":
            text = f"stripmine({_beta(loop)}, {depth}, {size});"
            if ch.integer(0, 3, "undo it") == 3:
                # and back, in the same all-or-nothing apply
                text += f" linearize({_beta(tuple(loop)[:depth])}, {depth});"
            return text
        outer = ch.integer(1, max(1, depth), "outer")
        return f"tile({_beta(loop)}, {depth}, {outer}, {size});"
    if kind not in ("iss", "peel"):
        raise ValueError(f"draw_step: unknown kind {kind!r}")
    # iss: {α… | | params… | C}, peel: {params… | C} (Clay's list forms)
    loop = a_loop()
    n_alpha = limit(loop) + (1 if bad else 0)
    alphas = [ch.integer(-1, 1, "alpha coeff")
              for _ in range(ch.integer(1, max(1, n_alpha), "n alphas"))]
    params = [ch.pick([0, 0, 1, -1], "param coeff") for _ in range(n_par)]
    const = ch.integer(-2, 6, "const")
    ps = ", ".join(map(str, params))
    form = (f"{{{', '.join(map(str, alphas))} | | {ps} | {const}}}" if kind == "iss"
            else f"{{{ps} | {const}}}")
    text = f"{kind}({_beta(loop)}, {form});"
    if kind == "iss" and ch.integer(0, 3, "undo it") == 3:
        text += f" collapse({_beta(loop)});"
    return text
