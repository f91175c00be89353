"""Shared test kits: one copy of each helper, used by every test package.

- :mod:`kits.engines`: engines on real packs (Ironvale; the heist loop lives in
  :mod:`kits.heist`), NPC lookups, service accessors, metrics, colour-free text.
- :mod:`kits.heroes`: player characters, making them strong, placing and walking
  them with real commands, fighting to the death, recording events.
- :mod:`kits.narrators`: narrative providers that need no LLM.
- :mod:`kits.heist`: Ironvale + the heist and admin packs, the whole quest loop.

Scenario kits (a test package's own small world and its story) stay next to their
tests and build on these.
"""
