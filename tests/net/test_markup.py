"""Colour markup: rendering per colour mode, stripping, escaping, downgrading."""

from __future__ import annotations

import pytest

from maid_engine.net import escape_markup, render_markup, strip_markup
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


def test_escape_round_trip() -> None:
    typed = "I |r|hate|n pipes || and |#ff0000"
    escaped = escape_markup(typed)
    assert strip_markup(escaped) == typed
    assert render_markup(escaped, ColorMode.TRUECOLOR) == typed


def test_plain_text_is_returned_unchanged() -> None:
    text = "no markup here"
    assert render_markup(text, ColorMode.TRUECOLOR) is text
