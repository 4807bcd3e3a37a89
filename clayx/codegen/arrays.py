"""Declarations of the arrays a layout change gives a new shape.

After ``add_array``/``datacopy`` (a new array) or ``dimprivatize``/
``dimcontract``/``dimreorder`` on an array that is dead after the SCoP (a
reshaped local temporary), the generated region must declare the array
itself.  :func:`declarations` gives the lines :meth:`CPrinter.region
<clayx.codegen.c.CPrinter.region>` puts at the top of the region, which it
then wraps in ``{ … }``:

- the element type is the array's (``datacopy`` gives a new array the
  original's); the extent of each dimension is the largest subscript the
  accesses reach over the statement domains (isl ``dim_max``) plus one, a
  parameter expression printed as C (``double B[N][M];``); an access that
  can go below index 0 is refused (:class:`~clayx.errors.CodegenError`);
- an array whose size is not a constant of at most :data:`STACK_LIMIT`
  elements is allocated on the heap through a pointer to a variable-length
  array, ``double (*B)[M] = malloc(sizeof(double[N][M]));`` … ``free(B);``
  (subscripts read as before); when the source does not include
  ``<stdlib.h>``, only an array with at least two extents that are not
  constants goes there, and the region declares ``malloc`` and ``free``
  itself, at block scope (``void *malloc(__SIZE_TYPE__);``, compatible with
  the standard's declaration should a header bring it in): a PolyBench-size
  2-D temporary on the stack overflows it (a 17 MB privatized array did);
  other arrays are variable-length arrays on the stack;
- an original array redeclared this way shadows the function's own
  declaration, which the region then no longer uses: ``(void)name;`` keeps
  ``gcc -Wall`` quiet, as for unused iterators; so does an original array
  that ``replace_array`` left without any access.

Extents are exact where the region accesses the array; for parameter values
where it accesses nothing they may be zero or negative (like the loops, the
code then runs no instance; the heap form is safe there, the stack form
assumes sizes are positive as PolyBench does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import islpy as isl

from ..errors import CodegenError
from ..model import Scop, dead_arrays, identifiers, layout_info

_dt = isl.dim_type

#: Arrays of at most this many elements (a constant size) stay on the stack
#: even when ``<stdlib.h>`` is included.
STACK_LIMIT = 1024

_STDLIB = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<stdlib\.h>", re.M)


@dataclass(frozen=True)
class Declarations:
    """What a region declares: ``lines`` (inside the braces, first),
    ``frees`` (inside the braces, last), ``voids`` (names whose outer
    declaration the region no longer uses: ``(void)name;`` before the
    braces)."""

    lines: tuple[str, ...] = ()
    frees: tuple[str, ...] = ()
    voids: tuple[str, ...] = ()


def local_arrays(scop: Scop) -> list[str]:
    """The arrays the region declares: new arrays that are accessed, and
    reshaped arrays that are dead after the SCoP, in ``scop.arrays`` order.
    A reshaped live array (only after unchecked steps) keeps the function's
    declaration, and is refused if its number of subscripts changed."""
    info = layout_info(scop)
    if not info.new and not info.reshaped:
        return []
    dead = dead_arrays(scop)
    accessed = {a.array for st in scop.statements for a in st.accesses}
    out = []
    for arr in scop.arrays:
        if arr.name not in accessed:
            continue
        if arr.name in info.new or (arr.name in info.reshaped and arr.name in dead):
            out.append(arr.name)
        elif arr.name in info.reshaped and arr.extents:
            nd = {a.relation.dim(_dt.out) for st in scop.statements for a in st.accesses
                  if a.array == arr.name}
            if nd != {len(arr.extents)}:
                raise CodegenError(
                    f"{arr.name} may be used after the SCoP and is declared with "
                    f"{len(arr.extents)} subscripts, but the layout steps access it with "
                    f"{sorted(nd)}: it cannot be redeclared")
    return out


def declarations(scop: Scop, printer) -> Declarations:
    """The declarations of :func:`local_arrays` (``printer`` prints the
    extents: a :class:`~clayx.codegen.c.CPrinter`, whose macros they may
    use)."""
    info = layout_info(scop)
    if info.empty:
        return Declarations()
    names = local_arrays(scop)
    has_stdlib = bool(scop.source and _STDLIB.search(scop.source))
    lines, frees, voids = [], [], []
    # original arrays no statement accesses any more (replace_array): their
    # declarations outside would be unused
    accessed = {a.array for st in scop.statements for a in st.accesses}
    region = identifiers(scop.source[scop.region[0]:scop.region[1]]) \
        if scop.source is not None and scop.region is not None else set()
    voids += [a.name for a in scop.arrays if a.name not in accessed
              and a.name not in info.new and a.name in region]
    for name in names:
        arr = scop.array(name)
        if not arr.ctype:
            raise CodegenError(f"the element type of {name} is unknown: it cannot be "
                               "declared (datacopy gives a new array the original's type)")
        try:
            exts = _extents(scop, name, printer)
        except isl.Error as e:
            raise CodegenError(f"the extents of {name} could not be computed: {e}") from None
        ctype = arr.ctype
        if not exts:
            lines.append(f"{ctype} {name};")
        elif not _small(exts) and (has_stdlib or _planar(exts)):
            if not has_stdlib and not frees:
                lines += ["void *malloc(__SIZE_TYPE__);", "void free(void *);"]
            inner = "".join(f"[{e}]" for e in exts[1:])
            ptr = f"*{name}" if not inner else f"(*{name}){inner}"
            lines.append(f"{ctype} {ptr} = malloc(sizeof({ctype}"
                         f"{''.join(f'[{e}]' for e in exts)}));")
            frees.append(f"free({name});")
        else:
            lines.append(f"{ctype} {name}{''.join(f'[{e}]' for e in exts)};")
        if name not in info.new:
            voids.append(name)
    return Declarations(tuple(lines), tuple(frees), tuple(voids))


def _planar(exts: list[str]) -> bool:
    """Whether at least two extents are not constants: an array that grows
    with the square of the sizes (megabytes at PolyBench's sizes), too big
    for the stack."""
    return sum(not e.isdigit() for e in exts) >= 2


def _small(exts: list[str]) -> bool:
    n = 1
    for e in exts:
        if not e.isdigit():
            return False
        n *= int(e)
    return n <= STACK_LIMIT


def _extents(scop: Scop, name: str, printer) -> list[str]:
    cells = None
    for st in scop.statements:
        dom = st.domain.intersect_params(scop.context)
        for a in st.accesses:
            if a.array == name:
                c = a.relation.intersect_domain(dom).range()
                if cells is not None and c.dim(_dt.set) != cells.dim(_dt.set):
                    raise CodegenError(
                        f"{name} is accessed with {cells.dim(_dt.set)} and "
                        f"{c.dim(_dt.set)} subscripts: the layout change is incomplete "
                        "(every access to the array must be changed alike)")
                cells = c if cells is None else cells.union(c)
    if cells is None or cells.is_empty():
        return []
    cells = cells.coalesce()
    if not cells.is_bounded():
        raise CodegenError(f"the subscripts of {name} have no upper bound: it cannot be "
                           "declared")
    out = []
    for k in range(cells.dim(_dt.set)):
        below = cells.upper_bound_val(_dt.set, k, -1)
        if not below.is_empty():
            from ..analysis.isl_util import small_point
            params, vals = small_point(below)
            eg = ", ".join(f"{p} = {v}" for p, v in params.items())
            raise CodegenError(
                f"{name}{''.join(f'[{v}]' for v in vals)} is accessed"
                f"{' when ' + eg if eg else ''}: an index below 0 cannot be declared")
        top = cells.dim_max(k)
        one = isl.PwAff.val_on_domain(top.domain(), isl.Val.one(top.get_ctx()))
        ext = top.add(one).coalesce()
        build = isl.AstBuild.from_context(ext.domain())
        out.append(printer.expr(build.expr_from_pw_aff(ext)))
    return out
