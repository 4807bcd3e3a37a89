"""isl context options that islpy does not wrap, set through
``isl_ctx_parse_options``.

isl has options with no ``isl_options_set_*`` function, only a command-line
form (``--no-schedule-parametric``), parsed into a context's options by
``isl_ctx_parse_options(ctx, argc, argv, flags)``.  islpy's extension module
exports that function but does not expose a context's ``isl_ctx`` pointer
to Python.  :func:`ctx_pointer` reads it from the nanobind instance of an
:class:`islpy.Context` and *validates* it before it is ever passed to isl:

1. the instance's nanobind header (its data offset and state bits) must be
   that of a constructed object whose C++ data (islpy's wrapper, whose first
   member is the ``isl_ctx *``) lies inside the Python object or behind a
   pointer stored there;
2. a second wrapper of the same context (``get_ctx()`` of an object built on
   it, which nanobind stores behind a pointer, not inline) must give the
   same pointer, and a wrapper of another context another one;
3. two distinct values of an option islpy *does* wrap
   (``schedule_max_constant_term``), set through islpy's setter, must be
   read back through isl's exported C getter on that pointer; the old value
   is restored.

When any check fails (another islpy build, another Python object layout, a
free-threaded interpreter), :func:`ctx_pointer` returns ``None`` and the
option is not set: :func:`set_bool_option` says so by returning ``False``;
nothing is written through an unvalidated pointer.

isl has no getter for these options either, so the value in force is
tracked here (:func:`bool_option`): isl's default until set through
:func:`set_bool_option`.
"""

from __future__ import annotations

import ctypes
import struct
import sys
import sysconfig

import islpy as isl

__all__ = ["DEFAULTS", "bool_option", "ctx_pointer", "set_bool_option"]

#: isl's defaults of the boolean options set here (isl's names, without
#: ``--``)
DEFAULTS = {"schedule-parametric": 1}

#: (pointer, option) -> value in force, where it is not isl's default
_VALUES: dict[tuple[int, str], int] = {}

_PTR = ctypes.sizeof(ctypes.c_void_p)
_HEAD = 2 * _PTR                  # PyObject_HEAD: ob_refcnt, ob_type
_STATE_READY = 2                  # nanobind nb_inst::state_ready
_lib = None


def _isl_lib():
    """islpy's extension module as a ctypes library, with the prototypes used
    here; ``None`` when it does not export them."""
    global _lib
    if _lib is None:
        try:
            lib = ctypes.CDLL(isl._isl.__file__)
            get = lib.isl_options_get_schedule_max_constant_term
            parse = lib.isl_ctx_parse_options
        except (OSError, AttributeError):
            _lib = False
            return None
        get.restype, get.argtypes = ctypes.c_int, [ctypes.c_void_p]
        parse.restype = ctypes.c_int
        parse.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                          ctypes.c_uint]
        _lib = lib
    return _lib or None


def _raw_pointer(obj) -> int | None:
    """The first word of the C++ object a nanobind instance wraps (islpy's
    ``isl_ctx *``), read from the instance's header; ``None`` when the header
    is not that of a constructed nanobind object of this layout."""
    if sysconfig.get_config_var("Py_GIL_DISABLED") or sys.implementation.name != "cpython":
        return None                     # another object header
    size = type(obj).__basicsize__
    if size < _HEAD + 8 + _PTR:
        return None
    head = ctypes.string_at(id(obj), _HEAD + 8)
    offset, flags = struct.unpack_from("<iI" if sys.byteorder == "little" else ">iI",
                                       head, _HEAD)
    state, direct = flags & 3, (flags >> 2) & 1
    if state != _STATE_READY or not _HEAD + 8 <= offset <= size - _PTR or offset % _PTR:
        return None
    data = id(obj) + offset
    if not direct:                      # the object lies behind a pointer
        data = ctypes.c_void_p.from_address(data).value
        if not data or data % _PTR:
            return None
    ptr = ctypes.c_void_p.from_address(data).value
    return ptr if ptr and not ptr % _PTR else None


def ctx_pointer(ctx: isl.Context) -> int | None:
    """``ctx``'s ``isl_ctx *`` as an integer, validated (module docstring),
    or ``None`` when it cannot be read with certainty."""
    lib = _isl_lib()
    if lib is None or type(ctx) is not isl.Context:
        return None
    try:
        ptr = _raw_pointer(ctx)
        other = isl.Set.empty(isl.Space.set_alloc(ctx, 0, 0)).get_ctx()
        if ptr is None or _raw_pointer(other) != ptr:
            return None
        if _raw_pointer(isl.Context()) in (ptr, None):
            return None
    except Exception:                   # noqa: BLE001 - any surprise: not validated
        return None
    old = ctx.get_schedule_max_constant_term()
    try:
        for probe in (7919, 104729):
            ctx.set_schedule_max_constant_term(probe)
            if lib.isl_options_get_schedule_max_constant_term(ptr) != probe:
                return None
    finally:
        ctx.set_schedule_max_constant_term(old)
    return ptr


def bool_option(ctx: isl.Context, name: str) -> int:
    """The value in force on ``ctx`` of isl's boolean option ``name`` (one of
    :data:`DEFAULTS`): isl's default unless :func:`set_bool_option` set
    another."""
    ptr = ctx_pointer(ctx)
    return _VALUES.get((ptr, name), DEFAULTS[name]) if ptr else DEFAULTS[name]


def set_bool_option(ctx: isl.Context, name: str, value: int) -> bool:
    """Set isl's boolean option ``name`` (one of :data:`DEFAULTS`, e.g.
    ``schedule-parametric``) to ``value`` (0 or 1) on ``ctx`` through
    ``isl_ctx_parse_options``.  ``False`` when it could not be set (the
    context's pointer did not validate, or isl did not take the option):
    the option keeps its value."""
    if name not in DEFAULTS or value not in (0, 1):
        raise ValueError(f"{name}={value!r}: not a boolean isl option set here")
    ptr = ctx_pointer(ctx)
    if ptr is None:
        return False
    arg = f"--{'' if value else 'no-'}{name}".encode()
    argv = (ctypes.c_char_p * 3)(b"clayx", arg, None)
    # flags 0: an option isl does not know is left in argv (never a help
    # text and exit); 1 argument left (the program name) = taken
    if _isl_lib().isl_ctx_parse_options(ptr, 2, argv, 0) != 1:
        return False
    if value == DEFAULTS[name]:
        _VALUES.pop((ptr, name), None)
    else:
        _VALUES[(ptr, name)] = value
    return True
