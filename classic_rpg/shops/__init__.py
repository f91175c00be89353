"""Shops: keepers who sell from data-declared stock and buy what they trade in,
at prices that follow the living world's supply (see docs/rpg.md, "Shops")."""
