"""Shared test kits: one copy of each helper, used by every test package.

- :mod:`kits.hamlet`: Hamlet, the small neutral test world (a pack), and
  :mod:`kits.hamlet.rules`, its RPG sections when classic_rpg is loaded.
- :mod:`kits.engines`: engines on Hamlet (``HAMLET``, or ``HAMLET_RPG`` under the
  RPG rules), NPC lookups, service accessors, metrics, colour-free text.
- :mod:`kits.heroes`: player characters, making them strong, placing and walking
  them with real commands, fighting to the death, recording events.
- :mod:`kits.quests`: generated quests built, delivered and accepted without an
  LLM; what their consequences did; story signals recorded.
- :mod:`kits.narrators`: narrative providers that need no LLM.
- :mod:`kits.schemas`: checks shared by the narrated-schema tests.
- :mod:`kits.heist`: the heist pack (with the world it requires) and the admin
  pack, the whole quest loop.

The shipped game's own kit (its engine, its NPCs, its worked example played
through) is ironkit.py in its test folder (see tests/test_layout.py). Scenario
kits (a test package's own small world and its story) stay next to their tests
and build on these.
"""
