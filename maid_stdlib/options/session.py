"""Applying a character's options to the connection playing it: colour and page length.

The colour mode the client negotiated is remembered in the session, so turning
colour back on restores it; a client that never said it shows colour gets plain
ANSI colours when its player asks for them.
"""

from __future__ import annotations

from maid_engine.sessions import ColorMode, Session
from maid_stdlib.options.components import PlayerOptions
from maid_stdlib.world.pager import PAGE_LENGTH_KEY

NEGOTIATED_KEY = "options.negotiated_color"


def apply_options(session: Session, options: PlayerOptions | None) -> None:
    """Make ``session`` follow ``options`` (None: the defaults)."""
    negotiated = session.data.setdefault(NEGOTIATED_KEY, session.caps.color)
    wanted = options.color if options is not None else None
    if wanted is None:
        session.caps.color = negotiated
    elif wanted:
        session.caps.color = max(negotiated, ColorMode.ANSI16)
    else:
        session.caps.color = ColorMode.NONE
    length = options.page_length if options is not None else 0
    if length > 0:
        session.data[PAGE_LENGTH_KEY] = length
    else:
        session.data.pop(PAGE_LENGTH_KEY, None)
