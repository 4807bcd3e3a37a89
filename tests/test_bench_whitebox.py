"""``scripts/bench_whitebox.py --check`` names every target of issue 9 a
summary misses (the timings themselves are the machine's, not tested)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "bench_whitebox.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_whitebox", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _summary(**over):
    s = {"kernels": 31, "verified": 31, "whitebox_mean_ms": 6.0, "whitebox_max_ms": 25.0,
         "mean_raw_len": 10.5, "mean_len": 10.5, "total_max_ms": 450.0, "over_500ms": []}
    s.update(over)
    return s


def test_no_miss_when_every_target_is_met():
    assert _bench().misses(_summary()) == []


def test_every_missed_target_is_named():
    got = _bench().misses(_summary(whitebox_mean_ms=40.0, whitebox_max_ms=300.0, mean_len=12.0,
                                   verified=30, over_500ms=["adi", "deriche"]))
    assert len(got) == 5
    assert any("mean ≤ 32" in m for m in got) and any("max ≤ 230" in m for m in got)
    assert any("≤ 11" in m for m in got) and any("1 not" in m for m in got)
    assert any("adi, deriche" in m for m in got)


def test_every_run_times_isl_and_the_dependences_apart():
    """A row runs isl's scheduler on every run (the remembered trees are
    forgotten first) and times the dependence analysis apart, RAR
    included."""
    from clayx.auto.scheduler import cache_stats
    bench = _bench()
    before = cache_stats()
    row = bench.bench("trisolv", 2)
    after = cache_stats()
    assert after["misses"] - before["misses"] == 2 and after["hits"] == before["hits"]
    assert row["exact"] and row["deps_ms"] > 0 and row["isl_ms"] > 0
    assert row["total_ms"] >= row["auto_ms"]
