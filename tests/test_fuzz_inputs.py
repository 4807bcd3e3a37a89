"""Fuzzing the command with corrupted input, and what fuzzing found.

A seeded slice of :mod:`clayx.fuzz_inputs` (mutated C kernels, OpenScop
files and scripts from the tests) runs through the command in a worker
process with a time limit: every case gives a result or one clear error with
a position; no exception escapes, nothing hangs, no file is written on
error, a failed script leaves the session as it was.  The bigger run is
``scripts/fuzz_inputs.py``.  The regressions below are inputs fuzzing found
(each failed before its fix).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import clayx
from clayx.errors import ClayxError, NotAScopError, OpenScopError
from clayx.frontend import load as load_scops
from clayx.frontend.openscop import read
from clayx.fuzz_inputs import Case, Runner, cases, mutate, run_case
from clayx_repl.cli import run

ROOT = Path(__file__).resolve().parent.parent
OPENSCOP = ROOT / "tests" / "data" / "openscop"

#: The slice CI runs: about 30 s here (2 shared cores).
SLICE_SEED, SLICE_COUNT = 7, 600


def test_fuzz_slice_has_no_problem():
    problems = []
    kinds = {"c": 0, "scop": 0, "script": 0}
    with Runner(timeout=60) as runner:
        for case in cases(SLICE_SEED, SLICE_COUNT, ROOT):
            kinds[case.kind] += 1
            o = runner.run(case)
            if not o.ok:
                problems.append(f"seed {case.seed} ({case.kind}, --emit {case.emit}, "
                                f"{case.mutation[:120]}): {o.problem}\n"
                                f"{(o.exception or o.stderr)[-1500:]}")
    assert min(kinds.values()) >= SLICE_COUNT // 3
    assert not problems, "\n\n".join(problems)


def test_cases_are_reproducible_one_by_one():
    many = list(cases(40, 6, ROOT))
    for c in many:
        (again,) = cases(c.seed, 1, ROOT)
        assert again == c
    assert len({c.kind for c in many}) == 3


def test_the_judge_catches_what_it_must(tmp_path):
    """The harness itself: a case the command handles is fine, and the
    checks fail on a traceback, a missing position, a written file."""
    from clayx.fuzz_inputs import Outcome, _judge
    ok = run_case(Case("scop", "x.scop", b"", "scop", "empty"))
    assert ok.ok and ok.rc == 0
    assert _judge(Outcome(1, "clayx: error: something failed\n")) == "error without a position"
    assert _judge(Outcome(1, "clayx: error: k.c:3:1: bad\n", wrote=True)) == \
        "output file written on error"
    assert _judge(Outcome(1, "Traceback (most recent call last):\nclayx: error: a.c:1: x\n")) \
        == "traceback on standard error"
    assert _judge(Outcome(0, "")) == "exit 0 without the output file"
    data, what = mutate(__import__("random").Random(3), b"split([0], 1);\n", "script")
    assert isinstance(data, bytes) and what


def test_a_hang_is_reported(monkeypatch):
    """A case past the time limit is a hang, and the runner goes on."""
    import clayx.fuzz_inputs as fi

    def slow(case):
        import time
        time.sleep(30)
    monkeypatch.setattr(fi, "run_case", slow)
    with Runner(timeout=0.5) as runner:
        o = runner.run(Case("c", "x.c", b"", "c", "sleep"))
    assert o.problem.startswith("hang")


# --------------------------------------------------------------------------- regressions

def call(*argv):
    out, err = io.StringIO(), io.StringIO()
    rc = run([str(a) for a in argv], stdout=out, stderr=err, stdin=io.StringIO(""))
    return rc, out.getvalue(), err.getvalue()


def test_openscop_without_bodies_gives_an_error_for_code(tmp_path):
    """IndexError in the C printer: a statement without <body> text."""
    dest = tmp_path / "o.c"
    rc, out, err = call(OPENSCOP / "iss.scop", "--emit", "omp", "-o", dest)
    assert rc == 1 and not dest.exists()
    assert "iss.scop: statement S0 has no <body> text" in err
    assert call(OPENSCOP / "iss.scop", "--emit", "scop")[0] == 0


def test_corrupted_body_is_an_error_with_its_line():
    text = (OPENSCOP / "matmul.scop").read_text()
    cut = text.replace("C[i][j] = 0.0;\n", "", 1)
    with pytest.raises(OpenScopError, match=r"m.scop:\d+: <body> has no statement text"):
        read(cut, "m.scop")
    gone = text.replace("i j\n", "", 1)
    with pytest.raises(OpenScopError, match=r"m.scop:\d+: <body> lists"):
        read(gone, "m.scop")


def test_deep_c_nesting_is_an_error_not_a_recursion_error(tmp_path):
    src = (ROOT / "examples" / "jacobi-1d.c").read_text()
    f = tmp_path / "j.c"
    f.write_text(src.replace("#pragma endscop", "x = " + "<OpenScop>\n" * 3000 + ";\n"
                             "#pragma endscop"))
    rc, out, err = call(f, "--emit", "c")
    assert rc == 1 and "nesting: the code nests more than 200 levels" in err


def test_openscop_number_beyond_64_bits(tmp_path):
    """A 20-digit coefficient reached the AST check (islpy TypeError)."""
    text = (OPENSCOP / "matmul.scop").read_text().replace(
        "   1   -1    0    1    0    0   -1    ## -i+N-1 >= 0",
        "   1   -1    0    1    0    0   -99999999999999999999", 1)
    with pytest.raises(OpenScopError, match="beyond 64 bits"):
        read(text)


def test_codegen_error_names_the_file(tmp_path):
    """A code generation error has no line: the message names the file."""
    f = tmp_path / "k.c"
    f.write_text("void f(double a[10]) {\n  int i;\n#pragma scop\n"
                 "  for (i = 0; i < 10; i++)\n    a[i] = 0;\n#pragma endscop\n}\n")
    s = tmp_path / "s.clay"
    s.write_text("shift([0], 1, [], -9223372036854775807);\n")
    rc, out, err = call(f, "--script", s, "--emit", "c")
    assert rc == 1 and f"clayx: error: {f}: " in err


def test_no_region_and_encoding_errors_have_positions(tmp_path):
    f = tmp_path / "n.c"
    f.write_text("int main(void) { return 0; }\n")
    with pytest.raises(NotAScopError, match=r"n.c: #pragma scop: no '#pragma scop' region"):
        load_scops(f)
    f.write_bytes("int main(void) {\n  /* \u00e9 */ return 0; }\n".encode("utf-16"))
    with pytest.raises(NotAScopError, match=r"n.c:1:1: the file is not UTF-8 text: byte "
                                            r"0xff \(a UTF-16 file"):
        load_scops(f)


def test_non_ascii_names(tmp_path):
    """A non-ASCII identifier in a subscript reached isl's parser (an
    isl.Error); an array so named did not read back from OpenScop."""
    f = tmp_path / "u.c"
    f.write_text("void f(int n, double a[10]) {\n  int i; double \u00e9;\n#pragma scop\n"
                 "  for (i = 0; i < n; i++)\n    a[i] = \u00e9 + a[i\u00e9];\n"
                 "#pragma endscop\n}\n")
    with pytest.raises(NotAScopError, match=r"u.c:5:18: non-ASCII identifier: 'i\u00e9'"):
        load_scops(f)
    f.write_text(f.read_text().replace(" + a[i\u00e9]", ""))
    scop_file = tmp_path / "u.scop"
    assert call(f, "--emit", "scop", "-o", scop_file)[0] == 0
    rc, out, err = call(scop_file, "--emit", "c")
    assert rc == 0 and "a[i] = \u00e9;" in out


def test_failed_script_leaves_the_session_as_it_was():
    s = clayx.load(ROOT / "examples" / "gemm.c")
    s.apply("interchange([0,1], 2, 3, 0);")
    before = (s.current, len(s.entries))
    for bad in ("reorder(get___beta_loop(1), [1,0]);", "reorder(" + "{" * 3000,
                "split([0,0], 1); fuse([7]);", 'get_array_id("A");\n\u00a9'):
        with pytest.raises(ClayxError):
            s.apply(bad)
        assert (s.current, len(s.entries)) == before


def test_huge_scattering_coefficient_reaches_no_type_error():
    """Found by scripts/fuzz_inputs.py (seed 1003897): an INT64_MAX
    coefficient in an OpenScop scattering reached the AST check's isl value
    constructor (a TypeError); now a result or a clear error."""
    (case,) = cases(1003897, 1, ROOT)
    with Runner(timeout=60) as runner:
        o = runner.run(case)
    assert o.ok, o.problem


@pytest.mark.parametrize("body, column, what", [
    ("C[i][j] = 0.0", 14, "missing ;"),             # the end of the line cut off
    ("C[i][j = 0.0;", 13, "missing ]"),
    ("C[i][j] = ;", 9, "unexpected '='"),
    ("C[i][j] = 0.0);", 14, "unexpected ')'"),
    ("i\nC[i][j] = 0.0;", 1, "a declaration"),      # seed 8501572: `i C[i][j] = …;`
    ("} int g() {", 1, "unexpected '} int g() {'"),
])
def test_body_that_is_not_c_is_an_error_with_its_line(tmp_path, body, column, what):
    """A <body> whose text is not C was printed into the code as it was
    (gcc then refused the file): now an error at its line, nothing written."""
    text = (OPENSCOP / "matmul.scop").read_text()
    line = text[:text.index("C[i][j] = 0.0;")].count("\n") + 1
    f = tmp_path / "m.scop"
    f.write_text(text.replace("C[i][j] = 0.0;", body, 1))
    with pytest.raises(OpenScopError, match=rf"m.scop:{line}: <body>: the statement text is not "
                       rf"C at column {column} \({re.escape(what)}\)"):
        read(f.read_text(), str(f))
    dest = tmp_path / "o.c"
    rc, out, err = call(f, "--emit", "c", "-o", dest)
    assert rc == 1 and not dest.exists() and f"m.scop:{line}: <body>" in err


def test_the_judge_wants_c_from_openscop(monkeypatch):
    """Found by scripts/fuzz_inputs.py with the judge's check that code
    generated from OpenScop reads as C (seed 8400207: a byte flip in a
    <body>); without the reader's check the judge reports it, with it the
    case is a clear error."""
    import clayx.frontend.openscop as osc
    (case,) = cases(8400207, 1, ROOT, ("scop",))
    assert case.emit != "scop"
    o = run_case(case)
    assert o.ok and o.rc == 1 and "<body>: the statement text is not C" in o.stderr
    monkeypatch.setattr(osc, "statement_syntax_error", lambda text: None)
    o = run_case(case)
    assert o.rc == 0 and o.problem.startswith("the generated code is not C at line")


def test_statements_without_text_print_as_calls_in_a_refusal(tmp_path):
    """An OpenScop file without <body> (tests/data/openscop/iss.scop) and a
    step the legality check refuses inside a loop: the excerpt of the code
    the step would make crashed (IndexError); it shows the statement as
    CLooG does, ``S0(i0);``.  Found with seed 8502363 (a <body> after a
    negative extension count, now an error)."""
    s = tmp_path / "r.clay"
    s.write_text("reverse([0],1);\n")
    rc, out, err = call(OPENSCOP / "iss.scop", "--script", s, "--emit", "scop")
    assert rc == 3 and out == "" and "Traceback" not in err
    assert "> for (int i0 = min(4, N - 1); i0 >= 0; i0--)" in err and "|   S0(i0);" in err
    text = (OPENSCOP / "matmul.scop").read_text()
    bad = text.replace("# Number of Statement Extensions\n1\n",
                       "# Number of Statement Extensions\n-1\n", 1)
    assert bad != text
    with pytest.raises(OpenScopError, match="negative number of extensions of statement 1"):
        read(bad)
