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

import shutil

import islpy as isl
import pytest

import clayx
from clayx.errors import ClayxError, DirectiveError, OpenScopError
from clayx.frontend.c import parse_file
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
    ("collapse([0]);", "wrong coefficient"),
    ("linearize([0,0],1);", "wrong coefficient"),
    ("linearize([0],1);", "depth overflow"),                           # R has one loop
    ("linearize([0,0],2);", "depth overflow"),
    # dimreorder, dimprivatize, block
    ("dimreorder([0,0,0], 1, [0]);", "the order array is too small or too big"),
    ("dimreorder([0,0,0], 1, [0,2]);", "there is an overflow value on the reorder array"),
    ("dimprivatize([0,0,0], 1, 1);", "privatization failed"),
    ("block([0,0,0], [0,1]);", "the betas don't have the same dimensions"),
    ("block([0,0,0], [9]);", "the betas don't have the same dimensions"),   # before lookup
    # the array was not found; the id already exists
    ('a = get_array_id("Z");', "the array was not found"),
    ('a = add_array("A");', "the id already exists"),
]


@pytest.mark.parametrize("script, message", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_catalogue_message_and_order(script, message):
    s = clayx.load(RUNNING_C)
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
]


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
