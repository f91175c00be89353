"""Paging and wrapping of long output to the client's window.

Admin reports and builder views (``@quest``, ``@state insights``) are often
longer than a screen. :func:`page` wraps text to the
session's width (``session.caps.width``, from NAWS) and, when the result is taller
than the window (``caps.height`` minus room for the prompt), sends the first page
followed by::

    -- more -- (type 'more' or 'next')

``more`` (or ``next``) shows the next page, ``more all`` the rest, ``more stop``
drops it. The remaining pages live in ``session.data`` and are replaced by the next
paged output, so a forgotten pager never leaks into a later report.

Wrapping happens here, before counting lines, because the transport's own wrapping
would otherwise turn one long line into several and overflow the page. Wrapping the
same text again at the same width changes nothing, so the transport's pass is
harmless.
"""

from __future__ import annotations

from dataclasses import dataclass

from maid_engine.commands import Command, CommandContext, command
from maid_engine.net.wrapping import effective_width, wrap_text
from maid_engine.sessions import Session

__all__ = [
    "MORE_PROMPT",
    "PAGER_COMMANDS",
    "PAGE_LENGTH_KEY",
    "PagerState",
    "page",
    "page_height",
    "pending",
    "wrap_for",
]

MORE_PROMPT = "-- more -- (type 'more' or 'next')"
STATE_KEY = "admin.pager"
#: ``session.data`` key of the page length a player chose (``config pagelength``);
#: absent: the window's height.
PAGE_LENGTH_KEY = "pager.page_length"
#: Lines kept free below a page besides the more-prompt: the game's own prompt.
RESERVED_LINES = 1
#: Below this a window is either not reported or useless; page at the default.
MIN_HEIGHT = 6
DEFAULT_HEIGHT = 24


@dataclass
class PagerState:
    lines: list[str]
    position: int

    @property
    def remaining(self) -> int:
        return len(self.lines) - self.position


def page_height(session: Session) -> int:
    """Lines of text per page: the length the player chose, else what fits the
    window (room is left for the more-prompt, wrapped to the window too, and the
    game's prompt)."""
    chosen = session.data.get(PAGE_LENGTH_KEY)
    if isinstance(chosen, int) and chosen > 0:
        return chosen
    height = session.caps.height
    if height < MIN_HEIGHT or height > 1000:
        height = DEFAULT_HEIGHT
    return max(1, height - RESERVED_LINES - len(_prompt(session)))


def _prompt(session: Session) -> list[str]:
    return wrap_for(session, MORE_PROMPT)


def wrap_for(session: Session | None, text: str) -> list[str]:
    """``text`` wrapped to the session's width (80 columns without a session)."""
    width = effective_width(session.caps.width) if session is not None else 80
    return wrap_text(text, width).split("\n")


def page(ctx: CommandContext, text: str) -> None:
    """Send ``text`` wrapped to the client's width, a page at a time."""
    session = ctx.session
    if session is None:
        # No window (a script, a test without a session): nothing to page.
        ctx.send(text)
        return
    lines = wrap_for(session, text)
    size = page_height(session)
    # A single leftover line is shown rather than hidden behind a more-prompt.
    if len(lines) <= size + 1:
        session.data.pop(STATE_KEY, None)
        ctx.send("\n".join(lines))
        return
    state = PagerState(lines, 0)
    session.data[STATE_KEY] = state
    _send_page(ctx, session, state)


def pending(session: Session) -> PagerState | None:
    state = session.data.get(STATE_KEY)
    return state if isinstance(state, PagerState) and state.remaining > 0 else None


def _send_page(
    ctx: CommandContext, session: Session, state: PagerState, rest: bool = False
) -> None:
    size = page_height(session)
    end = len(state.lines) if rest or state.remaining <= size + 1 else state.position + size
    chunk = state.lines[state.position : end]
    state.position = end
    if state.remaining > 0:
        chunk = [*chunk, *_prompt(session)]
    else:
        session.data.pop(STATE_KEY, None)
    ctx.send("\n".join(chunk))


@command("more", aliases=("next",), category="general", needs_character=False, prefix_match=False)
def more_command(ctx: CommandContext) -> None:
    """Show the next page of a long report.

    Usage: more            (also: next)
           more all        (everything that is left)
           more stop       (forget the rest)
    """
    session = ctx.session
    state = pending(session) if session is not None else None
    if session is None or state is None:
        ctx.send("There is nothing more to show.")
        return
    arg = ctx.args.strip().lower()
    if arg in ("stop", "quit", "q"):
        session.data.pop(STATE_KEY, None)
        ctx.send("Ok.")
        return
    _send_page(ctx, session, state, rest=arg == "all")


PAGER_COMMANDS: list[Command] = [more_command]
