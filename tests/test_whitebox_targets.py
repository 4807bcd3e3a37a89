"""Whiteboxing towards targets from outside (issue 9): hand-made (original,
target) OpenScop pairs, Pluto-style scatterings, isl YAML schedule trees and
union maps.  Each recovered script is replayed independently (a fresh
session, every step checked) and must give every instance the target's date;
a target that breaks a dependence is refused with the legality witness.

The pairs live in ``tests/data/whitebox`` (``make_pairs.py`` there rewrites
the Clay-script ones)."""

from __future__ import annotations

import re
from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx.errors import ClayxError, LegalityError
from clayx.script import Script
from clayx.whitebox import WhiteboxError, WhiteboxResult
from clayx.whitebox.replay import dates, same_dates
from clayx.whitebox.targets import read_target

DATA = Path(__file__).resolve().parent / "data" / "whitebox"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: (original, target) written by Clay scripts (NAME.clay) through clayx --emit scop
SCRIPTED = sorted(p.name[:-len(".orig.scop")] for p in DATA.glob("*.orig.scop"))

#: hand-written targets: (original, target, the directives the target needs)
HAND = [
    ("gemm-fission-tile.orig.scop", "gemm-interchange.pluto.scop", {"interchange"}),
    ("gemm-fission-tile.orig.scop", "gemm-stripmine.pluto.scop", {"interchange", "stripmine"}),
    ("mvt-fuse-interchange.orig.scop", "mvt-fuse.hand.scop", {"interchange", "fuse"}),
    ("gemm-fission-tile.orig.scop", "gemm-ppcg.yaml", {"interchange", "fuse"}),
    ("jacobi1d-skew-fuse-tile.orig.scop", "jacobi1d-isl.yaml", {"skew", "fuse"}),
    ("mvt-fuse-interchange.orig.scop", "mvt-interchange.map", {"interchange"}),
    # statements named A, B: matched by order
    ("mvt-fuse-interchange.orig.scop", "mvt-renamed.map", {"interchange", "fuse"}),
]


def replays_to(orig: Path, result: WhiteboxResult, target) -> None:
    """The script, printed and parsed again, replays on a fresh session of
    ``orig`` (every step checked) to the target's dates."""
    s = clayx.load(orig)
    text = str(result.script)
    assert Script.parse(text).steps == result.script.steps
    s.apply(text)
    want = read_target(target, s.original)
    assert same_dates(s.original, s.current.schedule, want)


def test_the_pairs_cover_the_directives_the_issue_names():
    words = " ".join((DATA / f"{n}.clay").read_text() for n in SCRIPTED)
    for name in ("iss", "peel", "stripmine", "tile", "skew", "reshape", "reverse", "fuse",
                 "split"):
        assert re.search(rf"\b{name}\(", words), name
    assert len(SCRIPTED) + len(HAND) >= 12


@pytest.mark.parametrize("name", SCRIPTED)
def test_scripted_pair_is_recovered_and_replays(name):
    orig, target = DATA / f"{name}.orig.scop", DATA / f"{name}.target.scop"
    r = clayx.whitebox.whitebox(clayx.load(orig), target)
    assert r.exact, r.note
    assert r.steps or name.startswith("none")
    replays_to(orig, r, target)


@pytest.mark.parametrize("orig,target,needs", HAND, ids=[h[1] for h in HAND])
def test_hand_written_target_is_recovered_and_replays(orig, target, needs):
    r = clayx.whitebox.whitebox(clayx.load(DATA / orig), DATA / target)
    assert r.exact, r.note
    used = {st.call.name for st in r.script.steps}
    assert needs <= used, r.text()
    replays_to(DATA / orig, r, DATA / target)


def _reversed(scop, target) -> isl.UnionMap:
    """Every date of ``target`` negated: the order of every pair of
    instances reversed, which breaks every dependence."""
    sched = read_target(target, scop)
    d = dates(scop, sched)
    n = 2 * sched.max_depth + 1
    xs = ", ".join(f"x{k}" for k in range(n))
    neg = isl.Map(f"{{ [{xs}] -> [{', '.join('-' + x for x in xs.split(', '))}] }}",
                  context=d.get_ctx())
    return d.apply_range(isl.UnionMap.from_map(neg))


ALL = [(f"{n}.orig.scop", f"{n}.target.scop") for n in SCRIPTED] + [h[:2] for h in HAND]


@pytest.mark.parametrize("orig,target", ALL, ids=[a[1] for a in ALL])
def test_reversed_target_is_refused_with_a_witness(orig, target):
    s = clayx.load(DATA / orig)
    bad = _reversed(s.original, DATA / target)
    with pytest.raises(LegalityError) as e:
        clayx.whitebox(s, bad)
    msg = str(e.value)
    assert msg.startswith("the target schedule is illegal: it breaks")
    assert re.search(r"e\.g\. .*: S\d+\[.*\] -> S\d+\[.*\], dates \[", msg), msg
    assert not s.entries


def test_hand_written_illegal_union_map_is_refused_with_a_witness():
    s = clayx.load(DATA / "jacobi1d-skew-fuse-tile.orig.scop")
    with pytest.raises(LegalityError) as e:
        s.whitebox(DATA / "jacobi1d-illegal.map")
    assert "RAW on B: S0" in str(e.value) and "dates [" in str(e.value)


# --- the Python faces ---------------------------------------------------------------

def test_clayx_whitebox_returns_a_script_from_every_kind_of_target():
    orig = DATA / "mvt-fuse-interchange.orig.scop"
    s = clayx.load(orig)
    other = clayx.load(orig)
    other.apply("interchange([1], 1, 2); fuse([0]);")
    text = (DATA / "mvt-interchange.map").read_text()
    tree = "domain: \"[N] -> { S0[i, j] : 0 <= i < N and 0 <= j < N; S1[i, j] : " \
           "0 <= i < N and 0 <= j < N }\"\nchild:\n  sequence:\n" \
           "  - filter: \"{ S0[i, j] }\"\n    child:\n      schedule: \"[{ S0[i, j] -> [(i)] }," \
           " { S0[i, j] -> [(j)] }]\"\n  - filter: \"{ S1[i, j] }\"\n    child:\n" \
           "      schedule: \"[{ S1[i, j] -> [(j)] }, { S1[i, j] -> [(i)] }]\"\n"
    for target in (other, other.current, other.current.schedule, text, tree,
                   isl.UnionMap(text), str(DATA / "mvt-fuse.hand.scop")):
        script = clayx.whitebox(s, target)
        assert isinstance(script, Script)
        assert len(script.steps) >= 1
        check = clayx.load(orig)
        check.apply(script)
        assert same_dates(check.original, check.current.schedule,
                          read_target(target, check.original))
    # from a Scop too, and the richer result from the package's function
    assert isinstance(clayx.whitebox(s.original, text), Script)
    r = clayx.whitebox.whitebox(s, text)
    assert isinstance(r, WhiteboxResult) and r.exact and "interchange" in r.text()
    assert not s.entries          # nothing applied


def test_whitebox_from_a_session_with_steps_continues_after_them():
    orig = DATA / "gemm-fission-tile.orig.scop"
    s = clayx.load(orig)
    s.apply("split([0, 0], 1);")
    r = s.whitebox(DATA / "gemm-fission-tile.target.scop")
    assert [st.call.name for st in r.script.steps][:1] != ["split"]
    s.apply(r.script)
    want = read_target(DATA / "gemm-fission-tile.target.scop", s.original)
    assert same_dates(s.original, s.current.schedule, want)


def test_a_c_file_target():
    s = clayx.load(EXAMPLES / "gemm.c")
    assert len(clayx.whitebox(s, str(EXAMPLES / "gemm.c")).steps) == 0


# --- must fail ---------------------------------------------------------------------

def test_target_with_other_statements_is_refused():
    s = clayx.load(DATA / "gemm-fission-tile.orig.scop")
    with pytest.raises(WhiteboxError, match="iterators"):
        s.whitebox(DATA / "mvt-interchange.map")
    with pytest.raises(WhiteboxError, match="the target has 3 statements, the SCoP 2"):
        s.whitebox("[ni] -> { S0[i, j] -> [0, i, j]; S1[i, k, j] -> [1, i, j, k]; "
                   "S2[i] -> [2, i] }")
    with pytest.raises(WhiteboxError, match="statements"):
        s.whitebox(DATA / "atax-fission-fuse.target.scop")
    assert not s.entries


def test_malformed_targets_are_clear_errors():
    s = clayx.load(DATA / "gemm-fission-tile.orig.scop")
    with pytest.raises(WhiteboxError, match="neither an isl schedule tree nor an isl union map"):
        s.whitebox(DATA / "gemm-bad.yaml")
    with pytest.raises(WhiteboxError, match="neither"):
        s.whitebox("{ S0[i, j] -> [i, j ")
    with pytest.raises(WhiteboxError, match="empty"):
        s.whitebox("# nothing but a comment\n")
    with pytest.raises(ClayxError, match="cannot whitebox towards a int"):
        s.whitebox(3)
    assert isinstance(WhiteboxError("x"), ClayxError)
    assert not s.entries


def test_a_target_clay_cannot_express_names_the_part():
    """Every y[i] = 0 of atax at one date: legal (they are independent) but no
    Clay schedule runs several instances at once."""
    s = clayx.load(DATA / "atax-fission-fuse.orig.scop")
    target = ("[M, N] -> { S0[i] -> [0, 0]; S1[i] -> [1, i, 0, 0]; "
              "S2[i, j] -> [1, i, 1, j]; S3[i, j] -> [1, i, 2, j] }")
    with pytest.raises(WhiteboxError, match="several instances of S0 the same date"):
        clayx.whitebox(s, target)
    assert not s.entries
