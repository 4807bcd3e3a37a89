"""The linear algebra of α rows that the recovery's modules share
(:mod:`.tiling`, :mod:`.core`, :mod:`.recover`): exact rational
elimination of one row on others (:func:`solve`), ranks and pivots, the
``reshape`` and ``shift`` steps between two forms of one dimension, and
the reading of a form as a div."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from .model import Aff, Rel, it

__all__ = ["full_rank_path", "independent_rows", "is_div", "iter_keys", "reshape_plan",
           "row_rank", "scaled_div", "shifted_div", "simulated", "solve"]


def solve(rows: Sequence[Aff], target: Aff, keys: Sequence) -> list[Fraction] | None:
    """``x`` with ``Σ x_l · rows[l] = target`` on the coefficients of
    ``keys`` (exact, rational), or None when there is no unique solution."""
    n = len(rows)
    m = len(keys)
    a = [[Fraction(rows[l][keys[i]]) for l in range(n)] + [Fraction(target[keys[i]])]
         for i in range(m)]
    piv_cols = []
    r = 0
    for col in range(n):
        p = next((i for i in range(r, m) if a[i][col] != 0), None)
        if p is None:
            continue
        a[r], a[p] = a[p], a[r]
        pv = a[r][col]
        a[r] = [v / pv for v in a[r]]
        for i in range(m):
            if i != r and a[i][col] != 0:
                f = a[i][col]
                a[i] = [v - f * w for v, w in zip(a[i], a[r])]
        piv_cols.append(col)
        r += 1
    if len(piv_cols) != n:
        return None
    if any(a[i][n] != 0 for i in range(r, m)):
        return None
    x = [Fraction(0)] * n
    for i, col in enumerate(piv_cols):
        x[col] = a[i][n]
    return x


def independent_rows(rows: Sequence[Aff], keys: Sequence) -> list[int]:
    """1-based indices of rows that are independent of the rows after them
    (innermost first: of two equal rows, the inner one is the pivot)."""
    chosen: list[Aff] = []
    out = []
    for l, row in reversed(list(enumerate(rows, 1))):
        if row.is_zero:
            continue
        if chosen and solve(chosen, row, keys) is not None:
            continue
        if row_rank(chosen + [row], keys) == len(chosen) + 1:
            chosen.append(row)
            out.append(l)
    return sorted(out)


def row_rank(rows: Sequence[Aff], keys: Sequence) -> int:
    a = [[Fraction(r[k]) for k in keys] for r in rows]
    rank = 0
    cols = len(keys)
    for col in range(cols):
        p = next((i for i in range(rank, len(a)) if a[i][col] != 0), None)
        if p is None:
            continue
        a[rank], a[p] = a[p], a[rank]
        for i in range(len(a)):
            if i != rank and a[i][col] != 0:
                f = a[i][col] / a[rank][col]
                a[i] = [v - f * w for v, w in zip(a[i], a[rank])]
        rank += 1
    return rank


def reshape_plan(r: Rel, old: Aff, new: Aff, j: int,
                 written: list[Aff] | None = None, detour: bool = False) -> list[tuple]:
    """``reshape`` and ``shift`` steps that turn α ``j`` of ``r`` from ``old``
    into ``new``, in an order that keeps the dates unique after each one
    when there is one (``reshape`` refuses a step that does not).
    ``written``: ``r``'s α dimensions as Clay writes them, when its domain
    fixes iterators (see :func:`_written_iterators`).  ``detour``: when
    no order keeps them unique, a path through one more ``reshape``
    (:func:`_detour`) where there is one."""
    diff = old - new
    todo = [("reshape", j, m + 1, int(diff[it(m)])) for m in r.free if diff[it(m)]]
    keys = iter_keys(r)
    rows = [a.part("i") for a in r.alphas]
    out = _unique_order(rows, j, todo, keys)
    if out is None:
        out = detour and _detour(rows, j, todo, r.free, keys) or _greedy(rows, j, todo, keys)[0]
    if written is not None and r.elim and out:
        out = _written_iterators(r, out, written, j)
        diff = r.canon(old - sum((Aff.var(it(st[2] - 1)).scale(st[3]) for st in out), Aff())) \
            - new
    rest = diff.part("p", "1")
    if not rest.is_zero:
        out.append(("shift", j, rest))
    return out


def _greedy(rows: list[Aff], j: int, todo: list[tuple], keys) -> tuple[list[tuple], bool]:
    """The ``reshape`` s ``todo`` of row ``j`` of ``rows`` in a greedy order
    that keeps the rows' rank after each one when it can, and whether it
    did."""
    full = row_rank(rows, keys)
    todo = list(todo)
    out: list[tuple] = []
    cur = rows[j - 1]
    kept = True
    while todo:
        for st in todo:
            nxt = cur - Aff.var(it(st[2] - 1)).scale(st[3])
            if row_rank(rows[:j - 1] + [nxt] + rows[j:], keys) >= full:
                break
        else:
            st = todo[0]
            nxt = cur - Aff.var(it(st[2] - 1)).scale(st[3])
            kept = False
        todo.remove(st)
        out.append(st)
        cur = nxt
    return out, kept


def _unique_order(rows: list[Aff], j: int, todo: list[tuple], keys) -> list[tuple] | None:
    """:func:`_greedy`'s order of ``todo`` when it keeps the rank, else None."""
    out, kept = _greedy(rows, j, todo, keys)
    return out if kept else None


#: The amounts of the extra ``reshape`` that :func:`_detour` tries first.
_DETOURS = (1, -1, 2, -2, 3, -3)


def _detour(rows: list[Aff], j: int, todo: list[tuple], free, keys) -> list[tuple] | None:
    """``reshape`` s of row ``j`` from its form to the one ``todo`` gives
    when no order of ``todo`` keeps the rows' rank after each step: a
    first ``reshape`` by one iterator by an amount that none of ``todo``
    asks (its coefficient moved out of the way, the rest then made), in a
    greedy order that keeps the rank; None when none does.  Every direct
    order can pass through a dependent row: ``(3i + k + 3j, k, i)`` to
    ``(…, k, j)``, through ``i + j`` or ``0``; ``i → i + 2j → 2j → j`` keeps
    the dates unique (gemm fuzz seed 115250)."""
    full = row_rank(rows, keys)
    amounts = {st[2]: st[3] for st in todo}
    for m in free:
        for a in _DETOURS:
            if amounts.get(m + 1) == a:
                continue
            first = ("reshape", j, m + 1, a)
            nxt = rows[j - 1] - Aff.var(it(m)).scale(a)
            if row_rank(rows[:j - 1] + [nxt] + rows[j:], keys) < full:
                continue
            rest = {**amounts, m + 1: amounts.get(m + 1, 0) - a}
            after = [("reshape", j, q, v) for q, v in sorted(rest.items()) if v]
            tail = _unique_order(rows[:j - 1] + [nxt] + rows[j:], j, after, keys)
            if tail is not None:
                return [first] + tail
    return None


def _written_iterators(r: Rel, plan: list[tuple], written: list[Aff], j: int) -> list[tuple]:
    """The ``reshape`` s of ``plan`` (of α ``j`` of ``r``, a part whose domain
    fixes iterators: ``r.elim``), each by an iterator equal on the part's
    instances to the one planned (up to parameters) that keeps ``r``'s α
    dimensions as Clay writes them (``written``) independent.  Its forms
    have the fixed iterators substituted, so a reshape that makes them
    dependent as written looks harmless: ``(i - j, j)`` on ``j = i`` reads
    ``(0, i)``; reshaping ``(i, j)`` by ``i`` gives ``(0, j)``, which
    ``reshape`` refuses, by ``j`` gives ``(i - j, j)`` (syrk fuzz seed
    48069).  A step with no such iterator stays as planned."""
    keys = [it(k) for k in range(r.dim)]
    rows = [a.part("i") for a in written]
    full = row_rank(rows, keys)
    out = []
    for st in plan:
        if st[0] != "reshape":
            out.append(st)
            continue
        m = st[2] - 1
        alts = [m] + [k for k in range(r.dim) if it(k) in r.elim
                      and not (r.canon(Aff.var(it(k))) - Aff.var(it(m))).keys("i")]
        for k in alts:
            nxt = rows[j - 1] - Aff.var(it(k)).scale(st[3])
            if row_rank(rows[:j - 1] + [nxt] + rows[j:], keys) >= full:
                break
        else:
            k = m
            nxt = rows[j - 1] - Aff.var(it(k)).scale(st[3])
        rows[j - 1] = nxt
        out.append((st[0], st[1], k + 1, st[3]))
    return out


def full_rank_path(r: Rel, plan) -> bool:
    """Do ``r``'s α dimensions stay linearly independent (as many as
    before) after each ``reshape`` of ``plan``?"""
    keys = iter_keys(r)
    a = list(r.alphas)
    full = row_rank([x.part("i") for x in a], keys)
    for st in plan:
        if st[0] != "reshape":
            continue
        a[st[1] - 1] = r.canon(a[st[1] - 1] - Aff.var(it(st[2] - 1)).scale(st[3]))
        if row_rank([x.part("i") for x in a], keys) < full:
            return False
    return True


def simulated(r: Rel, plan: tuple) -> list[Aff]:
    """``r``'s α dimensions after the steps of ``plan`` (positions only)."""
    a = list(r.alphas)
    for st in plan:
        if st[0] == "interchange":
            a[st[1] - 1], a[st[2] - 1] = a[st[2] - 1], a[st[1] - 1]
        elif st[0] == "reverse":
            a[st[1] - 1] = -a[st[1] - 1]
        elif st[0] == "skew":
            a[st[1] - 1] = a[st[1] - 1] - a[st[2] - 1].scale(st[3])
        elif st[0] == "shift":
            a[st[1] - 1] = a[st[1] - 1] - st[2]
        elif st[0] == "reshape":
            a[st[1] - 1] = r.canon(a[st[1] - 1] - Aff.var(it(st[2] - 1)).scale(st[3]))
    return a


def iter_keys(r: Rel) -> list:
    """The keys of ``r``'s free iterators (see :attr:`~.model.Rel.free`)."""
    return [it(k) for k in r.free]


def scaled_div(a: Aff) -> tuple | None:
    """``(div key, coefficient)`` when ``a`` is one div times a
    coefficient (no constant, no iterator), else None."""
    if len(a.c) == 1:
        (k, v), = a.c.items()
        if k[0] == "d":
            return k, v
    return None


def is_div(a: Aff) -> tuple | None:
    """The div key when ``a`` is exactly one div."""
    kv = scaled_div(a)
    return kv[0] if kv is not None and kv[1] == 1 else None


def shifted_div(a: Aff) -> tuple | None:
    """The div key when ``a`` is one div (coefficient 1) plus a parametric
    constant: a chunk loop, perhaps shifted (isl writes the chunk of ``i -
    3`` by 2 as ``floor((i + 1) / 2) - 2``)."""
    return None if a.keys("i") else is_div(a.part("d"))
