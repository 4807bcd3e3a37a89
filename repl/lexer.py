"""A pygments lexer for Clay scripts (and clayx prompt lines).

Registered as a pygments plugin (entry point ``pygments.lexers``:
``clayx``), so documentation tools can highlight ``.clay`` files and prompt
transcripts::

    from pygments.lexers import get_lexer_by_name
    get_lexer_by_name("clayx")          # or "clay-script"

(pygments' own ``clay`` alias is the Clay *programming language*, an
unrelated language; for ``*.clay`` files this lexer has a higher priority.)

Tokens: comments (``#``, ``//``, ``/* */``), strings, the ``unchecked``
keyword, ``true``/``false``, integers, punctuation, and names.  A name
followed by ``(`` is a call: known directives and their aliases are
``Name.Function``, queries (``get_beta_loop``) ``Name.Builtin``, other names
plain ``Name``; the directive table is read from the registry the first time
it is needed (so loading the lexer does not import islpy).  A ``:command`` at
the start of a line (the prompt's commands) is ``Keyword.Pseudo``.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pygments.lexer import RegexLexer, bygroups
from pygments.token import (Comment, Keyword, Name, Number, Punctuation,
                            String, Text, Whitespace)

__all__ = ["ClayScriptLexer"]


@lru_cache(maxsize=1)
def _known() -> tuple[frozenset[str], frozenset[str]]:
    """(directive names and aliases, query names) from the registry; empty
    sets if clayx cannot be imported."""
    try:
        from clayx.directives import names
        return (frozenset(names("transform", "mark", "layout", "control")),
                frozenset(names("query")))
    except Exception:  # noqa: BLE001 - a lexer must never fail
        return frozenset(), frozenset()


def _call(lexer, match):
    name = match.group(1)
    directives, queries = _known()
    tok = (Name.Function if name in directives else
           Name.Builtin if name in queries else Name)
    yield match.start(1), tok, name
    if match.group(2):
        yield match.start(2), Whitespace, match.group(2)
    yield match.start(3), Punctuation, match.group(3)


class ClayScriptLexer(RegexLexer):
    """Clay transformation scripts (``reorder([0], [1, 0]);``)."""

    name = "Clay script"
    aliases = ["clayx", "clay-script", "clayscript"]
    filenames = ["*.clay"]
    mimetypes = ["text/x-clay-script"]
    priority = 0.1          # above pygments' Clay-language lexer for *.clay
    url = "https://github.com/periscop/clay"
    flags = re.MULTILINE

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r"(#|//).*?$", Comment.Single),
            (r"/\*", Comment.Multiline, "comment"),
            (r'"(\\.|[^"\\\n])*"', String.Double),
            (r"^(:[A-Za-z_]+)", Keyword.Pseudo),
            (r"\bunchecked\b(?=\s+[A-Za-z_])", Keyword),
            (r"\b(true|false)\b", Keyword.Constant),
            (r"([A-Za-z_]\w*)(\s*)(\()", _call),
            (r"([A-Za-z_]\w*)(\s*)(=)(?!=)", bygroups(Name.Variable, Whitespace, Punctuation)),
            (r"[A-Za-z_]\w*", Name),
            (r"-?\d+", Number.Integer),
            (r"[\[\]{}(),;|=]", Punctuation),
            (r".", Text),
        ],
        "comment": [
            (r"[^*]+", Comment.Multiline),
            (r"\*/", Comment.Multiline, "#pop"),
            (r"\*", Comment.Multiline),
        ],
    }
