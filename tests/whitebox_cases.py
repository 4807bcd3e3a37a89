"""Shared checks of the whitebox regression files (``test_whitebox_*.py``):
a fuzz sequence applied to an example, its target recovered and replayed,
the target's symbolic form, and the recovered script compiled and run."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import clayx
from clayx.whitebox import Oracle, symbolic, whitebox
from clayx.whitebox.model import Aff, Divs
from clayx.whitebox.replay import same_dates
from clayx.whitebox.targets import start_of

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: The modules of the recovery, for tests of their private parts:
#: :mod:`clayx.whitebox.recover` (its name is shadowed by the function
#: ``clayx.whitebox.recover``), and the modules it drives.
recover_module = sys.modules["clayx.whitebox.recover"]
tiling_module = sys.modules["clayx.whitebox.tiling"]
core_module = sys.modules["clayx.whitebox.core"]
algebra_module = sys.modules["clayx.whitebox.algebra"]

_BASE: dict[str, clayx.Session] = {}


def session(stem: str, text: str = "") -> clayx.Session:
    """A fresh session on ``examples/<stem>.c`` (parsed once) with the
    script ``text`` applied."""
    if stem not in _BASE:
        _BASE[stem] = clayx.load(EXAMPLES / f"{stem}.c")
    b = _BASE[stem]
    s = clayx.Session(b.original, others=b.others)
    if text:
        s.apply(text)
    return s


def replays(stem: str, script_text: str, target) -> bool:
    """``script_text`` applied to the original of ``stem`` (every step
    checked) gives every instance the date ``target`` gives it."""
    s = session(stem)
    if script_text.strip():
        s.apply(script_text)
    return same_dates(s.original, s.current.schedule, target)


def case_params(cases: list, slow=()) -> list:
    """pytest parameters of regression cases ``(stem, seed, seq, want, …)``,
    with ids ``stem-seed`` (``stem-x-k`` for the ``k``-th case, a case
    with no fuzz seed); those whose seed is in ``slow`` marked slow."""
    return [pytest.param(*c, id=f"{c[0]}-{c[1]}" if c[1] is not None else f"{c[0]}-x-{k}",
                         marks=[pytest.mark.slow] if c[1] in slow else [])
            for k, c in enumerate(cases)]


def case_of(cases: list, seed: int) -> tuple[str, str]:
    """``(stem, seq)`` of the case of ``cases`` with fuzz seed ``seed``."""
    stem, _, seq, _ = next(c for c in cases if c[1] == seed)
    return stem, seq


def assert_recovered(stem: str, seq: str, want: str):
    """The target ``seq`` makes is recovered exactly as ``want``, and the
    script replays to it, simplified and raw; the whitebox result."""
    s = session(stem, seq)
    assert len(s.script) == seq.count(";")          # every step of the sequence applied
    target = s.current.schedule
    r = whitebox(s.original, target)
    assert r.exact
    assert r.text(comments=False) == want
    assert replays(stem, r.text(comments=False), target)
    raw = whitebox(s.original, target, simplify=False)
    assert raw.exact and replays(stem, raw.text(comments=False), target)
    return r


def assert_recovered_shorter(stem: str, seq: str, want: str, main: int):
    """:func:`assert_recovered`, in fewer steps than ``main`` (the length
    recovered before), with no simplification undone; the whitebox result."""
    r = assert_recovered(stem, seq, want)
    assert len(r.steps) < main
    assert not r.timings.get("simplification_undone")
    return r


def symbolic_target(stem: str, seq: str):
    """The target ``seq`` makes, in the recovery's symbolic form, and the
    oracle of the original."""
    s = session(stem, seq)
    scop, _, deps = start_of(s.original, None)
    divs = Divs()
    return symbolic(scop, s.current.schedule, divs, tags=True), Oracle(scop, deps, divs)


def assert_recovered_code_runs(tmp_path: Path, stem: str, seq: str, sizes: dict) -> None:
    """The script recovered for the target ``seq`` makes, applied to the
    original and compiled, prints the original's output bit for bit."""
    assert_target_code_runs(tmp_path, stem, session(stem, seq).current.schedule, sizes)


def assert_target_code_runs(tmp_path: Path, stem: str, target, sizes: dict) -> None:
    """The script recovered for ``target`` (any target :func:`whitebox`
    reads), applied to the original and compiled, prints the original's
    output bit for bit."""
    from clayx.verify import verify
    if shutil.which("gcc") is None:
        pytest.skip("gcc not available")
    r = whitebox(session(stem).original, target)
    s = session(stem, r.text(comments=False))
    assert same_dates(s.original, s.current.schedule, target)
    gen = tmp_path / f"{stem}_wb.c"
    gen.write_text(s.code("c"))
    res = verify(EXAMPLES / f"{stem}.c", gen, sizes, workdir=tmp_path / "build")
    assert res.ok and res.values > 0


def iterator(k: int, c: int = 0) -> Aff:
    """The form ``i_k + c`` (iterator ``k`` of a statement plus ``c``), for
    unit tests of forms."""
    return Aff.var(("i", k)) + Aff.const(c)
