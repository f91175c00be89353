"""Output rendering: game text -> what a client with given capabilities is sent.

The pipeline is ``wrap_text(render_markup(sanitize_output(text), colour), width)``,
except that a line starting with ``|>`` (someone's words) is wrapped with its
continuation lines indented: such texts are rendered line by line. It is pure, and a
MUD sends the same texts again and again (a room listing to everyone in the room, a
prompt), so :func:`render_output` remembers its answers in two bounded
caches:

* whole texts (``TEXT_CACHE_SIZE``): the same listing sent to clients with the same
  capabilities is rendered once;
* the same, as the bytes a telnet client is sent (:func:`render_wire`: CRLF line
  ends, UTF-8), so a crowd's answers are not translated and encoded again each;
* single lines (``LINE_CACHE_SIZE``), used when a whole text is new: each player's
  listing of a crowded room differs only in leaving that player out, so the first
  look of 200 players is 200 new texts made of the same 200 lines. Rendering line by
  line gives exactly what the pipeline gives (markup codes never span a newline and
  wrapping is per line); the only cross-line effect, the reset appended when colour
  is left switched on, is applied to the line the pipeline would put it on.

Texts with control characters (which sanitising would change) and texts longer than
``MAX_CACHED_TEXT`` go through the pipeline as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from maid_engine.net.markup import HANG, RESET, mark, render_markup
from maid_engine.net.sanitize import needs_sanitizing, sanitize_output
from maid_engine.net.wrapping import wrap_text
from maid_engine.sessions import ColorMode

__all__ = [
    "LINE_CACHE_SIZE",
    "MAX_CACHED_TEXT",
    "TEXT_CACHE_SIZE",
    "render_output",
    "render_wire",
]

#: Whole texts remembered.
TEXT_CACHE_SIZE = 256
#: Single lines remembered (a few crowded rooms' worth of listing lines).
LINE_CACHE_SIZE = 4096
#: Texts longer than this are rendered every time instead of being cached.
MAX_CACHED_TEXT = 16384


def _pipeline(text: str, color: ColorMode, width: int) -> str:
    clean = sanitize_output(text)
    if HANG in clean:
        # The hanging indent is a property of a line, known before its markup is
        # rendered (|> renders as nothing): go line by line, as the caches do.
        return _by_lines(clean, color, width, _render_line)
    return wrap_text(render_markup(clean, color), width, markup=False)


def _render_line(line: str, color: ColorMode, width: int) -> tuple[str, str, bool]:
    """One line with its codes but no final reset, wrapped; its last code; and
    whether it shows anything (the final reset goes on the last line that does)."""
    marked, last = mark(line, color)
    return wrap_text(marked, width, markup=False, hang=line.startswith(HANG)), last, bool(marked)


_line = lru_cache(maxsize=LINE_CACHE_SIZE)(_render_line)


def _by_lines(
    text: str,
    color: ColorMode,
    width: int,
    render: Callable[[str, ColorMode, int], tuple[str, str, bool]] = _line,
) -> str:
    lines = text.split("\n")
    done = [render(line, color, width) for line in lines]
    last = next((code for _, code, _ in reversed(done) if code), RESET)
    out = [rendered for rendered, _, _ in done]
    if last != RESET:
        # render_markup puts the reset after the last character that is not a
        # trailing newline, before wrapping: at the end of the last line showing
        # anything.
        k = max(i for i, (_, _, shows) in enumerate(done) if shows)
        hang = lines[k].startswith(HANG)
        out[k] = wrap_text(mark(lines[k], color)[0] + RESET, width, markup=False, hang=hang)
    return "\n".join(out)


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _text(text: str, color: ColorMode, width: int) -> str:
    if "\n" not in text or needs_sanitizing(text):
        return _pipeline(text, color, width)
    return _by_lines(text, color, width)


def render_output(text: str, color: ColorMode, width: int) -> str:
    """``text`` sanitised, with its markup rendered for ``color`` and wrapped to
    ``width``: exactly the pipeline's answer, from the caches when it can be."""
    if len(text) > MAX_CACHED_TEXT:
        return _pipeline(text, color, width)
    return _text(text, color, width)


def _to_wire(out: str, newline: bool) -> bytes:
    if newline and not out.endswith("\n"):
        out += "\n"
    return out.replace("\n", "\r\n").encode("utf-8")


@lru_cache(maxsize=TEXT_CACHE_SIZE)
def _wire(text: str, color: ColorMode, width: int, newline: bool) -> bytes:
    return _to_wire(_text(text, color, width), newline)


def render_wire(text: str, color: ColorMode, width: int, newline: bool) -> bytes:
    """:func:`render_output` as telnet sends it: ending in a newline if ``newline``
    (and not already), every newline CRLF, encoded as UTF-8."""
    if len(text) > MAX_CACHED_TEXT:
        return _to_wire(_pipeline(text, color, width), newline)
    return _wire(text, color, width, newline)
