"""Clay's forms of iss, peel, unroll and the queries, and Clay's message
catalogue with the check order that decides which message wins (issue 12,
part B).

Every expected relation below is written from the Clay reference's text
(``CLAY-REFERENCE.md``, cited by section), on its running example
(``tests/data/clay/running.c``: P, Q at ``[0,0,0]``, ``[0,0,1]``, R at
``[0,1]``, T at ``[1]``; statements S0..S3), not from clayx's output.  A
relation is compared on its statement's domain, in isl's notation of the
reference's rows (``c2 == i`` is the output ``i`` at position 2).  Where
clayx deliberately differs (docs/clay-differences.md), the test says so.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx.directives.layout import array_ids
from clayx.errors import ClayxError, DirectiveError, DirectiveWarning, LegalityError, OpenScopError
from clayx.frontend.c import parse_file, parse_string
from clayx.frontend.openscop import read
from clayx.verify import SMALL_SIZES, verify

from test_clay_inputs import EXAMPLES, RUNNING_C, call

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not available")

P, Q, R, T = "S0", "S1", "S2", "S3"


def session(script: str, path=RUNNING_C) -> clayx.Session:
    s = clayx.load(path)
    s.apply(script)
    return s


def parts(scop) -> dict[str, list[tuple[int, ...]]]:
    """Statement -> the β-vectors of its relations, in order."""
    out: dict[str, list] = {}
    for r in scop.schedule:
        out.setdefault(r.stmt, []).append(r.beta)
    return out


def relation(scop, beta) -> isl.Map:
    """The relation at ``beta`` on its statement's domain and the context."""
    r = scop.schedule.relation(tuple(beta))
    return r.map.intersect_domain(scop.statement(r.stmt).domain).intersect_params(scop.context)


def assert_relation(scop, beta, text: str) -> None:
    """The relation at ``beta`` is the reference's ``text`` (isl notation),
    on the statement's domain."""
    r = scop.schedule.relation(tuple(beta))
    want = isl.Map(text).intersect_domain(scop.statement(r.stmt).domain) \
        .intersect_params(scop.context)
    got = relation(scop, beta)
    assert got.is_equal(want), f"{list(beta)}: {got} != {want}"


def assert_exact_cover(scop) -> None:
    """Every instance of every statement is scheduled by exactly one of its
    relations (what clayx guarantees whatever Clay does)."""
    for st in scop.statements:
        doms = [relation(scop, r.beta).domain() for r in scop.schedule.of(st.name)]
        union = doms[0]
        for k, d in enumerate(doms[1:], 1):
            for e in doms[:k]:
                assert d.intersect(e).is_empty(), st.name
            union = union.union(d)
        assert union.is_equal(st.domain.intersect_params(scop.context)), st.name


# --------------------------------------------------------------------------- 5.10 iss

def test_iss_reference_example():
    """5.10: ``iss([0],{1||-3})``: the part with ``i >= 3`` moves
    (β_1 += max + 1), the complement ``i <= 2`` keeps the β; both in loop [0]."""
    s = session("iss([0],{1||-3});").current
    assert parts(s) == {P: [(0, 0, 0), (0, 2, 0)], Q: [(0, 0, 1), (0, 2, 1)],
                        R: [(0, 1), (0, 3)], T: [(1,)]}
    assert_relation(s, (0, 2, 0), "[N] -> { S0[i, j] -> [0, i, 2, j, 0] : i >= 3 }")
    assert_relation(s, (0, 0, 0), "[N] -> { S0[i, j] -> [0, i, 0, j, 0] : i <= 2 }")
    assert_relation(s, (0, 2, 1), "[N] -> { S1[i, j] -> [0, i, 2, j, 1] : i >= 3 }")
    assert_relation(s, (0, 0, 1), "[N] -> { S1[i, j] -> [0, i, 0, j, 1] : i <= 2 }")
    assert_relation(s, (0, 3), "[N] -> { S2[i] -> [0, i, 3] : i >= 3 }")
    assert_relation(s, (0, 1), "[N] -> { S2[i] -> [0, i, 1] : i <= 2 }")
    assert_exact_cover(s)


@pytest.mark.parametrize("script, moved", [
    # 1 part {c}: the constant alone; -1 >= 0 never holds, the moved half is empty
    ("iss([0],{-1});", "[N] -> { S2[i] -> [0, i, 3] : 1 = 0 }"),
    # 2 parts {P | c}: N - 4 >= 0, a condition on the parameter only
    ("iss([0],{1|-4});", "[N] -> { S2[i] -> [0, i, 3] : N >= 4 }"),
    # 3 parts {I | P | c}: the original iterators first; an empty middle part
    ("iss([0],{1 | | -6});", "[N] -> { S2[i] -> [0, i, 3] : i >= 6 }"),
    ("iss([0],{-1|1|-2});", "[N] -> { S2[i] -> [0, i, 3] : i <= N - 2 }"),
    # integer booleans: true is 1
    ("iss([0],{true||-3});", "[N] -> { S2[i] -> [0, i, 3] : i >= 3 }"),
    # 4 parts {A | I | P | c}: α coefficients only (α1 = c2 = i here)
    ("iss([0],{1|||-3});", "[N] -> { S2[i] -> [0, i, 3] : i >= 3 }"),
    ("iss([0],{1|-1||0});", "[N] -> { S2[i] -> [0, i, 3] }"),       # α1 - i >= 0: always
])
def test_iss_list_forms_fill_their_columns(script, moved):
    """5.10: the number of parts says which columns each part fills;
    missing trailing coefficients are 0; empty parts are never removed."""
    s = session(script).current
    assert parts(s)[R] == [(0, 1), (0, 3)]
    assert_relation(s, (0, 3), moved)
    assert_exact_cover(s)


@pytest.mark.parametrize("script", ["iss([0],{-1||-1});", "peel([0,0],{2});"])
def test_empty_halves_survive_emit_scop(tmp_path, script):
    """Empty parts are kept (5.10) through ``--emit scop`` and read back
    (except a part whose inequality is false for any value, ``{-1}``: not
    written, docs/clay-differences.md)."""
    f = tmp_path / "s.clay"
    f.write_text(script + "\n")
    rc, out, err = call(RUNNING_C, "--script", f, "--emit", "scop")
    assert rc == 0, err
    assert parts(read(out)) == parts(session(script).current)


def union_betas(scop_text: str, n: int) -> list[list[int]]:
    """The β-vectors of statement ``n``'s SCATTERING union parts, in the
    order they are written (from the ``## cK == V`` row comments)."""
    block = scop_text.split(f"Statement {n}\n", 1)[1].split("SCATTERING", 1)[1]
    block = block.split("# ------", 1)[0]
    out = []
    for part in re.split(r"# Union part No\.\d+", block)[1:] or [block]:
        fixed = dict(re.findall(r"## c(\d+) == (-?\d+)$", part, re.M))
        out.append([int(fixed[k]) for k in sorted(fixed, key=int) if int(k) % 2 == 1])
    return out


@pytest.mark.parametrize("script, stmt, betas", [
    # 4.6, 5.10: the satisfying part (moved) first, then its complement
    ("iss([0],{1||-3});", 1, [[0, 2, 0], [0, 0, 0]]),
    ("iss([0],{1||-3});", 3, [[0, 3], [0, 1]]),
    # each part is replaced by its two halves, in place: [0,7] [0,3] [0,5]
    # [0,1] in Clay; [0,3] (i >= 3 and i < 1) has no row isl keeps: not written
    ("iss([0],{1||-3}); iss([0],{1||-1});", 3, [[0, 7], [0, 5], [0, 1]]),
    ("iss([0],{1||-3}); iss([0],{-1||4});", 3, [[0, 7], [0, 3], [0, 5]]),
    # peel: the satisfying part is the new second loop
    ("peel([0],{-1});", 3, [[1, 1], [0, 1]]),
    # collapse keeps the complement's part, where it was
    ("iss([0],{1||-3}); collapse([0]);", 1, [[0, 0, 0]]),
])
def test_emit_scop_writes_clay_union_order(tmp_path, script, stmt, betas):
    """4.6: in a statement's scattering union the part that satisfies the
    inequality comes first; ``--emit scop`` writes Clay's order, and reads
    it back (the order survives a round trip)."""
    f = tmp_path / "s.clay"
    f.write_text(script + "\n")
    rc, out, err = call(RUNNING_C, "--script", f, "--emit", "scop")
    assert rc == 0, err
    assert union_betas(out, stmt) == betas
    back = tmp_path / "back.scop"
    back.write_text(out)
    rc, again, err = call(back, "--emit", "scop")
    assert rc == 0, err
    # read back, β-vectors may be renumbered (normalized): the order stays
    rank = lambda bs: sorted(range(len(bs)), key=lambda k: bs[k])   # noqa: E731
    assert rank(union_betas(again, stmt)) == rank(betas)


def test_iss_on_an_inner_loop_with_alpha_and_iterator_forms():
    """5.10: ``{0,1 | | -3}`` (iterators: j) and ``{0,1 | | | -3}`` (α: c4 = j)
    split the j-loop the same way; R, outside it, is untouched."""
    for script in ("iss([0,0],{0,1||-3});", "iss([0,0],{0,1|||-3});"):
        s = session(script).current
        assert parts(s) == {P: [(0, 0, 0), (0, 0, 2)], Q: [(0, 0, 1), (0, 0, 3)],
                            R: [(0, 1)], T: [(1,)]}
        assert_relation(s, (0, 0, 2), "[N] -> { S0[i, j] -> [0, i, 0, j, 2] : j >= 3 }")
        assert_relation(s, (0, 0, 1), "[N] -> { S1[i, j] -> [0, i, 0, j, 1] : j <= 2 }")


def test_iss_after_a_skew_reads_alpha_not_the_iterator():
    """5.10: the 4-part form's first array is α (here c4 = j - i after the
    skew of 5.6), the 3-part form's the original iterators."""
    s = session("skew([0,0],2,1,1); iss([0,0],{0,1|||-3});").current
    assert_relation(s, (0, 0, 2), "[N] -> { S0[i, j] -> [0, i, 0, j - i, 2] : j - i >= 3 }")
    s = session("skew([0,0],2,1,1); iss([0,0],{0,1||-3});").current
    assert_relation(s, (0, 0, 2), "[N] -> { S0[i, j] -> [0, i, 0, j - i, 2] : j >= 3 }")


def test_a_list_variable_works_as_a_literal():
    s = session("l = {1||-3}; iss([0], l);").current
    assert parts(s)[R] == [(0, 1), (0, 3)]


# --------------------------------------------------------------------------- 5.11 peel

def test_peel_front():
    """5.11: ``peel([0],{-1})``: loop [0] keeps i <= 0, the new loop [1]
    gets i >= 1, T moves to [2]."""
    s = session("peel([0],{-1});").current
    assert parts(s) == {P: [(0, 0, 0), (1, 0, 0)], Q: [(0, 0, 1), (1, 0, 1)],
                        R: [(0, 1), (1, 1)], T: [(2,)]}
    assert_relation(s, (0, 0, 0), "[N] -> { S0[i, j] -> [0, i, 0, j, 0] : i <= 0 }")
    assert_relation(s, (1, 0, 0), "[N] -> { S0[i, j] -> [1, i, 0, j, 0] : i >= 1 }")
    assert_relation(s, (1, 1), "[N] -> { S2[i] -> [1, i, 1] : i >= 1 }")
    assert_exact_cover(s)


def test_peel_last_iteration_with_a_parameter():
    """5.11: ``peel([0],{-1|1})`` (``i - N + 1 >= 0``): loop [1] has i >= N - 1."""
    s = session("peel([0],{-1|1});").current
    assert_relation(s, (1, 0, 0), "[N] -> { S0[i, j] -> [1, i, 0, j, 0] : i >= N - 1 }")
    assert_relation(s, (0, 1), "[N] -> { S2[i] -> [0, i, 1] : i <= N - 2 }")


def test_peel_inner_loop():
    """5.11: ``peel([0,0],{2})``: the j-loop inside the i-loop is split
    (j + 2 >= 0 always: the first loop is empty, and kept)."""
    s = session("peel([0,0],{2});").current
    assert parts(s) == {P: [(0, 0, 0), (0, 1, 0)], Q: [(0, 0, 1), (0, 1, 1)],
                        R: [(0, 2)], T: [(1,)]}
    assert relation(s, (0, 0, 0)).is_empty()
    assert_relation(s, (0, 1, 0), "[N] -> { S0[i, j] -> [0, i, 1, j, 0] }")


# --------------------------------------------------------------------------- 5.1 split

@pytest.mark.parametrize("name", ["split", "fission", "distribute"])
def test_split_and_its_aliases(name):
    """3.2, 5.1: ``fission`` and ``distribute`` are ``split``;
    ``split([0,0,0],1)`` gives P ``[0,0,0]``, Q ``[1,0,0]``, R ``[1,1]``, T ``[2]``."""
    s = session(f"{name}([0,0,0],1);").current
    assert parts(s) == {P: [(0, 0, 0)], Q: [(1, 0, 0)], R: [(1, 1)], T: [(2,)]}
    s = session(f"{name}([0,0,0],2);").current
    assert parts(s) == {P: [(0, 0, 0)], Q: [(0, 1, 0)], R: [(0, 2)], T: [(1,)]}


# --------------------------------------------------------------------------- 5.15 tile

DEEP_C = RUNNING_C.parent / "deep.c"


@pytest.mark.parametrize("script, beta, text", [
    # d - o = 0: a stripmine
    ("tile([0,0],2,2,32);", (0, 0, 0, 0),
     "[N] -> { S0[i, j] -> [0, i, 0, t, 0, j, 0] : 32t <= j <= 32t + 31 }"),
    # d - o = 1, the reference's example: (c2, c4, c6) = (T_j, i, j)
    ("tile([0,0],2,1,32);", (0, 0, 0, 0),
     "[N] -> { S0[i, j] -> [0, t, 0, i, 0, j, 0] : 32t <= j <= 32t + 31 }"),
])
def test_tile_reference_example(script, beta, text):
    """5.15: stripmine, then the tile loop swapped with the loop at ``o``;
    ``tile([0,0],2,1,32)`` on P gives ``(T_j, i, j)``."""
    s = session(script).current
    assert_relation(s, beta, text)
    assert parts(s)[Q] == [beta[:-1] + (1,)]      # Q follows P in the point loop


@pytest.mark.parametrize("script, beta, text", [
    # d - o = 2: (a, b, c) at d = 3, o = 1 is (T_c, b, a, c), not (T_c, a, b, c)
    ("tile([0,0,0],3,1,4);", (0, 0, 0, 0, 0),
     "[N] -> { S0[a, b, c] -> [0, t, 0, b, 0, a, 0, c, 0] : 4t <= c <= 4t + 3 }"),
    # d - o = 2 one level down: (a, b, c, e) at d = 4, o = 2 is (a, T_e, c, b, e)
    ("tile([1,0,0,0],4,2,4);", (1, 0, 0, 0, 0, 0),
     "[N] -> { S1[a, b, c, e] -> [1, a, 0, t, 0, c, 0, b, 0, e, 0] : 4t <= e <= 4t + 3 }"),
    # d - o = 3: (a, b, c, e) at d = 4, o = 1 is (T_e, b, c, a, e)
    ("tile([1,0,0,0],4,1,4);", (1, 0, 0, 0, 0, 0),
     "[N] -> { S1[a, b, c, e] -> [1, t, 0, b, 0, c, 0, a, 0, e, 0] : 4t <= e <= 4t + 3 }"),
    # d - o = 1 inside a deeper nest: the swap is the rotation
    ("tile([1,0,0,0],4,3,4);", (1, 0, 0, 0, 0, 0),
     "[N] -> { S1[a, b, c, e] -> [1, a, 0, b, 0, t, 0, c, 0, e, 0] : 4t <= e <= 4t + 3 }"),
])
def test_tile_swaps_the_outer_loop_down(script, beta, text):
    """5.15: the interchange is a swap: the loop at ``o`` goes to ``d``,
    the loops between stay in place."""
    s = session(script, DEEP_C).current
    assert_relation(s, beta, text)


def test_tile_is_stripmine_then_interchange():
    """5.15: ``tile(β, d, o, s)`` = ``stripmine(β, d, s); interchange(β′, d, o)``
    with ``β′ = β[0..d−1] ++ [0] ++ β[d..]``; a rotation is stripmine and
    adjacent interchanges."""
    def maps(script):
        return [r.map for r in session(script, DEEP_C).current.schedule]
    tiled = maps("tile([1,0,0,0],4,1,4);")
    assert all(a.is_equal(b) for a, b in zip(
        tiled, maps("stripmine([1,0,0,0],4,4); interchange([1,0,0,0,0],4,1);")))
    rotated = maps("stripmine([1,0,0,0],4,4); interchange([1,0,0,0,0],3,4);"
                   " interchange([1,0,0,0,0],2,3); interchange([1,0,0,0,0],1,2);")
    assert not tiled[1].is_equal(rotated[1])
    assert rotated[1].is_equal(isl.Map(
        "[N] -> { S1[a, b, c, e] -> [1, t, 0, a, 0, b, 0, c, 0, e, 0] : 4t <= e <= 4t + 3 }"))


#: a dependence of distance (1, -1, 0) on (a, b, c): moving the tile loop of
#: c out keeps it (rotation), swapping a and b breaks it.
SWAP_ILLEGAL = """#define N 9
double A[N][N][N];
void f(void) {
  int a, b, c;
#pragma scop
  for (a = 1; a < N; a++)
    for (b = 0; b < N - 1; b++)
      for (c = 0; c < N; c++)
        A[a][b][c] = A[a - 1][b + 1][c] + 1;
#pragma endscop
}
"""

#: S reads A[a][b] for c <= 2a + 1, then T reads it, inside (a, b < a):
#: the tile loop of c (size 2) runs at most at a, so swapping a to depth 3
#: keeps S(a, b, c) before T(a, b); the rotation puts a at depth 2, after T's b.
ROTATION_ILLEGAL = """#define N 9
double A[N][N], B[N][N];
void f(void) {
  int a, b, c;
#pragma scop
  for (a = 0; a < N; a++)
    for (b = 0; b < a; b++) {
      for (c = 0; c <= 2 * a + 1; c++)
        A[a][b] = A[a][b] + c;
      B[a][b] = A[a][b];
    }
#pragma endscop
}
"""

ROTATE = "stripmine([0,0,0],3,{s}); interchange([0,0,0,0],2,3); interchange([0,0,0,0],1,2);"


def test_tile_legality_swap_refused_where_the_rotation_is_legal(tmp_path):
    path = tmp_path / "swap.c"
    path.write_text(SWAP_ILLEGAL)
    s = clayx.load(path)
    with pytest.raises(LegalityError):
        s.apply("tile([0,0,0],3,1,4);")
    assert s.entries == ()
    s.apply(ROTATE.format(s=4))
    assert len(s.entries) == 3


def test_tile_legality_swap_legal_where_the_rotation_is_refused(tmp_path):
    path = tmp_path / "rot.c"
    path.write_text(ROTATION_ILLEGAL)
    s = clayx.load(path)
    with pytest.raises(LegalityError):
        s.apply(ROTATE.format(s=2))
    assert s.entries == ()
    s.apply("tile([0,0,0],3,1,2);")
    assert len(s.entries) == 1


# --------------------------------------------------------------------------- 5.17 unroll

def test_unroll_reference_table():
    """5.17: ``unroll([0,0],2)``: the main parts keep [0,0,0] / [0,0,1] with
    ``0 <= j <= N-3`` and ``c4 = 2λ``; the copies (``j+1``) are children 2
    and 3 of the loop; the epilogs are the loop [0,1]; R moves to [0,2].
    clayx keeps one statement and schedules its copy ``j+1`` at the date of
    ``j`` (docs/clay-differences.md); its epilog is the exact remainder."""
    s = session("unroll([0,0],2);").current
    assert parts(s) == {P: [(0, 0, 0), (0, 0, 2), (0, 1, 0)],
                        Q: [(0, 0, 1), (0, 0, 3), (0, 1, 1)], R: [(0, 2)], T: [(1,)]}
    assert_relation(s, (0, 0, 0), "[N] -> { S0[i, j] -> [0, i, 0, j, 0] : "
                    "exists l : j = 2l and j <= N - 3 }")
    assert_relation(s, (0, 0, 1), "[N] -> { S1[i, j] -> [0, i, 0, j, 1] : "
                    "exists l : j = 2l and j <= N - 3 }")
    # the copy's body is S(i, j+1): instance (i, j') runs at the date of j' - 1
    assert_relation(s, (0, 0, 2), "[N] -> { S0[i, j] -> [0, i, 0, j - 1, 2] : "
                    "exists l : j - 1 = 2l and j - 1 <= N - 3 }")
    assert_relation(s, (0, 0, 3), "[N] -> { S1[i, j] -> [0, i, 0, j - 1, 3] : "
                    "exists l : j - 1 = 2l and j - 1 <= N - 3 }")
    assert_relation(s, (0, 1, 0), "[N] -> { S0[i, j] -> [0, i, 1, j, 0] : "
                    "j = N - 1 or (j = N - 2 and exists l : j = 2l) }")
    assert_relation(s, (0, 2), "[N] -> { S2[i] -> [0, i, 2] }")
    assert_exact_cover(s)


def test_unroll_copies_print_with_the_iterator_advanced():
    """5.17: the copies' bodies are the statement with ``it`` replaced by
    ``it + m``; the loop steps by the factor."""
    code = session("unroll([0,0],3);").code()
    assert "c2 += 3" in code
    assert "A[i][c2 + 1] = B[i][c2 + 1];" in code and "A[i][c2 + 2] = B[i][c2 + 2];" in code
    assert code.index("C[i][c2] = A[i][c2] + 1;") < code.index("A[i][c2 + 1] = B[i][c2 + 1];")


def test_unroll_noepilog_needs_no_leftover():
    """5.17: without an epilog the trip count must be a multiple of the
    factor (Clay drops the last iterations silently: clayx refuses, and
    lowers the bound by f - 1 so that an even N loses nothing)."""
    with pytest.raises(DirectiveError, match="iterations of S0 are left over"):
        session("unroll_noepilog([0,0],2);")
    s = session("context([0,1,-6]); unroll_noepilog([0,0],2);").current
    assert parts(s)[P] == [(0, 0, 0), (0, 0, 2)] and parts(s)[R] == [(0, 1)]
    assert_exact_cover(s)


def test_unroll_after_iss_copies_stay_in_their_part():
    """After an iss the loop holds two relations of each statement: the copy
    of the last iteration of one part must not run an iteration of the
    other part (it would run twice)."""
    s = session("iss([0,0],{0,1||-3}); unroll([0,0],2);").current
    assert_exact_cover(s)


def test_unroll_refuses_copies_that_overlap():
    """After an interchange the loop at depth 2 is j, while Clay unrolls the
    statement's 2nd original iterator k: the copies of one instance would
    overlap (Clay's relations run some instances twice): refused."""
    s = clayx.load(EXAMPLES / "gemm.c")
    with pytest.raises(DirectiveError, match="is not k for S1: its unrolled copies would "
                       "overlap"):
        s.apply("interchange([0,1,0],2,3,1); unroll([0,1],2);")
    assert s.entries == ()


def test_unroll_factor_one_changes_nothing_even_not_found():
    """5.17 check 3: ``f = 1`` succeeds before the look-up."""
    s = clayx.load(RUNNING_C)
    before = s.current
    s.apply("unroll([9],1); unroll([0],1);")
    assert parts(s.current) == parts(before)


def test_unroll_emit_scop_shows_the_parts_and_reads_back(tmp_path):
    """The unrolled scattering parts (main with its local ``2*l1``, copies
    with ``c4 == j - 1``, epilog) are written to OpenScop and read back."""
    script = tmp_path / "u.clay"
    script.write_text("unroll([0,0],2);\n")
    rc, out, err = call(RUNNING_C, "--script", script, "--emit", "scop")
    assert rc == 0, err
    assert "# Union with 3 parts" in out and "-j + 2*l1 == 0" in out and "c4 == j - 1" in out
    back = read(out)
    assert parts(back) == parts(session("unroll([0,0],2);").current)


def test_unroll_mark_is_the_compilers():
    """The code-generation mark is ``unroll_mark`` (``--list`` names both),
    bounded by gcc's 65535."""
    code = session("unroll_mark([0,0],4);").code()
    assert "#pragma GCC unroll 4" in code
    with pytest.raises(DirectiveError, match=r"above gcc's limit \(65535\)"):
        session("unroll_mark([0,0],70000);")
    rc, out, _ = call("--list")
    assert rc == 0 and "\nunroll(" in out and "\nunroll_mark(" in out


def test_unroll_mark_beyond_gcc_limit_in_openscop_is_refused():
    """A ``<clayx_marks>`` unroll factor above 65535 would reach gcc's
    pragma: the reader refuses it with its line."""
    text = session("unroll_mark([0,0],4);").openscop()
    assert "unroll [0, 0] 4" in text
    with pytest.raises(OpenScopError, match="gcc's limit"):
        read(text.replace("unroll [0, 0] 4", "unroll [0, 0] 70000"))


# --------------------------------------------------------------------------- 3.7 queries

def test_queries_numbering():
    """3.7: get_beta_stmt counts β-vectors from 0; get_beta_loop(0) is the
    root; get_beta_loop_by_name cuts the first β with that iterator."""
    s = session('a = get_beta_stmt(0); b = get_beta_stmt(3); c = get_beta_loop(0); '
                'd = get_beta_loop(1); e = get_beta_loop(2); f = get_beta_loop_by_name("j");')
    assert [tuple(s.env[v]) for v in "abcdef"] == [(0, 0, 0), (1,), (), (0,), (0, 0), (0, 0)]
    # a statement split by iss counts once per part
    s = session("iss([0],{1||-3}); a = get_beta_stmt(1);")
    assert tuple(s.env["a"]) == (0, 0, 1)


# --------------------------------------------------------------------------- 8 catalogue

#: (script on the running example, the message Clay prints): the first
#: check that fails decides (reference 5, 9.9).
CATALOGUE = [
    # the beta vector was not found / is empty / is not a loop / not a statement
    ("reorder([9], [0]);", "the beta vector was not found"),
    ("split([], 1);", "the beta vector is empty"),
    ("split([], 0);", "the beta vector is empty"),                     # empty before depth
    ("fuse([0,0,0]);", "the beta is not a loop"),
    ("iss([0,1],{1});", "the beta is not a loop"),
    ("unroll([0,1],2);", "the beta is not a loop"),
    ("embed([0]);", "the beta is not a statement"),
    ("block([0], [1]);", "the beta is not a statement"),
    # the order array is too small
    ("reorder([0], [1]);", "the order array is too small"),
    # depth overflow; embed([]) and unembed of a short β give it too
    ("split([0,0,0], 3);", "depth overflow"),
    ("split([9], 1);", "depth overflow"),                              # |β| <= 1 before lookup
    ("reverse([9], 0);", "depth overflow"),                            # 4.3: d = 0 early
    ("reverse([9], -1);", "the beta vector was not found"),            # 4.3: d < 0 late
    ("interchange([0],1,2,1);", "depth overflow"),                     # 5.4: bounded by |β|
    ("embed([]);", "depth overflow"),
    ("unembed([0]);", "depth overflow"),
    # wrong coefficient
    ("skew([9],1,2,0);", "wrong coefficient"),                         # c = 0 before lookup
    ("reshape([0,0],2,2,1);", "wrong coefficient"),                    # 5.8's example
    # the beta need to be in a loop
    ("iss([1],{1});", "the beta need to be in a loop"),
    ("peel([1],{0});", "the beta need to be in a loop"),
    # block value is incorrect, before the depth and the β
    ("stripmine([9],0,0);", "block value is incorrect"),
    ("tile([9],0,0,0);", "block value is incorrect"),
    # wrong factor
    ("grain([9],0,0);", "wrong factor"),                               # before depth and β
    ("unroll([9],0);", "wrong factor"),                                # before the lookup
    ("unroll([0],70000);", "wrong factor: clayx unrolls by at most 16"),
    ("reshape([9],1,1,0);", "the beta vector was not found"),          # 9.9: lookup first
    ("reshape([0],1,1,0);", "wrong factor"),
    # the depth is not 'outer', before the β
    ("tile([9],1,2,4);", "the depth is not 'outer'"),
    # the statement was not found / the iterator name was not found
    ("a = get_beta_stmt(4);", "the statement was not found"),
    ("a = get_beta_stmt(-1);", "the statement was not found"),
    ("a = get_beta_loop(3);", "the iterator name was not found"),
    ('a = get_beta_loop_by_name("k");', "the iterator name was not found"),
    # the inequality seems to be wrong
    ("iss([0],{1|2|3|4|5});", "the inequality seems to be wrong"),
    ("iss([9],{1|2|3|4|5});", "the inequality seems to be wrong"),     # before the lookup
    ("iss([0],{1,2,3||0});", "the inequality seems to be wrong"),      # |I| > #inputs
    ("iss([0],{|1,1|0});", "the inequality seems to be wrong"),        # |P| > #params
    ("iss([0],{0,1||1,2});", "the inequality seems to be wrong"),      # |c| > 1
    ("iss([0,0,0],{1,1,1|||0});", "the inequality seems to be wrong"),  # padded A too long
    ("peel([0],{1|2|3});", "the inequality seems to be wrong"),
    ("peel([0,0,0],{1});", "the inequality seems to be wrong"),        # a statement β
    ("peel([],{1|2|3});", "the beta vector is empty"),                 # empty first
    # the vector seems to be wrong
    ("shift([0],1,[1,2],0);", "the vector seems to be wrong"),
    ("context([1]);", "the vector seems to be wrong"),
    # variables: read before the function is looked up
    ("nosuch(x);", "the variable was not defined"),
    ("nosuch([0]);", "unknown function `nosuch'"),
    ("split([0,0,0]);", "`split' takes 2 arguments"),
    ("split(1, 1);", "invalid type"),
    ("split(split([0,0,0],1), 1);", "sorry you can't at the moment call a function in an "
     "other function. Please use a temp variable."),
    # transformation is not applicable; wrong coefficient (unembed, collapse, linearize)
    ("unembed([0,0,0]);", "transformation is not applicable to the given beta"),
    ("split([0,0,1],1); unembed([1,0]);", "wrong coefficient"),
    # collapse (5.13): an odd count, a partner missing or of another
    # statement: not found; halves that are not complementary: wrong coefficient
    ("collapse([0]);", "the beta vector was not found"),               # P, Q, R: odd
    ("collapse([0,0,0]);", "the beta vector was not found"),           # P alone: odd
    ("collapse([0,0]);", "the beta vector was not found"),             # P's partner is Q
    ("collapse([]);", "the beta vector was not found"),                # no empty-β check
    ("collapse([9]);", "the beta vector was not found"),
    ("iss([0,0],{0,1||-2}); collapse([]);", "the beta vector was not found"),  # no [1,0,0]
    ("iss([0],{1||-3}); iss([0,2],{0,1||-2}); collapse([0]);",         # [0,0,0] + [0,2,0]
     "wrong coefficient"),
    ("iss([0],{1||-3}); shift([0,2],2,[],1); collapse([0]);", "wrong coefficient"),
    ("linearize([0,0],1);", "wrong coefficient"),
    ("linearize([0],1);", "depth overflow"),                           # R has one loop
    ("linearize([0,0],2);", "depth overflow"),
    # dimreorder, dimprivatize, block
    ("dimreorder([0,0,0], 1, [0]);", "the order array is too small or too big"),
    ("dimreorder([0,0,0], 1, [0,2]);", "there is an overflow value on the reorder array"),
    ("dimprivatize([0,0,0], 1, 1);", "privatization failed"),
    ("block([0,0,0], [0,1]);", "the betas don't have the same dimensions"),
    ("block([0,0,0], [9]);", "the betas don't have the same dimensions"),   # before lookup
    # block (6.7): both found, then both statements (an over-long β matches
    # its statement, which is then no statement of that length)
    ("block([0,0,0], [9,9,9]);", "the beta vector was not found"),
    ("block([0], [9]);", "the beta vector was not found"),             # before β1's shape
    ("block([0,0], [1,0]);", "the beta is not a statement"),           # β1: P is deeper
    ("block([0,1], [1,0]);", "the beta is not a statement"),           # β2 matches T
    ("block([], []);", "the beta is not a statement"),                 # no empty-β check
    # datacopy (6.6): β_ins empty, β_ins found, β_dom found, then the arrays
    ("datacopy(9, 9, [], true, [9]);", "the beta vector is empty"),
    ("datacopy(9, 9, [9], true, [9]);", "the beta vector was not found"),
    ("datacopy(9, 9, [0,0,0], true, [9]);", "the beta vector was not found"),
    ("datacopy(1, 2, [0,0,0], true, [1]);", "the array was not found in the given beta"),
    ("datacopy(9, 9, [0,0,0], true, [0,0,0]);", "the array was not found in the given beta"),
    # dim* (6.2-6.4): d = 0 before the β, a negative d after it
    ("dimprivatize([9,9], 1, 0);", "depth overflow"),
    ("dimprivatize([9,9], 1, -1);", "the beta vector was not found"),
    ("dimcontract([9,9], 1, 0);", "depth overflow"),
    ("dimcontract([9,9], 1, -1);", "the beta vector was not found"),
    ("dimreorder([9,9], 1, [1,0]);", "the beta vector was not found"),
    ("dimreorder([1], 5, [3]);", "the order array is too small or too big"),   # x: none
    # dim* take an array id (B 1, A 2, C 3, D 4, x 5) and any β (6.1): the
    # depth check (4.2) on the first matching statement before any access
    ("dimreorder([0,0], 3, [0]);", "the order array is too small or too big"),  # Q's C
    ("dimreorder([], 4, [0,1]);", "the order array is too small or too big"),   # R's D
    ("dimprivatize([9], 2, 1);", "the beta vector was not found"),
    ("dimprivatize([0], 2, 2);", "depth overflow"),                    # a loop β: d <= |β|
    ("dimprivatize([0,0,0], 2, 3);", "depth overflow"),                # a statement: |β| - 1
    ("dimprivatize([0,0,0,7], 2, 4);", "depth overflow"),              # over-long: P, 3
    ("dimprivatize([], 2, 1);", "depth overflow"),                     # [] allows none
    ("dimprivatize([1], 9, 1);", "depth overflow"),                    # before "not found"
    ("dimcontract([0], 2, 2);", "depth overflow"),                     # |β| bounds it too
    ("dimprivatize([0], 2, 1);", "privatization failed"),              # A[i][j] uses i
    # the array was not found; the id already exists
    ('a = get_array_id("Z");', "the array was not found"),
    ('a = add_array("A");', "the id already exists"),
]


@pytest.mark.parametrize("script, message", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_catalogue_message_and_order(script, message):
    assert_script_refused(RUNNING_C, script, message)


def assert_script_refused(path, script: str, message: str) -> None:
    """``script`` on ``path`` is refused with ``message``; the session is
    unchanged."""
    s = clayx.load(path)
    with pytest.raises(ClayxError) as e:
        s.apply(script)
    assert message in str(e.value)
    assert s.entries == ()


def test_fuse_onto_a_statement_is_a_no_op():
    """5.3: ``fuse([0,0])``: the next sibling R is a statement: success,
    nothing changes."""
    s = session("fuse([0,0]);")
    assert len(s.entries) == 1 and parts(s.current) == parts(clayx.load(RUNNING_C).current)


def test_shift_array_form():
    """5.7: ``shift([0],1,[],1)`` gives ``c2 = i - 1``; ``shift([0,0],2,[1],-2)``
    gives ``c4 = j - N + 2`` (the parameter array may be short or empty)."""
    s = session("shift([0],1,[],1);").current
    assert_relation(s, (0, 1), "[N] -> { S2[i] -> [0, i - 1, 1] }")
    s = session("shift([0,0],2,[1],-2);").current
    assert_relation(s, (0, 0, 0), "[N] -> { S0[i, j] -> [0, i, 0, j - N + 2, 0] }")



# --------------------------------------------------------------------------- 6.1-6.4 dim*

TWICE_C = RUNNING_C.parent / "twice.c"      # S0 [0,0,0] t[i][j] = …; S1 [0,1,0] … t[i][j], t[i][n-1-j]
GET_T = 'x = get_array_id("t"); '


def accesses(scop, stmt: str, array: str) -> list[tuple[str, isl.Map]]:
    """The (text, relation) of ``stmt``'s accesses to ``array``, in order."""
    return [(a.text, a.relation) for a in scop.statement(stmt).accesses if a.array == array]


def assert_accesses(scop, stmt: str, array: str, want: list[tuple[str, str]]) -> None:
    got = accesses(scop, stmt, array)
    assert [t for t, _ in got] == [t for t, _ in want]
    for (_, rel), (_, text) in zip(got, want):
        assert rel.is_equal(isl.Map(text).intersect_domain(scop.statement(stmt).domain)), \
            (stmt, str(rel), text)


def test_dimreorder_on_a_loop_changes_every_access_to_the_array():
    """6.1, 6.2: β a loop: every statement inside it, every access to the
    array (once in S0, twice in S1: all three), gathered (new subscript k
    = old order[k]); the other arrays and the statements' other accesses
    are untouched."""
    s = session(GET_T + "dimreorder([0], x, [1, 0]);", TWICE_C)
    new, old = s.current, clayx.load(TWICE_C).current
    assert_accesses(new, "S0", "t", [("t[j][i]", "[n] -> { S0[i, j] -> t[j, i] }")])
    assert_accesses(new, "S1", "t", [("t[j][i]", "[n] -> { S1[i, j] -> t[j, i] }"),
                                     ("t[n - 1 - j][i]", "[n] -> { S1[i, j] -> t[n - 1 - j, i] }")])
    assert new.statement("S0").body == "t[j][i] = A[i][j] * 2;"
    assert new.statement("S1").body == "B[i][j] = t[j][i] + t[n - 1 - j][i];"
    for st, arr in (("S0", "A"), ("S1", "B")):
        assert accesses(new, st, arr) == accesses(old, st, arr)
    assert s.current.schedule == old.schedule


def test_dimreorder_swaps_two_references_at_once():
    """``t[i][j]`` and ``t[j][i]`` in one body trade places (the body is
    rewritten once, not reference after reference)."""
    [scop] = parse_string("""
void f(int n, double A[9][9], double t[9][9]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = t[i][j] - t[j][i];
#pragma endscop
}""")
    from clayx import directives as D
    new = D.apply(scop, "dimreorder", [(0,), array_ids(scop)["t"], (1, 0)])
    assert new.statement("S0").body == "A[i][j] = t[j][i] - t[i][j];"


def test_dim_beta_selects_as_clay_matches():
    """4.1: a statement β changes only that statement; ``[]`` every one;
    an over-long β its prefix statement."""
    from clayx import directives as D
    scop = clayx.load(TWICE_C).current
    t = array_ids(scop)["t"]
    for beta, changed in (((0, 1, 0), {"S1"}), ((0, 1, 0, 4), {"S1"}), ((), {"S0", "S1"}),
                          ((0, 0), {"S0"})):
        new = D.apply(scop, "dimreorder", [beta, t, (1, 0)])
        assert {st.name for st in new.statements
                if accesses(new, st.name, "t") != accesses(scop, st.name, "t")} == changed


def test_dimprivatize_and_dimcontract_on_a_loop():
    """6.3: ``s[p]`` (written by S0, read and written by S1, read by S2, all
    in loop [0,0]) gets iterator 2 (q) as a new last subscript; 6.4:
    subscript d is dropped everywhere under the loop."""
    from test_directives_layout import DOIT
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "doit.c"
        p.write_text(DOIT)
        s = session('s = get_array_id("sum"); dimprivatize([0,0], s, 2);', p)
    new = s.current
    assert_accesses(new, "S0", "sum", [("sum[p][q]", "[nr, nq, np] -> { S0[r, q, p] -> sum[p, q] }")])
    assert [t for t, _ in accesses(new, "S1", "sum")] == ["sum[p][q]", "sum[p][q]"]
    assert_accesses(new, "S2", "sum", [("sum[p][q]", "[nr, nq, np] -> { S2[r, q, p] -> sum[p, q] }")])
    s = session(GET_T + "dimcontract([0], x, 1);", TWICE_C)
    assert_accesses(s.current, "S0", "t", [("t[j]", "[n] -> { S0[i, j] -> t[j] }")])
    assert_accesses(s.current, "S1", "t", [("t[j]", "[n] -> { S1[i, j] -> t[j] }"),
                                           ("t[n - 1 - j]", "[n] -> { S1[i, j] -> t[n - 1 - j] }")])


def test_no_access_under_the_beta_warns_and_succeeds():
    """6.1: no access to the id under β: Clay's warning "access number <id>
    not found", success, nothing changes (an unknown id too)."""
    s = clayx.load(TWICE_C)
    before = s.current
    with pytest.warns(DirectiveWarning, match=r"dimreorder: access number 1 not found: no "
                      r"statement at or under \[0, 1\] accesses array 1 \(A\)"):
        s.apply("dimreorder([0,1], 1, [1,0]);")                # A only in S0
    with pytest.warns(DirectiveWarning, match="dimcontract: access number 99 not found"):
        s.apply("dimcontract([0], 99, 1);")
    with pytest.warns(DirectiveWarning, match="access number -1 not found"):
        s.apply("dimprivatize([0], -1, 1);")                   # uint in Clay: no such id
    assert len(s.entries) == 3 and s.current.statements == before.statements
    # ... and the command line prints it, exit 0
    script = Path(tempfile.mkdtemp()) / "w.clay"
    script.write_text("dimreorder([0,1], 1, [1,0]);\n")
    rc, out, err = call(TWICE_C, "--script", script, "--emit", "c")
    assert rc == 0 and "clayx: warning: dimreorder: access number 1 not found" in err


@pytest.mark.parametrize("script, message", [
    # per access, in statement order: S0's t first (6.2)
    (GET_T + "dimreorder([0], x, [0]);", "the order array is too small or too big: can't reorder "
     "dims of `t[i][j]` of S0 (t[i][j] = A[i][j] * 2;)"),
    (GET_T + "dimreorder([0], x, [0, 5]);", "there is an overflow value on the reorder array"),
    (GET_T + "dimreorder([0], x, [1, 1]);", "not a permutation"),               # clayx's
    # 6.3: the iterator used already; clayx's: beyond the statement's iterators
    (GET_T + "dimprivatize([0], x, 1);", "privatization failed: can't privatize `t[i][j]` of S0 "
     "(t[i][j] = A[i][j] * 2;): the dim (depth=1) seems to be already used"),
    (GET_T + "dimprivatize([0,0,0,9], x, 3);", "depth overflow: S0 has 2 iterators, got depth 3"),
    # 6.4: a subscript beyond the access's (clayx's; Clay's is undefined)
    (GET_T + "dimcontract([0,1,0], x, 2); dimcontract([0,1,0], x, 2);",
     "depth overflow: `t[i]` of S1"),
])
def test_dim_per_access_failures(script, message):
    assert_script_refused(TWICE_C, script, message)


def test_dim_changes_are_checked_for_meaning():
    """The equivalence check still refuses a change that alters results:
    only S1's reads of t reordered, S0 still writes t[i][j]."""
    s = clayx.load(TWICE_C)
    with pytest.raises(LegalityError, match="dimreorder would change the program's meaning"):
        s.apply(GET_T + "dimreorder([0,1], x, [1,0]);")
    assert s.entries == ()


def test_access_forms_keep_clayx_meaning():
    """clayx's forms (an access number of one statement) are kept under
    their own names: access 1 of S1 is ``t[i][j]``, not array 1 (A)."""
    from clayx import directives as D
    scop = clayx.load(TWICE_C).current
    new = D.apply(scop, "dimreorder_access", [(0, 1, 0), 1, (1, 0)])
    assert new.statement("S1").body == "B[i][j] = t[j][i] + t[i][n - 1 - j];"
    with pytest.raises(DirectiveError, match=r"privatization failed: can't privatize "
                       r"`t\[i\]\[n - 1 - j\]` of S1"):
        D.apply(scop, "dimprivatize_access", [(0, 1, 0), 2, 1])
    new = D.apply(scop, "dimcontract_access", [(0, 0, 0), 2, 2])
    assert new.statement("S0").body == "t[i] = A[i][j] * 2;"
    listing = D.listing()
    assert "dimreorder_access(stmt: beta(stmt), access: access, order: ints)" in listing
    assert "dimreorder(beta: beta, array: array id, order: ints)" in listing


# --------------------------------------------------------------------------- runs equal

DIFFERENTIAL = [
    ("gemm", "iss([0],{-1|||3});"),
    ("gemm", "iss([0,1],{0,1||-2}); collapse([0,1]);"),
    ("gemm", "peel([0],{-1});"),
    ("jacobi-1d", "peel([0,0],{-1,0|2});"),
    ("gemm", "unroll([0,1,0],2);"),
    ("gemm", "unroll([0,1],3);"),
    ("jacobi-1d", "unroll([0,0],4);"),
    ("atax", "unroll([1,1],2); unroll([1],3);"),
    ("2mm", "unroll([0],2);"),
    ("gemm", "iss([0],{1||-3}); unroll([0,1],2);"),
    ("jacobi-1d", "iss([0,0],{1||-5}); unroll([0,0],3);"),
    ("gemm", "unroll([0,1],2); unroll([0,1,0],2); unroll([0,1,2],3);"),
    ("gemm", "split([0,0],1); tile([1,0,0],3,1,4);"),                      # tile: d - o = 2
    ("seidel-2d", "skew([0,0],2,1,-1); skew([0,0,0],3,1,-1); skew([0,0,0],3,2,-1);"
     " tile([0,0,0],3,1,4);"),
    # 6.2-6.6 with Clay's array ids: C computed transposed in a new array
    ("gemm", 'context([0, 0, 1, -1]); c = add_array("Ct"); '
     'datacopy_at(c, get_array_id("C"), [0,0,0], true, [0,0,0]); '
     'replace_array(get_array_id("C"), c); '
     'datacopy_at(get_array_id("C"), c, [0,1,0,0], false, [0,1,0,0]); dimreorder([0], c, [1,0]);'),
]

#: Clay-form layout scripts on tests/data/clay/twice.c (t is dead after the SCoP)
TWICE_DIFFERENTIAL = [
    GET_T + "dimreorder([0], x, [1, 0]);",
    GET_T + "dimcontract([0], x, 1);",
    GET_T + "dimreorder([0], x, [1, 0]); parallelize([0]);",
    GET_T + "dimreorder([], x, [1, 0]); reverse([0,1], 2);",
]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("script", TWICE_DIFFERENTIAL)
def test_clay_layout_forms_run_equal(tmp_path, script):
    """Clay's dim* forms give code that computes what the original does."""
    s = session(script, TWICE_C)
    gen = tmp_path / "twice.c"
    gen.write_text(s.code())
    for sizes in ({}, {"N": 1}, {"N": 4}):
        assert verify(TWICE_C, gen, sizes, workdir=tmp_path / "w").ok


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("name, script", DIFFERENTIAL, ids=[f"{n}:{s}" for n, s in DIFFERENTIAL])
def test_clay_forms_run_equal(tmp_path, name, script):
    """Every accepted Clay-form script gives code that computes what the
    original computes (compiled, run on small sizes, compared bit for bit)."""
    path = EXAMPLES / f"{name}.c"
    s = clayx.load(path)
    s.apply(script)
    gen = tmp_path / f"{name}.c"
    gen.write_text(s.code())
    res = verify(path, gen, SMALL_SIZES[name], workdir=tmp_path / "w")
    assert res.ok and res.values > 0


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("script", ["tile([0,0,0],3,1,4);", "tile([1,0,0,0],4,1,3);",
                                    "tile([1,0,0,0],4,2,4); tile([0,0,0],3,2,2);"])
def test_tile_swap_runs_equal(tmp_path, script):
    """5.15: tiles with d - o = 2 and 3 give code that computes the original."""
    s = session(script, DEEP_C)
    gen = tmp_path / "deep.c"
    gen.write_text(s.code())
    res = verify(DEEP_C, gen, {}, workdir=tmp_path / "w")
    assert res.ok and res.values > 0


@needs_gcc
@pytest.mark.slow
def test_unroll_through_emit_scop_runs_equal(tmp_path):
    """unroll, written with --emit scop and read back, gives the same
    running code as the original (the OpenScop route)."""
    path = EXAMPLES / "jacobi-1d.c"
    script = tmp_path / "u.clay"
    script.write_text("unroll([0,0],2);\n")
    scop_file = tmp_path / "u.scop"
    rc, _, err = call(path, "--script", script, "--emit", "scop", "-o", scop_file)
    assert rc == 0, err
    rc, region, err = call(scop_file, "--emit", "c")
    assert rc == 0, err
    src = path.read_text()
    a, b = parse_file(path)[0].region
    gen = tmp_path / path.name
    gen.write_text(src[:a] + region + src[b:])
    assert verify(path, gen, SMALL_SIZES["jacobi-1d"], workdir=tmp_path / "w").ok


def test_cli_runs(tmp_path):
    """The command line takes the Clay forms as they are."""
    script = tmp_path / "s.clay"
    script.write_text("iss([0],{1||-3});\npeel([0],{-1});\nunroll([0,0],2);\n")
    rc, out, err = call(RUNNING_C, "--script", script, "--emit", "c")
    assert rc == 0, err
    assert "c2 += 2" in out


def _arity(proto: str) -> int:
    """The number of arguments of a Clay prototype string (commas outside
    the list's braces)."""
    inside = proto[proto.index("(") + 1:proto.rindex(")")]
    if not inside.strip():
        return 0
    depth, n = 0, 1
    for ch in inside:
        depth += ch == "{"
        depth -= ch == "}"
        n += ch == "," and depth == 0
    return n


def test_list_clay_prints_the_prototypes(tmp_path):
    """3.8: ``--list --clay`` prints Clay's prototype strings verbatim, in
    Clay's order; every one names a clayx function that takes its arguments."""
    from clayx.directives import lookup
    from clayx.directives.registry import CLAY_PROTOTYPES
    rc, out, err = call("--list", "--clay")
    assert rc == 0, err
    assert out.startswith("void split(array beta, uint depth)\n"
                          "void reorder(array beta_loop, array neworder)\n")
    assert ("void datacopy(uint id_copy, uint id_orig, array beta_insert,\n"
            "                bool before, array beta_get_domain)\n") in out
    assert "void peel(array beta_loop,  list inequation { (params,) const })\n" in out
    assert len(CLAY_PROTOTYPES) == 34
    for proto in CLAY_PROTOTYPES:
        name = proto.split("(")[0].split()[-1]
        d = lookup(name)
        n = _arity(proto)
        required = sum(1 for p in d.params if not p.optional)
        assert required <= n <= len(d.params), (proto, d.signature)
    rc, _, err = call(RUNNING_C, "--clay")
    assert rc == 2 and "--clay goes with --list" in err


@pytest.mark.parametrize("script", ["tile([1,0,0,0],4,1,4);", "tile([0,0,0],3,1,4);",
                                    "stripmine([1,0,0,0],4,4); interchange([1,0,0,0,0],3,4);"
                                    " interchange([1,0,0,0,0],2,3);"])
def test_whitebox_recovers_a_swap_and_a_rotation(tmp_path, script):
    """The whitebox recovers a tile of Clay's (a swap) and a rotation of a
    tile loop; its script replays, every step checked, to the same dates."""
    from clayx.whitebox.replay import same_dates
    from clayx.whitebox.targets import read_target
    f = tmp_path / "s.clay"
    f.write_text(script + "\n")
    target = tmp_path / "t.scop"
    rc, _, err = call(DEEP_C, "--script", f, "--emit", "scop", "-o", target)
    assert rc == 0, err
    r = clayx.whitebox.whitebox(clayx.load(DEEP_C), target)
    assert r.exact, r.note
    s = clayx.load(DEEP_C)
    s.apply(str(r.script))
    assert same_dates(s.original, s.current.schedule, read_target(target, s.original))


# --------------------------------------------------------------------------- dim* on the OpenScop route

TWICE_SCOP_SCRIPTS = TWICE_DIFFERENTIAL + [
    GET_T + "dimcontract([0], x, 1); dimprivatize([0], x, 1);",
    GET_T + "dimreorder([0,1], x, [1, 0]); dimreorder([0,0], x, [1, 0]);",
]


def _twice_scop(tmp_path) -> Path:
    """twice.c written as OpenScop by clayx (``<body>`` as the C has it:
    ``t[i][n - 1 - j]``, which isl prints ``t[i][-j + n - 1]``)."""
    f = tmp_path / "twice.scop"
    rc, _, err = call(TWICE_C, "--emit", "scop", "-o", f)
    assert rc == 0, err
    assert "B[i][j] = t[i][j] + t[i][n - 1 - j];" in f.read_text()
    return f


def test_openscop_accesses_take_the_text_of_the_body(tmp_path):
    """An access read from OpenScop is matched to its reference in the
    body by relation, not by text: the reference keeps the body's
    spelling; one that matches none keeps isl's."""
    text = _twice_scop(tmp_path).read_text()
    scop = read(text)
    assert [a.text for a in scop.statement("S1").accesses if a.array == "t"] \
        == ["t[i][j]", "t[i][n - 1 - j]"]
    # the write and the read of one reference (A[i] += …) share its text
    [inc] = parse_string("void f(int n, double A[9]) {\n  int i;\n#pragma scop\n"
                         "  for (i = 0; i < n; i++)\n    A[n - 1 - i] += A[i];\n"
                         "#pragma endscop\n}\n")
    from clayx.frontend.openscop import write
    back = read(write(inc))
    assert sorted(a.text for a in back.statements[0].accesses) \
        == ["A[i]", "A[n - 1 - i]", "A[n - 1 - i]"]
    # a body whose reference is not the relation's: isl's text, and dim*
    # says the reference is not in the body
    bad = text.replace("t[i][n - 1 - j];", "t[i][n - 2 - j];")
    assert [a.text for a in read(bad).statement("S1").accesses if a.array == "t"] \
        == ["t[i][j]", "t[i][-j + n - 1]"]
    f = tmp_path / "bad.scop"
    f.write_text(bad)
    s = tmp_path / "s.clay"
    s.write_text(GET_T + "dimreorder([0], x, [1, 0]);\n")
    rc, out, err = call(f, "--script", s, "--emit", "c")
    assert rc == 1 and out == ""
    assert "the reference `t[i][-j + n - 1]` is not found in the body of S1" in err


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("script", TWICE_SCOP_SCRIPTS)
def test_dim_forms_on_the_openscop_route_run_equal(tmp_path, script):
    """dimreorder, dimprivatize and dimcontract on a SCoP read from
    OpenScop (``t[i][n - 1 - j]`` in the body): the code computes what the
    original does, as on the C route."""
    f = _twice_scop(tmp_path)
    s = tmp_path / "s.clay"
    s.write_text(script + "\n")
    rc, region, err = call(f, "--script", s, "--emit", "c")
    assert rc == 0, err
    assert "n - 1 - j" in region
    src = TWICE_C.read_text()
    a, b = parse_file(TWICE_C)[0].region
    gen = tmp_path / "twice.c"
    gen.write_text(src[:a] + region + src[b:])
    for sizes in ({}, {"N": 1}, {"N": 4}):
        assert verify(TWICE_C, gen, sizes, workdir=tmp_path / "w").ok


# --------------------------------------------------------------------------- 8 catalogue: the rest

#: More of the catalogue (reference 8) and of each function's check order
#: (reference 5, 9.9), on the running example: the empty β before every
#: value check, the value checks that need no look-up before "not found",
#: then the per-part checks.
CATALOGUE_ORDER = [
    # the beta vector is empty: first, whatever else is wrong
    ("interchange([],0,0,0);", "the beta vector is empty"),
    ("reverse([],0);", "the beta vector is empty"),
    ("fuse([]);", "the beta vector is empty"),
    ("skew([],1,1,0);", "the beta vector is empty"),
    ("iss([],{1|2|3|4|5});", "the beta vector is empty"),
    ("stripmine([],0,0);", "the beta vector is empty"),
    ("tile([],0,0,0);", "the beta vector is empty"),
    ("shift([],0,[1,2],1);", "the beta vector is empty"),
    ("unroll([],0);", "the beta vector is empty"),
    ("unroll_noepilog([],0);", "the beta vector is empty"),
    # value checks before the look-up
    ("interchange([9],0,1,0);", "depth overflow"),
    ("stripmine([9],0,4);", "depth overflow"),
    ("tile([9],1,0,4);", "depth overflow"),
    ("shift([9],0,[1,2],1);", "depth overflow"),
    ("skew([9],1,1,1);", "depth overflow"),                            # d = o
    ("grain([9],0,1);", "depth overflow"),
    ("peel([9],{1|2|3});", "the inequality seems to be wrong"),
    ("unroll_noepilog([9],0);", "wrong factor"),
    # then "not found", before the checks that need the β's statements
    ("interchange([9],1,1,0);", "the beta vector was not found"),
    ("skew([9],1,2,1);", "the beta vector was not found"),
    ("shift([9],1,[1,2],1);", "the beta vector was not found"),        # before |P|
    ("stripmine([9],1,4);", "the beta vector was not found"),
    ("tile([9],1,1,4);", "the beta vector was not found"),
    ("peel([9],{1});", "the beta vector was not found"),
    ("grain([9],1,1);", "the beta vector was not found"),
    ("densify([9],1);", "the beta vector was not found"),
    ("linearize([9],1);", "the beta vector was not found"),
    ("embed([9]);", "the beta vector was not found"),
    ("unembed([9,9]);", "the beta vector was not found"),
    ("unroll_noepilog([9],2);", "the beta vector was not found"),
    ("iss([9],{});", "the beta vector was not found"),                 # before the empty constant
    # the checks of the β's statements
    ("shift([0],1,[1,2],1);", "the vector seems to be wrong"),
    ("shift([1],1,[],1);", "depth overflow"),                          # T has no loop
    ("grain([1],1,1);", "depth overflow"),
    ("densify([1],1);", "depth overflow"),
    ("reshape([0],1,0,1);", "depth overflow"),                         # it <= 0
    ("reshape([0],1,2,1);", "depth overflow"),                         # it > #inputs
    ("context([1,1,1,-3]);", "the vector seems to be wrong"),          # 2 coefficients, 1 N
    ("reorder([0,0,0],[0]);", "the beta is not a loop"),
    ("stripmine([0,1],1,4);", "the beta is not a loop"),
    ("unroll_noepilog([0,1],2);", "the beta is not a loop"),
    ("iss([0,0,0],{});", "the beta is not a loop"),                    # before the empty constant
    ("embed([0]);", "the beta is not a statement"),                    # P, the first match
    # stripmine, tile (5.12 step 5): the first matching statement in no
    # loop, before "not a loop"
    ("stripmine([1],1,4);", "the beta need to be in a loop"),
    ("tile([1],1,1,4);", "the beta need to be in a loop"),
    ("iss([1],{});", "the beta need to be in a loop"),
    # skew (5.6 step 5): parts with α dimensions but no iterator (after
    # embed), after the depth checks
    ("embed([1]); embed([1,0]); skew([1],2,1,1);", "the beta need to be in a loop"),
    ("embed([1]); embed([1,0]); skew([1],3,1,1);", "depth overflow"),
    # 3.3: no coercion between arrays and lists; 3.4: types before values
    ("split({1},1);", "invalid type: 'beta'"),
    ("reorder([0],{1|0});", "invalid type: 'order'"),
    ("iss([0],[1]);", "invalid type: 'inequality'"),
    ("peel([0],[-1]);", "invalid type: 'inequality'"),
    ("l = {1||-3}; split(l, 1);", "invalid type: 'beta'"),
    ("split([], {1});", "invalid type: 'depth'"),                      # before the empty β
    ("iss([],[1]);", "invalid type: 'inequality'"),
    # 3.4: break's arity; 3.3: an unset variable read as a value
    ("break(1);", "`break' takes 0 arguments"),
    ("x;", "the variable was not defined"),
    # 4.1: an over-long β matches its statement; clayx: in dim* and block
    # only (docs/clay-differences.md), elsewhere it is not found
    ("reverse([0,0,0,5],1);", "the beta vector was not found"),
    ("block([0,0,0,5],[0,0,1,5]);", "the beta is not a statement"),
]


@pytest.mark.parametrize("script, message", CATALOGUE_ORDER, ids=[c[0] for c in CATALOGUE_ORDER])
def test_catalogue_check_order(script, message):
    assert_script_refused(RUNNING_C, script, message)


def test_block_domains_and_lengths(tmp_path):
    """6.7: block's checks in order: lengths, both found, both statements,
    then the same domain ("the betas don't have the same domain")."""
    f = tmp_path / "two.c"
    f.write_text("void f(int n, double A[9], double B[9]) {\n  int i;\n#pragma scop\n"
                 "  for (i = 0; i < n; i++)\n    A[i] = 0;\n"
                 "  for (i = 1; i < n; i++)\n    B[i] = A[i];\n#pragma endscop\n}\n")
    assert_script_refused(f, "block([0,0], [1,0]);", "the betas don't have the same domain")
    assert_script_refused(f, "block([0,0], [1]);", "the betas don't have the same dimensions")
    assert_script_refused(f, "block([0,0], [2,0]);", "the beta vector was not found")
    assert_script_refused(f, "block([0], [1,0]);", "the betas don't have the same dimensions")


def test_shift_takes_clays_array_and_clayxs_list():
    """5.7: shift's parameter vector is Clay's array; clayx's older list
    form means the same (docs/clay-differences.md)."""
    a = session("shift([0,0],2,[1],-2);").current
    b = session("shift([0,0],2,{1},-2);").current
    assert a.schedule == b.schedule
