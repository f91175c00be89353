"""Output rendering (maid_engine.net.rendering): the cached answers, whole or built
line by line, are exactly the pipeline's."""

from __future__ import annotations

import random
import re

import pytest

from maid_engine.net import rendering
from maid_engine.net.markup import render_markup
from maid_engine.net.rendering import render_output
from maid_engine.net.sanitize import sanitize_output
from maid_engine.net.wrapping import wrap_text
from maid_engine.sessions import ColorMode

WIDTHS = (0, 12, 20, 80)


def pipeline(text: str, mode: ColorMode, width: int) -> str:
    return wrap_text(render_markup(sanitize_output(text), mode), width, markup=False)


def test_known_texts_match_the_pipeline_and_the_caches_stay_bounded() -> None:
    texts = [
        "|cRoom|n\nA |rred|n door and a long line " + "word " * 40,
        "bad \x1b[2J escape\x07 and |||| pipes",
        "x" * (rendering.MAX_CACHED_TEXT + 10),
        "|rred left on\nacross lines\n\n",  # the reset goes after "lines"
        "|gGreen|n\n|b",  # a last line that only switches colour on
        "one\r\ntwo |r\r\n",  # sanitising changes it: the whole pipeline
    ]
    for text in texts:
        for mode in ColorMode:
            for width in WIDTHS:
                want = pipeline(text, mode, width)
                assert render_output(text, mode, width) == want, (text, mode, width)
                assert render_output(text, mode, width) == want  # from the cache
    for cached in (rendering._text, rendering._line):
        info = cached.cache_info()
        assert info.maxsize is not None
        assert info.currsize <= info.maxsize


_PIECES = [
    "|r",
    "|G",
    "|n",
    "|h",
    "|[b",
    "|#ff8800",
    "|",
    "||",
    "|||r",
    "a",
    "word ",
    "long" * 6,
    " ",
    "  ",
    "\t",
    "\n",
    "\n",
    "\n\n",
    "界",
    "e\u0301",
    "\x1b[1m",
    "\x07",
]


@pytest.mark.parametrize("seed", range(30))
def test_random_texts_render_as_the_pipeline_renders_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(0, 40)))
        for mode in ColorMode:
            width = rng.choice(WIDTHS)
            assert render_output(text, mode, width) == pipeline(text, mode, width), (
                text,
                mode,
                width,
            )


def test_a_crowd_listing_is_rendered_from_cached_lines() -> None:
    """Each viewer's listing leaves the viewer out: new texts, known lines."""
    rendering._text.cache_clear()
    rendering._line.cache_clear()
    people = [f"|y{name}|n is standing here." for name in ("Anna", "Brin", "Cara", "Dov")]
    for viewer in range(len(people)):
        listing = "\n".join(["|cSquare|n", *(p for i, p in enumerate(people) if i != viewer)])
        assert render_output(listing, ColorMode.ANSI16, 80) == pipeline(
            listing, ColorMode.ANSI16, 80
        )
    info = rendering._line.cache_info()
    assert info.misses == 1 + len(people)  # the header and each person, once
    assert info.hits == len(people) * len(people) - info.misses


def test_marked_lines_hang_in_every_path() -> None:
    """A ``|>`` line (someone's words) wraps with indented continuation lines, whether
    the text is rendered whole, line by line from the caches, or sanitised first."""
    said = '|>|mMallory tells you,|n "' + "psst " * 20 + '"'
    texts = [
        said,  # one line
        "|cThe Square|n\n" + said + "\nAn unmarked line that is long enough to wrap at forty",
        said + "\x07",  # sanitising changes it: the uncached path
        "x" * (rendering.MAX_CACHED_TEXT + 10) + "\n" + said,  # too long to cache
    ]
    for text in texts:
        for mode in ColorMode:
            out = render_output(text, mode, 40)
            assert out == rendering._pipeline(text, mode, 40)
            lines = [_plain(line) for line in out.split("\n")]
            start = next(i for i, line in enumerate(lines) if line.startswith("Mallory tells"))
            end = next(i for i in range(start, len(lines)) if lines[i].endswith('"'))
            assert end > start
            assert all(line.startswith("  psst") for line in lines[start + 1 : end + 1])
            assert "|>" not in out
            # Unmarked lines still wrap flush left.
            if "unmarked" in text:
                assert lines[end + 1 :] == [
                    "An unmarked line that is long enough to",
                    "wrap at forty",
                ]


def _plain(line: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", line)


def test_the_wire_form_is_the_rendered_text_with_crlf_in_utf8() -> None:
    # What the telnet session used to make of render_output's answer each time.
    def by_hand(text: str, mode: ColorMode, width: int, newline: bool) -> bytes:
        out = render_output(text, mode, width)
        if newline and not out.endswith("\n"):
            out += "\n"
        return out.replace("\n", "\r\n").encode("utf-8")

    texts = [
        "|cRoom|n\nA |rred|n door, a café " + "word " * 30,
        "ends with a newline\n",
        "<20/20hp 5/5mp> ",
        "",
        "x\n" * (rendering.MAX_CACHED_TEXT // 2 + 10),  # too long to cache
    ]
    for text in texts:
        for mode in (ColorMode.NONE, ColorMode.ANSI16):
            for newline in (True, False):
                want = by_hand(text, mode, 80, newline)
                assert rendering.render_wire(text, mode, 80, newline) == want
                assert rendering.render_wire(text, mode, 80, newline) == want  # cached
