"""Player characters and NPC people: progression, vitals, score, dialogue."""
