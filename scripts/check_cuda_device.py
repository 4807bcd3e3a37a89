#!/usr/bin/env python3
"""Run clayx's CUDA output on a real GPU and compare it with the original.

The CUDA tests (``tests/test_cuda.py``) prove the mapping by running its
CPU emulation and compile the ``.cu`` with ``nvcc -c``; CI has no GPU.  This
script is the check for a machine that has one, in two halves:

``--generate DIR`` (here, with clayx): for every example, the ``gpu``
preset's ``.cu`` (:func:`clayx.gpu.cuda_code`) in four forms — untiled
(``t0``), tiled by 32 (``t32``), untiled with small blocks and a small
fixed grid so that threads stride over several iterations (``t0g``:
block 4×2×2, grid 3×2×2), and with shared memory where the examples have
reused tiles (``t0s``, ``t32s``) — plus the original ``.c`` and
``cases.json`` (sizes: :data:`clayx.verify.SMALL_SIZES`, and "medium",
the same times 8, time steps 4).

``--run DIR`` (on the GPU machine; Python's standard library only, so it
needs neither islpy nor clayx there): compiles each original with
``gcc -std=c99 -O1`` and each ``.cu`` with ``nvcc -O1 -arch=sm_90
-fmad=false`` (no contraction into fused multiply-adds, which gcc does not
do either, so the results can be equal bit for bit), runs both at both
sizes, compares every dumped value as text, and runs compute-sanitizer's
``memcheck`` on every binary at the small size and ``racecheck`` and
``synccheck`` on the shared-memory ones.  Writes ``summary.txt`` and
``results.json`` to ``$OUT`` (or ``DIR/out``) and exits 1 on any
difference, failed build or sanitizer error.

Eight examples print their arrays through helpers with C99 variable-length
array parameters (``double m[rows][cols]``), which nvcc, a C++ compiler,
rejects in the original too; :func:`nvcc_compatible` rewrites those
helpers' parameters (outside every SCoP) into pointers.

    python scripts/check_cuda_device.py --generate devcheck
    # on the GPU machine, in the repository root:
    python3 scripts/check_cuda_device.py --run devcheck
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: the examples whose ``gpu`` schedule has tiles of read-only arrays worth
#: shared memory, untiled and tiled by 32 (as ``tests/test_cuda.py``)
SHARED = {0: ("fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d"),
          32: ("fdtd-2d", "jacobi-1d", "jacobi-2d")}

#: the ``t0g`` form: small blocks and a small fixed grid
SMALL_GRID = {"block": (4, 2, 2), "grid": (3, 2, 2)}


def nvcc_compatible(text: str) -> str:
    """``text`` with each ``static void`` function's variable-length array
    parameter (``double m[rows][cols]``, ``double v[n]``, bounds that are
    ``int`` parameters) turned into a pointer: a 2-d one into ``void
    *m_vp`` read through ``double *m_flat`` (``m[i][j]`` becomes
    ``m_flat[(i) * (cols) + (j)]``), a 1-d one into ``double *v``.  Fixed
    bounds (``double A[N][M]``) are kept."""
    out, pos = [], 0
    for m in re.finditer(r"static void (\w+)\(([^)]*)\)\s*\{", text):
        params = m.group(2)
        ints = set(re.findall(r"int (\w+)", params))
        m2 = re.search(r"double (\w+)\[(\w+)\]\[(\w+)\]", params)
        m1 = re.search(r"double (\w+)\[(\w+)\](?!\[)", params)
        if m2 and not {m2.group(2), m2.group(3)} & ints:
            m2 = None
        if m1 and m1.group(2) not in ints:
            m1 = None
        if not (m2 or m1):
            continue
        end = text.index("\n}\n", m.end())
        body = text[m.end():end]
        if m2:
            name, cols = m2.group(1), m2.group(3)
            params = params.replace(m2.group(0), f"void *{name}_vp")
            body = re.sub(rf"\b{name}\[([^\]]+)\]\[([^\]]+)\]",
                          rf"{name}_flat[(\1) * ({cols}) + (\2)]", body)
            body = f"\n  double *{name}_flat = (double *){name}_vp;" + body
        else:
            params = params.replace(m1.group(0), f"double *{m1.group(1)}")
        out.append(f"{text[pos:m.start()]}static void {m.group(1)}({params}) {{{body}")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def generate(where: Path, stems=None) -> list[dict]:
    """Write the ``.cu`` files, the originals and ``cases.json`` under
    ``where``; returns the cases."""
    sys.path.insert(0, str(ROOT))
    import clayx
    from clayx.gpu import cuda_code, gpu_schedule
    from clayx.verify import SMALL_SIZES
    (where / "cu").mkdir(parents=True, exist_ok=True)
    (where / "orig").mkdir(exist_ok=True)
    cases = []
    for p in sorted((ROOT / "examples").glob("*.c")):
        stem = p.stem
        if stems and stem not in stems:
            continue
        s = clayx.load(p)
        small = SMALL_SIZES[stem]
        medium = {k: 4 if k in ("TSTEPS", "TMAX") else v * 8 for k, v in small.items()}
        (where / "orig" / f"{stem}.c").write_text(p.read_text())
        for tile in (0, 32):
            scop = gpu_schedule(s.current, tile=tile)
            forms = [(f"t{tile}", {})]
            if tile == 0:
                forms.append(("t0g", SMALL_GRID))
            if stem in SHARED[tile]:
                forms.append((f"t{tile}s", {"shared": True}))
            for tag, kw in forms:
                code = nvcc_compatible(cuda_code([scop, *s.others], **kw))
                (where / "cu" / f"{stem}.{tag}.cu").write_text(code)
                cases.append({"stem": stem, "variant": tag, "small": small, "medium": medium,
                              "kernels": code.count("__global__ void"),
                              "shared": bool(kw.get("shared"))})
    (where / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")
    return cases


def dumps(text: str) -> dict[str, list[str]]:
    """The values of each ``begin dump: NAME`` … ``end   dump: NAME``
    section of a program's output, as printed."""
    out: dict[str, list[str]] = {}
    cur = None
    for ln in text.splitlines():
        m = re.match(r"begin dump: (\S+)", ln)
        if m:
            cur = out.setdefault(m.group(1), [])
        elif ln.startswith("end   dump:"):
            cur = None
        elif cur is not None:
            cur.extend(ln.split())
    return out


def compare(expected: str, actual: str) -> str:
    """'' when every dumped value is printed the same; else what differs
    (per array: how many values, the first, the largest relative error)."""
    a, b = dumps(expected), dumps(actual)
    if not a:
        return "no dumps in the original's output"
    if set(a) != set(b):
        return f"arrays differ: {sorted(a)} vs {sorted(b)}"
    bad = []
    for k in a:
        if len(a[k]) != len(b[k]):
            bad.append(f"{k}: {len(a[k])} vs {len(b[k])} values")
            continue
        diff = [(i, x, y) for i, (x, y) in enumerate(zip(a[k], b[k])) if x != y]
        if diff:
            rel = 0.0
            for _, x, y in diff:
                try:
                    fx, fy = float(x), float(y)
                    rel = max(rel, abs(fx - fy) / max(abs(fx), 1e-300))
                except ValueError:
                    rel = float("inf")
            i, x, y = diff[0]
            bad.append(f"{k}: {len(diff)}/{len(a[k])} differ, first [{i}] {x} vs {y}, "
                       f"max rel {rel:.3g}")
    return "; ".join(bad)


def _sh(cmd: list[str], timeout: float) -> tuple[int, str, str]:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, errors="replace")
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    except FileNotFoundError as e:
        return 127, "", str(e)


def _defines(sizes: dict) -> list[str]:
    return [f"-D{k}={v}" for k, v in sizes.items()]


def run(where: Path, out: Path, *, sanitize: bool = True, jobs: int = 16) -> int:
    """Build, run, compare and sanitize (see the module docstring); 0 when
    everything is equal and clean."""
    t0 = time.time()
    cases = json.loads((where / "cases.json").read_text())
    bins = Path(os.environ.get("TMPDIR", "/tmp")) / "clayx-cuda-check"
    bins.mkdir(parents=True, exist_ok=True)
    origs = {(c["stem"], size): c[size] for c in cases for size in ("small", "medium")}
    cus = {(c["stem"], c["variant"], size): c[size] for c in cases for size in ("small", "medium")}

    def build_orig(key):
        stem, size = key
        return key, _sh(["gcc", "-std=c99", "-O1", *_defines(origs[key]),
                         str(where / "orig" / f"{stem}.c"), "-o",
                         str(bins / f"{stem}.{size}.orig"), "-lm"], 300)

    def build_cu(key):
        stem, var, size = key
        return key, _sh(["nvcc", "-O1", "-arch=sm_90", "-fmad=false", *_defines(cus[key]),
                         str(where / "cu" / f"{stem}.{var}.cu"), "-o",
                         str(bins / f"{stem}.{var}.{size}"), "-lm"], 300)

    res: dict[str, list] = {"builds_failed": [], "runs": [], "sanitizer": []}
    with ThreadPoolExecutor(jobs) as ex:
        for key, (rc, o, e) in [*ex.map(build_orig, origs), *ex.map(build_cu, cus)]:
            if rc:
                res["builds_failed"].append({"key": list(key), "rc": rc, "err": (o + e)[-1500:]})
    print(f"built in {time.time() - t0:.0f} s", flush=True)

    def exe_run(path: Path):
        return _sh([str(path)], 120) if path.exists() else (-1, "", "not built")

    with ThreadPoolExecutor(jobs) as ex:
        expected = dict(zip(origs, ex.map(
            lambda k: exe_run(bins / f"{k[0]}.{k[1]}.orig"), origs)))

    def run_cu(key):
        t = time.time()
        r = exe_run(bins / ".".join(key))
        return key, r, time.time() - t

    with ThreadPoolExecutor(4) as ex:
        for (stem, var, size), (rc, o, e), secs in ex.map(run_cu, cus):
            orc, oo, _ = expected[(stem, size)]
            verdict = ("not built" if rc == -1 else f"exit {rc}: {e[-300:]}" if rc
                       else f"original exit {orc}" if orc else compare(oo, o) or "equal")
            res["runs"].append({"stem": stem, "variant": var, "size": size,
                                "verdict": verdict, "secs": round(secs, 3)})
    print(f"ran in {time.time() - t0:.0f} s", flush=True)

    todo = [("memcheck", c["stem"], c["variant"]) for c in cases] if sanitize else []
    todo += [(t, c["stem"], c["variant"]) for c in cases if sanitize and c["shared"]
             for t in ("racecheck", "synccheck")]

    def san(args):
        tool, stem, var = args
        exe = bins / f"{stem}.{var}.small"
        if not exe.exists():
            return args, (-1, "", "not built")
        return args, _sh(["compute-sanitizer", f"--tool={tool}", "--error-exitcode=9",
                          str(exe)], 300)

    with ThreadPoolExecutor(8) as ex:
        for (tool, stem, var), (rc, o, e) in ex.map(san, todo):
            summ = [ln for ln in (o + e).splitlines() if "SUMMARY" in ln]
            res["sanitizer"].append({"tool": tool, "stem": stem, "variant": var, "rc": rc,
                                     "summary": summ[-1:] if rc in (0, 9) else (o + e)[-600:]})

    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(res, indent=1) + "\n")
    equal = sum(r["verdict"] == "equal" for r in res["runs"])
    lines = [f"runs equal bit for bit: {equal}/{len(res['runs'])}"]
    lines += [f"  DIFF {r['stem']}.{r['variant']}.{r['size']}: {r['verdict'][:400]}"
              for r in res["runs"] if r["verdict"] != "equal"]
    lines += [f"  BUILD {b['key']}: {b['err'][-400:]}" for b in res["builds_failed"]]
    clean = sum(s["rc"] == 0 for s in res["sanitizer"])
    lines.append(f"sanitizer clean: {clean}/{len(res['sanitizer'])}")
    lines += [f"  SAN {s['tool']} {s['stem']}.{s['variant']}: rc {s['rc']} {str(s['summary'])[:400]}"
              for s in res["sanitizer"] if s["rc"] != 0]
    lines.append(f"total {time.time() - t0:.0f} s")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    ok = equal == len(res["runs"]) and not res["builds_failed"] and clean == len(res["sanitizer"])
    return 0 if ok else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--generate", metavar="DIR", help="write the .cu files and cases here")
    g.add_argument("--run", metavar="DIR", help="build, run and compare (on the GPU machine)")
    ap.add_argument("--only", nargs="*", help="examples (stems) to generate")
    ap.add_argument("--no-sanitizer", action="store_true")
    args = ap.parse_args(argv)
    if args.generate:
        cases = generate(Path(args.generate), args.only)
        print(f"{len(cases)} .cu files in {args.generate}")
        return 0
    where = Path(args.run)
    return run(where, Path(os.environ.get("OUT") or where / "out"),
               sanitize=not args.no_sanitizer)


if __name__ == "__main__":
    sys.exit(main())
