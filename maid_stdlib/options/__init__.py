"""Per-character settings (``config``): colour, prompt, page length, brief rooms,
the exits line. See :mod:`.plugin`."""

from maid_stdlib.options.components import PlayerOptions
from maid_stdlib.options.prompt import PromptFormatter, PromptTokens

__all__ = ["PlayerOptions", "PromptFormatter", "PromptTokens"]
