#!/usr/bin/env python3
"""Differential fuzzing of Clay's forms of iss, peel, unroll,
unroll_noepilog and tile (issue 12): on a random example, up to 3 random
steps (:func:`clayx.fuzz.draw_step`), then one Clay-form step on a random
loop; every accepted sequence is compiled and run against the original at
its small sizes.  Prints counts: accepted, refused, ran equal, ran
different, crashed (any exception that is not a ClayxError).

    python scripts/fuzz_clay_forms.py SEED COUNT SECONDS

Exit status 1 when a sequence crashed or ran different, else 0.
"""
import argparse
import pathlib
import random
import sys
import tempfile
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import clayx  # noqa: E402
from clayx.errors import ClayxError  # noqa: E402
from clayx.fuzz import ALL_KINDS, RandomChooser, draw_step  # noqa: E402
from clayx.verify import SMALL_SIZES, verify  # noqa: E402

EXAMPLES = ROOT / "examples"
names = sorted(n for n in SMALL_SIZES if (EXAMPLES / f"{n}.c").exists())


def one_step(rng: random.Random, scop) -> str:
    """A Clay-form step on a random loop of ``scop``."""
    loop = list(rng.choice(scop.schedule.loops()))
    kind = rng.choice(["unroll", "unroll", "unroll_noepilog", "iss", "peel", "tile", "tile"])
    npar = len(scop.params)
    params = ",".join(str(rng.choice([0, 0, 1, -1])) for _ in range(npar))
    if kind == "tile":
        # Clay's tile (reference 5.15): a swap of d and o, d <= |β|, often d - o >= 2
        d = rng.randint(1, len(loop))
        return f"tile({loop}, {d}, {rng.randint(1, d)}, {rng.choice([2, 3, 4, 32])});"
    if kind.startswith("unroll"):
        return f"{kind}({loop}, {rng.randint(2, 4)});"
    if kind == "iss":
        alpha = ",".join(str(rng.randint(-1, 1)) for _ in range(len(loop)))
        return f"iss({loop}, {{{alpha} | | {params} | {rng.randint(-2, 6)}}});"
    return f"peel({loop}, {{{params} | {rng.randint(-6, 2)}}});"


def main(argv=None) -> int:
    """Run the sequences, print the counts; 1 when one crashed or ran different."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int, help="sequence k uses seed SEED + k")
    ap.add_argument("count", type=int, help="number of sequences at most")
    ap.add_argument("seconds", type=float, help="stop starting sequences after this time")
    args = ap.parse_args(argv)
    seed0, count, budget = args.seed, args.count, args.seconds
    stats = dict(accepted=0, refused=0, run_ok=0, run_bad=0, crash=0, cg_refused=0)
    t0 = time.time()
    for k in range(count):
        if time.time() - t0 > budget:
            break
        rng = random.Random(seed0 + k)
        ch = RandomChooser(seed0 + k)
        name = rng.choice(names)
        path = EXAMPLES / f"{name}.c"
        s = clayx.load(path)
        for _ in range(rng.randint(0, 3)):
            try:
                s.apply(draw_step(ch, s.current, ALL_KINDS))
            except ClayxError:
                pass
        if not s.current.schedule.loops():
            continue
        step = one_step(rng, s.current)
        try:
            s.apply(step)
        except ClayxError:
            stats["refused"] += 1
            continue
        except Exception:
            stats["crash"] += 1
            print("CRASH", seed0 + k, name, step)
            traceback.print_exc()
            continue
        stats["accepted"] += 1
        try:
            code = s.code()
        except ClayxError:
            stats["cg_refused"] += 1
            continue
        except Exception:
            stats["crash"] += 1
            print("CRASH in code generation", seed0 + k, name, step)
            traceback.print_exc()
            continue
        with tempfile.TemporaryDirectory() as tmp:
            d = pathlib.Path(tmp)
            gen = d / f"{name}.c"
            gen.write_text(code)
            try:
                ok = verify(path, gen, SMALL_SIZES[name], workdir=d / "w").ok
            except ClayxError as e:                 # a mismatch is raised
                ok = False
                print(e)
        kind = step.split("(")[0]
        stats[f"{kind}_ran"] = stats.get(f"{kind}_ran", 0) + 1
        if ok:
            stats["run_ok"] += 1
        else:
            stats["run_bad"] += 1
            print("BAD", seed0 + k, name, [str(e.step) for e in s.entries], flush=True)
    print(stats, f"{time.time() - t0:.0f}s")
    return 1 if stats["crash"] or stats["run_bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
