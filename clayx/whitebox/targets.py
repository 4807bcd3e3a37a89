"""Where whiteboxing starts and what it aims at.

:func:`start_of` takes the starting point (a session, a SCoP or a file);
:func:`read_target` reads a target schedule in any of the forms the issue
lists, and returns it as a :class:`~clayx.model.ClaySchedule` over the
starting SCoP's statements:

- a :class:`~clayx.model.ClaySchedule` (an automatic schedule, the result
  of a script), a :class:`~clayx.model.Scop` or a :class:`~clayx.Session`
  (its current schedule);
- the path of a ``.c`` file (its SCoP's schedule), of a ``.scop``
  OpenScop file as Clay writes it (2d+1 scattering), or as Pluto writes it
  (any number of scattering dimensions, read by :func:`read_scattering`),
  or of any other file holding isl schedule text (``.yaml``, ``.isl``…);
- isl schedule text: a schedule tree in isl's YAML form (what ``ppcg
  --save-schedule`` writes) or a union map ``{ S0[i, j] -> [i, j, 0]; … }``;
  an ``isl.Schedule`` or ``isl.UnionMap``.

Statements are matched by name when the target uses the same names,
otherwise by order (OpenScop order; a tree's or map's statements sorted by
name, numbers compared as numbers), and must have the same number of
iterators.  A flat schedule (a union map, a Pluto scattering) becomes β/α
relations by :func:`from_flat`: a dimension that is constant for every
relation at that point is a β level, any other an α level; a dimension
constant for one relation only, among others that vary, is moved out of
the loop when that keeps the order (:func:`clayx.auto.post.hoist`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

import islpy as isl

from ..errors import ClayxError
from ..model import ClaySchedule, Relation, Scop
from .model import WhiteboxError

__all__ = ["from_flat", "read_scattering", "read_target", "start_of"]

_dt = isl.dim_type


def start_of(original, deps=None):
    """``(scop, session, deps)``: the SCoP whose schedule whitebox starts
    from, the session whose steps come before (None for a SCoP) and the
    dependences in force."""
    from ..analysis import dependences
    from ..session import Session, load
    if isinstance(original, (str, Path)):
        original = load(original)
    if isinstance(original, Session):
        return original.current, original, deps if deps is not None else original.deps
    if isinstance(original, Scop):
        return original, None, deps if deps is not None else dependences(original)
    raise ClayxError(f"whitebox starts from a Session, a Scop or a file, not "
                     f"{type(original).__name__}")


def _natural(name: str):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _matching(scop: Scop, names: Sequence[str], dims: dict[str, int],
              ordered: bool) -> dict[str, str]:
    """Target statement name → starting statement name."""
    own = [s.name for s in scop.statements]
    if set(names) == set(own):
        mapping = {n: n for n in names}
    else:
        if len(names) != len(own):
            raise WhiteboxError(f"the target has {len(names)} statements, the SCoP "
                                f"{len(own)}: they cannot be matched")
        seq = list(names) if ordered else sorted(names, key=_natural)
        mapping = dict(zip(seq, own))
    for t, o in mapping.items():
        if dims[t] != scop.statement(o).dim:
            raise WhiteboxError(f"statement {t} of the target has {dims[t]} iterators, "
                                f"{o} has {scop.statement(o).dim}")
    return mapping


def _renamed(m: isl.Map, name: str, scop: Scop) -> isl.Map:
    m = m.set_tuple_name(_dt.in_, name)
    space = scop.context.get_space()
    try:
        return m.align_params(space)
    except isl.Error as e:  # pragma: no cover - isl refuses only malformed input
        raise WhiteboxError(f"the target's parameters do not fit the SCoP's: {e}") from None


def _from_scop(other: Scop, scop: Scop) -> ClaySchedule:
    names = [s.name for s in other.statements]
    dims = {s.name: s.dim for s in other.statements}
    mapping = _matching(scop, names, dims, ordered=True)
    extra = set(other.params) - set(scop.params)
    if extra:
        raise WhiteboxError(f"the target has parameters the SCoP lacks: {sorted(extra)}")
    rels = [Relation(mapping[r.stmt], r.beta, _renamed(r.map, mapping[r.stmt], scop))
            for r in other.schedule.relations]
    return ClaySchedule(tuple(rels), other.schedule.marks)


def read_target(target, scop: Scop) -> ClaySchedule:
    """The target as a :class:`ClaySchedule` over ``scop``'s statements (see
    the module docstring)."""
    from ..session import Session
    if isinstance(target, ClaySchedule):
        names = {r.stmt for r in target.relations}
        own = {s.name for s in scop.statements}
        if names != own:
            raise WhiteboxError(f"the target schedules {sorted(names)}, the SCoP has "
                                f"{sorted(own)}")
        return target
    if isinstance(target, Session):
        return _from_scop(target.current, scop)
    if isinstance(target, Scop):
        return _from_scop(target, scop)
    if isinstance(target, isl.Schedule):
        return _from_tree(target, scop)
    if isinstance(target, isl.UnionMap):
        return from_flat(target, scop)
    if isinstance(target, str) and "\n" not in target and "{" not in target:
        # isl text always has braces: one line without them names a file
        target = Path(target)
    if isinstance(target, Path):
        if not target.exists():
            raise WhiteboxError(f"cannot read the target {target}: no such file")
        return _from_file(target, scop)
    if isinstance(target, str):
        return _from_text(target, scop)
    raise ClayxError(f"cannot whitebox towards a {type(target).__name__}")


def _from_text(text: str, scop: Scop) -> ClaySchedule:
    ctx = scop.context.get_ctx()
    # whole-line comments (``#``, as in YAML files) are dropped
    stripped = re.sub(r"^[ \t]*#.*(\n|\Z)", "", text, flags=re.M).strip()
    if not stripped:
        raise WhiteboxError("the target text is empty")
    try:
        if re.match(r"\{?\s*(domain|\"domain\")\s*:", stripped) or stripped.startswith("domain"):
            return _from_tree(isl.Schedule.read_from_str(ctx, stripped), scop)
        return from_flat(isl.UnionMap(stripped, context=ctx), scop)
    except isl.Error as e:
        raise WhiteboxError(f"the target is neither an isl schedule tree nor an isl union "
                            f"map: {_isl_message(e)}") from None


def _isl_message(e: isl.Error) -> str:
    """isl's error message without the place in isl's sources it came from."""
    return re.sub(r"\s+in \S+\.c:\d+\s*$", "", str(e).strip())


def _tree_names(tree: isl.Schedule) -> dict[str, int]:
    dom = tree.get_domain()
    sl = dom.get_set_list()
    out = {}
    for k in range(sl.n_set()):
        s = sl.get_at(k)
        out[s.get_tuple_name()] = s.dim(_dt.set)
    return out


def _from_tree(tree: isl.Schedule, scop: Scop) -> ClaySchedule:
    from ..auto.post import hoist
    from ..auto.tree import from_tree, relations_schedule
    dims = _tree_names(tree)
    mapping = _matching(scop, list(dims), dims, ordered=False)
    if any(k != v for k, v in mapping.items()):
        um = tree.get_map()
        return from_flat(_rename_map(um, mapping, scop), scop)
    rels = hoist(scop, from_tree(tree, scop))
    return relations_schedule(rels, scop)


def _rename_map(um: isl.UnionMap, mapping: dict[str, str], scop: Scop) -> isl.UnionMap:
    out = None
    ml = um.get_map_list()
    for k in range(um.n_map()):
        m = ml.get_at(k)
        m = _renamed(m, mapping[m.get_tuple_name(_dt.in_)], scop)
        u = isl.UnionMap.from_map(m)
        out = u if out is None else out.union(u)
    return out


def _from_file(path: Path, scop: Scop) -> ClaySchedule:
    from ..errors import OpenScopError
    from ..session import load
    if path.suffix in (".scop", ".openscop"):
        text = path.read_text()
        try:
            return _from_scop(load(path).current, scop)
        except OpenScopError as e:
            if "2d+1" not in str(e) and "Clay's form" not in str(e):
                raise
            return from_flat(read_scattering(text, scop), scop)
    if path.suffix in (".c", ".h", ".cc", ".cpp"):
        return _from_scop(load(path).current, scop)
    try:                    # isl text: a YAML schedule tree (.yaml) or a union map
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise WhiteboxError(f"cannot read the target {path}: {e}") from None
    return _from_text(text, scop)


# --- flat schedules -------------------------------------------------------------------

def from_flat(um: isl.UnionMap, scop: Scop) -> ClaySchedule:
    """β/α relations with the order of a flat schedule ``S[i] -> [d0, d1, …]``
    (see the module docstring); statements matched as for any target."""
    from ..auto.post import hoist
    from ..auto.tree import TreeRelation, assign_betas, relations_schedule
    ml = um.get_map_list()
    maps = [ml.get_at(k) for k in range(um.n_map())]
    dims = {m.get_tuple_name(_dt.in_): m.dim(_dt.in_) for m in maps}
    mapping = _matching(scop, list(dims), dims, ordered=False)
    n_out = max((m.dim(_dt.out) for m in maps), default=0)
    parts: list[tuple[str, isl.Map]] = []
    for m in maps:
        name = mapping[m.get_tuple_name(_dt.in_)]
        m = _renamed(m, name, scop)
        k = m.dim(_dt.out)
        m = m.add_dims(_dt.out, n_out - k)
        for pos in range(k, n_out):
            m = m.fix_val(_dt.out, pos, 0)
        dom = scop.statement(name).domain.intersect_params(scop.context)
        m = m.intersect_domain(dom).coalesce()
        if not m.is_single_valued():
            raise WhiteboxError(f"the target gives an instance of {name} several dates")
        covered = m.domain()
        if not covered.is_equal(dom):
            raise WhiteboxError(f"the target does not schedule every instance of {name}")
        for b in m.get_basic_maps():
            parts.append((name, isl.Map.from_basic_map(b)))
    rels: list[TreeRelation] = []

    def fixed(m: isl.Map, pos: int):
        v = m.plain_get_val_if_fixed(_dt.out, pos)
        if v.is_nan():
            v = isl.Map.from_basic_map(m.affine_hull()).plain_get_val_if_fixed(_dt.out, pos)
        return int(v.to_python()) if v.is_int() else None

    def walk(group: list[tuple[str, isl.Map, TreeRelation]], pos: int) -> None:
        if pos == n_out:
            rels.extend(t for _, _, t in group)
            return
        values = [fixed(m, pos) for _, m, _ in group]
        if all(v is not None for v in values):
            for (_, _, t), v in zip(group, values):
                t.keys[-1] = t.keys[-1] + (v,)
            by: dict[int, list] = {}
            for g, v in zip(group, values):
                by.setdefault(v, []).append(g)
            for v in sorted(by):
                walk(by[v], pos + 1)
            return
        for name, m, t in group:
            dom = m.domain()
            one = m.project_out(_dt.out, pos + 1, n_out - pos - 1).project_out(_dt.out, 0, pos)
            pa = isl.PwMultiAff.from_map(one).get_at(0)
            t.alphas.append(pa.gist(dom).coalesce())
            t.keys.append(())
            t.members.append(None)
        walk(group, pos + 1)

    group = []
    for name, m in parts:
        full = scop.statement(name).domain.intersect_params(scop.context)
        dom = m.domain()
        cons = None if dom.is_equal(full) else dom.gist(full).coalesce()
        if cons is not None and cons.plain_is_universe():
            cons = None
        group.append((name, m, TreeRelation(name, [()], [], cons, [])))
    walk(group, 0)
    order = {s.name: k for k, s in enumerate(scop.statements)}
    for t in rels:
        t.keys[-1] = t.keys[-1] + (order[t.stmt],)
    assign_betas(rels)
    rels = hoist(scop, rels)
    return relations_schedule(rels, scop)


def read_scattering(text: str, scop: Scop) -> isl.UnionMap:
    """The SCATTERING relations of an OpenScop text, whatever their number of
    output dimensions (Pluto writes ``t1 … tn``, not Clay's 2d+1 form), as a
    union map over ``scop``'s statements (matched in order)."""
    lines = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            lines.append(line)
    out = None
    k = 0
    stmt_index = 0
    names = [s.name for s in scop.statements]
    while k < len(lines):
        if lines[k] == "SCATTERING":
            k += 1
            n_parts = 1
            if re.fullmatch(r"\d+", lines[k]) and len(lines[k].split()) == 1:
                n_parts = int(lines[k])
                k += 1
            if stmt_index >= len(names):
                raise WhiteboxError("the OpenScop target has more statements than the SCoP")
            st = scop.statement(names[stmt_index])
            m_all = None
            for _ in range(n_parts):
                rows, cols, n_out, n_in, n_loc, n_par = map(int, lines[k].split()[:6])
                k += 1
                mat = [list(map(int, lines[k + r].split()[:cols])) for r in range(rows)]
                k += rows
                if n_in != st.dim or n_par != len(scop.params):
                    raise WhiteboxError(
                        f"the SCATTERING of statement {stmt_index + 1} has {n_in} inputs and "
                        f"{n_par} parameters; {st.name} has {st.dim} and {len(scop.params)}")
                m = _matrix_map(mat, n_out, n_in, n_loc, st, scop)
                m_all = m if m_all is None else m_all.union(m)
            u = isl.UnionMap.from_map(m_all)
            out = u if out is None else out.union(u)
            stmt_index += 1
            continue
        k += 1
    if out is None or stmt_index != len(names):
        raise WhiteboxError(f"the OpenScop target has {stmt_index} SCATTERING relations, "
                            f"the SCoP {len(names)} statements")
    return out


def _matrix_map(mat, n_out: int, n_in: int, n_loc: int, st, scop: Scop) -> isl.Map:
    outs = [f"o{k}" for k in range(n_out)]
    ins = list(st.iterators)
    locs = [f"l{k}" for k in range(n_loc)]
    cols = outs + ins + locs + list(scop.params)
    cons = []
    for row in mat:
        terms = [f"{c}*{n}" for c, n in zip(row[1:], cols) if c]   # isl reads no "(c)*x"
        expr = " + ".join(terms + [str(row[-1])])
        cons.append(f"{expr} {'>=' if row[0] else '='} 0")
    exists = f"exists ({', '.join(locs)}: " if locs else ""
    body = " and ".join(cons) or "true"
    if locs:
        body = f"{exists}{body})"
    text = (f"[{', '.join(scop.params)}] -> {{ {st.name}[{', '.join(ins)}] -> "
            f"[{', '.join(outs)}] : {body} }}")
    try:
        return isl.Map(text, context=scop.context.get_ctx())
    except isl.Error as e:
        raise WhiteboxError(f"the SCATTERING of {st.name} is not a relation isl reads "
                            f"({text}): {_isl_message(e)}") from None
