"""Sanitising output and input, the line assembler, capability detection, the bucket."""

from __future__ import annotations

from maid_engine.net.limits import TokenBucket
from maid_engine.net.lines import OVERFLOW, LineAssembler
from maid_engine.net.mtts import detect
from maid_engine.net.sanitize import (
    clean_authored,
    clean_input_line,
    decode_input,
    sanitize_output,
    strip_invisible,
)
from maid_engine.sessions import ColorMode


def test_sanitize_output_removes_escapes_and_controls() -> None:
    assert sanitize_output("\x1b[31mred\x1b[0m") == "red"
    assert sanitize_output("a\x1b]0;title\x07b") == "ab"
    assert sanitize_output("a\x1b]8;;http://x\x1b\\b") == "ab"
    assert sanitize_output("bell\x07 nul\x00 del\x7f c1\x9b31m") == "bell nul del c1"
    assert sanitize_output("ÿû\x01") == "ÿû"
    assert sanitize_output("lone \x1b") == "lone "
    assert sanitize_output("tab\tok\nline") == "tab\tok\nline"
    assert sanitize_output("a\r\nb\rc") == "a\nb\nc"
    clean = "plain text"
    assert sanitize_output(clean) is clean


def test_sanitized_output_never_contains_escape_or_c0() -> None:
    nasty = "".join(chr(i) for i in range(0, 0xA0)) * 3 + "\x1b[" + "\x1bP" + "\x9d"
    out = sanitize_output(nasty)
    assert all(c in "\t\n" or 0x20 <= ord(c) < 0x7F for c in out)


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def test_clean_authored_removes_bidi_zero_width_and_separators() -> None:
    assert clean_authored(f"a{BIDI}b{ZERO_WIDTH}c") == "abc"
    assert clean_authored("one\u2028two\u2029three") == "one two three"
    assert clean_authored("one\u2028two", line_break="\n") == "one\ntwo"
    assert strip_invisible("a\u202eb\u2028c") == "ab\u2028c"
    # Ordinary text, accented and wide, is left alone (and plain ASCII is not copied).
    assert clean_authored("Café, 界, naïve") == "Café, 界, naïve"
    plain = "hello there"
    assert clean_authored(plain) is plain


def test_sanitize_output_removes_them_from_everything_sent() -> None:
    assert sanitize_output(f"x{BIDI}{ZERO_WIDTH}y\u2028z") == "xy z"


def test_clean_input_line() -> None:
    assert clean_input_line("  look  ") == "look"
    assert clean_input_line("lok\x7fok") == "look"
    assert clean_input_line("say hi\x1b[A\x1b[D!") == "say hi!"
    assert clean_input_line("a\tb\x00c\x9b") == "a bc"
    assert clean_input_line("\b\bx") == "x"


def test_decode_input() -> None:
    assert decode_input("héllo".encode(), utf8_client=True) == "héllo"
    assert decode_input(b"h\xe9llo", utf8_client=False) == "héllo"
    assert decode_input(b"h\xe9llo", utf8_client=True) == "h\ufffdllo"


def test_line_assembler_line_endings() -> None:
    la = LineAssembler(100)
    lines, _ = la.feed(b"one\r\ntwo\nthree\r\x00four\rfive")
    assert lines == [b"one", b"two", b"three", b"four"]
    lines, _ = la.feed(b"\r")
    assert lines == [b"five"]
    lines, _ = la.feed(b"\nsix\r\n")  # the LF belongs to the previous CR
    assert lines == [b"six"]


def test_line_assembler_overflow_is_bounded() -> None:
    la = LineAssembler(10)
    events, _ = la.feed(b"x" * 8)
    assert events == []
    events, _ = la.feed(b"x" * 1000)
    assert events == [OVERFLOW]
    assert la.buffered == 0
    events, _ = la.feed(b"y" * 100_000)
    assert events == []
    assert la.buffered == 0
    events, _ = la.feed(b"tail\nok\n")
    assert events == [b"ok"]


def test_line_assembler_echo() -> None:
    la = LineAssembler(100)
    events, echo = la.feed(b"ab\x7f\x7f\x7fc\x1b\r\n", echo=True)
    assert events == [b"ab\x7f\x7f\x7fc\x1b"]
    assert echo == b"ab\b \b\b \bc\r\n"


def test_detect_mtts_client() -> None:
    found = detect(["MUDLET", "XTERM-256COLOR", "MTTS 271"], {}, "UTF-8")
    assert found.client_name == "MUDLET"
    assert found.terminal == "XTERM-256COLOR"
    assert found.mtts == 271
    assert found.color is ColorMode.TRUECOLOR
    assert found.utf8


def test_detect_colour_levels() -> None:
    assert detect([]).color is ColorMode.NONE
    assert detect(["dumb"]).color is ColorMode.NONE
    assert detect(["ANSI", "VT100"]).color is ColorMode.ANSI16
    assert detect(["xterm"]).color is ColorMode.ANSI16
    assert detect(["xterm-256color"]).color is ColorMode.XTERM256
    assert detect(["xterm"], {"COLORTERM": "truecolor"}).color is ColorMode.TRUECOLOR
    assert detect(["TINTIN++", "xterm"]).color is ColorMode.XTERM256
    assert detect(["MUSHCLIENT"]).color is ColorMode.XTERM256
    assert detect(["foo", "bar", "MTTS 1"]).color is ColorMode.ANSI16
    assert detect(["foo", "bar", "MTTS 9"]).color is ColorMode.XTERM256
    assert not detect(["xterm"]).utf8
    assert detect(["xterm"], {"LANG": "en_US.UTF-8"}).utf8
    assert detect(["x", "y", "MTTS 4"]).utf8


def test_detect_mnes_environ() -> None:
    found = detect(["TINTIN++", "xterm"], {"CLIENT_NAME": "TinTin++", "CLIENT_VERSION": "2.02"})
    assert (found.client_name, found.client_version) == ("TinTin++", "2.02")


def test_token_bucket() -> None:
    now = [0.0]
    bucket = TokenBucket(3, 2.0, lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5  # one token back
    assert bucket.take()
    assert not bucket.take()
    now[0] += 100
    assert sum(bucket.take() for _ in range(10)) == 3
    assert all(TokenBucket(0, 0, lambda: 0.0).take() for _ in range(100))


def test_net_limits_validation() -> None:
    import pytest

    from maid_engine.net import NetLimits

    with pytest.raises(ValueError, match="rate_burst"):
        NetLimits(rate_burst=-1)
    assert NetLimits(idle_timeout=None).idle_timeout is None
    assert NetLimits().max_line_bytes == 4 * 4096


def test_line_assembler_whole_line_reads_match_the_general_path() -> None:
    # A read of one whole CR LF line takes a short cut; what it gives must be what
    # the byte-by-byte rules give, whatever came before.
    reads = [b"look\r\n", b"\r\n", b"x" * 10 + b"\r\n", b"x" * 11 + b"\r\n", b"a\rb\r\n"]
    reads += [b"a\nb\r\n", b"part", b"ial\r\n", b"cr\r", b"\r\n", b"lf\n", b"say hi\r\n"]
    fast, slow = LineAssembler(10), LineAssembler(10)
    for data in reads:
        got = fast.feed(data)
        # The general path, one byte at a time (no read is then a whole line).
        lines: list[bytes | None] = []
        for i in range(len(data)):
            lines += slow.feed(data[i : i + 1])[0]
        assert got == (lines, b""), data
        assert fast.buffered == slow.buffered
