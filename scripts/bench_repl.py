#!/usr/bin/env python3
"""Benchmark of the interactive prompt: start-up to the first prompt, and the
response time of each step.

- **start-up**: ``python -m clayx_repl.cli FILE.c`` is started on a pseudo
  terminal (so the prompt opens, as on a real terminal) and timed until the
  prompt ``clayx>`` appears on it (islpy and prompt_toolkit imports, loading
  the file, the dependence analysis, the summary); then Ctrl-D ends it.
  Median of ``--repeat`` runs per file.
- **steps**: in-process, a :class:`clayx_repl.app.Repl` (printing to a
  string) runs each step of a script as typed at the prompt: apply + legality
  check + the β-tree comparison + code generation for the "what changed"
  display, or the refusal with its witness.  Median of ``--repeat`` runs
  per step.  Target (issue 4): start-up under 1.5 s, each step under 100 ms.

    python scripts/bench_repl.py [--repeat 5] [--json bench_repl.json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clayx  # noqa: E402
from clayx.script import Script  # noqa: E402
from clayx_repl.app import Repl, make_console  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_directives import step_summary  # noqa: E402

STARTUP_FILES = ["gemm", "beamforming", "jacobi-2d", "seidel-2d", "heat-3d", "adi",
                 "deriche"]

#: (kernel, steps typed at the prompt); refused steps included on purpose.
SCRIPTS = {
    "gemm": ["interchange([0, 1], 2, 3);", "stripmine([0, 1], 3, 8);", "parallelize([0]);",
             "reverse([0, 0], 2);", "unroll_mark([0, 1], 4);"],
    "jacobi-2d": ["interchange([0, 0], 1, 2);", "skew([0, 0], 2, 1, -1);",
                  "skew([0, 0], 3, 1, -1);", "skew([0, 1], 2, 1, -1);",
                  "skew([0, 1], 3, 1, -1);", "shift([0, 1], 2, {0 | 0}, -1);"],
    "seidel-2d": ["interchange([0, 0], 2, 3);", "skew([0, 0], 2, 1, -1);",
                  "skew([0, 0], 3, 1, -1);", "skew([0, 0], 3, 2, -1);",
                  "tile([0, 0], 3, 2, 8);", "tile([0, 0], 2, 1, 8);"],
    "beamforming": ["interchange([2, 2], 1, 2);", "split_children([2], 3);",
                    "reorder([], [1, 2, 0, 3]);", "reorder([0], [1, 0, 2]);",
                    "parallelize([0]);"],
    "adi": ["parallelize([13, 0]);", "shift([13, 1], 2, {0 | 0}, 1);",
            "reverse([13, 0, 3], 3);"],
    "heat-3d": ["parallelize([0]);", "interchange([0, 0], 2, 3);",
                "skew([0, 0], 2, 1, -1);"],
    "deriche": ["parallelize([15]);", "interchange([15, 0], 1, 2);", "parallelize([18]);",
                "reverse([14, 4], 2);"],
    "2mm": ["parallelize([0]);", "parallelize([1]);", "fuse([0]);", "stripmine([0], 1, 4);"],
}


# --- start-up -------------------------------------------------------------------------

def startup_once(path: Path, env: dict) -> float:
    """Seconds from spawning ``clayx FILE`` on a pty to its prompt."""
    master, slave = pty.openpty()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "clayx_repl.cli", str(path)],
                            stdin=slave, stdout=slave, stderr=slave, env=env,
                            cwd=str(ROOT), close_fds=True)
    os.close(slave)
    seen = b""
    elapsed = None
    try:
        while time.perf_counter() - t0 < 30:
            r, _, _ = select.select([master], [], [], 0.05)
            if not r:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
            if b"clayx>" in seen:
                elapsed = time.perf_counter() - t0
                break
        os.write(master, b"\x04")
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        # drain so the child never blocks on a full pty
        while select.select([master], [], [], 0)[0]:
            try:
                if not os.read(master, 65536):
                    break
            except OSError:
                break
    finally:
        os.close(master)
    if elapsed is None:
        raise RuntimeError(f"no prompt for {path}: {seen[-400:]!r}")
    return elapsed


def bench_startup(repeat: int) -> list[dict]:
    """Median start-up time per example."""
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="120", LINES="40")
    rows = []
    with tempfile.TemporaryDirectory() as state:
        env["XDG_STATE_HOME"] = state
        for stem in STARTUP_FILES:
            times = [startup_once(ROOT / "examples" / f"{stem}.c", env) for _ in range(repeat)]
            rows.append({"kernel": stem, "startup_s": round(statistics.median(times), 3),
                         "max_s": round(max(times), 3)})
    return rows


# --- steps -----------------------------------------------------------------------------

def bench_steps(stem: str, steps: list[str], repeat: int) -> list[dict]:
    """Per-step median response (ms) of one script at the prompt."""
    times: list[list[float]] = [[] for _ in steps]
    results = ["" for _ in steps]
    for _ in range(repeat):
        s = clayx.load(ROOT / "examples" / f"{stem}.c")
        out = io.StringIO()
        repl = Repl(s, ROOT / "examples" / f"{stem}.c",
                    console=make_console(color=True, file=out, width=120))
        repl.banner()       # as at the prompt (it does the one-time work up front)
        for k, text in enumerate(steps):
            n = len(s.entries)
            t = time.perf_counter()
            repl.handle(text)
            times[k].append((time.perf_counter() - t) * 1000.0)
            results[k] = "ok" if len(s.entries) > n else "refused"
    return [{"kernel": stem, "step": str(Script.parse(t)).strip(), "result": results[k],
             "ms": round(statistics.median(times[k]), 2)} for k, t in enumerate(steps)]


def main() -> int:
    """Run both benchmarks, print the tables, write the JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", default="bench_repl.json", help="JSON output ('' for none)")
    ap.add_argument("--no-startup", action="store_true", help="skip the start-up runs")
    args = ap.parse_args()
    startup = [] if args.no_startup else bench_startup(args.repeat)
    for r in startup:
        print(f"start-up {r['kernel']:12s} {r['startup_s']:6.3f} s  (max {r['max_s']:.3f} s)")
    if startup:
        print()
    rows = [r for stem, steps in SCRIPTS.items() for r in bench_steps(stem, steps, args.repeat)]
    for r in rows:
        print(f"{r['kernel']:12s} {r['ms']:8.2f} ms  {r['result']:8s} {r['step']}")
    summary = step_summary(rows)
    if startup:
        summary["startup_max_s"] = max(r["startup_s"] for r in startup)
    print(f"\n{summary['steps']} steps: median {summary['median_ms']} ms, "
          f"p95 {summary['p95_ms']} ms, max {summary['max_ms']} ms (target < 100 ms)")
    if startup:
        print(f"start-up to the first prompt: at most {summary['startup_max_s']} s "
              "(median per file; target < 1.5 s)")
    if args.json:
        Path(args.json).write_text(json.dumps({"startup": startup, "rows": rows,
                                               "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
