"""Telnet transport: protocols, not the game.

Everything game-side goes through :class:`maid_engine.sessions.SessionHandler`; this
package only negotiates with clients, renders colour markup, wraps and guards the wire.
"""

from maid_engine.net.limits import NetLimits
from maid_engine.net.markup import escape_markup, render_markup, strip_markup
from maid_engine.net.server import TelnetServer
from maid_engine.net.session import TelnetSession
from maid_engine.net.wrapping import unwrap_paragraphs, wrap_text

__all__ = [
    "NetLimits",
    "TelnetServer",
    "TelnetSession",
    "escape_markup",
    "render_markup",
    "strip_markup",
    "unwrap_paragraphs",
    "wrap_text",
]
