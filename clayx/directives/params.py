"""Typed directive parameters: each type checks its argument once, with one
message, and hands the directive function a checked value.

A parameter is checked in two phases, both run by
:class:`~.registry.Directive` before the directive function is called:

1. :meth:`Param.check` -- the value's *type*, without the SCoP: an integer,
   a β-vector of non-negative integers, a positive integer, at most 64 bits
   (``'size': expected a positive integer, got 0``).  Every argument of a
   call is checked this way, left to right, before any is resolved.
2. :meth:`Param.resolve` -- the value's *meaning* in the current SCoP,
   left to right: a :func:`Beta` must name a loop or a statement that
   exists (Clay's "the beta vector was not found", "the beta is not a
   loop", "the beta is not a statement"), a :func:`Depth` must be a loop
   (or subscript) that the β names (Clay's "depth overflow"), an
   :func:`AccessNumber` an access of the statement, an :func:`ArrayId` an array.

So ``stripmine([9], 1, 0)`` is refused for its size (phase 1) before its
β is looked up, and ``tile([0], 3, 1, 4)`` for its depth only once its β
is known to be a loop -- the order in which the hand-written checks of
each directive used to fire.  Checks that relate several arguments in a
way no type expresses (``skew`` by the same depth, ``split_children``'s
child count, an inequality's coefficients) stay in the directive
function, after these.

Integers in arguments (``int``, every item of ``ints``, ``beta`` and
``list`` parameters) are Python integers of any size in a script, but a
directive accepts only magnitudes up to ``2**63 - 1``
(:data:`~clayx.model.inttypes.INT64_MAX`): the widest iterator type of
generated code is 64 bits, and isl's integer arguments are 64-bit too.  A
larger value is refused uniformly in phase 1.  Values within the bound can
still make dates too wide for any C type (a shift by ``2**63 - 1`` of a
loop running to ``N``): code generation refuses those
(:mod:`clayx.codegen.types`).  As in Clay, ``true``/``false`` are the
integers 1/0 and an integer is accepted where a boolean is expected
(non-zero is true).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import islpy as isl

from ..errors import DirectiveError
from ..model.inttypes import INT64_MAX

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..model import Scop, Statement

__all__ = ["ACCESS_NOT_FOUND", "ARRAY_NOT_FOUND", "BAD_INEQUALITY", "BLOCK_VALUE",
           "DEPTH_OVERFLOW", "EMPTY", "NEED_LOOP", "NOT_A_LOOP", "NOT_A_STATEMENT", "NOT_FOUND",
           "ORDER_TOO_SMALL", "VECTOR_WRONG", "WRONG_COEFFICIENT", "WRONG_FACTOR", "AccessNumber", "AccessParam", "ArrayId", "ArrayIdParam",
           "Beta", "BetaParam", "Bool", "Depth", "DepthParam", "Int", "Ints", "List", "Param",
           "Resolution", "String", "Value", "id_range"]

# Clay's messages (clay/errors.h wording) for the arguments the types check.
NOT_FOUND = "the beta vector was not found"
NOT_A_LOOP = "the beta is not a loop"
NOT_A_STATEMENT = "the beta is not a statement"
EMPTY = "the beta vector is empty"
DEPTH_OVERFLOW = "depth overflow"
WRONG_COEFFICIENT = "wrong coefficient"
WRONG_FACTOR = "wrong factor"
BLOCK_VALUE = "block value is incorrect"
VECTOR_WRONG = "the vector seems to be wrong"
NEED_LOOP = "the beta need to be in a loop"
BAD_INEQUALITY = "the inequality seems to be wrong"
ORDER_TOO_SMALL = "the order array is too small"
ACCESS_NOT_FOUND = "access not found"
ARRAY_NOT_FOUND = "the array was not found"

#: How an argument beyond the 64-bit bound is described in the error.
_WIDE = f"of at most 64 bits (magnitude up to 2^63 - 1 = {INT64_MAX})"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _wide(v: Any) -> bool:
    """Whether ``v`` (an integer or a nested sequence of them) holds an
    integer beyond :data:`INT64_MAX` in magnitude."""
    if isinstance(v, (list, tuple)):
        return any(_wide(x) for x in v)
    return _is_int(v) and abs(v) > INT64_MAX


def _clay_ints(v: Any) -> Any:
    """``v`` with Clay's integer booleans made integers (``true`` is 1,
    ``false`` 0, in arrays and lists too)."""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (list, tuple)):
        return tuple(_clay_ints(x) for x in v)
    return v


def id_range(ids: dict[str, int]) -> str:
    """The array ids of ``ids`` (name -> id) as text: ``1..5``, or ``4..8,
    10`` where OpenScop's ids have gaps."""
    out: list[list[int]] = []
    for k in sorted(ids.values()):
        if out and k == out[-1][-1] + 1:
            out[-1].append(k)
        else:
            out.append([k])
    return ", ".join(f"{r[0]}..{r[-1]}" if len(r) > 1 else str(r[0]) for r in out) or "none"


def _value_error(message: str, directive: str, pos: int) -> DirectiveError:
    """A phase-1 refusal of a *value* (not a type): Clay checks these in
    each function's own order, after every argument's type
    (:meth:`~.registry.Directive.bind`)."""
    e = DirectiveError(message, directive=directive, argument=pos)
    e.value_check = True
    return e


class Resolution:
    """What :meth:`Param.resolve` sees: the SCoP, the directive's name and
    parameters, and the values resolved so far (by parameter name), with
    the look-ups several types share."""

    def __init__(self, scop: "Scop", directive: str, params: Sequence["Param"]):
        self.scop = scop
        self.directive = directive
        self.params = {p.name: p for p in params}
        self.values: dict[str, Any] = {}

    def error(self, message: str, argument: int) -> DirectiveError:
        """A :class:`DirectiveError` of this directive blaming ``argument``."""
        return DirectiveError(message, directive=self.directive, argument=argument)

    def beta(self, name: str) -> tuple[int, ...]:
        """The resolved β of parameter ``name``."""
        return self.values[name]

    def statement(self, name: str) -> "Statement":
        """The statement that the resolved statement β of ``name`` names."""
        scop = self.scop
        return scop.statement(scop.schedule.relation(self.beta(name)).stmt)

    def access(self, name: str):
        """``(statement, access)`` for the resolved access number of
        parameter ``name`` (an :func:`AccessNumber`)."""
        st = self.statement(self.params[name].of)
        return st, st.accesses[self.values[name] - 1]


@dataclass(frozen=True)
class Param:
    """A typed directive parameter.  ``kind`` is one of ``beta`` (β-vector
    or prefix), ``int``, ``ints`` (an integer array ``[1, 0]``), ``list``
    (Clay's ``{a | b | c}`` of integers or integer arrays), ``string``,
    ``bool``, ``value`` (anything: ``print``'s).  ``optional`` parameters
    take ``default`` when omitted (and are not resolved then); a
    ``variadic`` last parameter takes any number of arguments."""

    name: str
    kind: str
    optional: bool = False
    default: Any = None
    positive: bool = False      # int: must be > 0
    nonnegative: bool = False   # int: must be >= 0
    variadic: bool = False      # value: takes the remaining arguments
    nonzero: bool = False       # int: must not be 0 (Clay's "== 0" tests)
    clay: str | None = None     # int: Clay's message when a value test fails
    strict: bool = False        # list: a script's array literal is refused

    def describe(self) -> str:
        """Short type text for signatures: ``beta(loop)``, ``int>0`` ..."""
        t = self.kind
        if self.kind == "int" and self.positive:
            t = "int>0"
        elif self.kind == "int" and self.nonnegative:
            t = "int>=0"
        elif self.kind == "value":
            t = "any" + ("..." if self.variadic else "")
        return f"{self.name}: {t}" + (f" = {self.default!r}" if self.optional
                                      and not self.variadic else "")

    def check(self, directive: str, pos: int, v: Any) -> Any:
        """Phase 1: ``v`` checked against the kind (no SCoP needed) and
        normalized (arrays become tuples); :class:`DirectiveError` naming
        the argument ``pos`` (1-based) otherwise."""
        def bad(what: str) -> DirectiveError:
            return DirectiveError(f"invalid type: '{self.name}': expected {what}, got {v!r}",
                                  directive=directive, argument=pos)

        kind = self.kind
        if kind == "value":
            return v
        # Clay's booleans are integers and its integers booleans (reference 3.3)
        if kind == "bool":
            if not isinstance(v, int):
                raise bad("true, false or an integer")
            return bool(v)
        # no coercion between a script's arrays and lists (reference 3.3)
        clay_type = getattr(v, "clay_type", None)
        if kind in ("ints", "beta") and clay_type == "list":
            raise bad("an integer array [a, b, …]" if kind == "ints" else "a β-vector [a, b, …]")
        if kind == "list" and self.strict and clay_type == "array":
            raise bad("a list {a | b | …}")
        v = _clay_ints(v)
        if kind in ("int", "ints", "beta", "list") and _wide(v):
            raise bad(("an integer " if kind == "int" else "integers ") + _WIDE)
        if kind == "int":
            if not _is_int(v):
                raise bad("an integer")
            if self.clay is not None and (self.nonzero and v == 0
                                          or self.positive and v <= 0):
                raise _value_error(f"{self.clay} ('{self.name}' is {v})", directive, pos)
            if self.positive and v <= 0:
                raise bad("a positive integer")
            if self.nonnegative and v < 0:
                raise bad("a non-negative integer")
            return v
        if kind in ("ints", "beta"):
            if not isinstance(v, (list, tuple)) or not all(_is_int(x) for x in v):
                raise bad("an integer array [a, b, …]" if kind == "ints"
                          else "a β-vector [a, b, …]")
            if kind == "beta" and any(x < 0 for x in v):
                raise bad("a β-vector of non-negative integers")
            if (kind == "beta" and not v and getattr(self, "lookup", False)
                    and not getattr(self, "root", True) and getattr(self, "empty", None)):
                # Clay refuses the empty β before any other check
                raise _value_error(self.empty, directive, pos)
            return tuple(v)
        if kind == "list":
            if not isinstance(v, (list, tuple)):
                raise bad("a list {a | b | …}")
            items = []
            for x in v:
                if _is_int(x):
                    items.append(x)
                elif isinstance(x, (list, tuple)) and all(_is_int(y) for y in x):
                    items.append(tuple(x))
                else:
                    raise bad("a list of integers or integer arrays")
            return tuple(items)
        if kind == "string":
            if not isinstance(v, str):
                raise bad("a string")
            return v
        raise AssertionError(kind)

    def resolve(self, ctx: Resolution, pos: int, v: Any) -> Any:
        """Phase 2: ``v`` (checked by :meth:`check`) against the SCoP; the
        value the directive function receives.  Plain types pass it on."""
        return v


def Int(name: str, *, positive: bool = False, nonnegative: bool = False,
        nonzero: bool = False, clay: str | None = None,
        optional: bool = False, default: Any = None) -> Param:
    """An integer parameter; ``nonzero``/``positive`` refuse 0 / values
    below 1 before any β is looked up, with Clay's message ``clay`` when
    given (``stripmine``'s size: "block value is incorrect")."""
    return Param(name, "int", optional, default, positive=positive, nonnegative=nonnegative,
                 nonzero=nonzero, clay=clay)


def Ints(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """An integer array parameter ``[a, b, …]``."""
    return Param(name, "ints", optional, default)


def List(name: str, *, strict: bool = False, optional: bool = False,
         default: Any = None) -> Param:
    """A Clay list ``{a | b | …}`` whose items are integers or integer
    arrays; ``strict``: a script's array literal ``[…]`` is a type error
    there, as in Clay (else it is taken as a list of integers)."""
    return Param(name, "list", optional, default, strict=strict)


def String(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """A string parameter (``"i"``)."""
    return Param(name, "string", optional, default)


def Bool(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """A boolean parameter (``true``/``false``, or an integer: non-zero is
    true, as in Clay)."""
    return Param(name, "bool", optional, default)


def Value(name: str, *, variadic: bool = False) -> Param:
    """A parameter taking any value (``print``'s); ``variadic``: all the
    remaining arguments."""
    return Param(name, "value", optional=variadic, default=(), variadic=variadic)


# --- β ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class BetaParam(Param):
    """A β-vector or β-prefix, resolved against the schedule.

    ``loop``: it must be a loop (a strict prefix of some β-vector);
    ``statement``: a full β-vector; neither: a loop or a statement.
    ``root``: the empty β (the whole SCoP) is accepted.  Otherwise the
    empty β is refused with ``empty`` (Clay's "the beta vector is
    empty"), or, when ``empty`` is None, as what it is not: the root is
    no loop ("the beta is not a loop"), no statement ("the beta is not a
    statement"), and not a loop-or-statement target ("the beta vector
    was not found").  Checks, in order: empty; exists (some β-vector
    starts with it, "the beta vector was not found"); loop or statement.
    The function receives the β as a tuple.  ``lookup`` false: only the
    type is checked, the directive looks the β up itself (where Clay
    checks other arguments between the empty β and the look-up).
    ``in_loop``: after the look-up, the first statement the β matches
    (Clay's common-prefix match, reference 4.1) must be in a loop, else
    "the beta need to be in a loop" (stripmine's and tile's check on the
    first part of the first matching statement, before "not a loop")."""

    loop: bool = False
    statement: bool = False
    root: bool = False
    empty: str | None = EMPTY
    lookup: bool = True
    in_loop: bool = False

    def describe(self) -> str:
        t = "beta(loop)" if self.loop else "beta(stmt)" if self.statement else "beta"
        return f"{self.name}: {t}" + (f" = {self.default!r}" if self.optional else "")

    def resolve(self, ctx: Resolution, pos: int, beta: Any) -> Any:
        if beta is None or not self.lookup:
            return beta
        sched = ctx.scop.schedule
        if not beta:
            if self.root:
                return beta
            if self.empty is not None:
                raise ctx.error(self.empty, pos)
        if not sched.exists(beta):
            raise ctx.error(NOT_FOUND, pos)
        if self.in_loop:
            from .common import clay_matching       # common imports this module
            first = clay_matching(ctx.scop, beta)[0].stmt
            if len(sched.of(first)[0].beta) == 1:
                raise ctx.error(NEED_LOOP, pos)
        if self.loop and not sched.is_loop(beta):
            raise ctx.error(NOT_A_LOOP, pos)
        if self.statement and not sched.is_statement(beta):
            raise ctx.error(NOT_A_STATEMENT, pos)
        if not beta:
            raise ctx.error(NOT_FOUND, pos)
        return beta


def Beta(name: str = "beta", *, loop: bool = False, statement: bool = False,
         root: bool = False, empty: str | None = EMPTY, lookup: bool = True,
         in_loop: bool = False, optional: bool = False, default: Any = None) -> BetaParam:
    """A β parameter resolved against the schedule (see :class:`BetaParam`):
    ``loop`` (must be a loop), ``statement`` (must be a statement),
    ``root`` (``[]`` accepted), ``empty`` (the message for ``[]``),
    ``lookup`` (false: the directive looks it up, in Clay's order),
    ``in_loop`` (the first statement it matches must be in a loop)."""
    return BetaParam(name, "beta", optional, default, loop=loop, statement=statement,
                     root=root, empty=empty, lookup=lookup, in_loop=in_loop)


# --- depths ----------------------------------------------------------------------------------

#: The bounds a :func:`Depth` may have (see :class:`DepthParam`).
_BOUNDS = ("loops", "path", "enclosing", "iterators", "subscripts", "outer")


@dataclass(frozen=True)
class DepthParam(Param):
    """A 1-based depth, checked against what another parameter ``of``
    names (resolved before it).  ``bound`` says which range:

    - ``loops``: the loops every relation under the β has (``1..n``, n
      the smallest loop count among them), less ``inner`` (a depth whose
      ``inner`` loops inside must exist too: ``reorder_loops`` takes 1);
    - ``path``: the loops along the β itself, ``1..len(β)`` (marks);
    - ``enclosing``: the loops strictly around the β, ``1..len(β) - 1``
      (``split``);
    - ``iterators``: the original iterators of the statement the β names
      (``dimprivatize_access``);
    - ``subscripts``: the subscripts of the access ``of`` names
      (``dimcontract_access``);
    - ``outer``: a depth at most the depth ``of`` (``tile``'s
      ``depth_outer``), "the depth is not 'outer'" above it.

    Out of range is Clay's "depth overflow", with the range."""

    of: str = "beta"
    bound: str = "loops"
    inner: int = 0

    def resolve(self, ctx: Resolution, pos: int, d: Any) -> Any:
        if d is None:
            return None
        bound = self.bound
        if bound == "outer":
            if d < 1:
                raise ctx.error(DEPTH_OVERFLOW, pos)
            if d > ctx.values[self.of]:
                raise ctx.error(f"the depth is not 'outer' ({self.name} must not exceed "
                                f"{self.of})", pos)
            return d
        if bound == "iterators":
            st = ctx.statement(self.of)
            if not 1 <= d <= st.dim:
                raise ctx.error(f"{DEPTH_OVERFLOW}: {st.name} is in {st.dim} loops, got "
                                f"depth {d}", pos)
            return d
        if bound == "subscripts":
            _, a = ctx.access(self.of)
            n = a.relation.dim(isl.dim_type.out)
            if not 1 <= d <= n:
                raise ctx.error(f"{DEPTH_OVERFLOW}: `{a.text or a.array}` has {n} "
                                f"subscripts, got {d}", pos)
            return d
        beta = ctx.beta(self.of)
        if bound == "loops":
            hi = min(r.depth for r in ctx.scop.schedule.relations_under(beta)) - self.inner
        elif bound == "path":
            hi = len(beta)
        else:                               # enclosing
            hi = len(beta) - 1
        if not 1 <= d <= hi:
            raise ctx.error(f"{DEPTH_OVERFLOW} (expected 1..{hi}, got {d})" if hi >= 1
                            else DEPTH_OVERFLOW, pos)
        return d


def Depth(name: str = "depth", *, of: str = "beta", bound: str = "loops", inner: int = 0,
          positive: bool = False, zero: bool = True, optional: bool = False,
          default: Any = None) -> DepthParam:
    """A depth parameter checked against what parameter ``of`` names
    (see :class:`DepthParam` for the ``bound`` kinds); ``positive``
    refuses ``d <= 0`` already in phase 1, ``zero`` (the default) refuses
    ``d == 0`` there, as Clay does before looking the β up ("depth
    overflow"); a negative depth is refused in phase 2, after the β."""
    if bound not in _BOUNDS:
        raise ValueError(f"unknown depth bound {bound!r} (one of {', '.join(_BOUNDS)})")
    return DepthParam(name, "int", optional, default, positive=positive, of=of, bound=bound,
                      inner=inner, nonzero=zero or positive, clay=DEPTH_OVERFLOW)


# --- accesses and arrays ------------------------------------------------------------------------

@dataclass(frozen=True)
class AccessParam(Param):
    """The 1-based number of an access of the statement that the
    statement β ``of`` names (OpenScop order: the reads left to right,
    then the write); "access not found" beyond its accesses."""

    of: str = "stmt"

    def describe(self) -> str:
        return f"{self.name}: access"

    def resolve(self, ctx: Resolution, pos: int, k: Any) -> Any:
        st = ctx.statement(self.of)
        if not 1 <= k <= len(st.accesses):
            raise ctx.error(f"{ACCESS_NOT_FOUND}: {st.name} has {len(st.accesses)} accesses "
                            f"(numbered from 1), got {k}", pos)
        return k


def AccessNumber(name: str = "access", *, of: str = "stmt") -> AccessParam:
    """An access number of the statement named by parameter ``of``."""
    return AccessParam(name, "int", positive=True, of=of)


@dataclass(frozen=True)
class ArrayIdParam(Param):
    """A 1-based array id (OpenScop's ``<arrays>`` numbering,
    :func:`~.layout.array_ids`), resolved to the array's *name*: the
    directive function receives the name (with ``lookup`` false, the id,
    whatever it is).  ``unlike``: an earlier array id parameter it must
    differ from, refused with the message ``same``."""

    unlike: str | None = None
    same: str = ""
    lookup: bool = True

    def describe(self) -> str:
        return f"{self.name}: array id"

    def resolve(self, ctx: Resolution, pos: int, ident: Any) -> Any:
        if not self.lookup:
            return ident
        from .layout import array_ids
        ids = array_ids(ctx.scop)
        name = next((n for n, k in ids.items() if k == ident), None)
        if name is None:
            raise ctx.error(f"{ARRAY_NOT_FOUND}: no array has the id {ident} "
                            f"(ids {id_range(ids)})", pos)
        if self.unlike is not None and ctx.values[self.unlike] == name:
            raise ctx.error(f"{self.same} ({name})", pos)
        return name


def ArrayId(name: str, *, unlike: str | None = None, same: str = "",
            lookup: bool = True) -> ArrayIdParam:
    """An array id parameter, resolved to the array's name; ``unlike`` the
    name of an earlier one it must differ from (message ``same``).
    ``lookup`` false: any integer, passed on as it is (Clay's dim*
    directives warn, rather than fail, when no access has the id)."""
    return ArrayIdParam(name, "int", positive=lookup, unlike=unlike, same=same, lookup=lookup)
