"""Shared test kits: one copy of each helper, used by every test package.

- :mod:`kits.hamlet`: Hamlet, the small neutral test world (a pack).
- :mod:`kits.engines`: engines on Hamlet (with or without the RPG layer), NPC
  lookups, service accessors, metrics, colour-free text.
- :mod:`kits.heroes`: player characters, making them strong, placing and walking
  them with real commands, fighting to the death, recording events.
- :mod:`kits.quests`: generated quests built, delivered and accepted without an
  LLM; what their consequences did; story signals recorded.
- :mod:`kits.narrators`: narrative providers that need no LLM.
- :mod:`kits.schemas`: checks shared by the narrated-schema tests.
- :mod:`kits.heist`: the heist pack on Ironvale (which it extends) with the admin
  pack, the whole quest loop.

Ironvale's own kit (its engine, its NPCs, the Iron Crisis played through) is
tests/ironvale/ironkit.py. Scenario kits (a test package's own small world and its
story) stay next to their tests and build on these.
"""
