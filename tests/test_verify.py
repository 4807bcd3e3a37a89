"""Tests for clayx.verify: compiling, running and comparing C programs."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from clayx.errors import MismatchError, VerifyError
from clayx.verify import (SMALL_SIZES, VerifyResult, compare_outputs,
                          compile_c, parse_dumps, run, verify)

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None,
                                reason="gcc is not installed")


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def _mutate_scop(source: str, old: str, new: str, occurrence: int = 1) -> str:
    """Replace the given occurrence of ``old`` inside the SCoP region only."""
    start = source.index("#pragma scop")
    end = source.index("#pragma endscop")
    region = source[start:end]
    pos = -1
    for _ in range(occurrence):
        pos = region.index(old, pos + 1)
    region = region[:pos] + new + region[pos + len(old):]
    return source[:start] + region + source[end:]


# ---------------------------------------------------------------------------
# parse_dumps
# ---------------------------------------------------------------------------

def test_parse_dumps_plain_format():
    text = ("begin dump: A\n1 2 3 \n4 \nend   dump: A\n"
            "begin dump: x\n0.5 \nend   dump: x\n")
    assert parse_dumps(text) == {"A": ["1", "2", "3", "4"], "x": ["0.5"]}


def test_parse_dumps_polybench_framing_and_noise():
    text = ("0.001234\n"  # a timing line outside any section
            "==BEGIN DUMP_ARRAYS==\n"
            "begin dump: C\n1.5 2.5 \n3.5\nend   dump: C\n"
            "==END   DUMP_ARRAYS==\n")
    assert parse_dumps(text) == {"C": ["1.5", "2.5", "3.5"]}


def test_parse_dumps_keeps_order_and_numbers_repeated_names():
    text = ("begin dump: B\n1\nend dump: B\n"
            "begin dump: A\n2\nend dump: A\n"
            "begin dump: B\n3\nend dump: B\n")
    dumps = parse_dumps(text)
    assert list(dumps) == ["B", "A", "B#2"]
    assert dumps["B#2"] == ["3"]


def test_parse_dumps_values_on_begin_line_and_unterminated_section():
    assert parse_dumps("begin dump: t 7\n8\n") == {"t": ["7", "8"]}
    assert parse_dumps("no dumps here\n") == {}


# ---------------------------------------------------------------------------
# compare_outputs
# ---------------------------------------------------------------------------

def test_compare_identical_returns():
    compare_outputs("begin dump: A\n1\nend   dump: A\n",
                    "begin dump: A\n1\nend   dump: A\n")
    compare_outputs("", "")


def test_compare_names_first_differing_array_and_flat_index():
    exp = ("begin dump: tmp\n1 2\nend   dump: tmp\n"
           "begin dump: D\n1 2 3 \n4 5 \nend   dump: D\n")
    act = ("begin dump: tmp\n1 2\nend   dump: tmp\n"
           "begin dump: D\n1 2 3 \n4 6 \nend   dump: D\n")
    with pytest.raises(MismatchError) as info:
        compare_outputs(exp, act)
    err = info.value
    assert (err.array, err.index, err.expected, err.actual) == ("D", 4, "5", "6")
    assert "D" in str(err) and "4" in str(err)
    assert "5" in str(err) and "6" in str(err)


def test_compare_reports_a_bitwise_difference_in_the_last_digit():
    exp = "begin dump: C\n0.10000000000000001 \nend   dump: C\n"
    act = "begin dump: C\n0.10000000000000002 \nend   dump: C\n"
    with pytest.raises(MismatchError) as info:
        compare_outputs(exp, act)
    assert info.value.index == 0
    assert info.value.expected == "0.10000000000000001"


def test_compare_length_difference():
    with pytest.raises(MismatchError) as info:
        compare_outputs("begin dump: A\n1 2 3\nend dump: A\n",
                        "begin dump: A\n1 2\nend dump: A\n")
    err = info.value
    assert (err.array, err.index, err.expected, err.actual) == ("A", 2, "3", None)


def test_compare_missing_and_extra_arrays():
    a = "begin dump: A\n1\nend dump: A\n"
    b = "begin dump: B\n1\nend dump: B\n"
    with pytest.raises(MismatchError) as info:
        compare_outputs(a + b, a)
    assert info.value.array == "B" and info.value.index is None
    with pytest.raises(MismatchError) as info:
        compare_outputs(a, a + b)
    assert info.value.array == "B"


def test_compare_without_dumps_names_the_first_differing_line():
    with pytest.raises(MismatchError) as info:
        compare_outputs("x = 1\ny = 2\n", "x = 1\ny = 3\n")
    err = info.value
    assert err.array is None
    assert err.index == 1
    assert (err.expected, err.actual) == ("y = 2", "y = 3")
    assert "line 2" in str(err)


def test_compare_text_outside_dumps_still_counts():
    dump = "begin dump: A\n1\nend dump: A\n"
    with pytest.raises(MismatchError) as info:
        compare_outputs(dump, dump + "warning: something\n")
    assert info.value.array is None


def test_mismatch_is_a_verify_error():
    assert issubclass(MismatchError, VerifyError)


# ---------------------------------------------------------------------------
# compile_c and run
# ---------------------------------------------------------------------------

HELLO = """\
#include <stdio.h>
#ifndef N
# define N 3
#endif
int main(void)
{
  printf("N=%d\\n", N);
  fprintf(stderr, "on stderr\\n");
  return 0;
}
"""


def test_compile_and_run_with_defines(tmp_path):
    src = _write(tmp_path / "hello.c", HELLO)
    exe = tmp_path / "hello"
    compile_c(src, exe, defines={"N": 11})
    assert run(exe) == "N=11\non stderr\n"


def test_compile_error_carries_compiler_message(tmp_path):
    src = _write(tmp_path / "bad.c", "int main(void) { return undefined_name; }\n")
    with pytest.raises(VerifyError) as info:
        compile_c(src, tmp_path / "bad")
    assert not isinstance(info.value, MismatchError)
    assert "undefined_name" in str(info.value)
    assert "bad.c" in str(info.value)


def test_compile_with_include_dirs(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    _write(inc / "value.h", "#define VALUE 42\n")
    src = _write(tmp_path / "sub.c", '#include <stdio.h>\n#include "value.h"\n'
                 'int main(void) { printf("%d\\n", VALUE); return 0; }\n')
    compile_c(src, tmp_path / "sub", include_dirs=[inc])
    assert run(tmp_path / "sub") == "42\n"


def test_compile_openmp(tmp_path):
    src = _write(tmp_path / "omp.c", """\
#include <stdio.h>
int main(void)
{
  int i, s = 0;
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < 100; i++)
    s += i;
  printf("%d\\n", s);
  return 0;
}
""")
    try:
        compile_c(src, tmp_path / "omp", openmp=True)
    except VerifyError as exc:  # pragma: no cover - toolchain without libgomp
        pytest.skip(f"no OpenMP support: {exc}")
    assert run(tmp_path / "omp") == "4950\n"


def test_run_failure_and_timeout(tmp_path):
    src = _write(tmp_path / "fail.c", '#include <stdio.h>\n'
                 'int main(void) { puts("partial"); return 3; }\n')
    compile_c(src, tmp_path / "fail")
    with pytest.raises(VerifyError, match="exited with 3"):
        run(tmp_path / "fail")

    src = _write(tmp_path / "spin.c",
                 "int main(void) { volatile int x = 1; while (x) ; return 0; }\n")
    compile_c(src, tmp_path / "spin", opt="-O0")
    with pytest.raises(VerifyError, match="more than"):
        run(tmp_path / "spin", timeout=0.5)


# ---------------------------------------------------------------------------
# verify
# ---------------------------------------------------------------------------

def test_verify_an_equivalent_program(examples_dir, tmp_path):
    """A hand-transformed gemm (the j and k loops interchanged: each C[i][j]
    still sums over k in the same order) prints the same values."""
    gemm = examples_dir / "gemm.c"
    source = gemm.read_text()
    swapped = _mutate_scop(source, """    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)""", """    for (j = 0; j < nj; j++)
      for (k = 0; k < nk; k++)""")
    assert swapped != source
    result = verify(gemm, _write(tmp_path / "gemm_jk.c", swapped), SMALL_SIZES["gemm"])
    assert isinstance(result, VerifyResult)
    assert result.ok and result.note == ""
    assert result.arrays == ("C",)
    assert result.values == SMALL_SIZES["gemm"]["NI"] * SMALL_SIZES["gemm"]["NJ"]
    assert result.original_seconds >= 0 and result.generated_seconds >= 0


def test_verify_detects_a_mutation_in_gemm(examples_dir, tmp_path):
    source = (examples_dir / "gemm.c").read_text()
    mutated = _mutate_scop(source, "C[i][j] += alpha", "C[i][j] -= alpha")
    assert mutated != source
    gen = _write(tmp_path / "gemm_mutated.c", mutated)
    with pytest.raises(MismatchError) as info:
        verify(examples_dir / "gemm.c", gen, SMALL_SIZES["gemm"])
    assert info.value.array == "C"
    # Row 0 of A is zero, so the first row of C is unchanged: the first
    # difference is C[1][0], flat index NJ.
    assert info.value.index == SMALL_SIZES["gemm"]["NJ"]
    assert info.value.expected != info.value.actual


def test_verify_names_the_array_that_differs(examples_dir, tmp_path):
    # 2mm dumps tmp then D; breaking only the second product must blame D.
    source = (examples_dir / "2mm.c").read_text()
    mutated = _mutate_scop(source, "D[i][j] += tmp[i][k] * C[k][j]",
                           "D[i][j] += tmp[i][k] - C[k][j]")
    gen = _write(tmp_path / "2mm_mutated.c", mutated)
    with pytest.raises(MismatchError) as info:
        verify(examples_dir / "2mm.c", gen, SMALL_SIZES["2mm"])
    assert info.value.array == "D"


def test_verify_generated_file_that_does_not_compile(examples_dir, tmp_path):
    source = (examples_dir / "gemm.c").read_text()
    broken = _mutate_scop(source, "C[i][j] *= beta;", "C[i][j] *= beta")
    gen = _write(tmp_path / "gemm_broken.c", broken)
    with pytest.raises(VerifyError) as info:
        verify(examples_dir / "gemm.c", gen, SMALL_SIZES["gemm"])
    assert not isinstance(info.value, MismatchError)
    assert "gemm_broken.c" in str(info.value)


def test_verify_generated_file_elsewhere_finds_the_original_headers(
        polybench_style_dir, tmp_path):
    original = polybench_style_dir / "gemm.c"
    gen = _write(tmp_path / "gemm_generated.c", original.read_text())
    result = verify(original, gen, SMALL_SIZES["pb/gemm"])
    assert result.ok and result.arrays == ("C",)


def test_verify_missing_file(tmp_path, examples_dir):
    with pytest.raises(VerifyError, match="no such C file"):
        verify(examples_dir / "gemm.c", tmp_path / "nope.c")


OPT_DEPENDENT = """\
#include <stdio.h>
int main(void)
{
#if defined(__OPTIMIZE__) && defined(GENERATED)
  printf("begin dump: A\\n2 \\nend   dump: A\\n");
#else
  printf("begin dump: A\\n1 \\nend   dump: A\\n");
#endif
  return 0;
}
"""


def test_verify_rechecks_at_O0(tmp_path):
    # The generated program differs only when optimized: the -O0 recheck
    # accepts it with a note, and without the recheck it is a mismatch.
    orig = _write(tmp_path / "orig.c", OPT_DEPENDENT)
    gen = _write(tmp_path / "gen.c", "#define GENERATED\n" + OPT_DEPENDENT)
    result = verify(orig, gen, opt="-O2")
    assert result.ok
    assert "-O0" in result.note and "-O2" in result.note
    assert result.arrays == ("A",) and result.values == 1
    with pytest.raises(MismatchError) as info:
        verify(orig, gen, opt="-O2", recheck_O0=False)
    assert info.value.array == "A"


def test_verify_mismatch_persisting_at_O0_is_raised(tmp_path):
    orig = _write(tmp_path / "orig.c", OPT_DEPENDENT)
    gen = _write(tmp_path / "gen.c",
                 OPT_DEPENDENT.replace('"begin dump: A\\n1 ', '"begin dump: A\\n3 '))
    with pytest.raises(MismatchError) as info:
        verify(orig, gen, opt="-O1")
    assert (info.value.expected, info.value.actual) == ("1", "3")


def test_verify_workdir_is_kept_and_tempdir_removed(examples_dir, tmp_path,
                                                     monkeypatch):
    work = tmp_path / "work"
    mvt = examples_dir / "mvt.c"
    verify(mvt, mvt, SMALL_SIZES["mvt"], workdir=work)
    assert (work / "original").exists() and (work / "generated").exists()

    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    verify(mvt, mvt, SMALL_SIZES["mvt"])
    assert list(scratch.iterdir()) == []
