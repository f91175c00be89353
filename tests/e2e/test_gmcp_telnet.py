"""GMCP for client UIs over a real socket, as Mudlet sees it: Core.Supports.Set
decides what comes; Char.Status, Char.Quests, Room.Info with who is there,
Room.Players (then Room.AddPlayer / Room.RemovePlayer) and World.State arrive when
they changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from e2e.fixtures import served
from narration.telnetkit import Client

from maid_engine.accounts.service import AccountService
from maid_engine.commands import Role


def names(people: list[dict[str, Any]]) -> set[str]:
    return {p["name"] for p in people}


async def login(client: Client, name: str) -> None:
    await client.wait_for("What is your name?")
    client.send_line(f"create {name} correct-horse-battery")
    await client.wait_for("Village Square")


async def test_a_gmcp_client_sees_quests_status_who_is_here_and_world_state(
    tmp_path: Path,
) -> None:
    async with served(tmp_path, commands_per_second=100, command_burst=100) as server:
        accounts = server.engine.services.get(AccountService)
        aldric = await Client.connect(server.telnet_port)
        bryn = await Client.connect(server.telnet_port)
        try:
            await aldric.declare("Char 1", "Room 1", "World 1")
            await login(aldric, "Aldric")
            info = await aldric.wait_gmcp("Room.Info")
            assert info["id"] == "ironvale:square"
            assert names(info["players"]) == {"Aldric"}
            status = await aldric.wait_gmcp("Char.Status")
            assert {"level", "xp", "xp_next_level", "gold"} <= set(status)
            await aldric.wait_gmcp_where(
                "Char.Quests", lambda d: d == {"active": [], "offers": [], "completed": 0}
            )

            # Bryn's client takes only Char: no Room.*, no World.*.
            await bryn.declare("Char 1")
            await login(bryn, "Bryn")
            # Who comes in afterwards is one Room.AddPlayer, not the room's list again.
            added = await aldric.wait_gmcp("Room.AddPlayer")
            assert added == {"name": "Bryn", "fullname": "Bryn"}
            await bryn.wait_gmcp("Char.Quests")
            assert bryn.received("Room.Info") == []

            await accounts.set_role("Aldric", Role.BUILDER)
            aldric.send_line("@goto Captain Voss")
            post = await aldric.wait_gmcp_where(
                "Room.Info", lambda d: d["id"] == "ironvale:guard_post"
            )
            assert "Captain Voss" in names(post["npcs"])
            await aldric.wait_gmcp_where("Room.Players", lambda d: names(d) == {"Aldric"})
            aldric.send_line("talk voss")
            offered = await aldric.wait_gmcp_where("Char.Quests", lambda d: bool(d["offers"]))
            [offer] = offered["offers"]
            assert (offer["id"], offer["title"]) == ("road-scouts", "Scouts on the Road")
            assert offer["giver"] == "Captain Voss"
            aldric.send_line("accept road")
            taken = await aldric.wait_gmcp_where("Char.Quests", lambda d: bool(d["active"]))
            [quest] = taken["active"]
            assert quest["state"] == "in_progress"
            kill = quest["objectives"][0]
            assert kill["text"] == "Kill a bandit scout at the broken wagon on the Old Trade Road."
            assert (kill["state"], kill["count"], kill["target"]) == ("open", 0, 1)
            assert quest["objectives"][-1]["state"] == "locked"

            aldric.send_line("@goto ironvale:camp_cellar")
            state = await aldric.wait_gmcp_where(
                "World.State", lambda d: d.get("room") == "ironvale:camp_cellar"
            )
            hp = next(s for s in state["you"] if s["name"] == "hp")
            assert {"value", "min", "max", "band"} <= set(hp)
            [gwen] = state["npcs"]
            assert gwen["name"] == "Gwen"
            assert {g["id"]: g["done"] for g in state["goals"]}["rescue_gwen"] is False
            cellar = await aldric.wait_gmcp_where(
                "Room.Info", lambda d: d["id"] == "ironvale:camp_cellar"
            )
            assert "Gwen" in names(cellar["npcs"])
            aldric.send_line("up")
            await aldric.wait_gmcp_where("World.State", lambda d: d == {})
        finally:
            await aldric.close()
            await bryn.close()
