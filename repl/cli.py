"""The ``clayx`` command.

Forms (kept stable as later features are added):

- ``clayx FILE.c --emit c [-o OUT]``: the whole file with each SCoP region
  replaced by code generated from its schedule (everything outside the
  ``#pragma scop``/``#pragma endscop`` region unchanged);
- ``clayx FILE.scop --emit scop [-o OUT]``: read and write OpenScop;
  ``clayx FILE.c --emit scop`` writes the SCoP of a C file as OpenScop;
- ``clayx FILE`` (no ``--emit``): a summary of the SCoP(s): statements, the
  β-tree with the original iterator names, parameters, dependences by kind;
- ``clayx --demo``: the summary and regenerated code of a bundled example.

Exit status: 0 success, 1 a clayx error (message on stderr, nothing
written), 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from typing import Sequence

from clayx.errors import ClayxError

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def bundled_example(name: str) -> Path:
    """Path of a bundled example kernel (``gemm`` or ``gemm.c``)."""
    fname = name if name.endswith(".c") else f"{name}.c"
    p = Path(str(resources.files("clayx.examples").joinpath(fname)))
    if not p.is_file():
        raise ClayxError(f"no bundled example named {name!r}")
    return p


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="clayx",
        description="Interactive polyhedral loop-transformation workbench (Clay directives on isl).")
    ap.add_argument("file", nargs="?", help="C file with a '#pragma scop' region, or an OpenScop .scop file")
    ap.add_argument("--emit", choices=["c", "scop"],
                    help="write the regenerated C file, or the OpenScop form")
    ap.add_argument("-o", "--output", help="output file (default: standard output)")
    ap.add_argument("--demo", action="store_true", help="run on a bundled example")
    return ap


def summary(scops) -> str:
    """A short text summary of SCoPs: statements, β-tree, parameters,
    dependence counts."""
    from clayx.analysis import compute_dependences
    lines: list[str] = []
    for k, scop in enumerate(scops):
        if len(scops) > 1:
            lines.append(f"SCoP {k + 1}")
        lines.append(f"parameters: {', '.join(scop.params) or '(none)'}")
        lines.append(f"statements: {len(scop.statements)}, arrays: "
                     f"{', '.join(a.name for a in scop.arrays)}")
        lines.append("β-tree:")
        sched = scop.schedule

        def walk(prefix, indent):
            for kid in sched.children(prefix):
                if sched.is_loop(kid):
                    names = "/".join(scop.iterator_names(kid))
                    lines.append(f"{'  ' * indent}{list(kid)}  loop {names}")
                    walk(kid, indent + 1)
                else:
                    r = sched.relation(kid)
                    body = scop.statement(r.stmt).body.strip()
                    lines.append(f"{'  ' * indent}{list(kid)}  {r.stmt}: {body}")

        walk((), 1)
        deps = compute_dependences(scop)
        counts = deps.counts()
        lines.append("dependences: " + ", ".join(f"{k} {counts.get(k, 0)}"
                                                 for k in ("RAW", "WAR", "WAW", "RAR")))
    return "\n".join(lines) + "\n"


def run(argv: Sequence[str] | None = None, stdout=None, stderr=None) -> int:
    """Run the command line; returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    ap = _parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:  # argparse already printed the message
        return EXIT_USAGE if e.code else EXIT_OK
    if args.demo and args.file:
        print("clayx: error: --demo takes no FILE", file=stderr)
        return EXIT_USAGE
    if not args.demo and not args.file:
        ap.print_usage(stderr)
        print("clayx: error: a FILE (or --demo) is required", file=stderr)
        return EXIT_USAGE
    try:
        out = _main(args)
    except ClayxError as e:
        print(f"clayx: error: {e}", file=stderr)
        return EXIT_ERROR
    if args.output:
        try:
            Path(args.output).write_text(out)
        except OSError as e:
            print(f"clayx: error: cannot write {args.output}: {e}", file=stderr)
            return EXIT_ERROR
    else:
        stdout.write(out)
    return EXIT_OK


def _main(args) -> str:
    from clayx.frontend import load
    if args.demo:
        from clayx.codegen import generate_region
        path = bundled_example("beamforming")
        scops = load(path)
        code = "".join(f"#pragma scop\n{generate_region(s)}#pragma endscop\n" for s in scops)
        return (f"clayx demo on {path.name} ({path})\n\n" + summary(scops)
                + "\ncode regenerated from the schedule:\n" + code)
    path = Path(args.file)
    if not path.exists():
        raise ClayxError(f"{path}: no such file")
    scops = load(path)
    if args.emit == "c":
        from clayx.codegen import generate_file, generate_region
        if scops[0].source is None:
            return "".join(generate_region(s) for s in scops)
        return generate_file(scops)
    if args.emit == "scop":
        from clayx.frontend.openscop import write
        if len(scops) != 1:
            raise ClayxError(f"{path} has {len(scops)} SCoPs; OpenScop holds one")
        return write(scops[0])
    return summary(scops)


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())


if __name__ == "__main__":
    main()
