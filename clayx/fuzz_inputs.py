"""Fuzzing the ``clayx`` command with corrupted inputs: C, OpenScop, scripts.

Where :mod:`clayx.fuzz` draws *valid* directive sequences to test code
generation, this module feeds the command line malformed input, mutated from
real files (the examples' C kernels, the OpenScop files of the tests and the
OpenScop clayx writes for the examples, scripts taken from the tests) with
byte flips, deleted, duplicated or swapped lines, truncation, deep nesting,
injected tokens and foreign encodings.  Each mutated input is run through
:func:`clayx_repl.cli.run`, in a forked worker process with a time limit,
and the outcome must be one of:

- a result (exit 0 or 3, the output file written; code generated from an
  OpenScop file must read as C);
- one ``clayx: error: …`` (exit 1) or usage error (exit 2) whose message
  shows a position (``line:column``, ``line N`` or at least the file), no
  Python traceback, and no output file written;

never an exception escaping :func:`~clayx_repl.cli.run` nor a run past the
time limit (a hang).  Script cases are also applied to a
:class:`~clayx.session.Session` directly: after an error the session must be
unchanged.

The pytest slice (``tests/test_fuzz_inputs.py``) and
``scripts/fuzz_inputs.py`` (a bigger seeded run) share :func:`cases` and
:class:`Runner`::

    with Runner(timeout=20) as runner:
        for case in cases(seed=0, count=200, root=ROOT):
            outcome = runner.run(case)
            assert outcome.ok, outcome.problem
"""

from __future__ import annotations

import io
import multiprocessing as mp
import os
import random
import re
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

__all__ = ["Case", "Outcome", "Runner", "cases", "seeds"]

#: Tokens spliced into inputs: C and Clay syntax, OpenScop tags, odd numbers.
TOKENS = (
    "#pragma scop\n", "#pragma endscop\n", "#pragma /* x */ scop\n", "<OpenScop>\n",
    "</OpenScop>\n", "<clay>\n", "</clay>\n", "<body>\n", "</body>\n", "<arrays>\n",
    "<scatnames>\n", "<strings>\n", "</strings>\n", "DOMAIN\n", "SCATTERING\n", "READ\n",
    "WRITE\n", "-1", "0", "1", "2", "65535", "70000", "2147483648", "9223372036854775808",
    "99999999999999999999999999", "-9223372036854775809", "for", "while", "if", "else",
    "(", ")", "[", "]", "{", "}", ";", ",", "|", "||", "#", "//", "/*", "*/", '"', "\\",
    "\r\n", "\t", "\u00a0", "\u00e9", "\x00", "\ufeff", "true", "false", "x = ", "get_beta_loop(",
    "get___beta_loop(1)", "reorder(", "iss([0], {1||-3});", "interchange([0,0], 1, 2, 0);",
    "break();", "print(", "unchecked ", "N", "i", "a[i]", "*p", "&x", "goto l;",
)


@dataclass(frozen=True)
class Case:
    """One run of the command: the mutated file, its role and the arguments.

    ``kind`` is ``c``, ``scop`` or ``script``; ``data`` the mutated bytes,
    written to ``name`` in a fresh directory; ``target`` the C kernel a
    script is applied to (script cases); ``emit`` the ``--emit`` form;
    ``mutation`` says how ``data`` was made (for reproducing a failure).
    """

    kind: str
    name: str
    data: bytes
    emit: str
    mutation: str
    target: str | None = None
    seed: int = 0

    def argv(self, directory: Path) -> list[str]:
        """The command line for this case, files in ``directory``."""
        f = str(directory / self.name)
        out = ["--emit", self.emit, "-o", str(directory / "out")]
        if self.kind == "script":
            return [str(directory / Path(self.target).name), "--script", f, *out]
        return [f, *out]


@dataclass
class Outcome:
    """What a case gave: exit status, standard error, whether the output file
    was written, the escaped exception (a traceback) if any, the time taken,
    and ``problem``: empty when the outcome is acceptable."""

    rc: int | None
    stderr: str = ""
    wrote: bool = False
    exception: str = ""
    seconds: float = 0.0
    problem: str = ""
    session: str = ""

    @property
    def ok(self) -> bool:
        """True when the outcome is acceptable (a result or one clear error)."""
        return not self.problem


# --------------------------------------------------------------------------- seeds

def _legality_scripts(root: Path) -> list[tuple[str, str]]:
    """(kernel stem, script) rows of the legality corpus whose kernel is an
    example file."""
    text = (root / "tests" / "test_legality_corpus.py").read_text()
    out = []
    for kernel, script in re.findall(r'^\s+[LX]\("[^"]*", "([^"]+)", "([^"]+)"', text, re.M):
        if (root / "examples" / f"{kernel}.c").exists():
            out.append((kernel, script))
    return out


#: Scripts in Clay's own forms (the reference's examples) and clayx's.
CLAY_SCRIPTS = (
    ("gemm", "# Clay forms\ninterchange([0,1], 2, 3, 0);\nsplit([0,0], true);\n"),
    ("gemm", "i = get_beta_loop(1);\nprint(i);\nreorder(i, [1, 0]);\n"),
    ("jacobi-2d", "iss([0], {1||-3});\nstripmine([0,0], 2, 4);\nbreak();\nignored(\n"),
    ("gemm", "tile([0,1], 3, 2, 32);\nparallelize([0]);\nunroll([0,1,0,0], 4);\n"),
    ("atax", "fuse([0]);\nshift([1], 1, [], -1);\nskew([0,0], 2, 1, -1);\n"),
    ("gemm", 'a = get_beta_loop_by_name("k");\nreverse([0,1], 2);\nprint({1 | | -6});\n'),
    ("mvt", "unchecked fuse([0]);\ndimreorder_access([0,0,0], 1, [1,0]);\ncollapse([0]);\n"),
)


def seeds(root: Path) -> dict[str, list[tuple[str, bytes, str | None]]]:
    """The unmutated inputs by kind: ``c`` and ``scop`` as (file name, bytes,
    None), ``script`` as (file name, bytes, kernel path)."""
    from .codegen import generate_region  # noqa: F401  (warm the imports once)
    ex = root / "examples"
    c = [(p.name, p.read_bytes(), None) for p in sorted(ex.glob("*.c")) if p.name != "__init__.py"]
    c += [(p.name, p.read_bytes(), None)
          for p in sorted((root / "tests" / "data" / "polybench_style").glob("*.c"))]
    scop = [(p.name, p.read_bytes(), None)
            for p in sorted((root / "tests" / "data" / "openscop").glob("*.scop"))]
    scop += [(p.name, p.read_bytes(), None)
             for p in sorted((root / "tests" / "data" / "clay").glob("*.scop"))]
    scop += [(f"{stem}.scop", _openscop_of(ex / f"{stem}.c").encode(), None)
             for stem in ("gemm", "jacobi-2d", "atax", "beamforming", "lu")]
    script = [("s.clay", (s + "\n").encode(), str(ex / f"{k}.c"))
              for k, s in _legality_scripts(root)]
    script += [("s.clay", s.encode(), str(ex / f"{k}.c")) for k, s in CLAY_SCRIPTS]
    return {"c": c, "scop": scop, "script": script}


def _openscop_of(path: Path) -> str:
    from .frontend import load
    from .frontend.openscop import write
    return write(load(path)[0])


# --------------------------------------------------------------------------- mutations

def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def mutate(rng: random.Random, data: bytes, kind: str) -> tuple[bytes, str]:
    """``data`` changed by one to three random mutations; returns the bytes
    and a description of the mutations."""
    what = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        data, w = _mutate_once(rng, data, kind)
        what.append(w)
    return data, "; ".join(what)


#: The mutations by kind of input (repeated ones are drawn more often):
#: numbers are changed most in OpenScop matrices and scripts, so that many
#: inputs stay well-formed and reach the model, the analysis and codegen.
_OPS = {
    "c": ("flip", "flip", "delete_line", "delete_line", "dup_line", "swap_lines", "truncate",
          "token", "token", "token", "nest", "number", "number", "number", "encoding",
          "blank_line"),
    "scop": ("flip", "delete_line", "delete_line", "dup_line", "swap_lines", "truncate",
             "token", "nest", "number", "number", "number", "number", "number", "number",
             "encoding", "blank_line"),
    "script": ("flip", "flip", "delete_line", "dup_line", "swap_lines", "truncate", "token",
               "token", "token", "nest", "number", "number", "number", "number", "encoding"),
}


def _mutate_once(rng: random.Random, data: bytes, kind: str) -> tuple[bytes, str]:
    op = rng.choice(_OPS[kind])
    n = len(data)
    if op == "flip" and n:
        k = rng.randrange(n)
        b = rng.choice((rng.randrange(256), ord(rng.choice("0123456789-;,()[]{}|#<>/* \n"))))
        return data[:k] + bytes([b]) + data[k + 1:], f"flip byte {k} to {b}"
    lines = _lines(data)
    if op == "delete_line" and len(lines) > 1:
        k = rng.randrange(len(lines))
        return b"\n".join(lines[:k] + lines[k + 1:]), f"delete line {k + 1}"
    if op == "blank_line" and len(lines) > 1:
        k = rng.randrange(len(lines))
        return b"\n".join(lines[:k] + [b""] + lines[k + 1:]), f"blank line {k + 1}"
    if op == "dup_line" and lines:
        k = rng.randrange(len(lines))
        return b"\n".join(lines[:k + 1] + lines[k:]), f"duplicate line {k + 1}"
    if op == "swap_lines" and len(lines) > 1:
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
        return b"\n".join(lines), f"swap lines {a + 1} and {b + 1}"
    if op == "truncate" and n:
        k = rng.randrange(n)
        return data[:k], f"truncate at {k}"
    if op == "nest":
        k = rng.randrange(n + 1)
        depth = rng.choice((3, 50, 400, 3000))
        piece = rng.choice(("{", "(", "[", "f(", "get_beta_loop(", "for (i = 0; i < n; i++) {",
                            "if (n > 0) {", "((", "<OpenScop>\n"))
        return data[:k] + (piece * depth).encode() + data[k:], f"nest {piece!r} x{depth} at {k}"
    if op == "number":
        nums = list(re.finditer(rb"-?\d+", data))
        if nums:
            m = rng.choice(nums)
            new = rng.choice((b"0", b"-1", b"1", b"3", b"7", b"-7", b"64", b"70000",
                              b"9223372036854775807", b"2147483648", b"99999999999999999999"))
            return data[:m.start()] + new + data[m.end():], f"number at {m.start()} -> {new!r}"
    if op == "encoding":
        choice = rng.choice(("latin1", "bom", "crlf", "utf16", "nul"))
        if choice == "latin1":
            k = rng.randrange(n + 1)
            return data[:k] + b"\xe9\xff" + data[k:], f"latin-1 bytes at {k}"
        if choice == "bom":
            return b"\xef\xbb\xbf" + data, "UTF-8 BOM"
        if choice == "crlf":
            return data.replace(b"\n", b"\r\n"), "CRLF line ends"
        if choice == "utf16":
            return data.decode("utf-8", "replace").encode("utf-16"), "UTF-16"
        k = rng.randrange(n + 1)
        return data[:k] + b"\x00" + data[k:], f"NUL byte at {k}"
    k = rng.randrange(n + 1)
    tok = rng.choice(TOKENS).encode()
    return data[:k] + tok + data[k:], f"insert {tok!r} at {k}"


def cases(seed: int, count: int, root: Path, kinds: tuple[str, ...] = ("c", "scop", "script")
          ) -> Iterator[Case]:
    """``count`` seeded cases, the kinds in turn (case ``k`` uses the random
    generator seeded with ``seed + k``, so any case can be reproduced alone)."""
    pool = seeds(root)
    for k in range(count):
        rng = random.Random(seed + k)
        kind = kinds[(seed + k) % len(kinds)]
        name, data, target = rng.choice(pool[kind])
        if rng.random() < 0.05:
            mutated, what = data, "unchanged"
        else:
            mutated, what = mutate(rng, data, kind)
        emit = rng.choice(("c", "omp", "scop")) if kind != "script" else rng.choice(("c", "scop"))
        yield Case(kind, name, mutated, emit, f"{name}: {what}", target, seed + k)


# --------------------------------------------------------------------------- running

_POSITION = re.compile(r":\d+(:\d+)?: |\bline \d+|:\d+:\d+|<[a-z]+>:|\.(c|scop|clay)\b")


def run_case(case: Case) -> Outcome:
    """Run ``case`` in this process and judge the outcome (see the module
    docstring)."""
    from clayx_repl.cli import run
    with tempfile.TemporaryDirectory(prefix="clayx-fuzz-") as d:
        d = Path(d)
        (d / case.name).write_bytes(case.data)
        if case.target:
            (d / Path(case.target).name).write_bytes(Path(case.target).read_bytes())
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        try:
            rc = run(case.argv(d), stdout=out, stderr=err, stdin=io.StringIO(""))
        except BaseException:                       # noqa: BLE001 - that is the finding
            return Outcome(None, err.getvalue(), (d / "out").exists(),
                           traceback.format_exc(), time.perf_counter() - t0,
                           "uncaught exception")
        o = Outcome(rc, err.getvalue(), (d / "out").exists(), "", time.perf_counter() - t0)
        o.problem = _judge(o)
        if not o.problem and o.rc == 0 and case.kind == "scop" and case.emit != "scop":
            o.problem = _not_c((d / "out").read_text())
        if not o.problem and case.kind == "script":
            o.session = _session_unchanged(case, d)
            o.problem = o.session
        return o


def _judge(o: Outcome) -> str:
    if o.rc in (0, 3):
        if o.rc == 0 and not o.wrote:
            return "exit 0 without the output file"
        return ""
    if o.rc not in (1, 2):
        return f"exit status {o.rc}"
    if o.wrote:
        return "output file written on error"
    if "Traceback" in o.stderr:
        return "traceback on standard error"
    lines = [ln for ln in o.stderr.splitlines()
             if ln.startswith("clayx: ") and not ln.startswith("clayx: warning: ")]
    if len(lines) != 1:
        return f"{len(lines)} 'clayx:' message lines"
    if o.rc == 1 and not _POSITION.search(o.stderr):
        return "error without a position"
    return ""


def _not_c(code: str) -> str:
    """A problem when ``code`` (the code generated from an OpenScop file,
    all of it clayx's) does not read as C: a wrong result gcc would refuse."""
    from .frontend.c import statement_syntax_error
    bad = statement_syntax_error(code)
    if bad is None:
        return ""
    row, col, what = bad
    return f"the generated code is not C at line {row + 1}, column {col + 1} ({what})"


def _session_unchanged(case: Case, d: Path) -> str:
    """Apply the script to a session on its kernel directly: an error must
    leave the session as it was."""
    from .errors import ClayxError
    from .session import load
    try:
        text = case.data.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    s = load(case.target)
    s.apply("")                                     # no step: nothing changes
    before = (s.current, str(s.script), len(s.entries))
    try:
        s.apply(text, path="s.clay")
    except ClayxError:
        after = (s.current, str(s.script), len(s.entries))
        if after[0] is not before[0] or after[1:] != before[1:]:
            return "session changed by a failed script"
    except BaseException:                           # noqa: BLE001
        return "uncaught exception in Session.apply:\n" + traceback.format_exc()
    return ""


def _worker(conn) -> None:
    while True:
        case = conn.recv()
        if case is None:
            return
        try:
            conn.send(run_case(case))
        except BaseException:                       # noqa: BLE001
            conn.send(Outcome(None, "", False, traceback.format_exc(), 0.0,
                              "uncaught exception in the harness"))


class Runner:
    """Runs cases in a forked worker process; a case that takes longer than
    ``timeout`` seconds is a hang (the worker is killed and replaced)."""

    def __init__(self, timeout: float = 20.0):
        self.timeout = timeout
        self._ctx = mp.get_context("fork")
        self._proc = None
        self._conn = None

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_worker, args=(child,), daemon=True)
        self._proc.start()
        self._conn = parent

    def run(self, case: Case) -> Outcome:
        """The outcome of ``case`` (``problem`` ``hang`` past the time limit)."""
        if self._proc is None or not self._proc.is_alive():
            self._start()
        t0 = time.perf_counter()
        self._conn.send(case)
        if self._conn.poll(self.timeout):
            try:
                return self._conn.recv()
            except EOFError:
                self._proc = None
                return Outcome(None, "", False, "", time.perf_counter() - t0,
                               "the worker process died")
        self.close()
        return Outcome(None, "", False, "", time.perf_counter() - t0,
                       f"hang (no result in {self.timeout:g} s)")

    def close(self) -> None:
        """Stop the worker."""
        if self._proc is not None:
            if self._proc.is_alive():
                self._proc.kill()
            self._proc.join()
        self._proc = None

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
