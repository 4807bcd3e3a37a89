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
  script in batch (each step checked against the exact dependences);
  ``--script -`` reads it from standard input (never read otherwise, so
  ``clayx`` inside a ``while read`` loop leaves the loop's input alone);
  without ``--script``, a script embedded in the file (a ``/* Clay … */``
  comment in a C file, the ``<clay>`` extension of an OpenScop file) is
  applied, as Clay does; an applied ``<clay>`` extension is left out of the
  written OpenScop (as Clay does), so the output can be read again without
  applying it twice; ``print(…)`` writes to standard error as in Clay;
- an OpenScop file may hold several SCoPs (the script transforms the
  first, ``--emit scop`` writes all of them, the others as read) or none
  (``--emit scop`` writes ``# NULL scop`` as Clay does, ``--emit c`` nothing);
- ``--unchecked``: a script step prefixed with ``unchecked`` skips the
  legality check; the result (``--emit c|omp|scop``) is then refused unless
  ``--unchecked`` is given, and ``--emit scop`` records those steps in the
  ``<clayx_unchecked>`` extension, so a later ``clayx OUT.scop --emit …``
  is refused in turn without ``--unchecked`` (and keeps the record);
- ``clayx FILE.c [--script S] --run [--threads N] [--repeat R] [-D NAME=V …]``:
  compile the original and the transformed program (``$CC``/``$CFLAGS``,
  default ``gcc -O3 -fopenmp``), check that every run prints the same
  output (a difference is a failed verification, exit 1), and report the
  median time of the SCoP regions themselves and the speedup
  (:mod:`clayx.run`);
- ``clayx FILE.c --auto [PRESET] [--tile N] [--isl NAME=V …] [--emit
  script|c|omp|scop] [-o OUT]``: isl's automatic schedule (``PRESET``
  ``cpu`` (default), ``gpu``, ``feautrier``, ``nofuse``, ``maxfuse``; band
  chains tiled by ``N``, default 32, 0 for none; ``--isl`` overrides an isl
  scheduler option), whiteboxed into a Clay script that is replayed and
  checked before it is shown (:meth:`clayx.Session.auto`); by default the
  script is printed, a one-line comment per step, and it replays unchanged
  with ``clayx FILE.c --script OUT``; ``--emit c|omp|scop`` writes the
  result of applying it instead;
- ``clayx ORIG --whitebox TARGET [--emit script|c|omp|scop]``: the same for
  an external target: a ``.c`` or ``.scop`` file (Clay's or Pluto's
  scattering), or an isl schedule (a ``ppcg --save-schedule`` YAML tree or
  a union map, in a file or as text); a target that breaks a dependence is
  refused with the legality witness (exit 3), a part with no Clay
  expression is an error naming it (exit 1);
- ``--emit script``: the applied steps as a Clay script;
- ``clayx FILE.c --tune [--budget SECONDS] [--threads N] [-D NAME=V …]
  [--emit c|omp] [-o OUT]``: search schedules (presets of the automatic
  scheduler, tile sizes, loop orders, marks) by compiling, verifying and
  timing each (:mod:`clayx.tune`); the table of candidates on standard
  error, the fastest as a Clay script (or, with ``--emit``, as code) on
  standard output or in ``OUT``; the original when nothing beats it;
- ``clayx --list``: every directive with its signature and aliases
  (``--list --clay``: Clay's prototype strings, in Clay's order);
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
import warnings
from importlib import resources
from pathlib import Path
from typing import Sequence

from clayx.errors import ClayxError, DirectiveWarning, InputWarning, LegalityError

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
    ap.add_argument("--emit", choices=["script", "c", "omp", "scop", "cuda", "cuda-emulated"],
                    help="write the regenerated C file (omp: with OpenMP pragmas on the "
                         "parallelized loops; cuda: a .cu file mapping them to the GPU; "
                         "cuda-emulated: plain C running that mapping), the OpenScop form, "
                         "or the Clay script (the default with --auto/--whitebox)")
    ap.add_argument("--block", metavar="X[,Y[,Z]]",
                    help="with --emit cuda: threads per block along x, y, z")
    ap.add_argument("--shared-memory", action="store_true",
                    help="with --emit cuda: copy reused tiles of the arrays a kernel only "
                         "reads to shared memory (PPCG's --shared-memory)")
    ap.add_argument("--grid", metavar="X[,Y[,Z]]",
                    help="with --emit cuda: blocks per grid along x, y, z (default: "
                         "enough for each mapped loop)")
    ap.add_argument("-o", "--output", help="output file (default: standard output)")
    ap.add_argument("--script", metavar="S.clay",
                    help="apply this Clay script ('-': read it from standard input)")
    ap.add_argument("--unchecked", action="store_true",
                    help="write code or OpenScop even if a step was applied without the "
                         "legality check (here, or in the run that wrote the input .scop)")
    ap.add_argument("--run", action="store_true",
                    help="compile the original and the transformed program ($CC, $CFLAGS; "
                         "default gcc -O3 -fopenmp), check they print the same output, and "
                         "report the time of the SCoP regions and the speedup (with --auto or "
                         "--whitebox: the recovered script is printed, then its program timed)")
    ap.add_argument("--threads", type=int, metavar="N",
                    help="with --run or --tune: OMP_NUM_THREADS of the programs run")
    ap.add_argument("--repeat", type=int, default=5, metavar="R",
                    help="with --run: runs of each program (median reported; default 5)")
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME=V",
                    help="with --run or --tune: a -D definition for every compilation (repeatable)")
    ap.add_argument("--auto", nargs="?", const="cpu", metavar="PRESET",
                    help="isl's automatic schedule as a verified Clay script (presets: cpu "
                         "(default), gpu, feautrier, nofuse, maxfuse)")
    ap.add_argument("--tile", type=int, metavar="N",
                    help="with --auto: tile size of the permutable bands (default 32; 0: "
                         "no tiling)")
    ap.add_argument("--isl", action="append", default=[], metavar="NAME=V",
                    help="with --auto: an isl scheduler option (outer_coincidence=1, "
                         "proximity=RAW,WAR …; repeatable)")
    ap.add_argument("--whitebox", metavar="TARGET",
                    help="the verified Clay script from FILE's schedule to TARGET's (a .c or "
                         ".scop file, an isl schedule tree (YAML) or union map file or text)")
    ap.add_argument("--tune", action="store_true",
                    help="search schedules by compiling, verifying and timing them (-D sizes, "
                         "--threads); writes the fastest as a Clay script, or as code with --emit")
    ap.add_argument("--budget", type=float, metavar="SECONDS",
                    help="with --tune: seconds for the search (default 60)")
    ap.add_argument("--list", action="store_true", help="list every directive and exit")
    ap.add_argument("--clay", action="store_true",
                    help="with --list: Clay's prototype strings instead, in Clay's order")
    ap.add_argument("--demo", action="store_true",
                    help="open the prompt on a bundled example (beamforming)")
    ap.add_argument("--no-color", action="store_true",
                    help="no colours at the prompt (also: NO_COLOR in the environment)")
    return ap


def summary(scops, deps=None) -> str:
    """A short text summary of SCoPs: statements, β-tree
    (:func:`clayx.view.tree_text`, the prompt's), parameters, dependence
    counts; ``deps`` gives the dependences of each SCoP (a session's
    :attr:`~clayx.session.Session.deps`; None or left out: those of its
    origin, :func:`clayx.view.dependences`)."""
    from clayx.view import dependences, tree_text, unchecked_steps
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
        lines.append(tree_text(scop, width=10_000).rstrip("\n"))
        d = deps[k] if deps is not None and deps[k] is not None else dependences(scop)
        counts = d.counts()
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
        from clayx.directives import clay_listing, listing
        stdout.write((clay_listing() if args.clay else listing()) + "\n")
        return EXIT_OK
    if args.clay:
        print("clayx: error: --clay goes with --list", file=stderr)
        return EXIT_USAGE
    if args.demo and args.file:
        print("clayx: error: --demo takes no FILE", file=stderr)
        return EXIT_USAGE
    if args.run and args.emit:
        print("clayx: error: --run reports times; it takes no --emit", file=stderr)
        return EXIT_USAGE
    bad = _usage_errors(args)
    if bad:
        print(f"clayx: error: {bad}", file=stderr)
        return EXIT_USAGE
    if not args.file and args.auto and Path(args.auto).suffix in (".c", ".scop"):
        args.file, args.auto = args.auto, "cpu"     # clayx --auto FILE.c
    if args.tune and (args.run or args.script or args.emit == "scop"):
        print("clayx: error: --tune starts from the original program; it takes no --run, "
              "--script or --emit scop", file=stderr)
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
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", InputWarning)
            warnings.simplefilter("always", DirectiveWarning)
            try:
                out = _main(args, stdin, stderr)
            finally:
                for w in seen:
                    if issubclass(w.category, (InputWarning, DirectiveWarning)):
                        print(f"clayx: warning: {w.message}", file=stderr)
                    else:
                        warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    except LegalityError as e:
        print(f"clayx: refused: {e}", file=stderr)
        return EXIT_ILLEGAL
    except ClayxError as e:
        caret = _argument_caret(e, getattr(args, "script_text", None))
        if caret:
            print(f"clayx: error: {caret}", file=stderr)
            return EXIT_ERROR
        # an error about no place in the input (code generation…) names the file
        where = ("" if getattr(e, "line", None) is not None or getattr(e, "path", None)
                 or not args.file else f"{args.file}: ")
        print(f"clayx: error: {where}{e}", file=stderr)
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


def _argument_caret(e: ClayxError, script) -> str | None:
    """A step's argument error as the prompt shows it: ``NAME:LINE:COL:``
    at the offending argument (:func:`clayx.script.argument_position`), the
    message, the script line and a caret under the argument; None when the
    error has no place in a script."""
    from clayx.errors import DirectiveError
    from clayx.script import argument_position
    if not isinstance(e, DirectiveError) or e.line is None or not script or not script[0]:
        return None
    text, name = script
    line, col = e.line, e.column or 1
    if e.argument is not None:
        line, col = argument_position(text, line, col, e.argument)
    lines = text.split("\n")
    src = lines[line - 1] if 0 < line <= len(lines) else ""
    step = f"error in {e.directive}: " if e.directive else ""
    arg = f"argument {e.argument}: " if e.argument is not None else ""
    return (f"{name}:{line}:{col}: {step}{arg}{e.message}\n"
            f"  {src}\n  {' ' * (col - 1)}^")


def _script_text(args, stdin, path: Path, scop) -> tuple[str | None, str | None]:
    """The script to apply and its name: ``--script`` (``-``: standard
    input), else the script embedded in the file (Clay: the ``<clay>``
    extension)."""
    from clayx.view import embedded_script, read_script

    if args.script == "-":
        try:
            data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        except (OSError, ValueError) as e:   # closed or unreadable
            raise ClayxError(f"cannot read the script from standard input: {e}") from None
        if isinstance(data, bytes):
            data = read_script(data, "<stdin>", ClayxError)
        return data, "<stdin>"
    if args.script:
        return read_script(args.script, args.script,
                           lambda why: ClayxError(f"cannot read script {args.script}: {why}")
                           ), args.script
    if scop is None:
        return None, None
    return embedded_script(scop, path) or (None, None)


def _isatty(f) -> bool:
    try:
        return f.isatty()
    except (AttributeError, ValueError):
        return False


def _interactive(args, stdin, stdout) -> bool:
    """Open the prompt: standard input and output are terminals and no
    batch output (``--emit``, ``--script``, ``-o``) was asked for."""
    return (not (args.emit or args.script or args.output or args.run or args.auto
                 or args.whitebox or args.tune)
            and _isatty(stdin) and _isatty(stdout))


def _usage_errors(args) -> str | None:
    """What is wrong with the combination of ``--auto``/``--whitebox``
    options, None when nothing is."""
    if args.auto and args.whitebox:
        return "--auto and --whitebox exclude each other"
    if not args.auto and (args.tile is not None or args.isl):
        return "--tile and --isl go with --auto"
    if args.tile is not None and args.tile < 0:
        return f"--tile must be 0 (no tiling) or more, not {args.tile}"
    return None


def _whitebox(args, session):
    """``--auto``/``--whitebox``: the :class:`~clayx.WhiteboxResult` from
    the session's current schedule."""
    if args.auto:
        tile = 32 if args.tile is None else args.tile
        from .auto import isl_options
        return session.auto_result(args.auto, tile, **isl_options(args.isl))
    return session.whitebox(args.whitebox)


def script_text(result, what: str) -> str:
    """A recovered script as ``--emit script`` prints it: a header comment
    (what, number of steps, how it was checked), then one step a line with
    its comment."""
    n = len(result.steps)
    how = ("replayed: every instance gets the target's date" if result.exact
           else f"replayed: {result.note}")
    return f"# {what}: {n} step{'s' * (n != 1)}, {how}\n" + result.text()


def _main(args, stdin=None, stderr=None) -> str:
    from clayx.view import read_scops as load
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
    # the script is read (a file that cannot be read is an error, as in Clay)
    # but parsed only when there is a SCoP to apply it to
    text, name = _script_text(args, stdin, path, scops[0] if scops else None)
    args.script_text = (text, name)    # for the caret of an argument error
    if not scops:           # an OpenScop file without a SCoP (osl's NULL scop):
        return _null_scop(args)     # Clay prints "# NULL scop" and never parses the script
    session = Session(scops[0], others=tuple(scops[1:]))
    if text:
        entries = session.apply(text, path=name)
        _print_outputs(entries, session, stderr)
    if args.emit == "script" and not (args.auto or args.whitebox):
        return str(session.script)
    if args.auto or args.whitebox:
        result = _whitebox(args, session)
        what = (f"clayx --auto {args.auto} --tile "
                f"{32 if args.tile is None else args.tile}" if args.auto
                else f"clayx --whitebox {args.whitebox}")
        recovered = script_text(result, f"{what} on {path.name}")
        if args.emit in (None, "script") and not args.run:
            return recovered
        session.apply(result.script)
        if args.run:        # the recovered script, then the times of its code
            return recovered + _measure(session, args)
    # an applied <clay> is dropped, as Clay does, so a second run does not
    # apply it again
    applied_clay = (name or "").endswith("<clay>")
    if args.tune:
        from clayx.tune import DEFAULT_BUDGET, tune_command
        return tune_command(session, emit=args.emit, stderr=stderr, defines=_defines(args),
                            threads=_threads(args), budget=args.budget or DEFAULT_BUDGET)
    if args.emit in ("c", "omp"):
        _need_bodies([session.current, *session.others])
        code = session.code(args.emit, unchecked=args.unchecked)
        if session.current.source is None:      # OpenScop: every SCoP's region
            code += "".join(_region(o, args) for o in session.others)
        return code
    if args.emit == "scop":
        return _openscop(session, path, args.unchecked, applied_clay)
    if args.emit in ("cuda", "cuda-emulated"):
        return _cuda(session, args)
    if args.run:
        return _measure(session, args)
    return summary([session.current, *session.others],
                   deps=[session.deps] + [None] * len(session.others))


def _measure(session, args) -> str:
    """``--run``: the region-time report of the original against the
    transformed program (:func:`clayx.run.measure_session`)."""
    from clayx.run import measure_session
    result = measure_session(session, unchecked=args.unchecked, defines=_defines(args),
                             threads=_threads(args), repeat=args.repeat)
    return result.table() + "\n"


def _defines(args) -> dict[str, str | None]:
    """The ``-D NAME=V`` options as a dict (``-D NAME``: None)."""
    defines: dict[str, str | None] = {}
    for d in args.defines:
        name, eq, value = d.partition("=")
        if not name.isidentifier():
            raise ClayxError(f"-D {d}: expected NAME or NAME=VALUE")
        defines[name] = value if eq else None
    return defines


def _threads(args) -> int | None:
    """``--threads``, checked."""
    if args.threads is not None and args.threads < 1:
        raise ClayxError(f"--threads must be at least 1, not {args.threads}")
    return args.threads


def _sizes(text: str | None, option: str) -> tuple[int, ...] | None:
    """``--block 32,8`` as (32, 8): one to three positive integers."""
    if text is None:
        return None
    try:
        sizes = tuple(int(x) for x in text.split(","))
    except ValueError:
        sizes = ()
    if not 1 <= len(sizes) <= 3 or min(sizes) < 1:
        raise ClayxError(f"{option} {text}: expected one to three positive integers X[,Y[,Z]]")
    return sizes


def _cuda(session, args) -> str:
    """``--emit cuda`` / ``cuda-emulated``: the whole file with the marked
    loops mapped to the GPU (:func:`clayx.gpu.cuda_code`)."""
    from clayx.gpu import cuda_code, nested_parallel_marks
    scops = [session.current, *session.others]
    if args.auto:           # as PPCG maps a band: the parallel loops right inside too
        scops[0] = nested_parallel_marks(scops[0], session.deps)
    _need_bodies(scops)
    if session.has_unchecked and not args.unchecked:
        raise LegalityError("cannot generate code: a step was applied without the legality "
                            "check; pass --unchecked to generate code anyway")
    if session.current.source is None:
        raise ClayxError("--emit cuda needs a C file (an OpenScop file has no host code)")
    return cuda_code(scops, emulate=args.emit == "cuda-emulated",
                     block=_sizes(args.block, "--block"), grid=_sizes(args.grid, "--grid"),
                     shared=args.shared_memory)


def _need_bodies(scops) -> None:
    """Code needs every statement's text: an OpenScop file may have none
    (schedule work needs none)."""
    for scop in scops:
        for st in scop.statements:
            if not st.body.strip():
                raise ClayxError(f"statement {st.name} has no <body> text: its code "
                                 "cannot be generated (--emit scop needs none)")


def _null_scop(args) -> str:
    """What a file without a SCoP gives: Clay's ``# NULL scop`` as OpenScop,
    no code, a one-line summary."""
    from clayx.view import write_openscop
    if args.emit == "scop":
        return write_openscop([])
    if args.emit in ("c", "omp"):
        return ""
    return "no SCoP (the file holds no <OpenScop> block)\n"


def _region(scop, args) -> str:
    """The code of a further SCoP of an OpenScop file (untransformed)."""
    from clayx.codegen import generate_region
    from clayx.view import unchecked_steps
    if unchecked_steps(scop) is not None and not args.unchecked:
        raise LegalityError("cannot generate code: a SCoP of the file was read with a record "
                            "(<clayx_unchecked>) of steps applied without the legality "
                            "check; pass --unchecked to generate code anyway")
    return generate_region(scop, target=args.emit)


def _openscop(session, path: Path, unchecked: bool, applied_clay: bool) -> str:
    """``--emit scop``: the transformed SCoP, then the file's other SCoPs as
    read (an OpenScop file may hold several, which Clay prints all)."""
    from clayx.view import write_openscop
    if session.others and session.current.source is not None:
        raise ClayxError(f"{path} has {1 + len(session.others)} SCoPs; clayx writes the "
                         "OpenScop of a C file with one")
    first = session.openscop(unchecked=unchecked, clay_script=not applied_clay)
    return first + (write_openscop(session.others, banner=False) if session.others else "")


def _print_outputs(entries, session, stderr) -> None:
    """What the script's ``print(…)`` steps print, on standard error, in
    Clay's form (``ref array [0,0]``)."""
    from clayx.script import clay_print
    if stderr is None:
        return
    env: dict = {}
    done = session.entries
    start = len(done) - len(entries)
    if start > 0:
        env = dict(done[start - 1].env)
    for e in entries:
        if e.step.call.name == "print":
            text = clay_print(e.step.call, env)
            print(e.output if text is None else text, file=stderr)
        env = e.env


def main() -> None:
    """Console-script entry point."""
    sys.exit(run())


if __name__ == "__main__":
    main()
