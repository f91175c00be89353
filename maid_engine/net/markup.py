"""The game's colour markup and its rendering for each client colour mode.

Syntax (see docs/telnet.md): ``|r |g |y |b |m |c |w |x`` normal foreground colours (x is
black), the same letters upper-case for bright ones, ``|[r`` .. ``|[x`` backgrounds (upper-case
bright), ``|#rrggbb`` / ``|[#rrggbb`` 24-bit colours, ``|n`` reset, ``|h`` bold,
``|u`` underline and ``||`` a literal pipe. ``|>`` at the start of a line marks it as
someone's words (a player's or the model's): it shows nothing, and the line's
continuation lines are indented when it wraps (see wrapping.py). Anything else after a
pipe is left as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache

from maid_engine.sessions import ColorMode

_LETTERS = "xrgybmcw"  # index == ANSI colour number (x = black)

_TOKEN = re.compile(
    r"\|(?:\||\[#[0-9a-fA-F]{6}|#[0-9a-fA-F]{6}|\[[xrgybmcwXRGYBMCW]|[xrgybmcwXRGYBMCWnhu>])"
)

#: The same tokens, kept by ``split`` (text, token, text, token, ..., text).
_SPLIT = re.compile(f"({_TOKEN.pattern})")

RESET = "\x1b[0m"
#: Starts a line of someone's words (a player's or the model's); shows nothing.
HANG = "|>"

#: xterm's default 16-colour palette, used to find the nearest ANSI colour for ``|#rrggbb``.
_ANSI16_RGB: tuple[tuple[int, int, int], ...] = (
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0),
    (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
    (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0),
    (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
)  # fmt: skip
_CUBE_LEVELS = (0, 95, 135, 175, 215, 255)


def _dist(a: tuple[int, int, int], b: tuple[int, int, int]) -> int:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2


def nearest_ansi16(rgb: tuple[int, int, int]) -> int:
    """Index 0-15 of the closest xterm base colour."""
    return min(range(16), key=lambda i: _dist(rgb, _ANSI16_RGB[i]))


def nearest_xterm256(rgb: tuple[int, int, int]) -> int:
    """Index 16-255 of the closest colour of the xterm 6x6x6 cube or grey ramp."""

    def level(v: int) -> int:
        return min(range(6), key=lambda i: abs(_CUBE_LEVELS[i] - v))

    ri, gi, bi = level(rgb[0]), level(rgb[1]), level(rgb[2])
    cube = (_CUBE_LEVELS[ri], _CUBE_LEVELS[gi], _CUBE_LEVELS[bi])
    cube_index = 16 + 36 * ri + 6 * gi + bi
    grey_avg = sum(rgb) // 3
    gi_ = max(0, min(23, round((grey_avg - 8) / 10)))
    grey_v = 8 + 10 * gi_
    if _dist(rgb, (grey_v, grey_v, grey_v)) < _dist(rgb, cube):
        return 232 + gi_
    return cube_index


@lru_cache(maxsize=1024)
def _code(token: str, mode: ColorMode) -> str:
    """Escape sequence for one markup token (never called for ``||``)."""
    body = token[1:]
    if mode is ColorMode.NONE or body == ">":  # |> only shapes wrapping
        return ""
    if body == "n":
        return RESET
    if body == "h":
        return "\x1b[1m"
    if body == "u":
        return "\x1b[4m"
    background = body.startswith("[")
    if background:
        body = body[1:]
    if body.startswith("#"):
        rgb = (int(body[1:3], 16), int(body[3:5], 16), int(body[5:7], 16))
        if mode is ColorMode.TRUECOLOR:
            return f"\x1b[{48 if background else 38};2;{rgb[0]};{rgb[1]};{rgb[2]}m"
        if mode is ColorMode.XTERM256:
            return f"\x1b[{48 if background else 38};5;{nearest_xterm256(rgb)}m"
        index = nearest_ansi16(rgb)
    else:
        index = _LETTERS.index(body.lower()) + (8 if body.isupper() else 0)
    if index < 8:
        return f"\x1b[{(40 if background else 30) + index}m"
    return f"\x1b[{(100 if background else 90) + index - 8}m"


class _Codes(dict[str, str]):
    """Token -> what it renders as in one colour mode (``||`` -> ``|``), filled as
    tokens are met; looked up in C by a list comprehension instead of a Python
    callback per token (a room listing of 200 people has hundreds)."""

    #: Distinct tokens kept; 24-bit colours make the set of tokens open-ended.
    LIMIT = 4096

    def __init__(self, mode: ColorMode) -> None:
        super().__init__()
        self.mode = mode

    def __missing__(self, token: str) -> str:
        if len(self) >= self.LIMIT:
            self.clear()
        code = self[token] = "|" if token == "||" else _code(token, self.mode)
        return code


_TABLES = {mode: _Codes(mode) for mode in ColorMode}


def mark(text: str, mode: ColorMode) -> tuple[str, str]:
    """``text`` with its markup turned into codes for ``mode`` (no reset added), and
    the last code it emits ("" if none; a literal pipe is not a code)."""
    if "|" not in text:
        return text, ""
    parts = _SPLIT.split(text)
    if len(parts) == 1:
        return text, ""
    tokens = parts[1::2]
    table = _TABLES[mode]
    codes = [table[token] for token in tokens]
    parts[1::2] = codes
    last = next(
        (
            code
            for token, code in zip(reversed(tokens), reversed(codes), strict=True)
            if code and token != "||"
        ),
        "",
    )
    return "".join(parts), last


def render_markup(text: str, mode: ColorMode, *, auto_reset: bool = True) -> str:
    """Turn markup into escape codes for ``mode`` (ColorMode.NONE: none at all).

    With ``auto_reset`` a reset is appended when the text leaves attributes switched on,
    so colour never bleeds into the next message. This does not sanitise ``text``:
    callers that handle untrusted text go through the session, which strips escapes first.
    """
    out, last = mark(text, mode)
    if auto_reset and last and last != RESET:
        stripped = out.rstrip("\n")
        out = stripped + RESET + out[len(stripped) :]
    return out


def strip_markup(text: str) -> str:
    """Plain text with every markup code removed (and ``||`` turned into ``|``)."""
    return render_markup(text, ColorMode.NONE)


def escape_markup(text: str) -> str:
    """Make player-typed text inert as markup: every ``|`` becomes ``||``."""
    return text.replace("|", "||")
