"""The interactive prompt: ``clayx FILE.c`` on a terminal.

:class:`Repl` holds a :class:`clayx.session.Session` and turns each input
line into either a command (``:code``, ``:undo`` …, see
:mod:`.commands`) or directives for :meth:`Session.apply` (all-or-nothing,
checked; a script the file embeds is applied first, as in batch mode).
After an accepted step it prints what changed in the β-tree and
the regenerated code around it; a refused step prints the
:class:`~clayx.errors.LegalityError` explanation, a syntax or argument error
points at its column.  :func:`make_prompt` builds the prompt_toolkit
session (completion, highlighting, history, key bindings, bottom bar) and
:func:`main` runs it on a file.

Keys: Enter submits when brackets are balanced (else adds a line);
Alt-Enter or Esc Enter adds a line; Tab completes; Ctrl-R searches the
history; Ctrl-C clears the line; Ctrl-D on an empty line quits.  History
is kept in ``$XDG_STATE_HOME/clayx/history`` (``~/.local/state/clayx``).
``NO_COLOR`` in the environment or ``--no-color`` turn colours off.

Tests drive :meth:`Repl.run` through prompt_toolkit's pipe input, with a
:class:`rich.console.Console` writing to a string.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from clayx.errors import ClayxError
from clayx.session import Session

from . import commands, render

__all__ = ["Repl", "demo_hint", "history_path", "input_ready", "main", "make_console",
           "make_prompt", "with_semicolon"]

PROMPT = "clayx> "
CONTINUATION = "  ...> "


def demo_hint() -> str:
    """The lines suggesting what to type on the bundled demo (beamforming,
    Fig. 1 and Fig. 9 of the Clay paper)."""
    return (
        "Try (Tab completes names and β-vectors):\n"
        "  interchange([2, 2], 1, 2);   refused: S4/S5 would run before S2/S3 reset a_r, a_i\n"
        "  split_children([2], 3);      split loop i before S6 (Fig. 9, right)\n"
        "  reorder([], [1, 2, 0, 3]);   move the first i loop to the front\n"
        "  reorder([0], [1, 0, 2]);     swap S2 and S3 (as in Fig. 2)\n"
        "  parallelize([0]);            mark it parallel\n"
        "  :code omp   :diff   :verify   :undo   :help\n")


def history_path() -> Path:
    """``$XDG_STATE_HOME/clayx/history`` (``~/.local/state/clayx/history``)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".local", "state")
    return Path(base) / "clayx" / "history"


def input_ready(text: str) -> bool:
    """True when Enter should submit ``text``: a command line, or brackets
    balanced outside strings and comments (and no comment left open)."""
    if commands.is_command(text):
        return True
    from .complete import mask_script
    code, unterminated = mask_script(text)
    if unterminated:
        return False
    depth = 0
    for ch in code:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
    return depth <= 0


def with_semicolon(text: str) -> str:
    """``text`` with the ``;`` that ends the last statement added when only
    that is missing (``skew([0], 1, 2, -1)`` at the prompt)."""
    from clayx.errors import ScriptSyntaxError
    from clayx.script import Script
    try:
        Script.parse(text)
    except ScriptSyntaxError as e:
        if e.message.startswith("expected ';'") and e.message.endswith("end of script"):
            return text + "\n;"
    return text


def make_console(*, color: bool = True, file=None, width: int | None = None) -> Console:
    """The rich console the prompt prints to (no markup parsing: code and
    statement bodies are printed as they are; long lines are left to the
    terminal to wrap, so copied code stays intact)."""
    kw = dict(highlight=False, markup=False, emoji=False, file=file, width=width,
              soft_wrap=True)
    if not color:
        kw.update(no_color=True, color_system=None)
    return Console(**kw)


class Repl:
    """The state of one prompt: the session, where output goes, the current
    code target."""

    def __init__(self, session: Session, path: str | os.PathLike | None = None, *,
                 console: Console | None = None, unchecked: bool = False):
        self.session = session
        self.path = str(path) if path is not None else None
        self.name = Path(self.path).name if self.path else "<scop>"
        self.console = console or make_console()
        self.unchecked = unchecked
        self.target = "c"
        self.last_ms: float | None = None
        self._legal: tuple[object, bool] | None = None

    # -- output ----------------------------------------------------------------
    def print(self, *objs) -> None:
        """Print rich renderables (Text, Table …) to the console."""
        for o in objs:
            if isinstance(o, Text) and o.plain.endswith("\n"):
                o = o.copy()
                o.rstrip()
            self.console.print(o, markup=False, highlight=False, emoji=False)

    def note(self, message: str) -> None:
        """A dim one-line remark."""
        self.print(Text(message, style="dim"))

    def code(self, target: str) -> str:
        """The whole file for ``target`` from the session."""
        return self.session.code(target, unchecked=self.unchecked)

    def banner(self, *, demo: bool = False) -> None:
        """The start-up summary (and the demo's suggestions)."""
        s = self.session
        self.print(render.summary(s.current, s.deps, self.path or self.name,
                                  others=len(s.others)))
        render.warm_up(s)
        if demo:
            self.print(Text(demo_hint(), style="cyan"))
        else:
            self.note("Type directives (Tab completes, Enter runs), :help for commands, "
                      "Ctrl-D to quit.")

    def apply_embedded(self) -> bool:
        """Apply the Clay script the file embeds (a ``/* Clay … */`` comment
        in C, the ``<clay>`` extension of OpenScop) step by step, as batch
        mode applies it; False when there is none."""
        from clayx.view import embedded_script
        found = embedded_script(self.session.original, self.path)
        text = found[0] if found else None
        if not text or not text.strip():
            return False
        self.note("the file embeds a Clay script; applying it (:reset goes back to the "
                  "original, :redo replays it)")
        try:
            commands.load_script(self, text, f"{self.name} (embedded)")
        except ClayxError as e:
            self.print(render.error(e, None, steps=len(self.session.entries)))
        return True

    # -- state for the bottom bar ----------------------------------------------
    def legal_state(self) -> tuple[str, bool]:
        """(words, ok) for the bottom bar: every step is checked, so the state
        is legal unless an ``unchecked`` step was applied (then the schedule
        is checked, once per state)."""
        s = self.session
        if not s.has_unchecked:
            return "legal", True
        cur = s.current
        if self._legal is None or self._legal[0] is not cur:
            try:
                self._legal = (cur, s.legal)
            except ClayxError:
                self._legal = (cur, False)
        ok = self._legal[1]
        return ("unchecked steps, legal" if ok else "unchecked steps, ILLEGAL"), ok

    def toolbar(self):
        """The bottom bar: file, number of steps, legality, current target."""
        n = len(self.session.entries)
        words, ok = self.legal_state()
        bar = [("class:bottom-toolbar", f" {self.name} │ {n} step{'s' * (n != 1)} │ "),
               ("class:bottom-toolbar.legal" if ok else "class:bottom-toolbar.illegal",
                ("✓ " if ok else "✗ ") + words),
               ("class:bottom-toolbar", f" │ target {self.target} ")]
        if self.last_ms is not None:
            bar.append(("class:bottom-toolbar", f"│ last step {self.last_ms:.0f} ms "))
        return bar

    # -- input -----------------------------------------------------------------
    def handle(self, text: str) -> bool:
        """Run one input (a command or directives); False to quit.  Errors are
        printed, never raised."""
        if not text.strip():
            return True
        try:
            if commands.is_command(text):
                return commands.run(self, text)
            self.step(text)
        except ClayxError as e:
            self.print(render.error(e, None, steps=len(self.session.entries)))
        except Exception as e:  # noqa: BLE001 - keep the prompt alive; say it is a bug
            self.print(Text(f"internal error (a clayx bug): {type(e).__name__}: {e}",
                            style="bold red"))
        return True

    def step(self, text: str) -> None:
        """Apply the directives of ``text`` (all-or-nothing) and show what
        changed, or why they were refused."""
        s = self.session
        before = s.current
        t0 = time.perf_counter()
        text = with_semicolon(text)
        try:
            new, said = commands.applied(s, text)
        except ClayxError as e:
            self.last_ms = (time.perf_counter() - t0) * 1000
            self.print(render.error(e, text, steps=len(s.entries)))
            return
        after = s.current
        ch = render.changes(before, after)
        reg, problem = None, None
        if before is not after:
            try:
                reg = render.step_region(after, ch.focus)
            except ClayxError as e:
                problem = e
        self.last_ms = (time.perf_counter() - t0) * 1000
        head = Text("✓ ", style="bold green")
        head.append(" ".join(str(e.step) for e in new) if new else "nothing to apply")
        head.append(f"  ({self.last_ms:.0f} ms)", style="dim")
        self.print(head)
        for e in new:
            if e.output:
                self.print(Text("  " + e.output))
        for w in said:
            self.note(f"  warning: {w}")
        for ln in ch.lines:
            self.print(ln)
        if new and not ch and all(not e.output for e in new):
            self.note("  no change to the schedule")
        if reg is not None:
            self.print(render.code_window(reg, ch.focus))
        elif problem is not None:
            self.print(render.error(problem))

    def show_change(self, before, after, *, words: bool = True) -> None:
        """What changed between two SCoPs (after undo, redo, reset, load),
        and the code around it."""
        ch = render.changes(before, after)
        if words:
            for ln in ch.lines:
                self.print(ln)
        if before is not after:
            try:
                self.print(render.code_window(render.step_region(after, ch.focus),
                                              ch.focus))
            except ClayxError as e:
                self.print(render.error(e))

    # -- the loop --------------------------------------------------------------
    def run(self, prompt) -> int:
        """Read and run inputs from a prompt_toolkit ``PromptSession`` until
        ``:quit`` or Ctrl-D; Ctrl-C clears the line.  Returns 0."""
        while True:
            try:
                text = prompt.prompt()
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            if not self.handle(text):
                break
        return 0


def make_prompt(repl: Repl, *, input=None, output=None, history=None,
                color: bool = True):
    """The prompt_toolkit ``PromptSession`` for ``repl``: Clay completion and
    highlighting, Enter/Alt-Enter bindings, Ctrl-R history search, the bottom
    bar.  ``input``/``output`` default to the terminal; ``history`` to the
    file :func:`history_path` (in memory when it cannot be created)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.filters import is_searching
    from prompt_toolkit.history import FileHistory, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.lexers import PygmentsLexer
    from prompt_toolkit.output import ColorDepth
    from prompt_toolkit.styles import Style

    from .complete import ClayCompleter
    from .lexer import ClayScriptLexer

    if history is None:
        try:
            hp = history_path()
            hp.parent.mkdir(parents=True, exist_ok=True)
            history = FileHistory(str(hp))
        except OSError:
            history = InMemoryHistory()

    kb = KeyBindings()
    editing = ~is_searching          # Ctrl-R search keeps its own Enter

    @kb.add("enter", filter=editing)
    def _enter(event) -> None:
        b = event.current_buffer
        st = b.complete_state
        if st is not None and st.current_completion is not None:
            b.apply_completion(st.current_completion)
            return
        if input_ready(b.text):
            b.validate_and_handle()
        else:
            b.insert_text("\n")

    @kb.add("escape", "enter", filter=editing)
    def _newline(event) -> None:
        event.current_buffer.insert_text("\n")

    completer = ClayCompleter(
        lambda: repl.session.current, env=lambda: repl.session.env,
        commands={c.name: c.complete for c in commands.COMMANDS.values()},
        summaries={c.name: c.summary for c in commands.COMMANDS.values()})
    style = Style.from_dict({
        "bottom-toolbar": "reverse",
        "bottom-toolbar.legal": "reverse bold",
        "bottom-toolbar.illegal": "reverse bold",
        "prompt": "bold",
    } if not color else {
        "bottom-toolbar": "bg:#303030 #d0d0d0 noreverse",
        "bottom-toolbar.legal": "bg:#303030 #5fd75f bold noreverse",
        "bottom-toolbar.illegal": "bg:#303030 #ff5f5f bold noreverse",
        "prompt": "bold #5fafff",
    })
    return PromptSession(
        message=[("class:prompt", PROMPT)],
        multiline=True,
        prompt_continuation=lambda width, line, wrap: [("class:prompt", CONTINUATION)],
        key_bindings=kb,
        completer=completer,
        complete_while_typing=False,
        lexer=PygmentsLexer(ClayScriptLexer) if color else None,
        history=history,
        bottom_toolbar=repl.toolbar,
        style=style,
        include_default_pygments_style=color,
        color_depth=ColorDepth.DEPTH_8_BIT if color else ColorDepth.DEPTH_1_BIT,
        input=input,
        output=output,
        enable_history_search=False,
        search_ignore_case=True,
    )


def main(path: str | os.PathLike, *, demo: bool = False, no_color: bool = False,
         unchecked: bool = False) -> int:
    """Open ``path`` and run the prompt on the terminal; the exit status.
    ``ClayxError`` (no such file, not a SCoP) propagates to the caller."""
    import clayx
    color = not no_color and not os.environ.get("NO_COLOR")
    p = Path(path)
    if not p.exists():
        raise ClayxError(f"{p}: no such file")
    session = clayx.load(p)
    repl = Repl(session, p, console=make_console(color=color), unchecked=unchecked)
    repl.banner(demo=demo)
    repl.apply_embedded()
    prompt = make_prompt(repl, color=color)
    return repl.run(prompt)
