"""Proof by execution: compile, run and compare two C programs bit for bit.

A transformation is trusted once the original program and the generated one,
built with the same problem sizes, print exactly the same results.  Programs
print their output arrays in the PolyBench dump format::

    begin dump: C
    0.5 1.25 ...
    end   dump: C

:func:`verify` compiles both files with gcc, runs them, and compares their
outputs with :func:`compare_outputs`; a difference raises
:class:`~clayx.errors.MismatchError` naming the first differing array and
value.  gcc 12.2 was seen to miscompile an original stencil at ``-O3``
(DESIGN.md), so a mismatch is re-checked at ``-O0`` before it is blamed on
clayx.

This module depends on nothing else in clayx but :mod:`clayx.errors`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from clayx.errors import MismatchError, VerifyError

__all__ = [
    "SMALL_SIZES",
    "VerifyResult",
    "compile_c",
    "run",
    "parse_dumps",
    "compare_outputs",
    "verify",
]

#: The C compiler; ``CLAYX_CC`` in the environment overrides it.
CC = os.environ.get("CLAYX_CC", "gcc")

#: How many lines of compiler diagnostics a :class:`VerifyError` carries.
_STDERR_LINES = 40

#: Seconds allowed for one compilation.
_COMPILE_TIMEOUT = 300

#: Small but non-trivial problem sizes (``-D`` macros) for every kernel of
#: ``examples/`` (keyed by file stem, e.g. ``"fdtd-2d"``) and of the
#: PolyBench-style test corpus ``tests/data/polybench_style/`` (keyed
#: ``"pb/<stem>"``).  Every size is at least 5 and every time-step count at
#: least 2, so all loop shapes (triangles, boundaries) are exercised.
SMALL_SIZES: dict[str, dict[str, int]] = {
    "2mm": {"NI": 6, "NJ": 7, "NK": 8, "NL": 9},
    "3mm": {"NI": 5, "NJ": 6, "NK": 7, "NL": 8, "NM": 9},
    "adi": {"TSTEPS": 3, "N": 8},
    "atax": {"M": 7, "N": 9},
    "beamforming": {"N": 7, "M": 9},
    "bicg": {"M": 7, "N": 9},
    "cholesky": {"N": 9},
    "correlation": {"M": 7, "N": 9},
    "covariance": {"M": 7, "N": 9},
    "deriche": {"W": 9, "H": 7},
    "doitgen": {"NR": 5, "NQ": 6, "NP": 7},
    "durbin": {"N": 9},
    "fdtd-2d": {"TMAX": 3, "NX": 7, "NY": 9},
    "floyd-warshall": {"N": 9},
    "gemm": {"NI": 7, "NJ": 8, "NK": 9},
    "gemver": {"N": 9},
    "gesummv": {"N": 9},
    "gramschmidt": {"M": 9, "N": 7},
    "heat-3d": {"TSTEPS": 3, "N": 7},
    "jacobi-1d": {"TSTEPS": 3, "N": 11},
    "jacobi-2d": {"TSTEPS": 3, "N": 9},
    "lu": {"N": 9},
    "ludcmp": {"N": 9},
    "mvt": {"N": 9},
    "nussinov": {"N": 11},
    "seidel-2d": {"TSTEPS": 3, "N": 9},
    "symm": {"M": 7, "N": 9},
    "syr2k": {"N": 9, "M": 7},
    "syrk": {"N": 9, "M": 7},
    "trisolv": {"N": 9},
    "trmm": {"M": 7, "N": 9},
    "pb/2mm": {"NI": 6, "NJ": 7, "NK": 8, "NL": 9},
    "pb/adi": {"TSTEPS": 3, "N": 8},
    "pb/atax": {"M": 7, "N": 9},
    "pb/cholesky": {"N": 9},
    "pb/correlation": {"M": 7, "N": 9},
    "pb/gemm": {"NI": 7, "NJ": 8, "NK": 9},
    "pb/jacobi-2d": {"TSTEPS": 3, "N": 9},
    "pb/lu": {"N": 9},
    "pb/nussinov": {"N": 11},
    "pb/seidel-2d": {"TSTEPS": 3, "N": 9},
}


@dataclass(frozen=True)
class VerifyResult:
    """The outcome of :func:`verify`.

    ``ok`` is true when the outputs agree (possibly only at ``-O0``, then
    ``note`` says so); ``arrays`` names the dumped arrays compared, in
    output order, and ``values`` counts their values.  ``original_seconds``
    and ``generated_seconds`` are the wall-clock run times of the two
    programs at the requested optimization level.
    """

    ok: bool
    arrays: tuple[str, ...]
    values: int
    note: str = ""
    original_seconds: float = 0.0
    generated_seconds: float = 0.0


# ---------------------------------------------------------------------------
# Compiling and running
# ---------------------------------------------------------------------------

def _define_flag(name: str, value: int | str | None) -> str:
    if value is None or value is True:
        return f"-D{name}"
    return f"-D{name}={value}"


def compile_c(source_path: str | os.PathLike, exe_path: str | os.PathLike, *,
              defines: Mapping[str, int | str] | None = None,
              opt: str = "-O1",
              include_dirs: Iterable[str | os.PathLike] = (),
              extra_flags: Sequence[str] = (),
              openmp: bool = False,
              cc: str | None = None,
              std: str | None = "default") -> None:
    """Compile one C file into an executable with gcc.

    The command is ``gcc -std=c99 OPT -I... -DNAME=VALUE... EXTRA source -o
    exe -lm``; with ``openmp`` the standard is ``gnu99`` and ``-fopenmp`` is
    added.  A define whose value is ``None`` is passed as a bare ``-DNAME``.
    ``cc`` replaces the compiler (:data:`CC`); ``std`` the ``-std=`` value
    (None: no ``-std`` flag, the compiler's default); an empty ``opt`` adds
    no optimization flag (``extra_flags`` then carry the user's).

    Raises :class:`~clayx.errors.VerifyError` carrying the first lines of the
    compiler's diagnostics when gcc fails (or cannot be started).  The
    error's ``stderr`` attribute holds the full diagnostics and ``command``
    the argument list.
    """
    if std == "default":
        std = "gnu99" if openmp else "c99"
    cmd = [cc or CC] + ([f"-std={std}"] if std else []) + ([opt] if opt else [])
    cmd += [f"-I{d}" for d in include_dirs]
    cmd += [_define_flag(k, v) for k, v in (defines or {}).items()]
    cmd += list(extra_flags)
    if openmp:
        cmd.append("-fopenmp")
    cmd += [str(source_path), "-o", str(exe_path), "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              errors="replace", timeout=_COMPILE_TIMEOUT)
    except FileNotFoundError as exc:
        raise VerifyError(f"cannot run the C compiler {cmd[0]!r}: {exc}") from exc
    except subprocess.TimeoutExpired as exc:
        raise VerifyError(f"compiling {source_path} took more than "
                          f"{_COMPILE_TIMEOUT} s") from exc
    if proc.returncode != 0:
        lines = proc.stderr.splitlines()
        shown = "\n".join(lines[:_STDERR_LINES])
        if len(lines) > _STDERR_LINES:
            shown += f"\n... ({len(lines) - _STDERR_LINES} more lines)"
        err = VerifyError(f"compiling {source_path} failed "
                          f"(exit {proc.returncode}):\n{shown}")
        err.stderr = proc.stderr
        err.command = cmd
        raise err


def run_timed(exe_path: str | os.PathLike, timeout: float,
               env: Mapping[str, str] | None) -> tuple[str, float]:
    exe = Path(exe_path)
    # A bare relative name would be looked up on PATH.
    argv = [str(exe if exe.is_absolute() or exe.parent != Path(".")
                else Path(".") / exe)]
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=timeout,
                              env=None if env is None else dict(env))
    except subprocess.TimeoutExpired as exc:
        raise VerifyError(f"{exe} ran for more than {timeout} s "
                          "and was stopped") from exc
    except OSError as exc:
        raise VerifyError(f"cannot run {exe}: {exc}") from exc
    seconds = time.perf_counter() - start
    out = proc.stdout.decode("utf-8", errors="replace")
    err = proc.stderr.decode("utf-8", errors="replace")
    text = out + err
    if proc.returncode != 0:
        how = (f"was killed by signal {-proc.returncode}"
               if proc.returncode < 0 else f"exited with {proc.returncode}")
        tail = "\n".join(text.splitlines()[-_STDERR_LINES:])
        error = VerifyError(f"{exe} {how}" + (f":\n{tail}" if tail else ""))
        error.returncode = proc.returncode
        error.output = text
        raise error
    return text, seconds


def run(exe_path: str | os.PathLike, *, timeout: float = 60,
        env: Mapping[str, str] | None = None) -> str:
    """Run an executable and return its output: stdout, then stderr.

    ``env`` replaces the environment when given.  Raises
    :class:`~clayx.errors.VerifyError` when the program exits with a
    non-zero status or a signal (the message shows the end of its output),
    or runs longer than ``timeout`` seconds.
    """
    return run_timed(exe_path, timeout, env)[0]


# ---------------------------------------------------------------------------
# Reading and comparing outputs
# ---------------------------------------------------------------------------

_BEGIN = re.compile(r"^\s*begin\s+dump:\s*(\S+)(.*)$")
_END = re.compile(r"^\s*end\s+dump:\s*(\S*)")
_FRAME = re.compile(r"^\s*==(BEGIN|END)\s+DUMP_ARRAYS==\s*$")


def parse_dumps(text: str) -> dict[str, list[str]]:
    """The dump sections of a program's output, as name -> value tokens.

    A section runs from a ``begin dump: NAME`` line to the next ``end
    dump: NAME`` line (any spacing); its values are the whitespace-separated
    tokens in between, kept as text so that comparisons are exact.  Lines
    outside sections (PolyBench's ``==BEGIN DUMP_ARRAYS==`` framing,
    timings, messages) are ignored; a section left open at the end of the
    text keeps the values read so far.  When the same name is dumped again,
    the later sections are keyed ``NAME#2``, ``NAME#3``...  Sections are
    returned in output order.
    """
    dumps: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if current is None:
            m = _BEGIN.match(line)
            if m is None:
                continue
            name = m.group(1)
            key, k = name, 1
            while key in dumps:
                k += 1
                key = f"{name}#{k}"
            current = dumps[key] = []
            current.extend(m.group(2).split())
        elif _END.match(line):
            current = None
        elif not _FRAME.match(line):
            current.extend(line.split())
    return dumps


def _mismatch(message: str, *, array: str | None, index: int | None,
              expected: str | None, actual: str | None) -> MismatchError:
    err = MismatchError(message)
    err.array = array
    err.index = index
    err.expected = expected
    err.actual = actual
    return err


def _show(value: str | None) -> str:
    return "<nothing>" if value is None else value


def compare_outputs(expected: str, actual: str) -> None:
    """Check that two program outputs are identical; explain the first difference.

    Returns when the texts are equal.  Otherwise raises
    :class:`~clayx.errors.MismatchError` with attributes

    - ``array``: the first array (in ``expected`` order) whose values differ,
      or that is missing or extra; ``None`` when the dumps agree or there
      are none, and the difference is elsewhere in the text;
    - ``index``: the 0-based flat index of the first differing value in that
      array (for a length difference, the length of the shorter one), or,
      when ``array`` is ``None``, the 0-based index of the first differing
      line; ``None`` for a missing or extra array;
    - ``expected`` / ``actual``: the two differing tokens (or lines), ``None``
      where one side has nothing there.
    """
    if expected == actual:
        return
    exp_dumps = parse_dumps(expected)
    act_dumps = parse_dumps(actual)
    if exp_dumps or act_dumps:
        for name, exp_vals in exp_dumps.items():
            act_vals = act_dumps.get(name)
            if act_vals is None:
                raise _mismatch(
                    f"array {name} is missing from the generated program's "
                    f"output ({len(exp_vals)} values expected)",
                    array=name, index=None,
                    expected=f"{len(exp_vals)} values", actual=None)
            for i, (e, a) in enumerate(zip(exp_vals, act_vals)):
                if e != a:
                    raise _mismatch(
                        f"array {name} differs at flat index {i}: "
                        f"expected {e}, got {a}",
                        array=name, index=i, expected=e, actual=a)
            if len(exp_vals) != len(act_vals):
                i = min(len(exp_vals), len(act_vals))
                e = exp_vals[i] if i < len(exp_vals) else None
                a = act_vals[i] if i < len(act_vals) else None
                raise _mismatch(
                    f"array {name} has {len(act_vals)} values instead of "
                    f"{len(exp_vals)}; first difference at flat index {i}: "
                    f"expected {_show(e)}, got {_show(a)}",
                    array=name, index=i, expected=e, actual=a)
        for name, act_vals in act_dumps.items():
            if name not in exp_dumps:
                raise _mismatch(
                    f"the generated program dumps an unexpected array {name} "
                    f"({len(act_vals)} values)",
                    array=name, index=None, expected=None,
                    actual=f"{len(act_vals)} values")
    exp_lines = expected.splitlines()
    act_lines = actual.splitlines()
    for i in range(max(len(exp_lines), len(act_lines))):
        e = exp_lines[i] if i < len(exp_lines) else None
        a = act_lines[i] if i < len(act_lines) else None
        if e != a:
            where = "outside the dumped arrays " if exp_dumps else ""
            raise _mismatch(
                f"outputs differ {where}at line {i + 1}: "
                f"expected {_show(e)!r}, got {_show(a)!r}",
                array=None, index=i, expected=e, actual=a)
    # Same lines, different text: line endings or a final newline.
    raise _mismatch("outputs differ in line endings or the final newline",
                    array=None, index=len(exp_lines), expected=None, actual=None)


# ---------------------------------------------------------------------------
# The whole check
# ---------------------------------------------------------------------------

def _build_and_run(original: Path, generated: Path, work: Path, tag: str,
                   defines: Mapping[str, int | str], opt: str,
                   include_dirs: Sequence[str | os.PathLike], openmp: bool,
                   timeout: float) -> tuple[str, str, float, float]:
    exe_o = work / f"original{tag}"
    exe_g = work / f"generated{tag}"
    compile_c(original, exe_o, defines=defines, opt=opt,
              include_dirs=include_dirs, openmp=openmp)
    compile_c(generated, exe_g, defines=defines, opt=opt,
              include_dirs=include_dirs, openmp=openmp)
    out_o, t_o = run_timed(exe_o, timeout, None)
    out_g, t_g = run_timed(exe_g, timeout, None)
    return out_o, out_g, t_o, t_g


def verify(original_file: str | os.PathLike, generated_file: str | os.PathLike,
           sizes: Mapping[str, int] | None = None, *,
           opt: str = "-O1",
           include_dirs: Sequence[str | os.PathLike] = (),
           openmp: bool = False,
           workdir: str | os.PathLike | None = None,
           recheck_O0: bool = True,
           timeout: float = 60) -> VerifyResult:
    """Compile and run the original and the generated program; compare outputs.

    Both files are built with the same ``-D`` ``sizes``, optimization level
    and include directories (the directories of both files are searched
    after ``include_dirs``, so a generated file written elsewhere still finds
    the original's headers), run with a ``timeout`` in seconds each, and
    their outputs compared bit for bit with :func:`compare_outputs`.

    On a mismatch with ``recheck_O0`` (and ``opt`` not already ``-O0``) both
    are rebuilt at ``-O0``: if they agree there, the result is ``ok`` with a
    ``note`` describing the optimization-level discrepancy (gcc has been seen
    to miscompile stencils at ``-O3``); otherwise the ``-O0``
    :class:`~clayx.errors.MismatchError` is raised.

    Executables go to ``workdir`` when given (created if needed, kept),
    otherwise to a temporary directory removed afterwards.  Compilation or
    run failures raise :class:`~clayx.errors.VerifyError`.
    """
    original = Path(original_file).resolve()
    generated = Path(generated_file).resolve()
    for path in (original, generated):
        if not path.is_file():
            raise VerifyError(f"no such C file: {path}")
    defines = dict(sizes or {})
    incs: list[str | os.PathLike] = list(include_dirs)
    for d in (original.parent, generated.parent):
        if d not in incs:
            incs.append(d)

    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="clayx-verify-")
        work = Path(tmp)
    else:
        tmp = None
        work = Path(workdir)
        work.mkdir(parents=True, exist_ok=True)
    try:
        out_o, out_g, t_o, t_g = _build_and_run(
            original, generated, work, "", defines, opt, incs, openmp, timeout)
        note = ""
        try:
            compare_outputs(out_o, out_g)
        except MismatchError as first:
            if not recheck_O0 or opt == "-O0":
                raise
            o0_o, o0_g, _, _ = _build_and_run(
                original, generated, work, "_O0", defines, "-O0", incs,
                openmp, timeout)
            try:
                compare_outputs(o0_o, o0_g)
            except MismatchError as second:
                raise second from first
            note = (f"outputs differ at {opt} but agree at -O0, so the "
                    f"difference comes from the compiler's optimization, "
                    f"not from the transformation; at {opt}: {first}")
            out_o = o0_o
        dumps = parse_dumps(out_o)
        return VerifyResult(ok=True, arrays=tuple(dumps),
                            values=sum(len(v) for v in dumps.values()),
                            note=note, original_seconds=t_o,
                            generated_seconds=t_g)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
