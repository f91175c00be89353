"""Classic RPG rules: characters, levels, combat, items, and the QuestManager."""
