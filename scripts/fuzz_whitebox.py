#!/usr/bin/env python3
"""How often whiteboxing recovers random legal schedules (issue 9).

For each of ``--count`` seeded sequences (seed ``--seed + k``), a kernel of
:data:`STEMS` is taken in turn and up to 8 directives are drawn against the
current schedule by :func:`clayx.fuzz.draw_step` (refused steps change
nothing), from one of three mixes in turn: :data:`MIX` (tiling, iss, peel,
skews, reshapes and structure), :data:`clayx.fuzz.DEEP_KINDS` and
:data:`clayx.fuzz.ALL_KINDS`.  Then ``whitebox(original, result)``:

- *exact* / *same order*: recovered and proven by replay;
- *refused*: a :class:`~clayx.whitebox.WhiteboxError` naming what has no
  Clay expression the recovery knows (grouped by message);
- *bug*: a recovered sequence that failed its own replay (never shown to a
  user, but a recovery bug), or any other exception (*crash*);
- *directive crash*: drawing or applying a random step raised something
  other than a :class:`~clayx.errors.ClayxError` (a bug of the directive,
  printed; the sequence is skipped).

Prints the counts (with the total and largest simplification times, the
longest recovered sequence and how many are longer than 2 × drawn + 3), the
recovery rate and the refusal messages; ``--show`` prints every sequence
that was not recovered, ``--long K`` every recovered one more than ``K``
steps longer than the drawn one; a simplification over 100 ms is printed.
``--slow-ms T`` prints every case whose whole whitebox (reading, recovery
and its careful retries, simplification, replay) took more than ``T`` ms,
with its phases, its effort (legality checks isl answered, the unit of
:data:`clayx.whitebox.MAX_EFFORT`) and whether it was recovered, and a
summary line: median, p99 and max of the per-case time, the largest effort
of a recovered case and of a refused one.  ``--only SEED,…`` runs only the
cases of those seeds (``--seed`` + k: the kernel and mix are k's).

    python scripts/fuzz_whitebox.py [--seed 1000] [--count 150] [--show] [--long K]
                                    [--slow-ms T] [--only SEED,...] [--cpu]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clayx  # noqa: E402
from clayx.errors import ClayxError  # noqa: E402
from clayx.fuzz import ALL_KINDS, DEEP_KINDS, RandomChooser, draw_step  # noqa: E402
from clayx.whitebox import WhiteboxError, whitebox  # noqa: E402

#: The kernels, taken in turn.
STEMS = ("gemm", "atax", "mvt", "jacobi-1d", "bicg", "trmm", "seidel-2d", "lu", "jacobi-2d",
         "syrk")

#: The mix of structure-changing steps the issue names, tiling drawn most.
MIX = ("tile", "tile", "stripmine", "skew", "skew", "reshape", "reshape", "iss", "iss", "peel",
       "interchange", "reverse", "shift", "fuse", "split")


def run(seed: int, count: int, show: bool, long: int | None = None,
        slow_ms: float | None = None, only: set | None = None) -> Counter:
    """Draw and whitebox ``count`` sequences; return the counts (and print).

    ``long``: also print every recovered sequence longer than the drawn one
    by more than ``long`` steps (after simplification), with both.
    ``slow_ms``: print every case whose whitebox took longer, and the
    summary of the times (:func:`time_summary`).  ``only``: the seeds of
    the cases to run (None: all)."""
    base = {s: clayx.load(ROOT / "examples" / f"{s}.c") for s in STEMS}
    stats: Counter = Counter()
    reasons: Counter = Counter()
    times: list[tuple[float, int]] = []
    efforts = {"recovered": 0, "refused": 0}
    for k in range(count):
        if only is not None and seed + k not in only:
            continue
        rng = RandomChooser(seed + k)
        stem = STEMS[k % len(STEMS)]
        b = base[stem]
        s = clayx.Session(b.original, others=b.others)
        kinds = (MIX, DEEP_KINDS, ALL_KINDS)[k % 3]
        broken = None
        for _ in range(rng.integer(1, 8, "len")):
            step = None
            try:
                step = draw_step(rng, s.current, kinds, bad_rate=0)
                s.apply(step)
            except ClayxError:
                pass
            except Exception as e:          # noqa: BLE001 - a directive's bug, not whitebox's
                broken = f"{step}: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
                break
        if broken is not None:
            stats["directive crash"] += 1
            print(f"--- directive crash {stem} seed {seed + k}: "
                  f"{' '.join(str(s.script).split())} then {broken}")
            continue
        if not len(s.script):
            continue
        t0 = time.perf_counter()
        timings: dict = {}
        try:
            r = whitebox(s.original, s.current.schedule)
            timings = r.timings
        except WhiteboxError as e:
            key = "bug" if str(e).startswith("bug:") else "refused"
            msg = str(e).splitlines()[0]
            timings = getattr(e, "timings", {})
        except Exception as e:              # noqa: BLE001 - counted as a crash
            key, msg = "crash", f"{type(e).__name__}: {e}"
        else:
            key = "recovered"
        if slow_ms is not None:
            ms = 1000 * (time.perf_counter() - t0)
            times.append((ms, seed + k))
            if key in efforts:
                efforts[key] = max(efforts[key], timings.get("effort", 0))
            if ms > slow_ms:
                print(f"--- time {key} {stem} seed {seed + k}: {ms:.0f} ms "
                      f"({phase_text(timings)}; effort {timings.get('effort', '?')}, "
                      f"reductions {timings.get('reduction', '?')}): "
                      f"{' '.join(str(s.script).split())}")
        if key == "recovered":
            stats["exact" if r.exact else "same order"] += 1
            stats["steps in"] += len(s.script)
            stats["steps recovered"] += len(r.steps)
            stats["steps before simplification"] += len(r.raw)
            t_simp = 1000 * r.timings.get("simplify", 0.0)
            stats["simplify ms"] += round(t_simp)
            stats["simplify max ms"] = max(stats["simplify max ms"], round(t_simp))
            if t_simp > 100:
                print(f"--- slow {stem} seed {seed + k}: simplify {t_simp:.0f} ms, "
                      f"{len(r.raw)} -> {len(r.steps)} steps: {' '.join(str(s.script).split())}")
            if len(r.steps) > 2 * len(s.script) + 3:
                stats["longer than 2x+3"] += 1
            stats["longest"] = max(stats["longest"], len(r.steps))
            if r.timings.get("simplification_undone"):
                stats["simplification undone"] += 1
                if show:
                    print(f"--- undone {stem} seed {seed + k}: the simplified sequence failed "
                          f"its replay or did not give the target's dates, the recovered "
                          f"one ({len(r.raw)} steps) is shown: "
                          f"{' '.join(str(s.script).split())}")
            if long is not None and len(r.steps) > len(s.script) + long:
                stats["long"] += 1
                print(f"--- long {stem} seed {seed + k}: {len(s.script)} -> {len(r.steps)}: "
                      f"{' '.join(str(s.script).split())}\n    "
                      + " ".join(str(r.script).split()))
            continue
        stats[key] += 1
        reasons[f"{key}: " + re.sub(r"-?\d+", "#", msg)[:100]] += 1
        if show or key != "refused":
            print(f"--- {key} {stem} seed {seed + k}: {' '.join(str(s.script).split())}\n"
                  f"    {msg[:300]}")
    tried = sum(stats[x] for x in ("exact", "same order", "refused", "bug", "crash"))
    print(", ".join(f"{k} {v}" for k, v in sorted(stats.items())) + f"; tried {tried}")
    ok = stats["exact"] + stats["same order"]
    print(f"recovered and verified: {ok}/{tried} ({100.0 * ok / max(tried, 1):.1f} %)")
    for msg, n in reasons.most_common():
        print(f"  {n:4d}  {msg}")
    if slow_ms is not None and times:
        print(time_summary(times) + f"; effort max: recovered {efforts['recovered']}, "
              f"refused {efforts['refused']}")
    return stats


def phase_text(timings: dict) -> str:
    """The phases of a whitebox's ``timings`` as ``name ms, …``."""
    return ", ".join(f"{n} {1000 * t:.0f}" for n, t in timings.get("phases", ()))


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile of ``values`` (nearest rank)."""
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(-(-q * len(v) // 1)) - 1))]


def time_summary(times: list[tuple[float, int]]) -> str:
    """``whitebox ms: median …, p99 …, max … (seed …)`` of ``(ms, seed)``
    pairs."""
    ms = [t for t, _ in times]
    top = max(times)
    return (f"whitebox ms: median {percentile(ms, 0.5):.0f}, p99 {percentile(ms, 0.99):.0f}, "
            f"max {top[0]:.0f} (seed {top[1]}) over {len(ms)} cases")


def main() -> int:
    """Parse the options and run."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--show", action="store_true", help="print every sequence not recovered")
    ap.add_argument("--long", type=int, default=None, metavar="K",
                    help="print every recovered sequence more than K steps longer than the "
                         "drawn one")
    ap.add_argument("--slow-ms", type=float, default=None, metavar="T",
                    help="print every case whose whitebox takes more than T ms (its phases), "
                         "and the median, p99 and max of the times")
    ap.add_argument("--only", default=None, metavar="SEED,...",
                    help="run only the cases of these seeds")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU time of this process instead of wall time (every clock): "
                         "times less dependent on the machine's load")
    args = ap.parse_args()
    if args.cpu:
        time.perf_counter = time.process_time   # clayx's own timings read it too
    only = None if args.only is None else {int(x) for x in args.only.split(",")}
    t0 = time.perf_counter()
    stats = run(args.seed, args.count, args.show, args.long, args.slow_ms, only)
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 1 if stats["bug"] or stats["crash"] or stats["directive crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
