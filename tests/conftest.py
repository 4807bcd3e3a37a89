"""Shared pytest fixtures and options.

- ``--update-golden``: rewrite the golden files under ``tests/golden/``
  from the current output instead of comparing (:mod:`goldens`).
- every C build of the session goes through a cache (:mod:`compile_cache`):
  the same text compiled with the same command is compiled once in the
  whole run (pytest-xdist's workers share it), and so is nvcc's check of a
  ``.cu`` text.
- the C front end remembers what it read (:mod:`scop_cache`): a text read
  again under the same path name gives the same (immutable) SCoPs, whose
  dependences are then computed once per process; the ``fresh_scops``
  fixture turns this off for a test.
- ``--legality-mutant=legal|illegal``: replace the decision at the heart of
  :mod:`clayx.analysis.legality` (which instance pairs a schedule runs in
  the wrong order, which ones a loop carries) by one that finds none
  (``legal``: every schedule and parallel loop is accepted) or all of them
  (``illegal``: every dependence is broken, every loop carries all the
  dependences under it).  Only ``tests/test_mutation.py`` uses it, to show
  that the suite fails against a checker that always says yes or always no.
"""

from pathlib import Path

import pytest

import compile_cache
import goldens
import scop_cache

_REPO = Path(__file__).resolve().parent.parent


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="write the golden files under tests/golden/ from the current "
                          "output instead of comparing with them")
    parser.addoption("--legality-mutant", choices=("legal", "illegal"), default=None,
                     help="run the tests against a legality checker that always answers "
                          "'legal' or always 'illegal' (the suite must fail)")


def pytest_configure(config):
    goldens.UPDATE = config.getoption("--update-golden")
    compile_cache.install()
    scop_cache.install()
    mutant = config.getoption("--legality-mutant")
    if mutant is not None:
        _install_mutant(mutant)


def pytest_unconfigure(config):
    compile_cache.uninstall()


#: The longest tests (5 s and more each, serially): under pytest-xdist they
#: are handed out first, so that no worker starts one while the other has
#: nothing left to do (a plain run keeps the files' order).
_LONG_FIRST = (
    "tests/test_whitebox_property.py::test_whitebox_recovers_random_sequences_slow",
    "tests/test_properties.py::",
    "tests/test_fuzz_inputs.py::test_fuzz_slice_has_no_problem",
    "tests/test_mutation.py::",
    "tests/test_script.py::test_roundtrip_property",
    "tests/test_tune.py::test_tuned_result_runs_equal_on_1_and_4_threads",
)


def pytest_collection_modifyitems(config, items):
    if hasattr(config, "workerinput"):      # a pytest-xdist worker
        items.sort(key=lambda item: not item.nodeid.startswith(_LONG_FIRST))


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:        # a pytest-xdist worker: tell the controller
        workeroutput["clayx_builds"] = dict(compile_cache.STATS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(pytest-xdist) add a worker's build counts to the session's."""
    for k, v in getattr(node, "workeroutput", {}).get("clayx_builds", {}).items():
        compile_cache.STATS[k] += v


def pytest_terminal_summary(terminalreporter):
    st = compile_cache.STATS
    if st["hits"] + st["misses"]:
        terminalreporter.write_line(
            f"C builds: {st['misses']} compiled, {st['hits']} reused from the session's "
            f"cache, {st['uncached']} not cacheable")
    if st["tool_hits"] + st["tool_runs"]:
        terminalreporter.write_line(
            f"Other tool runs (compile_cache.tool_result, e.g. nvcc): {st['tool_runs']} made, "
            f"{st['tool_hits']} reused from the session's cache")


def _install_mutant(mutant: str) -> None:
    """Patch the two decision points of the legality engine (the session,
    the prompt and every test call reach them through the public API)."""
    from clayx.analysis import legality

    if mutant == "legal":
        legality._suspect_pairs = lambda sch, pair_maps: {}
        legality._carried_pairs = lambda sch, prefix, depth, pair_maps: {}
    else:
        legality._suspect_pairs = lambda sch, pair_maps: dict(pair_maps)
        legality._carried_pairs = _all_carried


def _all_carried(sch, prefix, depth, pair_maps):
    """Every dependence between statements under the loop ``prefix``."""
    under = {r.stmt for r in sch.schedule.relations_under(prefix)}
    return {k: m for k, m in pair_maps.items() if k[0] in under and k[1] in under}


@pytest.fixture
def fresh_scops():
    """Every C text read during the test is parsed anew (new SCoPs, nothing
    computed on them yet), as outside the test suite."""
    with scop_cache.paused():
        yield


@pytest.fixture
def golden():
    """``golden(name, text)``: assert ``text`` equals ``tests/golden/<name>``
    (with ``--update-golden``: write it there)."""
    return goldens.check


@pytest.fixture
def examples_dir() -> Path:
    """The ``examples/`` directory: standalone C kernels with ``#pragma scop``."""
    return _REPO / "examples"


@pytest.fixture
def polybench_style_dir() -> Path:
    """``tests/data/polybench_style/``: kernels written against our polybench.h."""
    return _REPO / "tests" / "data" / "polybench_style"
