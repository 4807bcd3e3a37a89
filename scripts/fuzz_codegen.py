#!/usr/bin/env python3
"""Differential fuzzing of code generation: long random directive sequences.

For each of ``--count`` seeded sequences (seed ``--seed + k``), a kernel with
a 3-deep nest is drawn, then up to ``--max-steps`` directives of
:data:`clayx.fuzz.DEEP_KINDS` (tile, reshape, interchange, skew, stripmine,
shift, …) are drawn against the current schedule and applied through a
session (refused steps change nothing).  Then:

- isl's AST of the final schedule, as isl first generates it, is checked with
  :func:`clayx.codegen.ast_check.check_ast`: exact, or wrong (and how);
- :func:`clayx.codegen.build_ast` (which falls back to another strategy
  when the first AST is wrong) must give an exact AST or a CodegenError;
- every ``--run-every``-th sequence, and every one whose first AST was
  wrong, is compiled and run against the original at its small sizes
  (:func:`clayx.verify.verify`); for a wrong first AST, the code printed
  from it is run too, to show the check was right to refuse it.

Prints a table and writes JSON (``--json``).  Reproduce one sequence with
``--seed S --count 1 --show``.

    python scripts/fuzz_codegen.py --seed 0 --count 3000 [--run-every 25]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clayx  # noqa: E402
import clayx.codegen.c as cmod  # noqa: E402
from clayx.codegen import build as build_mod  # noqa: E402
from clayx.codegen import generate_file  # noqa: E402
from clayx.codegen.ast_check import check_ast  # noqa: E402
from clayx.errors import ClayxError, CodegenError, VerifyError  # noqa: E402
from clayx.fuzz import DEEP_KINDS, RandomChooser, draw_step  # noqa: E402
from clayx.verify import SMALL_SIZES, verify  # noqa: E402

#: Kernels with 3-deep nests (heat-3d 4-deep) and a few 2-deep stencils.
KERNELS = ("gemm", "symm", "syrk", "syr2k", "trmm", "2mm", "3mm", "doitgen", "heat-3d",
           "lu", "cholesky", "floyd-warshall", "jacobi-2d", "seidel-2d", "fdtd-2d")


def sequence(seed: int, kernels, max_steps: int, base: dict) -> tuple[str, clayx.Session]:
    """The kernel and the session after the seeded sequence ``seed``."""
    ch = RandomChooser(seed)
    stem = ch.pick(kernels, "stem")
    if stem not in base:
        base[stem] = clayx.load(ROOT / "examples" / f"{stem}.c")
    s = clayx.Session(base[stem].original, others=base[stem].others)
    for _ in range(ch.integer(1, max_steps, "length")):
        try:
            s.apply(draw_step(ch, s.current, DEEP_KINDS))
        except ClayxError:
            pass
    return stem, s


def _run(stem: str, text: str, work: Path) -> str:
    """``ok`` or why the program differs / fails."""
    gen = work / f"{stem}_gen.c"
    gen.write_text(text)
    try:
        res = verify(ROOT / "examples" / f"{stem}.c", gen, SMALL_SIZES[stem], workdir=work)
        return "ok" if res.ok else "differs"
    except VerifyError as e:
        return "differs" if "differ" in str(e) else f"error: {str(e).splitlines()[0][:100]}"


def main() -> int:
    """Run the fuzzing campaign and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--max-steps", type=int, default=20)
    ap.add_argument("--run-every", type=int, default=25,
                    help="compile and run every N-th sequence (0: only wrong first ASTs)")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    ap.add_argument("--show", action="store_true", help="print each sequence's script")
    ap.add_argument("--json", default="fuzz_codegen.json", help="JSON output ('' for none)")
    args = ap.parse_args()
    kernels = args.kernels.split(",")
    stats: Counter = Counter()
    check_ms: list[float] = []
    slow: list[tuple[float, int, str]] = []
    wrong: list[dict] = []
    base: dict = {}
    work = Path(tempfile.mkdtemp(prefix="clayx-fuzz-"))
    t0 = time.perf_counter()
    for k in range(args.count):
        seed = args.seed + k
        stem, s = sequence(seed, kernels, args.max_steps, base)
        stats["sequences"] += 1
        stats["steps accepted"] += len(s.entries)
        if not s.entries:
            continue
        stats["sequences with a step"] += 1
        if args.show:
            print(f"# seed {seed} {stem}\n{s.script}")
        scop = s.current
        try:
            first = build_mod.build_ast(scop, check=False)
        except CodegenError:
            stats["first AST: too complex"] += 1
            continue
        t = time.perf_counter()
        try:
            problems = check_ast(scop, first, max_operations=build_mod.CHECK_MAX_OPERATIONS)
        except CodegenError:
            stats["check: over budget"] += 1
            slow.append((float("inf"), seed, stem))
            continue
        check_ms.append((time.perf_counter() - t) * 1000)
        slow.append((check_ms[-1], seed, stem))
        run_it = bool(problems) or (args.run_every and k % args.run_every == 0)
        if problems:
            stats["first AST wrong"] += 1
            row = {"seed": seed, "kernel": stem, "script": str(s.script).strip(),
                   "problem": problems[0]}
            # the code isl's first AST prints: does it really compute something else?
            real = cmod.build_ast
            try:
                cmod.build_ast = lambda sc, **kw: real(sc, **{**kw, "check": False})
                row["first AST run"] = _run(stem, generate_file([scop, *s.others]), work)
            finally:
                cmod.build_ast = real
            stats[f"first AST run: {row['first AST run']}"] += 1
            wrong.append(row)
            print(f"seed {seed} {stem}: {problems[0][:150]}", flush=True)
        try:
            text = s.code("c")
            stats["generated"] += 1
        except CodegenError as e:
            stats["refused: " + ("too complex" if "exceeded" in str(e) else "no exact AST")] += 1
            continue
        if run_it:
            verdict = _run(stem, text, work)
            stats[f"run: {verdict.split(':')[0]}"] += 1
            if verdict != "ok":
                print(f"seed {seed} {stem}: generated code {verdict}\n{s.script}", flush=True)
    elapsed = time.perf_counter() - t0
    check_ms.sort()
    summary = dict(stats)
    if check_ms:
        summary["check median ms"] = round(statistics.median(check_ms), 2)
        summary["check p95 ms"] = round(check_ms[int(0.95 * (len(check_ms) - 1))], 2)
        summary["check max ms"] = round(check_ms[-1], 2)
    summary["seconds"] = round(elapsed, 1)
    print(f"\nseeds {args.seed}..{args.seed + args.count - 1}, up to {args.max_steps} steps, "
          f"kernels: {', '.join(kernels)}")
    for key, val in summary.items():
        print(f"  {key:32s} {val}")
    if args.json:
        slow.sort(reverse=True)
        Path(args.json).write_text(json.dumps(
            {"summary": summary, "wrong_first_asts": wrong,
             "slowest_checks": [{"seed": sd, "kernel": st, "ms": ms if ms != float("inf")
                                 else "over budget"} for ms, sd, st in slow[:20]]},
            indent=2))
    bad = stats["run: differs"] + stats["run: error"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
