#!/usr/bin/env python3
"""Benchmark of the automatic half: isl scheduling, whiteboxing, replay,
code generation, per example, in-process.

For every ``examples/*.c`` (or ``--only``): the ``cpu`` preset with tiles of
``--tile`` (default 32) is computed (``auto``: isl's scheduler plus the
Pluto-style post-processing), whiteboxed into a Clay script (``whitebox``:
reading both schedules, recovery, simplification), the script replayed in a
fresh session with every step legality-checked (``replay``), and the OpenMP
code generated from the result (``codegen``, the AST proven exact).  Each
figure is the median of ``--repeat`` runs; the sequence lengths (before and
after simplification) and whether the replay reached the target's dates are
reported too.

Targets (issue 9): every kernel verified; whiteboxing mean <= 32 ms and
max <= 230 ms; mean length <= 11 directives; auto + whitebox + code
generation <= 0.5 s for every kernel.

    python scripts/bench_whitebox.py [--repeat 3] [--tile 32] [--only gemm,lu]
                                     [--json bench_whitebox.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clayx.auto import schedule as auto_schedule  # noqa: E402
from clayx.codegen import generate_region  # noqa: E402
from clayx.errors import ClayxError  # noqa: E402
from clayx.frontend import load  # noqa: E402
from clayx.whitebox import whitebox  # noqa: E402

TARGETS = {"whitebox_mean_ms": 32.0, "whitebox_max_ms": 230.0, "mean_length": 11.0,
           "total_max_ms": 500.0}


def bench(path: Path, tile: int, repeat: int) -> dict:
    """Median times (ms) and lengths of one example."""
    runs: dict[str, list[float]] = {"auto": [], "whitebox": [], "replay": [], "codegen": [],
                                    "total": []}
    row: dict = {"kernel": path.stem}
    for _ in range(repeat):
        scop = load(path)[0]            # a fresh SCoP: no cached dependences
        try:
            t0 = time.perf_counter()
            a = auto_schedule(scop, "cpu", tile)
            t1 = time.perf_counter()
            r = whitebox(scop, a.schedule)
            t2 = time.perf_counter()
            generate_region(r.scop, target="omp")
            t3 = time.perf_counter()
        except ClayxError as e:
            return {**row, "error": f"{type(e).__name__}: {e}"[:200]}
        replay = r.timings.get("replay", 0.0)
        runs["auto"].append(t1 - t0)
        runs["replay"].append(replay)
        runs["whitebox"].append(t2 - t1 - replay)
        runs["codegen"].append(t3 - t2)
        runs["total"].append(t3 - t0)
        row.update(raw=len(r.raw), steps=len(r.steps), exact=bool(r.exact))
    row.update({f"{k}_ms": round(1000 * statistics.median(v), 2) for k, v in runs.items()})
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tile", type=int, default=32)
    ap.add_argument("--only", help="comma-separated kernel names")
    ap.add_argument("--json", help="write the rows and the summary here")
    args = ap.parse_args(argv)
    paths = sorted((ROOT / "examples").glob("*.c"))
    if args.only:
        keep = set(args.only.split(","))
        paths = [p for p in paths if p.stem in keep]
    rows = []
    cols = ("auto_ms", "whitebox_ms", "replay_ms", "codegen_ms", "total_ms")
    print(f"{'kernel':16} {'auto':>8} {'whitebox':>9} {'replay':>8} {'codegen':>8} "
          f"{'total':>8} {'raw':>4} {'steps':>5}  verified")
    for p in paths:
        row = bench(p, args.tile, args.repeat)
        rows.append(row)
        if "error" in row:
            print(f"{row['kernel']:16} ERROR {row['error']}")
        else:
            print(f"{row['kernel']:16} " + " ".join(f"{row[c]:>8.1f}" for c in cols[:1])
                  + f" {row['whitebox_ms']:>9.1f} "
                  + " ".join(f"{row[c]:>8.1f}" for c in cols[2:])
                  + f" {row['raw']:>4} {row['steps']:>5}  "
                  + ("same dates" if row["exact"] else "same order"), flush=True)
    ok = [r for r in rows if "error" not in r]
    summary: dict = {"kernels": len(rows), "verified": len(ok),
                     "exact": sum(r["exact"] for r in ok)}
    if ok:
        wb = [r["whitebox_ms"] for r in ok]
        summary.update(
            whitebox_mean_ms=round(statistics.mean(wb), 2), whitebox_max_ms=max(wb),
            mean_length=round(statistics.mean(r["steps"] for r in ok), 2),
            mean_raw_length=round(statistics.mean(r["raw"] for r in ok), 2),
            total_max_ms=max(r["total_ms"] for r in ok),
            total_over_target=[r["kernel"] for r in ok
                               if r["total_ms"] > TARGETS["total_max_ms"]])
    print()
    for k, v in summary.items():
        target = TARGETS.get(k)
        print(f"{k:20} {v}" + (f"   (target {'<=' if target else ''} {target})" if target else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary,
                                               "targets": TARGETS, "tile": args.tile,
                                               "repeat": args.repeat}, indent=1))
    return 0 if len(ok) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
