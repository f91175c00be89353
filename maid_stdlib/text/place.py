"""A room's name as it reads in running prose.

Rooms are often named "Area, Landmark" for the room list ("Old Trade Road, The
Broken Wagon"); in a sentence that becomes "the Broken Wagon on the Old Trade
Road". Names whose last word is a common noun of places ("Road", "Camp") take
"the"; a bare proper name ("Ironvale") does not.
"""

from __future__ import annotations

__all__ = ["located", "place_phrase", "with_article"]

#: Head words that make a place name a description that takes "the".
_COMMON_HEADS = frozenset(
    """
    road street lane way path track trail bridge ford bend gate gates square market row
    camp ridge hill hills mountain mountains pass valley vale wood woods forest grove glade
    field fields meadow farm mill river stream brook lake pond marsh swamp bog shore coast
    cave caves cavern mine mines quarry cellar tunnel tunnels tower keep castle hall house
    inn tavern smithy forge shop stall temple shrine chapel crypt tomb ruins ruin well
    clearing crossroads crossing dock docks harbour harbor wharf post barracks yard garden
    gardens wall walls outskirts edge wagon
    """.split()
)
#: The preposition a landmark sits "on" or "in" its area.
_ALONG = frozenset({"road", "street", "lane", "way", "path", "track", "trail", "ridge", "river"})


#: First words of a place's name that already say where it is ("Atop the
#: Watchtower"): such a name takes no preposition of ours.
_PLACE_WORDS = frozenset(
    "above across along among at atop before behind below beneath beside between "
    "beyond by in inside near on outside over under underneath upon within".split()
)


def says_where(name: str) -> str | None:
    """ "atop the Watchtower" for a name that opens with where it is ("Atop the
    Watchtower"), else None."""
    first, _, rest = " ".join(name.split()).partition(" ")
    if rest and first.casefold() in _PLACE_WORDS:
        return f"{first.casefold()} {rest}"
    return None


def with_article(name: str) -> str:
    """ "the Old Trade Road", "the Guard Post", "Ironvale", "Gundrik's Smithy", "a
    Trail Through the Pines"."""
    text = " ".join(name.split())
    if not text:
        return text
    first, _, rest = text.partition(" ")
    if first.lower() == "the":
        return "the " + rest if rest else text
    if first.lower() in ("a", "an") and rest:
        # "A Trail Through the Pines": its own article, in a sentence's lower case.
        return f"{first.lower()} {rest}"
    words = text.split()
    if any(w.endswith(("'s", "s'")) for w in words):
        return text  # "Gundrik's Smithy": the possessive already determines it
    if words[-1].lower().strip(".,") in _COMMON_HEADS:
        return "the " + text
    return text


def place_phrase(room_name: str, area_name: str = "") -> str:
    """The room's prose form: "the Broken Wagon on the Old Trade Road", "the Guard Post"."""
    room = " ".join(room_name.split())
    area = " ".join(area_name.split())
    if not room:
        return with_article(area)
    head, sep, landmark = room.partition(", ")
    if sep and landmark:
        where = with_article(head)
        lead = landmark.split()[0].lower()
        if lead in {"below", "above", "beyond", "near", "by", "under", "behind", "past"}:
            # "Old Trade Road, Below the Gate" -> "the Old Trade Road below the gate"
            return f"{where} {landmark[0].lower()}{landmark[1:]}"
        prep = "on" if head.split()[-1].lower() in _ALONG else "in"
        return f"{with_article(landmark)} {prep} {where}"
    return with_article(room)


def located(prose: str) -> str:
    """A place in prose with the preposition it takes: "on the Old Trade Road",
    "at the Broken Wagon on the Old Trade Road", "at the Guard Post", "in Ironvale"."""
    text = " ".join(prose.split())
    if not text:
        return text
    own = says_where(text)
    if own is not None:
        return own  # "atop the Watchtower", not "in Atop the Watchtower"
    head = text.split(" on ")[0].split(" in ")[0]
    if head != text:
        return f"at {text}"  # a landmark on a longer way
    last = head.split()[-1].lower().strip(".,")
    if head.lower().startswith("the ") and last in _ALONG:
        return f"on {text}"
    if head.lower().startswith("the "):
        return f"at {text}"
    return f"in {text}"
