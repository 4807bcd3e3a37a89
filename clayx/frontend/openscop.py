"""OpenScop 1.0 reader and writer (the format of Clan, Candl, Clay, CLooG, Pluto).

:func:`read_all` turns OpenScop text into :class:`~clayx.model.Scop` s (the
first is the one Clay transforms), :func:`write` and :func:`write_all` do the
reverse; ``read(write(scop)) == scop`` for the data OpenScop carries
(parameters, context, statements, accesses, schedule, extensions).

Layout of a file (``#`` starts a comment, blank lines are ignored)::

    [Clan] Info: parsing file #1        anything before <OpenScop>: skipped
    <OpenScop>
    C                                   language
    CONTEXT  <relation>                 over the parameters
    1  <strings> N M </strings>         parameter names (or 0)
    2                                   number of statements
    4                                   per statement: number of relations,
    DOMAIN <relation>                   then DOMAIN, SCATTERING, READ, WRITE,
    SCATTERING <relation>               MAY_WRITE relations
    WRITE <relation> ...
    1 <body> ... </body>                statement extensions
    <scatnames> ... </scatnames>        global extensions
    </OpenScop>
    <OpenScop> … </OpenScop>            more SCoPs

A relation is a header ``ROWS COLS OUT IN LOCAL PARAMS`` and ROWS rows of
``0|1  out…  in…  local…  params…  constant`` (0: ``= 0``, 1: ``>= 0``); a
union is a part count followed by the parts.  Local columns are
existentially quantified.

Reading follows osl, the library Clay reads with (Clay reference §2.1):
everything before ``<OpenScop>`` and between SCoPs is skipped (Clan's
``[Clan] Info: …`` lines); a file without any ``<OpenScop>`` holds no SCoP
(osl's NULL scop: an empty list); a ``#`` starts a comment anywhere, and
text after the numbers of a line is ignored; an extension's text runs from
``<tag>`` to ``</tag>`` wherever they are on their lines.  Anything
malformed is an :class:`~clayx.errors.OpenScopError` naming its line.

How the model is built:

- statements are ``S0, S1, …``; the domain's dimensions are named after the
  ``<body>`` iterators (or the ``<extbody>``'s, whose body osl prints in
  place of ``<body>``; ``i0, i1, …`` without a body);
- a SCATTERING must be in Clay's ``2d+1`` form ``[β0, α1, β1, …]`` (as Clan
  writes it), giving each instance one date: its union parts become
  :class:`~clayx.model.Relation` s, parts with the same β-vector are merged
  into one relation; β-vectors are normalized (dense, 0-based), as Clay
  does before a script;
- an access relation's first output dimension is the array id, fixed by an
  equality; the name comes from ``<arrays>`` (``A<id>`` without it).  An
  array used with different numbers of subscripts (Clan writes ``A[i]`` for
  a row passed to a call) has the largest number; a shorter access touches
  every element of the missing subscripts (a write among them becomes a
  may-write), so dependences stay safe, and a warning says so;
- an access's text is its reference in the statement text, found by
  relation, not by spelling (``t[i][n - 1 - j]``, which isl prints
  ``t[i][-j + n - 1]``), so layout steps can rewrite it; isl's text when no
  reference matches;
- names (parameters, iterators, arrays) must be C identifiers other than C
  keywords: they are printed into C;
- ``<arrays>`` and ``<scatnames>`` are rebuilt by :func:`write` from the
  model (``<arrays>`` with the ids the file gave, which Clay's scripts name
  arrays by, and its other symbols: :mod:`clayx.model.ids`), and so are clayx's own ``<clayx_marks>`` (the schedule's loop
  marks, one ``parallel [0, 1]`` / ``unroll [0] 4`` line each) and
  ``<clayx_arrays>`` (one JSON record an array: element type, extents,
  whether it is local to the region, so arrays made by layout steps can be
  declared after a round trip); the other extensions osl knows
  (``<coordinates>``, ``<clay>``, ``<loop>``, …) and clayx's
  ``<clayx_layout>`` and ``<clayx_unchecked>`` are kept verbatim in
  ``Scop.extensions``; an extension with an unknown tag is dropped with an
  :class:`~clayx.errors.InputWarning`, as osl drops it;
- ``<clayx_unchecked>`` records that the schedule was changed without the
  legality check (one ``unchecked …;`` step a line, see
  :func:`unchecked_steps`): a session on such a SCoP refuses to generate
  code or write it again unless told ``unchecked`` (as after the step
  itself), and writing it keeps the record.  Clay itself would drop it.

Not carried by OpenScop (lost on a round trip through it): the C source and
its region, statement lines, statement extensions other than the body.
"""

from __future__ import annotations

import dataclasses
import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import islpy as isl

from ..errors import InputWarning, ModelError, OpenScopError
from ..model import (MAY_WRITE, READ, WRITE, Access, Array, ClaySchedule,
                     Mark, Relation, Scop, Statement, bracket_subscripts)
from ..model.ids import ARRAY_IDS_TAG, array_ids, id_record
from ..model.inttypes import INT64_MAX
from .c import statement_syntax_error

__all__ = ["read", "read_all", "read_file", "read_all_file", "write", "write_all",
           "write_file", "scop_clay_script", "with_clay_script", "UNCHECKED",
           "unchecked_steps", "with_unchecked_step", "NULL_SCOP"]

_KIND_OF = {"READ": READ, "WRITE": WRITE, "MAY_WRITE": MAY_WRITE}
_TYPE_OF = {v: k for k, v in _KIND_OF.items()}
_REL_TYPES = ("DOMAIN", "SCATTERING", *_KIND_OF)
# Global extensions rebuilt from the model by write() (never kept verbatim).
# <clayx_marks> is clayx's own: the loop marks of the schedule (parallel, …);
# <clayx_arrays> too: what OpenScop does not say about arrays.
_MARKS = "clayx_marks"
_ARRAYS = "clayx_arrays"
_REBUILT = ("arrays", "scatnames", "body", _MARKS, _ARRAYS)
#: clayx's record of the steps applied without the legality check (kept
#: verbatim like any other extension, so it survives every round trip)
UNCHECKED = "clayx_unchecked"
_UNCHECKED_NOTE = ("# steps applied without the legality check: this schedule may break "
                   "dependences;\n# clayx generates code from it only with --unchecked")
_MARK_LINE = re.compile(
    r"([A-Za-z_]\w*)\s+\[\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\]\s*([+-]?\d+)?\Z")
#: What Clay prints for a file without a SCoP (osl's NULL scop).
NULL_SCOP = "# NULL scop\n"

_INT = re.compile(r"[+-]?\d+\Z")
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")
_NAME = re.compile(r"[^\W\d]\S*\Z")  # array names: identifiers, maybe s.x


# --- public API ----------------------------------------------------------------

def read(text: str, path: str | None = None) -> Scop:
    """Parse OpenScop ``text`` holding one SCoP (``path`` is for messages).

    Raises :class:`OpenScopError` with the 1-based line on malformed input,
    or when the text holds no SCoP or several (see :func:`read_all`).
    """
    scops = read_all(text, path)
    if len(scops) != 1:
        raise OpenScopError(f"the file holds {len(scops)} SCoPs; expected one "
                            "(use read_all)", path=path or "<openscop>")
    return scops[0]


def read_all(text: str, path: str | None = None) -> list[Scop]:
    """Parse every ``<OpenScop>`` block of ``text``; none is an empty list
    (osl's NULL scop).  What is dropped (unknown extensions) or
    reinterpreted is reported with :class:`~clayx.errors.InputWarning` s."""
    reader = _Reader(text, path)
    try:
        scops = reader.scops()
    except (isl.Error, ModelError) as e:  # pragma: no cover - defensive
        raise OpenScopError(f"invalid relation: {e}", path=path or "<openscop>") from None
    for w in reader.warnings:
        warnings.warn(w, InputWarning, stacklevel=2)
    return scops


def read_all_file(path: str | Path) -> list[Scop]:
    """Read every SCoP of an OpenScop file (:func:`read_all`)."""
    from .text import read_text
    p = str(path)
    text = read_text(path, lambda m, line, col: OpenScopError(f"column {col}: {m}",
                                                              line=line, path=p),
                     lambda why: OpenScopError(f"cannot read the file: {why}", path=p))
    return read_all(text, p)


def read_file(path: str | Path) -> Scop:
    """Read an OpenScop file holding one SCoP."""
    scops = read_all_file(path)
    if len(scops) != 1:
        raise OpenScopError(f"the file holds {len(scops)} SCoPs; expected one "
                            "(use read_all_file)", path=str(path))
    return scops[0]


def write(scop: Scop) -> str:
    """The OpenScop text of ``scop`` (Clan's layout, with comments)."""
    return write_all([scop])


def write_all(scops, *, banner: bool = True) -> str:
    """The OpenScop text of several SCoPs (one banner, unless ``banner`` is
    false, then each SCoP); :data:`NULL_SCOP` for none, as Clay prints it."""
    if not scops:
        return NULL_SCOP
    try:
        return "".join(_Writer(s).text(banner=banner and k == 0)
                       for k, s in enumerate(scops))
    except isl.Error as e:  # pragma: no cover - defensive
        raise OpenScopError(f"cannot write the SCoP: {e}") from None


def write_file(scop: Scop, path: str | Path) -> None:
    """Write ``scop`` as OpenScop to ``path``."""
    Path(path).write_text(write(scop))


def scop_clay_script(scop: Scop) -> str | None:
    """The Clay script of the ``<clay>`` extension, or None.

    As Clay reads it: the text between the tags less its leading newlines,
    so line numbers in errors are Clay's.
    """
    text = _extension(scop, "clay")
    if text is None:
        return None
    return text.lstrip("\n")


def with_clay_script(scop: Scop, script: str | None) -> Scop:
    """``scop`` with its ``<clay>`` extension set to ``script`` (removed if
    None); the extension keeps its place if it existed."""
    return _with_extension(scop, "clay", script)


def unchecked_steps(scop: Scop) -> tuple[str, ...] | None:
    """The steps recorded in the ``<clayx_unchecked>`` extension (one script
    statement each, ``unchecked reverse([0], 1);``), or None when the SCoP
    carries no such record: its schedule was checked.  A record without
    steps (emptied by hand) still marks the schedule as unchecked."""
    text = _extension(scop, UNCHECKED)
    if text is None:
        return None
    return tuple(ln.strip() for ln in _uncommented(text) if ln.strip())


def with_unchecked_step(scop: Scop, step: str) -> Scop:
    """``scop`` with ``step`` (a script statement's text) added to its
    ``<clayx_unchecked>`` record, created if needed: the schedule was
    changed without the legality check."""
    steps = (*(unchecked_steps(scop) or ()), step.strip())
    text = "\n".join((_UNCHECKED_NOTE, *steps))
    return _with_extension(scop, UNCHECKED, text)


def _extension(scop: Scop, tag: str) -> str | None:
    """The text of the global extension ``<tag>`` kept with ``scop``, or None."""
    return next((text for t, text in scop.extensions if t == tag), None)


def _uncommented(text: str) -> list[str]:
    """The lines of an extension's text that are not ``#`` comments."""
    return [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]


def _with_extension(scop: Scop, tag: str, text: str | None) -> Scop:
    """``scop`` with the global extension ``<tag>`` set to ``text`` (removed
    if None); the extension keeps its place if it existed."""
    exts = list(scop.extensions)
    idx = next((k for k, (t, _) in enumerate(exts) if t == tag), None)
    if text is None:
        if idx is not None:
            del exts[idx]
    elif idx is None:
        exts.append((tag, text))
    else:
        exts[idx] = (tag, text)
    return dataclasses.replace(scop, extensions=tuple(exts))


# --- reading -------------------------------------------------------------------

#: The extensions osl knows (Clay keeps them when it writes the SCoP back).
#: An extension with another tag is dropped with a warning, as osl does;
#: clayx's own extensions are known to clayx and kept.
OSL_EXTENSIONS = frozenset({
    "strings", "body", "textual", "comment", "null", "scatnames", "arrays", "coordinates",
    "clay", "dependence", "symbols", "extbody", "loop", "pluto_unroll", "region",
    "annotation"})
#: clayx's own extensions (``clayx_layout`` is
#: :data:`clayx.analysis.equivalence.LAYOUT_TAG`).
CLAYX_EXTENSIONS = frozenset({_MARKS, UNCHECKED, _ARRAYS, "clayx_layout"})

#: Names a parameter, iterator or array may not take: they would be printed
#: into C (``for (int c1 = 0; c1 < for; …)``).
C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto
    if inline int long register restrict return short signed sizeof static struct switch
    typedef union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex
    _Generic _Imaginary _Noreturn _Static_assert _Thread_local""".split())

#: Longest integer literal read (digits): longer ones are refused before
#: Python converts them (:data:`INT64_MAX` bounds the values read).
_MAX_DIGITS = 40
#: isl operation budget for turning one SCoP's matrices into isl objects.
_READ_MAX_OPERATIONS = 20_000_000
_START, _END = "<OpenScop>", "</OpenScop>"
_TAG_AT_START = re.compile(r"<([A-Za-z_][\w.-]*)>")
_MARK_KINDS = {"parallel": False, "vectorize": False, "unroll": True}  # kind -> has arg


@dataclass
class _Part:
    """One matrix of a relation (one part of a union)."""

    line: int
    out: int
    in_: int
    local: int
    params: int
    rows: list[list[int]]


@dataclass
class _RawStmt:
    line: int
    domain: tuple[int, list[_Part]] | None = None
    scattering: tuple[int, list[_Part]] | None = None
    accesses: list[tuple[str, int, list[_Part]]] = field(default_factory=list)
    body: tuple[int, list[str], str] | None = None
    extbody: tuple[int, list[str], str] | None = None


class _Reader:
    """A cursor over the lines of the text, as osl reads it; every error
    names its line.

    Everything before ``<OpenScop>`` and between ``</OpenScop>`` and the
    next ``<OpenScop>`` is skipped; a ``#`` starts a comment to the end of
    the line; an extension's text runs from its ``<tag>`` to ``</tag>``,
    wherever on their lines they are.  A line consumed in part has the
    consumed characters blanked, so line numbers stay those of the file.
    ``warnings`` collects what was read but dropped.
    """

    def __init__(self, text: str, path: str | None):
        self.lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
        self.pos = 0
        self.path = path
        self.warnings: list[str] = []

    # -- cursor -------------------------------------------------------------------
    def error(self, message: str, line: int | None) -> OpenScopError:
        return OpenScopError(message, line=line, path=self.path)

    def _eof_line(self) -> int:
        return max(len(self.lines), 1)

    def _consume(self, k: int, col: int) -> None:
        """Blank line ``k`` up to column ``col`` and move the cursor there."""
        self.lines[k] = " " * col + self.lines[k][col:]
        self.pos = k

    def peek(self) -> tuple[int, str] | None:
        """The next line with content (comment removed), not consumed."""
        k = self.pos
        while k < len(self.lines):
            c = self.lines[k].split("#", 1)[0].strip()
            if c:
                return k + 1, c
            k += 1
        return None

    def content(self, what: str) -> tuple[int, str]:
        """Consume the next line with content; ``what`` names what is expected."""
        nxt = self.peek()
        if nxt is None:
            self.pos = len(self.lines)
            raise self.error(f"unexpected end of file: expected {what}", self._eof_line())
        self.pos = nxt[0]
        if _START in nxt[1] or _END in nxt[1]:
            tag = _START if _START in nxt[1] else _END
            raise self.error(f"expected {what}, found {tag} (the SCoP is incomplete)", nxt[0])
        return nxt

    def ints(self, line: int, content: str, what: str, counts: tuple[int, ...]) -> list[int]:
        """The integers at the start of ``content``.  Text after them is
        ignored (as osl does) once one of ``counts`` numbers were read; a
        non-number before that is an error."""
        nums: list[int] = []
        for tok in content.split():
            if not _INT.match(tok):
                if len(nums) in counts:
                    break
                raise self.error(f"bad number {tok!r} in {what}", line)
            if len(tok.lstrip("+-")) > _MAX_DIGITS or abs(int(tok)) > INT64_MAX:
                raise self.error(f"{tok} in {what} is beyond 64 bits (clayx's integers, "
                                 "like C's widest, are 64-bit)", line)
            nums.append(int(tok))
        return nums

    def one_int(self, what: str) -> tuple[int, int]:
        line, c = self.content(what)
        nums = self.ints(line, c, what, (1,))
        if len(nums) != 1:
            raise self.error(f"expected one number ({what}), found {c!r}", line)
        return line, nums[0]

    def _find(self, needle: str, k: int, col: int = 0) -> tuple[int, int] | None:
        """The first (line index, column) of ``needle`` from line ``k``,
        column ``col``."""
        while k < len(self.lines):
            j = self.lines[k].find(needle, col)
            if j >= 0:
                return k, j
            k, col = k + 1, 0
        return None

    def tag(self, line: int, c: str, what: str) -> tuple[str, int]:
        """The extension tag that opens content line ``line`` (consumed) and
        the column just after it."""
        m = _TAG_AT_START.match(c)
        if not m:
            raise self.error(f"expected {what}, found {c!r}", line)
        k = line - 1
        col = self.lines[k].index(m.group(0)) + len(m.group(0))
        self._consume(k, col)
        return m.group(1), col

    def block(self, tag: str, line: int, col: int) -> str:
        """The raw text from column ``col`` of line ``line`` (just after
        ``<tag>``) to ``</tag>``, which is consumed: its first line is the
        rest of line ``line``."""
        close = f"</{tag}>"
        k = line - 1
        found = self._find(close, k, col)
        end = self._find(_END, k, col)
        if found is None or (end is not None and end < found):
            raise self.error(f"<{tag}> is not closed by {close}"
                             + (" before </OpenScop>" if found else ""), line)
        j, end_col = found
        if j == k:
            text = self.lines[k][col:end_col]
        else:
            text = "\n".join([self.lines[k][col:], *self.lines[k + 1:j],
                              self.lines[j][:end_col]])
        self._consume(j, end_col + len(close))
        return text

    # -- structure ----------------------------------------------------------------
    def scops(self) -> list[Scop]:
        out = []
        while True:
            found = self._find(_START, self.pos)
            if found is None:
                return out
            k, col = found
            self._consume(k, col + len(_START))
            out.append(self.scop(k + 1))

    def scop(self, open_line: int) -> Scop:
        line, language = self.content("the language")
        if language == "CONTEXT" or len(language.split()) != 1:
            raise self.error(f"expected the language (e.g. C), found {language!r}", line)
        line, kw = self.content("CONTEXT")
        if kw != "CONTEXT":
            raise self.error(f"expected CONTEXT, found {kw!r}", line)
        ctx_parts = self.relation("CONTEXT")
        n_params = ctx_parts[0].params
        for p in ctx_parts:
            if p.out or p.in_:
                raise self.error(f"the CONTEXT has {p.out} output and {p.in_} input "
                                 "dimensions; expected 0 and 0", p.line)
            if p.params != n_params:
                raise self.error(f"CONTEXT part has {p.params} parameters, another "
                                 f"{n_params}", p.line)
        params = self.param_names(n_params)
        line, n_stmts = self.one_int("the number of statements")
        if n_stmts < 0:
            raise self.error("negative number of statements", line)
        raws = [self.statement(k) for k in range(n_stmts)]
        exts: list[tuple[str, str, int]] = []
        while True:
            nxt = self.peek()
            if nxt is None:
                raise self.error(f"<OpenScop> is not closed by {_END}", open_line)
            line, c = nxt
            if c.startswith(_END):
                k = line - 1
                self._consume(k, self.lines[k].index(_END) + len(_END))
                break
            if c.startswith(_START):
                raise self.error(f"a new {_START} starts before the {_END} of the SCoP "
                                 f"at line {open_line}", line)
            self.pos = line - 1
            tag, col = self.tag(line, c, f"an extension <tag> or {_END}")
            exts.append((tag, self.block(tag, line, col), line))
        return _Builder(self, open_line, language, params, ctx_parts, raws, exts).scop()

    def param_names(self, n: int) -> tuple[str, ...]:
        line, flag = self.one_int("whether parameter names are provided (0 or 1)")
        if flag not in (0, 1):
            raise self.error(f"expected 0 or 1 (parameter names provided), found {flag}", line)
        if flag == 0:
            return tuple(f"P{k}" for k in range(n))
        line, c = self.content("<strings>")
        tag, col = self.tag(line, c, "<strings> with the parameter names")
        if tag != "strings":
            raise self.error(f"expected <strings> with the parameter names, found {c!r}", line)
        names = []
        for ln in self.block("strings", line, col).split("\n"):
            names += ln.split("#", 1)[0].split()
        if len(names) != n:
            raise self.error(f"{len(names)} parameter names for {n} parameters "
                             "in the CONTEXT", line)
        _check_names(self, names, "parameter", line)
        return tuple(names)

    def relation(self, rtype: str) -> list[_Part]:
        """The matrices after a type keyword: one, or a count and the parts."""
        what = f"the {rtype} header 'ROWS COLS OUT IN LOCAL PARAMS'"
        line, c = self.content(what)
        nums = self.ints(line, c, what, (1, 6))
        if len(nums) == 1:
            count = nums[0]
            if count < 1:
                raise self.error(f"a {rtype} union needs at least one part, found {count}",
                                 line)
            parts = []
            for _ in range(count):
                line, c = self.content(what)
                if c == rtype:  # tolerate the keyword repeated before each part
                    line, c = self.content(what)
                parts.append(self.matrix(rtype, line, self.ints(line, c, what, (6,))))
            return parts
        return [self.matrix(rtype, line, nums)]

    def matrix(self, rtype: str, line: int, nums: list[int]) -> _Part:
        if len(nums) != 6:
            raise self.error(f"expected {rtype} header 'ROWS COLS OUT IN LOCAL PARAMS' "
                             f"(6 numbers), found {len(nums)} numbers", line)
        rows, cols, out, in_, local, params = nums
        if min(nums) < 0:
            raise self.error(f"negative number in the {rtype} header", line)
        want = 1 + out + in_ + local + params + 1
        if cols != want:
            raise self.error(
                f"inconsistent {rtype} header: {cols} columns, but 1 + {out} output + "
                f"{in_} input + {local} local + {params} parameters + 1 = {want}", line)
        part = _Part(line, out, in_, local, params, [])
        for r in range(rows):
            what = f"row {r + 1} of the {rtype} matrix"
            ln, c = self.content(what)
            row = self.ints(ln, c, what, (cols,))
            if len(row) != cols:
                raise self.error(f"{what} has {len(row)} numbers, expected {cols}", ln)
            if row[0] not in (0, 1):
                raise self.error(f"{what} starts with {row[0]}: expected 0 (equality) "
                                 "or 1 (inequality)", ln)
            part.rows.append(row)
        return part

    def statement(self, k: int) -> _RawStmt:
        line, n = self.one_int(f"the number of relations of statement {k + 1}")
        if n < 0:
            raise self.error(f"negative number of relations of statement {k + 1}", line)
        raw = _RawStmt(line)
        for r in range(n):
            ln, kw = self.content(f"relation {r + 1} of statement {k + 1}")
            if kw not in _REL_TYPES:
                raise self.error(
                    f"unknown relation type {kw!r} (relation {r + 1} of {n} of statement "
                    f"{k + 1}; expected DOMAIN, SCATTERING, READ, WRITE or MAY_WRITE)", ln)
            parts = self.relation(kw)
            if kw in ("DOMAIN", "SCATTERING"):
                attr = kw.lower()
                if getattr(raw, attr) is not None:
                    raise self.error(f"statement {k + 1} has a second {kw}", ln)
                setattr(raw, attr, (ln, parts))
            else:
                raw.accesses.append((_KIND_OF[kw], ln, parts))
        if raw.domain is None:
            raise self.error(f"statement {k + 1} has no DOMAIN", line)
        if raw.scattering is None:
            raise self.error(f"statement {k + 1} has no SCATTERING (clayx needs "
                             "Clay's 2d+1 scattering)", line)
        ln, n_ext = self.one_int(f"the number of extensions of statement {k + 1}")
        if n_ext < 0:
            raise self.error(f"negative number of extensions of statement {k + 1}", ln)
        for _ in range(n_ext):
            ln, c = self.content(f"an extension of statement {k + 1}")
            tag, col = self.tag(ln, c, f"an extension <tag> of statement {k + 1}")
            text = self.block(tag, ln, col)
            if tag in ("body", "extbody"):
                if getattr(raw, tag) is not None:
                    raise self.error(f"statement {k + 1} has a second <{tag}>", ln)
                setattr(raw, tag, self.body(text, ln) if tag == "body"
                        else self.extbody(text, ln))
            elif tag not in OSL_EXTENSIONS:
                self.warnings.append(f"{self.path or '<openscop>'}:{ln}: unknown statement "
                                     f"extension <{tag}> dropped (osl drops it too)")
            # the other statement extensions osl knows are not kept by clayx
        return raw

    def _numbered(self, text: str, open_line: int) -> list[tuple[int, str]]:
        """The lines of a block with content, comments removed, numbered."""
        items = [(open_line + k, ln.split("#", 1)[0].strip())
                 for k, ln in enumerate(text.split("\n"))]
        return [(ln, c) for ln, c in items if c]

    def body(self, text: str, open_line: int) -> tuple[int, list[str], str]:
        """``<body>``: iterator count, iterator names, statement text."""
        items = self._numbered(text, open_line)
        if not items:
            raise self.error("<body> is empty: expected the number of original iterators",
                             open_line)
        ln, c = items[0]
        nums = self.ints(ln, c, "the number of original iterators", (1,))
        if len(nums) != 1 or nums[0] < 0:
            raise self.error(f"expected the number of original iterators, found {c!r}", ln)
        iterators: list[str] = []
        k = 1
        if nums[0]:
            if len(items) < 2:
                raise self.error("<body> ends early: expected the original iterators",
                                 open_line)
            ln, c = items[1]
            iterators = c.split()
            if len(iterators) != nums[0]:
                raise self.error(f"<body> lists {len(iterators)} iterators, expected "
                                 f"{nums[0]}", ln)
            _check_names(self, iterators, "iterator", ln)
            k = 2
        # the statement text: the lines after the iterators, as written
        # (comment lines and blank lines around it dropped)
        first = items[k - 1][0] + 1             # the file line of raw[0]
        raw = text.split("\n")[first - open_line:]
        while raw and (not raw[0].strip() or raw[0].lstrip().startswith("#")):
            raw.pop(0)
            first += 1
        while raw and (not raw[-1].strip() or raw[-1].lstrip().startswith("#")):
            raw.pop()
        text = "\n".join(raw).strip()
        if not text:
            raise self.error("<body> has no statement text after the iterators", open_line)
        # the text is printed into C as it is: it must be C
        bad = statement_syntax_error("\n".join(raw))
        if bad is not None:
            row, col, what = bad
            raise self.error(f"<body>: the statement text is not C at column {col + 1} "
                             f"({what}): {text.splitlines()[0][:60]!r}", first + row)
        return open_line, iterators, text

    def extbody(self, text: str, open_line: int) -> tuple[int, list[str], str]:
        """``<extbody>``: the number of accesses, a start/length pair per
        access, then a ``<body>``; the body is returned (the pairs locate
        accesses in the text for Clay's layout functions, which clayx
        regenerates otherwise)."""
        lines = text.split("\n")
        numbers: list[int] = []
        k = 0
        while k < len(lines):
            c = lines[k].split("#", 1)[0].strip()
            k += 1
            if not c:
                continue
            numbers += self.ints(open_line + k - 1, c, "<extbody> access positions",
                                 (len(c.split()),))
            if len(numbers) >= 1 + 2 * max(numbers[0], 0):
                break
        if not numbers or numbers[0] < 0 or len(numbers) != 1 + 2 * numbers[0]:
            raise self.error("<extbody>: expected the number of accesses and a start/length "
                             "pair for each", open_line)
        return self.body("\n".join([""] * k + lines[k:]), open_line)

    def arrays(self, text: str, open_line: int) -> dict[int, str]:
        """``<arrays>``: count, then ``id name`` lines."""
        items = self._numbered(text, open_line)
        if not items:
            raise self.error("<arrays> is empty: expected the number of arrays", open_line)
        ln, c = items[0]
        nums = self.ints(ln, c, "the number of arrays", (1,))
        if len(nums) != 1:
            raise self.error(f"expected the number of arrays, found {c!r}", ln)
        if len(items) - 1 != nums[0]:
            raise self.error(f"<arrays> announces {nums[0]} arrays and lists "
                             f"{len(items) - 1}", ln)
        out: dict[int, str] = {}
        for ln, c in items[1:]:
            toks = c.split()
            if len(toks) != 2 or not _INT.match(toks[0]) or not _NAME.match(toks[1]) \
                    or len(toks[0]) > _MAX_DIGITS:
                raise self.error(f"expected 'id name' in <arrays>, found {c!r}", ln)
            _check_names(self, [_base_name(toks[1])], "array", ln)
            if int(toks[0]) in out:
                raise self.error(f"array id {toks[0]} is named twice in <arrays>", ln)
            out[int(toks[0])] = toks[1]
        return out

    def array_records(self, text: str, open_line: int) -> dict[str, dict]:
        """``<clayx_arrays>``: one JSON object a line, ``{"name": …, "ndim": …,
        "type": …, "extents": […], "local": …}``."""
        out: dict[str, dict] = {}
        for ln, c in self._numbered(text, open_line):
            try:
                rec = json.loads(c)
            except ValueError:
                rec = None
            ok = (isinstance(rec, dict) and isinstance(rec.get("name"), str)
                  and _NAME.match(rec["name"]) and type(rec.get("ndim")) is int
                  and 0 <= rec["ndim"] <= 64
                  and (rec.get("type") is None or isinstance(rec.get("type"), str))
                  and isinstance(rec.get("extents", []), list)
                  and all(isinstance(e, str) for e in rec.get("extents", []))
                  and isinstance(rec.get("local", False), bool))
            if not ok:
                raise self.error(f"expected a JSON array record in <{_ARRAYS}>, found {c!r}",
                                 ln)
            out[rec["name"]] = rec
        return out

    def marks(self, text: str, open_line: int) -> tuple[Mark, ...]:
        """``<clayx_marks>``: one ``kind [β-prefix] [arg]`` line per mark."""
        out = []
        for ln, c in self._numbered(text, open_line):
            m = _MARK_LINE.match(c)
            if not m or m.group(1) not in _MARK_KINDS or (
                    (m.group(3) is not None) != _MARK_KINDS[m.group(1)]):
                raise self.error(f"expected 'parallel [loop]', 'vectorize [loop]' or "
                                 f"'unroll [loop] factor' in <{_MARKS}>, found {c!r}", ln)
            loop = tuple(int(v) for v in (m.group(2) or "").replace(",", " ").split())
            arg = int(m.group(3)) if m.group(3) is not None else None
            if arg is not None and not 0 < arg <= 65535:     # gcc's '#pragma GCC unroll'
                raise self.error(f"unroll factor {arg} out of range (1..65535, gcc's limit) "
                                 f"in <{_MARKS}>", ln)
            out.append((ln, Mark(m.group(1), loop, arg)))
        return tuple(out)


def _strip_block(text: str) -> str:
    """An extension's text as kept: without the blank rest of the ``<tag>``
    line and the blank start of the ``</tag>`` line (so the text clayx
    writes between tag lines reads back unchanged)."""
    first, sep, rest = text.partition("\n")
    if sep and not first.strip():
        text = rest
    head, sep, last = text.rpartition("\n")
    if sep and not last.strip():
        text = head
    elif not sep and not text.strip():
        text = ""
    return text


def _base_name(name: str) -> str:
    """The variable of an array name (``s`` of ``s.x``)."""
    return re.match(r"[^\W\d]\w*", name).group(0)


def _check_names(reader: _Reader, names: list[str], what: str, line: int) -> None:
    """Names are C identifiers, not keywords; parameters and iterators in
    ASCII (they are isl names), arrays in any letters C allows."""
    for n in names:
        if not (n.isidentifier() if what == "array" else _IDENT.match(n)):
            raise reader.error(f"bad {what} name {n!r}", line)
        if n in C_KEYWORDS:
            raise reader.error(f"the {what} name {n!r} is a C keyword", line)
    if len(set(names)) != len(names):
        raise reader.error(f"duplicate {what} names in {' '.join(names)}", line)


def _val(ctx: isl.Context, n: int):
    return n if -2**62 < n < 2**62 else isl.Val.read_from_str(ctx, str(n))


def _fixed_out(m: isl.Map, pos: int) -> int | None:
    """The constant value of output ``pos`` of ``m`` (None if not fixed)."""
    v = m.plain_get_val_if_fixed(isl.dim_type.out, pos)
    if v.is_nan():
        v = m.affine_hull().plain_get_val_if_fixed(isl.dim_type.out, pos)
    if v.is_nan() or not v.is_int():
        return None
    return int(v.to_python())


class _Builder:
    """Turns the parsed matrices into model objects (all checks name a line)."""

    def __init__(self, reader: _Reader, open_line: int, language: str,
                 params: tuple[str, ...], ctx_parts: list[_Part], raws: list[_RawStmt],
                 exts: list[tuple[str, str, int]]):
        self.r = reader
        self.open_line = open_line
        self.ctx = isl.DEFAULT_CONTEXT
        self.language = language
        self.params = params
        self.ctx_parts = ctx_parts
        self.raws = raws
        self.exts = exts

    def check_params(self, p: _Part, rtype: str) -> None:
        if p.params != len(self.params):
            raise self.r.error(f"the {rtype} has {p.params} parameters; the CONTEXT has "
                               f"{len(self.params)}", p.line)

    def basic(self, p: _Part, n_in: int | None) -> isl.BasicMap | isl.BasicSet:
        """The part as an isl basic map (``n_in`` > 0 or a map wanted) or a
        basic set, parameters named, local columns projected out."""
        ctx = self.ctx
        np_ = len(self.params)
        if n_in is None:
            space = isl.Space.set_alloc(ctx, np_, p.out + p.local)
            t_out = isl.dim_type.set
        else:
            space = isl.Space.alloc(ctx, np_, n_in, p.out + p.local)
            t_out = isl.dim_type.out
        for k, name in enumerate(self.params):
            space = space.set_dim_name(isl.dim_type.param, k, name)
        ls = isl.LocalSpace.from_space(space)
        obj = (isl.BasicSet if n_in is None else isl.BasicMap).universe(space)
        for row in p.rows:
            c = (isl.Constraint.equality_alloc(ls) if row[0] == 0
                 else isl.Constraint.inequality_alloc(ls))
            col = 1
            for k in range(p.out):
                c = c.set_coefficient_val(t_out, k, _val(ctx, row[col + k]))
            col += p.out
            for k in range(p.in_):
                c = c.set_coefficient_val(isl.dim_type.in_, k, _val(ctx, row[col + k]))
            col += p.in_
            for k in range(p.local):
                c = c.set_coefficient_val(t_out, p.out + k, _val(ctx, row[col + k]))
            col += p.local
            for k in range(p.params):
                c = c.set_coefficient_val(isl.dim_type.param, k, _val(ctx, row[col + k]))
            c = c.set_constant_val(_val(ctx, row[-1]))
            obj = obj.add_constraint(c)
        return obj.project_out(t_out, p.out, p.local)

    def scop(self) -> Scop:
        """The :class:`Scop`, its isl work bounded (a pathological system of
        constraints is an error, not a hang)."""
        from ..codegen.build import isl_guard
        from ..errors import CodegenError
        try:
            with isl_guard(self.ctx, _READ_MAX_OPERATIONS, "reading the relations"):
                return self._scop()
        except CodegenError as e:
            raise self.r.error(f"{e} (the SCoP that starts here is too complex)",
                               self.open_line) from None

    def _scop(self) -> Scop:
        r = self.r
        # context
        context = None
        for p in self.ctx_parts:
            s = isl.Set.from_basic_set(self.basic(p, None)).params()
            context = s if context is None else context.union(s)
        # global extensions
        array_names: dict[int, str] = {}
        records: dict[str, dict] = {}
        kept: list[tuple[str, str]] = []
        marks: tuple[tuple[int, Mark], ...] = ()
        for tag, text, line in self.exts:
            if tag == "arrays":
                array_names = r.arrays(text, line)
            elif tag == _MARKS:
                marks = r.marks(text, line)
            elif tag == _ARRAYS:
                records = r.array_records(text, line)
            elif tag in ("scatnames", "body"):
                pass                            # rebuilt by write()
            elif tag in OSL_EXTENSIONS or tag in CLAYX_EXTENSIONS:
                kept.append((tag, _strip_block(text)))
            else:
                r.warnings.append(f"{r.path or '<openscop>'}:{line}: unknown extension "
                                  f"<{tag}> dropped (osl drops it too)")
        # the number of subscripts of each array: the most it is used with
        ids: dict[int, str] = {}
        subs: dict[str, int] = {}
        for k, raw in enumerate(self.raws):
            for kind, aline, aparts in raw.accesses:
                arr_id, nsub = self.access_id(f"S{k}", kind, aparts)
                name = ids.setdefault(arr_id, self.array_name(arr_id, array_names))
                if name in subs and subs[name] != nsub:
                    r.warnings.append(
                        f"{r.path or '<openscop>'}:{aline}: array {name} is accessed with "
                        f"{min(subs[name], nsub)} and {max(subs[name], nsub)} subscripts; "
                        "the shorter accesses are taken to touch every element of the "
                        "missing subscripts (a write among them as a may-write)")
                subs[name] = max(subs.get(name, 0), nsub)
        # the file's array ids, which Clay's scripts name arrays by (Clan
        # numbers every symbol: A may be 4 after i, N and j)
        numbering = {**array_names, **ids}
        if numbering:
            kept.append((ARRAY_IDS_TAG, "\n".join(f"{i} {n}"
                                                  for i, n in sorted(numbering.items()))))
        # statements
        statements, relations = [], []
        seen_betas: list[tuple[tuple[int, ...], str]] = []
        for k, raw in enumerate(self.raws):
            name = f"S{k}"
            st, rels = self.statement(name, raw, ids, subs)
            for rel, line in rels:
                for beta, other in seen_betas:
                    n = min(len(beta), len(rel.beta))
                    if beta[:n] == rel.beta[:n]:
                        how = ("is the β-vector of" if len(beta) == len(rel.beta)
                               else "is a prefix of, or extends, the β-vector of")
                        whose = "another part of it" if other == name else other
                        raise r.error(f"the β-vector {list(rel.beta)} of {name} {how} "
                                      f"{whose} ({list(beta)})", line)
                seen_betas.append((rel.beta, name))
                relations.append(rel)
            statements.append(st)
        order = {name: k for k, name in enumerate(ids[i] for i in sorted(ids))}
        arrays = [self.array(n, subs[n], records.get(n)) for n in sorted(subs, key=order.get)]
        arrays += [self.array(n, rec["ndim"], rec) for n, rec in records.items()
                   if n not in subs]
        try:
            schedule = ClaySchedule(tuple(relations), tuple(m for _, m in marks)).normalized()
        except ModelError as e:  # pragma: no cover - checked above
            raise r.error(str(e), self.open_line) from None
        for (line, m), new in zip(marks, schedule.marks):
            if not schedule.is_loop(new.loop):
                raise r.error(f"the mark {m.kind} {list(m.loop)} is on no loop", line)
        scop = Scop(params=self.params, context=context, statements=tuple(statements),
                    arrays=tuple(arrays), schedule=schedule, extensions=tuple(kept),
                    language=self.language)
        return self.layout(scop, records)

    def layout(self, scop: Scop, records: dict[str, dict]) -> Scop:
        """Check the ``<clayx_layout>`` record, and add to its new arrays
        the arrays recorded as local (dead after the SCoP in the C file the
        SCoP came from): without that file, the region is the only place
        that can declare them once a layout step reshapes them."""
        from ..model.layout import LAYOUT_TAG, layout_info, with_layout
        line = next((ln for t, _, ln in self.exts if t == LAYOUT_TAG), None)
        try:
            info = layout_info(scop)
        except ModelError as e:
            raise self.r.error(str(e), line) from None
        local = tuple(n for n, rec in records.items() if rec.get("local") and n not in info.new)
        if local:
            scop = with_layout(scop, dataclasses.replace(info, new=info.new + local))
        return scop

    def array_name(self, arr_id: int, names: dict[int, str]) -> str:
        """The name of array ``arr_id``: from ``<arrays>``, else ``A<id>``
        (``_``s appended while that name is taken)."""
        if arr_id in names:
            return names[arr_id]
        name = f"A{arr_id}" if arr_id >= 0 else f"A_{-arr_id}"
        while name in names.values() or name in self.params:
            name += "_"
        return name

    def array(self, name: str, ndim: int, rec: dict | None) -> Array:
        """The :class:`Array` ``name``, with the element type and extents of
        its ``<clayx_arrays>`` record."""
        if rec is None:
            return Array(name, ndim)
        return Array(name, ndim, rec.get("type"), tuple(rec.get("extents", ())))

    def access_id(self, name: str, kind: str, aparts: list[_Part]) -> tuple[int, int]:
        """The array id and number of subscripts of an access relation,
        whose first output dimension is fixed to the id in each part."""
        r = self.r
        rtype = _TYPE_OF[kind]
        nout = aparts[0].out
        arr_id = None
        for p in aparts:
            if p.out < 1:
                raise r.error(f"the {rtype} relation of {name} has no output "
                              "dimension: the first one must be the array id", p.line)
            if p.out != nout:
                raise r.error(f"the {rtype} parts of {name} have {nout} and {p.out} "
                              "output dimensions", p.line)
            self.check_params(p, rtype)
            m = isl.Map.from_basic_map(self.basic(p, p.in_))
            pid = _fixed_out(m, 0)
            if pid is None:
                raise r.error(f"the first output dimension of the {rtype} relation of "
                              f"{name} must be fixed to the array id (Arr = id)", p.line)
            if arr_id is not None and pid != arr_id:
                raise r.error(f"the {rtype} parts of {name} access arrays {arr_id} and "
                              f"{pid}", p.line)
            arr_id = pid
        return arr_id, nout - 1

    def statement(self, name, raw: _RawStmt, ids: dict[int, str], subs: dict[str, int]):
        r = self.r
        dline, dparts = raw.domain
        dim = dparts[0].out
        for p in dparts:
            if p.in_:
                raise r.error(f"the DOMAIN of {name} has {p.in_} input dimensions; "
                              "expected 0", p.line)
            if p.out != dim:
                raise r.error(f"the DOMAIN parts of {name} have {dim} and {p.out} "
                              "dimensions", p.line)
            self.check_params(p, "DOMAIN")
        # the text: an <extbody>'s body is the one Clay prints (osl's export)
        text = raw.extbody or raw.body
        if text is not None:
            bline, iterators, body = text
            if len(iterators) != dim:
                raise r.error(f"<body> of {name} lists {len(iterators)} iterators; its "
                              f"DOMAIN has {dim} dimensions", bline)
            for it in iterators:
                if it in self.params:
                    raise r.error(f"the iterator {it!r} of {name} is also a parameter",
                                  bline)
        else:
            iterators, body = [f"i{k}" for k in range(dim)], ""
            while any(it in self.params for it in iterators):
                iterators = ["_" + it for it in iterators]

        def name_in(obj, t):
            obj = (obj.set_tuple_name(name) if isinstance(obj, isl.Set)
                   else obj.set_tuple_name(t, name))
            for k, it in enumerate(iterators):
                obj = obj.set_dim_name(t, k, it)
            return obj

        domain = None
        for p in dparts:
            s = name_in(isl.Set.from_basic_set(self.basic(p, None)), isl.dim_type.set)
            domain = s if domain is None else domain.union(s)

        # scattering
        sline, sparts = raw.scattering
        by_beta: dict[tuple[int, ...], isl.Map] = {}
        lines: dict[tuple[int, ...], int] = {}
        for p in sparts:
            if p.in_ != dim:
                raise r.error(f"the SCATTERING of {name} has {p.in_} input dimensions; "
                              f"its DOMAIN has {dim}", p.line)
            self.check_params(p, "SCATTERING")
            if p.out % 2 != 1:
                raise r.error(
                    f"the SCATTERING of {name} has {p.out} output dimensions: not Clay's "
                    "form; clayx needs 2d+1 scattering dimensions [β0, α1, β1, …, αd, βd] "
                    "as Clan produces", p.line)
            m = name_in(isl.Map.from_basic_map(self.basic(p, dim)), isl.dim_type.in_)
            try:
                rel = Relation.from_map(m, name)
            except ModelError as e:
                raise r.error(f"the SCATTERING of {name} is not in Clay's 2d+1 form: {e}",
                              p.line) from None
            if not m.intersect_domain(domain).is_single_valued():
                raise r.error(f"the SCATTERING of {name} gives an instance several dates "
                              "(a local dimension, or an α dimension that is not a "
                              "function of the iterators)", p.line)
            if rel.beta in by_beta:
                by_beta[rel.beta] = by_beta[rel.beta].union(m)
            else:
                by_beta[rel.beta], lines[rel.beta] = m, p.line
        # rank: the union's order, printed back by --emit scop
        rels = [(Relation(name, b, m, rank=(k,)), lines[b])
                for k, (b, m) in enumerate(by_beta.items())]

        # accesses
        accesses = []
        used: set[int] = set()  # body offsets of the references already given
        for n, (kind, aline, aparts) in enumerate(raw.accesses):
            rtype = _TYPE_OF[kind]
            arr_id, nsub = self.access_id(name, kind, aparts)
            rel = None
            for p in aparts:
                if p.in_ != dim:
                    raise r.error(f"the {rtype} relation of {name} has {p.in_} input "
                                  f"dimensions; its DOMAIN has {dim}", p.line)
                m = name_in(isl.Map.from_basic_map(self.basic(p, dim)), isl.dim_type.in_)
                rel = m if rel is None else rel.union(m)
            arr = ids[arr_id]
            rel = rel.project_out(isl.dim_type.out, 0, 1)
            atext = None
            if body and nsub == subs[arr]:
                atext = _text_in_body(arr, rel, body, domain, self.params, used)
            if nsub < subs[arr]:
                # A[i] where A[i][j] is used elsewhere (a row passed to a
                # call, a pointer): every element of the row, maybe written
                rel = rel.add_dims(isl.dim_type.out, subs[arr] - nsub)
                kind = MAY_WRITE if kind == WRITE else kind
            rel = rel.set_tuple_name(isl.dim_type.out, arr)
            atext = atext or _access_text(arr, rel, self.params)
            accesses.append(Access(kind, arr, rel, atext, f"{name}_r{n}"))
        st = Statement(name, domain, tuple(iterators), body, tuple(accesses))
        return st, rels


def _access_text(arr: str, rel: isl.Map, params: tuple[str, ...]) -> str:
    """``A[i][j + 1]`` when every subscript is an affine function of the
    iterators and parameters (a single piece), else ``""``."""
    bms: list = []
    rel.foreach_basic_map(bms.append)
    if len(bms) != 1 or bms[0].dim(isl.dim_type.div):
        return ""
    bm = bms[0]
    n_in, n_out = bm.dim(isl.dim_type.in_), bm.dim(isl.dim_type.out)
    its = [bm.get_dim_name(isl.dim_type.in_, k) for k in range(n_in)]
    cons: list = []
    bm.foreach_constraint(cons.append)
    subs = []
    for d in range(n_out):
        for c in cons:
            if not c.is_equality():
                continue
            co = [_int(c.get_coefficient_val(isl.dim_type.out, k)) for k in range(n_out)]
            if abs(co[d]) != 1 or any(v for k, v in enumerate(co) if k != d):
                continue
            s = -co[d]  # out_d = s * (rest)
            coefs = [s * _int(c.get_coefficient_val(isl.dim_type.in_, k)) for k in range(n_in)]
            coefs += [s * _int(c.get_coefficient_val(isl.dim_type.param, k))
                      for k in range(len(params))]
            subs.append(_affine(coefs, its + list(params), s * _int(c.get_constant_val())))
            break
        else:
            return ""
    return arr + "".join(f"[{s}]" for s in subs)


#: a C token of a subscript: an identifier, a decimal integer, or one character
_SUB_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+\w*|\S")


def _body_references(arr: str, body: str, nsub: int) -> list[tuple[int, str, list[str]]]:
    """The references to array ``arr`` with ``nsub`` subscripts in the
    statement text ``body``: (offset, text, subscript texts), in order.  A
    reference is the name as a whole token (not a member ``s.arr`` or
    ``p->arr``, not part of a longer identifier) followed by exactly
    ``nsub`` bracketed subscripts."""
    out = []
    for m in re.finditer(r"(?<![\w.])" + re.escape(arr) + r"(?!\w)", body):
        if body[:m.start()].rstrip().endswith("->"):
            continue
        subs, pos = bracket_subscripts(body, m.end())
        if len(subs) == nsub:
            out.append((m.start(), body[m.start():pos], subs))
    return out


def _subscripts_map(subs: list[str], its: list[str], params: tuple[str, ...]) -> isl.Map | None:
    """The map ``[_p…] -> { [_i…] -> [subs] }`` of affine subscript texts
    (iterators, parameters, decimal integers, ``+ - * ( )``), names replaced
    by placeholders so no C name can clash with isl's syntax; None for any
    other text (a call, a division, a cast)."""
    names = {n: f"_i{k}" for k, n in enumerate(its)}
    names.update((n, f"_p{k}") for k, n in enumerate(params) if n not in names)
    exprs = []
    for sub in subs:
        toks = []
        for t in _SUB_TOKEN.findall(sub):
            if t in names:
                toks.append(names[t])
            elif t.isdigit() or t in "+-*()":
                toks.append(t)
            else:
                return None
        if not toks:
            return None
        exprs.append(" ".join(toks))
    ps = ", ".join(f"_p{k}" for k in range(len(params)))
    ins = ", ".join(f"_i{k}" for k in range(len(its)))
    try:
        return isl.Map(f"[{ps}] -> {{ [{ins}] -> [{', '.join(exprs)}] }}")
    except isl.Error:
        return None


def _text_in_body(arr: str, rel: isl.Map, body: str, domain: isl.Set,
                  params: tuple[str, ...], used: set[int]) -> str | None:
    """The text of the reference in ``body`` that is the access ``rel`` to
    ``arr`` (the same elements at every instance of ``domain``), matched by
    relation, not by text: Clan writes ``t[i][n - 1 - j]`` as the
    statement has it, isl prints ``t[i][-j + n - 1]``.  An unused reference
    first (``used`` holds the offsets given to earlier accesses; one
    reference can be both read and written, ``A[i] += 1``); None when no
    reference matches."""
    nsub = rel.dim(isl.dim_type.out)
    its = [domain.get_dim_name(isl.dim_type.set, k) for k in range(domain.dim(isl.dim_type.set))]

    def plain(m):  # no tuple ids, parameters _p0, _p1, …
        m = m.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out)
        for k in range(m.dim(isl.dim_type.param)):
            m = m.set_dim_name(isl.dim_type.param, k,
                               f"_p{params.index(m.get_dim_name(isl.dim_type.param, k))}")
        return m

    try:
        dom = plain(isl.Map.from_domain(domain)).domain()
        want = plain(rel).intersect_domain(dom)
    except (isl.Error, ValueError):  # a parameter the SCoP does not declare
        return None
    matches = []
    for off, text, subs in _body_references(arr, body, nsub):
        cand = _subscripts_map(subs, its, params)
        if cand is not None and cand.intersect_domain(dom).is_equal(want):
            matches.append((off, text))
    for off, text in matches:
        if off not in used:
            used.add(off)
            return text
    return matches[0][1] if matches else None


def _int(v) -> int:
    return int(v.to_python())


def _affine(coefs: list[int], names: list[str], const: int) -> str:
    """``2*i - N + 1`` from coefficients."""
    out = ""
    for c, n in list(zip(coefs, names)) + [(const, "")]:
        if not c:
            continue
        mag = abs(c)
        term = n if mag == 1 and n else (f"{mag}*{n}" if n else str(mag))
        if not out:
            out = ("-" if c < 0 else "") + term
        else:
            out += (" - " if c < 0 else " + ") + term
    return out or "0"


# --- writing -------------------------------------------------------------------

# A written part: number of local columns and the rows in OpenScop order.
_Rows = tuple[int, list[list[int]]]


def _flat_rows(bs: isl.BasicSet) -> list[list[int]]:
    """Constraints of ``bs`` as [flag, set dims…, divs…, params…, const]."""
    nset, ndiv, npar = (bs.dim(isl.dim_type.set), bs.dim(isl.dim_type.div),
                        bs.dim(isl.dim_type.param))
    cons: list = []
    bs.foreach_constraint(cons.append)
    rows = []
    for c in cons:
        row = [0 if c.is_equality() else 1]
        row += [_int(c.get_coefficient_val(isl.dim_type.set, k)) for k in range(nset)]
        row += [_int(c.get_coefficient_val(isl.dim_type.div, k)) for k in range(ndiv)]
        row += [_int(c.get_coefficient_val(isl.dim_type.param, k)) for k in range(npar)]
        row.append(_int(c.get_constant_val()))
        rows.append(row)
    return rows


def _from_flat(bs: isl.BasicSet, rows: list[list[int]]) -> isl.Set:
    """Rebuild a set in ``bs``'s space from flat rows (divs existential)."""
    ctx = bs.get_ctx()
    nset, ndiv, npar = (bs.dim(isl.dim_type.set), bs.dim(isl.dim_type.div),
                        bs.dim(isl.dim_type.param))
    space = bs.get_space().add_dims(isl.dim_type.set, ndiv)
    ls = isl.LocalSpace.from_space(space)
    obj = isl.BasicSet.universe(space)
    for row in rows:
        c = (isl.Constraint.equality_alloc(ls) if row[0] == 0
             else isl.Constraint.inequality_alloc(ls))
        for k in range(nset + ndiv):
            c = c.set_coefficient_val(isl.dim_type.set, k, _val(ctx, row[1 + k]))
        for k in range(npar):
            c = c.set_coefficient_val(isl.dim_type.param, k, _val(ctx, row[1 + nset + ndiv + k]))
        c = c.set_constant_val(_val(ctx, row[-1]))
        obj = obj.add_constraint(c)
    obj = obj.project_out(isl.dim_type.set, nset, ndiv)
    name = bs.get_tuple_name()
    if name is not None:  # add_dims dropped it
        obj = obj.set_tuple_name(name)
    return isl.Set.from_basic_set(obj)


def _div_rows(bs: isl.BasicSet) -> list[list[int]]:
    """Rows bounding each known div ``e = floor(f/d)``: f - d·e >= 0 and
    d·e - f + d - 1 >= 0."""
    nset, ndiv, npar = (bs.dim(isl.dim_type.set), bs.dim(isl.dim_type.div),
                        bs.dim(isl.dim_type.param))
    rows = []
    for k in range(ndiv):
        aff = bs.get_div(k)
        if aff.is_nan():
            continue
        d = _int(aff.get_denominator_val())

        def num(t, j):
            return _int(aff.get_coefficient_val(t, j).mul(isl.Val.int_from_si(
                aff.get_ctx(), d)))

        f = [num(isl.dim_type.in_, j) for j in range(nset)]
        f += [num(isl.dim_type.div, j) for j in range(ndiv)]
        f += [num(isl.dim_type.param, j) for j in range(npar)]
        f.append(_int(aff.get_constant_val().mul(isl.Val.int_from_si(aff.get_ctx(), d))))
        lo = [1] + f[:]
        lo[1 + nset + k] -= d
        hi = [1] + [-v for v in f]
        hi[1 + nset + k] += d
        hi[-1] += d - 1
        rows += [lo, hi]
    return rows


def _parts(obj: isl.Set | isl.Map) -> list[tuple[int, int, int, _Rows]]:
    """The basic pieces of a set or map as (n_out, n_in, n_params, (n_local, rows))
    with rows in OpenScop column order."""
    # isl may simplify an object in place (e.g. while testing equality); drop
    # redundant constraints and sort the rows so the text depends only on
    # the constraints that matter
    obj = obj.remove_redundancies()
    pieces: list = []
    if isinstance(obj, isl.Map):
        obj.foreach_basic_map(pieces.append)
    else:
        obj.foreach_basic_set(pieces.append)
    out = []
    for b in pieces:
        if isinstance(b, isl.BasicMap):
            n_in, n_out = b.dim(isl.dim_type.in_), b.dim(isl.dim_type.out)
            bs = b.wrap().flatten()  # dims: in…, out…
        else:
            n_in, n_out = 0, b.dim(isl.dim_type.set)
            bs = b
        flat = _flat_rows(bs)
        ndiv = bs.dim(isl.dim_type.div)
        if ndiv and not _from_flat(bs, flat).is_equal(isl.Set.from_basic_set(bs)):
            flat += [r for r in _div_rows(bs) if r not in flat]
            if not _from_flat(bs, flat).is_equal(isl.Set.from_basic_set(bs)):
                raise OpenScopError(f"cannot express {b} with local dimensions")
        npar = bs.dim(isl.dim_type.param)
        rows = []
        for r in flat:
            sets = r[1:1 + n_in + n_out]
            row = [r[0]] + sets[n_in:] + sets[:n_in] + r[1 + n_in + n_out:]
            lead = next((v for v in row[1:-1] if v), 0)
            if row[0] == 0 and lead > 0:  # Clan's sign: -c1 + … = 0
                row = [0] + [-v for v in row[1:]]
            rows.append(row)
        rows.sort(key=_row_key)
        out.append((n_out, n_in, npar, (ndiv, rows)))
    # isl may also reorder the parts of a union in place: sort them too
    return sorted(out, key=lambda p: (p[0], p[3][0], p[3][1]))


def _row_key(row: list[int]) -> tuple:
    """Clan's order: by the first column used, equalities first, lower
    bounds before upper bounds; then by value (a total order)."""
    lead = next((k for k, v in enumerate(row[1:-1]) if v), len(row))
    coef = row[1 + lead] if lead < len(row) - 2 else 0
    return (lead, row[0], -coef, tuple(row))


class _Writer:
    def __init__(self, scop: Scop):
        self.scop = scop
        self.params = list(scop.params)
        self.out: list[str] = []

    def emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def aligned(self, obj, what: str):
        """``obj`` with its parameters in the SCoP's order."""
        ctx = obj.get_ctx()
        space = isl.Space.params_alloc(ctx, len(self.params))
        for k, n in enumerate(self.params):
            space = space.set_dim_name(isl.dim_type.param, k, n)
        res = obj.align_params(space)
        if res.dim(isl.dim_type.param) != len(self.params):
            extra = [res.get_dim_name(isl.dim_type.param, k)
                     for k in range(len(self.params), res.dim(isl.dim_type.param))]
            raise OpenScopError(f"{what} uses parameters {extra} that are not SCoP "
                                "parameters")
        return res

    def relation(self, rtype: str, obj, out_names: list[str], in_names: list[str],
                 extra_first: int | None = None, arr_name: str | None = None) -> None:
        """Emit ``obj`` (aligned) as a relation; ``extra_first`` prepends an
        ``Arr == id`` output dimension (access relations)."""
        parts = _parts(obj)
        if not parts:  # the empty set: one infeasible row
            is_map = isinstance(obj, isl.Map)
            n_out = obj.dim(isl.dim_type.out if is_map else isl.dim_type.set)
            n_in = obj.dim(isl.dim_type.in_) if is_map else 0
            npar = len(self.params)
            parts = [(n_out, n_in, npar, (0, [[1] + [0] * (n_out + n_in + npar) + [-1]]))]
        if extra_first is not None:
            ext = []
            for n_out, n_in, np_, (nloc, rows) in parts:
                rows = [[r[0], 0] + r[1:] for r in rows]
                rows.insert(0, [0, -1] + [0] * (n_out + n_in + nloc + np_) + [extra_first])
                ext.append((n_out + 1, n_in, np_, (nloc, rows)))
            parts = ext
        self.emit_parts(rtype, parts, out_names, in_names, arr_name)

    def text(self, banner: bool = True) -> str:
        scop = self.scop
        if banner:
            self.emit("# [File generated by clayx]", "")
        self.emit("<OpenScop>", "",
                  "# =============================================== Global",
                  "# Language", scop.language, "", "# Context")
        self.relation("CONTEXT", self.aligned(scop.context, "the context"), [], [])
        if self.params:
            self.emit("# Parameters are provided", "1", "<strings>", " ".join(self.params),
                      "</strings>", "")
        else:
            self.emit("# Parameters are not provided", "0", "")
        self.emit("# Number of statements", str(len(scop.statements)), "")
        ids = array_ids(scop)
        for k, st in enumerate(scop.statements):
            self.statement(k, st, ids)
        self.emit("# =============================================== Extensions")
        self.scatnames()
        # the arrays, and the other symbols the file read had numbered
        entries = {i: n for i, n in id_record(scop).items() if n not in ids}
        entries.update((i, n) for n, i in ids.items())
        if entries:
            self.emit("<arrays>", "# Number of arrays", str(len(entries)),
                      "# Mapping array-identifiers/array-names",
                      *(f"{i} {n}" for i, n in sorted(entries.items())), "</arrays>", "")
        if scop.schedule.marks:
            self.emit(f"<{_MARKS}>", "# kind [loop β-prefix] [argument]",
                      *(f"{m.kind} [{', '.join(map(str, m.loop))}]"
                        + ("" if m.arg is None else f" {m.arg}")
                        for m in scop.schedule.marks),
                      f"</{_MARKS}>", "")
        self.array_records()
        for tag, text in scop.extensions:
            if tag not in _REBUILT:
                self.emit(f"<{tag}>", text, f"</{tag}>", "")
        self.emit("</OpenScop>", "")
        return "\n".join(self.out)

    def array_records(self) -> None:
        """``<clayx_arrays>``: what OpenScop does not carry about arrays (the
        element type, the declared extents, whether the array is local to
        the region: dead after it in the C file), for every array when one
        of them has any of it."""
        from ..model.layout import dead_arrays
        local = dead_arrays(self.scop)
        arrays = self.scop.arrays
        if not any(a.ctype or a.extents or a.name in local for a in arrays):
            return
        recs = []
        for a in arrays:
            rec = {"name": a.name, "ndim": a.ndim, "type": a.ctype, "extents": list(a.extents)}
            if a.name in local:
                rec["local"] = True
            recs.append(json.dumps(rec))
        self.emit(f"<{_ARRAYS}>", "# element type, declared extents, local to the region",
                  *recs, f"</{_ARRAYS}>", "")

    def statement(self, k: int, st: Statement, ids: dict[str, int]) -> None:
        # Clay's union order (Relation.rank), β order where it says nothing
        rels = sorted(self.scop.schedule.of(st.name), key=lambda r: r.rank)
        if not rels:
            raise OpenScopError(f"statement {st.name} has no scheduling relation")
        n = k + 1
        its = list(st.iterators)
        self.emit(f"# =============================================== Statement {n}",
                  "# Number of relations describing the statement:",
                  str(2 + len(st.accesses)), "",
                  f"# ----------------------------------------------  {n}.1 Domain")
        if st.domain.dim(isl.dim_type.set) != len(its):
            raise OpenScopError(f"the domain of {st.name} has "
                                f"{st.domain.dim(isl.dim_type.set)} dimensions and "
                                f"{len(its)} iterators")
        self.relation("DOMAIN", self.aligned(st.domain, f"the domain of {st.name}"), its, [])
        self.emit(f"# ----------------------------------------------  {n}.2 Scattering")
        sched = None
        for rel in rels:
            if rel.map.dim(isl.dim_type.in_) != len(its):
                raise OpenScopError(f"a scheduling relation of {st.name} has "
                                    f"{rel.map.dim(isl.dim_type.in_)} input dimensions; "
                                    f"the statement has {len(its)}")
            m = self.aligned(rel.map, f"the schedule of {st.name}")
            # keep one basic map per part: a union would merge parts of different β
            sched = list(_parts(m)) if sched is None else sched + list(_parts(m))
        if not sched:
            raise OpenScopError(f"the scheduling relations of {st.name} are empty; "
                                "OpenScop cannot keep their β-vectors")
        nmax = max(p[0] for p in sched)
        self.emit_parts("SCATTERING", sched, [f"c{j + 1}" for j in range(nmax)], its)
        if st.accesses:
            self.emit(f"# ----------------------------------------------  {n}.3 Access")
        for a in st.accesses:
            m = a.relation
            if m.dim(isl.dim_type.in_) != len(its):
                raise OpenScopError(f"access {a.text or a.array} of {st.name} has "
                                    f"{m.dim(isl.dim_type.in_)} input dimensions; the "
                                    f"statement has {len(its)}")
            nsub = m.dim(isl.dim_type.out)
            self.relation(_TYPE_OF[a.kind], self.aligned(m, f"access {a.array} of {st.name}"),
                          ["Arr"] + [f"[{j + 1}]" for j in range(nsub)], its,
                          extra_first=ids[a.array], arr_name=a.array)
        self.emit(f"# ----------------------------------------------  {n}.4 Statement Extensions",
                  "# Number of Statement Extensions", "1" if st.body.strip() else "0")
        if not st.body.strip():         # no text (an OpenScop read without a body)
            self.emit("")
            return
        self.emit("<body>", "# Number of original iterators", str(len(its)))
        if its:
            self.emit("# List of original iterators", " ".join(its))
        self.emit("# Statement body expression", st.body, "</body>", "")

    def emit_parts(self, rtype, parts, out_names, in_names, arr_name=None) -> None:
        """Like :meth:`relation` for ready parts (the scattering union)."""
        self.emit(rtype)
        if len(parts) > 1:
            self.emit(f"# Union with {len(parts)} parts", str(len(parts)))
        for idx, (n_out, n_in, np_, (nloc, rows)) in enumerate(parts):
            if len(parts) > 1:
                self.emit(f"# Union part No.{idx + 1}")
            self.emit(f"{len(rows)} {2 + n_out + n_in + nloc + np_} {n_out} {n_in} {nloc} {np_}")
            names = (out_names[:n_out] + in_names + [f"l{k + 1}" for k in range(nloc)]
                     + self.params)
            self.emit(*_matrix_lines(rows, names, [n_out, n_in, nloc, np_], arr_name))
        self.emit("")

    def scatnames(self) -> None:
        rels = self.scop.schedule.relations
        if not rels:
            return
        n = max(r.map.dim(isl.dim_type.out) for r in rels)
        names: list[str] = []
        for p in range(n):
            if p % 2 == 0:
                names.append(f"b{p // 2}")
                continue
            depth = (p + 1) // 2
            cand = None
            for r in rels:
                st = self.scop.statement(r.stmt)
                if r.depth >= depth and st.dim >= depth:
                    cand = st.iterators[depth - 1]
                    break
            if cand is None or cand in names or cand in self.params:
                cand = f"c{p + 1}"
            names.append(cand)
        self.emit("<scatnames>", " ".join(names), "</scatnames>", "")


def _matrix_lines(rows: list[list[int]], names: list[str], groups: list[int],
                  arr_name: str | None = None) -> list[str]:
    """Rows aligned in columns, a header comment naming the columns and a
    trailing comment with each constraint (``c2 == i``, ``-i + N - 1 >= 0``)."""
    width = max([4] + [len(str(v)) for r in rows for v in r] + [len(n) for n in names]) + 1
    head, pos = "# e/i|", 0
    for g in groups:
        if g:
            head += "".join(f"{n:>{width}}" for n in names[pos:pos + g]) + " |"
        pos += g
    lines = [head + f"{'1':>{width}}"]
    n_out = groups[0]
    for r in rows:
        coefs = r[1:-1]
        lead = next((k for k, v in enumerate(coefs) if v), None)
        if r[0] == 0 and lead is not None and lead < n_out and abs(coefs[lead]) == 1:
            s = -coefs[lead]  # out = s * (rest)
            rest = [0 if k == lead else s * v for k, v in enumerate(coefs)]
            rhs = arr_name if (arr_name and lead == 0) else _affine(rest, names, s * r[-1])
            expr = f"{names[lead]} == {rhs}"
        else:
            expr = f"{_affine(coefs, names, r[-1])} {'==' if r[0] == 0 else '>='} 0"
        nums = f"{r[0]:>4}" + "".join(f"{v:>{width}}" for v in r[1:])
        lines.append(f"{nums}    ## {expr}")
    return lines
