"""Reading input files as text: UTF-8, or an error that shows where it is not.

C files, OpenScop files and Clay scripts are read as UTF-8 (ASCII is a
part of it).  A file that is not UTF-8 (Latin-1, UTF-16, a binary file) is
refused with the line and column of the first byte that does not decode, the
byte, and how to convert the file, through the error class of the caller
(:class:`~clayx.errors.NotAScopError` for C, …).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import ClayxError

__all__ = ["decode", "read_text"]

#: ``(message, line, column) -> error``: how a caller reports a bad file.
ErrorFactory = Callable[[str, int, int], ClayxError]


def decode(data: bytes, error: ErrorFactory) -> str:
    """``data`` decoded as UTF-8, else ``error(message, line, column)`` at the
    first byte that is not UTF-8 (1-based; the column counts characters)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        line = data.count(b"\n", 0, e.start) + 1
        column = len(data[start:e.start].decode("utf-8", errors="replace")) + 1
        hint = ("a UTF-16 file: convert it with iconv -f utf-16 -t utf-8"
                if data[:2] in (b"\xff\xfe", b"\xfe\xff")
                else "convert it, e.g. from Latin-1 with iconv -f latin1 -t utf-8")
        raise error(f"the file is not UTF-8 text: byte 0x{data[e.start]:02x} ({hint})",
                    line, column) from None


def read_text(path: str | Path, error: ErrorFactory,
              unreadable: Callable[[str], ClayxError]) -> str:
    """The text of the file ``path`` (see :func:`decode`); a file that cannot
    be opened is ``unreadable(reason)``."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise unreadable(e.strerror or str(e)) from None
    return decode(data, error)
