"""Whitebox recovery of a tile loop that holds several loops, its point
loop deeper than the loop under it (fuzz seeds of
``scripts/fuzz_whitebox.py`` refused with "cannot order the target's
tiling legally: every way the recovery knows to undo the strip-mined
dimension … gives a schedule that breaks a dependence").

The original sequence tiled one loop (``tile([0, 0], 2, 1, s)``: the
point loop ``j`` at depth 3, below ``i``), split the loop ``i`` inside the
tile loop, then changed one split part (a shift or skew of its ``i``).
Read as one loop tiled, then split, the loops fused back without the tile
loop run the changed part before the other's instances it depends on.
Now such a tile loop is also read as its loops tiled apart, their tile
loops fused after (``tile`` of each loop, then ``fuse``: the reading
that was only tried for point loops right under the chunk loop,
:func:`~clayx.whitebox.tiling._unchunk_apart`).  Every recovered script,
simplified or not, replays (every step checked) to the target's dates;
one is compiled and run against the original."""

from __future__ import annotations

import pytest

from whitebox_cases import assert_recovered, assert_recovered_code_runs, case_params

#: (kernel, fuzz seed, the random sequence, the script recovered today).
#: Each was refused on the integ branch before (see the module docstring).
CASES = [
    # S1's i shifted by 3 after the split inside the tile loop (fuzz seed 153235)
    ("trmm", 153235, "tile([0, 0], 2, 1, 5); split([0, 0, 0, 0, 0], 2); "
                     "shift([0, 1], 2, {}, 3);",
     "split([0, 0, 0], 2);\nsplit([0, 0], 1);\nshift([1], 1, {}, 3);\n"
     "tile([1], 2, 1, 5);\ntile([0], 2, 1, 5);\nfuse([0]);\n"),
    # the same with S1's i skewed by its j (no fuzz seed)
    ("trmm", None, "tile([0, 0], 2, 1, 4); split([0, 0, 0, 0, 0], 2); "
                   "skew([0, 1], 2, 3, 1);",
     "split([0, 0, 0], 2);\nsplit([0, 0], 1);\nskew([1], 1, 2, 1);\n"
     "tile([1], 2, 1, 4);\ntile([0], 2, 1, 4);\nfuse([0]);\n"),
    # gemm's loops distributed and reordered inside two tile loops (was
    # test_whitebox_property's refused example): each loop tiled apart twice
    ("gemm", None, "tile([0], 1, 1, 2); tile([0], 2, 1, 2); split([0, 0, 0, 0, 0], 3); "
                   "reorder_loops([0], 3);",
     "split([0, 0], 1);\ninterchange([0], 1, 2);\ninterchange([1], 1, 2);\n"
     "tile([1], 2, 1, 2);\ntile([0], 2, 1, 2);\nfuse([0]);\ntile([0, 1], 3, 2, 2);\n"
     "tile([0, 0], 3, 2, 2);\nfuse([0, 0]);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_recovered(stem, seed, seq, want):
    assert_recovered(stem, seq, want)


@pytest.mark.slow
def test_recovered_code_runs(tmp_path):
    stem, _, seq, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"M": 13, "N": 11})
