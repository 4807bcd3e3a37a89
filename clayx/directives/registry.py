"""The directive registry: one plain function plus one registration each.

A directive is a function ``(scop, *args) -> Scop`` registered with typed
parameters::

    @directive("stripmine", Beta("beta", loop=True), Int("size", positive=True),
               aliases=("divide_loop",))
    def stripmine(scop, beta, size): ...

The same registration feeds the script parser (argument checking with one
uniform message), REPL completion (:data:`Beta` parameters complete to
existing β-prefixes), ``help`` (the docstring) and ``clayx --list``
(:func:`listing`).  A directive function only transforms: it validates its
arguments against the schedule (raising :class:`~clayx.errors.DirectiveError`
with Clay's messages) before touching anything, and returns a new
:class:`~clayx.model.Scop`.  Legality against dependences is checked by the
caller (the session) after the step, so ``apply`` doubles as a dry run.

Integers in arguments (``int``, every item of ``ints``, ``beta`` and
``list`` parameters) are Python integers of any size in a script, but a
directive accepts only magnitudes up to ``2**63 - 1``
(:data:`~clayx.model.inttypes.INT64_MAX`): the widest iterator type of
generated code is 64 bits, and isl's integer arguments are 64-bit too.  A
larger value is refused here, uniformly, with a
:class:`~clayx.errors.DirectiveError` naming the directive and the
argument.  Values within the bound can still make dates too wide for any C
type (a shift by ``2**63 - 1`` of a loop running to ``N``): code generation
refuses those (:mod:`clayx.codegen.types`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..errors import DirectiveError
from ..model import Scop
from ..model.inttypes import INT64_MAX


@dataclass(frozen=True)
class Param:
    """A typed directive parameter.  ``kind`` is one of ``beta`` (β-vector
    or prefix), ``int``, ``ints`` (an integer array ``[1, 0]``), ``list``
    (Clay's ``{a | b | c}`` of integers or integer arrays), ``string``,
    ``bool``.  ``optional`` parameters take ``default`` when omitted."""

    name: str
    kind: str
    optional: bool = False
    default: Any = None
    loop: bool = False          # beta: must be a loop (strict β-prefix)
    statement: bool = False     # beta: must be a full β-vector
    positive: bool = False      # int: must be > 0
    nonnegative: bool = False   # int: must be >= 0

    def describe(self) -> str:
        """Short type text for signatures: ``beta(loop)``, ``int>0`` ..."""
        t = self.kind
        if self.kind == "beta":
            t = "beta(loop)" if self.loop else "beta(stmt)" if self.statement else "beta"
        elif self.kind == "int" and self.positive:
            t = "int>0"
        elif self.kind == "int" and self.nonnegative:
            t = "int>=0"
        return f"{self.name}: {t}" + (f" = {self.default!r}" if self.optional else "")


def Beta(name: str = "beta", *, loop: bool = False, statement: bool = False,
         optional: bool = False, default: Any = None) -> Param:
    """A β-vector/prefix parameter (``loop``: must be a loop; ``statement``:
    must be a statement)."""
    return Param(name, "beta", optional, default, loop=loop, statement=statement)


def Int(name: str, *, positive: bool = False, nonnegative: bool = False,
        optional: bool = False, default: Any = None) -> Param:
    """An integer parameter."""
    return Param(name, "int", optional, default, positive=positive, nonnegative=nonnegative)


def Ints(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """An integer array parameter ``[a, b, …]``."""
    return Param(name, "ints", optional, default)


def List(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """A Clay list ``{a | b | …}`` whose items are integers or integer arrays."""
    return Param(name, "list", optional, default)


def String(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """A string parameter (``"i"``)."""
    return Param(name, "string", optional, default)


def Bool(name: str, *, optional: bool = False, default: Any = None) -> Param:
    """A boolean parameter (``true``/``false``, or an integer: non-zero is
    true, as in Clay)."""
    return Param(name, "bool", optional, default)


@dataclass(frozen=True)
class Directive:
    """A registered directive: its canonical name, aliases, parameters,
    function and docstring.  ``marks_only``: it changes no dates (parallelize,
    vectorize, unroll), so only its own condition needs checking."""

    name: str
    func: Callable[..., Scop]
    params: tuple[Param, ...]
    aliases: tuple[str, ...] = ()
    marks_only: bool = False
    doc: str = ""

    @property
    def signature(self) -> str:
        """``name(beta: beta(loop), size: int>0)``."""
        return f"{self.name}({', '.join(p.describe() for p in self.params)})"

    def bind(self, args: Sequence[Any]) -> list[Any]:
        """Check the argument count and kinds; fill defaults.  As in Clay,
        ``true``/``false`` are the integers 1/0 and an integer is accepted
        where a boolean is expected (non-zero is true).  Raises
        :class:`DirectiveError` naming the argument (1-based)."""
        required = sum(1 for p in self.params if not p.optional)
        if not required <= len(args) <= len(self.params):
            want = (f"{required}" if required == len(self.params)
                    else f"{required} to {len(self.params)}")
            raise DirectiveError(f"expected {want} arguments, got {len(args)}",
                                 directive=self.name)
        out = []
        for k, p in enumerate(self.params):
            if k >= len(args):
                out.append(p.default)
                continue
            out.append(_check(self.name, k + 1, p, args[k]))
        return out

    def __call__(self, scop: Scop, *args: Any) -> Scop:
        return self.func(scop, *self.bind(args))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: How an argument beyond the 64-bit bound is described in the error.
_WIDE = f"of at most 64 bits (magnitude up to 2^63 - 1 = {INT64_MAX})"


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


def _check(dname: str, pos: int, p: Param, v: Any) -> Any:
    def bad(what: str) -> DirectiveError:
        return DirectiveError(f"'{p.name}': expected {what}, got {v!r}",
                              directive=dname, argument=pos)

    # Clay's booleans are integers and its integers booleans (reference 3.3)
    if p.kind == "bool":
        if not isinstance(v, int):
            raise bad("true, false or an integer")
        return bool(v)
    v = _clay_ints(v)

    if p.kind in ("int", "ints", "beta", "list") and _wide(v):
        raise bad(("an integer " if p.kind == "int" else "integers ") + _WIDE)
    if p.kind == "int":
        if not _is_int(v):
            raise bad("an integer")
        if p.positive and v <= 0:
            raise bad("a positive integer")
        if p.nonnegative and v < 0:
            raise bad("a non-negative integer")
        return v
    if p.kind in ("ints", "beta"):
        if not isinstance(v, (list, tuple)) or not all(_is_int(x) for x in v):
            raise bad("an integer array [a, b, …]" if p.kind == "ints" else "a β-vector [a, b, …]")
        if p.kind == "beta" and any(x < 0 for x in v):
            raise bad("a β-vector of non-negative integers")
        return tuple(v)
    if p.kind == "list":
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
    if p.kind == "string":
        if not isinstance(v, str):
            raise bad("a string")
        return v
    raise AssertionError(p.kind)


REGISTRY: dict[str, Directive] = {}
_ALIASES: dict[str, str] = {}


def directive(name: str, *params: Param, aliases: Sequence[str] = (),
              marks_only: bool = False) -> Callable[[Callable[..., Scop]], Callable[..., Scop]]:
    """Register a directive function under ``name`` (and ``aliases``)."""
    def deco(func: Callable[..., Scop]) -> Callable[..., Scop]:
        for n in (name, *aliases):
            if n in REGISTRY or n in _ALIASES:
                raise ValueError(f"directive name {n!r} registered twice")
        d = Directive(name, func, tuple(params), tuple(aliases), marks_only,
                      (func.__doc__ or "").strip())
        REGISTRY[name] = d
        for a in aliases:
            _ALIASES[a] = name
        return func
    return deco


def lookup(name: str) -> Directive:
    """The directive called ``name`` or one of its aliases."""
    d = REGISTRY.get(name) or REGISTRY.get(_ALIASES.get(name, ""))
    if d is None:
        raise DirectiveError(f"unknown directive {name!r}")
    return d


def names() -> list[str]:
    """Every directive name and alias, sorted."""
    return sorted([*REGISTRY, *_ALIASES])


def listing() -> str:
    """One line per directive: signature and aliases (``clayx --list``)."""
    lines = []
    for n in sorted(REGISTRY):
        d = REGISTRY[n]
        al = f"   aliases: {', '.join(d.aliases)}" if d.aliases else ""
        lines.append(f"{d.signature}{al}")
    return "\n".join(lines)


def apply(scop: Scop, name: str, args: Sequence[Any]) -> Scop:
    """Apply directive ``name`` with ``args`` (schedule only; no legality)."""
    return lookup(name)(scop, *args)

