"""Recovered sequences that failed their own replay after the careful retry
(a "bug" of the fuzzer): a skew of one statement (or one part of a split
made after the tiling) is several ``reshape`` s, and the careful recovery
checked the dependences only after the last of them.  The one before can
break a dependence (trmm fuzz seed 150115: ``i0 - i1`` to ``2·i0 - 3·i1``
through ``2·i0 - i1``).  Now, in careful mode, each reshape is checked and
the reshapes of a dimension (which commute) are tried in another order
when the first breaks a dependence on the way
(:meth:`~clayx.whitebox.core.Core.in_legal_order`, from
``Core._step_checked`` and ``recover._late_alphas``).

Both cases failed their replay ("bug: step 4 … is illegal on replay")
before."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from whitebox_cases import assert_recovered, assert_recovered_code_runs, case_params, core_module

_SEQ = ("skew([0, 0], 1, 2, 2); iss([0, 0, 0], {1, 0, 1 | | 1, 1 | 3}); "
        "grain([0, 0, 0, 0], 1, 2); skew([0, 0], 2, 1, %d);")

#: (kernel, fuzz seed, the random sequence, the script recovered today)
CASES = [
    # S0's part skewed by an outer loop through its own reshapes: the one
    # by i0 first broke a dependence, the one by i1 first does not
    ("trmm", 150115, _SEQ % -1,
     "iss([0, 0, 0], {[] | [1, -2, 1] | [1, 1] | 3});\nskew([0], 1, 2, 2);\n"
     "skew([0], 2, 1, -1);\nreshape([0, 0, 0, 0], 2, 2, 2);\n"
     "reshape([0, 0, 0, 0], 2, 1, -1);\ngrain([0, 0, 0, 0], 1, 2);\n"),
    # the variant: the split read after the tiling, its part's own
    # dimensions given by reshapes after it (recover._late_alphas)
    ("trmm", None, _SEQ % 1,
     "skew([0], 1, 2, 2);\nskew([0], 2, 1, 1);\n"
     "iss([0, 0, 0], {[1, 0, 1] | [] | [1, 1] | 3});\n"
     "reshape([0, 0, 0, 0], 1, 2, 2);\nreshape([0, 0, 0, 0], 1, 1, -1);\n"
     "reshape([0, 0, 0, 0], 2, 1, 1);\nreshape([0, 0, 0, 0], 2, 2, -2);\n"),
]


@pytest.mark.parametrize("stem,seed,seq,want", case_params(CASES))
def test_recovered_in_a_legal_order(stem, seed, seq, want):
    r = assert_recovered(stem, seq, want)
    assert r.timings.get("careful")


def _orders(subs, legal_after):
    """What :meth:`Core.in_legal_order` records for ``subs`` when a state
    is legal exactly when ``legal_after`` holds for the steps recorded."""
    rec: list = []
    stub = SimpleNamespace(snapshot=lambda: len(rec),
                           restore=lambda n: rec.__delitem__(slice(n, None)))
    ok = core_module.Core.in_legal_order(stub, subs, rec.append, lambda: legal_after(rec))
    return ok, rec


def test_the_reshapes_in_the_first_legal_order():
    a, b, sh = ("reshape", 2, 1, -1), ("reshape", 2, 2, 2), ("shift", 2, None)
    # the order given when every state on its way is legal
    assert _orders([a, b, sh], lambda rec: True) == (True, [a, b, sh])
    # a alone breaks a dependence: b first, the shift still last
    assert _orders([a, b, sh], lambda rec: rec != [a]) == (True, [b, a, sh])
    # must fail: no order legal (a first or b first, each illegal alone)
    assert _orders([a, b], lambda rec: len(rec) != 1) == (False, [])


@pytest.mark.slow
def test_the_recovered_script_runs_equal_to_the_original(tmp_path):
    stem, _, seq, _ = CASES[0]
    assert_recovered_code_runs(tmp_path, stem, seq, {"M": 9, "N": 11})
