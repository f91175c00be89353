"""What characters see: rooms, things, and names."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple
from uuid import UUID

from maid_engine.accounts.components import PlayerCharacter
from maid_engine.ecs import World
from maid_stdlib.options.components import PlayerOptions
from maid_stdlib.text.morph import counted_line
from maid_stdlib.world.components import NPC, Describable, Room, SeenAs
from maid_stdlib.world.crowd import NAMED, crowd_line
from maid_stdlib.world.text import capitalize, exit_order

if TYPE_CHECKING:
    from maid_stdlib.world.service import WorldService


def name_of(ws: WorldService, entity_id: UUID) -> str:
    """Display name: Describable, else the character name, else "something"."""
    world = ws.world
    desc = world.try_component(entity_id, Describable)
    if desc is not None and desc.name:
        return desc.name
    pc = world.try_component(entity_id, PlayerCharacter)
    if pc is not None and pc.name:
        return pc.name
    return "something"


def render_exits(ws: WorldService, room_key: str) -> str:
    names = sorted(ws.exits_of(room_key), key=exit_order)
    return "|gExits:|n " + (", ".join(names) if names else "none")


def render_room(
    ws: WorldService, room_key: str, viewer: UUID | None = None, *, moving: bool = False
) -> str:
    """The room as ``look`` shows it: name, description, exits, then who and what is here.

    The viewer's settings apply: no exits line with auto-exits off, and no
    description when ``moving`` (walking in) in brief mode.

    The header and the listing are cached per room (see :class:`_RoomListing`); a
    look then costs a few dictionary lookups and one join, whatever the crowd.
    """
    room = ws.room(room_key)
    if room is None:
        return "You are nowhere. (Ask an admin to @goto you somewhere.)"
    if ws.visibility_checks:
        # Visibility depends on the viewer: no shared listing.
        text = _render_uncached(ws, room_key, room, viewer)
    else:
        text = _listing(ws, room_key, room).text_for(viewer)
    options = ws.world.try_component(viewer, PlayerOptions) if viewer is not None else None
    if options is None or (options.auto_exits and not (moving and options.brief)):
        return text
    header = _header(ws, room_key, room)
    lines = [f"|c{room.name}|n"]
    if not (moving and options.brief):
        lines.append(room.description)
    if options.auto_exits:
        lines.append(render_exits(ws, room_key))
    return "\n".join(lines) + text[len(header) :]


def _header(ws: WorldService, room_key: str, room: Room) -> str:
    return "\n".join([f"|c{room.name}|n", room.description, render_exits(ws, room_key)])


def _render_uncached(ws: WorldService, room_key: str, room: Room, viewer: UUID | None) -> str:
    world = ws.world
    lines = [_header(ws, room_key, room)]
    entries, n_chars = _classified(world, ws.visible_in(room_key, viewer), viewer)
    if n_chars + _one_of_them(ws, room_key, viewer) > ws.crowd_size:
        lines.append(crowd_line([name_of(ws, uid) for uid, _ in entries[:n_chars]]))
        entries = entries[n_chars:]
    lines.extend(_grouped(world, entries))
    return "\n".join(lines)


def _one_of_them(ws: WorldService, room_key: str, viewer: UUID | None) -> int:
    """1 if ``viewer`` is one of the characters seen in the room (a crowd is the
    room's characters, the viewer among them, whoever looks), else 0."""
    if viewer is None or ws.room_key_of(viewer) != room_key:
        return 0
    desc, pc = ws.world.try_components(viewer, Describable, PlayerCharacter)
    return int(desc is not None and pc is not None and ws.engine.sessions.is_online(viewer))


def _classified(
    world: World, uids: list[UUID], viewer: UUID | None = None
) -> tuple[list[tuple[UUID, str]], int]:
    """``(uid, line)`` of each entity as ``viewer`` reads it -- characters first,
    then NPCs, then things -- and how many of them are characters."""
    chars: list[tuple[UUID, str]] = []
    npcs: list[tuple[UUID, str]] = []
    things: list[tuple[UUID, str]] = []
    for uid in uids:
        desc, seen_as = world.try_components(uid, Describable, SeenAs)
        assert desc is not None  # visible_in lists only what can be seen
        line = desc.short or f"{capitalize(desc.name)} is here."
        if seen_as is not None and viewer is not None:
            line = seen_as.lines.get(viewer, line)
        if world.has_component(uid, PlayerCharacter):
            chars.append((uid, line))
        elif world.has_component(uid, NPC):
            npcs.append((uid, line))
        else:
            things.append((uid, line))
    return chars + npcs + things, len(chars)


#: viewer -> {entity: the line that viewer reads of it instead of its own}.
Personal = dict[UUID, dict[UUID, str]]


def _seen_by_all(
    ws: WorldService, room_key: str
) -> tuple[list[tuple[UUID, str]], list[str], Personal]:
    """What ``_classified(ws.visible_in(room_key))`` gives with no visibility checks
    and no viewer, the characters' names and the lines some viewers read instead
    (:class:`SeenAs`), in one pass that looks each entity up once: a listing is
    rebuilt for a crowd at every arrival there, and each look-up by UUID is a Python
    call to hash it."""
    world = ws.world
    online = ws.engine.sessions.is_online
    look_up = world.try_components
    chars: list[tuple[UUID, str]] = []
    names: list[str] = []
    npcs: list[tuple[UUID, str]] = []
    things: list[tuple[UUID, str]] = []
    personal: Personal = {}
    for uid in ws.contents(room_key):
        desc, pc, npc, seen_as = look_up(uid, Describable, PlayerCharacter, NPC, SeenAs)
        if desc is None:
            continue
        line = desc.short or f"{capitalize(desc.name)} is here."
        if seen_as is not None:
            for viewer, own in seen_as.lines.items():
                personal.setdefault(viewer, {})[uid] = own
        if pc is not None:
            if not online(uid):
                continue  # an offline character is in the room but not seen
            chars.append((uid, line))
            names.append(desc.name or pc.name or "something")  # as name_of reads it
        elif npc is not None:
            npcs.append((uid, line))
        else:
            things.append((uid, line))
    return chars + npcs + things, names, personal


class _ListingKey(NamedTuple):
    """What a room's kept listing was built for: it stays while this is equal."""

    world: World
    #: ``WorldService.shown_version`` of the room.
    shown: int
    #: ``Describable.listing_version``: a name or a room line changed anywhere.
    lines: int
    crowd_size: int


class _RoomListing:
    """A room's rendered header and its listing as seen by nobody in particular.

    A viewer with lines of their own (:class:`SeenAs`, in ``personal``) has the
    listing put together for them when they look: rare, so not kept.

    Valid while ``key`` is unchanged: the world, what can be seen in the room
    (``WorldService.shown_version``: who and what came or went, who there came
    online or went offline, which of them are Describable / characters / NPCs or
    being destroyed), every Describable name or short (``Describable.listing_version``)
    and the crowd size. The header is re-checked against the room's name,
    description and exits.

    In a crowd (more characters than ``crowd_size``) the characters' lines give way
    to one line naming two of them; a viewer among the characters reads the line
    without themselves, which is the same text for all but the two named.
    """

    __slots__ = (
        "_sorted_names",
        "counts",
        "crowd_in",
        "crowd_text",
        "entries",
        "first",
        "full_text",
        "group_index",
        "groups",
        "header",
        "header_key",
        "key",
        "n_chars",
        "names",
        "personal",
        "position",
        "rest",
    )

    def __init__(
        self,
        key: _ListingKey,
        header_key: tuple[object, ...],
        header: str,
        entries: list[tuple[UUID, str]],
        names: list[str],
        crowd_size: int,
        personal: Personal | None = None,
    ) -> None:
        self.key = key
        self.personal: Personal = personal or {}
        self.header_key = header_key
        self.header = header
        self.entries = entries
        self.names = names
        self.n_chars = len(names)
        self._sorted_names: list[str] | None = None
        self.position = {uid: i for i, (uid, _) in enumerate(entries)}
        crowded = self.n_chars > crowd_size
        # The entries that get lines of their own (all of them, or all but the crowd).
        self.rest = self.n_chars if crowded else 0
        counts: dict[str, int] = {}
        first: dict[str, int] = {}
        for i in range(self.rest, len(entries)):
            line = entries[i][1]
            if line in counts:
                counts[line] += 1
            else:
                counts[line] = 1
                first[line] = i
        self.counts = counts
        self.first = first
        lead = [crowd_line(names)] if crowded else []
        self.groups = lead + [
            _group_line(line, n, key.world, entries[first[line]][0]) for line, n in counts.items()
        ]
        self.group_index = {line: i + len(lead) for i, line in enumerate(counts)}
        self.crowd_in = crowd_line(names, skip=NAMED) if crowded else ""
        self.full_text = "\n".join([header, *self.groups])
        self.crowd_text = self._crowd_text()

    def _crowd_text(self) -> str:
        """What every character in the crowd but the two named reads: made once, so
        a crowd's looks are one string (the telnet layer's caches then find it by
        identity instead of hashing and comparing a new text for each player)."""
        if not self.crowded:
            return ""
        return "\n".join([self.header, self.crowd_in, *self.groups[1:]])

    @property
    def crowded(self) -> bool:
        return self.rest > 0

    def sorted_names(self) -> list[str]:
        """The characters' names in alphabetical order (``look crowd``), kept with
        the listing so a thousand players asking in one tick sort them once."""
        if self._sorted_names is None:
            self._sorted_names = sorted(self.names, key=str.casefold)
        return self._sorted_names

    def arrival(
        self, ws: WorldService, room_key: str, key: _ListingKey
    ) -> tuple[UUID, str, str] | None:
        """The character that came into view with the room's last change
        (``WorldService.last_change``: one it did not list, now an online
        character, the last to have come in) as ``(uid, line, name)``, if the
        listing was current just before it; None if anything else changed."""
        old = self.key
        if not (
            old.world is key.world
            and old.shown + 1 == key.shown
            and old.lines == key.lines
            and old.crowd_size == key.crowd_size
        ):
            return None
        uid = ws.last_change(room_key)
        if uid is None or uid in self.position or not ws.engine.sessions.is_online(uid):
            return None
        desc, pc, seen_as = ws.world.try_components(uid, Describable, PlayerCharacter, SeenAs)
        if desc is None or pc is None or seen_as is not None:
            return None  # (one seen otherwise by some: read the room again)
        # As _seen_by_all reads the line and the name.
        line = desc.short or f"{capitalize(desc.name)} is here."
        return uid, line, desc.name or pc.name or "something"

    def take_arrival(self, ws: WorldService, room_key: str, key: _ListingKey) -> bool:
        """Bring a crowd's listing to ``key`` by adding the character of
        :meth:`arrival` in place; False if it cannot (then it is rebuilt). A crowd's
        lines but the first are its NPCs' and things', so one more character moves
        them along and changes the crowd line only: the arrival costs what the
        room's NPCs and things do, not what its crowd does."""
        if not self.crowded:
            return False
        came = self.arrival(ws, room_key, key)
        if came is None:
            return False
        uid, line, name = came
        at = self.n_chars
        entries = self.entries
        entries.insert(at, (uid, line))
        position = self.position
        for i in range(at, len(entries)):
            position[entries[i][0]] = i
        self.first = {line: i + 1 for line, i in self.first.items()}
        self.names.append(name)
        self.n_chars = self.rest = at + 1
        self._sorted_names = None
        self.groups[0] = crowd_line(self.names)
        self.crowd_in = crowd_line(self.names, skip=NAMED)
        self.full_text = "\n".join([self.header, *self.groups])
        self.crowd_text = self._crowd_text()
        self.key = key
        return True

    def with_arrival(
        self, ws: WorldService, room_key: str, key: _ListingKey
    ) -> _RoomListing | None:
        """A room that is no crowd, as this listing and the character of
        :meth:`arrival` after its characters (None: not just an arrival): the
        room's entities are not read again nor its header rendered. It applies
        when the room's listing was current just before the walk (a group walking
        together, a room someone had just looked at); in the evening benchmark
        the room has usually changed more than once since, and is read again."""
        if self.crowded:
            return None
        came = self.arrival(ws, room_key, key)
        if came is None:
            return None
        uid, line, name = came
        entries = self.entries.copy()
        entries.insert(self.n_chars, (uid, line))
        return _RoomListing(
            key,
            self.header_key,
            self.header,
            entries,
            [*self.names, name],
            key.crowd_size,
            self.personal,
        )

    def set_header(self, header_key: tuple[object, ...], header: str) -> None:
        self.header_key = header_key
        self.header = header
        self.full_text = "\n".join([header, *self.groups])
        self.crowd_text = self._crowd_text()

    def text_for(self, viewer: UUID | None) -> str:
        if viewer is not None and viewer in self.personal:
            return self._personal_text(viewer)
        i = self.position.get(viewer) if viewer is not None else None
        if i is None:
            return self.full_text
        if i < self.rest:
            # A character in the crowd: everyone past the named two reads one text
            # (unless the crowd is so small that the line names all of the others).
            if i >= NAMED and self.n_chars > NAMED + 2:
                return self.crowd_text
            line = crowd_line(self.names, skip=i)
            return "\n".join([self.header, line, *self.groups[1:]])
        line = self.entries[i][1]
        n = self.counts[line]
        groups = self.groups.copy()
        g = self.group_index[line]
        if n == 1:
            del groups[g]
        elif self.first[line] == i:
            # The viewer's line leads its group: without them the group's place in
            # the order moves. Rare (someone else looks exactly like the viewer).
            lead = groups[:1] if self.crowded else []
            others = [e for j, e in enumerate(self.entries) if j != i and j >= self.rest]
            return "\n".join([self.header, *lead, *_grouped(self.key.world, others)])
        else:
            groups[g] = _group_line(line, n - 1, self.key.world, self.entries[self.first[line]][0])
        return "\n".join([self.header, *groups])

    def _personal_text(self, viewer: UUID) -> str:
        """The listing for a viewer who reads some of its lines their own way."""
        own = self.personal[viewer]
        i = self.position.get(viewer)
        lead: list[str] = []
        if self.crowded:
            in_crowd = i is not None and i < self.rest
            lead = [crowd_line(self.names, skip=i) if in_crowd else self.groups[0]]
        others = [
            (uid, own.get(uid, line))
            for j, (uid, line) in enumerate(self.entries)
            if j != i and j >= self.rest
        ]
        return "\n".join([self.header, *lead, *_grouped(self.key.world, others)])


def _listing(ws: WorldService, room_key: str, room: Room) -> _RoomListing:
    key = _ListingKey(
        ws.world, ws.shown_version(room_key), Describable.listing_version, ws.crowd_size
    )
    exits = ws.exits_of(room_key)
    header_key = (room, room.name, room.description, exits)
    cache = ws.look_cache
    cached = cache.get(room_key)
    kept = cached if isinstance(cached, _RoomListing) else None
    listing: _RoomListing | None = None
    if kept is not None:
        if kept.key == key or kept.take_arrival(ws, room_key, key):
            listing = kept
        else:
            listing = kept.with_arrival(ws, room_key, key)
            if listing is not None:
                cache[room_key] = listing
    if listing is not None:
        if listing.header_key != header_key:
            listing.set_header(header_key, _header(ws, room_key, room))
        return listing
    entries, names, personal = _seen_by_all(ws, room_key)
    if kept is not None and kept.header_key == header_key:
        header = kept.header
    else:
        header = _header(ws, room_key, room)
    listing = _RoomListing(key, header_key, header, entries, names, ws.crowd_size, personal)
    cache[room_key] = listing
    return listing


def crowd_names(ws: WorldService, room_key: str, viewer: UUID | None) -> list[str]:
    """The names of the characters in the room that ``viewer`` sees (not the viewer),
    alphabetically: what ``look crowd`` and ``who here`` list."""
    room = ws.room(room_key)
    if room is None:
        return []
    if ws.visibility_checks:
        entries, n_chars = _classified(ws.world, ws.visible_in(room_key, viewer))
        return sorted((name_of(ws, uid) for uid, _ in entries[:n_chars]), key=str.casefold)
    listing = _listing(ws, room_key, room)
    names = listing.sorted_names()
    i = listing.position.get(viewer) if viewer is not None else None
    if i is None or i >= listing.n_chars:
        return names
    own = listing.names[i]
    out = names.copy()
    out.remove(own)
    return out


def _group_line(line: str, n: int, world: World, uid: UUID) -> str:
    """The line of ``n`` entities that read ``line`` each (``uid`` one of them):
    "Three bandit scouts keep watch here." where the line starts with the name and
    a verb, else the line with a count, "... [x3]"."""
    if n == 1:
        return line
    desc = world.try_component(uid, Describable)
    said = counted_line(line, desc.name, n) if desc is not None else None
    return said if said is not None else f"{line} [x{n}]"


def _grouped(world: World, entries: list[tuple[UUID, str]]) -> list[str]:
    """Identical lines once, for as many as read them (see :func:`_group_line`)."""
    counts: dict[str, int] = {}
    first: dict[str, UUID] = {}
    for uid, line in entries:
        counts[line] = counts.get(line, 0) + 1
        first.setdefault(line, uid)
    return [_group_line(line, n, world, first[line]) for line, n in counts.items()]


#: ``provider(target, viewer) -> lines`` shown after someone or something is looked
#: at; a str is one line, None/[] adds nothing.
LookExtra = Callable[[UUID, UUID | None], "Iterable[str] | str | None"]
#: ``finder(viewer, wanted) -> entity`` that ``look <wanted>`` means, outside the room.
LookFinder = Callable[[UUID, str], "UUID | None"]
#: ``describer(viewer, wanted) -> text`` of something ``look <wanted>`` means that is
#: no entity here (a shop's goods on its list), or None.
LookDescriber = Callable[[UUID, str], "str | None"]


class LookExtras:
    """What other layers add below ``look <target>`` (a rules layer: what a character
    wears and wields)::

        engine.services.get(LookExtras).add("equipment", provider)
    """

    def __init__(self) -> None:
        self._extras: dict[str, LookExtra] = {}
        self._finders: dict[str, LookFinder] = {}
        self._describers: dict[str, LookDescriber] = {}

    def add(self, key: str, provider: LookExtra) -> None:
        """Add a provider (or replace the one with the same key)."""
        self._extras[key] = provider

    def add_finder(self, key: str, finder: LookFinder) -> None:
        """Add (or replace) a place ``look <thing>`` searches when the room has no
        such thing: a rules layer's inventory and equipment."""
        self._finders[key] = finder

    def find(self, viewer: UUID, wanted: str) -> UUID | None:
        for key in sorted(self._finders):
            found = self._finders[key](viewer, wanted)
            if found is not None:
                return found
        return None

    def add_describer(self, key: str, describer: LookDescriber) -> None:
        """Add (or replace) what ``look``/``examine <thing>`` asks last, when nothing
        here, carried or in the room's scenery is called that: a rules layer's
        things that are not entities (a keeper's goods, made when bought)."""
        self._describers[key] = describer

    def describe(self, viewer: UUID, wanted: str) -> str | None:
        for key in sorted(self._describers):
            text = self._describers[key](viewer, wanted)
            if text is not None:
                return text
        return None

    def remove(self, key: str) -> bool:
        return self._extras.pop(key, None) is not None

    def lines(self, target: UUID, viewer: UUID | None) -> list[str]:
        lines: list[str] = []
        for key in sorted(self._extras):
            out = self._extras[key](target, viewer)
            if out is None:
                continue
            lines.extend([out] if isinstance(out, str) else out)
        return lines


def render_entity(ws: WorldService, entity_id: UUID) -> str:
    desc = ws.world.try_component(entity_id, Describable)
    if desc is None:
        return "You see nothing special."
    text = desc.description.strip() or f"You see nothing special about {desc.name}."
    return f"|c{capitalize(desc.name)}|n\n{text}"


def find_detail(ws: WorldService, room_key: str, keyword: str) -> str | None:
    """A room's scenery description matching ``keyword`` (every word a keyword prefix)."""
    room = ws.room(room_key)
    if room is None:
        return None
    words = keyword.lower().split()
    if not words:
        return None
    for keys, text in room.details.items():
        options = keys.split()
        if all(any(o.startswith(w) for o in options) for w in words):
            return text
    return None
