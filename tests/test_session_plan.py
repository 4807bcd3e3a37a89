"""Session.plan: the check groups of a script, read from the registry's
kinds, used by Session.apply itself and by the prompt's :load."""

from __future__ import annotations

import pytest

import clayx
from clayx.errors import DirectiveError, LegalityError
from clayx.script import Script
from clayx.session import CheckGroup, Session

from test_directives_layout import DOIT, PRIVATIZE as PRIV
from test_repl import drive, lines


@pytest.fixture
def doit(tmp_path):
    p = tmp_path / "doit.c"
    p.write_text(DOIT)
    return clayx.load(p)



def _shape(groups):
    return [(g.start, len(g.steps), g.check) for g in groups]


def test_plan_groups_by_kind():
    text = ("reorder([], [0]); parallelize([0]); " + PRIV +
            " i = get_beta_loop(1); print(i); reverse([0], 1); i = get_beta_loop(1);")
    groups = Session.plan(text)
    assert _shape(groups) == [(0, 1, "dates"), (1, 1, "marks"), (2, 5, "equivalence"),
                              (7, 1, "dates"), (8, 1, "none")]
    assert [str(s) for s in groups[2].steps][-2:] == ["i = get_beta_loop(1);", "print(i);"]
    assert groups[2].stop == 7
    assert Session.plan(Script.parse(text)) == groups       # a Script or its text


def test_plan_unchecked_unknown_and_break():
    # an unchecked layout step is alone and closes the open group
    g = Session.plan("dimprivatize_access([0], 1, 1); unchecked dimprivatize_access([0], 1, 1); "
                     "dimprivatize_access([0], 1, 1); unchecked fuse([0]); nosuch([0]);")
    assert _shape(g) == [(0, 1, "equivalence"), (1, 1, "none"), (2, 1, "equivalence"),
                         (3, 1, "none"), (4, 1, "none")]
    # break() closes the group and ends the plan (the parser stops there too)
    g = Session.plan("dimprivatize_access([0], 1, 1); break(); fuse([0]);")
    assert _shape(g) == [(0, 1, "equivalence"), (1, 1, "none")]
    built = Script.parse("fuse([0]);") + Script.parse("break();").steps[0] \
        + Script.parse("fuse([1]);")
    assert _shape(Session.plan(built)) == [(0, 1, "dates"), (1, 1, "none")]


def test_apply_follows_the_plan(doit):
    new = doit.apply(PRIV + " i = get_beta_loop(2); parallelize(i);")
    # the query joins the layout group; its last step ends it, with the new
    # program's dependences (under which the q loop is parallel)
    assert [e.pending for e in new] == [True, True, True, False, False]
    assert new[3].deps is not None and doit.deps is new[3].deps
    assert str(new[4].step) == "parallelize(i);"
    with pytest.raises(Exception, match="stops inside a group"):
        doit.undo(2)
    doit.undo(5)
    # groups applied one by one give the same session
    for g in doit.plan(PRIV + " i = get_beta_loop(2); parallelize(i);"):
        doit.apply(Script(g.steps))
    assert [str(e.step) for e in doit.entries] == [str(e.step) for e in new]
    assert doit.current.schedule.marks == new[-1].scop.schedule.marks


def test_apply_stops_at_break_in_a_built_script(doit):
    before = doit.current
    script = Script.parse("unroll([0], 2);") + Script.parse("break();").steps[0] \
        + Script.parse("reverse([0], 1);")
    new = doit.apply(script)
    assert [str(e.step) for e in new] == ["unroll([0], 2);"]
    assert doit.current is not before


def test_plan_of_a_refused_group_changes_nothing(doit):
    with pytest.raises(LegalityError):
        doit.apply(PRIV.split(";")[0] + ";")             # one of three: not equivalent
    assert doit.entries == ()
    with pytest.raises(DirectiveError, match="unknown function `nosuch'"):
        doit.apply("unroll([0], 2); nosuch([0]);")
    assert doit.entries == ()


def test_check_group_is_a_value():
    a = CheckGroup((), 3, "none")
    assert a == CheckGroup((), 3, "none") and a.stop == 3


def test_load_uses_the_plan_and_stops_at_break(tmp_path):
    src = tmp_path / "doit.c"
    src.write_text(DOIT)
    script = tmp_path / "s.clay"
    script.write_text(PRIV + "\nparallelize([0, 0]);\nbreak();\nreverse([0], 1);\n")
    out, repl = drive(src, lines(f":load {script}"))
    assert "[1-3/5] dimprivatize" in out and "[4/5] parallelize([0, 0]);  ✓" in out
    assert "[5/5] break();  ✓" in out and "reverse" not in out.split(":load")[-1]
    assert [str(e.step) for e in repl.session.entries][-1] == "parallelize([0, 0]);"
