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
  ``shift(β, d, P1, c1); shift(β, d, P2, c2)`` → ``shift(β, d, P1+P2, c1+c2)``;
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


from .model import Aff, Sched
from .steps import Recorder, Step, tile_step

__all__ = ["RULES", "loop_names", "merge_across_fusion", "simplify", "tile_chains"]

#: The rule names, for reports and tests.
RULES = ("loop names", "no-op", "cancel reverse", "cancel interchange", "merge shifts",
         "merge skews", "stripmine and interchange are a tile", "signed permutation",
         "tile chain", "merge across a fusion")

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

def _apply(sched: Sched, s: Step) -> None:
    """Apply ``s`` to the symbolic ``sched`` (iss halves get fresh tags)."""
    rec = Recorder(sched)
    if s.name == "iss":
        rec.do("iss", *s.args, new_tag=lambda r: -1)
    else:
        rec.do(s.name, *s.args)


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


def simplify(steps, O: Sched | None = None, T: Sched | None = None,
             oracle=None) -> list[Step]:
    """``steps`` made shorter, same result (see the module docstring).
    ``O``, the symbolic schedule the steps start from, is needed by the
    loop-name rule (skipped without it); ``T`` is not used; ``oracle``
    (a legality check of a symbolic schedule) by the tile-chain and fusion
    rules (skipped without it)."""
    steps = list(steps)
    if O is not None:
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
        out = _permutations(out)
        if O is not None and oracle is not None:
            out = tile_chains(out, O, oracle)
            out = merge_across_fusion(out, O, oracle)
        if out == steps:
            return out
        steps = out
