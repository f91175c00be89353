"""The rules layer of classic_rpg: characters, NPC stats, items, combat, dialogue.

``RulesPlugin`` (``classic_rpg.rules``, in the ``classic_rpg`` group) wires it in:

* data extensions: npc ``stats:``, ``combat:``, ``loot:``, ``dialogue:``; item ``stats:``
* services: Progression, ItemFactory, Gifts (what NPCs take when given it),
  CombatService, TalkService
* systems: RegenSystem, CombatSystem, RespawnSystem (phase combat)
* a WorldCharacterFactory creation hook giving new characters their components,
  a ``score`` section, the ``<hp mp>`` prompt and GMCP Char.Vitals/Char.Status
* commands: get/take, drop, give, inventory, equipment, wear/wield, remove,
  examine, drink, kill/attack, flee, wimpy, consider, talk, ask, rest, sleep,
  wake, stand (and a command guard: what a sleeper or rester may not do); staff:
  @advance

See docs/rpg.md.
"""

from __future__ import annotations

from classic_rpg.characters import admin, dialogue, posture
from classic_rpg.characters.dialogue import TalkService, register_dialogue_data
from classic_rpg.characters.levels import Progression, StatusRelay
from classic_rpg.characters.setup import CharacterSetup, LevelOf, rpg_score
from classic_rpg.characters.tokens import RpgTokens
from classic_rpg.characters.vitals import RegenSystem, VitalsRelay, make_prompt
from classic_rpg.combat import commands as combat_commands
from classic_rpg.combat.data import register_npc_data
from classic_rpg.combat.death import RespawnSystem, handle_death
from classic_rpg.combat.service import CombatService
from classic_rpg.combat.system import CombatSystem
from classic_rpg.events import ProgressChangedEvent, VitalsChangedEvent
from classic_rpg.items import commands as item_commands
from classic_rpg.items import gear
from classic_rpg.items.bounty import BountyOnLook, PaysBounty, register_bounty_data
from classic_rpg.items.data import register_item_data
from classic_rpg.items.factory import ItemFactory
from classic_rpg.items.gifts import Gifts
from classic_rpg.items.ownership import BackInItsPlace, ReturnToOwner, register_owner_data
from maid_engine.content import ContentPack, PackContext
from maid_engine.events import CharacterConnectedEvent, CharacterDisconnectedEvent
from maid_stdlib.options import PromptTokens
from maid_stdlib.world.characters import WorldCharacterFactory
from maid_stdlib.world.events import EntityRelocatedEvent
from maid_stdlib.world.info import ScoreSheet
from maid_stdlib.world.loader import WorldData
from maid_stdlib.world.look import LookExtras
from maid_stdlib.world.plugin import WorldPlugin
from maid_stdlib.world.who import WhoList

__all__ = ["SCORE_ORDER", "RulesPlugin"]

#: Order of the RPG section in ``score`` (the world layer's identity section is 0).
SCORE_ORDER = 10


class RulesPlugin(ContentPack):
    name = "classic_rpg.rules"
    requires = (WorldPlugin,)
    provides = (Progression, ItemFactory, Gifts, CombatService, TalkService)
    description = "Characters, NPC stats, items, combat and dialogue."

    def register(self, ctx: PackContext) -> None:
        engine = ctx.engine
        owner = ctx.pack.name

        data = ctx.service(WorldData)
        register_npc_data(data, owner)
        register_dialogue_data(data, owner)
        register_item_data(data, owner)
        register_owner_data(data, owner)
        register_bounty_data(data, owner)

        combat = CombatService(engine, on_death=lambda event: handle_death(engine, event))
        combat.round_seconds = engine.settings.combat_round_seconds
        ctx.provide(Progression, Progression(engine))
        ctx.provide(ItemFactory, ItemFactory(engine))
        gifts = Gifts()
        back = ReturnToOwner(engine)
        gifts.add_taker(back)
        gifts.add_taken_hook(BackInItsPlace(engine, back))
        bounty = PaysBounty(engine)
        gifts.add_taker(bounty.taker)
        gifts.add_taken_hook(bounty.taken)
        ctx.provide(Gifts, gifts)
        ctx.provide(CombatService, combat)
        ctx.provide(TalkService, TalkService())

        ctx.add_system(RegenSystem())
        ctx.add_system(CombatSystem())
        ctx.add_system(RespawnSystem())

        setup = CharacterSetup(engine)
        ctx.service(WorldCharacterFactory).creation_hooks.append(setup.on_created)
        # Registered after the world layer's own handlers (stdlib registers first), so
        # the room description reaches a player before "X attacks you!".
        ctx.subscribe(CharacterConnectedEvent, setup.on_connected)
        ctx.subscribe(CharacterConnectedEvent, combat.on_connected)
        ctx.subscribe(CharacterDisconnectedEvent, combat.on_disconnected)
        ctx.subscribe(EntityRelocatedEvent, combat.on_relocated)
        ctx.subscribe(VitalsChangedEvent, VitalsRelay(engine).on_vitals_changed)
        ctx.subscribe(ProgressChangedEvent, StatusRelay(engine).on_progress_changed)

        ctx.service(ScoreSheet).add("rpg", rpg_score, order=SCORE_ORDER)
        whos = ctx.service(WhoList)
        whos.level_of = LevelOf(engine)
        # A level gained shows in the next `who` (the kept rows are read again
        # only a share a tick otherwise).
        ctx.subscribe(ProgressChangedEvent, lambda event: whos.refresh(event.character_id))
        ctx.service(LookExtras).add("equipment", gear.WornOnLook(engine))
        ctx.service(LookExtras).add("bounty", BountyOnLook(engine))
        ctx.service(LookExtras).add_finder("carried", gear.CarriedOnLook(engine))
        RpgTokens(engine).add_to(ctx.service(PromptTokens))
        if engine.sessions.prompt_provider is None:
            engine.sessions.prompt_provider = make_prompt(engine)

        for group in (
            item_commands.COMMANDS,
            gear.COMMANDS,
            combat_commands.COMMANDS,
            dialogue.COMMANDS,
            posture.COMMANDS,
            admin.COMMANDS,
        ):
            ctx.add_commands(group)
        ctx.add_command_guard(posture.posture_guard)
        ctx.add_command_guard(combat_commands.fighting_guard)
