"""Clay's β/α scheduling relations (seed 004 §3–§4).

Every statement instance gets a date ``[β0, α1, β1, …, αn, βn]``.  The β
dimensions are constants that encode the textual order and the loop nesting
(the β-vector), the α dimensions are the loop iterators of the generated code.
A statement may have several relations (a union), each with its own β-vector
and possibly extra inequalities restricting it to part of the domain (as
``iss`` creates).  α dimensions may be *explicitly* defined (an equality in
terms of the iterators) or *implicitly* defined (only bounded by inequalities,
as ``stripmine`` creates).

Conventions (Clay's): depths are 1-based; a β-prefix ``()`` is the root; a
loop is a strict β-prefix of some relation's β-vector; a statement is a full
β-vector.  Everything is a frozen value: operations return new objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator

import islpy as isl

from ..errors import ModelError

Beta = tuple[int, ...]


def _fixed_out(m: isl.Map, pos: int) -> int | None:
    """The constant value of output dimension ``pos`` of ``m``, or None."""
    v = m.plain_get_val_if_fixed(isl.dim_type.out, pos)
    if v.is_nan():
        # plain check can miss fixed values hidden behind equalities
        hull = m.affine_hull()
        v = hull.plain_get_val_if_fixed(isl.dim_type.out, pos)
        if v.is_nan():
            return None
    if not v.is_int():
        return None
    return int(v.to_python())


@dataclass(frozen=True)
class Relation:
    """One scheduling relation ``S[i…] -> [β0, α1, β1, …, αn, βn]``.

    ``map`` is an ``isl.Map`` whose domain tuple is the statement name and
    whose range is unnamed with ``2n+1`` dimensions; β dimensions (even
    positions 0, 2, …) are fixed to ``beta``.  Use :meth:`build` to make one
    from an α part, or :meth:`from_map` to check a ready map.
    """

    stmt: str
    beta: Beta
    map: isl.Map
    #: The relation's place among its statement's relations in the union
    #: Clay would print (compared as tuples; ``()`` first): a part read from
    #: OpenScop has its index there, ``iss`` and ``peel`` give the part that
    #: satisfies the inequality ``rank + (0,)`` and its complement
    #: ``rank + (1,)`` (reference §4.6).  Only ``--emit scop`` reads it; it
    #: takes no part in comparisons.
    rank: tuple = field(default=(), compare=False)

    @property
    def depth(self) -> int:
        """Number of α dimensions (loops around this relation)."""
        return len(self.beta) - 1

    @staticmethod
    def from_map(m: isl.Map, stmt: str | None = None) -> "Relation":
        """Check ``m`` has Clay's shape (odd range, fixed β) and wrap it."""
        name = m.get_tuple_name(isl.dim_type.in_)
        if stmt is not None and name != stmt:
            raise ModelError(f"relation is on {name!r}, expected {stmt!r}")
        n_out = m.dim(isl.dim_type.out)
        if n_out % 2 != 1:
            raise ModelError(
                f"scheduling relation of {name} has {n_out} output dimensions; "
                "Clay's form needs 2n+1 (β0, α1, β1, …, αn, βn)")
        beta = []
        for pos in range(0, n_out, 2):
            v = _fixed_out(m, pos)
            if v is None:
                raise ModelError(
                    f"β dimension {pos // 2} of a relation of {name} is not a constant")
            beta.append(v)
        return Relation(name, tuple(beta), m)

    @staticmethod
    def build(stmt_space_set: isl.Set, beta: Beta, alphas: Iterable[str],
              constraints: str = "") -> "Relation":
        """Build a relation from α expressions in the statement's iterators.

        ``stmt_space_set`` is the statement domain (its space and parameters
        are used); ``alphas`` are isl affine expressions such as ``"i"`` or
        ``"-j"``; ``constraints`` optional extra isl constraints.
        """
        alphas = list(alphas)
        if len(beta) != len(alphas) + 1:
            raise ModelError(f"β-vector {beta} does not fit {len(alphas)} α dimensions")
        space = stmt_space_set.get_space()
        name = space.get_tuple_name(isl.dim_type.set)
        its = [space.get_dim_name(isl.dim_type.set, k)
               for k in range(space.dim(isl.dim_type.set))]
        params = [space.get_dim_name(isl.dim_type.param, k)
                  for k in range(space.dim(isl.dim_type.param))]
        out: list[str] = [str(beta[0])]
        for a, b in zip(alphas, beta[1:]):
            out += [a, str(b)]
        cons = f" : {constraints}" if constraints else ""
        text = (f"[{', '.join(params)}] -> {{ {name}[{', '.join(its)}] -> "
                f"[{', '.join(out)}]{cons} }}")
        return Relation(name, tuple(beta), isl.Map(text, context=space.get_ctx()))

    def with_beta(self, beta: Beta) -> "Relation":
        """Same α part, β dimensions set to ``beta`` (same length)."""
        if len(beta) != len(self.beta):
            raise ModelError(f"β-vector {beta} has the wrong length for {self.beta}")
        m = self.map
        for k, b in enumerate(beta):
            if b != self.beta[k]:
                m = _refix_out(m, 2 * k, b)
        return replace(self, beta=tuple(beta), map=m)

    def padded(self, n_out: int) -> isl.Map:
        """The map with zero β dimensions appended up to ``n_out`` outputs."""
        k = self.map.dim(isl.dim_type.out)
        if k > n_out:
            raise ModelError("cannot pad a relation to fewer dimensions")
        m = self.map.add_dims(isl.dim_type.out, n_out - k)
        for pos in range(k, n_out):
            m = m.fix_val(isl.dim_type.out, pos, 0)
        return m

    def __str__(self) -> str:
        return f"{self.stmt} β={list(self.beta)}: {self.map}"


def _refix_out(m: isl.Map, pos: int, value: int) -> isl.Map:
    """Replace a fixed output dimension's value (project it out, re-add it)."""
    m = m.project_out(isl.dim_type.out, pos, 1)
    m = m.insert_dims(isl.dim_type.out, pos, 1)
    return m.fix_val(isl.dim_type.out, pos, value)


@dataclass(frozen=True)
class Mark:
    """Semantic information on a loop: ``kind`` is ``parallel``,
    ``vectorize`` or ``unroll``; ``loop`` the β-prefix; ``arg`` e.g. the
    unroll factor."""

    kind: str
    loop: Beta
    arg: int | None = None


def beta_tree_error(betas: Iterable[Beta]) -> str | None:
    """Why the β-vectors ``betas`` are not a β-tree (one used twice, or one
    a prefix of another: a statement where a loop is), or None."""
    ordered = sorted(betas)
    pairs = list(zip(ordered, ordered[1:]))
    for a, b in pairs:
        if a == b:
            return f"β-vector {list(a)} is used twice"
    for a, b in pairs:
        if b[:len(a)] == a:
            return f"β-vector {list(a)} is a prefix of {list(b)}"
    return None


@dataclass(frozen=True)
class ClaySchedule:
    """The union of scheduling relations of a SCoP, in β order.

    The β-tree is queryable: :meth:`children` of a prefix, :meth:`is_loop`,
    :meth:`is_statement`, :meth:`relations_under`, :meth:`statements_under`.
    """

    relations: tuple[Relation, ...]
    marks: tuple[Mark, ...] = field(default=())

    def __post_init__(self) -> None:
        rels = tuple(sorted(self.relations, key=lambda r: r.beta))
        object.__setattr__(self, "relations", rels)
        problem = beta_tree_error(r.beta for r in rels)
        if problem:
            raise ModelError(problem)

    # -- simple views -------------------------------------------------------
    def __iter__(self) -> Iterator[Relation]:
        return iter(self.relations)

    def __len__(self) -> int:
        return len(self.relations)

    @property
    def betas(self) -> list[Beta]:
        """All β-vectors, sorted."""
        return [r.beta for r in self.relations]

    @property
    def max_depth(self) -> int:
        """The largest number of α dimensions of any relation."""
        return max((r.depth for r in self.relations), default=0)

    def of(self, stmt: str) -> tuple[Relation, ...]:
        """The relations of one statement, in β order."""
        return tuple(r for r in self.relations if r.stmt == stmt)

    def relation(self, beta: Beta) -> Relation:
        """The relation with exactly this β-vector (``ModelError`` if none)."""
        beta = tuple(beta)
        for r in self.relations:
            if r.beta == beta:
                return r
        raise ModelError(f"the beta vector {list(beta)} was not found")

    # -- the β-tree ----------------------------------------------------------
    def relations_under(self, prefix: Beta) -> tuple[Relation, ...]:
        """Relations whose β-vector starts with ``prefix`` (the root: all)."""
        prefix = tuple(prefix)
        n = len(prefix)
        return tuple(r for r in self.relations if r.beta[:n] == prefix)

    def statements_under(self, prefix: Beta) -> tuple[str, ...]:
        """Names of the statements with a relation under ``prefix``, in order."""
        out: list[str] = []
        for r in self.relations_under(prefix):
            if r.stmt not in out:
                out.append(r.stmt)
        return tuple(out)

    def exists(self, prefix: Beta) -> bool:
        """True when ``prefix`` is a prefix of (or equal to) some β-vector."""
        return bool(self.relations_under(prefix))

    def is_statement(self, prefix: Beta) -> bool:
        """True when ``prefix`` is the full β-vector of a relation."""
        prefix = tuple(prefix)
        return any(r.beta == prefix for r in self.relations)

    def is_loop(self, prefix: Beta) -> bool:
        """True when ``prefix`` is non-empty and a strict prefix of some β."""
        prefix = tuple(prefix)
        if not prefix:
            return False
        return any(len(r.beta) > len(prefix) and r.beta[:len(prefix)] == prefix
                   for r in self.relations)

    def children(self, prefix: Beta) -> list[Beta]:
        """The direct children (loops or statements) of ``prefix``, in order."""
        prefix = tuple(prefix)
        n = len(prefix)
        kids: list[Beta] = []
        for r in self.relations_under(prefix):
            if len(r.beta) > n:
                k = r.beta[:n + 1]
                if not kids or kids[-1] != k:
                    kids.append(k)
        return kids

    def loops(self) -> list[Beta]:
        """Every loop β-prefix, in lexicographic (program) order."""
        out: set[Beta] = set()
        for r in self.relations:
            for k in range(1, len(r.beta)):
                out.add(r.beta[:k])
        return sorted(out)

    # -- whole-schedule forms -------------------------------------------------
    def union_map(self, n_out: int | None = None) -> isl.UnionMap:
        """All relations as one union map, padded to ``2·max_depth+1`` (or
        ``n_out``) output dimensions with zeros."""
        if n_out is None:
            n_out = 2 * self.max_depth + 1
        um = None
        for r in self.relations:
            m = isl.UnionMap.from_map(r.padded(n_out))
            um = m if um is None else um.union(m)
        if um is None:
            return isl.UnionMap("{ }")
        return um

    def normalized(self) -> "ClaySchedule":
        """β-normalization (seed 004 §4.2): dense, 0-based β values per level,
        same order.  Marks follow the loops they name."""
        mapping: dict[Beta, Beta] = {}

        def walk(prefix: Beta, new_prefix: Beta) -> None:
            for idx, kid in enumerate(self.children(prefix)):
                nk = new_prefix + (idx,)
                mapping[kid] = nk
                walk(kid, nk)

        walk((), ())
        rels = tuple(r if mapping[r.beta] == r.beta else r.with_beta(mapping[r.beta])
                     for r in self.relations)
        marks = tuple(replace(m, loop=mapping.get(m.loop, m.loop)) for m in self.marks)
        return ClaySchedule(rels, marks)

    def __str__(self) -> str:
        return "\n".join(str(r) for r in self.relations)
