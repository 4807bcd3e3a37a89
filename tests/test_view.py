"""The display face of a session (:mod:`clayx.view`): α labels from isl
``Aff`` coefficients, the one β-tree the command line and the prompt show,
the schedule diff as data, embedded-script lookup, and where a refusal
breaks (the loop by β-prefix and iterator, marked in the code)."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

import clayx
from clayx import view
from clayx.model import Relation
from clayx_repl import render
from clayx_repl.cli import summary

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _rel(text: str, stmt: str = "S0") -> Relation:
    m = isl.Map(text)
    return Relation(stmt, tuple(0 for _ in range(m.dim(isl.dim_type.out) // 2 + 1)), m)


@pytest.mark.parametrize("relation, labels", [
    ("[N] -> { S0[i, j] -> [0, i, 0, j, 0] }", ("i", "j")),
    ("[N] -> { S0[i, j] -> [0, i, 0, i + j, 0] }", ("i", "i + j")),
    ("[N] -> { S0[i, j] -> [0, i, 0, 1 - j, 0] }", ("i", "1 - j")),
    ("[N] -> { S0[i, j] -> [0, j - i, 0, -i - 1, 0] }", ("j - i", "-i - 1")),
    ("[N] -> { S0[i, j] -> [0, 2i + N, 0, j, 0] }", ("2i + N", "j")),
    ("[N] -> { S0[i, j] -> [0, floor(j/8), 0, j, 0] }", ("floor(j/8)", "j")),
    ("[N] -> { S0[t, i, j] -> [0, floor((2t + i + j)/64), 0, t, 0] }",
     ("floor((2t + i + j)/64)", "t")),
    ("[N] -> { S0[i] -> [0, i, 0] : i < 5; S0[i] -> [0, 2i - 5, 0] : i >= 5 }", ("c1",)),
])
def test_alpha_labels_read_isl_affine_coefficients(relation, labels):
    assert view.alpha_labels(_rel(relation)) == labels


def test_labels_after_real_steps():
    s = clayx.load(EXAMPLES / "seidel-2d.c")
    s.apply("skew([0, 0], 2, 1, -1); skew([0, 0], 3, 1, -1); skew([0, 0], 3, 2, -1); "
            "tile([0, 0], 3, 2, 8);")
    labels = [t.label for t in view.tree_lines(s.current) if t.is_loop]
    assert labels == ["t", "floor((2t + i + j)/8)", "t + i", "2t + i + j"]


def test_one_tree_for_the_command_line_and_the_prompt():
    s = clayx.load(EXAMPLES / "gemm.c")
    s.apply("interchange([0, 1], 2, 3); parallelize([0]);")
    text = view.tree_text(s.current)
    assert render.tree(s.current).plain == text
    assert "[0]" in text and "loop i  [parallel]" in text
    assert text.rstrip("\n") in summary([s.current], deps=[s.deps])


def test_changes_are_data_with_roles():
    s = clayx.load(EXAMPLES / "gemm.c")
    before = s.current
    s.apply("reverse([0, 0], 2);")
    ch = view.changes(before, s.current)
    assert ch.text() == ["changed loop [0, 0] now runs -j (was j)"]
    assert ch.focus == [(0, 0)]
    (verb, role), *_ = ch.lines[0]
    assert (verb, role) == ("changed ", "changed")
    assert {r for _, r in ch.lines[0]} <= set(view.ROLES) | {None}


def _kernel(tmp_path, arrays: str, loop: str, after: str = "") -> Path:
    c = tmp_path / "k.c"
    c.write_text(f"double {arrays};\nvoid f(void) {{\n  int i;\n#pragma scop\n"
                 f"{loop}#pragma endscop\n}}\n{after}")
    return c


def test_embedded_script_of_c_and_openscop(tmp_path):
    c = _kernel(tmp_path, "a[10]", "  for (i = 1; i < 10; i++)\n    a[i] = a[i] + 1;\n",
                "/* Clay\n   reverse([0], 1);\n */\n")
    s = clayx.load(c)
    text, name = view.embedded_script(s.original, c)
    assert "reverse([0], 1);" in text and name == f"{c} /* Clay */"
    scop = tmp_path / "k.scop"
    scop.write_text(s.openscop())
    s2 = clayx.load(scop)
    assert view.embedded_script(s2.original, scop) is None
    plain = tmp_path / "p.c"
    plain.write_text(c.read_text().split("/* Clay")[0])
    assert view.embedded_script(clayx.load(plain).original, plain) is None


def test_a_refusal_names_the_loop_and_marks_it_in_the_code():
    s = clayx.load(EXAMPLES / "gemm.c")
    with pytest.raises(clayx.LegalityError) as info:
        s.apply("reverse([0, 1], 2);")
    e = info.value
    assert s.entries == ()                       # nothing changed
    assert e.loop == (0, 1) and e.loop_label == "-k"
    assert e.where == "loop [0, 1] (k)"           # the printed iterator
    marked = [ln for ln in e.excerpt if ln.startswith(">")]
    assert marked == [">   for (k = nk - 1; k >= 0; k--)"]    # dedented to the i loop
    body = [ln for ln in e.excerpt if ln.startswith("|")]
    assert body and "C[i][j] += alpha * A[i][k] * B[k][j];" in body[-1]
    assert "it breaks at loop [0, 1] (k)" in str(e) and ">   for (k = nk - 1" in str(e)
    shown = render.error(e).plain
    assert "it breaks at loop [0, 1] (k)" in shown and ">   for (k = nk - 1;" in shown


def test_a_parallel_refusal_marks_the_pragma_and_the_loop():
    s = clayx.load(EXAMPLES / "gemm.c")
    with pytest.raises(clayx.LegalityError) as info:
        s.apply("parallelize([0, 1]);")
    e = info.value
    assert e.where == "loop [0, 1] (k)"
    assert e.excerpt[2] == "|   #pragma omp parallel for schedule(static) private(j)"
    assert e.excerpt[3] == ">   for (k = 0; k < nk; k++)"


def test_a_refusal_at_a_statement_order_names_the_enclosing_loop(tmp_path):
    c = _kernel(tmp_path, "a[10], b[10]",
                "  for (i = 0; i < 10; i++) {\n    a[i] = i;\n    b[i] = a[i];\n  }\n")
    s = clayx.load(c)
    with pytest.raises(clayx.LegalityError) as info:
        s.apply("reorder([0], [1, 0]);")
    e = info.value
    assert e.loop == (0,) and e.where == "loop [0] (i)"
    assert e.excerpt[0].startswith("> for (i = 0;")
