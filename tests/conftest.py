"""Shared pytest fixtures."""

from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def examples_dir() -> Path:
    """The ``examples/`` directory: standalone C kernels with ``#pragma scop``."""
    return _REPO / "examples"


@pytest.fixture
def polybench_style_dir() -> Path:
    """``tests/data/polybench_style/``: kernels written against our polybench.h."""
    return _REPO / "tests" / "data" / "polybench_style"
