"""The test suite's own caches (:mod:`scop_cache`, :mod:`compile_cache`)
give what the uncached path gives: a remembered SCoP is the one a new parse
makes, a remembered tool result is the tool's result for that very text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import clayx
from clayx.analysis.dependences import dependences

import compile_cache
import scop_cache

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _facts(scop) -> tuple:
    return (str(scop.context), [str(s.domain) for s in scop.statements], str(scop.schedule),
            [str(d.relation) for d in dependences(scop)], scop.source, scop.path)


def test_a_remembered_scop_is_the_one_a_new_parse_gives(fresh_scops):
    with scop_cache.paused():
        pass                                    # the fixture's pause nests
    a = clayx.load(EXAMPLES / "lu.c").original
    b = clayx.load(EXAMPLES / "lu.c").original
    assert a is not b and _facts(a) == _facts(b)


@pytest.mark.skipif(os.environ.get("CLAYX_TEST_SCOP_CACHE") == "0", reason="memo turned off")
def test_a_text_read_again_gives_the_same_scops(tmp_path):
    src = tmp_path / "k.c"
    src.write_text((EXAMPLES / "jacobi-1d.c").read_text())
    first = clayx.load(src).original
    assert clayx.load(src).original is first
    with scop_cache.paused():
        again = clayx.load(src).original
    assert again is not first and _facts(again) == _facts(first)
    # another text under the same name is read anew
    src.write_text(src.read_text().replace("0.33333", "0.25"))
    other = clayx.load(src).original
    assert other is not first and other.source != first.source


@pytest.mark.skipif(os.environ.get("CLAYX_TEST_COMPILE_CACHE") == "0", reason="cache turned off")
def test_a_tool_result_is_reused_for_the_same_text_only(tmp_path):
    calls = []

    def tool(path):
        def compute():
            calls.append(path.read_text())
            return [len(path.read_text())]
        return compile_cache.tool_result("test-tool", path, ("-x",), compute)

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = tmp_path / "a" / "f.cu", tmp_path / "b" / "f.cu"
    one.write_text("int x;\n")
    two.write_text("int x;\n")
    assert tool(one) == tool(two) == [7] and len(calls) == 1   # the folder is no part of it
    two.write_text("int yy;\n")
    assert tool(two) == [8] and len(calls) == 2
    kept = compile_cache.tool_result("test-tool", one, ("-y",), lambda: ["at " + str(one)],
                                     keep=lambda v: str(one) not in v[0])
    assert kept == ["at " + str(one)]
    assert compile_cache.tool_result("test-tool", one, ("-y",), lambda: ["again"]) == ["again"]
