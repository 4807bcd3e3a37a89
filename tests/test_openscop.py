"""OpenScop reader/writer: model contents, round trips, stable text, errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import islpy as isl
import pytest

from clayx.errors import InputWarning, OpenScopError
from clayx.frontend import openscop
from clayx.frontend.openscop import (read, read_all, read_file, scop_clay_script,
                                     with_clay_script, write, write_file)
from clayx.model import ClaySchedule, Mark, Relation

DATA = Path(__file__).parent / "data" / "openscop"
FILES = sorted(p.name for p in DATA.glob("*.scop"))
ROOT = Path(__file__).parent.parent


def S(text: str) -> isl.Set:
    return isl.Set(text)


def M(text: str) -> isl.Map:
    return isl.Map(text)


def load(name: str):
    return read_file(DATA / name)


# --- reading: the model --------------------------------------------------------

def test_files_present():
    assert {"matmul.scop", "clay.scop", "union_domain.scop", "stride.scop",
            "iss.scop"} <= set(FILES)


def test_matmul_model():
    scop = load("matmul.scop")
    assert scop.params == ("N", "M", "K")
    assert scop.language == "C"
    assert scop.context == S("[N, M, K] -> { : }")
    s0, s1 = scop.statements
    assert (s0.name, s1.name) == ("S0", "S1")
    assert s0.iterators == ("i", "j") and s1.iterators == ("i", "j", "k")
    assert s0.body == "C[i][j] = 0.0;"
    assert s1.body == "C[i][j] = C[i][j] + A[i][k] * B[k][j];"
    assert s0.domain == S("[N, M, K] -> { S0[i, j] : 0 <= i < N and 0 <= j < M }")
    assert s1.domain == S("[N, M, K] -> { S1[i, j, k] : 0 <= i < N and 0 <= j < M "
                          "and 0 <= k < K }")
    assert [(a.kind, a.array) for a in s1.accesses] == [
        ("write", "C"), ("read", "C"), ("read", "A"), ("read", "B")]
    assert s1.accesses[3].relation == M("[N, M, K] -> { S1[i, j, k] -> B[k, j] }")
    assert s1.accesses[2].text == "A[i][k]"
    assert [a.ref for a in s1.accesses] == ["S1_r0", "S1_r1", "S1_r2", "S1_r3"]
    # arrays in id order (C=5, A=8, B=9); iterators/params of <arrays> ignored
    assert [(a.name, a.ndim) for a in scop.arrays] == [("C", 2), ("A", 2), ("B", 2)]
    assert scop.schedule.betas == [(0, 0, 0), (0, 0, 1, 0)]
    assert scop.schedule.relation((0, 0, 1, 0)).map == M(
        "[N, M, K] -> { S1[i, j, k] -> [0, i, 0, j, 1, k, 0] }")
    # scatnames/arrays are rebuilt, coordinates kept verbatim
    assert [t for t, _ in scop.extensions] == ["coordinates", "arrays"]  # arrays: the ids
    assert scop.extensions[0][1].splitlines()[1] == "matmul.c"


def test_clay_extension_and_context():
    scop = load("clay.scop")
    assert scop.context == S("[N] -> { : N >= 1 }")
    assert scop_clay_script(scop) == "reorder([0], [1,0]);"
    assert [t for t, _ in scop.extensions] == ["clay", "loop", "arrays"]
    assert scop.schedule.betas == [(0, 0), (0, 1)]
    assert [a.name for a in scop.arrays] == ["a", "b", "c"]
    other = with_clay_script(scop, "interchange([0,0], 1, 2, 0);")
    assert scop_clay_script(other) == "interchange([0,0], 1, 2, 0);"
    assert [t for t, _ in other.extensions] == ["clay", "loop", "arrays"]
    assert scop_clay_script(read(write(other))) == "interchange([0,0], 1, 2, 0);"
    assert scop_clay_script(with_clay_script(scop, None)) is None
    assert scop_clay_script(load("matmul.scop")) is None


def test_union_domain_scalar_unknown_extension():
    with pytest.warns(InputWarning, match=r"union_domain.scop:87: unknown extension <foo> "
                                          r"dropped \(osl drops it too\)"):
        scop = load("union_domain.scop")
    assert scop.params == ("P0",)  # names not provided
    s0, s1 = scop.statements
    assert s0.domain == S("[P0] -> { S0[i] : 0 <= i < P0 and (i <= 2 or i >= 7) }")
    assert s0.accesses[1].relation == M("[P0] -> { S0[i] -> s[] }")
    assert s0.accesses[1].text == "s"
    assert s1.iterators == () and s1.body == "s = 2 * s;"
    assert s1.domain == S("[P0] -> { S1[] }")
    assert [(a.name, a.ndim, a.is_scalar) for a in scop.arrays] == [
        ("x", 1, False), ("s", 0, True)]
    assert scop.schedule.betas == [(0, 0), (1,)]
    # osl drops an extension it does not know (Clay reference 2.1)
    assert scop.extensions == (("arrays", "1 x\n2 s"),)      # the file's array ids
    assert "<foo>" not in write(scop)


def test_local_dimensions():
    scop = load("stride.scop")
    (st,) = scop.statements
    assert st.domain == S("[N] -> { S0[i] : exists e : i = 2e and 0 <= i < N }")
    assert st.domain != S("[N] -> { S0[i] : 0 <= i < N }")
    (rel,) = scop.schedule.relations
    assert rel.beta == (0, 0, 0)
    assert rel.map == M("[N] -> { S0[i] -> [0, t, 0, i, 0] : "
                        "exists e : t = 4e and t <= i <= t + 3 }")
    assert [a.kind for a in st.accesses] == ["may_write", "read"]
    text = write(scop)
    assert "DOMAIN\n3 5 1 0 1 1\n" in text  # the local column is written back


def test_index_set_split_no_body_no_arrays():
    scop = load("iss.scop")
    (st,) = scop.statements
    assert st.iterators == ("i0",) and st.body == ""
    rels = scop.schedule.of("S0")
    assert [r.beta for r in rels] == [(0, 0), (1, 0)]
    assert rels[0].map == M("[N] -> { S0[i0] -> [0, i0, 0] : i0 <= 4 }")
    assert rels[1].map == M("[N] -> { S0[i0] -> [1, i0, 0] : i0 >= 5 }")
    assert [a.array for a in st.accesses] == ["A1", "A1"]
    assert st.accesses[1].relation == M("[N] -> { S0[i0] -> A1[i0 + 1] }")
    assert st.accesses[1].text == "A1[i0 + 1]"
    assert "# Union with 2 parts" in write(scop)


def test_union_parts_with_same_beta_merge():
    text = (DATA / "iss.scop").read_text().replace(
        "   0   -1    0    0    0    0    1    ## c1 == 1",
        "   0   -1    0    0    0    0    0    ## c1 == 0")
    scop = read(text)
    (rel,) = scop.schedule.relations
    assert rel.beta == (0, 0)
    assert rel.map == M("[N] -> { S0[i0] -> [0, i0, 0] : i0 <= 4 or i0 >= 5 }")
    assert read(write(scop)) == scop


# --- round trips ---------------------------------------------------------------

@pytest.mark.parametrize("name", FILES)
def test_read_write_read(name):
    scop = load(name)
    again = read(write(scop))
    assert again == scop
    for a, b in zip(scop.statements, again.statements):
        assert a.domain == b.domain and a.iterators == b.iterators and a.body == b.body
        assert [(x.kind, x.array) for x in a.accesses] == [(x.kind, x.array) for x in b.accesses]
        assert all(x.relation == y.relation for x, y in zip(a.accesses, b.accesses))
    assert [(r.beta, r.stmt) for r in again.schedule] == [(r.beta, r.stmt) for r in scop.schedule]
    assert again.extensions == scop.extensions


@pytest.mark.parametrize("name", FILES)
def test_write_is_stable(name):
    scop = load(name)
    text = write(scop)
    again = read(text)
    assert again == scop  # isl may simplify objects in place while comparing
    assert write(again) == text
    assert write(read(write(again))) == text


def test_write_file_and_read_all(tmp_path):
    scop = load("matmul.scop")
    out = tmp_path / "m.scop"
    write_file(scop, out)
    assert read_file(out) == scop
    two = read_all(write(scop) + write(load("iss.scop")))
    assert [len(s.statements) for s in two] == [2, 1]
    with pytest.raises(OpenScopError, match="2 SCoPs"):
        read(write(scop) + write(scop))


def test_transformed_schedule_round_trip():
    """A schedule clayx builds (implicit α with a stride, shifted β) goes through."""
    scop = load("matmul.scop")
    s0 = scop.statements[0]
    tiled = Relation.from_map(M(
        "[N, M, K] -> { S0[i, j] -> [0, t, 0, i, 0, j, 0] : "
        "exists e : t = 32e and t <= i <= t + 31 }"), "S0")
    split = Relation.build(scop.statements[1].domain, (1, 0, 0, 0), ["j", "i", "k"],
                           "k >= 2")
    rest = Relation.build(scop.statements[1].domain, (1, 0, 0, 1), ["j", "i", "k"],
                          "k <= 1")
    new = dataclasses.replace(scop, schedule=ClaySchedule((tiled, split, rest)))
    again = read(write(new))
    assert again == new
    assert again.schedule.relation((0, 0, 0, 0)).map == tiled.map
    assert [r.beta for r in again.schedule.of("S1")] == [(1, 0, 0, 0), (1, 0, 0, 1)]
    assert write(again) == write(new)
    assert "<scatnames>\nb0 i b1 j b2 k b3\n</scatnames>" in write(new)
    assert s0.domain == again.statements[0].domain


def test_marks_round_trip():
    scop = load("matmul.scop")
    marks = (Mark("parallel", (0,)), Mark("vectorize", (0, 0)), Mark("unroll", (0, 0, 1), 4))
    new = dataclasses.replace(scop, schedule=ClaySchedule(scop.schedule.relations, marks))
    text = write(new)
    assert "<clayx_marks>" in text and "unroll [0, 0, 1] 4" in text
    again = read(text)
    assert again.schedule.marks == marks and again == new
    assert "clayx_marks" not in [t for t, _ in again.extensions]
    assert "<clayx_marks>" not in write(scop)
    bad = text.replace("parallel [0]", "parallel 0")
    with pytest.raises(OpenScopError, match="expected 'parallel \\[loop\\]'") as info:
        read(bad)
    assert info.value.line == line_of(bad, "parallel 0")


def test_empty_domain_and_context():
    scop = load("iss.scop")
    st = scop.statements[0]
    empty = dataclasses.replace(st, domain=S("[N] -> { S0[i0] : 1 = 0 }"))
    new = dataclasses.replace(scop, statements=(empty,),
                              context=S("[N] -> { : N >= 3 and N <= 2 }"))
    again = read(write(new))
    assert again == new
    assert again.statements[0].domain.is_empty() and again.context.is_empty()


def test_div_rows_restore_hidden_div_constraints():
    """The writer can re-add a known div's defining bounds (isl may keep a
    div whose bounds are not listed among the constraints)."""
    s = S("[N] -> { S[i] : i < N and 3*floor(i/5) >= 6 - i }")
    bss: list = []
    s.foreach_basic_set(bss.append)
    (bs,) = bss
    divs = openscop._div_rows(bs)
    assert len(divs) == 2
    rows = [r for r in openscop._flat_rows(bs) if r not in divs]
    assert not openscop._from_flat(bs, rows).is_equal(s)
    assert openscop._from_flat(bs, rows + divs).is_equal(s)


def test_big_coefficients():
    big = 2**63 - 1
    text = (DATA / "iss.scop").read_text().replace(
        "   1    0    0    0   -1    0    4    ## -i+4 >= 0",
        f"   1    0    0    0   -1    0    {big}")
    text = text.replace("   1    0    0    0    1    0   -5    ## i-5 >= 0",
                        f"   1    0    0    0    1    0   {-big}")
    scop = read(text)
    assert scop.schedule.relations[0].map == M(
        f"[N] -> {{ S0[i0] -> [0, i0, 0] : i0 <= {big} }}")
    assert read(write(scop)) == scop
    # beyond 64 bits (as C constants and directive arguments): refused, with the line
    for v in (2**63, -2**63 - 1, 10**100):
        bad = text.replace(str(big), str(v), 1)
        with pytest.raises(OpenScopError, match="beyond 64 bits") as info:
            read(bad)
        assert info.value.line == line_of(bad, f"   1    0    0    0   -1    0    {v}")


# --- C front end -> OpenScop -> model ------------------------------------------

def test_c_to_openscop_round_trip():
    c = pytest.importorskip("clayx.frontend.c",
                            reason="the C front end (clayx.frontend.c) is not there yet")
    if not hasattr(c, "parse_file"):
        pytest.skip("clayx.frontend.c has no parse_file yet")
    (scop,) = c.parse_file(ROOT / "examples" / "gemm.c")
    again = read(write(scop))
    assert again.params == scop.params and again.context == scop.context
    assert again.schedule == scop.schedule
    assert [(a.name, a.ndim) for a in again.arrays] == [
        (a.name, a.ndim) for a in scop.arrays if any(
            x.array == a.name for st in scop.statements for x in st.accesses)]
    for a, b in zip(scop.statements, again.statements):
        assert (a.name, a.iterators, a.body) == (b.name, b.iterators, b.body)
        assert a.domain == b.domain
        assert [(x.kind, x.array, x.ref) for x in a.accesses] == [
            (x.kind, x.array, x.ref) for x in b.accesses]
        assert all(x.relation == y.relation for x, y in zip(a.accesses, b.accesses))
    assert write(again) == write(scop)


# --- malformed input ------------------------------------------------------------

MATMUL = (DATA / "matmul.scop").read_text()


def edit(old: str, new: str | None, text: str = MATMUL, nth: int = 1) -> tuple[str, int]:
    """Replace the ``nth`` line equal to ``old`` (None: delete it); return the
    text and the 1-based number of that line."""
    lines = text.split("\n")
    hits = [k for k, ln in enumerate(lines) if ln == old]
    k = hits[nth - 1]
    if new is None:
        del lines[k]
    else:
        lines[k] = new
    return "\n".join(lines), k + 1


def line_of(text: str, content: str, nth: int = 1) -> int:
    return [k for k, ln in enumerate(text.split("\n"), 1) if ln == content][nth - 1]


TINY = """<OpenScop>
C
CONTEXT
0 3 0 0 0 1
1
<strings>
N
</strings>
1
4
DOMAIN
2 4 1 0 0 1
1 1 0 0
1 -1 1 -1
SCATTERING
{scat}
WRITE
{acc}
READ
2 6 2 1 0 1
0 -1 0 0 0 1
0 0 -1 1 0 -1
1
<body>
1
i
a[i] = a[i-1];
</body>
</OpenScop>
"""
GOOD_SCAT = "3 7 3 1 0 1\n0 -1 0 0 0 0 0\n0 0 -1 0 1 0 0\n0 0 0 -1 0 0 0"
GOOD_ACC = "2 6 2 1 0 1\n0 -1 0 0 0 1\n0 0 -1 1 0 0"


def tiny(scat: str = GOOD_SCAT, acc: str = GOOD_ACC) -> str:
    return TINY.format(scat=scat, acc=acc)


def _must_fail_cases():
    cases = []
    row = "   1    1    0    0    0    0    0    ## i >= 0"
    t, ln = edit(row, "   1    1    0    0    0    0    ## i >= 0")
    cases.append(("row length", t, ln, "has 6 numbers, expected 7"))
    t, ln = edit("4 7 2 0 0 3", "4 7 2 x 0 3")
    cases.append(("bad number", t, ln, "bad number 'x'"))
    t, ln = edit("WRITE", "WRITTEN")
    cases.append(("unknown type", t, ln, "unknown relation type 'WRITTEN'"))
    t, ln = edit("4 7 2 0 0 3", "4 8 2 0 0 3")
    cases.append(("inconsistent header", t, ln, "inconsistent DOMAIN header"))
    t, ln = edit(row, "   2    1    0    0    0    0    0")
    cases.append(("bad row flag", t, ln, "0 (equality) or 1 (inequality)"))
    # drop statement 1's scattering (8 lines) and say so in its relation count
    lines = MATMUL.split("\n")
    k = lines.index("SCATTERING")
    t = "\n".join(lines[:k] + lines[k + 8:])
    t, ln = edit("3", "2", t)
    cases.append(("missing scattering", t, ln, "statement 1 has no SCATTERING"))
    t, ln = edit("5 12 5 2 0 3", "5 12 5 1 1 3")
    cases.append(("scattering input dims", t, ln, "has 1 input dimensions; its DOMAIN has 2"))
    t, ln = edit("N M K", "N M")
    cases.append(("parameter names", t, ln - 1, "2 parameter names for 3 parameters"))
    t, ln = edit("</coordinates>", None)
    cases.append(("unterminated extension", t, line_of(t, "<coordinates>"),
                  "<coordinates> is not closed"))
    t, ln = edit("i j", "i")
    cases.append(("body iterators", t, ln, "lists 1 iterators, expected 2"))
    t, _ = edit("   0    0    0    0    0   -1    0    0    0    0    0    0    0    0    1"
                  "    ## c5 == 1",
                  "   0    0    0    0    0   -1    0    0    0    0    0    0    0    0    0")
    cases.append(("beta prefix", t, line_of(t, "7 15 7 3 0 3"),
                  "β-vector [0, 0, 0, 0] of S1 is a prefix of, or extends"))
    cut = MATMUL.split("\n")[:40]
    cases.append(("end of file", "\n".join(cut), 40, "unexpected end of file"))
    t, ln = edit("CONTEXT", "CONTEXTE")
    cases.append(("no context", t, ln, "expected CONTEXT"))
    t, ln = edit("9", "8")
    cases.append(("arrays count", t, ln, "announces 8 arrays and lists 9"))
    # Clay's form
    even = "4 8 4 1 0 1\n0 -1 0 0 0 0 0 0\n0 0 -1 0 0 1 0 0\n0 0 0 -1 0 0 0 0\n0 0 0 0 -1 0 0 0"
    t = tiny(scat=even)
    cases.append(("even scattering", t, line_of(t, "4 8 4 1 0 1"), "4 output dimensions"))
    t = tiny(scat="3 7 3 1 0 1\n0 -1 0 0 1 0 0\n0 0 -1 0 1 0 0\n0 0 0 -1 0 0 0")
    cases.append(("beta not constant", t, line_of(t, "3 7 3 1 0 1"),
                  "β dimension 0 of a relation of S0 is not a constant"))
    t = tiny(acc="2 6 2 1 0 1\n1 -1 0 0 0 1\n0 0 -1 1 0 0")
    cases.append(("array id not fixed", t, line_of(t, "2 6 2 1 0 1"),
                  "must be fixed to the array id"))
    t = tiny().replace("DOMAIN\n2 4 1 0 0 1", "DOMAIN\n2 4 1 0 0 1\n")
    t = t.replace("DOMAIN\n2 4 1 0 0 1\n", "DOMAIN\n2 5 1 1 0 1\n").replace(
        "1 1 0 0\n1 -1 1 -1", "1 1 0 0 0\n1 -1 0 1 -1")
    cases.append(("domain with inputs", t, line_of(t, "2 5 1 1 0 1"),
                  "DOMAIN of S0 has 1 input dimensions"))
    return cases


MUST_FAIL = _must_fail_cases()


@pytest.mark.parametrize("label,text,line,message", MUST_FAIL,
                         ids=[c[0] for c in MUST_FAIL])
def test_must_fail(label, text, line, message):
    with pytest.raises(OpenScopError) as info:
        read(text, path="bad.scop")
    err = info.value
    assert message in err.message, err.message
    assert err.line == line, (err.line, str(err))
    assert str(err).startswith(f"bad.scop:{line}: ")


def test_tiny_is_valid():
    scop = read(tiny())
    assert scop.statements[0].accesses[1].relation == M("[N] -> { S0[i] -> A1[i - 1] }")


def test_read_file_binary(tmp_path):
    p = tmp_path / "x.scop"
    p.write_bytes(b"\xff\xfe\x00<OpenScop>")
    with pytest.raises(OpenScopError, match="not UTF-8 text: byte 0xff .*utf-16") as info:
        read_file(p)
    assert str(info.value).startswith(f"{p}:1: column 1: ")
