"""Golden texts kept as files under ``tests/golden/`` (Exo's habit): a test
compares its output with :func:`check`; ``pytest --update-golden`` rewrites
the files from the current output instead (then review ``git diff``)."""

from __future__ import annotations

from pathlib import Path

import pytest

#: Where the golden files live.
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

#: Set by ``conftest.py`` from the ``--update-golden`` option.
UPDATE = False


def text(name: str) -> str:
    """The golden text ``tests/golden/<name>`` (a failed test when missing)."""
    path = GOLDEN_DIR / name
    if not path.is_file():
        pytest.fail(f"no golden file {path}: run pytest --update-golden to write it")
    return path.read_text()


def check(name: str, actual: str) -> None:
    """Assert ``actual`` equals the golden text ``name``; with
    ``--update-golden``, write ``actual`` there instead."""
    if UPDATE:
        path = GOLDEN_DIR / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text() != actual:
            path.write_text(actual)
        return
    assert actual == text(name), f"differs from tests/golden/{name} (pytest --update-golden)"
