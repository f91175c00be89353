"""MAID engine: ECS, tick loop, events, packs, storage, network. No game rules."""
