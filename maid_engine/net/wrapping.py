"""Word wrapping that measures what the player sees, not the bytes we send.

Escape sequences and (optionally) markup codes are zero-width and never split; East Asian
wide characters count two columns and combining marks none.

A line of someone's words (what a player typed, what the model narrated) is marked
with the markup code ``|>`` at its start; its continuation lines are indented by
:data:`HANG_INDENT`, so however the author pads the text, wrapping never puts any of it
at the start of a line, where the game's own messages begin.
"""

from __future__ import annotations

import re
import unicodedata

from maid_engine.net.markup import HANG

DEFAULT_WIDTH = 80
MIN_WIDTH = 10
MAX_WIDTH = 1000
_TAB_WIDTH = 8  # counted as a full tab stop: conservative, never overflows the line
#: What every continuation line of such a line starts with.
HANG_INDENT = "  "

# Escape sequences the renderer can produce (plus any other CSI, to be safe).
_ESC = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]"
_MARKUP = r"\|(?:\[#[0-9a-fA-F]{6}|#[0-9a-fA-F]{6}|\[[xrgybmcwXRGYBMCW]|[xrgybmcwXRGYBMCWnhu>])"
_ATOMS_PLAIN = re.compile(rf"({_ESC})|([ \t]+)|([^ \t\x1b]+|\x1b)")
_ESC_RE = re.compile(_ESC)
_ATOMS_MARKUP = re.compile(rf"({_ESC}|{_MARKUP})|([ \t]+)|(\|\||[^ \t\x1b|]+|[\x1b|])")


_LIST_ITEM = re.compile(r"[-*\u2022] |\d+[.)] ")
#: A labelled line ("Usage: ...", "Example: ...", "See also: ..."): it starts a line.
_LABEL = re.compile(r"[A-Z][a-z]+(?: [a-z]+)?: ")


def unwrap_paragraphs(text: str) -> str:
    """``text`` with each paragraph on one line, for the session to wrap to the
    client's width.

    Text written hard-wrapped (a docstring, a help page) wrapped again at a
    narrower width leaves a word or two alone on every other line. A paragraph
    here is a run of lines that start at the margin; indented lines (a table of
    commands), list items, labelled lines ("Example: ...") and blank lines keep
    their own lines, and a "Usage:" line is never run on into the prose after it.
    """
    out: list[str] = []
    for line in text.split("\n"):
        prev = out[-1] if out else ""
        if (
            prev
            and line
            and not prev[0].isspace()
            and not line[0].isspace()
            and not _LIST_ITEM.match(line)
            and not _LABEL.match(line)
            and not prev.startswith("Usage:")
        ):
            out[-1] = f"{prev.rstrip()} {line.strip()}"
        else:
            out.append(line)
    return "\n".join(out)


def effective_width(width: int) -> int:
    """The width we really wrap to: nonsense values (0, 3, 70000) fall back to 80."""
    if width < MIN_WIDTH or width > MAX_WIDTH:
        return DEFAULT_WIDTH
    return width


def char_width(ch: str) -> int:
    if ch < "\u0300":  # everything below the combining block is one column (tabs aside)
        return _TAB_WIDTH if ch == "\t" else 1
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def text_width(text: str) -> int:
    """Columns of plain text (no escapes in it)."""
    if text.isascii() and "\t" not in text:
        return len(text)
    return sum(char_width(c) for c in text)


def visible_width(line: str, *, markup: bool = False) -> int:
    """Columns ``line`` occupies once escape codes (and markup, if asked) take none."""
    if "\x1b" not in line and not (markup and "|" in line):
        return text_width(line)
    if not markup:
        # Every escape sequence is zero-width, everything else (a stray ESC too)
        # counts as text: removing the sequences in one pass in C measures the same.
        return text_width(_ESC_RE.sub("", line))
    total = 0
    atoms = _ATOMS_MARKUP if markup else _ATOMS_PLAIN
    for m in atoms.finditer(line):
        if m.group(1):
            continue
        piece = m.group()
        total += 1 if piece == "||" else text_width(piece)
    return total


# A word's pieces: (text, width), where escape and markup codes have width 0.
_Piece = tuple[str, int]
_CHUNKS = re.compile(r"[ \t]+|[^ \t]+")  # our codes never contain blanks


def _word_width(word: str, markup: bool) -> int:
    if word.isascii() and "\x1b" not in word and not (markup and "|" in word):
        return len(word)
    return visible_width(word, markup=markup)


def _pieces(word: str, markup: bool) -> list[_Piece]:
    atoms = _ATOMS_MARKUP if markup else _ATOMS_PLAIN
    out: list[_Piece] = []
    for m in atoms.finditer(word):
        piece = m.group()
        out.append((piece, 0 if m.group(1) else (1 if piece == "||" else text_width(piece))))
    return out


def _hard_split(pieces: list[_Piece], room: int, width: int) -> list[tuple[str, int]]:
    """Cut an over-long word into chunks: the first ``room`` wide, then ``width`` wide."""
    chunks: list[tuple[str, int]] = []
    cur: list[str] = []
    cur_w = 0
    limit = room
    for piece, w in pieces:
        if w == 0 or piece == "||":
            if cur_w + w > limit and cur:
                chunks.append(("".join(cur), cur_w))
                cur, cur_w, limit = [], 0, width
            cur.append(piece)
            cur_w += w
            continue
        for ch in piece:
            cw = char_width(ch)
            if cur_w + cw > limit and (cur_w > 0 or limit < width):
                chunks.append(("".join(cur), cur_w))
                cur, cur_w, limit = [], 0, width
            cur.append(ch)
            cur_w += cw
    if cur:
        chunks.append(("".join(cur), cur_w))
    return chunks


def _wrap_plain(line: str, width: int, rest: int | None = None) -> list[str]:
    """Same result as _wrap_tokens for ASCII without codes or tabs, several times faster.
    ``rest``: the width of the lines after the first (default ``width``)."""
    rest = width if rest is None else rest
    out: list[str] = []
    limit = width
    while len(line) > limit:
        cut = line.rfind(" ", 0, limit + 1)
        if cut >= 0:
            after = line.find(" ", cut + 1)
            # The next line is a continuation unless nothing has been written yet.
            following = rest if rest != width and (out or line[:cut].strip(" ")) else width
            if (after if after != -1 else len(line)) - cut - 1 > following:
                cut = limit  # the next word needs cutting anyway: fill this line first
        else:
            cut = limit
        head = line[:cut].rstrip(" ")
        if head:
            out.append(head)
        line = line[cut:].lstrip(" ")  # (no head: only the indentation was cut off)
        limit = rest if out else width
    if line or not out:
        out.append(line)
    return out


def _wrap_line(line: str, width: int, markup: bool, indent: str = "") -> list[str]:
    rest = width - text_width(indent) if indent else None
    if line.isascii() and "\x1b" not in line and "\t" not in line and not (markup and "|" in line):
        out = _wrap_plain(line, width, rest)
    else:
        out = _wrap_tokens(line, width, markup, rest)
    if indent and len(out) > 1:
        out[1:] = [indent + part for part in out[1:]]
    return out


def _wrap_tokens(line: str, width: int, markup: bool, rest: int | None = None) -> list[str]:
    rest = width if rest is None else rest
    out: list[str] = []
    cur: list[str] = []
    cur_w = 0
    space = ""
    space_w = 0
    for tok in _CHUNKS.findall(line):
        if tok[0] in " \t":
            space, space_w = tok, text_width(tok)
            continue
        limit = rest if out else width
        w = _word_width(tok, markup)
        if cur_w + space_w + w <= limit:
            cur.append(space + tok)
            cur_w += space_w + w
        elif w <= (rest if out or cur else width):
            if cur:
                out.append("".join(cur))
            cur, cur_w = [tok], w
        else:
            room = limit - cur_w - space_w
            if room < 1:
                if cur:
                    out.append("".join(cur))
                    limit = rest
                cur, cur_w, room, space, space_w = [], 0, limit, "", 0
            chunks = _hard_split(_pieces(tok, markup), room, rest)
            first, first_w = chunks[0]
            cur.append(space + first)
            cur_w += space_w + first_w
            for chunk, chunk_w in chunks[1:]:
                out.append("".join(cur))
                cur, cur_w = [chunk], chunk_w
        space, space_w = "", 0
    if space and cur_w + space_w <= (rest if out else width):
        cur.append(space)  # trailing blanks of a line that fits (e.g. a prompt's "> ")
    out.append("".join(cur))
    return out


def wrap_text(text: str, width: int, *, markup: bool = True, hang: bool = False) -> str:
    """Word-wrap every line of ``text`` to ``width`` visible columns.

    Existing newlines are kept; blanks at a wrap point are dropped; words longer than the
    line are cut (never inside an escape code or markup code). With ``markup`` the colour
    markup is zero-width too (pass False for text that was already rendered), and a line
    starting with :data:`HANG` has its continuation lines indented by
    :data:`HANG_INDENT`; ``hang`` indents the continuation lines of every line (for
    text already rendered, whose ``|>`` is gone). Any other line that starts with
    blanks repeats them on its continuation lines (see :func:`_own_indent`).
    """
    width = effective_width(width)
    lines = text.split("\n")
    result: list[str] = []
    for line in lines:
        if visible_width(line, markup=markup) <= width:
            result.append(line)
        elif hang or (markup and line.startswith(HANG)):
            result.extend(_wrap_line(line, width, markup, HANG_INDENT))
        else:
            result.extend(_wrap_line(line, width, markup, _own_indent(line, width)))
    return "\n".join(result)


def _own_indent(line: str, width: int) -> str:
    """The leading blanks a wrapped line's continuations repeat.

    An indented line (a usage list's explanation) stays visibly under itself when it
    wraps, instead of its tail falling back to the left edge among the headings; a
    table's row runs on under its second column. A very deep indent is not repeated:
    the text would be squeezed into a sliver.
    """
    indent = line[: len(line) - len(line.lstrip(" "))]
    # A table's row ("  look (or l)      see where you are", a command's first usage
    # line): its second column, where the row's text runs on, if that leaves the
    # text room enough.
    column = _SECOND_COLUMN.match(line)
    if column is not None and column.end() <= width // 2:
        return " " * column.end()
    return indent if 0 < len(indent) <= width // 2 else ""


#: A row's first column (after its indentation, or "Usage: ") and the gap after it.
_SECOND_COLUMN = re.compile(r"(?: +|Usage: )\S(?:\S| (?! ))* {2,}(?=\S)")
