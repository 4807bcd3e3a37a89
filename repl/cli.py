"""The ``clayx`` command.

Forms (kept stable as later features are added):

- ``clayx FILE.c --emit c [-o OUT]``: the whole file with each SCoP region
  replaced by code generated from its schedule (everything outside the
  ``#pragma scop``/``#pragma endscop`` region unchanged);
- ``clayx FILE.scop --emit scop [-o OUT]``: read and write OpenScop;
  ``clayx FILE.c --emit scop`` writes the SCoP of a C file as OpenScop;
- ``clayx FILE`` (no ``--emit``): a summary of the SCoP(s): statements, the
  β-tree with the original iterator names, parameters, dependences by kind;
- ``clayx FILE --script S.clay [--emit c|omp|scop] [-o OUT]``: apply a Clay
  script in batch (each step checked against the exact dependences); without
  ``--script``, directives are read from standard input when it is not a
  terminal, else a script embedded in the file (a ``/* Clay … */`` comment
  in a C file, the ``<clay>`` extension of an OpenScop file) is applied;
  an applied ``<clay>`` extension is left out of the written OpenScop (as
  Clay does), so the output can be read again without applying it twice;
- ``--unchecked``: a script step prefixed with ``unchecked`` skips the
  legality check; the result (``--emit c|omp|scop``) is then refused unless
  ``--unchecked`` is given, and ``--emit scop`` records those steps in the
  ``<clayx_unchecked>`` extension, so a later ``clayx OUT.scop --emit …``
  is refused in turn without ``--unchecked`` (and keeps the record);
- ``clayx --list``: every directive with its signature and aliases;
- ``clayx --demo``: the summary and regenerated code of a bundled example.

On a terminal (standard input and output both terminals) and without
``--emit``/``--script``/``-o``, ``clayx FILE`` and ``clayx --demo`` open the
interactive prompt instead (:mod:`clayx_repl.app`); ``--no-color`` (or
``NO_COLOR`` in the environment) turns its colours off.

Exit status: 0 success, 1 a clayx error (message on stderr, nothing
written), 2 a usage error, 3 a legality refusal.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path
from typing import Sequence

from clayx.errors import ClayxError, LegalityError

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_ILLEGAL = 0, 1, 2, 3


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
    ap.add_argument("--emit", choices=["c", "omp", "scop"],
                    help="write the regenerated C file (omp: with OpenMP pragmas on the "
                         "parallelized loops), or the OpenScop form")
    ap.add_argument("-o", "--output", help="output file (default: standard output)")
    ap.add_argument("--script", metavar="S.clay", help="apply this Clay script")
    ap.add_argument("--unchecked", action="store_true",
                    help="write code or OpenScop even if a step was applied without the "
                         "legality check (here, or in the run that wrote the input .scop)")
    ap.add_argument("--list", action="store_true", help="list every directive and exit")
    ap.add_argument("--demo", action="store_true",
                    help="open the prompt on a bundled example (beamforming)")
    ap.add_argument("--no-color", action="store_true",
                    help="no colours at the prompt (also: NO_COLOR in the environment)")
    return ap


def summary(scops) -> str:
    """A short text summary of SCoPs: statements, β-tree, parameters,
    dependence counts."""
    from clayx.analysis import compute_dependences
    from clayx.frontend.openscop import unchecked_steps
    lines: list[str] = []
    for k, scop in enumerate(scops):
        if len(scops) > 1:
            lines.append(f"SCoP {k + 1}")
        steps = unchecked_steps(scop)
        if steps is not None:
            lines.append("NOT CHECKED: the schedule was changed without the legality check ("
                         + (" ".join(steps) or "steps not listed")
                         + "); code needs --unchecked")
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


def run(argv: Sequence[str] | None = None, stdout=None, stderr=None, stdin=None) -> int:
    """Run the command line; returns the exit status."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    stdin = stdin if stdin is not None else sys.stdin
    ap = _parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:  # argparse already printed the message
        return EXIT_USAGE if e.code else EXIT_OK
    if args.list:
        from clayx.directives import listing
        stdout.write(listing() + "\n")
        return EXIT_OK
    if args.demo and args.file:
        print("clayx: error: --demo takes no FILE", file=stderr)
        return EXIT_USAGE
    if not args.demo and not args.file:
        ap.print_usage(stderr)
        print("clayx: error: a FILE (or --demo) is required", file=stderr)
        return EXIT_USAGE
    try:
        if _interactive(args, stdin, stdout):
            from .app import main as prompt
            return prompt(bundled_example("beamforming") if args.demo else args.file,
                          demo=args.demo, no_color=args.no_color, unchecked=args.unchecked)
        out = _main(args, stdin)
    except LegalityError as e:
        print(f"clayx: refused: {e}", file=stderr)
        return EXIT_ILLEGAL
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


def _script_text(args, stdin, path: Path, scop) -> tuple[str | None, str | None]:
    """The script to apply and its name: --script, else standard input when
    it is not a terminal, else the script embedded in the file."""
    if args.script:
        try:
            return Path(args.script).read_text(), args.script
        except OSError as e:
            raise ClayxError(f"cannot read script {args.script}: {e}") from None
    if stdin is not None and not _isatty(stdin):
        try:
            text = stdin.read()
        except (OSError, ValueError):   # closed or unreadable: no script there
            text = ""
        if text.strip():
            return text, "<stdin>"
    if path.suffix == ".scop":
        from clayx.frontend.openscop import scop_clay_script
        return scop_clay_script(scop), f"{path} <clay>"
    if scop.source is not None:
        from clayx.script import extract_embedded
        return extract_embedded(scop.source), f"{path} /* Clay */"
    return None, None


def _isatty(f) -> bool:
    try:
        return f.isatty()
    except (AttributeError, ValueError):
        return False


def _interactive(args, stdin, stdout) -> bool:
    """Open the prompt: standard input and output are terminals and no
    batch output (``--emit``, ``--script``, ``-o``) was asked for."""
    return (not (args.emit or args.script or args.output)
            and _isatty(stdin) and _isatty(stdout))


def _main(args, stdin=None) -> str:
    from clayx.frontend import load
    if args.demo:
        from clayx.codegen import generate_region
        from .app import demo_hint
        path = bundled_example("beamforming")
        scops = load(path)
        code = "".join(f"#pragma scop\n{generate_region(s)}#pragma endscop\n" for s in scops)
        return (f"clayx demo on {path.name} ({path})\n\n" + summary(scops)
                + "\ncode regenerated from the schedule:\n" + code
                + "\nOn a terminal, clayx --demo opens the prompt on this example.\n"
                + demo_hint())
    path = Path(args.file)
    if not path.exists():
        raise ClayxError(f"{path}: no such file")
    from clayx.session import Session
    scops = load(path)
    text, name = _script_text(args, stdin, path, scops[0])
    session = Session(scops[0], others=tuple(scops[1:]))
    if text:
        session.apply(text, path=name)
    if args.emit in ("c", "omp"):
        return session.code(args.emit, unchecked=args.unchecked)
    if args.emit == "scop":
        if len(scops) != 1:
            raise ClayxError(f"{path} has {len(scops)} SCoPs; OpenScop holds one")
        # an applied <clay> is dropped, as Clay does, so a second run does not
        # apply it again
        return session.openscop(unchecked=args.unchecked,
                                clay_script=not (name or "").endswith("<clay>"))
    return summary([session.current, *session.others])


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())


if __name__ == "__main__":
    main()
