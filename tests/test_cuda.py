"""CUDA output (issue 11): kernels from the parallel marks, proven by running
the same mapping as plain C (``cuda-emulated``) against the original, and,
where ``nvcc`` is installed, by compiling the ``.cu`` with it.

The emulation runs threads in reverse order and keeps device buffers apart
from the host arrays (filled with garbage), so a wrong mapping of a loop
that carries a dependence, or a missing copy, changes the output: the
tests below show both."""

from __future__ import annotations

import functools
import io
import re
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

import clayx
from clayx.codegen.cuda import CudaMappingError, generate_cuda_file
from clayx.errors import MismatchError
from clayx.gpu import cuda_code, gpu_schedule, nested_parallel_marks
from clayx.model import Mark
from clayx.verify import SMALL_SIZES, verify
from clayx_repl.cli import run

import compile_cache

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p.stem for p in (ROOT / "examples").glob("*.c"))
NVCC = shutil.which("nvcc") or next(
    (str(p) for p in sorted(Path("/usr/local").glob("cuda*/bin/nvcc"))), None)
needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not available")

MM = r"""
#include <stdio.h>
#ifndef N
# define N 20
#endif
double a[N][N], b[N][N], s;
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { a[i][j] = (i * 7 + j) % 5; b[i][j] = 1; }
  s = 0;
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        b[i][j] += a[i][k] * a[k][j];
  for (i = 1; i < N; i++)
    a[i][0] = a[i - 1][0] + b[i][i];
  for (i = 0; i < N; i++)
    s = s + a[i][0];
#pragma endscop
  printf("begin dump: b\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", b[i][j]);
  printf("\nend   dump: b\nbegin dump: a\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", a[i][j]);
  printf("\nend   dump: a\nbegin dump: s\n%.17g\nend   dump: s\n", s);
  return 0;
}
"""


@pytest.fixture
def mm(tmp_path):
    p = tmp_path / "mm.c"
    p.write_text(MM)
    return p


def _emulate_and_verify(original: Path, code: str, tmp_path: Path, sizes=None):
    out = tmp_path / f"{original.stem}_emulated.c"
    out.write_text(code)
    return verify(original, out, sizes, workdir=tmp_path / "build")


def _kernel(code: str, name: str) -> str:
    start = code.index(f"{name}(")
    return code[code.rindex("\n", 0, start) + 1:code.index("\n}\n", start) + 3]


# -- the gpu preset on every example ---------------------------------------------

@functools.lru_cache(maxsize=None)
def _gpu_scops(stem: str, tile: int) -> tuple:
    """An example's SCoPs, the first under the ``gpu`` preset (computed once
    per session: the emulated and the nvcc tests share them; SCoPs are
    immutable)."""
    s = clayx.load(ROOT / "examples" / f"{stem}.c")
    return (gpu_schedule(s.current, tile=tile), *s.others)


def _gpu_file(stem: str, tile: int, *, emulate: bool, shared: bool = False) -> str:
    return cuda_code(list(_gpu_scops(stem, tile)), emulate=emulate, shared=shared)


#: the examples where shared memory promotion finds reused tiles (stencils),
#: untiled (block tiles of the thread grid) and tiled by 32 (tile loops on
#: blocks; heat-3d's 34^3 tile does not fit)
PROMOTED = {0: {"fdtd-2d": 1, "heat-3d": 2, "jacobi-1d": 2, "jacobi-2d": 2},
            32: {"fdtd-2d": 1, "jacobi-1d": 2, "jacobi-2d": 2}}


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("tile", [0, 32])
@pytest.mark.parametrize("stem", EXAMPLES)
def test_gpu_preset_emulated_equals_original(stem, tile, shared, tmp_path):
    """Every example under the ``gpu`` preset (untiled, and tiled by 32),
    with and without shared memory: the emulated CUDA prints exactly what
    the original prints."""
    code = _gpu_file(stem, tile, emulate=True, shared=shared)
    assert "CLAYX_LAUNCH" in code
    if shared:
        assert code.count("__shared__: one per block") == PROMOTED[tile].get(stem, 0)
    r = _emulate_and_verify(ROOT / "examples" / f"{stem}.c", code, tmp_path,
                            SMALL_SIZES[stem])
    assert r.ok and not r.note


def test_all_examples_are_covered():
    assert len(EXAMPLES) == 31


def _nvcc_errors(path: Path, tmp_path: Path) -> list[str]:
    """nvcc's error messages for a file (without their line numbers); the
    same text under the same name is compiled once in the run (untiled and
    tiled by 32, the ``.cu`` of 13 examples is the same), see
    :func:`compile_cache.tool_result`."""
    cu = tmp_path / (path.stem + ".cu")
    if path.suffix != ".cu":
        cu.write_text(path.read_text())
        path = cu

    def errors() -> list[str]:
        p = subprocess.run([NVCC, "-arch=sm_80", "-c", str(path), "-o", str(tmp_path / "x.o")],
                           capture_output=True, text=True, timeout=300)
        if p.returncode == 0:
            return []
        errs = sorted(re.sub(r"^.*?\(\d+\): ", "", ln) for ln in p.stdout.splitlines()
                      + p.stderr.splitlines() if ": error" in ln)
        return errs or [p.stderr[-2000:]]

    return compile_cache.tool_result("nvcc", path, (NVCC, "-arch=sm_80", "-c", path.name),
                                     errors, keep=lambda errs: str(tmp_path) not in "".join(errs))


@functools.lru_cache(maxsize=None)
def _original_nvcc_errors(stem: str) -> list[str]:
    """nvcc's errors on the original example (once per session: both tile
    sizes compare with them)."""
    with tempfile.TemporaryDirectory(prefix="clayx-nvcc-") as d:
        return _nvcc_errors(ROOT / "examples" / f"{stem}.c", Path(d))


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("stem,tile", [(x, t) for t in PROMOTED for x in sorted(PROMOTED[t])])
def test_shared_memory_cu_compiles_with_nvcc(stem, tile, tmp_path):
    cu = tmp_path / f"{stem}.cu"
    cu.write_text(_gpu_file(stem, tile, emulate=False, shared=True))
    assert cu.read_text().count("__shared__ double") == PROMOTED[tile][stem]
    assert _nvcc_errors(cu, tmp_path) == []


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("tile", [0, 32])
@pytest.mark.parametrize("stem", EXAMPLES)
def test_gpu_preset_cu_compiles_with_nvcc(stem, tile, tmp_path):
    """The ``.cu`` compiles with ``nvcc -arch=sm_80``.  Eight examples have
    C99 variable-length array parameters in their own helper functions,
    which nvcc (C++) rejects in the original too: for those the ``.cu``
    must add no error to the original's."""
    cu = tmp_path / f"{stem}.cu"
    cu.write_text(_gpu_file(stem, tile, emulate=False))
    errors = _nvcc_errors(cu, tmp_path)
    if errors:
        original = _original_nvcc_errors(stem)
        assert original and errors == original, errors


# -- a user's marks ---------------------------------------------------------------

def test_parallelize_maps_marked_loops_on_grid(mm):
    s = clayx.load(mm)
    s.apply("parallelize([0]); parallelize([0, 0]);")
    code = cuda_code([s.current])
    k0 = _kernel(code, "clayx_kernel0")
    assert k0.startswith("__global__ void clayx_kernel0(double (*a)[N], double (*b)[N])")
    assert ("  for (int i = (int)(blockIdx.y * blockDim.y + threadIdx.y); i < N; "
            "i += (int)(gridDim.y * blockDim.y))\n"
            "    for (int j = (int)(blockIdx.x * blockDim.x + threadIdx.x); j < N; "
            "j += (int)(gridDim.x * blockDim.x))\n"
            "      for (int k = 0; k < N; k++)\n") in k0
    # the two other loops carry dependences: single-thread kernels, the
    # scalar s lives in a device buffer
    assert code.count("<<<1, 1>>>") == 1
    assert "double *d_s" in code and "*d_s = s;" in code
    assert "CLAYX_CHECK(cudaMemcpy(s_host" not in code
    assert re.search(r"CLAYX_CHECK\(cudaMemcpy\(&s, d_s, sizeof\(double\), "
                     r"cudaMemcpyDeviceToHost\)\);", code)
    assert code.count("CLAYX_CHECK(cudaMalloc(") == 3
    assert "#define CLAYX_CHECK" in code


def test_only_outer_mark_maps_one_dimension(mm):
    s = clayx.load(mm)
    s.apply("parallelize([0]);")
    k0 = _kernel(cuda_code([s.current]), "clayx_kernel0")
    assert "blockIdx.x" in k0 and "blockIdx.y" not in k0
    assert "  for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x)" in k0
    assert "    for (int j = 0; j < N; j++)" in k0


def test_nested_parallel_marks_adds_legal_inner_loops(mm):
    s = clayx.load(mm)
    s.apply("parallelize([0]);")
    scop = nested_parallel_marks(s.current)
    loops = {m.loop for m in scop.schedule.marks if m.kind == "parallel"}
    assert loops == {(0,), (0, 0)}     # k carries the reduction: not marked


@needs_gcc
@pytest.mark.parametrize("script", ["", "parallelize([0]);",
                                    "parallelize([0]); parallelize([0, 0]);",
                                    "interchange([0, 0, 0], 1, 2); parallelize([0]);"])
def test_user_script_emulated_equals_original(mm, tmp_path, script):
    s = clayx.load(mm)
    if script:
        s.apply(script)
    code = cuda_code([s.current], emulate=True)
    if not script:
        assert "CLAYX_LAUNCH(1, 1, 1, 1, 1, 1," in code and "blockIdx.x *" not in code
    assert _emulate_and_verify(mm, code, tmp_path).ok


@needs_gcc
@pytest.mark.parametrize("block,grid", [((5,), (2,)), ((3, 2), (1, 3)), ((1024,), None)])
def test_block_and_grid_sizes(mm, tmp_path, block, grid):
    """Grids smaller than the loops (grid-stride loops cover the rest) and
    partial blocks give the same output."""
    s = clayx.load(mm)
    s.apply("parallelize([0]); parallelize([0, 0]);")
    code = cuda_code([s.current], emulate=True, block=block, grid=grid)
    assert _emulate_and_verify(mm, code, tmp_path).ok


def test_too_many_threads_per_block_refused(mm):
    s = clayx.load(mm)
    s.apply("parallelize([0]);")
    with pytest.raises(CudaMappingError, match="1024 threads per block"):
        cuda_code([s.current], block=(64, 32))


# -- the emulation catches wrong mappings --------------------------------------------

@needs_gcc
def test_emulation_catches_an_illegal_parallel_loop(mm, tmp_path):
    """A mark forced on the loop carrying a[i - 1][0] -> a[i][0]: the
    emulated threads run in reverse order and the output differs."""
    s = clayx.load(mm)
    scop = s.current
    bad = replace(scop, schedule=replace(scop.schedule, marks=(Mark("parallel", (1,)),)))
    code = cuda_code([bad], emulate=True)
    with pytest.raises(MismatchError):
        _emulate_and_verify(mm, code, tmp_path)


@needs_gcc
def test_emulation_catches_a_missing_copy(mm, tmp_path):
    s = clayx.load(mm)
    s.apply("parallelize([0]);")
    code = cuda_code([s.current], emulate=True)
    line = "CLAYX_CHECK(cudaMemcpy(b, d_b, sizeof(double) * N * N, cudaMemcpyDeviceToHost));"
    assert line in code
    with pytest.raises(MismatchError):
        _emulate_and_verify(mm, code.replace(line, ""), tmp_path)
    line = "CLAYX_CHECK(cudaMemcpy(d_a, a, sizeof(double) * N * N, cudaMemcpyHostToDevice));"
    assert line in code
    with pytest.raises(MismatchError):
        _emulate_and_verify(mm, code.replace(line, ""), tmp_path)


def test_scalar_written_by_many_threads_refused(mm):
    """The reduction into s cannot be a kernel of many threads."""
    s = clayx.load(mm)
    scop = s.current
    bad = replace(scop, schedule=replace(scop.schedule, marks=(Mark("parallel", (2,)),)))
    with pytest.raises(CudaMappingError, match=r"the scalar s is written by every thread"):
        generate_cuda_file([bad])


# -- the command line -----------------------------------------------------------------

@needs_gcc
def test_cli_emit_cuda_emulated(mm, tmp_path):
    script = tmp_path / "p.clay"
    script.write_text("parallelize([0]); parallelize([0, 0]);")
    out = tmp_path / "mm_emu.c"
    err = io.StringIO()
    assert run([str(mm), "--script", str(script), "--emit", "cuda-emulated",
                "--block", "4,4", "-o", str(out)], stdout=io.StringIO(), stderr=err) == 0, \
        err.getvalue()
    assert "CLAYX_LAUNCH(" in out.read_text() and ", 4, 4, 1, clayx_kernel0(" in out.read_text()
    assert verify(mm, out, workdir=tmp_path / "b").ok


@needs_gcc
@pytest.mark.parametrize("kernel", ["gemm", "jacobi-2d"])
def test_cli_auto_gpu_maps_the_band_and_runs_equal(kernel, tmp_path):
    """``--auto gpu --emit cuda-emulated``: the recovered script applied, the
    parallel loops right inside the preset's marked loop mapped too (2D grid),
    and the emulated program equal to the original."""
    src = ROOT / "examples" / f"{kernel}.c"
    out = tmp_path / f"{kernel}_emu.c"
    err = io.StringIO()
    assert run([str(src), "--auto", "gpu", "--emit", "cuda-emulated", "-o", str(out)],
               stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    text = out.read_text()
    assert "blockIdx.y" in text and "blockIdx.x" in text
    assert verify(src, out, workdir=tmp_path / "b").ok


def test_cli_emit_cuda_bad_block(mm):
    err = io.StringIO()
    assert run([str(mm), "--emit", "cuda", "--block", "0,4"], stdout=io.StringIO(),
               stderr=err) != 0
    assert "--block 0,4" in err.getvalue() and "Traceback" not in err.getvalue()


def test_cli_emit_cuda(mm):
    outp = io.StringIO()
    assert run([str(mm), "--emit", "cuda"], stdout=outp, stderr=io.StringIO()) == 0
    code = outp.getvalue()
    assert "__global__ void clayx_kernel0(" in code and "<<<1, 1>>>" in code


@needs_nvcc
def test_user_script_cu_compiles(mm, tmp_path):
    s = clayx.load(mm)
    s.apply("parallelize([0]); parallelize([0, 0]);")
    cu = tmp_path / "mm.cu"
    cu.write_text(cuda_code([s.current]))
    assert _nvcc_errors(cu, tmp_path) == []


# -- shared memory -----------------------------------------------------------------------

STENCIL = r"""
#include <stdio.h>
#ifndef N
# define N 40
#endif
double A[N][N], B[N][N];
int main(void) {
  int i, j;
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) { A[i][j] = (i * 7 + j) % 11; B[i][j] = -1; }
#pragma scop
  for (i = 1; i < N - 1; i++)
    for (j = 1; j < N - 1; j++)
      B[i][j] = A[i - 1][j] + A[i + 1][j] + 2 * A[i][j - 1] + 3 * A[i][j + 1] + A[i][j];
#pragma endscop
  printf("begin dump: B\n");
  for (i = 0; i < N; i++) for (j = 0; j < N; j++) printf("%.17g ", B[i][j]);
  printf("\nend   dump: B\n");
  return 0;
}
"""


@pytest.fixture
def stencil(tmp_path):
    p = tmp_path / "stencil.c"
    p.write_text(STENCIL)
    return p


def test_shared_memory_tile_and_barriers(stencil):
    s = clayx.load(stencil)
    s.apply("parallelize([0]); parallelize([0, 0]);")
    code = cuda_code([s.current], shared=True, block=(8, 4))
    k = _kernel(code, "clayx_kernel0")
    assert "  __shared__ double s_A[6][10];\n" in k          # (4 + 2) x (8 + 2)
    assert "for (int o1 = 1 + (int)(blockIdx.y * blockDim.y); o1 <= N - 2;" in k
    assert k.count("__syncthreads();") == 2
    load, compute = k.index("s_A[l / 10][l % 10] = A[a0][a1];"), k.index("B[i][j] = ")
    assert load < k.index("__syncthreads();") < compute < k.rindex("__syncthreads();")
    assert "if (a0 >= 0 && a0 < N && a1 >= 0 && a1 < N)" in k
    assert not re.search(r"(?<!\w)A\[", k[compute:])          # reads go to the tile
    assert "s_A[i - (o1 - 1)][j - (o2 - 1)]" in k[compute:]


@needs_gcc
@pytest.mark.parametrize("block,grid", [(None, None), ((8, 4), None), ((5, 3), (2, 1)),
                                        ((16,), None)])
def test_shared_memory_emulated_equals_original(stencil, tmp_path, block, grid):
    s = clayx.load(stencil)
    s.apply("parallelize([0]); parallelize([0, 0]);" if block != (16,) else
            "parallelize([0]);")
    code = cuda_code([s.current], emulate=True, shared=True, block=block, grid=grid)
    if block != (16,):
        assert "CLAYX_LAUNCH_BLOCKS(" in code and "/* __syncthreads(); */" in code
    assert _emulate_and_verify(stencil, code, tmp_path).ok


@needs_gcc
def test_emulation_catches_a_missing_barrier(stencil, tmp_path):
    """Without the barrier between the loads and the computation (the two
    phases merged), threads read tile cells not loaded yet."""
    s = clayx.load(stencil)
    s.apply("parallelize([0]); parallelize([0, 0]);")
    code = cuda_code([s.current], emulate=True, shared=True, block=(8, 4))
    merged, n = re.subn(r"\}\n\s*/\* __syncthreads\(\); \*/\n\s*"
                        r"CLAYX_THREADS\(threadIdx, blockDim\) \{\n", "", code)
    assert n == 1
    assert _emulate_and_verify(stencil, code, tmp_path).ok
    with pytest.raises(MismatchError):
        _emulate_and_verify(stencil, merged, tmp_path)


def test_no_promotion_without_reuse(mm):
    """gemm-like reads whose tile is not of fixed size (a whole row) stay
    in global memory."""
    s = clayx.load(mm)
    s.apply("parallelize([0]); parallelize([0, 0]);")
    assert "__shared__" not in cuda_code([s.current], shared=True)


def test_tiled_schedule_maps_tiles_to_blocks_and_points_to_threads():
    """PPCG's mapping of a tiled band: tile loops over blocks, their point
    loops over the threads of the block; with shared memory the tile of A
    is loaded between the tile loops and the point loops."""
    code = _gpu_file("jacobi-2d", 32, emulate=False, shared=True)
    k = _kernel(code, "clayx_kernel0")
    assert "  for (int c2 = (int)blockIdx.y; c2 <= floord(n - 2, 32); c2 += (int)gridDim.y)" in k
    assert ("      for (int i = max(1, 32 * c2) + (int)threadIdx.y; i <= min(n - 2, 32 * c2 + 31);"
            " i += (int)blockDim.y)") in k
    assert "  __shared__ double s_A[34][34];" in k
    assert k.index("s_A[l / 34][l % 34] = A[a0][a1];") < k.index("__syncthreads();") \
        < k.index("B[i][j] = ") < k.rindex("__syncthreads();")
    assert "s_A[i - (32 * c2 - 1)][j - (32 * c3 - 1)]" in k
    plain = _gpu_file("jacobi-2d", 32, emulate=False)
    assert "__shared__" not in plain and "(int)blockIdx.y; c2" in plain


@needs_gcc
def test_emulation_catches_a_missing_barrier_in_tiles(tmp_path):
    code = _gpu_file("jacobi-2d", 32, emulate=True, shared=True)
    merged, n = re.subn(r"\}\n\s*/\* __syncthreads\(\); \*/\n\s*"
                        r"CLAYX_THREADS\(threadIdx, blockDim\) \{\n", "", code)
    assert n == 2
    original = ROOT / "examples" / "jacobi-2d.c"
    assert _emulate_and_verify(original, code, tmp_path, SMALL_SIZES["jacobi-2d"]).ok
    with pytest.raises(MismatchError):
        _emulate_and_verify(original, merged, tmp_path, SMALL_SIZES["jacobi-2d"])


@needs_gcc
def test_two_scops_in_two_functions(tmp_path):
    """Each SCoP's kernels go right before its function; the helpers once,
    before the first; kernels are numbered across the file."""
    src = ROOT / "tests" / "data" / "cuda_two_scops.c"
    s = clayx.load(src)
    s.apply("parallelize([0]);")
    code = cuda_code([s.current, *s.others], emulate=True)
    assert code.count("#define CLAYX_CHECK") == 1
    assert code.index("static void clayx_kernel0(") < code.index("static void first(") \
        < code.index("static void clayx_kernel1(") < code.index("static void second(")
    assert _emulate_and_verify(src, code, tmp_path).ok


def test_array_of_unknown_shape_refused_on_the_command_line(tmp_path):
    """A pointer parameter has no size to copy: a clear error, no traceback."""
    src = tmp_path / "ptr.c"
    src.write_text("void f(int n, double *A)\n{\n  int i;\n#pragma scop\n"
                   "  for (i = 0; i < n; i++)\n    A[i] = A[i] * 2;\n#pragma endscop\n}\n")
    script = tmp_path / "p.clay"
    script.write_text("parallelize([0]);")
    err = io.StringIO()
    assert run([str(src), "--script", str(script), "--emit", "cuda"], stdout=io.StringIO(),
               stderr=err) != 0
    assert "A" in err.getvalue() and "cannot be passed to a kernel" in err.getvalue()
    assert "Traceback" not in err.getvalue()


# -- the check on a real GPU (scripts/check_cuda_device.py) ------------------------

def _device_check():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "check_cuda_device", ROOT / "scripts" / "check_cuda_device.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_device_check_compares_every_dumped_value():
    """The GPU check's comparison: equal text is equal; one digit off, a
    missing value or a missing array is reported, with the array and the
    first differing index."""
    dc = _device_check()
    out = "begin dump: A\n1 2.5 3\nend   dump: A\nbegin dump: s\n7\nend   dump: s\n"
    assert dc.compare(out, out) == ""
    assert dc.compare(out, out.replace("2.5", "2.5000000000000004")) \
        == "A: 1/3 differ, first [1] 2.5 vs 2.5000000000000004, max rel 1.78e-16"
    assert dc.compare(out, out.replace(" 3\n", "\n")) == "A: 3 vs 2 values"
    assert dc.compare(out, out.split("begin dump: s")[0]).startswith("arrays differ")
    assert dc.compare("no dumps", out) == "no dumps in the original's output"


def test_device_check_rewrites_only_variable_length_array_parameters():
    """nvcc (C++) rejects the examples' C99 VLA parameters: the GPU check
    rewrites a helper's ``double m[rows][cols]`` into a flat pointer and
    ``double v[n]`` into ``double *v``; fixed bounds stay."""
    dc = _device_check()
    src = ("static void k(int n, double A[N][M], double x[N]) {\n  A[0][0] = x[0];\n}\n"
           "static void dump(int rows, int cols, double m[rows][cols]) {\n"
           "  p(m[i][j + 1]);\n}\n"
           "static void pv(int n, double v[n]) {\n  p(v[i]);\n}\n")
    assert dc.nvcc_compatible(src) == (
        "static void k(int n, double A[N][M], double x[N]) {\n  A[0][0] = x[0];\n}\n"
        "static void dump(int rows, int cols, void *m_vp) {\n"
        "  double *m_flat = (double *)m_vp;\n  p(m_flat[(i) * (cols) + (j + 1)]);\n}\n"
        "static void pv(int n, double *v) {\n  p(v[i]);\n}\n")


@needs_nvcc
@pytest.mark.slow
def test_device_check_files_compile_with_nvcc(tmp_path):
    """The GPU check's ``.cu`` of an example with a 2-d and one with a 1-d
    VLA dump helper compile with nvcc (they do not as the examples are)."""
    dc = _device_check()
    cases = dc.generate(tmp_path, ["2mm", "atax"])
    assert sorted(c["variant"] for c in cases) == ["t0", "t0", "t0g", "t0g", "t32", "t32"]
    for stem in ("2mm", "atax"):
        assert _original_nvcc_errors(stem)
        assert _nvcc_errors(tmp_path / "cu" / f"{stem}.t0.cu", tmp_path) == []
