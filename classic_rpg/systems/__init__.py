"""Game systems of the classic RPG layer (the QuestManager lives in ``quests``)."""
