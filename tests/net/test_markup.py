"""Colour markup: rendering per colour mode, stripping, escaping, downgrading."""

from __future__ import annotations

import random
import re

import pytest

from maid_engine.net import escape_markup, render_markup, strip_markup
from maid_engine.net import markup as markup_module
from maid_engine.net.markup import nearest_ansi16, nearest_xterm256
from maid_engine.sessions import ColorMode

SAMPLE = "|rred|n |Gbright green|n |[bon blue|n |h|ubold under|n |#ff8800orange|n a||b"


def test_none_mode_emits_no_escape_bytes() -> None:
    out = render_markup(SAMPLE, ColorMode.NONE)
    assert "\x1b" not in out
    assert out == "red bright green on blue bold under orange a|b"


@pytest.mark.parametrize("mode", [ColorMode.ANSI16, ColorMode.XTERM256, ColorMode.TRUECOLOR])
def test_named_colours_use_basic_sgr_codes(mode: ColorMode) -> None:
    out = render_markup("|rA|RB|xC|XD|[gE|[WF|nG", mode)
    assert out == ("\x1b[31mA\x1b[91mB\x1b[30mC\x1b[90mD\x1b[42mE\x1b[107mF\x1b[0mG")


def test_attributes() -> None:
    assert render_markup("|hbold|n", ColorMode.ANSI16) == "\x1b[1mbold\x1b[0m"
    assert render_markup("|uunder|n", ColorMode.ANSI16) == "\x1b[4munder\x1b[0m"


def test_truecolor_per_mode() -> None:
    text = "|#ff8800x|n"
    assert render_markup(text, ColorMode.TRUECOLOR) == "\x1b[38;2;255;136;0mx\x1b[0m"
    assert (
        render_markup(text, ColorMode.XTERM256)
        == f"\x1b[38;5;{nearest_xterm256((255, 136, 0))}mx\x1b[0m"
    )
    assert render_markup(text, ColorMode.ANSI16) == "\x1b[33mx\x1b[0m"  # (dark) yellow
    assert render_markup(text, ColorMode.NONE) == "x"
    assert render_markup("|[#000080x", ColorMode.TRUECOLOR).startswith("\x1b[48;2;0;0;128m")


def test_downgrade_tables() -> None:
    assert nearest_xterm256((255, 0, 0)) == 196
    assert nearest_xterm256((0, 0, 0)) == 16
    assert nearest_xterm256((128, 128, 128)) == 244  # grey ramp beats the cube
    assert nearest_xterm256((95, 135, 175)) == 16 + 36 * 1 + 6 * 2 + 3
    assert nearest_ansi16((250, 10, 10)) == 9
    assert nearest_ansi16((0, 0, 200)) == 4
    assert nearest_ansi16((250, 250, 250)) == 15
    assert nearest_ansi16((230, 230, 230)) == 7


def test_unknown_codes_stay_literal() -> None:
    for text in ("|z", "|#12345", "|[q", "50|", "|#gg0000", "|[#12"):
        assert render_markup(text, ColorMode.TRUECOLOR) == text
        assert strip_markup(text) == text


def test_pipes() -> None:
    assert render_markup("||r", ColorMode.ANSI16) == "|r"
    assert render_markup("|||r!", ColorMode.ANSI16) == "|\x1b[31m!\x1b[0m"
    assert strip_markup("a || b") == "a | b"


def test_auto_reset_keeps_trailing_newlines_last() -> None:
    assert render_markup("|rred\n\n", ColorMode.ANSI16) == "\x1b[31mred\x1b[0m\n\n"
    assert render_markup("|rred", ColorMode.ANSI16, auto_reset=False) == "\x1b[31mred"
    assert render_markup("|rred|n", ColorMode.ANSI16).count("\x1b[0m") == 1


def test_the_hang_code_shows_nothing_and_players_cannot_type_it() -> None:
    for mode in ColorMode:
        assert render_markup("|>Alice says hi", mode) == "Alice says hi"
    # Escaped player text keeps it literal.
    assert render_markup(escape_markup("|>x"), ColorMode.TRUECOLOR) == "|>x"
    assert strip_markup("|>|rred|n") == "red"


def test_escape_round_trip() -> None:
    typed = "I |r|hate|n pipes || and |#ff0000"
    escaped = escape_markup(typed)
    assert strip_markup(escaped) == typed
    assert render_markup(escaped, ColorMode.TRUECOLOR) == typed


def test_plain_text_is_returned_unchanged() -> None:
    text = "no markup here"
    assert render_markup(text, ColorMode.TRUECOLOR) is text


# -- the table-driven renderer against the plain one it replaced --------------------------

_REFERENCE_TOKEN = re.compile(
    r"\|(?:\||\[#[0-9a-fA-F]{6}|#[0-9a-fA-F]{6}|\[[xrgybmcwXRGYBMCW]|[xrgybmcwXRGYBMCWnhu])"
)


def reference_render(text: str, mode: ColorMode, auto_reset: bool = True) -> str:
    """One callback per token, as render_markup was first written."""
    emitted, last = False, ""

    def sub(m: re.Match[str]) -> str:
        nonlocal emitted, last
        token = m.group()
        if token == "||":
            return "|"
        code = markup_module._code(token, mode)
        if code:
            emitted, last = True, code
        return code

    out = _REFERENCE_TOKEN.sub(sub, text)
    if auto_reset and emitted and last != markup_module.RESET:
        stripped = out.rstrip("\n")
        out = stripped + markup_module.RESET + out[len(stripped) :]
    return out


_PIECES = [
    "|r",
    "|R",
    "|n",
    "|h",
    "|u",
    "|[b",
    "|[W",
    "|#ff8800",
    "|[#00ff00",
    "|",
    "||",
    "|||",
    "|q",
    "|#12",
    "a",
    "word ",
    " ",
    "\n",
    "\n\n",
    "\x1b",
    "é",
    "|n\n",
]


@pytest.mark.parametrize("seed", range(40))
def test_rendering_matches_the_reference_on_random_markup(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 30)))
        for mode in ColorMode:
            for auto_reset in (True, False):
                assert render_markup(text, mode, auto_reset=auto_reset) == reference_render(
                    text, mode, auto_reset
                ), (text, mode, auto_reset)


def test_the_token_table_stays_bounded() -> None:
    table = markup_module._TABLES[ColorMode.TRUECOLOR]
    for i in range(markup_module._Codes.LIMIT + 10):
        colour = f"{i:06x}"
        assert render_markup(f"|#{colour}x", ColorMode.TRUECOLOR) == (
            f"\x1b[38;2;{int(colour[:2], 16)};{int(colour[2:4], 16)};{int(colour[4:], 16)}m"
            f"x{markup_module.RESET}"
        )
    assert len(table) <= markup_module._Codes.LIMIT
