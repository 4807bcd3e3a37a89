"""Issue 13, item 5: ``unchecked`` must not escape through OpenScop.

A session holding a step applied without the legality check writes
OpenScop only when told ``--unchecked`` (as for C), and the file then
carries the ``<clayx_unchecked>`` record of those steps.  Reading it back,
code generation and writing it again are refused without ``--unchecked``;
with it, writing keeps the record.  The whole route goes through the
``clayx`` command, and a differential run shows the code that the refusal
holds back really computes something else than the original program."""

from __future__ import annotations

import io

import pytest

import clayx
from clayx.errors import LegalityError, MismatchError
from clayx.frontend.c import parse_file
from clayx.frontend.openscop import (read, unchecked_steps, with_clay_script,
                                     with_unchecked_step, write)
from clayx.verify import verify
from clayx_repl.cli import EXIT_ILLEGAL, run

from directive_cases import needs_gcc

# a running sum: reversing the i loop reads values not yet computed
SRC = r"""
#include <stdio.h>
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#ifndef N
# define N 20
#endif
double s[N], x[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) { s[i] = 0; x[i] = 1.0 / (i + 1); }
#pragma scop
  for (i = 1; i < N; i++)
    s[i] = s[i-1] + x[i];
#pragma endscop
  printf("begin dump: s\n");
  for (i = 0; i < N; i++) printf("%.17g ", s[i]);
  printf("\nend   dump: s\n");
  return 0;
}
"""

STEP = "unchecked reverse([0], 1);"


def cli(*argv) -> tuple[int, str, str]:
    """Run ``clayx`` with ``argv``: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    rc = run([str(a) for a in argv], stdout=out, stderr=err, stdin=io.StringIO(""))
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def src(tmp_path):
    p = tmp_path / "k.c"
    p.write_text(SRC)
    return p


@pytest.fixture
def script(tmp_path):
    p = tmp_path / "u.clay"
    p.write_text(STEP + "\n")
    return p


def test_emit_scop_of_an_unchecked_step_needs_unchecked(src, script, tmp_path):
    """Item 5, the issue's first half: ``--emit scop`` is refused like
    ``--emit c`` (exit 3, nothing written); with ``--unchecked`` the
    OpenScop carries the record of the step (before the fix it was written
    unmarked, with exit 0)."""
    out_file = tmp_path / "u.scop"
    rc, out, err = cli(src, "--script", script, "--emit", "scop", "-o", out_file)
    assert rc == EXIT_ILLEGAL and out == "" and not out_file.exists()
    assert err == ("clayx: refused: cannot write OpenScop: the session holds steps applied "
                   f"without the legality check ({STEP}); pass unchecked=True "
                   "(--unchecked) to write OpenScop anyway\n")
    rc, out, err = cli(src, "--script", script, "--emit", "scop", "--unchecked")
    assert rc == 0, err
    assert "<clayx_unchecked>\n# steps applied without the legality check" in out
    assert unchecked_steps(read(out)) == (STEP,)


def test_a_scop_with_the_record_is_refused_until_unchecked(src, script, tmp_path):
    """Item 5, the issue's second half: ``clayx u.scop --emit c`` (or omp, or
    scop) is refused with exit 3 and a message naming the recorded step
    (before the fix: the illegal code, exit 0); with ``--unchecked`` the
    code comes out, and the OpenScop written again keeps the record."""
    u = tmp_path / "u.scop"
    assert cli(src, "--script", script, "--emit", "scop", "--unchecked", "-o", u)[0] == 0
    for target in ("c", "omp", "scop"):
        rc, out, err = cli(u, "--emit", target)
        assert rc == EXIT_ILLEGAL and out == "", target
        assert "the SCoP was read with a record (<clayx_unchecked>) of steps applied " \
               f"without the legality check ({STEP})" in err and "--unchecked" in err
    rc, out, err = cli(u, "--emit", "c", "--unchecked")
    assert rc == 0, err
    assert "for (int i = N - 1; i > 0; i--)\n  s[i] = s[i-1] + x[i];" in out
    rc, again, err = cli(u, "--emit", "scop", "--unchecked")
    assert rc == 0 and again == u.read_text()
    # the summary says so
    rc, out, err = cli(u)
    assert rc == 0 and out.startswith(f"NOT CHECKED: the schedule was changed without the "
                                      f"legality check ({STEP}); code needs --unchecked\n")


@needs_gcc
@pytest.mark.slow
def test_the_refused_code_really_differs(src, script, tmp_path):
    """Item 5, differential: the C that ``clayx u.scop --emit c --unchecked``
    prints, spliced into the original file, computes other values than the
    original (the refusal guards something real), while the same route
    without the unchecked step reproduces the original exactly."""
    [orig] = parse_file(src)
    start, end = orig.region

    def route(name: str, *steps: str):
        scop_in = tmp_path / "in.scop"
        scop_in.write_text(write(orig))
        scop_out = tmp_path / "out.scop"
        s = tmp_path / "s.clay"
        s.write_text("\n".join(steps) + "\n")
        rc, _, err = cli(scop_in, "--script", s, "--emit", "scop", "--unchecked",
                         "-o", scop_out)
        assert rc == 0, err
        rc, region, err = cli(scop_out, "--emit", "c", "--unchecked")
        assert rc == 0, err
        gen = tmp_path / f"{name}.c"
        gen.write_text(orig.source[:start] + region + orig.source[end:])
        return gen

    res = verify(src, route("legal", "shift([0], 1, [], 2);"), {"N": 12},
                 workdir=tmp_path / "legal")
    assert res.ok and res.values > 0
    with pytest.raises(MismatchError):
        verify(src, route("illegal", STEP), {"N": 12}, workdir=tmp_path / "illegal")


def test_unchecked_steps_in_a_clay_extension(src, tmp_path):
    """Item 5: a ``<clay>`` script with an unchecked step, applied by
    ``--emit scop``, is refused the same way; with ``--unchecked`` the
    applied ``<clay>`` is dropped and the record added."""
    [orig] = parse_file(src)
    p = tmp_path / "clay.scop"
    p.write_text(write(with_clay_script(orig, STEP)))
    rc, out, err = cli(p, "--emit", "scop")
    assert rc == EXIT_ILLEGAL and out == "" and STEP in err
    rc, out, err = cli(p, "--emit", "scop", "--unchecked")
    assert rc == 0, err
    back = read(out)
    assert unchecked_steps(back) == (STEP,)
    assert all(tag != "clay" for tag, _ in back.extensions)


def test_session_records_unchecked_steps_in_the_scop(src, tmp_path):
    """Item 5, the library side: each unchecked step is added to the
    record of the current SCoP (undo takes it back), ``Session.openscop``
    refuses like ``Session.code``, and a session opened on the written file
    keeps refusing, appending its own unchecked steps to the record."""
    s = clayx.load(src)
    s.apply("shift([0], 1, [], 2);")
    assert unchecked_steps(s.current) is None and not s.has_unchecked
    assert "clayx_unchecked" not in s.openscop()
    s.apply(STEP)
    assert s.unchecked_steps == (STEP,) and s.has_unchecked
    with pytest.raises(LegalityError, match="cannot write OpenScop"):
        s.openscop()
    text = s.openscop(unchecked=True)
    s.undo()
    assert not s.has_unchecked and unchecked_steps(s.current) is None

    f = tmp_path / "u.scop"
    f.write_text(text)
    t = clayx.load(f)
    assert t.has_unchecked and not t.entries and t.unchecked_steps == (STEP,)
    with pytest.raises(LegalityError, match="cannot generate code"):
        t.code("c")
    t.apply("unroll_mark([0], 2);")              # checked steps leave the record as it is
    assert t.unchecked_steps == (STEP,)
    t.apply("unchecked shift([0], 1, [], 1);")
    assert t.unchecked_steps == (STEP, "unchecked shift([0], 1, [], 1);")
    assert unchecked_steps(read(t.openscop(unchecked=True))) == t.unchecked_steps


def test_record_round_trip_and_an_emptied_record_still_counts(src):
    """The record is kept verbatim through ``read``/``write``; a record
    whose step lines were deleted by hand still marks the SCoP unchecked."""
    [orig] = parse_file(src)
    scop = with_unchecked_step(orig, STEP)
    text = write(scop)
    assert write(read(text)) == text
    emptied = text.replace(STEP + "\n", "")
    assert unchecked_steps(read(emptied)) == ()
    with pytest.raises(LegalityError, match=r"applied without the legality check; pass"):
        clayx.session.Session(read(emptied)).code("c")
