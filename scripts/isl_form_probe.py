#!/usr/bin/env python3
"""The *form* of isl's schedule constraints against the cost of isl's scheduler.

Builds the schedule constraints of one example exactly as
:func:`clayx.auto.scheduler.schedule_tree` does
(:func:`clayx.auto.scheduler.schedule_constraints`), rewrites every map of
the validity, proximity and coincidence unions with a named *form* (the
same relations, written differently: coalesced, redundancies removed, basic
maps reordered...), runs isl's scheduler and prints, per form, a hash of the
schedule tree's text, the number of basic maps, the number of constraints of
the Farkas (coefficient) sets isl builds from them (an estimate of the size
of its LPs) and the instructions isl's scheduler executes.

The instructions are counted by valgrind's callgrind (deterministic, blind
to the machine's load), restricted to ``isl_schedule_constraints_compute_schedule``
and instrumenting only around that call (a tiny helper library issuing
callgrind's client requests is compiled with gcc into ``/tmp`` on first use):

    python scripts/isl_form_probe.py adi deriche --form none,coalesce --count
    python scripts/isl_form_probe.py --all --form none,coalesce --check   # trees, 31 x presets
    python scripts/isl_form_probe.py adi --form none --farkas              # Farkas sizes only

``--preset`` (default ``cpu``) picks the preset; ``--check`` compares, for
every example and every preset of :data:`clayx.auto.PRESETS` (or those
given), the tree of each form with the tree of ``none`` (today's form) and
lists the differences; ``--profile DIR`` keeps callgrind's output files
there for ``callgrind_annotate``.  The forms are :data:`FORMS` (one map at
a time; ``shuf_maps:SEED``/``shuf_bmaps:SEED`` reorder maps or basic maps)
and :data:`UNION_FORMS` (the unions as a whole).  What they showed is in
the docstring of :mod:`clayx.auto.scheduler`: the maps are already in
isl's simplest form, the order isl visits them in moves adi's count by up
to a third (and changes some trees), deriche's not at all.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import islpy as isl  # noqa: E402

from clayx.auto.presets import PRESETS, resolve  # noqa: E402
from clayx.auto import scheduler  # noqa: E402
from clayx.analysis import dependences  # noqa: E402
from clayx.frontend import load  # noqa: E402

PYTHON = "/root/.pyenv/versions/3.11.7/bin/python3.11"   # the real binary, not pyenv's shim
_dt = isl.dim_type


# --- forms: one map in, the same relation (maybe written differently) out ---------

def _maps(um: isl.UnionMap) -> list[isl.Map]:
    out: list[isl.Map] = []
    um.foreach_map(out.append)
    return out


def _bmaps(m: isl.Map) -> list[isl.BasicMap]:
    return list(m.get_basic_maps())


def _from_bmaps(space_map: isl.Map, bms: list[isl.BasicMap]) -> isl.Map:
    out = isl.Map.empty(space_map.get_space())
    for b in bms:
        out = out.union(isl.Map.from_basic_map(b))
    return out


def _n_con(b: isl.BasicMap) -> int:
    return b.n_constraint()


def _simple_hull_exact(m: isl.Map) -> isl.Map:
    h = m.simple_hull()
    return isl.Map.from_basic_map(h) if isl.Map.from_basic_map(h).is_equal(m) else m


def _per_bmap(f):
    def g(m, dom):
        return _from_bmaps(m, [f(b) for b in _bmaps(m)])
    return g


def _readback(m, dom):
    return isl.Map.read_from_str(m.get_ctx(), str(m))


def _intersect_dom(m, dom):
    return m.intersect_domain(dom[m.get_tuple_name(_dt.in_)]).intersect_range(
        dom[m.get_tuple_name(_dt.out)])


def _gist_dom(m, dom):
    return m.gist_domain(dom[m.get_tuple_name(_dt.in_)]).gist_range(
        dom[m.get_tuple_name(_dt.out)])


#: name -> (map, {statement: domain}) -> map
FORMS = {
    "none": lambda m, dom: m,
    "rebuild": lambda m, dom: m,
    "readback": _readback,
    "coalesce": lambda m, dom: m.coalesce(),
    "detect_eq": lambda m, dom: m.detect_equalities(),
    "remove_red": lambda m, dom: m.remove_redundancies(),
    "compute_divs": lambda m, dom: m.compute_divs(),
    "remove_divs": lambda m, dom: m.remove_divs(),
    "disjoint": lambda m, dom: m.make_disjoint(),
    "intersect_dom": _intersect_dom,
    "gist_dom": _gist_dom,
    "gist_dom_back": lambda m, dom: _intersect_dom(_gist_dom(m, dom), dom),
    "bm_detect_eq": _per_bmap(lambda b: b.detect_equalities()),
    "bm_remove_red": _per_bmap(lambda b: b.remove_redundancies()),
    "simple_hull": lambda m, dom: _simple_hull_exact(m),
    "sort_size": lambda m, dom: _from_bmaps(m, sorted(_bmaps(m), key=_n_con)),
    "sort_size_desc": lambda m, dom: _from_bmaps(m, sorted(_bmaps(m), key=lambda b: -_n_con(b))),
    "reverse": lambda m, dom: _from_bmaps(m, _bmaps(m)[::-1]),
    "sort_text": lambda m, dom: _from_bmaps(m, sorted(_bmaps(m), key=str)),
}


def _by_pair(um: isl.UnionMap) -> dict[tuple[str, str], isl.Map]:
    return {(m.get_tuple_name(_dt.in_), m.get_tuple_name(_dt.out)): m for m in _maps(um)}


def _rar_reversed(sc, deps, p, *, smaller: bool = True):
    """Proximity = validity on every pair of statements S -> T with a
    validity relation (the same map: isl merges the two edges and bounds the
    distance from above only, validity bounds it from below); the
    read-after-read relations of S and T go to T -> S, reversed, when T -> S
    has no validity relation (proximity is symmetric), else to the
    direction with the smaller validity relation.  (The same bounds, but
    isl's clustering reads the direction: adi's ``cpu`` tree changes.)"""
    if "RAR" not in p.proximity:
        return sc
    val = _by_pair(sc.get_validity())
    prox = {k: m for k, m in val.items()} if set(p.proximity) - {"RAR"} == set(p.validity) \
        else None
    if prox is None:
        return sc
    rar: dict[tuple[str, str], isl.Map] = {}
    for d in deps.of_kind("RAR"):
        k = (d.source, d.sink)
        rar[k] = rar[k].union(d.relation) if k in rar else d.relation
    for (a, b), r in rar.items():
        if a == b:
            prox[a, b] = prox[a, b].union(r) if (a, b) in prox else r
            continue
        fwd, bwd = val.get((a, b)), val.get((b, a))
        if fwd is not None and (bwd is None or (smaller and
                                                 bwd.n_basic_map() < fwd.n_basic_map())):
            k, r = (b, a), r.reverse()       # to the direction without (or with less) validity
        else:
            k = (a, b)
        prox[k] = prox[k].union(r) if k in prox else r
    um = isl.UnionMap.empty(sc.get_validity().get_space())
    for m in prox.values():
        um = um.union(isl.UnionMap.from_map(m))
    return sc.set_proximity(um)


def _rar_folded(sc, deps, p):
    """Proximity as built, except that the read-after-read relations of two
    statements with no validity relation between them go into one map
    (``T -> S`` reversed into ``S -> T``, ``S`` the first in the SCoP):
    one proximity edge instead of two, the same bounds (both sides)."""
    if "RAR" not in p.proximity:
        return sc
    val = _by_pair(sc.get_validity())
    prox = _by_pair(sc.get_proximity())
    order = {s: k for k, s in enumerate(sorted({a for a, _ in prox} | {b for _, b in prox},
                                               key=lambda n: int(n[1:])))}
    for (a, b) in list(prox):
        if a == b or (a, b) not in prox or order[a] < order[b]:
            continue
        if (a, b) in val or (b, a) in val or (b, a) not in prox:
            continue
        prox[b, a] = prox[b, a].union(prox.pop((a, b)).reverse())
    um = isl.UnionMap.empty(sc.get_validity().get_space())
    for m in prox.values():
        um = um.union(isl.UnionMap.from_map(m))
    return sc.set_proximity(um)


#: name -> (ScheduleConstraints, Dependences, Preset) -> ScheduleConstraints
UNION_FORMS = {
    "rar_folded": _rar_folded,
    # not the same constraints (a different schedule): where the time goes
    "no_rar": lambda sc, deps, p: sc.set_proximity(sc.get_validity()),
    "sc_readback": lambda sc, deps, p: isl.ScheduleConstraints.read_from_str(
        sc.get_ctx(), str(sc)),
    "rar_reversed": _rar_reversed,
    "rar_reversed_plain": lambda sc, deps, p: _rar_reversed(sc, deps, p, smaller=False),
}


def _form(name: str):
    """The per-map form ``name``; ``shuf_bmaps:SEED`` permutes each map's
    basic maps at random (``SEED``)."""
    if name.startswith("shuf_bmaps:"):
        import random
        rnd = random.Random(int(name.split(":")[1]))

        def f(m, dom):
            b = _bmaps(m)
            rnd.shuffle(b)
            return _from_bmaps(m, b)
        return f
    return FORMS[name]


def apply_form(um: isl.UnionMap, form: str, dom: dict[str, isl.Set]) -> isl.UnionMap:
    """``um`` with every map rewritten by ``form`` (several: ``a+b``, in
    order); ``shuf_maps:SEED`` inserts the maps into the new union in a
    random order (``SEED``), which changes the order isl visits them in."""
    maps = _maps(um)
    fs = []
    for name in form.split("+"):
        if name.startswith("shuf_maps:"):
            import random
            random.Random(int(name.split(":")[1])).shuffle(maps)
        else:
            fs.append(_form(name))
    out = isl.UnionMap.empty(um.get_space())
    for m in maps:
        for f in fs:
            m = f(m, dom)
        out = out.union(isl.UnionMap.from_map(m))
    return out


def constraints(stem: str, preset: str, form: str):
    """(scop, ScheduleConstraints) of example ``stem`` under ``preset``, in ``form``."""
    scop = load(ROOT / "examples" / f"{stem}.c")[0]
    p = resolve(preset)
    deps = dependences(scop)
    deps.of_kind("RAW", "WAR", "WAW", "RAR")
    sc = scheduler.schedule_constraints(scop, scop.domains(), p, deps)
    if form == "none":
        return scop, p, sc
    if form in UNION_FORMS:
        return scop, p, UNION_FORMS[form](sc, deps, p)
    dom: dict[str, isl.Set] = {}
    scop.domains().foreach_set(lambda s: dom.__setitem__(s.get_tuple_name(), s))
    done: dict[str, isl.UnionMap] = {}

    def tr(um):
        key = str(um)                   # validity and coincidence: one object for cpu
        if key not in done:
            done[key] = apply_form(um, form, dom)
        return done[key]
    sc2 = isl.ScheduleConstraints.on_domain(sc.get_domain()).set_context(sc.get_context())
    sc2 = sc2.set_validity(tr(sc.get_validity()))
    sc2 = sc2.set_proximity(tr(sc.get_proximity()))
    sc2 = sc2.set_coincidence(tr(sc.get_coincidence()))
    return scop, p, sc2


def farkas_size(sc) -> tuple[int, int]:
    """(basic maps, constraints of the Farkas sets) over the three unions, as
    isl's scheduler builds them (divs removed, deltas within a statement,
    the wrapped relation between two)."""
    nb = nc = 0
    for um in (sc.get_validity(), sc.get_proximity(), sc.get_coincidence()):
        for m in _maps(um):
            nb += m.n_basic_map()
            if m.get_tuple_name(_dt.in_) == m.get_tuple_name(_dt.out):
                s = m.remove_divs().deltas()
            else:
                s = m.remove_divs().wrap()
            c = s.coefficients()
            nc += c.n_constraint()
    return nb, nc


# --- instruction counts -------------------------------------------------------------

_CG_SRC = r"""
#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
"""


def _cg_lib():
    import ctypes
    path = Path(tempfile.gettempdir()) / "clayx_cg_requests.so"
    if not path.exists():
        src = path.with_suffix(".c")
        src.write_text(_CG_SRC)
        subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(path), str(src)], check=True)
    return ctypes.CDLL(str(path))


def run_one(stem: str, preset: str, form: str, instrument: bool = False) -> str:
    """Schedule one (example, preset, form); the tree's hash."""
    scop, p, sc = constraints(stem, preset, form)
    ctx = scop.context.get_ctx()
    lib = _cg_lib() if instrument else None
    with scheduler.isl_options(ctx, p.isl_options()):
        if lib:
            lib.cg_start()
        tree = sc.compute_schedule()
        if lib:
            lib.cg_stop()
    return hashlib.sha1(str(tree).encode()).hexdigest()[:12]


def count(stem: str, preset: str, form: str, profile: str | None) -> tuple[int, str]:
    """(instructions in isl's scheduler, tree hash), under callgrind."""
    d = profile or tempfile.mkdtemp()
    out = os.path.join(d, f"cg.{stem}.{preset}.{form}")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
           "--instr-atstart=no", "--toggle-collect=isl_schedule_constraints_compute_schedule",
           PYTHON, __file__, "--one", stem, preset, form]
    r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    m = re.search(r"Collected : (\d+)", r.stderr)
    h = re.search(r"tree (\w+)", r.stdout)
    if not m or not h:
        raise SystemExit(f"callgrind failed on {stem} {form}:\n{r.stderr[-2000:]}")
    return int(m.group(1)), h.group(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stems", nargs="*")
    ap.add_argument("--all", action="store_true", help="every examples/*.c")
    ap.add_argument("--form", default="none", help="comma-separated forms (a+b chains)")
    ap.add_argument("--preset", default="cpu")
    ap.add_argument("--count", action="store_true", help="instructions under callgrind")
    ap.add_argument("--farkas", action="store_true", help="basic maps and Farkas constraints")
    ap.add_argument("--check", action="store_true", help="trees vs 'none', every preset")
    ap.add_argument("--presets", default=",".join(PRESETS))
    ap.add_argument("--profile", help="keep callgrind's files in this folder")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print("tree", run_one(*a.one, instrument=True))
        return
    stems = sorted(p.stem for p in (ROOT / "examples").glob("*.c")) if a.all else a.stems
    forms = a.form.split(",")
    if a.check:
        bad = 0
        for stem in stems:
            for preset in a.presets.split(","):
                base = run_one(stem, preset, "none")
                for f in forms:
                    if f != "none" and run_one(stem, preset, f) != base:
                        bad += 1
                        print(f"DIFF {stem} {preset} {f}", flush=True)
            print(f"checked {stem}", flush=True)
        print(f"{bad} differences")
        return
    for stem in stems:
        base = None
        for f in forms:
            cols = [f"{stem:16s} {f:24s}"]
            if a.farkas or not a.count:
                nb, nc = farkas_size(constraints(stem, a.preset, f)[2])
                cols.append(f"bmaps {nb:5d} farkas {nc:6d}")
            if a.count:
                n, h = count(stem, a.preset, f, a.profile)
                base = base or n
                cols.append(f"instr {n:14,d} ({n / base:.3f}x) tree {h}")
            elif not a.farkas:
                cols.append(f"tree {run_one(stem, a.preset, f)}")
            print("  ".join(cols), flush=True)


if __name__ == "__main__":
    main()
