"""Named sets of options for isl's scheduler (seed 001 §4, §6, §7).

A :class:`Preset` says which dependences become which schedule constraints
(seed 001 §4.3) and which isl scheduler options are set while the schedule
is computed.  Every option can be overridden (:func:`resolve`), by its isl
name with or without the ``schedule_`` prefix (``outer_coincidence=1``,
``schedule_serialize_sccs=1``), and the constraint kinds by ``validity=``,
``proximity=``, ``coincidence=`` (tuples of ``RAW``/``WAR``/``WAW``/``RAR``).

What the isl options do (isl's documentation and seed 001):

- ``algorithm``: 0 isl's Pluto-style scheduler with a Feautrier fallback
  (§6.2), 1 Feautrier's scheduler alone (§6.4: carry as many dependences
  as possible at each level, fine-grained parallelism).
- ``outer_coincidence``: force every band to have an outer coincident
  (parallel) member, falling back to one Feautrier step when impossible
  (§6.2; PPCG's setting).  Off for CPU: it leaves stencils with a
  one-member outer band (DESIGN.md).
- ``maximize_band_depth``: when a band can no longer be extended, split the
  graph and retry to get deeper (more tilable) bands (§6.5.8).
- ``maximize_coincidence``: reject a combination of clusters that has fewer
  coincident members than its parts (§7.3.5).
- ``whole_component``: schedule a whole weakly connected component at once
  instead of incrementally combining strongly connected components (§7.3):
  the most fusion isl attempts.
- ``serialize_sccs``: one sequence node with a child per strongly connected
  component (§6.1): no fusion across components.
- ``separate_components``: a set node per weakly connected component (§6.1).
- ``treat_coalescing``, ``max_coefficient``, ``max_constant_term``: keep
  coefficients small (§6.6.2, §7.5); every preset but ``maxfuse`` bounds
  the constant term (:data:`MAX_CONSTANT_TERM`), for speed, not shape.
- ``carry_self_first``, ``split_scaled``: Feautrier fallback refinements
  (§7.6, §7.1).
- ``parametric``: isl's ``schedule_parametric``: the schedule rows may
  have coefficients on the parameters (parametric shifts such as
  ``S[i] -> [n + i]``), on by default (PPCG keeps it).  Pluto's ILP has
  none.  islpy has no setter for it: :mod:`.islargs` sets it.  Only
  ``nofuse`` turns it off (:data:`NOFUSE_PARAMETRIC`).

The order in which the dependences are handed to isl is part of every
preset too: isl breaks ties by the order of its edges, and
:func:`~.scheduler.edge_order` fixes it (kind, then source and sink
statement, then references, in program order).

``scripts/bench_whitebox.py --presets [--only gemm,lu]`` times every preset
per kernel (isl scheduling with post-processing, and whiteboxing of its
schedule) and prints the recovered length or the error of each.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping

from ..errors import ClayxError

__all__ = ["ISL_OPTIONS", "MAX_CONSTANT_TERM", "NOFUSE_PARAMETRIC", "PRESETS", "Preset", "resolve"]

#: Every isl scheduler option a preset may set (isl's names without the
#: ``schedule_`` prefix), with isl's own default.
ISL_OPTIONS: dict[str, int] = {
    "algorithm": 0,
    "carry_self_first": 1,
    "max_coefficient": -1,
    "max_constant_term": -1,
    "maximize_band_depth": 0,
    "maximize_coincidence": 0,
    "outer_coincidence": 0,
    "parametric": 1,
    "separate_components": 1,
    "serialize_sccs": 0,
    "split_scaled": 1,
    "treat_coalescing": 1,
    "whole_component": 0,
}

#: options that isl parses as booleans from text (``--no-schedule-parametric``),
#: not through a setter that takes any integer: 0 or 1 only
_BOOLEAN = ("parametric",)

_KINDS = ("RAW", "WAR", "WAW", "RAR")
_VALIDITY = ("RAW", "WAR", "WAW")


@dataclass(frozen=True)
class Preset:
    """A named scheduler configuration.

    ``validity``, ``proximity``, ``coincidence``: the dependence kinds that
    form each kind of schedule constraint; ``options``: isl scheduler
    options (names of :data:`ISL_OPTIONS`) set while scheduling, the others
    keep isl's default; ``doc``: one line for ``--help``.
    """

    name: str
    doc: str
    validity: tuple[str, ...] = _VALIDITY
    proximity: tuple[str, ...] = _VALIDITY + ("RAR",)
    coincidence: tuple[str, ...] = _VALIDITY
    options: Mapping[str, int] = field(default_factory=dict)

    def isl_options(self) -> dict[str, int]:
        """Every isl scheduler option with the value this preset uses."""
        out = dict(ISL_OPTIONS)
        out.update(self.options)
        return out


#: Bound on the constant term of every schedule row (isl's
#: ``schedule_max_constant_term``, unbounded by default), far above any
#: constant a schedule of real code needs.  A bound makes isl's ILPs bounded
#: in those variables, and its search for non-trivial rows ends sooner: adi's
#: 14-statement strongly connected component, which is most of its
#: scheduling time, takes 0.64-0.72x the time unbounded (medians of pairwise
#: ratios, 7-9 interleaved runs, any bound from 16 to 2**30); the other
#: kernels are within noise.  The ``cpu``, ``gpu``, ``feautrier`` and
#: ``nofuse`` schedules of all 31 examples are the same as unbounded;
#: ``maxfuse``'s are not (adi's and deriche's scalar statements group
#: differently), so it keeps isl's default.
MAX_CONSTANT_TERM = 1 << 20

#: ``schedule_parametric`` under ``nofuse``: off.  Without fusion across
#: strongly connected components isl's parametric shifts change nothing on
#: the 31 examples (the same trees) and its scheduler takes 0.47x the time
#: (adi 0.27x, deriche 0.58x; medians of 5 interleaved runs, process time).
#: Under ``cpu`` it stays on (isl's default): off there changes 11 trees and
#: the code of adi, correlation, covariance and gemver, gemver losing its
#: four parallel loops (:mod:`.scheduler`'s docstring has the numbers).
NOFUSE_PARAMETRIC = 0

_CPU = dict(algorithm=0, outer_coincidence=0, maximize_band_depth=1,
            max_constant_term=MAX_CONSTANT_TERM)

#: The presets, by name.
PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("cpu", "Pluto-like: validity RAW+WAR+WAW, proximity the same + RAR, "
                  "coincidence = validity, no forced outer coincidence, maximal band depth",
           options=_CPU),
    Preset("gpu", "PPCG-like: outer coincidence forced (a parallel outer loop in every "
                  "band), proximity RAW+WAR+WAW",
           proximity=_VALIDITY,
           options=dict(_CPU, outer_coincidence=1)),
    Preset("feautrier", "Feautrier's scheduler alone: carry as many dependences as early "
                        "as possible (fine-grained, inner parallelism)",
           options=dict(_CPU, algorithm=1)),
    Preset("nofuse", "cpu, with no fusion across strongly connected components "
                     "(serialize_sccs) nor parametric shifts (schedule_parametric=0)",
           options=dict(_CPU, serialize_sccs=1, parametric=NOFUSE_PARAMETRIC)),
    Preset("maxfuse", "cpu, scheduling each connected component as a whole "
                      "(whole_component): the most fusion isl attempts",
           options=dict(_CPU, whole_component=1, max_constant_term=-1)),
)}


def resolve(preset: str | Preset, overrides: Mapping[str, object] | None = None) -> Preset:
    """The preset named ``preset`` with ``overrides`` applied.

    Overrides are isl option names (with or without ``schedule_``) mapped to
    integers (booleans are 0/1), or ``validity``/``proximity``/
    ``coincidence`` mapped to dependence kinds.  An unknown preset or option,
    or a value of the wrong type, is a :class:`~clayx.errors.ClayxError`
    naming it and what is accepted."""
    if isinstance(preset, Preset):
        p = preset
    else:
        if preset not in PRESETS:
            raise ClayxError(f"unknown scheduling preset {preset!r} "
                             f"(expected one of {', '.join(PRESETS)})")
        p = PRESETS[preset]
    options = dict(p.options)
    kinds: dict[str, tuple[str, ...]] = {}
    for key, value in (overrides or {}).items():
        name = key[len("schedule_"):] if key.startswith("schedule_") else key
        if name in ("validity", "proximity", "coincidence"):
            vals = (value,) if isinstance(value, str) else tuple(value)  # type: ignore[arg-type]
            bad = [v for v in vals if v not in _KINDS]
            if bad:
                raise ClayxError(f"{name}: unknown dependence kind(s) {', '.join(map(str, bad))} "
                                 f"(expected {', '.join(_KINDS)})")
            kinds[name] = vals
            continue
        if name not in ISL_OPTIONS:
            raise ClayxError(f"unknown isl scheduler option {key!r} (expected one of "
                             f"{', '.join(sorted(ISL_OPTIONS))}, or validity, proximity, "
                             "coincidence)")
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, int):
            raise ClayxError(f"isl scheduler option {key!r} takes an integer, got {value!r}")
        if name in _BOOLEAN and value not in (0, 1):
            raise ClayxError(f"isl scheduler option {key!r} is 0 or 1, got {value!r}")
        options[name] = value
    if "validity" in kinds and not set(_VALIDITY) <= set(kinds["validity"]):
        raise ClayxError("validity must include RAW, WAR and WAW (a schedule that ignores "
                         "one of them can break the program)")
    return replace(p, options=options, **kinds)
