"""The directive registry: one record per directive, query and control step.

Every name a script can call is one :class:`Directive`, registered with a
decorator that declares typed parameters (:mod:`.params`)::

    @directive("stripmine", Beta("beta", loop=True), Depth("depth"),
               Int("size", positive=True))
    def stripmine(scop, beta, depth, size): ...

The record says what a step of it is (:attr:`Directive.kind`):

========== ========================================= ===================== ==============
kind       what it does                              returns               checked by
========== ========================================= ===================== ==============
transform  changes dates (reorder, skew, tile …)     a new Scop            ``dates``
mark       marks a loop (parallelize, vectorize, …)  a new Scop            ``marks``
layout     changes the program (dimreorder, …)       a new Scop            ``equivalence``
query      reads the schedule (get_beta_loop, …)     a value               ``none``
control    print, break                              output text / stop    ``none``
========== ========================================= ===================== ==============

``check`` (how the session checks a step; :meth:`clayx.session.Session.plan`
groups the steps by it): ``dates`` -- the new schedule against every
dependence, and every parallel/vectorize mark; ``marks`` -- only the marks'
conditions (no date changed); ``equivalence`` -- consecutive layout steps
together, the program after them against the one before; ``none``.
``result`` names the type of the value a step gives (``int``, ``beta``;
None for none): queries return it, a transformation with a result (``a =
add_array("B");``) computes it with ``value(new_scop, *args)``.

The same registration feeds the script parser (argument checking with one
uniform message; which calls give values), REPL completion and highlighting
(:func:`names`, the parameter types), ``help`` (the docstring) and
``clayx --list`` (:func:`listing`).  A directive function only transforms:
its arguments arrive checked by their types (:meth:`Directive.bind`, then
:meth:`Directive.resolve` against the SCoP), it checks what relates them,
and returns a new :class:`~clayx.model.Scop`.  Legality is the caller's
(the session's) job, so calling a directive doubles as a dry run.

Names from other tools that clayx does not take (their arguments or
meaning differ: Exo's ``divide_loop`` names new iterators clayx cannot
name) are in :data:`FOREIGN`: calling one is refused with the clayx
directive to use instead (the README's translation table has them all).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..errors import DirectiveError
from ..model import Scop
from .params import Param, Resolution

__all__ = ["CHECKS", "CLAY_PROTOTYPES", "FOREIGN", "KINDS", "REGISTRY", "Directive", "Outcome",
           "apply", "clay_listing", "directive", "listing", "lookup", "names"]

#: The kinds of step, and how each is checked unless registered otherwise.
KINDS = ("transform", "mark", "layout", "query", "control")
CHECKS = {"transform": "dates", "mark": "marks", "layout": "equivalence",
          "query": "none", "control": "none"}


@dataclass(frozen=True)
class Outcome:
    """What one step gives: the SCoP after it, the value it returns (a
    query's, ``add_array``'s id), the text it prints, whether it ends the
    script (``break``)."""

    scop: Scop
    value: Any = None
    output: str = ""
    stop: bool = False


@dataclass(frozen=True)
class Directive:
    """A registered directive, query or control step.

    ``name`` (canonical) and ``aliases``; ``func`` ``(scop, *values)``;
    ``params`` the typed parameters; ``kind`` one of :data:`KINDS`;
    ``check`` how a step is checked (:data:`CHECKS`); ``result`` the type
    of the value it gives (None: none); ``value`` ``(new_scop, *values)
    -> value`` for a SCoP-changing directive with a result; ``stops``:
    the script ends at it (``break``); ``doc`` the docstring."""

    name: str
    func: Callable[..., Any]
    params: tuple[Param, ...]
    kind: str = "transform"
    check: str = "dates"
    result: str | None = None
    aliases: tuple[str, ...] = ()
    value: Callable[..., Any] | None = field(default=None, compare=False)
    stops: bool = False
    doc: str = ""
    order: tuple[str, ...] = ()
    pre: Callable[..., None] | None = field(default=None, compare=False)

    @property
    def signature(self) -> str:
        """``name(beta: beta(loop), size: int>0)``, ``-> type`` when it
        gives a value."""
        sig = f"{self.name}({', '.join(p.describe() for p in self.params)})"
        return sig + (f" -> {self.result}" if self.result else "")

    def bind(self, args: Sequence[Any]) -> list[Any]:
        """Phase 1: the argument count, and each argument's type
        (:meth:`~.params.Param.check`), left to right; defaults filled, a
        variadic parameter's arguments spread.  Raises
        :class:`DirectiveError` naming the argument (1-based)."""
        params = self.params
        variadic = bool(params) and params[-1].variadic
        required = sum(1 for p in params if not p.optional)
        most = None if variadic else len(params)
        if len(args) < required or most is not None and len(args) > most:
            want = (f"at least {required}" if most is None else f"{required}"
                    if required == most else f"{required} to {most}")
            raise DirectiveError(f"`{self.name}' takes {want} arguments, got {len(args)}",
                                 directive=self.name)
        out = []
        refused: dict[str, DirectiveError] = {}
        for k, p in enumerate(params):
            if p.variadic:
                out += [p.check(self.name, j + 1, v) for j, v in enumerate(args[k:], k)]
                break
            try:
                out.append(p.default if k >= len(args) else p.check(self.name, k + 1, args[k]))
            except DirectiveError as e:
                if not getattr(e, "value_check", False):
                    raise                       # a type error: Clay's call check
                refused[p.name] = e
                out.append(None)
        if refused:                             # values: in the function's order
            first = next((n for n in self.order if n in refused), None)
            raise refused[first] if first else next(iter(refused.values()))
        if self.pre is not None:
            self.pre(*out)
        return out

    def resolve(self, scop: Scop, values: Sequence[Any]) -> list[Any]:
        """Phase 2: each value bound by :meth:`bind` resolved against
        ``scop`` (:meth:`~.params.Param.resolve`), left to right: what
        the function receives."""
        ctx = Resolution(scop, self.name, self.params)
        out = []
        for k, (p, v) in enumerate(zip(self.params, values)):
            if p.variadic:
                return out + list(values[k:])
            v = p.resolve(ctx, k + 1, v)
            ctx.values[p.name] = v
            out.append(v)
        return out

    def __call__(self, scop: Scop, *args: Any) -> Any:
        """The function's result for ``args`` (checked and resolved): a new
        SCoP, a query's value, a control step's output."""
        return self.func(scop, *self.resolve(scop, self.bind(args)))

    def run(self, scop: Scop, args: Sequence[Any]) -> Outcome:
        """One step of this directive on ``scop`` as an :class:`Outcome`
        (no legality check: that is the session's, by :attr:`check`)."""
        values = self.resolve(scop, self.bind(args))
        if self.kind == "query":
            return Outcome(scop, value=self.func(scop, *values))
        if self.kind == "control":
            text = self.func(scop, *values)
            return Outcome(scop, output=text or "", stop=self.stops)
        new = self.func(scop, *values)
        return Outcome(new, value=None if self.value is None else self.value(new, *values))


REGISTRY: dict[str, Directive] = {}
_ALIASES: dict[str, str] = {}

#: Names other tools use that clayx does not take, with the clayx directive
#: to use instead: name -> (tool, what to write here).
FOREIGN: dict[str, tuple[str, str]] = {
    "divide_loop": ("Exo", "stripmine(loop, depth, size) -- clayx does not name the new "
                    "iterators, and the tail is guarded (Exo's tail='guard')"),
    "mult_loops": ("Exo", "linearize(loop, depth), the inverse of stripmine"),
    "join_loops": ("Exo", "collapse(loop), which merges the halves iss or peel made"),
    "reorder_stmts": ("Exo", "reorder(loop, order)"),
    "parallelize_loop": ("Exo", "parallelize(loop)"),
    "parallel": ("TVM/Halide", "parallelize(loop)"),
    "remove_loop": ("Exo", "unembed(stmt), for a loop of one iteration"),
    "add_loop": ("Exo", "embed(stmt), a loop of one iteration"),
}


def directive(name: str, *params: Param, kind: str = "transform", check: str | None = None,
              result: str | None = None, aliases: Sequence[str] = (),
              value: Callable[..., Any] | None = None, stops: bool = False,
              order: Sequence[str] = (), pre: Callable[..., None] | None = None,
              ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a function under ``name`` (and ``aliases``) as a step of
    ``kind``, checked by ``check`` (default: the kind's, :data:`CHECKS`),
    giving a value of type ``result`` (a query returns it; another kind
    computes it with ``value``); ``order`` and ``pre`` as in
    :class:`Directive`."""
    if kind not in KINDS:
        raise ValueError(f"unknown directive kind {kind!r}")
    check = CHECKS[kind] if check is None else check
    if check not in set(CHECKS.values()):
        raise ValueError(f"unknown check {check!r}")
    if kind == "query" and (result is None or value is not None):
        raise ValueError(f"{name}: a query returns its result (result=…, no value function)")
    if kind == "control" and (result is not None or value is not None):
        raise ValueError(f"{name}: a control step gives no value")
    if (result is None) != (value is None) and kind != "query":
        raise ValueError(f"{name}: a result needs the value function that computes it")
    if any(p.variadic for p in params[:-1]):
        raise ValueError(f"{name}: only the last parameter may be variadic")

    def deco(func: Callable[..., Any]) -> Callable[..., Any]:
        for n in (name, *aliases):
            if n in REGISTRY or n in _ALIASES or n in FOREIGN:
                raise ValueError(f"directive name {n!r} registered twice")
        d = Directive(name, func, tuple(params), kind, check, result, tuple(aliases), value,
                      stops, (func.__doc__ or "").strip(), tuple(order), pre)
        REGISTRY[name] = d
        for a in aliases:
            _ALIASES[a] = name
        return func
    return deco


def lookup(name: str) -> Directive:
    """The directive called ``name`` or one of its aliases; a
    :class:`DirectiveError` for an unknown name (saying what to use for a
    name of another tool, :data:`FOREIGN`)."""
    d = REGISTRY.get(name) or REGISTRY.get(_ALIASES.get(name, ""))
    if d is None:
        hint = ""
        if name in FOREIGN:
            tool, use = FOREIGN[name]
            hint = f" ({name} is {tool}'s name; in clayx use {use})"
        raise DirectiveError(f"unknown function `{name}'{hint}")
    return d


def names(*kinds: str) -> list[str]:
    """Every name and alias, sorted; only those of ``kinds`` when given."""
    out = [n for n, d in REGISTRY.items() if not kinds or d.kind in kinds]
    out += [a for a, n in _ALIASES.items() if not kinds or REGISTRY[n].kind in kinds]
    return sorted(out)


def listing() -> str:
    """``clayx --list``: one line per directive, query and control step
    (signature, kind, aliases), then the names of other tools that clayx
    does not take and what to use instead."""
    lines = []
    for n in sorted(REGISTRY):
        d = REGISTRY[n]
        al = f"   aliases: {', '.join(d.aliases)}" if d.aliases else ""
        lines.append(f"{d.signature}   [{d.kind}]{al}")
    lines.append("")
    lines.append("unroll and unroll_noepilog unroll in the schedule (Clay's); unroll_mark and "
                 "unroll_loop mark a loop for the compiler (#pragma GCC unroll)")
    lines.append("dimreorder, dimprivatize and dimcontract change every access to an array "
                 "(its id) under a β (Clay's); dimreorder_access, dimprivatize_access and "
                 "dimcontract_access one access (its number) of one statement")
    lines.append("datacopy puts the copy in a loop nest of its own at the top level (Clay's); "
                 "datacopy_at right before or after a statement, inside its loops")
    lines.append("")
    lines.append("names of other tools (see the README's translation table):")
    for n in sorted(FOREIGN):
        tool, use = FOREIGN[n]
        lines.append(f"  {n} ({tool}): {use}")
    return "\n".join(lines)


#: Clay's prototype strings (reference §3.8), verbatim and in the order of
#: Clay's ``--list``: what ``clayx --list --clay`` prints.
CLAY_PROTOTYPES: tuple[str, ...] = (
    "void split(array beta, uint depth)",
    "void reorder(array beta_loop, array neworder)",
    "void interchange(array beta_inner, uint depth_1, uint depth_2, bool pretty)",
    "void reverse(ident, uint depth)",
    "void fuse(array beta_loop)",
    "void skew(array beta, uint depth, uint depth_other, int coeff)",
    "void iss(array beta_loop, list inequation { ((output,) params,)) const }",
    "void stripmine(array beta, uint depth, uint size)",
    "void unroll(array beta_loop, uint factor)",
    "void unroll_noepilog(array beta_loop, uint factor)",
    "void tile(array beta, uint depth, uint depth_outer, uint size)",
    "void shift(array beta, uint depth, array params, int constant)",
    "void peel(array beta_loop,  list inequation { (params,) const })",
    "void context(array vector)",
    "void dimreorder(array beta, uint #access, array neworder)",
    "void dimprivatize(array beta, uint #access, uint depth)",
    "void dimcontract(array beta, uint #access, uint depth)",
    "int add_array(string name)",
    "array get_beta_loop(uint n >= 0)",
    "array get_beta_stmt(uint n >= 0)",
    "array get_beta_loop_by_name(string iterator)",
    "int get_array_id(string name)",
    "void print(multi)",
    "void replace_array(uint last_id, uint new_id)",
    "void datacopy(uint id_copy, uint id_orig, array beta_insert,\n"
    "                bool before, array beta_get_domain)",
    "void break()",
    "void block(array beta_stmt1, beta_stmt2)",
    "void grain(array beta, int depth, int factor)",
    "void densify(array beta, int depth)",
    "void reshape(array beta, int depth, int iterator, int amount)",
    "void collapse(array beta_loop)",
    "void linearize(array beta_loop, int depth)",
    "void embed(array beta_stmt)",
    "void unembed(array beta_stmt)",
)


def clay_listing() -> str:
    """``clayx --list --clay``: Clay's prototype strings (reference §3.8),
    one function a line in Clay's order, then Clay's aliases."""
    return "\n".join(CLAY_PROTOTYPES) + "\n\naliases: fission, distribute -> split; merge -> fuse"


def apply(scop: Scop, name: str, args: Sequence[Any]) -> Any:
    """Directive ``name`` with ``args`` on ``scop`` (no legality check):
    the new SCoP, or a query's value."""
    return lookup(name)(scop, *args)
