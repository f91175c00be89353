"""Word wrapping measured in visible columns."""

from __future__ import annotations

import random
import re

from maid_engine.net import render_markup, wrap_text
from maid_engine.net.wrapping import visible_width
from maid_engine.sessions import ColorMode

_ESC = re.compile(r"\x1b\[[0-9;]*m")


def plain(text: str) -> str:
    return _ESC.sub("", text)


def test_short_lines_and_newlines_are_kept() -> None:
    text = "one\n\ntwo  spaced\n"
    assert wrap_text(text, 40) == text


def test_wraps_on_words() -> None:
    text = "the quick brown fox jumps over the lazy dog"
    assert wrap_text(text, 15) == "the quick brown\nfox jumps over\nthe lazy dog"


def test_escape_codes_do_not_count() -> None:
    words = " ".join(f"|rw{i:02d}|n" for i in range(30))
    rendered = render_markup(words, ColorMode.TRUECOLOR)
    wrapped = wrap_text(rendered, 20, markup=False)
    lines = wrapped.split("\n")
    assert all(visible_width(line) <= 20 for line in lines)
    # 3-letter words plus a space: five fit in 20 columns
    assert plain(lines[0]) == "w00 w01 w02 w03 w04"
    assert plain(wrapped).replace("\n", " ") == plain(rendered)


def test_markup_codes_do_not_count() -> None:
    text = "|rred|n |ggreen|n |bblue|n |yyellow|n"
    wrapped = wrap_text(text, 16)
    assert wrapped == "|rred|n |ggreen|n |bblue|n\n|yyellow|n"


def test_never_breaks_inside_an_escape() -> None:
    word = "".join(f"\x1b[3{i % 8}m{chr(97 + i % 26)}" for i in range(60))
    wrapped = wrap_text(word, 20, markup=False)
    for line in wrapped.split("\n"):
        assert visible_width(line) <= 20
        # every ESC in a line starts a complete code
        assert all(m == "\x1b[3" for m in re.findall(r"\x1b.{0,2}", line))
    assert _ESC.sub("", wrapped).replace("\n", "") == _ESC.sub("", word)


def test_long_word_is_cut() -> None:
    assert wrap_text("x" * 25, 10) == "xxxxxxxxxx\nxxxxxxxxxx\nxxxxx"
    assert wrap_text("ab " + "y" * 12, 10) == "ab yyyyyyy\nyyyyy"


def test_absurd_widths_fall_back_to_80() -> None:
    text = " ".join(["word"] * 40)
    for width in (0, -5, 3, 100000):
        assert all(len(line) <= 80 for line in wrap_text(text, width).split("\n"))
        assert max(len(line) for line in wrap_text(text, width).split("\n")) > 70


def test_wide_characters_count_double() -> None:
    text = "漢字" * 10  # 40 columns
    lines = wrap_text(text, 10).split("\n")
    assert lines[0] == "漢字漢字漢"
    assert all(visible_width(line) <= 10 for line in lines)


def test_indentation_is_kept_on_first_line() -> None:
    text = "    indented text that goes on and on"
    assert wrap_text(text, 20).split("\n")[0] == "    indented text"


def test_fast_path_agrees_with_the_general_one() -> None:
    import random

    from maid_engine.net.wrapping import _wrap_plain, _wrap_tokens

    rng = random.Random(7)
    for _ in range(3000):
        parts = [" " * rng.randint(0, 2)]
        for _ in range(rng.randint(1, 10)):
            parts.append("x" * rng.randint(1, 30))
            parts.append(" " * rng.randint(1, 3))
        line = "".join(parts)
        if rng.random() < 0.5:
            line = line.rstrip()
        width = rng.randint(10, 30)
        assert _wrap_plain(line, width) == _wrap_tokens(line, width, False), (line, width)


_REFERENCE_ATOMS = re.compile(r"(\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_])|([ \t]+)|([^ \t\x1b]+|\x1b)")


def reference_width(line: str) -> int:
    """Atom by atom, as visible_width measures text with markup."""
    from maid_engine.net.wrapping import text_width

    return sum(0 if m.group(1) else text_width(m.group()) for m in _REFERENCE_ATOMS.finditer(line))


def test_width_of_rendered_text_matches_measuring_atom_by_atom() -> None:
    pieces = [
        "\x1b[31m",
        "\x1b[0m",
        "\x1b[38;2;1;2;3m",
        "\x1b",
        "\x1b[",
        "\x1b[9",
        "\x1bX",
        "a",
        "word",
        " ",
        "\t",
        "界",
        "e\u0301",
        "|",
        "||r",
    ]
    rng = random.Random(7)
    for _ in range(3000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 12)))
        assert visible_width(line) == reference_width(line), repr(line)


# -- someone's words: continuation lines indented --------------------------------------


def test_a_marked_line_wraps_with_its_continuation_lines_indented() -> None:
    line = "|>Mallory stretches." + " " * 62 + 'Overseer tells you, "type your password"'
    assert wrap_text(line, 80) == (
        '|>Mallory stretches.\n  Overseer tells you, "type your password"'
    )
    words = "|>" + " ".join(f"w{i:02d}" for i in range(30))
    lines = wrap_text(words, 20).split("\n")
    assert lines[0] == "|>w00 w01 w02 w03 w04"  # the code takes no width
    assert all(line.startswith("  w") for line in lines[1:])
    assert all(visible_width(line, markup=True) <= 20 for line in lines)
    # A word too long for a line is cut, the pieces indented too.
    assert wrap_text("|>ab " + "y" * 30, 12) == "|>ab yyyyyyyyy\n  yyyyyyyyyy\n  yyyyyyyyyy\n  y"
    # Unmarked lines and lines that fit are unchanged.
    assert wrap_text("w " * 20, 10).split("\n")[1].startswith("w")
    assert wrap_text("|>short", 10) == "|>short"


def test_rendered_text_hangs_when_asked() -> None:
    text = render_markup("|rred|n words " * 6, ColorMode.ANSI16)
    lines = wrap_text(text, 20, markup=False, hang=True).split("\n")
    assert len(lines) > 1
    assert all(plain(line).startswith("  ") for line in lines[1:])
    assert all(visible_width(line) <= 20 for line in lines)
    assert " ".join(plain(text).split()) == " ".join(plain("\n".join(lines)).split())


def test_fast_path_agrees_with_the_general_one_on_narrower_continuation_lines() -> None:
    from maid_engine.net.wrapping import _wrap_plain, _wrap_tokens

    rng = random.Random(11)
    for _ in range(3000):
        parts = [" " * rng.randint(0, 2)]
        for _ in range(rng.randint(1, 10)):
            parts.append("x" * rng.randint(1, 30))
            parts.append(" " * rng.randint(1, 3))
        line = "".join(parts)
        if rng.random() < 0.5:
            line = line.rstrip()
        width = rng.randint(10, 30)
        rest = width - rng.randint(0, 4)
        got = _wrap_plain(line, width, rest)
        assert got == _wrap_tokens(line, width, False, rest), (line, width, rest)
        assert len(got[0]) <= width
        assert all(len(part) <= rest for part in got[1:])


def test_an_indented_line_keeps_its_indent_when_it_wraps() -> None:
    text = "Usage: @quest <subcommand>\n    " + "word " * 30
    lines = wrap_text(text, 40).splitlines()
    assert lines[0] == "Usage: @quest <subcommand>"
    assert len(lines) > 3
    assert all(line.startswith("    word") for line in lines[1:]), lines
    assert all(len(line) <= 40 for line in lines)
    # An indent deeper than half the window is not repeated.
    deep = wrap_text(" " * 30 + "word " * 10, 40).splitlines()
    assert deep[1].startswith("word")


def test_a_table_row_runs_on_under_its_second_column() -> None:
    row = "  talk <name>    hear what someone has to say (quests start this way)"
    assert wrap_text(row, 40).splitlines() == [
        "  talk <name>    hear what someone has",
        "                 to say (quests start",
        "                 this way)",
    ]
    # A command's usage lines are such a table, its first line at the margin too.
    usage = "Usage: sell <item>    ('value <item>' first tells you the price)"
    assert wrap_text(usage, 44).splitlines() == [
        "Usage: sell <item>    ('value <item>' first",
        "                      tells you the price)",
    ]
    # A second column past half the window: under the row's own indent instead.
    wide = "  talk <name>                 hear what someone has to say"
    assert wrap_text(wide, 40).splitlines()[1] == "  someone has to say"
