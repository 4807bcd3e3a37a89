"""isl helpers the analyses share (and code generation, for its messages):
deterministic sample points with small parameter values, a per-object cache
of derived views, and the wrapper that turns a raw ``isl.Error`` into a
:class:`~clayx.errors.ModelError`."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict

import islpy as isl

from ..errors import ModelError

__all__ = ["WITNESS_PARAM_BOX", "IdentityCache", "pieces", "point_values", "small_point",
           "wrap_isl"]

_dt = isl.dim_type

#: Parameter box tried first for witnesses (small sizes read best).
WITNESS_PARAM_BOX = (0, 20)


def wrap_isl(fn):
    """Decorator: a raw ``isl.Error`` raised by ``fn`` becomes a
    :class:`~clayx.errors.ModelError` naming ``fn``."""
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        try:
            return fn(*args, **kw)
        except isl.Error as e:
            raise ModelError(f"{fn.__name__}: isl failed: {e}") from e
    return wrapper


def pieces(pw) -> list[tuple[isl.Set, object]]:
    """The pieces ``(domain, function)`` of a piecewise ``PwAff`` or
    ``PwMultiAff`` (islpy gives ``get_pieces`` for the first only)."""
    out: list = []
    pw.foreach_piece(lambda dom, f: out.append((dom, f)))
    return out


def _int(v: isl.Val) -> int:
    return int(v.to_python())


def point_values(s: isl.Set) -> tuple[dict[str, int], tuple[int, ...]]:
    """isl's sample point of the non-empty set ``s``: ``({param: value},
    (set coordinates…))``."""
    p = s.sample_point()
    params = {s.get_dim_name(_dt.param, k): _int(p.get_coordinate_val(_dt.param, k))
              for k in range(s.dim(_dt.param))}
    vals = tuple(_int(p.get_coordinate_val(_dt.set, k)) for k in range(s.dim(_dt.set)))
    return params, vals


def small_point(s: isl.Set) -> tuple[dict[str, int], tuple[int, ...]]:
    """A deterministic point of the non-empty set ``s`` (params then set
    dims, as :func:`point_values`): the smallest parameters in
    :data:`WITNESS_PARAM_BOX` when possible, then the lexicographically
    smallest point when bounded, else isl's sample."""
    npar = s.dim(_dt.param)
    if npar:
        ps = s.params()
        lo, hi = WITNESS_PARAM_BOX
        box = ps
        for k in range(npar):
            box = box.lower_bound_val(_dt.param, k, lo).upper_bound_val(_dt.param, k, hi)
        if not box.is_empty():
            ps = box
        as_set = ps.move_dims(_dt.set, 0, _dt.param, 0, npar)
        pv = as_set.lexmin() if as_set.is_bounded() else as_set
        _, values = point_values(pv)
        for k, v in enumerate(values):
            s = s.fix_val(_dt.param, k, v)
    if s.is_bounded():
        s = s.lexmin()
    return point_values(s)


class IdentityCache:
    """A small thread-safe LRU of values computed from an object, keyed by
    the object's identity (schedules are immutable values, so one computed
    view serves every later question about the same schedule).  The value
    depends on the object only; the cache keeps the object alive so its id
    is not reused while cached."""

    def __init__(self, build, size: int = 8):
        self._build = build
        self._size = size
        self._items: "OrderedDict[int, tuple[object, object]]" = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, obj):
        key = id(obj)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] is obj:
                self._items.move_to_end(key)
                return hit[1]
        value = self._build(obj)
        with self._lock:
            self._items[key] = (obj, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value
