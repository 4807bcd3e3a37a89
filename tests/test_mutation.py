"""The tests can fail: run a part of the suite against a legality checker
that always answers "legal", then one that always answers "illegal"
(``--legality-mutant``, see ``conftest.py``); both runs must fail, and by
many tests, while the same part passes with the real checker (the rest of
this suite)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The part of the suite run against each mutant: the legality engine's own
#: tests, the corpus of verdicts, sessions, and the affine directives.
SELECTION = ("tests/test_legality.py", "tests/test_legality_corpus.py",
             "tests/test_session.py", "tests/test_directives_affine.py")

#: At least this many of the selected tests must fail against each mutant.
MIN_FAILED = 20


def _run(mutant: str) -> tuple[int, int, str]:
    """Exit status, failed count and summary line of the selection against
    ``mutant``; the run stops at the :data:`MIN_FAILED`-th failure (the
    count asked for is reached, the rest would only add to it)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-m", "not slow", f"--legality-mutant={mutant}",
                        f"--maxfail={MIN_FAILED}", *SELECTION],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    tail = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr
    count = lambda word: int(m.group(1)) if (m := re.search(rf"(\d+) {word}", tail)) else 0  # noqa: E731
    return r.returncode, count("failed"), tail


@pytest.mark.slow
@pytest.mark.parametrize("mutant", ["legal", "illegal"])
def test_suite_fails_against_a_constant_checker(mutant):
    code, failed, tail = _run(mutant)
    assert code == 1, f"the selection did not fail as tests do (exit {code}): {tail}"
    assert failed >= MIN_FAILED, tail
