"""The Groups service: following, group membership, who of a group is present,
and the followers' walk after their leader."""

from __future__ import annotations

from typing import Protocol
from uuid import UUID

from classic_rpg.characters.posture import Stance, stance_of
from classic_rpg.combat.components import Fighting
from classic_rpg.groups.components import Following, GroupMember
from maid_engine.events import CharacterDisconnectedEvent
from maid_engine.ports import ServicesPort, SessionsPort, WorldPort
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.look import name_of, render_room
from maid_stdlib.world.service import WorldService
from maid_stdlib.world.text import arrival_phrase, capitalize, departure_phrase


class GroupsHost(WorldPort, SessionsPort, ServicesPort, Protocol):
    """What groups use: the members' components, lines to them, the world index."""


class Groups:
    """Service: ``follow``/``group`` state and what others ask of it (who shares a
    kill's experience, who shares quest credit)."""

    def __init__(self, engine: GroupsHost) -> None:
        self.engine = engine

    @property
    def ws(self) -> WorldService:
        return self.engine.services.get(WorldService)

    def name(self, uid: UUID) -> str:
        return capitalize(name_of(self.ws, uid))

    def tell(self, uid: UUID, text: str) -> None:
        self.engine.sessions.send_to(uid, text)

    # -- following ----------------------------------------------------------------------
    def leader_followed(self, uid: UUID) -> UUID | None:
        following = self.engine.world.try_component(uid, Following)
        return following.leader if following is not None else None

    def followers_of(self, leader: UUID) -> list[UUID]:
        return sorted(
            (uid for uid, (f,) in self.engine.world.query(Following) if f.leader == leader),
            key=self.name,
        )

    def follow(self, follower: UUID, leader: UUID) -> None:
        """``follower`` follows ``leader`` (leaving the group of whoever they followed)."""
        self.unfollow(follower)
        self.engine.world.add_component(follower, Following(leader))

    def unfollow(self, follower: UUID) -> UUID | None:
        """Stop following; returns who was followed. Leaves the group too (a member
        is someone who follows the leader)."""
        world = self.engine.world
        leader = self.leader_followed(follower)
        if leader is None:
            return None
        world.remove_component(follower, Following)
        if world.has_component(follower, GroupMember):
            self.leave(follower)
        return leader

    # -- the group ------------------------------------------------------------------------
    def leader_of(self, uid: UUID) -> UUID | None:
        """The leader of ``uid``'s group (themselves if they lead one), or None."""
        member = self.engine.world.try_component(uid, GroupMember)
        if member is not None:
            return member.leader
        return uid if self.members_of(uid) else None

    def members_of(self, leader: UUID) -> list[UUID]:
        """The members ``leader`` added, not counting the leader."""
        return sorted(
            (u for u, (m,) in self.engine.world.query(GroupMember) if m.leader == leader),
            key=self.name,
        )

    def group_of(self, uid: UUID) -> list[UUID]:
        """Everyone in ``uid``'s group, leader first; empty when not in one."""
        leader = self.leader_of(uid)
        if leader is None:
            return []
        return [leader, *self.members_of(leader)]

    def add(self, leader: UUID, member: UUID) -> None:
        self.engine.world.add_component(member, GroupMember(leader))

    def leave(self, uid: UUID, told: tuple[UUID, ...] = ()) -> None:
        """``uid`` leaves their group; a leader leaving disbands it. The others are
        told, except ``told`` (who said it themselves)."""
        world = self.engine.world
        leader = self.leader_of(uid)
        if leader is None:
            return
        if leader == uid:
            for member in self.members_of(uid):
                world.remove_component(member, GroupMember)
                self.tell(member, f"{self.name(uid)} has disbanded the group.")
            return
        rest = [m for m in self.group_of(leader) if m != uid and m not in told]
        world.remove_component(uid, GroupMember)
        for other in rest:
            self.tell(other, f"{self.name(uid)} has left the group.")

    def present_with(self, uid: UUID) -> list[UUID]:
        """``uid`` and the members of their group in the same room (online ones):
        who shares a kill's experience and, where a quest says so, its credit."""
        group = self.group_of(uid)
        if not group:
            return [uid]
        ws, sessions = self.ws, self.engine.sessions
        room = ws.room_key_of(uid)
        return [uid] + [
            m
            for m in group
            if m != uid and sessions.is_online(m) and room is not None and ws.room_key_of(m) == room
        ]

    # -- events ---------------------------------------------------------------------------
    def on_relocated(self, event: EntityRelocatedEvent) -> None:
        """A leader walked out: followers still in the room they left walk after them,
        through the same exit (if they are standing and not fighting)."""
        if event.reason != "walk" or event.from_room is None or event.to_room is None:
            return
        followers = self.followers_of(event.entity_id)
        if not followers:
            return
        ws = self.ws
        exits = ws.exits_of(event.from_room)
        way = next((e for e, room in exits.items() if room == event.to_room), None)
        if way is None:
            return
        world, sessions = self.engine.world, self.engine.sessions
        leader = self.name(event.entity_id)
        for follower in followers:
            if (
                ws.room_key_of(follower) != event.from_room
                or not sessions.is_online(follower)
                or world.has_component(follower, Fighting)
                or stance_of(self.engine, follower) is not Stance.STANDING
            ):
                continue
            name = self.name(follower)
            self.tell(follower, f"You follow {leader} {departure_phrase(way)}.")
            ws.message_room(
                event.from_room, f"{name} leaves {departure_phrase(way)}.", exclude=(follower,)
            )
            ws.move(follower, event.to_room, reason="walk")
            arrival = arrival_phrase(way)
            ws.message_room(
                event.to_room,
                f"{name} arrives{' ' + arrival if arrival else ''}.",
                exclude=(follower,),
            )
            self.tell(follower, render_room(ws, event.to_room, follower))

    def on_disconnected(self, event: CharacterDisconnectedEvent) -> None:
        """Whoever leaves the game leaves their group and stops following; those
        following them are told and stop."""
        uid = event.character_id
        if not self.engine.world.entity_exists(uid):
            return
        self.leave(uid)
        self.unfollow(uid)
        for follower in self.followers_of(uid):
            self.unfollow(follower)
            self.tell(follower, f"You stop following {self.name(uid)}.")
