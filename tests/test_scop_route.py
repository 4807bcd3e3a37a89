"""The OpenScop route, as Clay is run on its test inputs: a ``.scop`` whose
``<clay>`` extension holds a script; ``clayx X.scop --emit scop`` applies it
(checked) and writes the transformed SCoP without the extension.

The differential test takes it end to end: C example → OpenScop with an
embedded script → ``clayx --emit scop`` → OpenScop read back → C generated
from the OpenScop alone (bodies from ``<body>``) → spliced into the original
file → compiled, run and compared with the original program."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import clayx
from clayx.codegen import generate_region
from clayx.frontend.c import parse_file
from clayx.frontend.openscop import read, scop_clay_script, with_clay_script, write
from clayx.verify import SMALL_SIZES, verify
from clayx_repl.cli import run

from directive_cases import EXAMPLES, needs_gcc

DATA = Path(__file__).resolve().parent / "data" / "openscop"


def cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = run(list(argv), stdout=out, stderr=err, stdin=io.StringIO(""))
    return rc, out.getvalue(), err.getvalue()


def clay_input(tmp_path, script: str) -> Path:
    """Clay's test shape: ``clay.scop`` (written by clan, with ``<clay>``,
    ``<loop>`` extensions and comments) carrying ``script``."""
    text = (DATA / "clay.scop").read_text()
    start, end = text.index("<clay>\n") + len("<clay>\n"), text.index("</clay>")
    p = tmp_path / "input.scop"
    p.write_text(text[:start] + script + "\n" + text[end:])
    return p


def test_applied_clay_extension_is_dropped_and_a_rerun_is_stable(tmp_path):
    p = clay_input(tmp_path, "# a Clay script, with a comment\nreverse([0], 1);\n"
                             "shift([0], 1, [1], 0);")
    rc, out, err = cli(str(p), "--emit", "scop")
    assert rc == 0, err
    assert "<clay>" not in out and "<loop>" in out
    new = read(out)
    maps = [str(r.map) for r in new.schedule.relations]
    # reverse then shift by N (new date = old - N): α1 = -i - N
    assert all("-N - i" in m for m in maps), maps
    again = tmp_path / "again.scop"
    again.write_text(out)
    rc, out2, err = cli(str(again), "--emit", "scop")
    assert rc == 0 and out2 == out


def test_illegal_clay_script_in_a_scop_is_refused(tmp_path):
    p = clay_input(tmp_path, "reorder([0], [1,0]);")
    rc, out, err = cli(str(p), "--emit", "scop")
    assert rc == 3 and out == "" and "RAW on a" in err


def test_a_script_given_on_the_command_line_wins_and_keeps_the_extension(tmp_path):
    p = clay_input(tmp_path, "reorder([0], [1,0]);")    # illegal, but not applied
    s = tmp_path / "s.clay"
    s.write_text("reverse([0], 1);\n")
    rc, out, err = cli(str(p), "--script", str(s), "--emit", "scop")
    assert rc == 0, err
    assert scop_clay_script(read(out)) == "reorder([0], [1,0]);"


ROUTE = [
    ("gemm", "interchange([0, 1], 2, 3); reverse([0], 1);"),
    # time tiling: S1 one step later, fused, i' = i + 2t, tiles of i' outermost
    ("jacobi-1d", "shift([0, 1], 2, [0, 0], -1); fuse([0, 0]); skew([0, 0], 2, 1, -2);"
                  "tile([0, 0], 2, 1, 4);"),
    ("beamforming", "split([2, 2, 0], 1); split([3, 0], 1); interchange([3, 0], 1, 2);"),
    ("2mm", "fuse([0]); parallelize([0]);"),
    ("atax", "stripmine([1], 1, 4); iss([0], {-1 | 0 | 10});"),
]


@needs_gcc
@pytest.mark.slow
@pytest.mark.parametrize("stem,script", ROUTE, ids=[r[0] for r in ROUTE])
def test_c_to_scop_to_c_through_the_clay_extension(tmp_path, stem, script):
    src = EXAMPLES / f"{stem}.c"
    [orig] = parse_file(src)
    scop_in = tmp_path / f"{stem}.scop"
    scop_in.write_text(write(with_clay_script(orig, script)))
    rc, out, err = cli(str(scop_in), "--emit", "scop")
    assert rc == 0, err
    back = read(out)
    # the same schedule as the session on the C file
    s = clayx.load(src)
    s.apply(script)
    assert [r.beta for r in back.schedule.relations] == \
        [r.beta for r in s.current.schedule.relations]
    assert all(a.map.is_equal(b.map) for a, b in
               zip(back.schedule.relations, s.current.schedule.relations))
    assert back.schedule.marks == s.current.schedule.marks
    # C from the OpenScop alone, spliced into the original file, runs the same
    text = orig.source
    start, end = orig.region
    region = generate_region(back)
    gen = tmp_path / f"{stem}_route.c"
    gen.write_text(text[:start] + region + text[end:])
    res = verify(src, gen, SMALL_SIZES[stem], workdir=tmp_path / "build")
    assert res.ok and res.values > 0
