"""``maid new-pack NAME``: a new content pack to start from (see :mod:`.files`)."""

from classic_rpg.scaffold.files import ScaffoldError, main, scaffold_pack

__all__ = ["ScaffoldError", "main", "scaffold_pack"]
