"""Reusable, game-agnostic systems registered by StdlibContentPack."""
