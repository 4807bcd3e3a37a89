"""Shortening a recovered sequence (the paper's future work, seed 004 §6.4).

Rules, applied until none applies (each keeps the schedule reached exactly;
the intermediate schedules a rule changes are checked by the final replay
in :func:`clayx.whitebox.whitebox`, which falls back to the unsimplified
sequence when the simplified one does not replay):

- **loop names**: a step that rewrites α dimensions or tiles (``shift``,
  ``skew``, ``reverse``, ``interchange``, ``reshape``, ``grain``,
  ``stripmine``, ``tile``, ``linearize``) names the statements it applies
  to by the *outermost loop that holds exactly them*: the shortest prefix
  of its β-vector under which the schedule it applies to has the same
  statements.  So ``tile([0, 0], 2, 1, 32)`` is written ``tile([0], 2, 1,
  32)`` when loop ``[0]`` holds nothing else, and the steps on one nest all
  name it the same way (the original's β of the nest, as long as no earlier
  step moved it).  Marks and structural steps (``fuse``, ``split``,
  ``reorder``, ``iss``, ``embed``…) keep their β: it means one loop or
  statement exactly;
- a step that does nothing goes: ``shift`` by 0, ``skew`` by 0,
  ``interchange(β, d, d)``;
- steps that cancel go: ``reverse(β, d); reverse(β, d)``,
  ``interchange(β, d1, d2); interchange(β, d1, d2)`` (either order of d1, d2);
- consecutive shifts of one loop merge:
  ``shift(β, d, P1, c1); shift(β, d, P2, c2)`` → ``shift(β, d, P1+P2, c1+c2)``,
  also across skews by other dimensions and reshapes, when the shift is of
  ``β``'s own dimensions (:func:`_merge_shifts`);
- consecutive skews of one dimension by the same other merge:
  ``skew(β, d, o, c1); skew(β, d, o, c2)`` → ``skew(β, d, o, c1+c2)``;
- **a strip-mine and an interchange that are a tile** become one:
  ``stripmine(β, d, s); interchange(β, d-1, d)`` → ``tile(β, d, d-1, s)``
  (built by :func:`.steps.tile_step`);
- **a run of skews, interchanges and reverses of one loop that is a
  permutation** (with signs) of its dimensions becomes that permutation,
  written with ``interchange`` s and ``reverse`` s, when that is shorter:
  ``skew(β, 1, 2, 1); skew(β, 2, 1, -1); skew(β, 1, 2, 1)`` →
  ``interchange(β, 1, 2); reverse(β, 2)``;
- **a run of strip-mines, tiles and interchanges of one loop** (the steps
  that put a nest's tile loops in place, and its point loops in their
  order) is rewritten from its net effect when that is shorter
  (:func:`tile_chains`): each tile loop made by one ``tile`` (or
  ``stripmine``) at its final depth, outermost first, then the loops left
  out of place swapped into order; every new intermediate schedule legal
  (the oracle; skipped without one)::

      stripmine(β, 1, 32); tile(β, 3, 2, 32); tile(β, 7, 3, 32);
      interchange(β, 6, 7); interchange(β, 5, 6); …     →     tile(β, 5, 3, 32); …
- **shortcuts** (:func:`shortcuts`): a run of steps that comes back to a
  schedule met before goes; a run from an ``iss`` or ``embed`` (the
  recovery splits one relation at a time, in one-iteration loops where a
  loop holds others) that one ``peel`` or ``iss`` of a loop around it
  reaches, or one ``iss`` and a ``reorder`` of that loop's parts, is
  replaced by it.  Schedules are compared without the relations' tags, so
  ``embed(S); iss; split; unembed; unembed`` for each statement of a loop
  becomes the loop's ``iss``.  Where the recovery split a loop's parts in
  the other order than the target (an inner loop first), two ``iss`` or
  ``peel`` steps, on a loop and on it or a loop inside it, replace the run
  (:func:`_two_steps`; the schedule between them asked of the oracle).
  Of all these ways the shortest whole sequence is kept (a shortest path
  over the schedules met, not the first replacement found); a round whose
  sequence does not end at the old schedule (or its dates) is dropped
  (:func:`_same_end`);
- **early splits** (:func:`early_splits`): a ``split`` that separates the
  parts an ``iss`` made moves to right after it, the steps in between
  renamed for the new β-vectors, when the schedule reached is the same;
  then ``iss`` + ``split`` is a ``peel``.  Every new schedule on the way is
  legal: proved from two old ones when it is one of them with the cut
  (:func:`_cut_only`), otherwise asked (at most :data:`ORACLE_BUDGET`
  questions per simplification);
- **the same loop steps on loops fused right after** are done once, after
  the fusion, on the fused loop (:func:`merge_across_fusion`):
  ``skew(A, 2, 1, -1); skew(B, 2, 1, -1); fuse(A)`` → ``fuse(A); skew(A, 2,
  1, -1)``, where every new intermediate schedule is legal (checked by the
  oracle :func:`clayx.whitebox.whitebox` passes; skipped without one).

Before/after (gemm, a loop shifted twice then reversed twice)::

    shift([0,0], 2, {0}, 1); shift([0,0], 2, {0}, 2);   →   shift([0], 2, {0}, 3);
    reverse([0,0], 3); reverse([0,0], 3);               →   (nothing)
"""

from __future__ import annotations


from .model import Aff, Sched, on_alphas
from .steps import Recorder, Step, tile_step

__all__ = ["ORACLE_BUDGET", "PAIR_BUDGET", "RULES", "early_splits", "loop_names", "merge_across_fusion",
           "shortcuts", "simplify", "tile_chains"]

#: The rule names, for reports and tests.
RULES = ("loop names", "no-op", "cancel reverse", "cancel interchange", "merge shifts",
         "merge skews", "stripmine and interchange are a tile", "signed permutation",
         "tile chain", "merge across a fusion", "shortcuts", "early splits")

#: Steps whose β only selects the statements they rewrite.
SELECTING = frozenset({"shift", "skew", "reverse", "interchange", "reshape", "grain",
                       "stripmine", "tile", "linearize"})

#: Steps a run of :func:`_permutation` may hold.
_RUN = frozenset({"skew", "interchange", "reverse"})


def _noop(s: Step) -> bool:
    if s.name == "shift":
        return not s.args[2].c
    if s.name == "skew":
        return s.args[3] == 0
    if s.name == "interchange":
        return s.args[1] == s.args[2]
    return False


def _pair(a: Step, b: Step) -> list[Step] | None:
    """What the adjacent steps ``a; b`` become (``None``: unchanged)."""
    if tuple(a.args[0]) != tuple(b.args[0]):
        return None
    if a.name == "stripmine" and b.name == "interchange" and a.args[1] >= 2 \
            and sorted(b.args[1:3]) == [a.args[1] - 1, a.args[1]]:
        return tile_step(a.args[0], a.args[1], a.args[1] - 1, a.args[2], _join(a, b))
    if a.name != b.name:
        return None
    if a.name == "reverse" and a.args[1] == b.args[1]:
        return []
    if a.name == "interchange" and {a.args[1], a.args[2]} == {b.args[1], b.args[2]}:
        return []
    if a.name == "shift" and a.args[1] == b.args[1]:
        return [Step("shift", (a.args[0], a.args[1], a.args[2] + b.args[2]),
                     _join(a, b))]
    if a.name == "skew" and a.args[1:3] == b.args[1:3]:
        return [Step("skew", (a.args[0], a.args[1], a.args[2], a.args[3] + b.args[3]),
                     _join(a, b))]
    return None


def _disjoint(a: tuple, b: tuple) -> bool:
    """The β-vectors ``a`` and ``b`` name statements none of which is under
    both."""
    n = min(len(a), len(b))
    return tuple(a[:n]) != tuple(b[:n])


def _commutes(t: Step, s: Step) -> bool:
    """Does step ``t`` commute with ``shift`` ``s`` (it neither reads nor
    moves ``s``'s dimension)?  A skew by another dimension, a reshape (it
    adds iterators), a shift, or any of these on other statements."""
    if t.name in ("reshape", "shift"):
        return True
    if t.name == "skew":
        return t.args[2] != s.args[1] or _disjoint(tuple(t.args[0]), tuple(s.args[0]))
    return False


def _merge_shifts(steps: list[Step]) -> list[Step]:
    """``steps`` with two shifts of one dimension of the same statements
    merged where only steps that commute with them come between
    (:func:`_commutes`): ``shift(β, d, 1); skew(β, d, 1, 3); shift(β, d,
    -1)`` → ``skew(β, d, 1, 3)``.  Only a shift of ``β``'s own dimensions
    (``d ≥ |β|``) moves: it shifts every statement under ``β`` alike
    after ``β``'s last position, so it changes the order of no two
    instances, and the schedules between, which lose it, are as legal as
    those they replace."""
    for a, s in enumerate(steps):
        if s.name != "shift" or s.args[1] < len(s.args[0]):
            continue
        for b in range(a + 1, len(steps)):
            t = steps[b]
            if t.name == "shift" and tuple(t.args[0]) == tuple(s.args[0]) \
                    and t.args[1] == s.args[1]:
                m = Step("shift", (s.args[0], s.args[1], s.args[2] + t.args[2]), _join(s, t))
                return _merge_shifts(steps[:a] + steps[a + 1:b] + ([] if _noop(m) else [m])
                                     + steps[b + 1:])
            if not _commutes(t, s):
                break
    return steps


def _join(a: Step, b: Step) -> str:
    return "; ".join(c for c in (a.comment, b.comment) if c)


# --- signed permutations ----------------------------------------------------------------

def _row(k: int) -> Aff:
    return Aff.var(("r", k))


def _effect(run: list[Step]) -> list[Aff] | None:
    """The rows of a run of loop steps, as forms of the rows before it
    (dimension k is ``("r", k)``), or None when the run has no loop-level
    meaning."""
    n = max(max(s.args[1:3] if s.name != "reverse" else s.args[1:2]) for s in run)
    rows = [_row(k) for k in range(1, n + 1)]
    for s in run:
        if s.name == "interchange":
            d1, d2 = s.args[1], s.args[2]
            rows[d1 - 1], rows[d2 - 1] = rows[d2 - 1], rows[d1 - 1]
        elif s.name == "reverse":
            rows[s.args[1] - 1] = -rows[s.args[1] - 1]
        elif s.name == "skew":
            d, o, c = s.args[1], s.args[2], s.args[3]
            rows[d - 1] = rows[d - 1] - rows[o - 1].scale(c)
        else:
            return None
    return rows


def _as_permutation(beta: tuple, rows: list[Aff], comment: str) -> list[Step] | None:
    """``interchange`` s and ``reverse`` s giving ``rows`` when they are a
    signed permutation of the dimensions, else None."""
    perm, signs = [], []
    for r in rows:
        if len(r.c) != 1:
            return None
        (key, v), = r.c.items()
        if abs(v) != 1:
            return None
        perm.append(key[1])
        signs.append(int(v))
    cur = list(range(1, len(rows) + 1))     # cur[i]: the old dimension now at i + 1
    out: list[Step] = []
    for i, want in enumerate(perm):
        j = cur.index(want)
        if j != i:
            out.append(Step("interchange", (beta, i + 1, j + 1), comment))
            cur[i], cur[j] = cur[j], cur[i]
    out += [Step("reverse", (beta, i + 1), comment) for i, s in enumerate(signs) if s < 0]
    return out


def _rewrite_runs(steps: list[Step], names: frozenset, rewrite) -> list[Step]:
    """``steps`` with each maximal run of steps named in ``names`` on one β
    replaced by ``rewrite(run, before)`` (``before``: the steps before the
    run, as rewritten so far) when that gives a list, kept otherwise."""
    out: list[Step] = []
    i = 0
    while i < len(steps):
        s = steps[i]
        j = i
        if s.name in names:
            while j + 1 < len(steps) and steps[j + 1].name in names \
                    and tuple(steps[j + 1].args[0]) == tuple(s.args[0]):
                j += 1
        run = steps[i:j + 1]
        new = rewrite(run, out) if s.name in names else None
        out.extend(run if new is None else new)
        i = j + 1
    return out


def _permutations(steps: list[Step]) -> list[Step]:
    """Replace each maximal run of skews/interchanges/reverses on one β that
    is a signed permutation by a shorter equivalent."""
    def rewrite(run: list[Step], _before) -> list[Step] | None:
        if not (len(run) >= 2 and any(x.name == "skew" for x in run) or len(run) >= 3):
            return None
        rows = _effect(run)
        new = None if rows is None else _as_permutation(
            tuple(run[0].args[0]), rows,
            "; ".join(dict.fromkeys(x.comment for x in run if x.comment)))
        return new if new is not None and len(new) < len(run) else None
    return _rewrite_runs(steps, _RUN, rewrite)


def _as_one_skew(beta: tuple, rows: list[Aff], comment: str) -> list[Step] | None:
    """The shortest of one ``skew`` then ``interchange`` s and ``reverse``
    s, or those then one ``skew``, giving ``rows`` (:func:`_effect`), or
    None when ``rows`` is no signed permutation with one row skewed by
    another (every row but one a row before, up to its sign)."""
    odd = [p for p, r in enumerate(rows) if len(r.c) != 1 or abs(next(iter(r.c.values()))) != 1]
    if len(odd) != 1 or len(rows[odd[0]].c) != 2:
        return None
    p = odd[0]
    items = list(rows[p].c.items())
    options = []
    for (kd, a), (ko, b) in (items, items[::-1]):
        if abs(a) != 1:
            continue
        d, o = kd[1], ko[1]
        plain = [r if k != p else _row(d).scale(a) for k, r in enumerate(rows)]
        if len({next(iter(r.c)) for r in plain}) < len(plain):
            continue                        # (row d is another row too: no permutation)
        perm = _as_permutation(beta, plain, comment)
        if perm is None:
            continue
        # skew first: a·(r_d - c·r_o) = a·r_d + b·r_o
        options.append([Step("skew", (beta, d, o, -b * a), comment)] + perm)
        # or the permutation first, then row p skewed by the row q that is ±r_o
        for q, r in enumerate(rows):
            if q != p and set(r.c) == {ko}:
                options.append(perm + [Step("skew", (beta, p + 1, q + 1, -b * r.c[ko]), comment)])
    return min(options, key=len) if options else None


def skew_runs(steps: list[Step], O: Sched, oracle) -> list[Step]:
    """Each maximal run of ``skew`` s, ``interchange`` s and ``reverse`` s
    of one β whose net effect is one skew and a signed permutation of its
    dimensions, written so (:func:`_as_one_skew`) when that is shorter and
    every new intermediate schedule is legal (``oracle``).  The recovery
    writes a skew of a dimension by an inner one with interchanges around
    skews of inner ones by outer ones::

        skew([0], 1, 2, -1); skew([0], 2, 1, -1); interchange([0], 1, 2);
        reverse([0], 2); skew([0], 2, 1, -1)                  →   skew([0], 1, 2, -1)
        (lu fuzz seed 29127)
    """
    return _at_each_place(steps, _skew_run_at, O, oracle)


def _at_each_place(steps: list[Step], at, O: Sched, oracle) -> list[Step]:
    """``steps`` rewritten by ``at(steps, i, O, oracle)`` at each place
    ``i`` in turn, from the first (``at`` gives the new steps, or None to
    leave them as they are)."""
    i = 0
    while i < len(steps):
        new = at(steps, i, O, oracle)
        if new is not None:
            steps = new
        i += 1
    return steps


def _skew_run_at(steps: list[Step], i: int, O: Sched, oracle) -> list[Step] | None:
    """:func:`skew_runs` at ``steps[i]``: the run of its β from there,
    passing over α steps of other statements (they commute with it; they
    go before the new run), or None."""
    s = steps[i]
    if s.name not in _RUN:
        return None
    b = tuple(s.args[0])
    run = [s]
    end = i
    for j in range(i + 1, len(steps)):
        t = steps[j]
        if t.name in _RUN and tuple(t.args[0]) == b:
            run.append(t)
            end = j
        elif not (t.name in _ALPHA and _disjoint(tuple(t.args[0]), b)):
            break
    if len(run) < 2:
        return None
    others = [t for t in steps[i + 1:end] if tuple(t.args[0]) != b]
    rows = _effect(run)
    if rows is None:
        return None
    comment = "; ".join(dict.fromkeys(x.comment for x in run if x.comment))
    options = [x for x in (_as_one_skew(b, rows, comment), _as_permutation(b, rows, comment))
               if x is not None]
    if not options:
        return None
    new = min(options, key=len)
    if len(new) >= len(run) or not _legal_run(O, steps[:i], others + new, oracle):
        return None
    out = steps[:i] + others + new + steps[end + 1:]
    if not _same_end(O, out[:i + len(others) + len(new)], steps[:end + 1]):
        return None                         # (not the same schedule after the run)
    return out


#: The steps :func:`merge_siblings` merges: they rewrite the α dimensions
#: of the statements they name, each statement alike.
_ALPHA = frozenset({"skew", "shift", "reverse", "interchange", "reshape"})


def merge_siblings(steps: list[Step], O: Sched, oracle) -> list[Step]:
    """The same α step (:data:`_ALPHA`) on statements or loops that
    together are all of a loop, with only α steps of other statements
    between, done once on that loop (at the first one's place), when every
    new intermediate schedule is legal (``oracle``).  The recovery rewrites
    each statement's dimensions on its own::

        reverse([0, 0], 2); skew([0, 0], 2, 1, -1);          reverse([0], 2);
        reverse([0, 1], 2); skew([0, 1], 2, 1, -1);    →     skew([0], 2, 1, -1);
    """
    return _at_each_place(steps, _merge_siblings_at, O, oracle)


def _merge_siblings_at(steps: list[Step], k: int, O: Sched, oracle) -> list[Step] | None:
    """:func:`merge_siblings` at the step ``steps[k]`` (None: not applied)."""
    s = steps[k]
    if s.name not in _ALPHA:
        return None
    for t in steps[k + 1:]:
        if t.name not in _ALPHA:
            return None                     # (no such step in the run: no state asked)
        if t.name == s.name and t.args[1:] == s.args[1:] and t.args[0] != s.args[0]:
            break
    else:
        return None
    sched = _state(O, steps[:k])
    if sched is None:
        return None
    b = tuple(s.args[0])
    group, seen = [k], {id(r) for r in sched.under(b)}
    moved_over: set = set()                 # the statements of the steps between
    for j in range(k + 1, len(steps)):
        t = steps[j]
        if t.name not in _ALPHA:
            break
        mine = {id(r) for r in sched.under(tuple(t.args[0]))}
        if t.name == s.name and t.args[1:] == s.args[1:] and not mine & seen \
                and not mine & moved_over:
            group.append(j)
            seen |= mine
            continue
        moved_over |= mine
    if len(group) < 2:
        return None
    # the loop that holds exactly the group's statements
    betas = [tuple(r.beta) for r in sched.rels if id(r) in seen]
    n = 0
    while all(len(x) > n + 1 for x in betas) and len({x[n] for x in betas}) == 1:
        n += 1
    loop = betas[0][:n]
    if not loop or {id(r) for r in sched.under(loop)} != seen:
        return None
    run = [Step(s.name, (loop,) + tuple(s.args[1:]), s.comment)] + [
        steps[j] for j in range(k + 1, group[-1] + 1) if j not in group]
    if not _legal_run(O, steps[:k], run, oracle):
        return None
    new = steps[:k] + run + steps[group[-1] + 1:]
    # the same schedule after the group (the steps moved commute)
    if not _same_end(O, new[:k + len(run)], steps[:group[-1] + 1]):
        return None
    return new


# --- tile chains -------------------------------------------------------------------------

#: Steps a run of :func:`tile_chains` may hold.
_TILING = frozenset({"stripmine", "tile", "interchange"})


def _tiling_effect(run: list[Step]) -> tuple[list[tuple], dict[int, int]] | None:
    """The loops after a run of strip-mines, tiles and interchanges of one
    β, each named by what it is in terms of the loops before the run:
    ``("x", k)`` loop k untouched, ``("T", k)`` / ``("P", k)`` the tile
    and point loops of loop k; and the tile size of each k.  None when a
    loop is strip-mined twice (nested tiles are left alone)."""
    # loops deeper than any depth the run names stay where they are
    n = max(max(s.args[1:3]) if s.name == "interchange" else s.args[1] for s in run)
    loops: list[tuple] = [("x", k) for k in range(1, n + 1)]
    sizes: dict[int, int] = {}
    for s in run:
        if s.name == "interchange":
            d1, d2 = s.args[1], s.args[2]
            loops[d1 - 1], loops[d2 - 1] = loops[d2 - 1], loops[d1 - 1]
            continue
        d, size = s.args[1], s.args[-1]
        kind, k = loops[d - 1]
        if kind != "x":
            return None
        sizes[k] = size
        loops[d - 1:d] = [("T", k), ("P", k)]
        if s.name == "tile":
            o = s.args[2]
            loops[o - 1], loops[d - 1] = loops[d - 1], loops[o - 1]
    return loops, sizes


def _tiling_steps(beta: tuple, loops: list[tuple], sizes: dict[int, int]) -> list[Step]:
    """Steps from the loops before a run (``("x", k)`` at depth k) to
    ``loops`` (see :func:`_tiling_effect`): the tile loops made outermost
    first, each by a ``tile`` that puts it at its final depth (a
    ``stripmine`` when it is there already), then interchanges of the
    loops still out of place."""
    n = sum(1 for x in loops if x[0] != "T")
    cur: list[tuple] = [("x", k) for k in range(1, n + 1)]
    out: list[Step] = []
    for p, (kind, k) in enumerate(loops, 1):
        if kind != "T":
            continue
        d = cur.index(("x", k)) + 1
        cur[d - 1:d] = [("T", k), ("P", k)]
        if p == d:
            out.append(Step("stripmine", (beta, d, sizes[k]),
                            f"strip-mine the loop at depth {d} by {sizes[k]}"))
        elif p < d:
            cur[p - 1], cur[d - 1] = cur[d - 1], cur[p - 1]
            out.extend(tile_step(beta, d, p, sizes[k]))
        else:
            return []                   # a tile loop inside its own point loop
    for i, want in enumerate(loops):
        j = cur.index(want)
        if j != i:
            cur[i], cur[j] = cur[j], cur[i]
            out.append(Step("interchange", (beta, i + 1, j + 1),
                            f"interchange the loops at depths {i + 1} and {j + 1}"))
    return out


def _legal_run(O: Sched, before: list[Step], new: list[Step], oracle) -> bool:
    """Every schedule after a step of ``new`` (applied after ``before``
    from ``O``) is legal for ``oracle``."""
    sched = _state(O, before)
    if sched is None:
        return False
    for st in new:
        try:
            _apply(sched, st)
        except Exception:                   # noqa: BLE001 - the rule is then skipped
            return False
        if not oracle(sched):
            return False
    return True


def tile_chains(steps: list[Step], O: Sched, oracle) -> list[Step]:
    """Each maximal run of ``stripmine``/``tile``/``interchange`` steps on
    one β that tiles some of its loops once each, rewritten from its net
    effect (:func:`_tiling_steps`) when that is shorter and every new
    intermediate schedule is legal (``oracle``).  The loops reached are the
    same, so the dates are too::

        stripmine([0], 1, 4);                   stripmine([0], 1, 4);
        tile([0], 3, 2, 4);                     tile([0], 3, 2, 4);
        tile([0], 5, 3, 4);           →         tile([0], 5, 3, 4);
        interchange([0], 5, 6);                 interchange([0], 4, 6);
        interchange([0], 4, 5);
        interchange([0], 5, 6);
    """
    def rewrite(run: list[Step], before: list[Step]) -> list[Step] | None:
        if len(run) < 3 or all(x.name == "interchange" for x in run):
            return None
        eff = _tiling_effect(run)
        new = [] if eff is None else _tiling_steps(tuple(run[0].args[0]), *eff)
        if new and len(new) < len(run) and _legal_run(O, before, new, oracle):
            return new
        return None
    return _rewrite_runs(steps, _TILING, rewrite)


# --- loop names --------------------------------------------------------------------------

def _apply(sched: Sched, s: Step, fresh=None) -> None:
    """Apply ``s`` to the symbolic ``sched``: the copies ``iss``, ``peel``
    and ``unroll`` make of a relation ``r`` get the tag ``fresh(r, m)``
    (``m`` the copy's number; -1 without ``fresh``); an ``iss`` written on
    the α dimensions gives each relation its own inequality, as Clay does."""
    if s.name == "split" and not _splits_something(sched, tuple(s.args[0]), s.args[1]):
        raise ValueError(f"nothing to split at {s.args[0]}")   # (Clay refuses it)
    rec = Recorder(sched)
    if fresh is None:
        def fresh(r, m=0):
            return -1
    if s.name == "iss" and len(s.args) == 3:
        halves: dict = {}

        def tag(r):
            t = -2 - len(halves)
            halves[t] = r
            return t
        rec.do("iss", *s.args, new_tag=tag)
        for c in sched.rels:
            if c.tag in halves:
                r = halves[c.tag]
                r.cons[-1] = on_alphas(r, s.args[2])
                c.cons[-1] = -r.cons[-1] - Aff.const(1)
                c.tag = fresh(r)
    elif s.name in ("iss", "peel"):
        rec.do(s.name, *s.args, new_tag=fresh)
    elif s.name in ("unroll", "unroll_noepilog"):
        rec.do(s.name, *s.args, new_tag=fresh)
    else:
        rec.do(s.name, *s.args)


def _splits_something(sched: Sched, beta: tuple, depth: int) -> bool:
    """Does ``split(beta, depth)`` move a relation of ``sched``: ``1 ≤
    depth < |β|`` and something after ``beta`` in the loop ``beta[:depth]``?
    Clay's precondition (it refuses the step otherwise: "nothing to
    split"); the symbolic step alone would just change nothing."""
    if not 1 <= depth < len(beta):
        return False
    return any(r.beta[:depth] == beta[:depth] and r.beta[depth:len(beta)] > beta[depth:]
               for r in sched.rels)


def loop_names(steps: list[Step], O: Sched) -> list[Step]:
    """``steps`` with the β of every :data:`SELECTING` step replaced by the
    shortest prefix holding the same statements in the schedule it applies
    to (``O`` then the steps before it); unchanged from the first step the
    symbolic schedule cannot follow."""
    sched = O.copy()
    out: list[Step] = []
    for k, s in enumerate(steps):
        if s.name in SELECTING:
            beta = tuple(s.args[0])
            same = {id(r) for r in sched.under(beta)}
            for m in range(1, len(beta)):
                if {id(r) for r in sched.under(beta[:m])} == same:
                    s = Step(s.name, (beta[:m],) + tuple(s.args[1:]), s.comment)
                    break
        out.append(s)
        try:
            _apply(sched, s)
        except Exception:                   # noqa: BLE001 - naming is cosmetic
            return out + list(steps[k + 1:])
    return out


# --- merge across a fusion -------------------------------------------------------------

#: Loop-level steps that the fusion rule moves after a ``fuse``.
_MOVABLE = frozenset({"skew", "shift", "reverse", "interchange", "reshape", "grain"})


def _state(O: Sched, steps: list[Step]) -> Sched | None:
    """The symbolic schedule after ``steps`` from ``O`` (None when it cannot
    be followed)."""
    sched = O.copy()
    try:
        for s in steps:
            _apply(sched, s)
    except Exception:                       # noqa: BLE001 - the rule is then skipped
        return None
    return sched


def _merge_at(steps: list[Step], f: int, O: Sched, oracle) -> list[Step] | None:
    """The fusion rule at the ``fuse`` step ``f`` (see :func:`merge_across_fusion`),
    or None when it does not apply."""
    A = tuple(steps[f].args[0])
    g = f
    while g + 1 < len(steps) and steps[g + 1].name == "fuse" \
            and tuple(steps[g + 1].args[0]) == A:
        g += 1
    loops = [A[:-1] + (A[-1] + i,) for i in range(g - f + 2)]
    s = f
    while s > 0 and steps[s - 1].name in _MOVABLE:
        s -= 1
    run = steps[s:f]
    seqs: list[list[Step]] = [[] for _ in loops]
    others: list[Step] = []
    for st in run:
        b = tuple(st.args[0])
        if b in loops:
            seqs[loops.index(b)].append(st)
        elif any(b[:len(lp)] == lp or lp[:len(b)] == b for lp in loops):
            return None                     # a step inside one of the loops, or around them
        else:
            others.append(st)
    key = [[(st.name, st.args[1:]) for st in q] for q in seqs]
    if not key[0] or any(k != key[0] for k in key[1:]):
        return None
    moved = [Step(st.name, (A,) + tuple(st.args[1:]),
                  "; ".join(dict.fromkeys(q[n].comment for q in seqs if q[n].comment)))
             for n, st in enumerate(seqs[0])]
    new = steps[:s] + others + steps[f:g + 1] + moved + steps[g + 1:]
    sched = _state(O, steps[:s] + others + steps[f:g + 1])
    if sched is None or not oracle(sched):
        return None
    for st in moved[:-1]:
        try:
            _apply(sched, st)
        except Exception:                   # noqa: BLE001
            return None
        if not oracle(sched):
            return None
    return new


def merge_across_fusion(steps: list[Step], O: Sched, oracle) -> list[Step]:
    """The same loop steps on loops that are fused right after, done once on
    the fused loop: ``Q(A); Q(B); fuse(A)`` → ``fuse(A); Q(A)`` (``Q`` a
    run of ``skew``/``shift``/``reverse``/``interchange``/``reshape``/
    ``grain`` steps, the same on every loop ``fuse`` joins, ``B`` the loop
    after ``A``; steps on other loops in between stay before the fusion).
    The dates reached are the same; applied only where ``oracle`` (a
    legality check of a symbolic schedule) says every new intermediate
    schedule is legal::

        skew([0, 1], 2, 1, -1);                     fuse([0, 1]);
        skew([0, 2], 2, 1, -1);          →          skew([0, 1], 2, 1, -1);
        fuse([0, 1]);
    """
    f = 0
    while f < len(steps):
        if steps[f].name == "fuse" and (f == 0 or steps[f - 1].name != "fuse"
                                        or tuple(steps[f - 1].args[0]) != tuple(steps[f].args[0])):
            new = _merge_at(steps, f, O, oracle)
            if new is not None:
                steps = new
        f += 1
    return steps


# --- shortcuts -----------------------------------------------------------------------

#: How many steps after a split's first step :func:`shortcuts` looks for
#: the inequalities of its candidates.
WINDOW = 40


def _content(r) -> tuple:
    """What relation ``r`` is, but its β-vector."""
    return (r.stmt, tuple(r.canon(a) for a in r.alphas), frozenset(r.canon(c) for c in r.cons),
            r.empty, None if r.dom is None else str(r.dom))


def _marks(S: Sched) -> tuple:
    """The marks of ``S``, in a fixed order."""
    return tuple(sorted(repr(m) for m in S.marks))


def _same_end(O: Sched, steps: list[Step], other: list[Step], empty=None) -> bool:
    """Do ``steps`` and ``other``, both from ``O``, end at the same
    schedule (:func:`_key`), or, with ``empty`` (:func:`_emptiness`), at
    schedules that give every instance the same date (:func:`_dates_key`)?
    False when either cannot be followed.  The check of the rewrite rules
    :func:`skew_runs` and :func:`merge_siblings` (``empty`` None), and of
    :func:`simplify`'s shortcut rounds: a combination of ways met by dates
    may not reach the old dates (lu fuzz sequence
    ``peel([0, 0], {0 | -2}); peel([0], {1 | -2}); …``: two peels that
    leave a statement one place off, which the replay finds "same order,
    different dates" and shows)."""
    a, b = _state(O, steps), _state(O, other)
    if a is None or b is None:
        return False
    if empty is None:
        return _key(a) == _key(b)
    return _dates_key(_key(a), empty) == _dates_key(_key(b), empty)


def _key(S: Sched) -> tuple:
    """What Clay's schedule ``S`` is, without the tags: two symbolic
    schedules with the same key are the same relations at the same β."""
    return tuple((r.beta,) + _content(r) for r in S.rels), _marks(S)


def _emptiness(oracle):
    """``instances(item)``: the instances the relation of ``item`` (a
    relation with its β-vector, as in :func:`_key`) schedules, as isl
    writes the set (its statement's instances where its constraints hold,
    asked of isl through ``oracle.part`` once per statement and
    constraints), or None when it has none.  None when the oracle cannot
    say (no ``part``).  A relation restricted by ``dom`` (an unroll's
    part), or one whose constraints isl cannot read (a candidate's form on
    iterators the statement lacks), is its constraints as written."""
    part = getattr(oracle, "part", None)
    if part is None:
        return None
    memo: dict = {}

    def instances(item):
        _, stmt, _, cons, flag, dom = item
        if flag:
            return None
        if dom is not None:
            return cons, dom
        k = (stmt, cons)
        if k not in memo:
            try:
                inst = part(stmt, list(cons))
                memo[k] = None if inst.is_empty() else str(inst.remove_redundancies())
            except Exception:               # noqa: BLE001 - a form isl cannot read: kept
                memo[k] = cons
        return memo[k]
    return instances


def _dates_key(key: tuple, empty) -> tuple:
    """What the schedule of ``key`` (:func:`_key`) gives the instances: its
    relations with instances (at their β-vectors, with the instances they
    schedule) and its marks, the parts without instance left out
    (``empty``: :func:`_emptiness`).  Two schedules with the same dates
    key give every instance the same date, so one is legal when the other
    is."""
    return _date_items(key[0], empty), key[1]


def _date_items(items, empty) -> frozenset:
    """The relations of ``items`` (relations with their β-vectors, as in
    :func:`_key`) with instances, each with its instances instead of its
    constraints."""
    out = []
    for x in items:
        inst = empty(x)
        if inst is not None:
            out.append(x[:3] + (inst,))
    return frozenset(out)


#: How many times :func:`simplify` looks for shortcuts (each round on the
#: sequence the one before gave).
ROUNDS = 4

#: How many steps :func:`_same_dates_on` may apply per sequence (each a
#: symbolic step) in its checks that the rest of a sequence still fits.
TAIL_BUDGET = 150
GAIN = 0


def _same_dates_on(X: Sched, steps: list[Step], j: int, dkeys: list, empty,
                   budget: list[int]) -> list[Step] | None:
    """``steps[j:]`` as they apply to ``X`` (which gives the instances the
    dates ``states[j]`` gives them: ``dkeys[j]``), when after each step
    they give the dates the old sequence gives there (``dkeys``), without
    the steps that change nothing; None when they do not.  Then every
    schedule on the way is legal (the old one is) and the last one has the
    old last one's dates.  ``budget``: how many more steps the checks may
    apply."""
    if len(steps) - j > budget[0]:
        return None
    budget[0] -= len(steps) - j
    if not _a_tree(X):
        return None
    X = X.copy()
    key = _key(X)
    out = []
    for k in range(j, len(steps)):
        there = _names_a_node(X, steps[k])
        if steps[k].name == "split" and not _splits_something(X, tuple(steps[k].args[0]),
                                                              steps[k].args[1]):
            continue                        # (it changes nothing here: it goes)
        try:
            _apply(X, steps[k], _fresh(k))
        except Exception:                   # noqa: BLE001 - the steps do not fit X
            return None
        if not _a_tree(X):
            return None                     # (Clay refuses the step)
        new = _key(X)
        if _dates_key(new, empty) != dkeys[k + 1]:
            return None
        if new != key:
            if not there:
                return None                 # (a mark of a loop of empty parts only)
            out.append(steps[k])
        key = new
    return out


def _a_tree(X: Sched) -> bool:
    """Are ``X``'s β-vectors a tree, none a proper prefix of another (a
    statement where a loop is)?  Clay refuses a step whose result is not;
    the symbolic steps do not check it, and a schedule met by its dates
    only may place its empty parts so."""
    betas = sorted({tuple(r.beta) for r in X.rels})
    return all(b[:len(a)] != a or len(b) == len(a) for a, b in zip(betas, betas[1:]))


def _names_a_node(X: Sched, st: Step) -> bool:
    """Does the β-vector ``st`` names (its first argument) hold a relation
    of ``X``, and for a mark, is it a loop (a relation's β longer than
    it)?  (Clay refuses a step on a loop that is not there, and a mark on
    a statement; the symbolic steps of a mark do not check it.)"""
    b = st.args[0] if st.args else None
    if not isinstance(b, (tuple, list)) or not all(isinstance(v, int) for v in b):
        return True
    under = X.under(tuple(b))
    if st.name in MARK_STEPS:
        return any(len(r.beta) > len(b) for r in under)
    return bool(under)


#: The steps that put a mark on a loop (:func:`_names_a_node`).
MARK_STEPS = frozenset({"unroll_mark", "parallelize", "vectorize"})


def _by_dates(X: Sched, key: tuple, i: int, steps: list[Step], dkeys: list, dlast: dict,
              empty, budget: list[int]):
    """``(len(steps), tail)``: the old steps from the latest schedule with
    the dates of ``X`` (whose :func:`_key` is ``key``) on (``tail``), when
    they fit ``X`` and keep the old dates all the way
    (:func:`_same_dates_on`), so ``X`` then ``tail`` ends with the old
    sequence's dates; or None.  Only past ``i`` (a schedule the old
    sequence meets after step ``i``)."""
    j = dlast.get(_dates_key(key, empty), -1)
    if j <= i:
        return None
    tail = _same_dates_on(X, steps, j, dkeys, empty, budget)
    return None if tail is None else (len(steps), tail)


def _peel_amount(S: Sched, loop: tuple, st: Step) -> Aff | None:
    """``q`` such that ``peel(loop, q)`` splits every relation under
    ``loop`` as the ``iss`` step ``st`` splits its own (the kept half
    ``α_d + q < 0``), or None."""
    d = len(loop)
    out = None
    if all(not (r.alphas[d - 1].keys("i") or r.alphas[d - 1].keys("d")) for r in S.under(loop)):
        return None                         # a one-iteration loop: nothing to peel
    for r in S.under(loop):
        if len(st.args) == 3:
            if len(st.args[2][0]) > r.depth:
                return None
            e = on_alphas(r, st.args[2])
        else:
            e = st.args[1]
        q = r.canon(-e - Aff.const(1) - r.alphas[d - 1])
        if q.keys("i") or q.keys("d") or (out is not None and q != out):
            return None
        out = q
    return out


def _candidates(states: list[Sched], steps: list[Step], i: int):
    """One-step replacements of a run of steps from ``steps[i]`` on (an
    ``iss`` or an ``embed``, the start of a split the recovery made one
    relation at a time): a ``peel``, then an ``iss``, with the inequality
    of ``iss`` steps that follow, on a loop around ``steps[i]``'s β that
    holds every relation those steps split (``states``: :func:`_tagged`)."""
    S = states[i]
    beta = tuple(steps[i].args[0])
    loops = [beta[:m] for m in range(1, len(beta) + 1) if S.is_loop(beta[:m])]
    groups: dict = {}
    for k in range(i, min(len(steps), i + WINDOW)):
        st = steps[k]
        if st.name == "iss":
            split = _roots(_tags(states[k], tuple(st.args[0])), i - 1)
            groups.setdefault((st.args[1], st.args[2:]), (st, set()))[1].update(split)
    fits = [(st, [lp for lp in loops if split <= _tags(S, lp)])
            for st, split in groups.values()]
    for st, where in fits:
        for loop in where:
            q = _peel_amount(S, loop, st)
            if q is not None:
                yield Step("peel", (loop, q), f"the iterations from {(-q).text()} on "
                           "go to a loop of their own after this one")
    for st, where in fits:
        for loop in where:
            yield Step("iss", (loop,) + tuple(st.args[1:]), st.comment)


#: The steps :func:`_hoisted` may move before a split: they rewrite the α
#: dimensions of the statements they name and nothing else.
_HOISTABLE = frozenset({"reshape", "skew", "shift", "reverse", "interchange"})


def _hoisted(states: list[Sched], steps: list[Step], i: int, memo: dict):
    """``(H, X, cuts)``: the α steps of the window from ``steps[i]`` on
    (``reshape``, ``skew``… of the parts the run of splits from there
    makes, :data:`_HOISTABLE`), each once, on the statement or loop of
    ``states[i]`` the parts come from (``H``); the schedule ``X`` they give
    from ``states[i]``; and the splits (``iss`` and ``peel``) of the loops
    around ``steps[i]``'s β in ``X`` with the inequalities of the window's
    ``iss`` steps written on the α dimensions (``cuts``).  The recovery
    splits first, one relation at a time, and rewrites the parts' α
    dimensions after; where the target's split was of the α dimensions
    as a step before made them, ``H`` then one split is that way::

        embed([1, 0]); iss([1, 0], …); split; unembed; unembed;
        (the same for [1, 2, 0] and [1, 2, 2])                      reshape([1, 1, 0], 1, 2, -2);
        reshape([1, 2, 1], 1, 2, -2); reshape([1, 2, 0], 1, 2, -2); →   iss([1], {[-1] | [] | [1, 0] | -4});
        reorder; split; reorder       (bicg fuzz seed 70024)

    Nothing when the window has no such step, or when moving them makes
    no two of the cuts' forms on the α dimensions one (:func:`_candidates`
    has the splits without them).  ``memo``: the α forms found so far."""
    from .recover import alpha_form
    S = states[i]
    beta = tuple(steps[i].args[0])
    end = min(len(steps), i + WINDOW)
    moves: dict = {}
    for k in range(i + 1, end):
        st = steps[k]
        if st.name not in _HOISTABLE:
            continue
        b = tuple(st.args[0])
        roots = _roots(_tags(states[k], b), i - 1)
        node = _node(S, roots, len(b)) if roots else None
        if node is None:
            return                          # a step on what the run made: not hoisted
        moves.setdefault((st.name, st.args[1:], node), Step(st.name, (node,) + tuple(st.args[1:]),
                                                            st.comment))
    if not moves:
        return
    H = list(moves.values())
    X = S.copy()
    try:
        for st in H:
            _apply(X, st)
    except Exception:                       # noqa: BLE001 - not a candidate
        return
    cuts_of = {(root, st.args[1]) for k in range(i, end)
               for st in (steps[k],) if st.name == "iss" and len(st.args) == 2
               for r in states[k].under(tuple(st.args[0]))[:1]
               for root in _roots({r.tag}, i - 1)}
    touched = set().union(*(_tags(S, st.args[0]) for st in H))
    if len({c for _, c in cuts_of}) < 2 or not any(root in touched for root, _ in cuts_of):
        return                              # one cut already, or the moved steps change none

    def cut_form(r, c):
        k = (r.stmt, tuple(r.alphas), c)
        if k not in memo:
            memo[k] = alpha_form(r, c)
        return memo[k]

    def forms_on(Y: Sched, roots) -> set:
        return {cut_form(Y.by_tag(root), c) for root, c in cuts_of if roots(root)}
    same = forms_on(S, lambda t: t not in touched)
    forms = same | forms_on(X, touched.__contains__)
    forms.discard(None)
    if len(forms) >= len(same | forms_on(S, touched.__contains__)):
        return                              # the moved steps make no two cuts one
    loops = [beta[:m] for m in range(1, len(beta) + 1) if X.is_loop(beta[:m])]
    cuts = []
    for form in forms:
        for loop in loops:
            under = X.under(loop)
            if any(len(form[0]) > r.depth for r in under):
                continue
            st = Step("iss", (loop, on_alphas(under[0], form), form), "split the loop")
            cuts.extend(_on(X, loop, st))
    yield H, X, cuts


def _hoisted_ways(states: list[Sched], steps: list[Step], i: int, last: dict, sigs: list,
                  oracle, dates=None, memo: dict | None = None) -> list:
    """The ways on from ``states[i]`` that :func:`_hoisted`'s steps and one
    split of theirs give (``(j, steps)``, as in :func:`shortcuts`): to a
    later schedule of the old sequence, or to one whose loop's parts are
    in another order (then a ``reorder``, :func:`_with_reorder`), or, with
    ``dates``, to one with its dates (the old steps after it kept).  The
    schedules after the moved steps must be legal (``oracle``); the one
    after the split is an old one, or asked."""
    out = []
    for H, X, cuts in _hoisted(states, steps, i, {} if memo is None else memo):
        legal: list = []

        def moved_legal() -> bool:
            if not legal:
                Y = states[i].copy()
                ok = True
                for st in H:
                    _apply(Y, st)
                    if not oracle(Y):
                        ok = False
                        break
                legal.append(ok)
            return legal[0]
        n = len(H) + 1
        for c in cuts:
            Y = _after(X, c)
            if Y is None:
                continue
            ky = _key(Y)
            j = last.get(ky, -1)
            if j >= i + n + 1:
                if moved_legal():
                    out.append((j, H + [c]))
                continue
            if j >= 0:
                continue
            if c.name == "iss":
                pair = _with_reorder(states, sigs, i, Y, c, oracle)
                if pair is not None and pair[0] >= i + n + 2 and moved_legal():
                    out.append((pair[0], H + pair[1]))
                    continue
            if dates is not None:
                w = dates(Y, ky, i + n + GAIN)
                if w is not None and moved_legal() and oracle(Y):
                    out.append((w[0], H + [c] + w[1], True))
    return out


#: How many schedules :func:`shortcuts` may compute per sequence in its
#: search for two-step replacements (each a symbolic ``iss`` or ``peel``).
PAIR_BUDGET = 100


def _negated(st: Step) -> Step:
    """The ``iss`` step ``st`` with the other half kept at the β (Clay's
    ``iss`` of the complement inequality)."""
    if len(st.args) == 3:
        coef, rest = st.args[2]
        return Step("iss", (st.args[0], -st.args[1] - Aff.const(1),
                            (tuple(-c for c in coef), -rest - Aff.const(1))), st.comment)
    return Step("iss", (st.args[0], -st.args[1] - Aff.const(1)), st.comment)


def _splits_in(states: list[Sched], steps: list[Step], i: int) -> list[Step]:
    """The different ``iss`` steps of the window from ``steps[i]`` on, each
    as written and with the other half kept (:func:`_negated`)."""
    seen: dict = {}
    for k in range(i, min(len(steps), i + WINDOW)):
        st = steps[k]
        if st.name == "iss":
            for x in (st, _negated(st)):
                seen.setdefault(x.args[1:], x)
    return list(seen.values())


def _on(S: Sched, loop: tuple, st: Step):
    """The ``peel`` (when it fits) and the ``iss`` that split the relations
    under ``loop`` of ``S`` as the ``iss`` step ``st`` splits its own."""
    q = _peel_amount(S, loop, st)
    if q is not None:
        yield Step("peel", (loop, q), f"the iterations from {(-q).text()} on "
                   "go to a loop of their own after this one")
    yield Step("iss", (loop,) + tuple(st.args[1:]), st.comment)


def _after(S: Sched, c: Step) -> Sched | None:
    X = S.copy()
    try:
        _apply(X, c)
    except Exception:                       # noqa: BLE001 - not a candidate
        return None
    return X


def _items(S: Sched) -> frozenset:
    """The relations of ``S`` with their β-vectors, without tags."""
    return frozenset((r.beta,) + _content(r) for r in S.rels)


def _two_steps(states: list[Sched], steps: list[Step], i: int, last: dict, oracle,
               budget: list[int], items: list, dates=None) -> list:
    """``(j, [c1, c2])``: two splits (``iss`` or ``peel``, with the
    inequalities of the ``iss`` steps from ``steps[i]`` on, either half
    kept, two different ones) that reach the latest schedule ``states[j]``
    they can from ``states[i]``, the first on a loop around ``steps[i]``'s
    β, the second on that loop or a loop inside it; the schedule between
    them legal (``oracle``).  The recovery splits a relation at a time;
    where a target split a loop and then one of the loops inside, in the
    other order than the recovery, this is those two splits::

        iss([1, 1], n + 5 < 0); embed; iss; split; unembed; unembed; …     iss([1], i < 0)
        (one chain a statement of loop [1]); reorder; split; reorder  →   iss([1, 1], n + 5 < 0)

    A candidate goes without being applied when what it leaves alone (the
    relations outside its loop) is in no later schedule.  ``budget``: how
    many more schedules the search may compute; ``items``: the states'
    :func:`_items`, filled in as needed.  ``dates`` (when given): the way
    on from a schedule the two splits reach that the old sequence meets
    only by its dates (:func:`_by_dates`); then the way to the end is
    returned too.  Returns the ways found (``(j, steps)``)."""
    S = states[i]
    beta = tuple(steps[i].args[0])
    splits = _splits_in(states, steps, i)
    later = range(i + 3, len(states))
    for j in later:
        if items[j] is None:
            items[j] = _items(states[j])
    best = None
    by_dates = None
    for m in range(1, len(beta) + 1):
        outer = beta[:m]
        if not S.is_loop(outer):
            continue
        kept = frozenset((r.beta,) + _content(r) for r in S.rels if r.beta[:m] != outer)
        if not any(kept <= items[j] for j in later):
            continue                            # what c1 and c2 leave is nowhere later
        for st in splits:
            for c1 in _on(S, outer, st):
                if budget[0] <= 0:
                    return _found(best, by_dates)
                budget[0] -= 1
                X = _after(S, c1)
                if X is None:
                    continue
                xs = [(r.beta,) + _content(r) for r in X.rels]
                loops = sorted({r.beta[:n] for r in X.under(outer)
                                for n in range(m, len(r.beta))})
                for loop in loops:
                    kept = frozenset(x for x in xs if x[0][:len(loop)] != loop)
                    if not any(kept <= items[j] for j in later):
                        continue                # what c2 leaves is nowhere later
                    for st2 in splits:
                        if st2.args[1] in (st.args[1], -st.args[1] - Aff.const(1)):
                            continue            # the same cut again
                        for c2 in _on(X, loop, st2):
                            if budget[0] <= 0:
                                return _found(best, by_dates)
                            budget[0] -= 1
                            Y = _after(X, c2)
                            ky = None if Y is None else _key(Y)
                            j = -1 if Y is None else last.get(ky, -1)
                            if j >= i + 3 and (best is None or j > best[0]) and oracle(X):
                                best = (j, [c1, c2])
                            elif j < 0 and Y is not None and dates is not None:
                                w = dates(Y, ky, i + 2 + GAIN)
                                if w is not None and (by_dates is None or len(w[1]) + 2
                                                      < len(by_dates[1])) and oracle(X):
                                    by_dates = (w[0], [c1, c2] + w[1], True)
    return _found(best, by_dates)


def _found(*ways) -> list:
    return [w for w in ways if w is not None]


def _signature(S: Sched) -> int:
    """A hash of the relations of ``S`` without their β-vectors (equal for
    two schedules that differ only in the order of their loops)."""
    return hash(tuple(sorted(hash(_content(r)) for r in S.rels)))


def _sorted_key(S: Sched, loop: tuple) -> tuple | None:
    """:func:`_key` of ``S`` with the children of ``loop`` in a fixed order
    (by what they hold) and that order's positions of the children as they
    are, or None when two children hold the same."""
    d = len(loop)
    groups: dict = {}
    for r in S.rels:
        if r.beta[:d] == loop and len(r.beta) > d:
            groups.setdefault(r.beta[d], []).append((r.beta[d + 1:],) + _content(r))
    content = {k: tuple(v) for k, v in groups.items()}
    if len(set(content.values())) < len(content):
        return None
    order = sorted(content, key=lambda k: hash(content[k]))
    rank = {k: n for n, k in enumerate(order)}
    rels = tuple(sorted(
        ((r.beta[:d] + (rank[r.beta[d]],) + r.beta[d + 1:]
          if r.beta[:d] == loop and len(r.beta) > d else r.beta,) + _content(r)
         for r in S.rels), key=lambda t: t[0]))
    return (rels, _marks(S)), [rank[k] for k in sorted(rank)]


def _with_reorder(states: list[Sched], sigs: list[int], i: int, X: Sched, c: Step, oracle):
    """``(j, [c, reorder(loop, order)])``: the latest schedule
    ``states[j]`` that the step ``c`` (an ``iss`` of ``loop``) reaches from
    ``states[i]`` (giving ``X``) with the children of ``loop`` put in
    another order, when ``X`` is legal (``oracle``); or None.  ``sigs``:
    the states' :func:`_signature`."""
    loop = tuple(c.args[0])
    sig = _signature(X)
    mine = None
    for j in range(len(states) - 1, i + 2, -1):
        if sigs[j] != sig:
            continue
        mine = mine or _sorted_key(X, loop)
        theirs = _sorted_key(states[j], loop)
        if mine is None or theirs is None or theirs[0] != mine[0]:
            continue
        if not oracle(X):
            return None
        # child k of X holds what child order[k] of states[j] holds
        where = {rank: pos for pos, rank in enumerate(theirs[1])}
        order = [where[rank] for rank in mine[1]]
        return j, [c, Step("reorder", (loop, order), "put the parts in their order")]
    return None


def shortcuts(steps: list[Step], O: Sched, oracle=None, empty=None,
              forms: dict | None = None) -> list[Step]:
    """``steps`` with every run that leads back to a schedule met before
    removed, and every run from an ``iss`` or ``embed`` that one ``iss`` or
    ``peel`` of a loop around it reaches (:func:`_candidates`) replaced by
    it; with an ``oracle``, also by an ``iss`` and a ``reorder`` of the
    loop (when the schedule between them is legal), and, at an ``iss``
    followed by an ``embed``, by two splits (:func:`_two_steps`).  Every
    replacement found is a way from one schedule met to a later one; the
    shortest sequence over all of them is returned (ties: the way that
    goes further first).  The other schedules on the way are the old ones
    or asked of the oracle, so every step stays legal::

        iss([0, 0], {| 0, 1 | [-1] | -2}); embed([0, 0, 0]);
        iss([0, 0, 0], {| 0, 1 | [0] | 5}); split([0, 0, 0, 0], 3);      peel([0, 0], {-1 | -2});
        unembed([0, 0, 0, 0]); unembed([0, 0, 1, 0]);               →   peel([0, 0], {0 | 5});
        iss([1, 0], {| 0, 1 | [0] | 4}); split([0, 0, 0], 2);           peel([1, 0], {0 | 4});
        split([0, 0], 1); split([1, 0, 0], 2); split([2, 0, 0], 2);     split([0, 0], 1);

    (with :func:`early_splits`, which puts each ``split`` next to its
    ``iss``).

    With ``empty`` (:func:`_emptiness`), schedules are also compared by
    the dates they give (:func:`_dates_key`: the parts without instance
    left out, which the recovery splits and moves one at a time, and
    often not as the target did): a run of steps that changes only such
    parts goes, and a replacement that reaches a schedule only by its
    dates is kept, when the old steps after it still fit and keep the old
    dates all the way (:func:`_by_dates`)::

        iss([1, 1], {| | [0, 1] | 4}); embed([1, 0]);
        iss([1, 0], {| [1] | [0, 0] | 0}); split([1, 0, 0], 2); …        iss([1], {| [1] | [0, 0] | 0});
        (19 steps, bicg fuzz seed 50234)                         →   iss([1, 1], {| | [0, 1] | 4});

    With an ``oracle``, α steps after a run of splits also move before it
    when one split of a loop then does (:func:`_hoisted_ways`); ``forms``:
    the α forms of the cuts found so far (shared by :func:`simplify`'s
    rounds).
    """
    states = _tagged(O, steps)
    if states is None:
        return steps
    keys = [_key(X) for X in states]
    last = {k: j for j, k in enumerate(keys)}
    sigs = [_signature(X) for X in states] if oracle is not None else []
    budget = [PAIR_BUDGET]
    n = len(steps)
    items: list = [None] * len(states)
    forms = {} if forms is None else forms
    dkeys = dlast = dates = None
    if empty is not None:
        dkeys = [_dates_key(k, empty) for k in keys]
        dlast = {k: j for j, k in enumerate(dkeys)}
        tails = [TAIL_BUDGET]

        def dates(X: Sched, key: tuple, i: int = -1):
            return _by_dates(X, key, i, steps, dkeys, dlast, empty, tails)
    # every way on from each schedule: (j, the steps from states[i] to states[j])
    ways: list[list] = [[] for _ in range(n)]
    for i in range(n):
        if last[keys[i]] > i:
            ways[i].append((last[keys[i]], []))
            continue
        ways[i].append((i + 1, [steps[i]]))
        if dates is not None and keys[dlast[dkeys[i]]] != keys[i]:
            w = dates(states[i], keys[i], i)    # the steps from here change empty parts only
            if w is not None:
                ways[i].append(w + (True,))
        if steps[i].name not in ("iss", "embed"):
            continue
        for c in _candidates(states, steps, i):
            X = _after(states[i], c)
            if X is None:
                continue
            kx = _key(X)
            j = last.get(kx, -1)
            if j >= i + 2:
                ways[i].append((j, [c]))
            elif j < 0 and c.name == "iss" and oracle is not None:
                pair = _with_reorder(states, sigs, i, X, c, oracle)
                if pair is not None and pair[0] >= i + 3:
                    ways[i].append(pair)
            if j < 0 and dates is not None:
                w = dates(X, kx, i + 1 + GAIN)
                if w is not None:
                    ways[i].append((w[0], [c] + w[1], True))
        if oracle is not None:
            ways[i].extend(_hoisted_ways(states, steps, i, last, sigs, oracle, dates, forms))
        if steps[i].name == "iss" and i + 1 < n and steps[i + 1].name == "embed" \
                and oracle is not None:
            ways[i].extend(_two_steps(states, steps, i, last, oracle, budget, items,
                                      dates))

    # the shortest way from O to the end (ties: one that meets the old
    # schedules as they are, whose steps later rounds may shorten further,
    # then the one that goes further first)
    best: list = [None] * n + [(0, [])]
    for i in range(n - 1, -1, -1):
        best[i] = min(((len(w[1]) + best[w[0]][0], len(w) > 2, -w[0], w[1], w[0])
                       for w in ways[i]), key=lambda t: t[:3])
    out: list[Step] = []
    i = 0
    while i < n:
        _, _, _, w, j = best[i]
        out.extend(w)
        i = j
    return out


def _tagged(O: Sched, steps: list[Step]) -> list[Sched] | None:
    """The schedules from ``O`` along ``steps`` (``O`` first), every
    relation with a tag of its own (a copy a step makes, a new one), or
    None when the steps cannot be followed."""
    X = O.copy()
    for n, r in enumerate(X.rels):
        r.tag = n
    out = [X]
    for j, s in enumerate(steps):
        X = X.copy()
        try:
            _apply(X, s, _fresh(j))
        except Exception:                   # noqa: BLE001 - the rule is then skipped
            return None
        out.append(X)
    return out


def _fresh(j: int):
    """The tags of the copies step ``j`` makes (the same in any sequence
    that keeps the step's number)."""
    return lambda r, m=0: (j, r.tag, m)


def _roots(tags, m: int) -> frozenset:
    """``tags`` as the relations they were after step ``m`` (a copy a later
    step made is a part of the relation it was made from)."""
    out = set()
    for t in tags:
        while isinstance(t, tuple) and t[0] > m:
            t = t[1]
        out.add(t)
    return frozenset(out)


def _tags(S: Sched, b: tuple) -> frozenset:
    return frozenset(r.tag for r in S.under(b))


def _node(S: Sched, tags: frozenset, depth: int) -> tuple | None:
    """The β prefix of length ``depth`` in ``S`` with exactly the relations
    ``tags`` under it (None: there is none)."""
    for r in S.rels:
        if r.tag in tags:
            b = r.beta[:depth]
            return b if len(b) == depth and _tags(S, b) == tags else None
    return None


def _moved_split(S: Sched, loop_tags: frozenset, depth: int, moved: frozenset):
    """The ``split`` step that cuts the loop of depth ``depth`` holding
    exactly ``loop_tags`` in ``S`` so that the relations ``moved`` (the
    last ones in it) go to the new loop after it (None: no such cut)."""
    loop = _node(S, loop_tags, depth)
    if loop is None:
        return None
    kids = S.children(loop)
    flags = [bool(_tags(S, k) & moved) for k in kids]
    if any(bool(_tags(S, k) - moved) and f for k, f in zip(kids, flags)):
        return None                         # a child holds both
    n = flags.index(True) if True in flags else 0
    if n == 0 or not all(flags[n:]):
        return None
    return Step("split", (kids[n - 1], depth), "separate the two parts")


def _rebased(st: Step, old: Sched, new: Sched) -> Step | None:
    """``st``, which applies to ``old``, rewritten for ``new`` (the same
    relations, other β-vectors): its loop or statement named by the
    relations under it (None when ``new`` has no such node)."""
    b = tuple(st.args[0])
    nb = _node(new, _tags(old, b), len(b))
    if nb is None:
        return None
    return Step(st.name, (nb,) + tuple(st.args[1:]), st.comment)


def early_splits(steps: list[Step], O: Sched, oracle) -> list[Step]:
    """Each ``split`` moved to right after the ``iss`` (or ``peel``) that
    made the parts it moves, the steps in between renamed for the new
    β-vectors, when the schedule reached is the same and every new
    intermediate schedule is legal (``oracle``): then the ``iss`` and the
    ``split`` are one ``peel`` (:func:`shortcuts`)::

        iss([0, 0], …); iss([1, 0], …);           iss([0, 0], …); split([0, 0, 0], 2);
        split([0, 0, 0], 2); split([1, 0, 0], 2)  →  iss([1, 0], …); split([1, 0, 0], 2)
    """
    states = _tagged(O, steps)
    if states is None:
        return steps
    k = 0
    while k < len(steps):
        if steps[k].name == "split":
            new = _move_split(steps, states, k, oracle)
            if new is not None:
                steps = new
                states = _tagged(O, steps)
        k += 1
    return steps


def _move_split(steps: list[Step], states: list[Sched], k: int, oracle) -> list[Step] | None:
    """``steps`` with the ``split`` ``steps[k]`` moved to right after the
    step that made the copies it moves (see :func:`early_splits`), or None."""
    before, after = states[k], states[k + 1]
    beta, depth = tuple(steps[k].args[0]), steps[k].args[1]
    loop_tags = _tags(before, beta[:depth])
    keep = next((_tags(after, r.beta[:depth]) for r in after.rels if r.tag in loop_tags), None)
    if keep is None:
        return None                         # (a split that a shortcut left out of place)
    moved = loop_tags - keep
    # the steps that made the moved relations (each a copy of a copy …)
    if not moved:
        return None                         # (a split that moves nothing)
    t = next(iter(moved))
    made = []
    while isinstance(t, tuple):
        made.append(t[0])
        t = t[1]
    for m in made:
        if m >= k - 1 or steps[m].name not in ("iss", "peel"):
            continue
        # the relations as they were after step m (later copies are parts of
        # them): the split must move copies step m made, and only those
        roots = _roots(loop_tags, m)
        gone = _roots(moved, m)
        if gone & _roots(keep, m) or any(not isinstance(t, tuple) or t[0] != m
                                         for t in gone):
            continue
        X = states[m + 1].copy()
        cut = _moved_split(X, roots, depth, gone)
        if cut is None:
            continue
        new = steps[:m + 1] + [cut]
        on_the_way = []
        try:
            _apply(X, cut)
            for j in range(m + 1, k):
                on_the_way.append((j, X.copy()))
                st = _rebased(steps[j], states[j], X)
                if st is None:
                    raise ValueError("no such loop")
                _apply(X, st, _fresh(j))
                new.append(st)
        except Exception:                   # noqa: BLE001 - not a move
            continue
        # the same schedule as after the split where it was (the rest of the
        # steps are the same), and every new schedule on the way legal
        if _key(X) == _key(states[k + 1]) and all(
                _cut_only(Y, states[j], j, states[k + 1], loop_tags, moved, depth)
                or oracle(Y) for j, Y in on_the_way):
            return new + steps[k + 1:]
    return None


def _cut_only(Y: Sched, old: Sched, j: int, after: Sched, tags: frozenset,
              moved: frozenset, depth: int) -> bool:
    """True when the schedule ``Y`` (before step ``j``, with the cut of the
    loop of depth ``depth`` holding ``tags`` made early, ``moved`` going to
    the new loop) is legal without asking: ``Y`` is the schedule ``old``
    (before step ``j`` in the old sequence, legal) with that cut, and every
    relation of the loop has the outer dimensions ``1 … depth-1`` its parts
    have ``after`` the cut where it was (legal).  Then a pair of instances
    on the two sides of the cut is ordered as ``after`` orders it (by those
    dimensions, then the cut), and any other pair as ``old`` does (the cut
    moves no instance across another's)."""
    Z = old.copy()
    cut = _moved_split(Z, _roots(tags, j - 1), depth, _roots(moved, j - 1))
    if cut is None:
        return False
    _apply(Z, cut)
    if _key(Z) != _key(Y):
        return False
    n = depth - 1
    for y in after.rels:
        if y.tag in tags:
            (t,) = _roots({y.tag}, j - 1)
            try:
                x = Y.by_tag(t)
            except KeyError:
                return False
            if [x.canon(a) for a in x.alphas[:n]] != [y.canon(a) for a in y.alphas[:n]]:
                return False
    return True


#: How many schedules the rules of :func:`simplify` may ask the legality
#: oracle about (each question is an isl computation; past it, a rule
#: that needs one more answer is not applied).
ORACLE_BUDGET = 8


def _remembered(oracle, budget: int = ORACLE_BUDGET):
    """``oracle`` answering each schedule (by :func:`_key`) once, and at
    most ``budget`` schedules (no for the others)."""
    memo: dict = {}

    def legal(sched: Sched) -> bool:
        k = _key(sched)
        if k not in memo:
            if len(memo) >= budget:
                return False
            memo[k] = oracle(sched)
        return memo[k]
    return legal


def simplify(steps, O: Sched | None = None, T: Sched | None = None,
             oracle=None) -> list[Step]:
    """``steps`` made shorter, same result (see the module docstring).
    ``O``, the symbolic schedule the steps start from, is needed by the
    loop-name rule (skipped without it); ``T``, the target, says whether
    schedules are compared by their dates too (when it has parts without
    instance: :func:`shortcuts`); ``oracle`` (a legality check of a
    symbolic schedule, with the instances of a part: :class:`Oracle`) by
    the tile-chain, fusion and dates rules (skipped without it)."""
    steps = list(steps)
    empty = None
    if oracle is not None:
        if T is not None and any(r.empty for r in T.rels):
            empty = _emptiness(oracle)      # (a target without empty parts: not needed)
        oracle = _remembered(oracle)
    if O is not None:
        # the schedules compared as they are first, then by their dates too
        # (a way met by dates keeps the old steps after it: shortcuts found
        # among them first)
        dates = empty
        forms: dict = {}
        for _ in range(ROUNDS):
            new = shortcuts(steps, O, oracle, dates, forms)
            if oracle is not None and any(st.name == "split" for st in new):
                new = early_splits(new, O, oracle)
            if new != steps and not _same_end(O, steps, new, dates):
                new = steps                 # (a way that does not reach the old dates)
            if new == steps:
                if dates is not None or empty is None:
                    break
                dates = empty
            steps = new
        steps = loop_names(steps, O)
    while True:
        out: list[Step] = []
        for s in steps:
            if _noop(s):
                continue
            out.append(s)
            while len(out) >= 2:
                new = _pair(out[-2], out[-1])
                if new is None:
                    break
                del out[-2:]
                out.extend(x for x in new if not _noop(x))
        out = _permutations(_merge_shifts(out))
        if O is not None and oracle is not None:
            out = tile_chains(out, O, oracle)
            out = merge_across_fusion(out, O, oracle)
            out = skew_runs(merge_siblings(out, O, oracle), O, oracle)
        if out == steps:
            return out
        steps = out
