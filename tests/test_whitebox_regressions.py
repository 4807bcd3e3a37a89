"""Whitebox regressions found by the fuzzer (``scripts/fuzz_whitebox.py``,
``CLAYX_WHITEBOX_SEED`` in ``test_whitebox_property.py``): each random
sequence that once gave a recovered script failing its replay (or a
refusal the recovery now handles) is kept here with the script recovered
today (golden), and both the simplified and the unsimplified sequences must
replay, every step checked, to the target's dates."""

from __future__ import annotations


import pytest

from clayx.whitebox import Oracle, symbolic, whitebox
from clayx.whitebox.model import Divs
from clayx.whitebox.replay import same_dates
from clayx.whitebox.targets import start_of

from whitebox_cases import (EXAMPLES, replays as _replays, session as _session,
                            tiling_module)


#: (kernel, the random sequence, the script whitebox recovers from its result)
CASES = [
    # the same chunk twice (a point loop strip-mined again): once undone as a
    # skew, which left a constant loop to bring out of a distributed nest
    ("jacobi-1d", "stripmine([0],1,2); reorder([],[0]); stripmine([0],2,2);",
     "stripmine([0], 1, 2);\nstripmine([0], 2, 2);\n"),
    # a scaled loop whose first statement is shifted: once reshaped alone
    # before its loop was scaled (an illegal intermediate schedule)
    ("atax", "shift([1,0],1,{0|0},1); reshape([0],1,1,-2); reshape([0],1,1,-2); "
             "reshape([1],1,1,-2);",
     "grain([1], 1, 3);\nshift([1, 0], 1, {}, 1);\ngrain([0], 1, 5);\n"),
    # a constant (one-iteration) loop brought out of a distributed nest: the
    # pieces are fused before the last interchange, not after
    ("jacobi-1d", "embed([0,0,0]); embed([0,1,0]); interchange([0],2,3); fuse([0,0]); "
                  "interchange([0],1,2);",
     "embed([0, 0, 0]);\nembed([0, 1, 0]);\ninterchange([0], 2, 3);\nfuse([0, 0]);\n"
     "interchange([0], 1, 2);\n"),
    # one statement of a shared loop skewed by an inner loop: the innermost
    # pivot (skew the inner loop, interchange) runs S0 after S1 on the way;
    # the outer pivot is one skew
    ("trmm", "reshape([0, 0, 0, 0], 1, 2, 1);", "skew([0, 0, 0], 1, 2, 1);\n"),
    # a tile loop of a shifted loop (isl writes floor((i + 1)/3) - 1 for the
    # chunk of i - 2): once undone as a shifted tile loop, an illegal core
    ("gemm", "shift([0, 0], 1, {}, 2); tile([0, 1, 0], 3, 3, 16); tile([0], 1, 1, 3); "
             "fuse([0, 0, 1, 0, 0]);",
     "shift([0, 0], 1, {}, 2);\nstripmine([0, 1], 3, 16);\nstripmine([0], 1, 3);\n"),
    # a tile loop skewed by its point loop while the other nest is scaled:
    # the grain must come before the skew
    ("syrk", "tile([0, 0], 1, 1, 4); reshape([0], 1, 1, -2);",
     "stripmine([0, 0], 1, 4);\ngrain([0, 1], 1, 3);\nskew([0, 0], 1, 2, -2);\n"),
    # the chunk of a shifted loop moved inside its point loop: once undone as
    # a shift of the chunk (its point loop lost), refused
    ("seidel-2d", "shift([0, 0, 0], 3, {}, -2); tile([0], 3, 3, 3); reorder_loops([0], 3);",
     "shift([0], 3, {}, -2);\nstripmine([0], 3, 3);\ninterchange([0], 3, 4);\n"),
    # a chunk loop moved inside its point loop, a one-iteration loop in the
    # nest: once taken for a changed point loop (the one-iteration loop
    # skewed into a copy of i), refused
    ("lu", "tile([0], 1, 1, 4); embed([0, 0, 1, 0, 0]); grain([0], 2, 1); reorder_loops([0], 1);",
     "embed([0, 1, 0, 0]);\nstripmine([0], 1, 4);\ninterchange([0], 1, 2);\n"),
    # a point loop changed after the tile for one statement of the tile loop:
    # its fix-up once went to the whole loop and back ("goes round in circles")
    ("trmm", "tile([0, 0], 2, 1, 3); reshape([0, 0, 0, 0], 3, 1, 2);",
     "tile([0], 2, 1, 3);\nskew([0, 0, 0, 0], 3, 2, 2);\n"),
    ("atax", "stripmine([1], 1, 3); reverse([1, 0, 0], 2); split([1, 0, 1, 0], 2);",
     "stripmine([1], 1, 3);\nsplit([1, 0, 1, 0], 2);\nreverse([1, 0, 0], 2);\n"),
    # a tile loop over a scaled point loop (isl keeps floor(-2i / 8) as
    # floor(-i / 4)): once densified first, the chunk lost its point loop
    ("atax", "reverse([0], 1); reshape([1, 0], 1, 1, 3); skew([1, 1], 2, 1, -1); "
             "tile([1], 1, 1, 8);",
     "reverse([0], 1);\nreverse([1, 0], 1);\nskew([1, 1], 2, 1, -1);\ngrain([1, 0], 1, 2);\n"
     "stripmine([1], 1, 8);\n"),
    # lu's ikj order (the locality pass's point loops): the update's k loop
    # comes out of the j loop it shares with the division, alone; once
    # refused (no order of one interchange is legal): the loops are fused
    # into one perfect nest, the division in a one-iteration loop
    ("lu", "embed([0, 0, 1]); reshape([0, 0, 1], 3, 2, -1); fuse([0, 0, 0]); fuse([0, 0]); "
           "interchange([0, 0], 2, 3); reorder([0, 0, 0], [1, 0]); split([0, 0, 0, 0], 3); "
           "unembed([0, 0, 0, 0]);",
     "embed([0, 0, 1]);\nreshape([0, 0, 1], 3, 2, -1);\nfuse([0, 0, 0]);\nfuse([0, 0]);\n"
     "interchange([0, 0], 2, 3);\nreorder([0, 0, 0], [1, 0]);\nsplit([0, 0, 0, 0], 3);\n"
     "unembed([0, 0, 0, 0]);\n"),
    # a chunk that isl does not write as one div: floor(2i / 2) is i (the
    # scaled nest of one loop tiled with the others), floor(3i / 5) is
    # i + floor(-2i / 5), floor((3j + M) / 3) is j + floor(M / 3); once
    # "not a tile or chunk of another dimension"
    ("gemm", "grain([0, 1, 0, 0], 1, 2); iss([0, 1], {1, -1 | | 0, -1, 1 | 1}); "
             "tile([0], 1, 1, 2);",
     "iss([0, 1], {[] | [2, -1] | [0, -1, 1] | 1});\ngrain([0, 1], 1, 2);\nstripmine([0], 1, 2);\n"),
    ("atax", "reshape([1, 2, 0], 1, 1, -2); tile([1], 1, 1, 5);",
     "grain([1, 2], 1, 3);\nstripmine([1], 1, 5);\n"),
    ("trmm", "reshape([0, 0], 2, 2, -2); fuse([0]); shift([0], 2, {-1 | 0}, 0); "
             "iss([0], {0, 0 | | 0, 1 | -1}); tile([0], 2, 1, 3);",
     "iss([0], {[] | [] | [0, 1] | -1});\nreshape([0, 1], 2, 2, -2);\n"
     "shift([0, 1], 2, {-1 | 0}, 0);\ntile([0], 2, 1, 3);\n"),
    # a tile of one statement of a scaled loop: the loop's grain comes
    # before the tile (undoing the tiles first), not one grain per part
    # around it (illegal on the way)
    ("trmm", "reshape([0, 0], 1, 1, -1); tile([0, 0, 0], 1, 1, 5);",
     "grain([0], 1, 2);\nstripmine([0, 0, 0], 1, 5);\n"),
    # a chunk loop over two point loops, one strip-mined again: the inner
    # chunk (whose loop holds only it) is removed first, then the shared one
    # for both; once the shared one for one statement only, refused
    ("trmm", "parallelize([0, 0]); reverse([0], 2); reshape([0, 0, 0, 0], 3, 3, -2); "
             "tile([0], 2, 2, 32); fuse([0, 0, 0]); split_children([0, 0, 0], 1); "
             "stripmine([0, 0, 1], 3, 5);",
     "reverse([0], 2);\nstripmine([0], 2, 32);\nsplit([0, 0, 0, 0, 0], 3);\n"
     "stripmine([0, 0, 1], 3, 5);\ngrain([0, 0, 0], 4, 3);\nparallelize([0, 0]);\n"),
    # chunk loops that other relations share (a tile fused after with
    # another loop, a tile of one part of a peeled loop, tiles of two sizes
    # fused, a chunk loop of one statement moved out past the loop it
    # shares with another): the loops are split apart first, the direct
    # steps fuse them after the tiles; once "not a tile or chunk" or "no
    # legal order"
    ("syrk", "tile([0, 0], 1, 1, 2); reshape([0, 1, 0, 0], 2, 2, -2); fuse([0, 0]);",
     "stripmine([0, 0], 1, 2);\nfuse([0, 0]);\ngrain([0, 0, 1], 2, 3);\n"),
    # (the tile of one part: since the chunk of a part strip-mined alone is
    # read as that, the strip-mine of the part, not splits and fuses around it)
    ("syrk", "peel([0, 0], {0, -1 | 0}); tile([0, 1], 1, 1, 3);",
     "peel([0, 0], {0, -1 | 0});\nstripmine([0, 1], 1, 3);\n"),
    ("mvt", "skew([0, 0], 2, 1, -2); tile([1, 0], 1, 1, 5); tile([0], 1, 1, 4); "
            "grain([1, 0, 0], 2, 3); fuse([0]);",
     "skew([0], 2, 1, -2);\nstripmine([1], 1, 5);\nfuse([0]);\nstripmine([0, 0], 1, 4);\n"
     "grain([0, 1], 2, 3);\n"),
    ("trmm", "stripmine([0, 0, 0], 2, 3); interchange([0], 1, 2);",
     "split([0, 0, 0], 2);\nsplit([0, 0], 1);\ninterchange([1], 1, 2);\ntile([0], 2, 1, 3);\n"
     "fuse([0]);\nfuse([0, 0]);\n"),
    # a point loop reshaped after its tile by an iterator that is no
    # dimension of the nest (trmm's i, when the point loop is j - 3i): once
    # "not a tile or chunk"; atax: a tile loop reshaped by its point loop
    ("trmm", "skew([0, 0], 1, 2, 2); tile([0, 0], 2, 1, 5); reshape([0], 3, 1, 3);",
     "skew([0], 1, 2, 2);\ntile([0], 2, 1, 5);\nreshape([0], 3, 1, 3);\n"),
    ("atax", "tile([0], 1, 1, 2); reshape([0, 0, 0], 1, 1, -1); stripmine([0], 1, 2);",
     # (a grain, a tile and a reshape before the skewed tile of a tile loop
     # was read as one: test_whitebox_empty3)
     "stripmine([0], 1, 2);\nskew([0], 1, 2, -1);\nstripmine([0], 1, 2);\n"),
    # the chunk loop of one statement of a tile moved inside its point loop:
    # the interchange back is on the statement alone (once the whole loop,
    # which moved its neighbour's chunk inside: "round in circles")
    ("bicg", "tile([1, 1], 2, 2, 5); reorder_loops([1, 1, 0, 1], 2);",
     "stripmine([1, 1], 2, 5);\ninterchange([1, 1, 0, 1], 2, 3);\n"),
    # a first recovery refused (no legal order of its α steps): recovered
    # again in careful mode, not refused
    ("trmm", "tile([0], 1, 1, 2); iss([0], {-1, 1 | | 0, 0 | -2}); reshape([0, 1, 0], 2, 2, 1);",
     "iss([0], {[] | [1] | [0, 0] | -3});\nstripmine([0], 1, 2);\nsplit([0, 0, 0, 1], 2);\n"
     "skew([0, 1], 2, 3, 1);\n"),
]

# Targets refused here before with a message naming the part (no legal order
# known), all recovered now:
# the tile's steps, undone at once by the reduction, pass through a
# schedule that breaks a dependence (the trmm sequence refused here
# before, no order of its α steps legal, is recovered:
# tests/test_whitebox_order2.py; so was the tile of a skewed tile:
# tests/test_whitebox_order.py)
# (lu's tile passing through such a schedule, refused here before, is
# recovered: tests/test_whitebox_tileorder.py; so is mvt's reversed tile
# of a tile loop: tests/test_whitebox_strides.py)
# (trmm's tile of a loop whose peeled part isl writes without the tile
# loop, refused here before, is recovered: tests/test_whitebox_chunks4.py)
# (Clay's unroll, refused here before, is recovered now:
# tests/test_whitebox_unroll.py)


@pytest.mark.parametrize("stem,seq,want", CASES, ids=[f"{c[0]}-{k}" for k, c in enumerate(CASES)])
def test_fuzzer_sequence_is_recovered_and_replays(stem, seq, want):
    s = _session(stem, seq)
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact
    assert r.text(comments=False) == want
    assert not r.timings.get("simplification_undone")
    assert _replays(stem, r.text(comments=False), target)
    raw = whitebox(s.original, target, simplify=False)
    assert _replays(stem, raw.text(comments=False), target)


def _reduced(stem: str, seq: str, oracle: bool):
    """``reduce`` of the target of ``seq``: (direct steps as text, core)."""
    s = _session(stem, seq)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    T = symbolic(scop, s.current.schedule, divs, tags=True)
    steps = tiling_module.reduce(T, Oracle(scop, deps, divs) if oracle else None)
    return [st.text(scop.params) for st in steps], T


def test_a_scaled_loop_with_a_shifted_statement_is_one_grain_and_a_shift():
    steps, core = _reduced("atax", CASES[1][1], oracle=True)
    assert steps == ["grain([1], 1, 3);", "shift([1, 0], 1, {}, 1);", "grain([0], 1, 5);"]
    assert [str(r.alphas[0].text()) for r in core.rels] == ["i0", "i0", "i0", "i0"]


def test_grain_and_shift_needs_the_oracle():
    # without legality, only loops whose dates all divide are scaled back
    # (S1's 3*i - 1 is left to the core)
    steps, core = _reduced("atax", CASES[1][1], oracle=False)
    assert "grain([1], 1, 3);" not in steps
    assert core.rels[1].alphas[0].text() == "3*i0 - 1"


def test_a_scaled_loop_with_a_statement_shifted_later():
    # the last nest of atax's loop runs one date later: the rest +1 of
    # 3*i + 1 is kept as a shift after the loop's grain
    s = _session("atax", "grain([1], 1, 3); shift([1, 2], 1, {0|0}, -1);")
    r = whitebox(s.original, s.current.schedule)
    assert r.exact
    assert r.text(comments=False) == "grain([1], 1, 3);\nshift([1, 2], 1, {}, -1);\n"
    assert _replays("atax", r.text(comments=False), s.current.schedule)


def test_a_doubled_chunk_is_two_stripmines_not_a_skew():
    steps, core = _reduced("jacobi-1d", CASES[0][1], oracle=True)
    assert steps == ["stripmine([0], 1, 2);", "stripmine([0], 2, 2);"]
    assert [a.text() for a in core.rels[0].alphas] == ["i0", "i1"]


def test_a_sequence_failing_its_replay_is_recovered_again_with_every_choice_checked():
    # the first recovery of syrk's target orders the skew of the tile loop
    # before the grain of the other nest (illegal); the careful one does not
    stem, seq, want = CASES[5]
    s = _session(stem, seq)
    r = whitebox(s.original, s.current.schedule)
    assert r.timings.get("careful") and r.text(comments=False) == want


#: Longer sequences recovered since (no golden: the recovered script is long;
#: it must replay exactly)
RECOVERED = [
    # gemm 16090, which a first version of the chunk readings lost (a point
    # loop outside its chunk loop fixed before the other reductions: a chunk
    # of a skewed loop, floor((16j + i) / 80), read as a chunk of a point
    # loop i + 16j made by a skew)
    ("gemm", "reverse([0, 1], 3); skew([0, 1], 2, 1, -2); tile([0], 1, 1, 16); "
             "iss([0, 0, 1, 0], {-1, 1, -1 | | 0, 1, 0 | 4}); skew([0, 0, 0], 3, 1, -1); "
             "tile([0, 0, 0], 3, 3, 5);"),
    # a point loop scaled after its tile (grain on part of the tile loop):
    # the grain is undone first, not read as a larger tile
    ("trmm", "iss([0, 0, 0], {0 | | 1, 1 | 2}); stripmine([0, 0], 2, 4); "
             "tile([0, 0, 0], 1, 1, 16); split([0, 0, 0, 0, 0, 0], 1); "
             "grain([1, 0, 0, 0, 1], 4, 3); shift([1, 0, 0], 2, {-1 | 0}, -2);"),
    # a tile of a shifted loop whose part with a constant point is split off
    ("jacobi-1d", "shift([0], 2, {1 | 1}, 3); stripmine([0, 0], 2, 5); "
                  "iss([0, 0], {-1 | | 0, -1 | 3});"),
    # the nests of one loop scaled by different factors, one statement
    # shifted by a parameter (CLAYX_WHITEBOX_SEED=3): its reshape alone once
    # ran it after its neighbour; careful mode shifts it first
    ("atax", "reshape([0], 1, 1, -2); shift([1, 0], 1, {0 | 1}, 0); interchange([0], 1, 1); "
             "reshape([1], 1, 1, -2); reshape([1, 1], 1, 1, 1); interchange([0], 1, 1); "
             "tile([0], 1, 1, 3);"),
    # chunks written with iterators (floor(3i / 4) as i + floor(-i / 4)) in
    # index-set split parts (fuzz_whitebox seeds 12204, 12055, 12195)
    ("bicg", "reshape([1], 1, 1, -2); interchange([1, 1, 0], 2, 2); tile([1], 1, 1, 4); "
             "iss([1, 0], {0 | | 0, 1 | 4}); collapse([1, 0]); "
             "iss([1, 0, 1], {-1, -1 | | 0, 0 | 2}); peel([0], {-1, -1 | 1});"),
    ("trmm", "skew([0, 0], 2, 1, -2); tile([0, 0], 1, 1, 4); stripmine([0, 0, 0], 1, 2); "
             "reshape([0, 0, 0, 0], 4, 1, 1); iss([0], {0, 0, 0, -1 | | -1, 0 | -1});"),
    ("trmm", "shift([0, 0, 0], 2, {0 | 1}, 1); peel([0, 0], {-1, 0 | 6}); "
             "reshape([0, 0, 0], 1, 2, 2); tile([0], 2, 2, 2); interchange([0, 0, 0], 1, 3);"),
    # a chunk loop over a skewed, interchanged or reshaped point loop of one
    # statement (seeds 13004, 13034, 14153): once refused, then (with the
    # reshapes by iterators) a reshape that made the dates not unique
    ("bicg", "split([1, 0], 1); stripmine([2, 0], 1, 4); interchange([2, 0, 0, 0], 2, 3); "
             "interchange([0], 1, 1); skew([2], 2, 3, -1);"),
    ("bicg", "tile([1], 1, 1, 3); reverse([1, 0, 1, 0], 3); skew([1], 2, 1, -1); "
             "shift([1], 1, {}, 3); reshape([1, 0, 1, 1], 2, 2, -1);"),
    ("jacobi-1d", "stripmine([0, 1], 2, 5); skew([0, 1, 0], 2, 3, 1); stripmine([0], 2, 2);"),
    # a chunk isl writes as floor(j / 2) - j, of a reversed point loop -j:
    # read first as the chunk of j skewed by its reversed point loop (a
    # reading as the chunk of -j gave a core whose perfect-nest rescue once
    # applied an illegal reverse unchecked: a failed replay, seed 15235)
    ("trmm", "skew([0, 0], 1, 2, -1); reverse([0, 0, 0], 2); tile([0, 0], 2, 2, 2);"),
    # a reduction that left two relations at one β (a statement where a
    # loop is): once an IndexError in the recovery (seed 16269, base too)
    ("syrk", "embed([0, 1, 0, 0]); tile([0, 1, 0, 0], 2, 2, 5); iss([0], {-1 | | 1, 0 | 1}); "
             "stripmine([0, 1, 0, 0], 1, 4); peel([0, 0, 1, 0], {0, -1 | 1});"),
    # two peels and two tiles of parts (seed 13093)
    ("jacobi-1d", "peel([0, 1], {0, 0 | 5}); tile([0, 0], 2, 2, 5); peel([0, 0, 0], {-1, 0 | 0}); "
                  "tile([0, 0, 0], 2, 2, 8);"),
]


@pytest.mark.parametrize("stem,seq", RECOVERED)
def test_longer_fuzzer_sequence_is_recovered_exactly(stem, seq):
    s = _session(stem, seq)
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact
    assert _replays(stem, r.text(comments=False), target)


def test_lu_locality_target_is_recovered_not_undone():
    # the CPU locality pass orders lu's point loops i, k, j inside the tiles;
    # whiteboxed once fell back on isl's order (locality_undone)
    import clayx.auto as auto
    scop = _session("lu").original
    for tile in (0, 4, 32):
        target, r = auto.whiteboxed(scop, "cpu", tile=tile)
        assert target.locality and not r.timings.get("locality_undone"), tile
        assert r.exact and same_dates(scop, r.scop.schedule, target.schedule)
        assert "interchange" in r.text(comments=False)


@pytest.mark.slow
def test_lu_locality_code_runs_equal_to_the_original(tmp_path, monkeypatch):
    # the recovered ikj tiles (4 wide, several per loop at N = 13), C and
    # OpenMP on 4 threads, print the original's output bit for bit
    import shutil
    import clayx.auto as auto
    from clayx.verify import verify
    if shutil.which("gcc") is None:
        pytest.skip("gcc not available")
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    s = _session("lu")
    _, r = auto.whiteboxed(s.original, "cpu", tile=4)
    assert not r.timings.get("locality_undone")
    s.apply(r.text(comments=False))
    for emit in ("c", "omp"):
        gen = tmp_path / f"lu_{emit}.c"
        gen.write_text(s.code(emit))
        res = verify(EXAMPLES / "lu.c", gen, {"N": 13}, openmp=emit == "omp",
                     workdir=tmp_path / f"b_{emit}")
        assert res.ok and res.values > 0
