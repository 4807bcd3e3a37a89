#!/usr/bin/env python3
"""Fuzzing the command with corrupted C, OpenScop and script input.

Runs ``--count`` seeded cases of :func:`clayx.fuzz_inputs.cases` (case ``k``
uses seed ``--seed + k``, so ``--seed S --count 1`` reproduces one) through
:func:`clayx_repl.cli.run` in a forked worker with a time limit, and counts
the outcomes by kind of input: a result (exit 0), a refusal (exit 3), a
clear error (exit 1 or 2 with a position, nothing written) or a problem (an
exception escaping, a hang, a file written on error, an error without a
position, a session changed by a failed script).  Every problem is listed
with its seed and mutation.  ``tests/test_fuzz_inputs.py`` runs a slice.

    python scripts/fuzz_inputs.py --seed 100000 --count 20000 [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from clayx.fuzz_inputs import Runner, cases  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds a case may take before it counts as a hang")
    ap.add_argument("--kinds", default="c,scop,script", help="comma-separated input kinds")
    ap.add_argument("--json", help="write the figures and problems here")
    ap.add_argument("--show", action="store_true", help="print each case's outcome")
    args = ap.parse_args(argv)
    kinds = tuple(args.kinds.split(","))
    outcomes: Counter = Counter()
    problems = []
    times = []
    t0 = time.perf_counter()
    with Runner(timeout=args.timeout) as runner:
        for case in cases(args.seed, args.count, ROOT, kinds):
            o = runner.run(case)
            label = ("problem" if o.problem else "result" if o.rc == 0 else
                     "refused" if o.rc == 3 else "error")
            outcomes[(case.kind, label)] += 1
            times.append((o.seconds, case.seed, case.kind, case.mutation))
            if o.problem:
                problems.append({"seed": case.seed, "kind": case.kind, "emit": case.emit,
                                 "mutation": case.mutation, "problem": o.problem,
                                 "stderr": o.stderr[-2000:], "exception": o.exception[-4000:]})
            if args.show:
                print(f"{case.seed} {case.kind} {label} {o.seconds:.2f}s {case.mutation[:90]}")
    wall = time.perf_counter() - t0
    print(f"{args.count} cases (seeds {args.seed}..{args.seed + args.count - 1}) in "
          f"{wall:.0f} s, time limit {args.timeout:g} s a case")
    print(f"{'kind':8} {'result':>8} {'refused':>8} {'error':>8} {'problem':>8}")
    for kind in kinds:
        print(f"{kind:8} " + " ".join(f"{outcomes[(kind, x)]:8d}"
                                      for x in ("result", "refused", "error", "problem")))
    times.sort(reverse=True)
    print("slowest: " + ", ".join(f"{s:.2f} s (seed {seed}, {kind})"
                                  for s, seed, kind, _ in times[:3]))
    for p in problems:
        print(f"PROBLEM seed {p['seed']} ({p['kind']}, --emit {p['emit']}): {p['problem']}\n"
              f"  {p['mutation'][:200]}\n  {(p['exception'] or p['stderr']).strip()[-600:]}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "seed": args.seed, "count": args.count, "seconds": wall, "timeout": args.timeout,
            "outcomes": {f"{k}/{x}": n for (k, x), n in sorted(outcomes.items())},
            "slowest": times[:10], "problems": problems}, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
