"""A line editor for long text (``@desc <thing>``), as MUD builders know it.

While it is open every line the builder types is text, not a command (an
interceptor of the command registry takes it). Lines starting with a dot are the
editor's own commands: ``.`` saves and closes, ``.q`` closes without saving,
``.l`` lists the lines numbered, ``.d N`` deletes line N, ``.c`` clears, ``.h``
shows this. The editor lives in the session (``session.data``), so it ends with
the connection.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field

from maid_engine.commands import CommandContext
from maid_engine.sessions import Session

KEY = "building.editor"
WIDTH = 70
HELP = (
    "Type lines of text. On a line of their own: '.' saves, '.q' quits without "
    "saving, '.l' lists, '.d N' deletes line N, '.c' clears, '.h' help."
)

#: Saves the text (joined lines); True when it was saved.
Save = Callable[[CommandContext, str], bool]


@dataclass
class EditorState:
    what: str
    save: Save
    lines: list[str] = field(default_factory=list)


def start_editor(session: Session, what: str, current: str, save: Save) -> None:
    """Open the editor on ``current`` (wrapped into lines) for ``what``."""
    lines = textwrap.wrap(" ".join(current.split()), WIDTH) if current.strip() else []
    session.data[KEY] = EditorState(what, save, lines)
    session.send(f"Editing {what}. {HELP}\n{_listing(lines)}")


def _listing(lines: list[str]) -> str:
    if not lines:
        return "(no text yet)"
    return "\n".join(f"{i:>2}] {line}" for i, line in enumerate(lines, 1))


def intercept(ctx: CommandContext, line: str) -> bool:
    """The registry's interceptor: take the line when the session's editor is open."""
    session = ctx.session
    state = session.data.get(KEY) if session is not None else None
    if session is None or not isinstance(state, EditorState):
        return False
    text = line.rstrip("\r\n")
    word = text.strip()
    if word == ".":
        del session.data[KEY]
        if not state.save(ctx, " ".join(state.lines)):
            # Refused: the builder's lines are not lost; they can fix and save again.
            session.data[KEY] = state
            ctx.send("Still editing: fix the text ('.l' lists it) and save again with '.'.")
        return True
    if word == ".q":
        del session.data[KEY]
        ctx.send(f"Stopped editing {state.what}; nothing was saved.")
        return True
    if word == ".l":
        ctx.send(_listing(state.lines))
        return True
    if word == ".c":
        state.lines.clear()
        ctx.send("Cleared.")
        return True
    if word == ".h":
        ctx.send(HELP)
        return True
    if word.startswith(".d"):
        arg = word[2:].strip()
        if not arg.isdigit() or not 1 <= int(arg) <= len(state.lines):
            ctx.send(
                f"Usage: .d N, with N from 1 to {len(state.lines)}." if state.lines else "No lines."
            )
            return True
        removed = state.lines.pop(int(arg) - 1)
        ctx.send(f"Deleted line {arg}: {removed}")
        return True
    if word.startswith(".") and len(word) <= 3:
        ctx.send(f"Unknown editor command '{word}'. {HELP}")
        return True
    state.lines.append(text.strip())
    return True
