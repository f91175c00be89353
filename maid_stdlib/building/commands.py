"""The building commands (role builder): the world changed from inside the game and
written back to the pack's files (see :mod:`maid_stdlib.building.editor`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from maid_engine.commands import Command, CommandContext, CommandError, Role, command
from maid_stdlib.building.editor import EditError, EditResult, PackEditor
from maid_stdlib.building.lineeditor import start_editor
from maid_stdlib.building.sources import (
    PackSources,
    dump_text,
    find_entry,
    folded,
    line_of,
    load_text,
    section,
)
from maid_stdlib.building.targets import (
    Target,
    data_of,
    keywords_of,
    local_ref,
    new_key,
    resolve,
    room_here,
)
from maid_stdlib.living.service import LivingWorld
from maid_stdlib.world.admin import resolve_room
from maid_stdlib.world.look import render_room
from maid_stdlib.world.movement import world_of
from maid_stdlib.world.schema import Entry
from maid_stdlib.world.text import OPPOSITE, normalize_exit

#: Fields whose value is text, never read as YAML ("Gate: shut" stays a string).
TEXT_FIELDS = frozenset({"name", "short", "description"})
NEW_ROOM_TEXT = "An empty place, not yet described."


def _editor(ctx: CommandContext) -> PackEditor:
    editor: PackEditor = ctx.service(PackEditor)
    return editor


def _sources(ctx: CommandContext) -> PackSources:
    return PackSources(data_of(ctx))


def _report(ctx: CommandContext, result: EditResult, done: str) -> bool:
    if not result.ok:
        ctx.send(result.refusal())
        return False
    ctx.send(done)
    return True


def _edit_entry(ctx: CommandContext, entry: Entry, change: Any) -> EditResult:
    """Run ``change(node, doc)`` on the entry's mapping in its file."""
    path = _sources(ctx).path_of(entry)

    def mutate(doc: Any) -> None:
        node = find_entry(doc, entry.kind, entry.key)
        if node is None:
            raise EditError(f"{entry.kind} {entry.key!r} is no longer in {entry.file}")
        change(node, doc)

    return _editor(ctx).edit(entry.pack, {path: mutate})


def _exit_named(exits: Any, name: str) -> str | None:
    """The key under which ``exits`` (a data mapping) holds exit ``name`` ("n" or "north")."""
    if not isinstance(exits, dict):
        return None
    for key in exits:
        if isinstance(key, str) and normalize_exit(key) == name:
            return key
    return None


def _split_dir(ctx: CommandContext, usage: str) -> tuple[str, str]:
    head, _, rest = ctx.args.strip().partition(" ")
    if not head or not rest.strip():
        raise CommandError(usage)
    return normalize_exit(head), rest.strip()


def _dig(ctx: CommandContext, usage: str) -> str | None:
    direction, name = _split_dir(ctx, usage)
    ws, room, entry = room_here(ctx)
    if direction in ws.exits_of(room):
        raise CommandError(f"There is already an exit {direction} here.")
    data = data_of(ctx)
    key = new_key(name, set(data.load(entry.pack).entries["room"]))
    back = OPPOSITE.get(direction)

    def change(node: CommentedMap, doc: Any) -> None:
        exits = node.get("exits")
        if not isinstance(exits, CommentedMap):
            exits = node["exits"] = CommentedMap()
        exits[direction] = key
        made = CommentedMap(key=key, name=name, description=NEW_ROOM_TEXT)
        if back is not None:
            made["exits"] = CommentedMap({back: entry.key})
        section(doc, "room").append(made)

    result = _edit_entry(ctx, entry, change)
    way = f" and back {back}" if back else " (no way back: add one with @open)"
    if not _report(ctx, result, f"Dug {direction} to {name} ({entry.pack}:{key}){way}."):
        return None
    return f"{entry.pack}:{key}"


@command("@dig", permission=Role.BUILDER, category="building")
def dig(ctx: CommandContext) -> None:
    """Make a new room beyond an exit of this one (written to this room's file).

    Usage: @dig <direction> <room name>
    Example: @dig north The Stable Yard

    The new room gets an exit back (south for north, down for up ...); describe it
    with @desc once you are there. You stay where you are (@tunnel takes you along).
    """
    _dig(ctx, "Usage: @dig <direction> <room name>")


@command("@tunnel", permission=Role.BUILDER, category="building")
def tunnel(ctx: CommandContext) -> None:
    """Dig a new room beyond an exit of this one and walk into it.

    Usage: @tunnel <direction> <room name>
    Example: @tunnel up The Hayloft
    """
    made = _dig(ctx, "Usage: @tunnel <direction> <room name>")
    if made is not None:
        ws = world_of(ctx)
        actor = ctx.require_actor()
        ws.move(actor, made, reason="goto")
        ctx.send(render_room(ws, made, actor))


def _open(ctx: CommandContext, replace: bool) -> None:
    usage = f"Usage: {'@link' if replace else '@open'} <exit> <room key or name>"
    direction, target_text = _split_dir(ctx, usage)
    ws, room, entry = room_here(ctx)
    target = resolve_room(ws, target_text)
    if target == room:
        raise CommandError("An exit cannot lead back into the same room.")
    existing = ws.exits_of(room).get(direction)
    if existing is not None and not replace:
        raise CommandError(
            f"There is already an exit {direction} (to {existing}); use @link to change it."
        )

    def change(node: CommentedMap, doc: Any) -> None:
        exits = node.get("exits")
        if not isinstance(exits, CommentedMap):
            exits = node["exits"] = CommentedMap()
        old = _exit_named(exits, direction)
        exits[old or direction] = local_ref(entry.pack, target)

    result = _edit_entry(ctx, entry, change)
    _report(ctx, result, f"Exit {direction} now leads to {target}.")


@command("@open", permission=Role.BUILDER, category="building")
def open_exit(ctx: CommandContext) -> None:
    """Open a one-way exit from this room to an existing room.

    Usage: @open <exit> <room key or name>
    Examples: @open east ironvale:smithy, @open gate the old gate

    The exit name may be a direction or a word ("go gate"). Open the way back from
    the other room. @link changes where an existing exit leads.
    """
    _open(ctx, replace=False)


@command("@link", permission=Role.BUILDER, category="building")
def link_exit(ctx: CommandContext) -> None:
    """Point an exit of this room at another room (adding it if missing).

    Usage: @link <exit> <room key or name>
    Example: @link north watch_street
    """
    _open(ctx, replace=True)


def _new_thing(ctx: CommandContext, kind: str, name: str) -> None:
    _, _, entry = room_here(ctx)
    if not name:
        raise CommandError(f"Usage: @{'npc create' if kind == 'npc' else 'create'} <name>")
    data = data_of(ctx)
    key = new_key(name, set(data.load(entry.pack).entries[kind]))
    path = _sources(ctx).path_of(entry)

    def mutate(doc: Any) -> None:
        made = CommentedMap(key=key, name=name, keywords=CommentedSeq(keywords_of(name)))
        made.fa.set_flow_style()
        made["keywords"].fa.set_flow_style()
        made["room"] = entry.key
        section(doc, kind).append(made)

    result = _editor(ctx).edit(entry.pack, {path: _block(mutate)})
    what = "NPC" if kind == "npc" else "item"
    _report(ctx, result, f"Created the {what} {name} ({entry.pack}:{key}) here, in {entry.file}.")


def _block(mutate: Any) -> Any:
    """Write the new entry in block style (one key a line), its keywords in flow."""

    def run(doc: Any) -> None:
        mutate(doc)
        for kind in ("npc", "item"):
            items = doc.get("npcs" if kind == "npc" else "items")
            if isinstance(items, CommentedSeq) and items:
                last = items[-1]
                if isinstance(last, CommentedMap):
                    last.fa.set_block_style()

    return run


@command("@create", permission=Role.BUILDER, category="building")
def create(ctx: CommandContext) -> None:
    """Make a new item in this room (written to this room's file).

    Usage: @create <name>
    Example: @create a brass lamp

    Its key comes from the name (brass_lamp), its keywords from the name's words.
    Describe it with @desc; make it something players can carry with the rules'
    section, e.g. @set lamp stats {tier: 1, value: 2}.
    """
    _new_thing(ctx, "item", ctx.args.strip())


def _set_value(node: CommentedMap, path: list[str], value: Any) -> None:
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, CommentedMap):
            child = node[part] = CommentedMap()
        node = child
    if value is None:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value


def parse_value(field: str, text: str) -> Any:
    """A text field keeps the words as typed; anything else is read as YAML
    ("3", "[safe, outdoors]", "{level: 2, hp: 20}"); "null" removes the field."""
    if text.strip().lower() in ("null", "~"):
        return None
    if field in TEXT_FIELDS:
        return folded(text) if field == "description" else " ".join(text.split())
    try:
        return load_text(text)
    except Exception as exc:
        raise CommandError(f"Cannot read '{text}' as a value: {exc}") from exc


@command("@set", permission=Role.BUILDER, category="building")
def set_field(ctx: CommandContext) -> None:
    """Set a field of a room, NPC or item in its pack's file.

    Usage: @set <thing> <field> <value>
    Examples: @set here name The Old Mill
              @set here flags [outdoors, safe]
              @set lamp short A brass lamp hangs from a hook.
              @set aldo stats.level 3
              @set aldo keywords [aldo, steward, clerk]
              @set lamp count null        (removes the field)

    <thing> is 'here', a keyword of something in the room, or a pack:key. A dotted
    field reaches into a section (stats.level). The value is read as YAML except
    for name, short and description, which take the words as typed. The key
    cannot change (other files refer to it).
    """
    parts = ctx.args.split(None, 2)
    if len(parts) < 3:
        raise CommandError("Usage: @set <thing> <field> <value>")
    target = resolve(ctx, parts[0])
    path = parts[1].split(".")
    if path[0] == "key":
        raise CommandError("A key cannot change online (other entries refer to it).")
    value = parse_value(path[-1], parts[2])
    entry = target.entry
    result = _edit_entry(ctx, entry, lambda node, doc: _set_value(node, path, value))
    shown = "removed" if value is None else f"set to {parts[2].strip()}"
    _report(ctx, result, f"{entry.full_key}: {parts[1]} {shown}.")


def save_description(ctx: CommandContext, entry: Entry, text: str) -> bool:
    value = parse_value("description", text) if text.strip() else None
    result = _edit_entry(ctx, entry, lambda node, doc: _set_value(node, ["description"], value))
    return _report(ctx, result, f"Description of {entry.full_key} saved.")


@command("@desc", permission=Role.BUILDER, category="building")
def describe_thing(ctx: CommandContext) -> None:
    """Write the description of this room, an NPC or an item.

    Usage: @desc <thing> <text>     (one line)
           @desc <thing>            (the line editor, for longer text)

    In the line editor each line you type is added; the lines are joined into one
    paragraph when saved. Commands, each on a line of its own:
      .        save and stop      .q      stop without saving
      .l       list the lines     .d N    delete line N
      .c       clear every line   .h      this help
    """
    head, _, text = ctx.args.strip().partition(" ")
    if not head:
        raise CommandError("Usage: @desc <thing> [text]")
    target = resolve(ctx, head)
    if text.strip():
        save_description(ctx, target.entry, text)
        return
    if ctx.session is None:
        raise CommandError("The line editor needs a connection; give the text on the line.")
    spec = target.entry.spec
    current = str(getattr(spec, "description", "") or "")
    if current == NEW_ROOM_TEXT:
        current = ""  # a new room's placeholder is not text to keep
    entry = target.entry
    start_editor(
        ctx.session,
        f"the description of {entry.full_key}",
        current,
        lambda line_ctx, text: save_description(line_ctx, entry, text),
    )


def _living_path(ctx: CommandContext, pack: str) -> Path:
    living: LivingWorld = ctx.service(LivingWorld)
    for data in living.applied_data:
        if data.pack == pack and data.path is not None:
            return data.path
    raise CommandError(
        f"The pack {pack} has no living file (load_living_data in its pack.py) to write to."
    )


def _npc_target(ctx: CommandContext, words: str) -> Target:
    target = resolve(ctx, words)
    if target.entry.kind != "npc":
        raise CommandError(f"{target.entry.full_key} is not an NPC.")
    return target


def _edit_living(ctx: CommandContext, entry: Entry, change: Any, done: str) -> None:
    path = _living_path(ctx, entry.pack)

    def mutate(doc: Any) -> None:
        npcs = doc.get("npcs")
        if not isinstance(npcs, CommentedMap):
            npcs = doc["npcs"] = CommentedMap()
        node = npcs.get(entry.key)
        if not isinstance(node, CommentedMap):
            node = npcs[entry.key] = CommentedMap()
        change(node)
        if not node:
            del npcs[entry.key]

    _report(ctx, _editor(ctx).edit(entry.pack, {path: mutate}), done)


def _schedule(node: CommentedMap, hour: int, room: str, activity: str) -> None:
    entries = node.get("schedule")
    if not isinstance(entries, CommentedSeq):
        entries = node["schedule"] = CommentedSeq()
    made = CommentedMap(hour=hour, room=room)
    if activity:
        made["activity"] = activity
    made.fa.set_flow_style()
    for i, old in enumerate(entries):
        if isinstance(old, dict) and old.get("hour") == hour:
            entries[i] = made
            break
    else:
        entries.append(made)
        ordered = sorted(entries, key=lambda e: e.get("hour", 0) if isinstance(e, dict) else 0)
        entries[:] = ordered


@command("@npc", permission=Role.BUILDER, category="building")
def npc(ctx: CommandContext) -> None:
    """Make an NPC, or change how it lives (written to its pack's living file).

    Usage: @npc create <name>
           @npc <npc>                                (its living data)
           @npc <npc> need <need> <value> [decay] [threshold]
           @npc <npc> schedule <hour> <room> [activity]
           @npc <npc> faction <faction> [role]
           @npc <npc> <field> <value>                (any living field, as YAML)
    Examples: @npc create Mira the ostler
              @npc mira need social 0.6 0.002 0.3
              @npc mira schedule 7 stable_yard working
              @npc mira faction village member
              @npc mira goals [{id: mend, type: ACQUIRE, target: tools, need: economic}]

    Names, descriptions and stats are set with @set and @desc (the area file).
    """
    args = ctx.args.strip()
    head, _, rest = args.partition(" ")
    if not head:
        raise CommandError("Usage: @npc create <name> | @npc <npc> [what] [values]")
    if head.lower() == "create":
        _new_thing(ctx, "npc", rest.strip())
        return
    entry = _npc_target(ctx, head).entry
    words = rest.split()
    if not words:
        path = _living_path(ctx, entry.pack)
        doc = load_text(path.read_text(encoding="utf-8")) or {}
        node = (doc.get("npcs") or {}).get(entry.key)
        if not node:
            ctx.send(f"{entry.full_key} has no living data yet (see help @npc).")
            return
        ctx.send(f"{entry.full_key} in {path.name}:\n{dump_text(node).rstrip()}")
        return
    what = words[0].lower()
    if what == "need":
        if len(words) < 3:
            raise CommandError("Usage: @npc <npc> need <need> <value> [decay] [threshold]")
        try:
            numbers = [float(w) for w in words[2:5]]
        except ValueError:
            raise CommandError("The value, decay and threshold are numbers.") from None
        name = words[1].lower()

        def set_need(node: CommentedMap) -> None:
            needs = node.get("needs")
            if not isinstance(needs, CommentedMap):
                needs = node["needs"] = CommentedMap()
            need = needs.get(name)
            if not isinstance(need, CommentedMap):
                need = needs[name] = CommentedMap()
            for field, number in zip(("value", "decay", "threshold"), numbers, strict=False):
                need[field] = number

        _edit_living(ctx, entry, set_need, f"{entry.full_key}: need {name} set.")
        return
    if what == "schedule":
        if len(words) < 3 or not words[1].isdigit():
            raise CommandError("Usage: @npc <npc> schedule <hour> <room> [activity]")
        hour = int(words[1])
        room = resolve_room(world_of(ctx), words[2])
        activity = " ".join(words[3:])
        _edit_living(
            ctx,
            entry,
            lambda node: _schedule(node, hour, local_ref(entry.pack, room), activity),
            f"{entry.full_key}: at {hour}:00 goes to {room}.",
        )
        return
    if what == "faction":
        if len(words) < 2:
            raise CommandError("Usage: @npc <npc> faction <faction> [role]")
        faction, role = words[1].lower(), (words[2] if len(words) > 2 else "member")

        def join(node: CommentedMap) -> None:
            factions = node.get("factions")
            if not isinstance(factions, CommentedMap):
                factions = node["factions"] = CommentedMap()
                factions.fa.set_flow_style()
            factions[faction] = role

        _edit_living(ctx, entry, join, f"{entry.full_key}: {role} of {faction}.")
        return
    if len(words) < 2:
        raise CommandError("Usage: @npc <npc> <field> <value>")
    field_path = words[0].split(".")
    value = parse_value(field_path[-1], rest.strip()[len(words[0]) :].strip())
    _edit_living(
        ctx,
        entry,
        lambda node: _set_value(node, field_path, value),
        f"{entry.full_key}: {words[0]} {'removed' if value is None else 'set'}.",
    )


@command("@destroy", permission=Role.BUILDER, category="building")
def destroy(ctx: CommandContext) -> None:
    """Remove an NPC, an item, an exit or this room from the world and its files.

    Usage: @destroy <npc or item>       (every instance of its entry)
           @destroy exit <exit>
           @destroy room                (this room; you are moved to the start room)

    Refused, with the reasons, when something still refers to it (an exit leading
    to the room, a quest naming the NPC): change those first.
    """
    args = ctx.args.strip()
    head, _, rest = args.partition(" ")
    if not head:
        raise CommandError("Usage: @destroy <thing> | @destroy exit <exit> | @destroy room")
    if head.lower() == "exit":
        ws, room, entry = room_here(ctx)
        name = normalize_exit(rest)
        if name not in ws.exits_of(room):
            raise CommandError(f"There is no exit '{rest}' here.")

        def drop_exit(node: CommentedMap, doc: Any) -> None:
            key = _exit_named(node.get("exits"), name)
            if key is None:
                raise EditError(f"the exit {name} is not in {entry.file} (added in play?)")
            del node["exits"][key]
            if not node["exits"]:
                del node["exits"]

        _report(ctx, _edit_entry(ctx, entry, drop_exit), f"Exit {name} removed.")
        return
    target = resolve(ctx, args) if head.lower() != "room" else resolve(ctx, "here")
    entry = target.entry

    def drop(node: CommentedMap, doc: Any) -> None:
        items = doc.get({"room": "rooms", "npc": "npcs", "item": "items"}[entry.kind])
        items.remove(node)
        if not items:
            del doc[{"room": "rooms", "npc": "npcs", "item": "items"}[entry.kind]]

    _report(ctx, _edit_entry(ctx, entry, drop), f"Destroyed {entry.kind} {entry.full_key}.")


@command("@examine", permission=Role.BUILDER, category="building")
def examine(ctx: CommandContext) -> None:
    """Show where a room, NPC or item is defined, and what it is made of.

    Usage: @examine [thing]       ('here' by default)
    """
    target = resolve(ctx, ctx.args.strip() or "here")
    entry = target.entry
    try:
        where = _sources(ctx).locate(entry)
        line = f"line {where.line}"
    except (OSError, LookupError):
        line = "line unknown"
    lines = [
        f"{entry.kind} {entry.full_key}",
        f"Defined in: pack {entry.pack}, file {entry.file}, {line}",
    ]
    if entry.kind == "npc":
        try:
            path = _living_path(ctx, entry.pack)
        except CommandError:
            path = None
        found = line_of(path, ["npcs", entry.key]) if path is not None else None
        if path is not None and found is not None:
            lines.append(f"Living data: {entry.pack}/{path.name}, line {found}")
    sections = sorted(entry.extensions)
    if sections:
        lines.append(f"Sections: {', '.join(sections)}")
    if target.entity is not None:
        names = sorted(type(c).__name__ for c in ctx.world.components_of(target.entity))
        lines.append(f"Entity {target.entity}: {', '.join(names)}")
        room = world_of(ctx).room_key_of(target.entity)
        if room is not None:
            lines.append(f"Now in: {room}")
    ctx.send("\n".join(lines))


COMMANDS: list[Command] = [
    dig,
    tunnel,
    open_exit,
    link_exit,
    create,
    set_field,
    describe_thing,
    npc,
    destroy,
    examine,
]
