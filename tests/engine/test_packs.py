import pytest

from maid_engine.clock import ManualClock
from maid_engine.config import Settings
from maid_engine.content import ContentPack, PackContext, PackError, collect_packs, order_packs
from maid_engine.ecs import System
from maid_engine.engine import GameEngine


def pack(name: str, requires: tuple[str, ...] = (), log: list[str] | None = None) -> ContentPack:
    def register(self: ContentPack, ctx: PackContext) -> None:
        if log is not None:
            log.append(name)

    cls = type(
        f"P_{name}", (ContentPack,), {"name": name, "requires": requires, "register": register}
    )
    pack: ContentPack = cls()
    return pack


def test_dependency_order_is_topological_and_stable() -> None:
    packs = [
        pack("addon", ("world",)),
        pack("world", ("rpg", "stdlib")),
        pack("rpg", ("stdlib",)),
        pack("stdlib"),
        pack("extra"),
    ]
    names = [p.name for p in order_packs(packs)]
    assert names.index("stdlib") < names.index("rpg") < names.index("world")
    assert names.index("world") < names.index("addon")
    assert set(names) == {"addon", "world", "rpg", "stdlib", "extra"}


def test_missing_dependency_names_the_pack() -> None:
    with pytest.raises(PackError, match=r"content pack 'addon'.*requires 'world'"):
        order_packs([pack("addon", ("world",))])


def test_cycle_is_reported() -> None:
    with pytest.raises(PackError, match=r"dependency cycle: (a -> b -> a|b -> a -> b)"):
        order_packs([pack("a", ("b",)), pack("b", ("a",))])


def test_unknown_required_pack_via_collect_names_requester() -> None:
    with pytest.raises(PackError, match=r"content pack 'heist'.*requires 'nowhere'"):
        collect_packs([pack("heist", ("nowhere",))], available={})


def test_collect_resolves_module_paths_and_entry_points() -> None:
    packs = collect_packs(["maid_stdlib.pack:StdlibContentPack"], available={})
    # The group comes after its feature plugins (tests/engine/test_plugins.py).
    assert [p.name for p in packs][-1] == "stdlib"
    with pytest.raises(PackError, match="not found"):
        collect_packs(["no-such-pack"], available={})
    with pytest.raises(PackError, match="cannot import"):
        collect_packs(["no_such_module:Pack"], available={})


class Broken(ContentPack):
    name = "broken"

    def register(self, ctx: PackContext) -> None:
        raise RuntimeError("data file is bad")


async def test_broken_pack_stops_startup_naming_the_pack() -> None:
    engine = GameEngine(Settings(), clock=ManualClock(), packs=[Broken], use_store=False)
    with pytest.raises(PackError, match=r"content pack 'broken'.*data file is bad"):
        await engine.start()
    await engine.stop()


class Sys(System):
    phase = "living"


async def test_packs_register_in_dependency_order() -> None:
    log: list[str] = []
    engine = GameEngine(
        Settings(),
        clock=ManualClock(),
        use_store=False,
        packs=[pack("top", ("mid",), log), pack("mid", ("base",), log), pack("base", (), log)],
    )
    async with engine.lifespan():
        assert log == ["base", "mid", "top"]
