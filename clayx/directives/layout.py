"""Clay's data-layout directives: change which memory cells the statements
use, not when they run.

- ``dimreorder(beta, array, order)``: permute the subscripts of every access
  to an array in the statements under ``beta``;
- ``dimprivatize(beta, array, depth)``: expand them by an iterator;
- ``dimcontract(beta, array, depth)``: drop one of their subscripts;
- ``dimreorder_access``, ``dimprivatize_access``, ``dimcontract_access``
  (clayx's forms): the same for one access of one statement;
- ``add_array(name)``: declare a new array (returns its id);
- ``replace_array(last_id, new_id)``: every access to one array uses another;
- ``datacopy(id_copy, id_orig, beta_insert, insert_before, beta_get_domain)``:
  insert a statement ``copy[f] = orig[f];`` in a loop nest of its own at
  the top level (Clay's placement);
- ``datacopy_at`` (clayx's): the same copy right before or after a
  statement, inside its loops;
- ``block(stmt1, stmt2)``: merge two adjacent statements into one;
- the query ``get_array_id(name)``.

Numbers are Clay's: array ids are 1-based, the ids OpenScop's ``<arrays>``
extension gives (:func:`array_ids`); ``access`` (the ``*_access`` forms) is
the 1-based position of the access in the statement's ``accesses`` (the
order OpenScop writes them: in a C statement, the reads from left to
right, then the write).  Clay's forms take any β as Clay matches it
(reference 4.1: ``[]`` every statement, a loop the statements inside it)
and change every access to the array in every statement with a matching
relation; when there is none, they warn as Clay does (``access number <id>
not found``, a :class:`~clayx.errors.DirectiveWarning`) and change nothing.
An access change applies to the statement (all its relations, when ``iss``
split it).

**References.**  The accesses of a statement that have the same text and the
same relation are one reference written once or several times in the body
(``C[i][j] += …`` is a read and a write of ``C[i][j]``; ``s = s + 1``):
changing one access changes that whole reference, every occurrence of its
text in the body (token-aware: not inside comments, strings, longer
identifiers, or as the head of a longer subscript chain).  Accesses with the
same text but different relations cannot be told apart in the body and are
refused.  New subscripts are written from the old ones' text (reordered,
dropped, or with the iterator appended), or printed from the relation when
the text cannot be split.

**Meaning.**  The session checks that a layout step keeps the program's
meaning with :func:`clayx.analysis.equivalence.check` (same value sources
for every read, same final values of live arrays); several consecutive
layout steps applied together are checked as one change, since privatizing
or transposing an array usually needs several accesses changed before the
program is whole again.  What the check and code generation need to know
(copy statements, merged statements' parts, new and reshaped arrays) is
recorded in the SCoP (:class:`~clayx.model.LayoutInfo`).
Layout steps give the SCoP a new ``statements`` tuple: a new program
(:class:`~clayx.model.Origin`) in the order of that point, whose
dependences are its own.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import replace
from typing import Sequence

import islpy as isl

from ..errors import DirectiveWarning
from ..model import (READ, WRITE, Access, Array, Relation, Scop, Statement, array_ids,
                     bracket_subscripts, identifiers, layout_info, substitute_iterators,
                     with_layout)
from .common import (DEPTH_OVERFLOW, EMPTY, NOT_A_STATEMENT, NOT_FOUND, clay_matching, fail,
                     rebuild)
from .params import (ACCESS_NOT_FOUND, ARRAY_NOT_FOUND, AccessNumber, ArrayId, Beta, Bool, Depth,
                     Int, Ints, String, id_range)
from .registry import directive

_dt = isl.dim_type

# Clay's messages (clay/errors.h wording) for layout directives (those of
# the argument types, ACCESS_NOT_FOUND and ARRAY_NOT_FOUND, are in .params).
ID_EXISTS = "the id already exists"
REORDER_TOO_SMALL = "the order array is too small or too big"
REORDER_OVERFLOW = "there is an overflow value on the reorder array"

_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum
extern float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Bool _Complex _Imaginary _Alignas
_Alignof _Atomic _Generic _Noreturn _Static_assert _Thread_local""".split())
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")


# --- arrays and ids ---------------------------------------------------------------

def _array(scop: Scop, name: str) -> Array:
    for a in scop.arrays:
        if a.name == name:
            return a
    return Array(name, 0)


def _ndims(scop: Scop, name: str, *, skip: frozenset[str] = frozenset()) -> set[int]:
    """The subscript counts of the accesses to ``name`` (statements in
    ``skip`` left out)."""
    return {a.relation.dim(_dt.out) for st in scop.statements if st.name not in skip
            for a in st.accesses if a.array == name}


def _sync_arrays(scop: Scop, ctypes: dict[str, str] | None = None) -> Scop:
    """``scop.arrays`` with each array's ``ndim`` set to its accesses'
    (when they agree) and element types from ``ctypes``."""
    out = []
    for a in scop.arrays:
        nd = _ndims(scop, a.name)
        new = a
        if len(nd) == 1 and a.ndim not in nd:
            new = replace(new, ndim=nd.pop())
        if ctypes and a.name in ctypes and new.ctype is None:
            new = replace(new, ctype=ctypes[a.name])
        out.append(new)
    return replace(scop, arrays=tuple(out))


# --- statements, accesses, references ----------------------------------------------

def _with_refs(scop: Scop) -> Scop:
    """Give every access without a ``ref`` id the one dependence analysis
    uses (``S0_r2``), so ids stay stable when statements merge."""
    if all(a.ref for st in scop.statements for a in st.accesses):
        return scop
    sts = tuple(replace(st, accesses=tuple(a if a.ref else replace(a, ref=f"{st.name}_r{k}")
                                           for k, a in enumerate(st.accesses)))
                for st in scop.statements)
    return replace(scop, statements=sts)


def _statement_at(scop: Scop, beta) -> tuple[Relation, Statement]:
    """The relation and the statement of a (checked) statement β."""
    rel = scop.schedule.relation(beta)
    return rel, scop.statement(rel.stmt)


def _target_access(scop: Scop, stmt, access: int):
    """(scop with reference ids, statement, access index, access) for the
    checked ``(stmt, access)`` arguments of dimreorder/dimprivatize/dimcontract."""
    scop = _with_refs(scop)
    _, st = _statement_at(scop, stmt)
    return scop, st, access - 1, st.accesses[access - 1]


def _reference(st: Statement, k: int, directive: str, argument: int) -> list[int]:
    """The accesses of ``st`` that are the same reference as access ``k``
    (same text, same relation); refused when a same-text access differs."""
    a = st.accesses[k]
    if not a.text:
        raise fail(directive, f"access {k + 1} of {st.name} has no source text: the "
                   "statement body cannot be rewritten", argument)
    group = []
    for j, b in enumerate(st.accesses):
        if b.text != a.text:
            continue
        if b.array != a.array or not b.relation.is_equal(a.relation):
            raise fail(directive, f"the text `{a.text}` stands for accesses {k + 1} and "
                       f"{j + 1} of {st.name}, which access different elements: the "
                       "body cannot be rewritten for one of them", argument)
        group.append(j)
    return group


_SKIP = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", re.S)
_CTOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|\S")


def _occurrences(body: str, text: str) -> list[tuple[int, int]]:
    """Spans of the reference ``text`` in ``body``, token-aware: not inside
    comments or literals, not part of a longer identifier or member name,
    not the head of a longer subscript chain."""
    toks = _CTOKEN.findall(text)
    if not toks:
        return []
    pat = r"\s*".join(re.escape(t) for t in toks)
    if re.match(r"\w", toks[-1][-1]):
        pat += r"(?!\w)"
    pat += r"(?!\s*\[)"
    skipped = [m.span() for m in _SKIP.finditer(body)]
    out = []
    for m in re.finditer(pat, body):
        s, e = m.span()
        if any(a <= s < b for a, b in skipped):
            continue
        before = body[:s].rstrip()
        if before and (re.match(r"\w", before[-1]) and re.match(r"\w", toks[0][0])
                       or before.endswith((".", "->"))):
            continue
        out.append((s, e))
    return out


def _rewrite_body(body: str, texts: dict[str, str], *, stmt: str, directive: str,
                  argument: int) -> str:
    """``body`` with every occurrence of each reference ``old`` of
    ``texts`` replaced by ``texts[old]``, all at once (``A[i][j]`` and
    ``A[j][i]`` may trade places); refused when one is not found."""
    spans = []
    for old, new in texts.items():
        found = _occurrences(body, old)
        if not found:
            raise fail(directive, f"the reference `{old}` is not found in the body of {stmt} "
                       f"({body.strip()}): it cannot be rewritten", argument)
        spans += [(s, e, new) for s, e in found]
    spans.sort()
    for (_, e, _), (s, _, _) in zip(spans, spans[1:]):
        if s < e:
            raise fail(directive, f"references overlap in the body of {stmt} "
                       f"({body.strip()}): it cannot be rewritten", argument)
    for s, e, new in reversed(spans):
        body = body[:s] + new + body[e:]
    return body


def split_reference(text: str) -> tuple[str, list[str]] | None:
    """``"A[i][j+1]"`` -> ``("A", ["i", "j+1"])``; None when the text is not
    a name followed by bracketed subscripts."""
    m = re.match(r"\s*([A-Za-z_]\w*)", text)
    if m is None:
        return None
    subs, end = bracket_subscripts(text, m.end())
    return (m.group(1), subs) if not text[end:].strip() else None


def print_subscripts(rel: isl.Map, st: Statement) -> list[str] | None:
    """The output dimensions of an access relation as C affine expressions
    of the statement's iterators and the parameters (``2*i + N - 1``);
    None when one is not a single affine piece without divisions."""
    try:
        pma = isl.PwMultiAff.from_map(rel.intersect_domain(st.domain))
    except isl.Error:
        return None
    out = []
    for k in range(rel.dim(_dt.out)):
        pa = pma.get_pw_aff(k)
        parts = pa.get_pieces()
        if len(parts) != 1 or parts[0][1].dim(_dt.div):
            return None
        aff = parts[0][1]
        terms: list[tuple[int, str]] = []
        for j, it in enumerate(st.iterators):
            terms.append((aff.get_coefficient_val(_dt.in_, j), it))
        for j in range(aff.dim(_dt.param)):
            terms.append((aff.get_coefficient_val(_dt.param, j),
                          aff.get_dim_name(_dt.param, j)))
        parts = []
        for v, name in terms:
            if not v.is_int():
                return None
            c = int(v.to_python())
            if c:
                mag = "" if abs(c) == 1 else f"{abs(c)}*"
                parts.append((c < 0, f"{mag}{name}"))
        cst = aff.get_constant_val()
        if not cst.is_int():
            return None
        c = int(cst.to_python())
        if c or not parts:
            parts.append((c < 0, str(abs(c))))
        text = ""
        for n, (neg, t) in enumerate(parts):
            text += ("-" if neg else "") + t if n == 0 else (" - " if neg else " + ") + t
        out.append(text)
    return out


def _subscripts(a: Access, st: Statement) -> list[str] | None:
    """The subscript texts of access ``a``: split from its text when that
    matches its relation, else printed from the relation."""
    sp = split_reference(a.text) if a.text else None
    if sp is not None and sp[0] == a.array and len(sp[1]) == a.relation.dim(_dt.out):
        return sp[1]
    return print_subscripts(a.relation, st)


def _ref_text(name: str, subs: Sequence[str]) -> str:
    return name + "".join(f"[{s}]" for s in subs)


def _replace_statements(scop: Scop, new: dict[str, Statement | None]) -> Scop:
    """``scop`` with statements replaced (None: removed), in order."""
    sts = tuple(new.get(s.name, s) for s in scop.statements)
    return replace(scop, statements=tuple(s for s in sts if s is not None))


def _change_accesses(scop: Scop, edits: dict[str, dict[int, tuple[isl.Map, list[str] | None]]],
                     directive: str, argument: int) -> Scop:
    """``scop`` (with reference ids) where access ``k`` of statement ``s``
    gets relation ``edits[s][k][0]`` and the text made of the subscripts
    ``edits[s][k][1]`` (None: printed from the relation), with the rest of
    its reference; the bodies are rewritten (all references of a statement
    at once) and the arrays recorded as reshaped."""
    info = layout_info(scop)
    reshaped = list(info.reshaped)
    changed: dict[str, Statement] = {}
    for name, edit in edits.items():
        st = scop.statement(name)
        accs = list(st.accesses)
        texts: dict[str, str] = {}
        for k, (rel, subs) in edit.items():
            a = st.accesses[k]
            group = _reference(st, k, directive, argument)
            rel = rel.set_tuple_name(_dt.out, a.array).set_tuple_name(_dt.in_, st.name)
            if subs is None:
                subs = print_subscripts(rel, st)
                if subs is None:
                    raise fail(directive, f"cannot write the new subscripts of `{a.text}` as "
                               f"C ({rel})", argument)
            text = _ref_text(a.array, subs)
            texts[a.text] = text
            for j in group:
                accs[j] = replace(accs[j], relation=rel, text=text)
            if not rel.is_equal(a.relation) and a.array not in reshaped \
                    and a.array not in info.new:
                reshaped.append(a.array)
        body = _rewrite_body(st.body, texts, stmt=st.name, directive=directive,
                             argument=argument)
        changed[name] = replace(st, body=body, accesses=tuple(accs))
    new = _replace_statements(scop, changed)
    return _sync_arrays(with_layout(new, replace(info, reshaped=tuple(reshaped))))


def _where(a: Access, st: Statement) -> str:
    """``A[i][j]` of S0 (A[i][j] = B[i][j];)``: an access in its statement,
    as Clay's messages show the statement's text."""
    return f"`{a.text or a.array}` of {st.name} ({st.body.strip()})"


def _reordered(a: Access, st: Statement, order: tuple[int, ...], directive: str, argument: int,
               *, scalar: bool = False):
    """Access ``a`` with its subscripts gathered by ``order`` (new ``k`` =
    old ``order[k]``): (relation, subscript texts).  Clay's checks (length,
    then values: reference 6.2), then clayx's: a permutation; a scalar is
    refused when ``scalar`` (it has nothing to reorder)."""
    n = a.relation.dim(_dt.out)
    if len(order) != n:
        raise fail(directive, f"{REORDER_TOO_SMALL}: can't reorder dims of {_where(a, st)}: "
                   f"it has {n} subscripts, the order {len(order)} values", argument)
    if any(not 0 <= v < n for v in order):
        raise fail(directive, f"{REORDER_OVERFLOW}: values must be in 0..{n - 1}, got "
                   f"{list(order)}", argument)
    if scalar and n == 0:
        raise fail(directive, f"`{a.text or a.array}` is a scalar: it has no subscript to "
                   "reorder", 2)
    if sorted(order) != list(range(n)):
        raise fail(directive, f"the reorder array is not a permutation of 0..{n - 1}: "
                   f"{list(order)}", argument)
    perm = isl.Map.universe(a.relation.get_space().range().map_from_set())
    for j, v in enumerate(order):
        perm = perm.equate(_dt.in_, v, _dt.out, j)
    old = _subscripts(a, st)
    return a.relation.apply_range(perm), None if old is None else [old[v] for v in order]


def _privatized(a: Access, st: Statement, depth: int, directive: str, argument: int):
    """Access ``a`` with the statement's original iterator ``depth`` as a new
    last subscript: (relation, subscript texts); "privatization failed"
    when the access uses that iterator already (reference 6.3)."""
    if depth > st.dim:
        raise fail(directive, f"{DEPTH_OVERFLOW}: {st.name} has {st.dim} iterators, got "
                   f"depth {depth}", argument)
    if a.relation.gist_domain(st.domain).involves_dims(_dt.in_, depth - 1, 1):
        raise fail(directive, f"privatization failed: can't privatize {_where(a, st)}: the "
                   f"dim (depth={depth}) seems to be already used", argument)
    n = a.relation.dim(_dt.out)
    rel = a.relation.add_dims(_dt.out, 1).equate(_dt.in_, depth - 1, _dt.out, n)
    old = _subscripts(a, st)
    return rel, None if old is None else old + [st.iterators[depth - 1]]


def _contracted(a: Access, st: Statement, depth: int, directive: str, argument: int):
    """Access ``a`` without its subscript ``depth`` (1-based): (relation,
    subscript texts)."""
    n = a.relation.dim(_dt.out)
    if depth > n:
        raise fail(directive, f"{DEPTH_OVERFLOW}: {_where(a, st)} has {n} subscripts, got "
                   f"{depth}", argument)
    old = _subscripts(a, st)
    return (a.relation.project_out(_dt.out, depth - 1, 1),
            None if old is None else old[:depth - 1] + old[depth:])


# --- Clay's forms: an array id, every access under a β (reference 6.1-6.4) ---------------------

def _clay_depth(scop: Scop, directive: str, beta, stmt: str, depth: int) -> None:
    """Clay's ``CHECK(β, d)`` (reference 4.2) on every relation of ``stmt``:
    ``d`` at most ``|β|`` (a loop β) or ``|β| - 1`` (a statement or longer
    β); a negative ``d`` is a huge unsigned one in Clay."""
    n = len(beta)
    for r in scop.schedule.of(stmt):
        hi = n if 2 * n - 1 < 2 * len(r.beta) - 1 else n - 1
        if depth < 0 or depth > hi:
            raise fail(directive, f"{DEPTH_OVERFLOW}: {list(beta)} allows depths 1..{hi}, got "
                       f"{depth}" if hi >= 1 else f"{DEPTH_OVERFLOW}: {list(beta)} allows no "
                       "depth", 3)


def _clay_accesses(scop: Scop, directive: str, beta, ident: int, depth: int | None = None):
    """Clay's access iteration (reference 6.1): ``(scop with reference ids,
    [(statement, [access index, …]), …])``, the statements with a relation
    ``beta`` matches, in order, with their accesses to the array ``ident``.
    Checks: some relation matches ("the beta vector was not found"); with a
    ``depth``, ``CHECK(β, depth)`` on the first matching statement.  No
    access: :class:`~clayx.errors.DirectiveWarning` "access number <id> not
    found" (Clay's warning), and no statement."""
    rels = clay_matching(scop, beta)
    if not rels:
        raise fail(directive, NOT_FOUND, 1)
    if depth is not None:
        _clay_depth(scop, directive, beta, rels[0].stmt, depth)
    scop = _with_refs(scop)
    ids = array_ids(scop)
    found = []
    for name in dict.fromkeys(r.stmt for r in rels):
        st = scop.statement(name)
        ks = [k for k, a in enumerate(st.accesses) if ids.get(a.array) == ident]
        if ks:
            found.append((st, ks))
    if not found:
        arr = next((f" ({n})" for n, k in ids.items() if k == ident), "")
        warnings.warn(f"{directive}: access number {ident} not found: no statement at or "
                      f"under {list(beta)} accesses array {ident}{arr}; nothing changed",
                      DirectiveWarning, stacklevel=2)
    return scop, found


def _clay_change(scop: Scop, directive: str, beta, ident: int, change, depth: int | None = None):
    """Every access to array ``ident`` in the statements ``beta`` matches
    changed by ``change(access, statement)`` -> (relation, subscripts), in
    Clay's order (statements in order, their accesses in order); ``scop``
    unchanged when there is none."""
    new, found = _clay_accesses(scop, directive, beta, ident, depth)
    if not found:
        return scop
    edits = {st.name: {k: change(st.accesses[k], st) for k in ks} for st, ks in found}
    return _change_accesses(new, edits, directive, 2)


@directive("dimreorder", Beta("beta", root=True, lookup=False), ArrayId("array", lookup=False),
           Ints("order"), kind="layout")
def dimreorder(scop: Scop, beta, ident: int, order) -> Scop:
    """Permute the subscripts of every access to an array under a β
    (Clay's DIMREORDER, reference 6.1-6.2).

    Arguments: ``beta`` a loop or statement β (``[]``: every statement);
    ``array`` the array's id (``get_array_id``, OpenScop's ``<arrays>``);
    ``order`` a permutation of ``0..n-1`` (n the number of subscripts), Clay's
    convention (the opposite of ``reorder``'s): the new subscript ``k`` is
    the old subscript ``order[k]``, so ``A[i][j][k]`` with ``[2, 0, 1]`` is
    ``A[k][i][j]``.  Every statement with a relation the β matches, every
    access of it to the array.

        for i: for j: { A[i][j] = B[j][i];        a = get_array_id("A");
                        C[i][j] = A[i][j]; }      dimreorder([0], a, [1, 0]);
        ->  for i: for j: { A[j][i] = B[j][i]; C[i][j] = A[j][i]; }

    Checks, Clay's order: β found; per access, in statement order, ``order``
    as long as its subscripts ("the order array is too small or too big"),
    its values subscripts ("there is an overflow value on the reorder
    array"); clayx's: ``order`` a permutation.  No access to the array under
    the β: Clay's warning "access number <id> not found", nothing changes.
    Meaning: checked by the equivalence check (with the other layout steps
    applied together): every access to the array must be reordered alike,
    and a live array may not change.  :func:`dimreorder_access` changes one
    access (clayx's form).
    """
    order = tuple(order)
    return _clay_change(scop, "dimreorder", beta, ident,
                        lambda a, st: _reordered(a, st, order, "dimreorder", 3))


@directive("dimprivatize", Beta("beta", root=True, lookup=False),
           ArrayId("array", lookup=False), Int("depth", nonzero=True, clay=DEPTH_OVERFLOW),
           kind="layout")
def dimprivatize(scop: Scop, beta, ident: int, depth: int) -> Scop:
    """Expand every access to an array under a β by an iterator (Clay's
    DIMPRIVATIZE, array expansion, reference 6.3): each statement's original
    iterator number ``depth`` becomes a new last subscript.

    Arguments: ``beta`` a loop or statement β; ``array`` the array's id;
    ``depth`` 1-based, an original iterator of each statement (outermost
    first).

        for i: for j: { s[j] = 0; s[j] += A[i][j]; }     x = get_array_id("s");
                                                        dimprivatize([0], x, 1);
        ->  for i: for j: { s[j][i] = 0; s[j][i] += A[i][j]; }

    Checks, Clay's order: ``depth`` not 0 ("depth overflow"); β found; every
    relation of the first matching statement passes Clay's depth check
    (``depth`` at most ``|β|`` for a loop β, ``|β| - 1`` for a statement
    β); per access, the iterator not used by it already ("privatization
    failed"); clayx's: ``depth`` at most each statement's iterators.  No
    access: Clay's warning "access number <id> not found".
    Meaning: checked by the equivalence check (usually together with the
    other accesses to the array); a privatized dead array is redeclared by
    the generated code with its new shape.  Afterwards the dependences are
    those of the new program, so a loop the temporary serialized may become
    parallel.  :func:`dimprivatize_access` changes one access.
    """
    return _clay_change(scop, "dimprivatize", beta, ident,
                        lambda a, st: _privatized(a, st, depth, "dimprivatize", 3), depth)


@directive("dimcontract", Beta("beta", root=True, lookup=False),
           ArrayId("array", lookup=False), Int("depth", nonzero=True, clay=DEPTH_OVERFLOW),
           kind="layout")
def dimcontract(scop: Scop, beta, ident: int, depth: int) -> Scop:
    """Remove subscript number ``depth`` of every access to an array under a
    β (Clay's DIMCONTRACT, reference 6.4, the inverse of dimprivatize).

    Arguments: ``beta`` a loop or statement β; ``array`` the array's id;
    ``depth`` the subscript to drop, 1-based.

        for i: for j: { t[i][j] = A[i][j];        x = get_array_id("t");
                        B[i][j] = t[i][j]; }      dimcontract([0], x, 1);
        ->  for i: for j: { t[j] = A[i][j]; B[i][j] = t[j]; }

    Checks, Clay's order: ``depth`` not 0; β found; Clay's depth check on
    the first matching statement, as dimprivatize's (so with a loop β of
    length 1 only the first subscript can go); clayx's: ``depth`` at most
    each access's subscripts.  No access: Clay's warning "access number
    <id> not found".
    Meaning: checked by the equivalence check (contracting is only correct
    when no value still needed is overwritten, and never on a live array).
    :func:`dimcontract_access` changes one access.
    """
    return _clay_change(scop, "dimcontract", beta, ident,
                        lambda a, st: _contracted(a, st, depth, "dimcontract", 3), depth)


# --- clayx's forms: one access of one statement --------------------------------------------------

def _access_change(scop: Scop, directive: str, stmt, access: int, change) -> Scop:
    """Access ``access`` of the statement ``stmt`` (and its reference)
    changed by ``change(access, statement)`` -> (relation, subscripts)."""
    scop, st, k, a = _target_access(scop, stmt, access)
    return _change_accesses(scop, {st.name: {k: change(a, st)}}, directive, 2)


@directive("dimreorder_access", Beta("stmt", statement=True, empty=None), AccessNumber("access"),
           Ints("order"), kind="layout")
def dimreorder_access(scop: Scop, stmt, access, order) -> Scop:
    """Permute the subscripts of one access (clayx's form of
    :func:`dimreorder`: an access number, not an array id).

    Arguments: ``stmt`` a statement β-vector; ``access`` the access number
    (1-based, OpenScop order: the reads left to right, then the write);
    ``order`` as dimreorder's (new subscript ``k`` = old ``order[k]``).  The
    change applies to the reference (every access with that text).

        A[i][j] = B[j][i];       dimreorder_access([0, 0, 0], 2, [1, 0])
        ->  A[j][i] = B[j][i];   (access 2 is the write of A)

    Checks, Clay's first: ``stmt`` found, a statement, ``access`` one of its
    accesses; ``order`` as long as the subscripts, its values subscripts;
    then clayx's: the access is not a scalar, ``order`` a permutation.
    Meaning: checked by the equivalence check (with the other layout steps
    applied together).
    """
    name = "dimreorder_access"
    return _access_change(scop, name, stmt, access,
                          lambda a, st: _reordered(a, st, tuple(order), name, 3, scalar=True))


@directive("dimprivatize_access", Beta("stmt", statement=True, empty=None),
           AccessNumber("access"), Depth("depth", of="stmt", bound="iterators"), kind="layout")
def dimprivatize_access(scop: Scop, stmt, access, depth) -> Scop:
    """Expand one access by an iterator (clayx's form of
    :func:`dimprivatize`): the statement's original iterator number
    ``depth`` becomes a new last subscript.

    Arguments: ``stmt`` a statement β-vector; ``access`` the access number
    (1-based); ``depth`` 1-based, at most the statement's original
    iterators.

        for i: for j: s[j] = s[j] + A[i][j];     dimprivatize_access([0,0,0], 1, 1)
        ->  for i: for j: s[j][i] = s[j][i] + A[i][j];

    Checks: ``stmt`` a statement, ``access`` one of its accesses,
    ``1 <= depth <=`` its iterators, the iterator not used by the access
    ("privatization failed").
    Meaning: checked by the equivalence check, as dimprivatize's.
    """
    return _access_change(scop, "dimprivatize_access", stmt, access,
                          lambda a, st: _privatized(a, st, depth, "dimprivatize_access", 3))


@directive("dimcontract_access", Beta("stmt", statement=True, empty=None),
           AccessNumber("access"), Depth("depth", of="access", bound="subscripts"),
           kind="layout")
def dimcontract_access(scop: Scop, stmt, access, depth) -> Scop:
    """Remove one subscript of one access (clayx's form of
    :func:`dimcontract`).

    Arguments: ``stmt`` a statement β-vector; ``access`` the access number
    (1-based); ``depth`` the subscript to drop, 1-based.

        t[i][j] = A[i][j]; B[i][j] = t[i][j];    dimcontract_access(…, 2) on both t
        ->  t[i] = A[i][j]; B[i][j] = t[i];

    Checks: ``stmt`` a statement, ``access`` one of its accesses,
    ``1 <= depth <=`` its subscripts.
    Meaning: checked by the equivalence check, as dimcontract's.
    """
    return _access_change(scop, "dimcontract_access", stmt, access,
                          lambda a, st: _contracted(a, st, depth, "dimcontract_access", 3))


# --- arrays ---------------------------------------------------------------------------------

def _taken_names(scop: Scop) -> set[str]:
    taken = identifiers(scop.source or "") | set(scop.params)
    for st in scop.statements:
        taken |= identifiers(st.body) | set(st.iterators)
    return taken


@directive("add_array", String("name"), kind="layout", result="int",
           value=lambda new, name: array_ids(new)[name], aliases=("addarray",))
def add_array(scop: Scop, name) -> Scop:
    """Declare a new array, with no access yet (Clay's ADD_ARRAY); a script
    gets its id back: ``a = add_array("B");``.

    Arguments: ``name`` a C identifier that names nothing in the source
    (no array, variable, parameter, macro or function).  The array takes its
    number of subscripts and element type from the first ``datacopy`` or
    ``replace_array`` that uses it; the generated code declares it inside
    the region (it is dead after the SCoP).

        add_array("At")   ->  id 4 (after arrays 1..3)

    Checks: a C identifier naming nothing in the source.
    Meaning: changes nothing by itself.
    """
    d = "add_array"
    if not _IDENT.match(name) or name in _C_KEYWORDS:
        raise fail(d, f"{name!r} is not a C identifier", 1)
    if name in array_ids(scop):
        raise fail(d, f"{ID_EXISTS}: an array is called {name!r}", 1)
    if name in _taken_names(scop):
        raise fail(d, f"{ID_EXISTS}: {name!r} is an identifier of the source", 1)
    info = layout_info(scop)
    # a new statements tuple all the same: a new program for the analyses
    new = replace(scop, arrays=scop.arrays + (Array(name, 0),),
                  statements=tuple(list(scop.statements)))
    return with_layout(new, replace(info, new=info.new + (name,)))


@directive("get_array_id", String("name"), kind="query", result="int",
           aliases=("getarrayid",))
def get_array_id(scop: Scop, name):
    """The 1-based id of the array ``name`` (OpenScop's ``<arrays>`` id)."""
    ids = array_ids(scop)
    if name not in ids:
        raise fail("get_array_id", f"{ARRAY_NOT_FOUND}: no array is called {name!r}", 1)
    return ids[name]


def _check_types(scop: Scop, a: str, b: str, directive: str, argument: int) -> str | None:
    """The common element type of arrays ``a`` and ``b`` (None when both are
    unknown); refused when both are known and differ."""
    ta, tb = _array(scop, a).ctype, _array(scop, b).ctype
    if ta and tb and ta.split() != tb.split():
        raise fail(directive, f"{a} holds {ta} and {b} holds {tb}: a copy between them "
                   "would convert values", argument)
    return ta or tb


@directive("replace_array", ArrayId("last_id"),
           ArrayId("new_id", unlike="last_id", same="the two ids name the same array"),
           kind="layout", aliases=("replacearray",))
def replace_array(scop: Scop, old: str, new: str) -> Scop:
    """Make every access to one array access another (Clay's REPLACE_ARRAY):
    relations, access texts and statement bodies.

    Arguments: ``last_id`` the array replaced, ``new_id`` the array used
    instead (ids as :func:`get_array_id` gives them).  Statements made by
    ``datacopy`` keep their accesses (they are the copies between the two).
    Both arrays must have the same number of subscripts (a new array takes
    it) and element type.

        C[i][j] += A[i][k] * B[k][j];      replace_array(2, 4)   (A -> At)
        ->  C[i][j] += At[i][k] * B[k][j];

    Checks: both ids name arrays (the function receives their names),
    different ones; ``last_id`` is accessed; same subscript count and
    element type.
    Meaning: checked by the equivalence check: the new array must hold the
    values first (``datacopy`` in), and a live array written in the SCoP
    must get its final values back (``datacopy`` back).
    """
    d = "replace_array"
    scop = _with_refs(scop)
    info = layout_info(scop)
    sts = [st for st in scop.statements if st.name not in info.copies
           and any(a.array == old for a in st.accesses)]
    if not sts:
        raise fail(d, f"{ARRAY_NOT_FOUND}: no statement (other than copies) accesses {old}", 1)
    nd_old = _ndims(scop, old, skip=info.copies)
    nd_new = _ndims(scop, new)
    if len(nd_old) > 1 or (nd_new and nd_new != nd_old):
        raise fail(d, f"{old} is accessed with {sorted(nd_old)} subscripts and {new} "
                   f"with {sorted(nd_new)}: they must agree", 2)
    ctype = _check_types(scop, old, new, d, 2)
    changed: dict[str, Statement] = {}
    for st in sts:
        accs = list(st.accesses)
        texts: dict[str, str] = {}
        for k, a in enumerate(st.accesses):
            if a.array != old:
                continue
            group = _reference(st, k, d, 1)
            sp = split_reference(a.text)
            if sp is not None and sp[0] == old:
                text = _ref_text(new, sp[1])
            else:
                subs = print_subscripts(a.relation, st)
                if subs is None:
                    raise fail(d, f"cannot rewrite `{a.text}` of {st.name}", 1)
                text = _ref_text(new, subs)
            texts[a.text] = text
            for j in group:
                accs[j] = replace(accs[j], array=new, text=text,
                                  relation=accs[j].relation.set_tuple_name(_dt.out, new))
        body = _rewrite_body(st.body, texts, stmt=st.name, directive=d, argument=1)
        changed[st.name] = replace(st, body=body, accesses=tuple(accs))
    out = _replace_statements(scop, changed)
    return _sync_arrays(out, {new: ctype} if ctype else None)


# --- datacopy ----------------------------------------------------------------------------------

def _fresh_statement(scop: Scop) -> str:
    used = {s.name for s in scop.statements}
    prefixes = {a.ref.split("_r")[0] for s in scop.statements for a in s.accesses if a.ref}
    k = len(scop.statements)
    while f"S{k}" in used or f"S{k}" in prefixes:
        k += 1
    return f"S{k}"


def _array_named(scop: Scop, ident: int, arg: int, directive: str) -> str:
    """The name of the array with the 1-based id ``ident`` (argument
    ``arg``), or "the array was not found"."""
    ids = array_ids(scop)
    name = next((n for n, k in ids.items() if k == ident), None)
    if name is None:
        raise fail(directive, f"{ARRAY_NOT_FOUND}: no array has the id {ident} "
                   f"(ids {id_range(ids)})", arg)
    return name


def _copy_source(scop: Scop, d: str, id_copy: int, id_orig: int, beta_get_domain):
    """Clay's look-up of ``beta_get_domain`` and its array check (reference
    §6.6, checks 3 and 4: the first statement it matches accesses
    ``id_orig`` or ``id_copy``), then clayx's: both ids name arrays,
    different ones.  Gives (that statement, its relations the β matches,
    the index of its first access to either array, copy name, original
    name)."""
    matching = clay_matching(scop, beta_get_domain)
    if not matching:
        raise fail(d, NOT_FOUND, 5)
    ids = array_ids(scop)
    first = scop.statement(matching[0].stmt)
    k = next((j for j, a in enumerate(first.accesses) if ids.get(a.array) in (id_copy, id_orig)),
             None)
    if k is None:
        raise fail(d, f"{ARRAY_NOT_FOUND} in the given beta: {first.name} accesses neither "
                   f"array {id_orig} nor array {id_copy}", 5)
    copy = _array_named(scop, id_copy, 1, d)
    orig = _array_named(scop, id_orig, 2, d)
    if copy == orig:
        raise fail(d, f"the copy and the original are the same array ({orig})", 2)
    return first, [r for r in matching if r.stmt == first.name], k, copy, orig


def _copy_statement(scop: Scop, d: str, st: Statement, a: Access, copy: str, orig: str,
                    name: str, dom: isl.Set, rel: isl.Map, *, write_first: bool
                    ) -> tuple[Statement, str | None]:
    """The statement ``copy[f] = orig[f];`` named ``name`` on ``dom`` (``st``'s
    iterators), ``f`` the subscripts of access ``a`` of ``st`` with relation
    ``rel`` (on ``st``'s instances), and the element type the copy array
    takes.  Refused when ``copy`` or ``orig`` is accessed with another
    number of subscripts, when their element types differ, or when ``f``
    cannot be written as C."""
    nd = rel.dim(_dt.out)
    for arr in (copy, orig):
        have = _ndims(scop, arr)
        if have and have != {nd}:
            raise fail(d, f"{arr} is accessed with {sorted(have)} subscripts, the copy of "
                       f"`{a.text or a.array}` has {nd}", 1 if arr == copy else 2)
    ctype = _check_types(scop, copy, orig, d, 1)
    subs = _subscripts(a, st)
    if subs is None:
        raise fail(d, f"cannot write the subscripts of `{a.text}` as C", 5)
    rd = rel.set_tuple_name(_dt.in_, name).intersect_domain(dom)
    rd = rd.set_tuple_name(_dt.out, orig)
    wr = rd.set_tuple_name(_dt.out, copy)
    src_text = a.text if a.text and a.array == orig else _ref_text(orig, subs)
    dst_text = a.text if a.text and a.array == copy else _ref_text(copy, subs)
    reads = Access(READ, orig, rd, src_text, f"{name}_r{1 if write_first else 0}")
    writes = Access(WRITE, copy, wr, dst_text, f"{name}_r{0 if write_first else 1}")
    st = Statement(name, dom, st.iterators, f"{dst_text} = {src_text};",
                   (writes, reads) if write_first else (reads, writes), st.line,
                   st.iterator_types)
    return st, ctype


def _with_copy(scop: Scop, pairs: list, st: Statement, copy: str, ctype: str | None, *,
               first: bool) -> Scop:
    """``scop`` with the schedule of ``pairs`` (normalized) and the copy
    statement ``st`` recorded as one, first or last in the statement list."""
    # the schedule first: the first SCoP with the new statements is the new
    # program (its Origin), in its final order
    sts = (st,) + scop.statements if first else scop.statements + (st,)
    out = replace(rebuild(scop, pairs), statements=sts)
    info = layout_info(scop)
    out = with_layout(out, replace(info, copies=info.copies | {st.name}))
    return _sync_arrays(out, {copy: ctype} if ctype else None)


@directive("datacopy_at", Int("id_copy", positive=True), Int("id_orig", positive=True),
           Beta("beta_insert"), Bool("insert_before"), Beta("beta_get_domain", lookup=False),
           kind="layout")
def datacopy_at(scop: Scop, id_copy: int, id_orig: int, ins, insert_before,
                beta_get_domain) -> Scop:
    """Insert a copy statement ``copy[f] = orig[f];`` right before or after
    a statement, inside its loops (clayx's placement; Clay's ``datacopy``
    puts the copy in a loop nest of its own at the top level).

    Arguments: ``id_copy`` the array written, ``id_orig`` the array read;
    ``f`` is the subscript of the first access to ``id_orig`` in the
    statement at ``beta_get_domain``, whose domain (and α part) the copy
    takes; the copy goes just before (``insert_before`` true) or after the
    statement at ``beta_insert``, which must be in as many loops as the
    ``beta_get_domain`` statement's relation has α dimensions.  The copy
    array takes the original's element type.

        for i: for k: … A[i][k] …          b = add_array("At");
                                           datacopy_at(b, 1, [0,0,0], true, [0,0,0])
        ->  for i: for k: { At[i][k] = A[i][k]; … A[i][k] … }

    Checks, in the order of Clay's ``datacopy`` (reference §6.6):
    ``beta_insert`` not empty and found, ``beta_get_domain`` found, the
    first statement it matches accesses ``id_orig`` or ``id_copy`` ("the
    array was not found in the given beta"); then clayx's: both ids name
    arrays, different ones; both β statements; that statement accesses
    ``id_orig``; the loop counts agree.
    Meaning: checked by the equivalence check, where a copy is transparent
    (a value read from it stands for the value it copied).
    """
    d = "datacopy_at"
    _, _, _, copy, orig = _copy_source(scop, d, id_copy, id_orig, beta_get_domain)
    _clay_statements(scop, d, (3, ins), (5, beta_get_domain))
    scop = _with_refs(scop)
    r_gd, st_gd = _statement_at(scop, beta_get_domain)
    k = next((j for j, a in enumerate(st_gd.accesses) if a.array == orig), None)
    if k is None:
        raise fail(d, f"{ARRAY_NOT_FOUND} in the given beta: {st_gd.name} (at "
                   f"{list(r_gd.beta)}) does not access {orig}", 5)
    if r_gd.depth != len(ins) - 1:
        raise fail(d, f"{DEPTH_OVERFLOW}: the statement at {list(ins)} is in {len(ins) - 1} "
                   f"loops and the one at {list(r_gd.beta)} in {r_gd.depth}: the copy "
                   "cannot take that domain there", 3)
    a = st_gd.accesses[k]
    name = _fresh_statement(scop)
    dom = st_gd.domain.intersect(r_gd.map.domain()).set_tuple_name(name)
    st, ctype = _copy_statement(scop, d, st_gd, a, copy, orig, name, dom, a.relation,
                                write_first=False)
    # the copy's relation: the α part of beta_get_domain's, at the new place
    pos = ins[-1] if insert_before else ins[-1] + 1
    lvl = len(ins) - 1
    rel = Relation(name, r_gd.beta, r_gd.map.set_tuple_name(_dt.in_, name))
    rel = rel.with_beta(ins[:-1] + (pos,))
    pairs: list = []
    for r in scop.schedule:
        new = r
        if r.beta[:lvl] == ins[:-1] and len(r.beta) > lvl and r.beta[lvl] >= pos:
            b = list(r.beta)
            b[lvl] += 1
            new = r.with_beta(tuple(b))
        pairs.append((r, new))
    pairs.append((None, rel))
    return _with_copy(scop, pairs, st, copy, ctype, first=False)


def _row_text(c: isl.Constraint, names: Sequence[str]) -> str:
    """A domain constraint as C-like text: ``i - j >= 0``."""
    terms = []
    for j, n in enumerate(names):
        terms.append((int(c.get_coefficient_val(_dt.set, j).to_python()), n))
    for j in range(c.get_space().dim(_dt.param)):
        terms.append((int(c.get_coefficient_val(_dt.param, j).to_python()),
                      c.get_space().get_dim_name(_dt.param, j)))
    for j in range(c.get_local_space().dim(_dt.div)):
        terms.append((int(c.get_coefficient_val(_dt.div, j).to_python()), f"e{j}"))
    text = ""
    for v, n in terms:
        if not v:
            continue
        mag = "" if abs(v) == 1 else f"{abs(v)}*"
        text += (("-" if v < 0 else "") if not text else (" - " if v < 0 else " + ")) + mag + n
    cst = int(c.get_constant_val().to_python())
    if cst or not text:
        text += (str(cst) if not text else (" - " if cst < 0 else " + ") + str(abs(cst)))
    return f"{text} {'=' if c.is_equality() else '>='} 0"


def _pin(dom: isl.Set, absent: Sequence[int], names: Sequence[str]
         ) -> tuple[isl.Set, list[tuple[str, str, list[str]]]]:
    """Clay's pinning (reference §6.6) of the iterators ``absent`` (in
    order) in the first part (basic set) of ``dom``: every constraint that
    mentions one is replaced by ``c·it − 1 ≥ 0`` (``c > 0``) or ``c·it + 1
    ≥ 0`` (``c < 0``) -- an equality stays one -- so with unit
    coefficients the iterator is 1.  Also gives the bounds lost: (pinned
    iterator, the constraint as it was, the other iterators it bounded)."""
    parts = dom.get_basic_sets()
    if not parts or not absent:
        return dom, []
    first = parts[0]
    ls = first.get_local_space()
    rows = list(first.get_constraints())
    lost = []
    for j in absent:
        for k, c in enumerate(rows):
            v = c.get_coefficient_val(_dt.set, j)
            if v.is_zero():
                continue
            others = [names[m] for m in range(len(names)) if m != j
                      and not c.get_coefficient_val(_dt.set, m).is_zero()]
            if others:
                lost.append((names[j], _row_text(c, names), others))
            new = (isl.Constraint.equality_alloc(ls) if c.is_equality()
                   else isl.Constraint.inequality_alloc(ls))
            new = new.set_coefficient_val(_dt.set, j, v)
            rows[k] = new.set_constant_val(-1 if v.is_pos() else 1)
    pinned = isl.BasicSet.universe(first.get_space())
    for c in rows:
        pinned = pinned.intersect(isl.BasicSet.from_constraint(c))
    out = isl.Set.from_basic_set(pinned)
    for p in parts[1:]:
        out = out.union(isl.Set.from_basic_set(p))
    return out, lost


def _lost_text(lost) -> str:
    return "; ".join(f"pinning {it} drops `{row}`, a bound of {', '.join(others)}"
                     for it, row, others in lost)


def _outside(cells: isl.Set, scop: Scop, array: str, where: isl.Set) -> isl.Set:
    """The cells of ``cells`` (of ``array``), at the parameter values
    ``where``, that no access of ``scop`` touches."""
    touched = None
    for st in scop.statements:
        for a in st.accesses:
            if a.array == array:
                c = a.relation.intersect_domain(st.domain).range()
                touched = c if touched is None else touched.union(c)
    cells = cells.intersect_params(where)
    return cells if touched is None else cells.subtract(touched)


def _witness(s: isl.Set) -> str:
    """One point of ``s`` (an array's cells) as ``A[3] (N = 1, M = 4)``."""
    p = s.sample_point()
    vals = [int(p.get_coordinate_val(_dt.set, k).to_python()) for k in range(s.dim(_dt.set))]
    pars = [f"{s.get_dim_name(_dt.param, k)} = "
            f"{int(p.get_coordinate_val(_dt.param, k).to_python())}"
            for k in range(s.dim(_dt.param))]
    cell = s.get_tuple_name() + "".join(f"[{v}]" for v in vals)
    return cell + (f" (when {', '.join(pars)})" if pars else "")


@directive("datacopy", Int("id_copy"), Int("id_orig"), Beta("beta_insert", lookup=False),
           Bool("insert_before"), Beta("beta_get_domain", lookup=False), kind="layout")
def datacopy(scop: Scop, id_copy: int, id_orig: int, ins, insert_before,
             beta_get_domain) -> Scop:
    """Insert a copy statement ``copy[f] = orig[f];`` in a loop nest of its
    own at the top level, before or after the nest of ``beta_insert``
    (Clay's DATACOPY, reference §6.6).

    Arguments: ``id_copy`` the array written, ``id_orig`` the array read;
    ``beta_insert`` where (only its first entry places the copy);
    ``insert_before`` (a boolean: integers are booleans);
    ``beta_get_domain`` the statement whose domain, loops and access the
    copy takes: ``f`` are the subscripts of its first access to either
    array.  As Clay does: the copy statement gets that statement's domain
    and its scattering relations that ``beta_get_domain`` matches, with
    ``β0`` set to ``beta_insert[0]`` (before) or ``beta_insert[0] + 1``
    (after) and the inner β entries kept; every relation at or after
    ``beta_insert`` (before), or after it (after), over their common
    prefix, moves one nest on (a nest that holds ``beta_insert`` with
    statements on both sides is split there); the iterators ``f`` does
    not use are pinned in the first part of the domain (every constraint
    on one becomes ``it >= 1`` or ``it <= 1``); the copy is the first
    statement of the list (at equal dates it runs first); β-vectors are
    normalized.  The copy array takes the original's element type.

        for i: for j: y[j] += A[i][j];     c = add_array("yc");   (y: id 2)
                                            datacopy(c, 2, [0], 1, [0,0,0])
        ->  for j: yc[j] = y[j];            (β [0,0,0], i pinned to 1)
            for i: for j: y[j] += A[i][j];  (β [1,0,0])

    Checks, in Clay's order (reference §6.6): ``beta_insert`` not empty,
    ``beta_insert`` found, ``beta_get_domain`` found, the first statement
    it matches accesses ``id_orig`` or ``id_copy`` ("the array was not
    found in the given beta"); then clayx's: both ids name arrays,
    different ones, with the copy's number of subscripts and one element
    type; where Clay's pinning drops the bound of another iterator, the
    copy must still be exact: its domain bounded, and, wherever the
    statement at ``beta_get_domain`` runs, every cell it reads (and
    writes, unless the copy array is new) one that the program accesses
    -- else refused, naming the bound lost; a copy that would share dates
    of different lengths with a statement (a β-vector prefix of the
    other's) is refused.
    Meaning: checked by the equivalence check, where a copy is transparent
    (a value read from it stands for the value it copied).
    """
    d = "datacopy"
    if not ins:
        raise fail(d, EMPTY, 3)
    if not clay_matching(scop, ins):
        raise fail(d, NOT_FOUND, 3)
    st_gd, parts, k, copy, orig = _copy_source(scop, d, id_copy, id_orig, beta_get_domain)
    scop = _with_refs(scop)
    st_gd = scop.statement(st_gd.name)
    a = st_gd.accesses[k]
    rel = a.relation.gist_domain(st_gd.domain)
    absent = [j for j in range(st_gd.dim) if not rel.involves_dims(_dt.in_, j, 1)]
    dom, lost = _pin(st_gd.domain, absent, st_gd.iterators)
    sched_dom = None
    for r in parts:
        sd = r.map.domain()
        sched_dom = sd if sched_dom is None else sched_dom.union(sd)
    if not dom.is_subset(sched_dom):
        dom = dom.intersect(sched_dom)
    name = _fresh_statement(scop)
    dom = dom.set_tuple_name(name)
    st, ctype = _copy_statement(scop, d, st_gd, a, copy, orig, name, dom, rel,
                                write_first=True)
    # Clay's pinning drops the bounds of other iterators that mentioned a
    # pinned one: clayx refuses a copy that would loop without end or
    # touch cells the program does not
    why = _lost_text(lost)
    if not dom.intersect_params(scop.context).is_bounded():
        raise fail(d, f"the copy's domain {dom} is unbounded: {why or 'it was unbounded'} "
                   f"(reference §6.6: Clay pins the iterators `{a.text or a.array}` does "
                   "not use to 1)", 5)
    runs = st_gd.domain.intersect(sched_dom).intersect_params(scop.context).params()
    info = layout_info(scop)
    for acc, what in ((st.accesses[1], "reads"), (st.accesses[0], "writes")):
        if what == "writes" and acc.array in info.new:
            continue
        bad = _outside(acc.relation.range(), scop, acc.array, runs)
        if not bad.is_empty():
            raise fail(d, f"the copy {what} {_witness(bad)}, a cell the program never "
                       f"accesses: {why or 'the pinned domain is larger'} (reference "
                       f"§6.6: Clay pins the iterators `{a.text or a.array}` does not use "
                       "to 1)", 5)
    # placement (reference §4.4, §6.6): β0 only; ties with the relations
    # left at the copy's β go to the copy (it heads the statement list)
    b0 = ins[0] if insert_before else ins[0] + 1

    def moved(beta) -> bool:
        m = min(len(beta), len(ins))
        return beta[:m] >= ins[:m] if insert_before else beta[:m] > ins[:m]

    pairs: list = []
    betas = []
    for r in scop.schedule:
        b = (r.beta[0] + 1,) + r.beta[1:] if moved(r.beta) else r.beta
        betas.append((b, r))
        pairs.append((r, r.with_beta(tuple(2 * v + 1 for v in b))))
    for p in parts:
        b = (b0,) + p.beta[1:]
        for e, r in betas:
            n = min(len(b), len(e))
            if len(b) != len(e) and b[:n] == e[:n]:
                raise fail(d, f"the copy of {st_gd.name} at {list(b)} and {r.stmt} at "
                           f"{list(e)} would have dates of different lengths with a common "
                           "prefix (Clay leaves their order undefined)", 3)
        m = p.map.set_tuple_name(_dt.in_, name)
        cr = Relation(name, p.beta, m, p.rank)
        pairs.append((None, cr.with_beta(tuple(2 * v + 1 for v in b[:-1]) + (2 * b[-1],))))
    return _with_copy(scop, pairs, st, copy, ctype, first=True)


# --- block ------------------------------------------------------------------------------------

def _block_pre(stmt1, stmt2) -> None:
    if len(stmt1) != len(stmt2):
        raise fail("block", f"the betas don't have the same dimensions ({list(stmt1)} and "
                   f"{list(stmt2)})", 1)


def _clay_statements(scop: Scop, name: str, *betas: tuple[int, tuple]) -> None:
    """Clay's look-up of statement β arguments (reference §4.1, §4.2), in
    its order, each given as (argument number, β): each β matches some
    relation ("the beta vector was not found"), then, for each, every
    relation of the first statement it matches has a β of its length
    ("the beta is not a statement")."""
    firsts = []
    for arg, beta in betas:
        rels = clay_matching(scop, beta)
        if not rels:
            raise fail(name, NOT_FOUND, arg)
        firsts.append(rels[0].stmt)
    for (arg, beta), st in zip(betas, firsts):
        if any(len(r.beta) != len(beta) for r in scop.schedule.of(st)):
            raise fail(name, NOT_A_STATEMENT, arg)


@directive("block", Beta("stmt1", lookup=False), Beta("stmt2", lookup=False), kind="layout",
           pre=_block_pre)
def block(scop: Scop, stmt1, stmt2) -> Scop:
    """Merge two adjacent statements into one whose body is
    ``{ body1 body2 }`` (Clay's BLOCK).

    Arguments: ``stmt1``, ``stmt2`` statement β-vectors; ``stmt2`` must be
    the next sibling of ``stmt1`` (same β except the last component, + 1),
    the statements must have equal domains and equal α parts (one
    scheduling relation each).  The merged statement keeps ``stmt1``'s name
    and iterators (``stmt2``'s body is rewritten with them) and both access
    lists, ``stmt1``'s first; ``stmt2`` disappears and β-vectors are
    normalized.

        for i: { S0: a[i] = b[i];  S1: c[i] = a[i]; }     block([0,0], [0,1])
        ->  for i: { a[i] = b[i]; c[i] = a[i]; }          (one statement S0)

    Checks, in Clay's order (reference §6.7): the β-vectors of one length,
    both found, both statements, equal domains; then clayx's: two
    statements, adjacent siblings, one relation each, equal α parts.
    Meaning: the same instances run in the same order, so it is legal by
    construction.  Dependence analysis then works per merged instance: a
    value passed from the first part to the second of the same instance is
    no dependence, and the second part's reads are also taken to depend on
    the previous instances' writes -- conservative (more dependences, never
    fewer).  The equivalence check of later layout steps keeps the parts
    apart.
    """
    d = "block"
    _clay_statements(scop, d, (1, stmt1), (2, stmt2))
    scop = _with_refs(scop)
    r1, s1 = _statement_at(scop, stmt1)
    r2, s2 = _statement_at(scop, stmt2)
    b1, b2 = r1.beta, r2.beta
    if s1.dim != s2.dim:
        raise fail(d, f"the betas don't have the same domain ({s1.dim} and "
                   f"{s2.dim} iterators)", 2)
    d2 = s2.domain.set_tuple_name(s1.name)
    for j, it in enumerate(s1.iterators):
        d2 = d2.set_dim_name(_dt.set, j, it)
    if not d2.is_equal(s1.domain):
        raise fail(d, f"the betas don't have the same domain ({s1.domain} and "
                   f"{s2.domain})", 2)
    if s1.name == s2.name:
        raise fail(d, f"both β-vectors are relations of {s1.name}", 2)
    if b2 != b1[:-1] + (b1[-1] + 1,):
        raise fail(d, f"the statements are not adjacent siblings: {list(b2)} must be "
                   f"{list(b1[:-1] + (b1[-1] + 1,))}", 2)
    for st, arg in ((s1, 1), (s2, 2)):
        if len(scop.schedule.of(st.name)) != 1:
            raise fail(d, f"{st.name} has several scheduling relations (index-set split): "
                       "collapse them first", arg)
    m2 = r2.with_beta(b1).map.set_tuple_name(_dt.in_, s1.name)
    if not m2.intersect_domain(s1.domain).is_equal(r1.map.intersect_domain(s1.domain)):
        raise fail(d, "the statements do not have the same α part (they are not "
                   "scheduled by the same loops at the same dates)", 2)
    ren = {a: b for a, b in zip(s2.iterators, s1.iterators) if a != b}
    body2 = substitute_iterators(s2.body, ren) if ren else s2.body
    accs2 = []
    for a in s2.accesses:
        rel = a.relation.set_tuple_name(_dt.in_, s1.name)
        for j, it in enumerate(s1.iterators):
            rel = rel.set_dim_name(_dt.in_, j, it)
        accs2.append(replace(a, relation=rel,
                             text=substitute_iterators(a.text, ren) if ren else a.text))
    info = layout_info(scop)
    n1 = len(s1.accesses)
    bounds = info.part_bounds(s1.name) + (n1,) + tuple(n1 + b for b in info.part_bounds(s2.name))
    merged = replace(s1, body=f"{{ {s1.body.strip()} {body2.strip()} }}",
                     accesses=s1.accesses + tuple(accs2))
    pairs = [(r, r) for r in scop.schedule if r is not r2]
    # the schedule first: the first SCoP with the new statements is the new
    # program (its Origin), in its final order
    out = _replace_statements(rebuild(scop, pairs), {s1.name: merged, s2.name: None})
    parts = tuple(p for p in info.parts if p[0] not in (s1.name, s2.name))
    info = replace(info, parts=parts + ((s1.name, bounds),),
                   copies=info.copies - {s1.name, s2.name})
    return with_layout(out, info)


__all__ = ["ACCESS_NOT_FOUND", "ARRAY_NOT_FOUND", "array_ids", "add_array", "block", "datacopy",
           "datacopy_at", "dimcontract", "dimcontract_access", "dimprivatize",
           "dimprivatize_access", "dimreorder", "dimreorder_access", "get_array_id", "print_subscripts",
           "replace_array", "split_reference"]
