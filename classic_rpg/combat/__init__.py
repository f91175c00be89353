"""Combat: NPC stats/combat/loot data, CombatService, CombatSystem, death, respawn."""
