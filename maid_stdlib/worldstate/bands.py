"""Words for numbers: bands turn ``55`` into ``minor damage``.

Band descriptions are the reliability trick of the design: a model reads "badly hurt"
and adjusts down instead of doing arithmetic it is bad at.
"""

from __future__ import annotations

from maid_stdlib.worldstate.schema import Number, StatDef, fmt_number

EN_DASH = "\u2013"  # ranges read "0<en dash>20" as in the seed; escaped for linters


def fmt_signed(value: Number) -> str:
    """``+5`` / ``-10``: the form a delta is written in everywhere."""
    text = fmt_number(value)
    return text if text.startswith("-") else f"+{text}"


def band_label(stat: StatDef, value: Number) -> str | None:
    """The label of the band holding ``value``, or ``None`` if no band does.

    Bands share their edges ([0,20] then [20,40]); an edge belongs to the band above
    it, except the top edge of the last band, so 20 is "hurt" and 100 "full health".
    """
    ordered = sorted(stat.bands, key=lambda b: b[0])
    for i, (lo, hi, label) in enumerate(ordered):
        last = i == len(ordered) - 1
        if lo <= value < hi or (last and value == hi):
            return label
    return None


def band_ladder(stat: StatDef) -> str:
    """The whole scale, ``0-20 very weak, 20-40 hurt, …`` with en dashes (or ``""``)."""
    ordered = sorted(stat.bands, key=lambda b: b[0])
    return ", ".join(
        f"{fmt_number(lo)}{EN_DASH}{fmt_number(hi)} {label}" for lo, hi, label in ordered
    )


def is_gauge(stat: StatDef) -> bool:
    """A 0..max stat reads naturally as ``55/100``; a -100..100 one does not."""
    return stat.max is not None and stat.min is not None and stat.min >= 0


def value_text(stat: StatDef, value: Number) -> str:
    """``55/100 (minor damage)``: the live-value form used in the World State line."""
    text = fmt_number(value)
    if is_gauge(stat):
        assert stat.max is not None
        text += f"/{fmt_number(stat.max)}"
    label = band_label(stat, value)
    return f"{text} ({label})" if label else text


def range_text(stat: StatDef) -> str:
    """``it runs from 0 to 100`` / ``it runs from 1 upward`` / ``""`` if unbounded."""
    lo, hi = stat.min, stat.max
    if lo is not None and hi is not None:
        return f"it runs from {fmt_number(lo)} to {fmt_number(hi)}"
    if lo is not None:
        return f"it runs from {fmt_number(lo)} upward"
    if hi is not None:
        return f"it runs up to {fmt_number(hi)}"
    return ""
