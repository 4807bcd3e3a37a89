"""CUDA from a Clay schedule, and plain C that emulates the same mapping.

:func:`generate_cuda_file` writes a whole ``.cu`` file: each SCoP region is
replaced by host code (device allocation, copy-in, kernel launches,
copy-out, ``CLAYX_CHECK`` around every CUDA call) and the kernels are
defined right before the function holding the region.  With
``emulate=True`` the same text is plain C (:data:`EMULATION_PRELUDE`): a
kernel is a C function taking ``gridDim``/``blockDim``/``blockIdx``/
``threadIdx``, a launch runs it for every block and thread (in reverse
order: any order is valid for independent threads, and reverse is the one
least like the original), ``cudaMalloc``/``cudaMemcpy`` work on separate
heap buffers filled with a garbage pattern, so a missing copy-in or
copy-out shows up as a wrong output.

Mapping (PPCG-like, seed 000 §5): the printer (:class:`CudaPrinter`, a
visitor over the same isl AST as the C printers) walks the AST on the host
side.  A loop marked ``parallel`` (``parallelize``, or the ``gpu`` preset's
marks) becomes a kernel: that loop and up to two more marked loops nested
directly in it are mapped to the grid (innermost on ``x``), each as a
grid-stride loop, so partial blocks and grids smaller than the loop are
covered::

    for (i = 0; i < ni; i++)            clayx_kernel0<<<dim3(G), dim3(256)>>>(ni, C);
      C[i] = 0;                  =>     ...
                                        for (int i = (int)(blockIdx.x * blockDim.x
                                               + threadIdx.x); i < ni;
                                             i += (int)(gridDim.x * blockDim.x))
                                          C[i] = 0;

When the marked loops nested in one another are tile loops followed by
their point loops (a tiled band: point loop ``j`` starts at a multiple of
tile loop ``j``), the tile loops go to the blocks and the point loops to
the threads of each block, as PPCG maps them::

    for (int c1 = (int)blockIdx.y; c1 <= floord(ni - 1, 32); c1 += (int)gridDim.y)
      for (int c2 = (int)blockIdx.x; c2 <= floord(nj - 1, 32); c2 += (int)gridDim.x)
        for (int i = 32 * c1 + (int)threadIdx.y; i <= min(ni - 1, 32 * c1 + 31);
             i += (int)blockDim.y)
          for (int j = 32 * c2 + (int)threadIdx.x; …; j += (int)blockDim.x)

Shared memory (``shared=True``, PPCG's ``--shared-memory``): an array the
kernel only reads, through two references or more, whose cells touched by
one block tile (the tile loops' iteration, or ``blockDim`` iterations of
the mapped loops) fit a box of fixed size (isl: ``dim_min``/``dim_max`` of
the footprint, the size maximized over all parameters), is copied by the
threads of the block into ``__shared__ T s_A[..]`` (cells outside the
array skipped), then ``__syncthreads()``, the computation reading
``s_A[i - (32 * c1 - 1)]…``, ``__syncthreads()`` before the next tile.
Emulated, such a kernel runs block by block and each phase between
barriers runs for all the threads of the block (``CLAYX_THREADS``) before
the next starts; the shared array is a local array of the block.

Loops that enclose a parallel loop stay on the host (the kernel is launched
inside them); consecutive code with no parallel loop becomes one
single-thread kernel (``<<<1, 1>>>``).  Parameters, enclosing host
iterators and read-only scalars are passed by value, arrays as device
pointers (``double (*A)[NJ]``); a scalar written on the device lives in a
one-element device buffer, loaded at the start of each kernel using it and
stored back at the end of each single-thread kernel writing it.  A scalar
written by a kernel of several threads cannot be mapped (a reduction across
threads): :class:`CudaMappingError`.

Grid sizes: ``grid`` (per dimension, innermost first, as ``--grid``) or
computed on the host from the loop bounds (``clayx_blocks``: enough blocks
for the trip count, at most 65535 on ``y``/``z``); block sizes ``block``
(default 256, 32×8, 32×4×2 for 1 to 3 mapped dimensions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Sequence

import islpy as isl

from ..errors import CodegenError
from ..model import Scop, identifiers
from ..model.helpers import MACROS
from ..model.layout import dead_arrays, layout_info
from .build import DEFAULT_MAX_OPERATIONS, build_ast, user_relation
from .c import LoopInfo, detect_indent
from .omp import MarkPrinter
from .tree import iterator_dim, node_mark

_N = isl.ast_node_type
_E = isl.ast_expr_type
_O = isl.ast_expr_op_type

#: block sizes by number of mapped dimensions (x first)
DEFAULT_BLOCKS = {1: (256,), 2: (32, 8), 3: (32, 4, 2)}
#: blocks per grid dimension when the loop's trip count cannot be computed
#: on the host (bounds that depend on another mapped loop)
FALLBACK_GRID = 64
_AXES = "xyz"


class CudaMappingError(CodegenError):
    """The schedule cannot be mapped to CUDA as asked: names the construct
    (a scalar written by many threads, an array of unknown shape, …)."""


CHECK_MACRO = (
    "#define CLAYX_CHECK(call) do { cudaError_t clayx_err = (call); "
    "if (clayx_err != cudaSuccess) { fprintf(stderr, \"%s:%d: %s: %s\\n\", __FILE__, "
    "__LINE__, #call, cudaGetErrorString(clayx_err)); exit(EXIT_FAILURE); } } while (0)")

_BLOCKS_FN = """\
/* blocks of `block` threads for the iterations lo, lo + step, ..., <= hi;
   at least 1, at most cap (the kernels loop over the rest) */
static inline unsigned clayx_blocks(long long lo, long long hi, long long step,
                                    unsigned block, unsigned cap)
{
  long long trip = hi < lo ? 0 : (hi - lo) / step + 1;
  long long n = (trip + block - 1) / block;
  return n < 1 ? 1u : n > cap ? cap : (unsigned)n;
}"""

#: what the .cu file starts its clayx part with (``clayx_blocks`` is added
#: when a launch uses it)
CUDA_PRELUDE = "\n".join([
    "/* ---- clayx: CUDA helpers ---- */",
    "#include <stdio.h>",
    "#include <stdlib.h>",
    CHECK_MACRO,
    "/* ---- end of clayx helpers ---- */", ""])

#: the same for the emulation in plain C: the CUDA runtime calls it uses,
#: on separate host buffers
EMULATION_PRELUDE = "\n".join([
    "/* ---- clayx: CUDA emulated in plain C (kernels run block by block, thread",
    "   by thread; device buffers are separate heap blocks) ---- */",
    "#include <stdio.h>",
    "#include <stdlib.h>",
    "#include <string.h>",
    "typedef struct { unsigned x, y, z; } dim3;",
    "typedef int cudaError_t;",
    "enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };",
    "enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };",
    "static inline cudaError_t cudaMalloc(void **p, size_t n)",
    "{",
    "  *p = malloc(n ? n : 1);",
    "  if (*p)",
    "    memset(*p, 0xA5, n);  /* garbage: a missing copy-in shows */",
    "  return *p ? cudaSuccess : cudaErrorMemoryAllocation;",
    "}",
    "static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n,",
    "                                     enum cudaMemcpyKind kind)",
    "{",
    "  (void)kind;",
    "  memcpy(dst, src, n);",
    "  return cudaSuccess;",
    "}",
    "static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }",
    "static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }",
    "static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }",
    "static inline const char *cudaGetErrorString(cudaError_t e)",
    "{",
    "  return e ? \"out of memory\" : \"no error\";",
    "}",
    CHECK_MACRO,
    "/* a launch: every thread of every block, in reverse order */",
    "#define CLAYX_THREAD clayx_g, clayx_b, clayx_bi, clayx_ti",
    "/* a launch of a kernel with __syncthreads(): block by block, the kernel",
    "   running its phases for every thread (CLAYX_THREADS) */",
    "#define CLAYX_BLOCK clayx_g, clayx_b, clayx_bi",
    "#define CLAYX_THREADS(t, b) \\",
    "  for (t.z = b.z; t.z-- > 0;) for (t.y = b.y; t.y-- > 0;) for (t.x = b.x; t.x-- > 0;)",
    "#define CLAYX_LAUNCH_BLOCKS(gx, gy, gz, bx, by, bz, call) do { \\",
    "    dim3 clayx_g = {gx, gy, gz}, clayx_b = {bx, by, bz}, clayx_bi; \\",
    "    for (clayx_bi.z = clayx_g.z; clayx_bi.z-- > 0;) \\",
    "      for (clayx_bi.y = clayx_g.y; clayx_bi.y-- > 0;) \\",
    "        for (clayx_bi.x = clayx_g.x; clayx_bi.x-- > 0;) \\",
    "          call; \\",
    "  } while (0)",
    "#define CLAYX_LAUNCH(gx, gy, gz, bx, by, bz, call) do { \\",
    "    dim3 clayx_g = {gx, gy, gz}, clayx_b = {bx, by, bz}, clayx_bi, clayx_ti; \\",
    "    for (clayx_bi.z = clayx_g.z; clayx_bi.z-- > 0;) \\",
    "      for (clayx_bi.y = clayx_g.y; clayx_bi.y-- > 0;) \\",
    "        for (clayx_bi.x = clayx_g.x; clayx_bi.x-- > 0;) \\",
    "          for (clayx_ti.z = clayx_b.z; clayx_ti.z-- > 0;) \\",
    "            for (clayx_ti.y = clayx_b.y; clayx_ti.y-- > 0;) \\",
    "              for (clayx_ti.x = clayx_b.x; clayx_ti.x-- > 0;) \\",
    "                call; \\",
    "  } while (0)",
    "/* ---- end of clayx helpers ---- */", ""])


@dataclass
class Kernel:
    """One kernel: ``name``, its body ``lines`` (indented from column 0),
    the ``mapped`` loops (printed iterators, x first; empty for a
    single-thread kernel), the ``params`` as ``(C declaration, host
    argument)`` pairs, the scalars it keeps in device buffers (``loads``)
    and those it writes back (``stores``), the statements it runs."""

    name: str
    lines: list[str] = field(default_factory=list)
    mapped: list[str] = field(default_factory=list)
    params: list[tuple[str, str]] = field(default_factory=list)
    loads: list[str] = field(default_factory=list)
    stores: list[str] = field(default_factory=list)
    statements: set[str] = field(default_factory=set)
    shared: list[str] = field(default_factory=list)
    rounds: list[str] = field(default_factory=list)
    phases: list[list[str]] = field(default_factory=list)
    block_launch: bool = False

    def definition(self, emulate: bool, scalar_types: dict[str, str],
                   device: dict[str, str]) -> list[str]:
        """The kernel's C/CUDA definition.  A kernel with shared memory
        (``phases``: the tile loads, then the computation) loops over the
        block tiles (``rounds``); on the GPU its phases are separated by
        ``__syncthreads()``, emulated they run one after the other for all
        the threads of the block."""
        params = [p for p, _ in self.params]
        if emulate:
            head = "static void"
            pos = ["dim3 gridDim", "dim3 blockDim", "dim3 blockIdx"]
            params = pos + (["dim3 threadIdx"] if not (self.phases or self.block_launch)
                            else []) + params
        else:
            head = "__global__ void"
        out = [f"{head} {self.name}({', '.join(params) or 'void'})", "{"]
        for d in self.shared:
            out.append(f"  {d};  /* __shared__: one per block */" if emulate
                       else f"  __shared__ {d};")
        if emulate and (self.phases or self.block_launch):
            out.append("  dim3 threadIdx;")
        for x in self.loads:
            out.append(f"  {scalar_types[x]} {x} = *{device[x]};")
        if self.phases:
            ind = "  "
            for r in self.rounds:
                out.append(ind + r)
                ind += "  "
            out[-1] += " {"
            for k, phase in enumerate(self.phases):
                if k:
                    out.append(ind + ("/* __syncthreads(); */" if emulate else "__syncthreads();"))
                if emulate:
                    out.append(ind + "CLAYX_THREADS(threadIdx, blockDim) {")
                    out += [ind + "  " + ln if ln else "" for ln in phase]
                    out.append(ind + "}")
                else:
                    out += [ind + ln if ln else "" for ln in phase]
            if not emulate:
                out.append(ind + "__syncthreads();")
            out.append(ind[:-2] + "}")
        out += ["  " + ln if ln else "" for ln in self.lines]
        for x in self.stores:
            out.append(f"  *{device[x]} = {x};")
        out.append("}")
        return out


@dataclass
class CudaRegion:
    """What :class:`CudaPrinter` makes of one SCoP: the host ``lines``
    replacing the region, the ``kernels``, the macros (``floord``, …) their
    bodies use, as ``#define`` lines."""

    lines: tuple[str, ...]
    kernels: list[Kernel]
    kernel_macros: list[str]
    kernel_undefs: list[str]
    emulate: bool
    scalar_types: dict[str, str]
    device: dict[str, str]

    def kernel_text(self) -> str:
        """The kernel definitions, with the macros they use."""
        out = list(self.kernel_macros)
        for k in self.kernels:
            out += k.definition(self.emulate, self.scalar_types, self.device)
            out.append("")
        out += self.kernel_undefs
        return "".join(ln + "\n" for ln in out)


def _paren(text: str) -> str:
    return text if re.fullmatch(r"\w+", text) else f"({text})"


class CudaPrinter(MarkPrinter):
    """Host code with kernel launches, and the kernels (see the module
    docstring).  ``block``/``grid``: sizes per mapped dimension, x first
    (None: defaults); ``emulate``: launches as ``CLAYX_LAUNCH`` loops."""

    target = "cuda"

    def __init__(self, scop: Scop, *, base_indent: str = "", indent: str = "  ",
                 block: Sequence[int] | None = None, grid: Sequence[int] | None = None,
                 emulate: bool = False, first_kernel: int = 0, shared: bool = False):
        super().__init__(scop, base_indent=base_indent, indent=indent)
        self.block = tuple(block) if block else None
        if self.block and (len(self.block) > 3 or min(self.block) < 1
                           or self.block[0] * (self.block[1:2] or (1,))[0]
                           * (self.block[2:3] or (1,))[0] > 1024
                           or any(b > lim for b, lim in zip(self.block, (1024, 1024, 64)))):
            raise CudaMappingError(f"block {list(self.block)}: CUDA allows at most 1024 "
                                   "threads per block (x, y <= 1024, z <= 64)")
        self.grid = tuple(grid) if grid else None
        self.emulate = emulate
        self.kernels: list[Kernel] = []
        self._next = first_kernel
        self._kernel: Kernel | None = None
        self._mapped: dict[int, str] = {}      # schedule dim -> axis, inside a kernel
        self._modes: dict[int, str] = {}       # schedule dim -> both / block / thread
        self._split_plan: list = []            # shared memory with tile loops on blocks
        self._split_tile: int | None = None
        self._split_now = False
        self._root = True
        self._kernel_macros: set[str] = set()
        self.shared = shared
        self._tile: dict[int, str] = {}         # mapped dim -> tile origin name
        self._promoted: dict[str, tuple[str, list[str]]] = {}
        self._host_base = base_indent
        self.arrays = {a.name: a for a in scop.arrays}
        self.written = {a.array for st in scop.statements for a in st.accesses
                        if a.kind != "read"}
        self.read = {a.array for st in scop.statements for a in st.accesses
                     if a.kind == "read"}
        self.dead = dead_arrays(scop)
        self.stmt_writes = {st.name: {a.array for a in st.accesses if a.kind != "read"}
                            for st in scop.statements}
        taken = set(self._reserved)         # the source's identifiers included
        self.device: dict[str, str] = {}
        for a in scop.arrays:
            name = f"d_{a.name}"
            while name in taken:
                name += "_"
            taken.add(name)
            self.device[a.name] = name
        self.macros_defined = {p for p in scop.params if p in scop.param_values or (
            scop.source and re.search(rf"^\s*#\s*define\s+{re.escape(p)}\b", scop.source, re.M))}
        self.used_arrays: set[str] = set()
        if not layout_info(scop).empty:
            raise CudaMappingError("arrays made by layout steps (datacopy, reshape, …) are not "
                                   "mapped to the GPU yet: generate CUDA before such steps")

    # -- host-side dispatch -------------------------------------------------------
    def visit(self, node: isl.AstNode, level: int) -> None:
        """On the host: the root gets the allocations and copies around it;
        code with no parallel loop becomes a single-thread kernel.  Inside
        a kernel: the plain printer."""
        if self._kernel is not None:
            super().visit(node, level)
            return
        if self._root:
            self._root = False
            with self.capture() as body:
                self.visit(node, level + 1)
            self.emit(f"{self.ind(level)}{{")
            pro, epi = self._transfers(level + 1)
            for ln in pro:
                self.emit(ln)
            self.splice(body)
            for ln in epi:
                self.emit(ln)
            self.emit(f"{self.ind(level)}}}")
            return
        if not self._has_parallel(node):
            self._launch([node], level, [])
            return
        super().visit(node, level)

    def visit_block(self, node: isl.AstNode, level: int) -> None:
        """On the host, consecutive children without a parallel loop run
        as one single-thread kernel."""
        if self._kernel is not None:
            super().visit_block(node, level)
            return
        run: list[isl.AstNode] = []
        for child in self._children(node):
            if self._has_parallel(child):
                if run:
                    self._launch(run, level, [])
                    run = []
                self.visit(child, level)
            else:
                run.append(child)
        if run:
            self._launch(run, level, [])

    def visit_for(self, node: isl.AstNode, level: int) -> None:
        """A loop marked parallel, on the host: a kernel mapping it and the
        marked loops nested directly in it (up to three on the grid, or up
        to three tile loops on blocks and their point loops on threads)."""
        if self._kernel is None and not node.for_is_degenerate() and \
                self._parallel_here(node):
            chain = [node]
            inner = self._nested_parallel(node)
            while inner is not None and len(chain) < 6:
                chain.append(inner)
                inner = self._nested_parallel(inner)
            self._launch([node], level, chain)
            return
        super().visit_for(node, level)

    def visit_user(self, node: isl.AstNode, level: int) -> None:
        """A statement: recorded in the kernel being printed."""
        if self._kernel is not None:
            self._kernel.statements.add(self.scop.schedule.relations[user_relation(node)].stmt)
        super().visit_user(node, level)

    # -- parallel loops -----------------------------------------------------------
    def _parallel_here(self, node: isl.AstNode) -> bool:
        dim = iterator_dim(node.for_get_iterator().get_id().get_name())
        return any(m.kind == "parallel" for m in self._marks.get(dim, ()))

    def _has_parallel(self, node: isl.AstNode) -> bool:
        """Whether a non-degenerate loop marked parallel is at or below
        ``node``."""
        par = {d for d, ms in self._marks.items() if any(m.kind == "parallel" for m in ms)}

        def walk(n, par):
            t = n.get_type()
            if t == _N.for_:
                dim = iterator_dim(n.for_get_iterator().get_id().get_name())
                if dim in par and not n.for_is_degenerate():
                    return True
                return walk(n.for_get_body(), par)
            if t == _N.if_:
                return walk(n.if_get_then_node(), par) or (
                    n.if_has_else_node() and walk(n.if_get_else_node(), par))
            if t == _N.block:
                return any(walk(c, par) for c in self._children(n))
            if t == _N.mark:
                m = node_mark(n.mark_get_id())
                if m is not None and m.kind == "parallel":
                    par = par | {2 * len(m.loop) - 1}
                return walk(n.mark_get_node(), par)
            return False
        return walk(node, par)

    def _nested_parallel(self, node: isl.AstNode) -> isl.AstNode | None:
        """The loop marked parallel that is the whole body of ``node``
        (through single-child blocks and mark nodes), if any."""
        body = node.for_get_body()
        par = set()
        while True:
            t = body.get_type()
            if t == _N.block:
                kids = self._children(body)
                if len(kids) != 1:
                    return None
                body = kids[0]
            elif t == _N.mark:
                m = node_mark(body.mark_get_id())
                if m is not None and m.kind == "parallel":
                    par.add(2 * len(m.loop) - 1)
                body = body.mark_get_node()
            elif t == _N.for_:
                dim = iterator_dim(body.for_get_iterator().get_id().get_name())
                if dim in par and not body.for_is_degenerate():
                    return body
                return None
            else:
                return None

    # -- kernels ------------------------------------------------------------------
    def _launch(self, nodes: list[isl.AstNode], level: int, chain: list[isl.AstNode]) -> None:
        """Print ``nodes`` as a kernel (``chain``: the loops mapped to the
        grid, outermost first) and its launch at ``level``."""
        k = Kernel(f"clayx_kernel{self._next}")
        self._next += 1
        pairs = _tile_pairs(chain)
        if pairs:       # tile loops -> blocks, their point loops -> threads
            tiles, points = chain[:pairs], chain[pairs:2 * pairs]
            chain = tiles
            pdims = [iterator_dim(n.for_get_iterator().get_id().get_name()) for n in points]
        else:
            chain, pdims = chain[:3], []
        dims = [iterator_dim(n.for_get_iterator().get_id().get_name()) for n in chain]
        axes = {d: _AXES[len(dims) - 1 - j] for j, d in enumerate(dims)}
        self._modes = {d: "both" for d in dims}
        if pairs:
            self._modes = {d: "block" for d in dims}
            for d, pd in zip(dims, pdims):
                axes[pd] = axes[d]
                self._modes[pd] = "thread"
        grid = self._grid_sizes(chain, axes, dims, per_block=not pairs)
        block = self._block_sizes(len(chain))
        saved_macros, self.used_macros = self.used_macros, set()
        self._kernel, self._mapped = k, axes
        self.base_indent = ""
        try:
            if pairs and self.shared:
                self._split_plan = self._plan_split(chain[0], dims)
                self._split_tile = dims[-1]
            if not (self.shared and chain and not pairs
                    and self._promote(k, chain, dims, block)):
                with self.capture() as buf:
                    for n in nodes:
                        self.visit(n, 0)
                # the loads (``s_A[..] = A[a0][a1];``) aside
                text = "\n".join(ln for ln in buf.lines
                                 if not re.match(r"\s*\w+(\[[^]]*\])+ = \w+(\[\w+\])+;$", ln))
                if self._split_plan and (
                        any(re.search(rf"(?<![\w.]){re.escape(x)}\s*\[", text)
                            for x, *_ in self._split_plan)
                        or "__syncthreads" not in text and "CLAYX_THREADS" not in text):
                    # a body printed from its text reads an array directly
                    self._split_plan, self._promoted, k.mapped = [], {}, []
                    with self.capture() as buf:
                        for n in nodes:
                            self.visit(n, 0)
                if self._split_plan:
                    k.shared = [f"{self.arrays[x].ctype} {sn}" + "".join(f"[{e}]" for e in ext)
                                for x, sn, _, ext in self._split_plan]
                    k.block_launch = True
                k.lines = list(buf.lines)
        finally:
            self._split_plan, self._split_tile, self._split_now = [], None, False
            self._kernel, self._mapped = None, {}
            self._tile = {}
            self._promoted = {}
            self.base_indent = self._host_base
            self._kernel_macros |= self.used_macros
            self.used_macros = saved_macros
        self._kernel_params(k)
        self.kernels.append(k)
        ind = self.ind(level)
        args = ", ".join(a for _, a in k.params)
        if self.emulate:
            g = list(grid) + ["1"] * (3 - len(grid))
            b = [str(x) for x in block] + ["1"] * (3 - len(block))
            if k.phases or k.block_launch:  # __syncthreads(): a block at a time
                call = f"{k.name}(CLAYX_BLOCK{', ' if args else ''}{args})"
                self.emit(f"{ind}CLAYX_LAUNCH_BLOCKS({', '.join(g)}, {', '.join(b)}, {call});")
            else:
                call = f"{k.name}(CLAYX_THREAD{', ' if args else ''}{args})"
                self.emit(f"{ind}CLAYX_LAUNCH({', '.join(g)}, {', '.join(b)}, {call});")
        else:
            gt = grid[0] if len(grid) == 1 else f"dim3({', '.join(grid)})"
            bt = str(block[0]) if len(block) == 1 else f"dim3({', '.join(map(str, block))})"
            self.emit(f"{ind}{k.name}<<<{gt}, {bt}>>>({args});")
        self.emit(f"{ind}CLAYX_CHECK(cudaGetLastError());")

    def _block_sizes(self, n: int) -> tuple[int, ...]:
        if n == 0:
            return (1,)
        if self.block:
            b = tuple(self.block[:n]) + (1,) * max(0, n - len(self.block))
            return b
        return DEFAULT_BLOCKS[n]

    def _grid_sizes(self, chain, axes, dims, per_block: bool = True) -> list[str]:
        """The number of blocks per mapped dimension (x first), as host
        expressions: enough for the loop's iterations, ``block`` threads
        each (``per_block``), else one block per iteration (tile loops)."""
        if not chain:
            return ["1"]
        block = self._block_sizes(len(chain)) if per_block else (1, 1, 1)
        out = []
        mapped_its = {n.for_get_iterator().get_id().get_name() for n in chain}
        for j, node in enumerate(reversed(chain)):   # x first
            cap = 2147483647 if j == 0 else 65535
            if self.grid:
                g = self.grid[j] if j < len(self.grid) else 1
                out.append(str(min(int(g), cap)))
                continue
            bounds = self._host_bounds(node, mapped_its)
            if bounds is None:
                out.append(str(FALLBACK_GRID))
                continue
            lo, hi, step = bounds
            out.append(f"clayx_blocks({lo}, {hi}, {step}, {block[j]}, {cap})")
        return out

    def _host_bounds(self, node: isl.AstNode, mapped_its: set[str]):
        """(lo, hi, step) texts of a mapped loop, on the host; None when
        they depend on another mapped loop or the condition is not
        ``c <= e``/``c < e`` (joined by ``&&``)."""
        it = node.for_get_iterator().get_id().get_name()
        exprs = [node.for_get_init()]
        uppers = []

        def collect(c) -> bool:
            if c.get_type() != _E.op:
                return False
            op = c.get_op_type()
            if op in (_O.and_, _O.and_then):
                return all(collect(c.get_op_arg(k)) for k in range(c.get_op_n_arg()))
            if op not in (_O.le, _O.lt):
                return False
            lhs, rhs = c.get_op_arg(0), c.get_op_arg(1)
            if lhs.get_type() != _E.id or lhs.get_id().get_name() != it:
                return False
            uppers.append((rhs, op == _O.lt))
            exprs.append(rhs)
            return True
        if not collect(node.for_get_cond()):
            return None
        inc = node.for_get_inc()
        if inc.get_type() != _E.int:
            return None
        if any(_mentions_any(e, mapped_its) for e in exprs):
            return None
        lo = self.expr(node.for_get_init())
        his = [_minus_one(self.expr(e, 4)) if strict else self.expr(e) for e, strict in uppers]
        hi = his[0] if len(his) == 1 else self.macro_call("min", his)
        return lo, hi, str(inc.get_val().to_python())

    def loop_info(self, node: isl.AstNode) -> LoopInfo:
        """Inside a kernel every loop declares its iterator (the function's
        variables are on the host), and a mapped loop is never printed
        counting down."""
        info = super().loop_info(node)
        if self._kernel is None:
            return info
        if info.declared:
            info = replace(info, declared=False)
        if info.dim in self._mapped and info.reversed:
            name = f"c{info.depth or info.dim}"
            while name in self._reserved or name in self._enclosing:
                name += "_"
            info = replace(info, reversed=False, name=name,
                           values=info.values.negated() if info.values is not None else None)
        return info

    def loop_pragmas(self, info: LoopInfo) -> list[str]:
        """Unroll marks inside kernels (``#pragma unroll N`` for nvcc); no
        pragma on host loops."""
        if self._kernel is None or info.dim in self._mapped:
            return []
        for m in info.marks:
            if m.kind == "unroll":
                return [f"#pragma unroll {int(m.arg)}" if not self.emulate
                        else f"#pragma GCC unroll {int(m.arg)}"]
        return []

    def for_header(self, node: isl.AstNode, info: LoopInfo) -> str:
        """A mapped loop is a grid-stride loop over its axis."""
        axis = self._mapped.get(info.dim) if self._kernel is not None else None
        if axis is None:
            return super().for_header(node, info)
        name, t = info.name, str(info.ctype)
        self._kernel.mapped.append(name)
        if info.dim in self._tile:
            # inside a block tile (shared memory): one iteration per thread
            o = self._tile[info.dim]
            cond = self.expr(node.for_get_cond(), 10)
            return (f"for ({t} {name} = {o} + ({t})threadIdx.{axis}; "
                    f"{name} < {o} + ({t})blockDim.{axis} && {cond}; {name} += blockDim.{axis})")
        init = self.expr(node.for_get_init(), 4)
        inc = node.for_get_inc()
        step = inc.get_val().to_python() if inc.get_type() == _E.int else None
        if step is None:
            raise CudaMappingError(f"the loop over {name} has a non-constant stride")
        mode = self._modes.get(info.dim, "both")
        if self._split_plan and info.dim == self._split_tile:
            self._split_now = True
        if mode == "block":         # a tile loop: one block per iteration
            tid, width = f"({t})blockIdx.{axis}", f"({t})gridDim.{axis}"
        elif mode == "thread":      # its point loop: the threads of the block
            tid, width = f"({t})threadIdx.{axis}", f"({t})blockDim.{axis}"
        else:
            tid = f"({t})(blockIdx.{axis} * blockDim.{axis} + threadIdx.{axis})"
            width = f"({t})(gridDim.{axis} * blockDim.{axis})"
        if step != 1:
            tid, width = f"{step} * {tid}", f"{step} * {width}"
        start = tid if init == "0" else f"{init} + {tid}"
        cond = self.expr(node.for_get_cond())
        return f"for ({t} {name} = {start}; {cond}; {name} += {width})"

    def array_ref(self, access, subscripts: list[str]) -> str:
        """A read of an array promoted to shared memory reads its tile:
        ``s_A[i - o1 + 1][j - o2 + 1]``."""
        p = self._promoted.get(access.array) if self._kernel is not None else None
        if p is None or access.kind != "read":
            return super().array_ref(access, subscripts)
        shared, offsets = p
        return shared + "".join(f"[{_sub(s, o)}]" for s, o in zip(subscripts, offsets))

    # -- shared memory --------------------------------------------------------------
    def _promote(self, k: Kernel, chain: list[isl.AstNode], dims: list[int],
                 block: tuple[int, ...]) -> bool:
        """Print the kernel of ``chain`` with block tiles: per tile, the
        threads load the tile's footprint of every array the kernel only
        reads, with reuse and a fixed-size box (PPCG's --shared-memory),
        ``__syncthreads()``, compute from shared memory, ``__syncthreads()``.
        False (nothing printed) when no array qualifies or the mapped loops
        are not rectangular."""
        node = chain[0]
        its = {n.for_get_iterator().get_id().get_name() for n in chain}
        bounds = []
        for n in chain:
            b = self._host_bounds(n, its)
            if b is None or b[2] != "1":
                return False
            bounds.append(b)
        reads = self._reused_reads(node)
        if not reads:
            return False
        # the tile origins, one per mapped loop (outermost first)
        origin = []
        for j, d in enumerate(dims):
            name = f"o{j + 1}"
            while name in self._reserved or name in self._enclosing:
                name += "_"
            origin.append(name)
        sizes = dict(zip(dims, reversed(block)))    # block is x first
        promoted: dict[str, tuple[str, list[str]]] = {}
        shared_decls: list[str] = []
        loads: list[str] = []
        for x, accs in reads.items():
            box = self._footprint(accs, dims, sizes)
            if box is None:
                continue
            offsets, extents = box
            arr = self.arrays[x]
            if len(arr.extents) != arr.ndim or 8 * _prod(extents) > 48 * 1024 // 2:
                continue
            sname = f"s_{x}"
            while sname in self._reserved:
                sname += "_"
            off_texts = [self._aff_text(o, dims, origin) for o in offsets]
            promoted[x] = (sname, off_texts)
            shared_decls.append(f"{arr.ctype} {sname}" + "".join(f"[{e}]" for e in extents))
            loads += self._load_lines(x, sname, off_texts, extents, arr.extents)
        if not promoted:
            return False
        self._promoted = promoted
        self._tile = dict(zip(dims, origin))
        rounds = []
        for (lo, hi, _), d, o in zip(bounds, dims, origin):
            a = self._mapped[d]
            start = f"(int)(blockIdx.{a} * blockDim.{a})"
            start = start if lo == "0" else f"{lo} + {start}"
            rounds.append(f"for (int {o} = {start}; {o} <= {hi}; "
                          f"{o} += (int)(gridDim.{a} * blockDim.{a}))")
        with self.capture() as buf:
            self.visit(node, 0)
        text = "\n".join(buf.lines)
        if any(re.search(rf"(?<![\w.]){re.escape(x)}\s*\[", text) for x in promoted):
            # a body printed from its text reads the array directly
            self._tile, self._promoted, k.mapped = {}, {}, []
            return False
        k.shared = shared_decls
        k.rounds = rounds
        k.phases = [loads, list(buf.lines)]
        return True

    def _reused_reads(self, node: isl.AstNode) -> dict[str, list]:
        """The arrays the kernel below ``node`` only reads, by at least two
        references (reuse): name -> [(relation, statement, access)]."""
        rel_ids = sorted({r for r, _ in self._users_below(node)})
        rels = [self.scop.schedule.relations[r] for r in rel_ids]
        writes = set().union(*(self.stmt_writes[r.stmt] for r in rels))
        reads: dict[str, list] = {}
        for r in rels:
            st = self.scop.statement(r.stmt)
            for a in st.accesses:
                if a.kind == "read" and a.array not in writes and a.array in self.arrays \
                        and not self.arrays[a.array].is_scalar:
                    reads.setdefault(a.array, []).append((r, st, a))
        return {x: v for x, v in reads.items() if len(v) >= 2}

    def _plan_split(self, node: isl.AstNode, tile_dims: list[int]) -> list:
        """Shared memory for a kernel whose tile loops ``tile_dims`` run on
        blocks: (array, shared name, offsets, sizes) of every reused
        read-only array whose footprint in one tile (the enclosing loops
        and the tile loops fixed) is a fixed-size box."""
        plan = []
        taken = set(self._reserved)
        for x, accs in self._reused_reads(node).items():
            box = self._footprint(accs, [], {}, last_fixed=tile_dims[-1])
            arr = self.arrays[x]
            if box is None or len(arr.extents) != arr.ndim \
                    or 8 * _prod(box[1]) > 48 * 1024 // 2:
                continue
            plan.append((x, _fresh(f"s_{x}", taken), box[0], box[1]))
        return plan

    def _compound(self, header: str, body: isl.AstNode, level: int) -> None:
        """The innermost tile loop of a kernel with shared memory (tile
        loops on blocks): load the tiles, ``__syncthreads()``, the point
        loops, ``__syncthreads()``."""
        if not self._split_now:
            super()._compound(header, body, level)
            return
        self._split_now = False
        ind, ind1 = self.ind(level), self.ind(level + 1)
        promoted, loads = {}, []
        for x, sname, offsets, extents in self._split_plan:
            texts = [self._aff_text(o, [], []) for o in offsets]
            promoted[x] = (sname, texts)
            loads += self._load_lines(x, sname, texts, extents, self.arrays[x].extents)
        self._promoted = promoted
        self.emit(f"{ind}{header} {{")
        if self.emulate:
            self.emit(f"{ind1}CLAYX_THREADS(threadIdx, blockDim) {{")
            for ln in loads:
                self.emit(self.ind(level + 2) + ln)
            self.emit(f"{ind1}}}")
            self.emit(f"{ind1}/* __syncthreads(); */")
            self.emit(f"{ind1}CLAYX_THREADS(threadIdx, blockDim) {{")
            self.visit(body, level + 2)
            self.emit(f"{ind1}}}")
        else:
            for ln in loads:
                self.emit(ind1 + ln)
            self.emit(f"{ind1}__syncthreads();")
            self.visit(body, level + 1)
            self.emit(f"{ind1}__syncthreads();")
        self.emit(f"{ind}}}")

    def _footprint(self, accs, dims: list[int], sizes: dict[int, int], *,
                   last_fixed: int | None = None):
        """(offsets as PwAffs, fixed sizes) of the cells the accesses
        ``accs`` touch in one block tile: host loop dimensions fixed to
        parameters ``c<d>``, mapped dimension ``d`` in ``[o<d>, o<d> +
        size)``; None when a size is not bounded."""
        n = 2 * self.max_depth + 1
        host = [d for d in range(1, dims[0] if dims else last_fixed + 1, 2)]
        names = [f"c{d}" for d in host] + [f"clayx_o{d}" for d in dims]
        conds = [f"t{d} = c{d}" for d in host] + \
                [f"clayx_o{d} <= t{d} < clayx_o{d} + {sizes[d]}" for d in dims]
        ctx = self.scop.context
        tile = isl.Set(f"[{', '.join(names)}] -> {{ [{', '.join(f't{k}' for k in range(n))}]"
                       f" : {' and '.join(conds) or 'true'} }}", ctx.get_ctx())
        fp = None
        for r, _, a in accs:
            # not restricted to the statement's domain: the box then has
            # one affine offset (the loads skip cells outside the array)
            m = r.padded(n).reverse().apply_range(isl.Map.from_basic_map(
                a.relation.affine_hull()))
            t = tile.align_params(m.get_space())
            m = m.align_params(t.get_space())
            cells = m.intersect_domain(t).range()
            fp = cells if fp is None else fp.union(cells)
        if fp is None or fp.is_empty():
            return None
        fp = fp.intersect_params(ctx.align_params(fp.get_space()).params()) \
            if ctx.dim(isl.dim_type.param) else fp
        fp = fp.coalesce()
        offsets, extents = [], []
        for k in range(fp.dim(isl.dim_type.set)):
            try:
                lo, hi = fp.dim_min(k), fp.dim_max(k)
                size = (hi - lo + 1).max_val()
            except isl.Error:           # unbounded: not a tile
                return None
            if not size.is_int():
                return None
            offsets.append(lo)
            extents.append(int(size.to_python()))
        return offsets, extents

    def _aff_text(self, pa: isl.PwAff, dims: list[int], origin: list[str]) -> str:
        """C text of a tile offset (in the kernel's scope)."""
        build = isl.AstBuild.from_context(isl.Set.universe(pa.get_domain_space()))
        e = build.expr_from_pw_aff(pa)
        for d, o in zip(dims, origin):
            self._scope[f"clayx_o{d}"] = o
        try:
            return self.expr(e)
        finally:
            for d in dims:
                self._scope.pop(f"clayx_o{d}", None)

    def _load_lines(self, x: str, sname: str, offsets: list[str], extents: list[int],
                    bounds: tuple[str, ...]) -> list[str]:
        """The threads of a block copy the tile of ``x`` (cells inside the
        array only)."""
        total = _prod(extents)
        u = self.indent_unit
        taken = self._reserved | set(self._enclosing) | identifiers("\n".join(offsets))
        t = _fresh("l", taken)
        cell = [_fresh(f"a{k}", taken) for k in range(len(extents))]
        out = [f"for (int {t} = (int)(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * "
               f"threadIdx.z)); {t} < {total}; {t} += (int)(blockDim.x * blockDim.y * "
               "blockDim.z)) {"]
        idx = []
        for k, e in enumerate(extents):
            inner = _prod(extents[k + 1:])
            v = t if k == 0 and len(extents) == 1 else \
                (f"{t} / {inner}" if k == 0 else f"{t} / {inner} % {e}" if inner > 1
                 else f"{t} % {e}")
            idx.append(v)
        cells = [f"{_paren(o) if ' ' in o else o} + {v}" if o != "0" else v
                 for o, v in zip(offsets, idx)]
        for c, text in zip(cell, cells):
            out.append(f"{u}int {c} = {text};")
        guard = " && ".join(f"{c} >= 0 && {c} < {_paren(b)}" for c, b in zip(cell, bounds))
        out.append(f"{u}if ({guard})")
        out.append(f"{u}{u}{sname}" + "".join(f"[{v}]" for v in idx) + f" = {x}"
                   + "".join(f"[{c}]" for c in cell) + ";")
        out.append("}")
        return out

    def _kernel_params(self, k: Kernel) -> None:
        """Parameters of a kernel: what its body uses of the parameters,
        enclosing host iterators, scalars and arrays."""
        used = identifiers("\n".join(k.lines + k.rounds + sum(k.phases, [])))
        params: list[tuple[str, str]] = []
        for p in self.scop.params:
            if p in used and p not in self.macros_defined:
                params.append((f"int {p}", p))
        for name in self._enclosing:
            if name in used:
                v = self._values.get(name)
                t = str(v.ctype) if v is not None else "int"
                params.append((f"{t} {name}", name))
        writes = set().union(*(self.stmt_writes[s] for s in k.statements)) \
            if k.statements else set()
        for a in self.scop.arrays:
            if a.name not in used:
                continue
            if not a.ctype:
                raise CudaMappingError(f"the element type of {a.name} is unknown: it "
                                       "cannot be passed to a kernel")
            self.used_arrays.add(a.name)
            if a.is_scalar:
                if a.name not in self.written:
                    params.append((f"{a.ctype} {a.name}", a.name))
                    continue
                if a.name in writes and k.mapped:
                    raise CudaMappingError(
                        f"the scalar {a.name} is written by every thread of the kernel "
                        f"mapping the loop over {k.mapped[0]} (a reduction or a "
                        "variable shared across threads): CUDA cannot express it here; "
                        "expand it to an array, or parallelize another loop")
                d = self.device[a.name]
                params.append((f"{a.ctype} *{d}", d))
                k.loads.append(a.name)
                if a.name in writes:
                    k.stores.append(a.name)
                continue
            params.append((self._pointer_decl(a, a.name), self.device[a.name]))
        k.params = params

    def _pointer_decl(self, a, name: str) -> str:
        """``double (*A)[NJ]`` for an array of that shape."""
        if len(a.extents) != a.ndim or any(not e.strip() for e in a.extents):
            raise CudaMappingError(f"the shape of array {a.name} is unknown (extents "
                                   f"{list(a.extents)}): it cannot be copied to the GPU")
        if a.ndim == 1:
            return f"{a.ctype} *{name}"
        return f"{a.ctype} (*{name})" + "".join(f"[{e}]" for e in a.extents[1:])

    def _transfers(self, level: int) -> tuple[list[str], list[str]]:
        """Allocation and copy-in lines, copy-out and free lines."""
        ind = self.ind(level)
        pro: list[str] = []
        epi: list[str] = []
        on_device = [a for a in self.scop.arrays if a.name in self.used_arrays
                     and (not a.is_scalar or a.name in self.written)]
        for a in on_device:
            d = self.device[a.name]
            if a.is_scalar:
                pro.append(f"{ind}{a.ctype} *{d};")
            else:
                pro.append(f"{ind}{self._pointer_decl(a, d)};")
        for a in on_device:
            d = self.device[a.name]
            size = f"sizeof({a.ctype})" + "".join(f" * {_paren(e)}" for e in a.extents)
            host = f"&{a.name}" if a.is_scalar else a.name
            live = a.name not in self.dead
            pro.append(f"{ind}CLAYX_CHECK(cudaMalloc((void **)&{d}, {size}));")
            # written-but-live arrays are copied in too: cells the SCoP
            # does not write must come back unchanged
            if a.name in self.read or (a.name in self.written and live):
                pro.append(f"{ind}CLAYX_CHECK(cudaMemcpy({d}, {host}, {size}, "
                           "cudaMemcpyHostToDevice));")
            if a.name in self.written and live:
                epi.append(f"{ind}CLAYX_CHECK(cudaMemcpy({host}, {d}, {size}, "
                           "cudaMemcpyDeviceToHost));")
        for a in on_device:
            epi.append(f"{ind}CLAYX_CHECK(cudaFree({self.device[a.name]}));")
        return pro, epi

    def cuda_region(self, node: isl.AstNode, original: str | None = None) -> CudaRegion:
        """Print the region: host lines and kernels."""
        region = self.generate(node, original)
        used = self._kernel_macros
        defs = [MACROS[r].format(n=self.macros[r]) for r in MACROS if r in used]
        undefs = [f"#undef {self.macros[r]}" for r in MACROS if r in used]
        return CudaRegion(region.lines, self.kernels, defs, undefs, self.emulate,
                          {a.name: a.ctype or "" for a in self.scop.arrays}, self.device)


def _tile_pairs(chain: list[isl.AstNode]) -> int:
    """``k`` when the first ``2k`` loops of ``chain`` (perfectly nested,
    all parallel) are ``k`` tile loops then their ``k`` point loops (the
    bounds of point loop ``j`` mention tile loop ``j``), else 0."""
    for k in (3, 2, 1):
        if len(chain) < 2 * k:
            continue
        if all(_is_tile_of(t, p) for t, p in zip(chain[:k], chain[k:2 * k])):
            return k
    return 0


def _is_tile_of(tile: isl.AstNode, point: isl.AstNode) -> bool:
    """Whether ``point`` starts at a multiple of ``tile``'s iterator
    (``32 * c1``): a tile/point pair, not just a triangular nest."""
    it = tile.for_get_iterator().get_id().get_name()
    init = point.for_get_init()
    if _mentions_any(init, {it}) and init.get_type() == _E.op:
        return any(a.get_type() == _E.op and a.get_op_type() == _O.mul
                   for a in [init] + [init.get_op_arg(k) for k in range(init.get_op_n_arg())])
    return False


def _fresh(base: str, taken: set[str]) -> str:
    """``base`` with ``_`` appended until not in ``taken`` (then taken)."""
    while base in taken:
        base += "_"
    taken.add(base)
    return base


def _minus_one(text: str) -> str:
    """``text - 1``, folding a trailing constant (``n - 1`` -> ``n - 2``)."""
    m = re.fullmatch(r"(.*\S) ([-+]) (\d+)", text)
    if m and not re.search(r"[?:<>=&|]", m.group(1)):
        v = int(m.group(3)) * (1 if m.group(2) == "+" else -1) - 1
        return m.group(1) if v == 0 else f"{m.group(1)} {'+' if v > 0 else '-'} {abs(v)}"
    if re.fullmatch(r"-?\d+", text):
        return str(int(text) - 1)
    return f"{text} - 1"


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def _sub(subscript: str, offset: str) -> str:
    """``subscript - offset`` as text (the offset parenthesized unless a
    name or a number)."""
    if offset == "0":
        return subscript
    if re.fullmatch(r"-?\d+", offset):
        v = int(offset)
        return f"{subscript} - {v}" if v > 0 else f"{subscript} + {-v}"
    sub = subscript if re.fullmatch(r"[\w\s+*-]+", subscript) else f"({subscript})"
    return f"{sub} - {_paren(offset)}"


def _mentions_any(e: isl.AstExpr, names: set[str]) -> bool:
    t = e.get_type()
    if t == _E.id:
        return e.get_id().get_name() in names
    if t == _E.op:
        return any(_mentions_any(e.get_op_arg(k), names) for k in range(e.get_op_n_arg()))
    return False


def generate_cuda(scop: Scop, *, emulate: bool = False, block: Sequence[int] | None = None,
                  grid: Sequence[int] | None = None, first_kernel: int = 0,
                  shared: bool = False,
                  max_operations: int | None = DEFAULT_MAX_OPERATIONS) -> CudaRegion:
    """The host code and kernels of one SCoP (see the module docstring);
    :class:`~clayx.errors.CodegenError` (:class:`CudaMappingError` for what
    CUDA cannot express) when it cannot be generated."""
    original = None
    if scop.source is not None and scop.region is not None:
        original = scop.source[scop.region[0]:scop.region[1]]
    base, unit = detect_indent(original or "")
    if not scop.schedule.relations:
        return CudaRegion((), [], [], [], emulate, {}, {})
    node = build_ast(scop, max_operations=max_operations, full_tiles=False)
    printer = CudaPrinter(scop, base_indent=base, indent=unit, block=block, grid=grid,
                          emulate=emulate, first_kernel=first_kernel, shared=shared)
    try:
        return printer.cuda_region(node, original)
    except isl.Error as e:
        raise CodegenError(f"printing the generated code failed in isl: {e}") from None


def _function_start(source: str, offset: int) -> int:
    """The character offset where the top-level definition holding
    ``offset`` starts (the kernels go right before it)."""
    import tree_sitter as ts
    import tree_sitter_c as tsc
    data = source.encode()
    at = len(source[:offset].encode())
    tree = ts.Parser(ts.Language(tsc.language())).parse(data)
    for child in tree.root_node.children:
        if child.start_byte <= at < child.end_byte:
            return len(data[:child.start_byte].decode())
    raise CudaMappingError("the SCoP is not inside a function: kernels have nowhere to go")


def generate_cuda_file(scops: Sequence[Scop], *, emulate: bool = False,
                       block: Sequence[int] | None = None,
                       grid: Sequence[int] | None = None, shared: bool = False) -> str:
    """The whole file (``scops[0].source``) as CUDA (``emulate``: as plain
    C emulating it): the helpers at the first kernel's place, each SCoP's
    kernels right before the function holding it, its region replaced by
    the host code.  Text outside the regions is kept."""
    if not scops:
        raise CodegenError("no SCoP to generate")
    source = scops[0].source
    if source is None or any(s.source != source or s.region is None for s in scops):
        raise CodegenError("CUDA needs SCoPs of one C source, each with a region")
    order = sorted(scops, key=lambda s: s.region[0])
    for a, b in zip(order, order[1:]):
        if a.region[1] > b.region[0]:
            raise CodegenError(f"SCoP regions {a.region} and {b.region} overlap")
    edits: list[tuple[int, int, str]] = []
    n = 0
    inserts: dict[int, str] = {}
    for s in order:
        r = generate_cuda(s, emulate=emulate, block=block, grid=grid, first_kernel=n,
                          shared=shared)
        n += len(r.kernels)
        start, end = s.region
        text = "".join(ln + "\n" for ln in r.lines)
        if "\r\n" in source[start:end]:
            text = text.replace("\n", "\r\n")
        edits.append((start, end, text))
        if r.kernels:
            at = _function_start(source, start)
            inserts[at] = inserts.get(at, "") + r.kernel_text()
    if inserts:
        first = min(inserts)
        prelude = EMULATION_PRELUDE if emulate else CUDA_PRELUDE
        if any("clayx_blocks(" in text for _, _, text in edits):
            end = prelude.rindex("/* ---- end")
            prelude = prelude[:end] + _BLOCKS_FN + "\n" + prelude[end:]
        inserts[first] = prelude + "\n" + inserts[first]
    for at, text in inserts.items():
        edits.append((at, at, text))
    out = source
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out = out[:start] + text + out[end:]
    return out
