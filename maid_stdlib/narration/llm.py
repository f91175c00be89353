"""Narration asks the engine's one LLM provider (``engine.llm``); re-exported here
for the narration package's public API."""

from maid_engine.llm.service import LLMService

__all__ = ["LLMService"]
