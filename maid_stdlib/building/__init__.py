"""Online building (``stdlib.building``): builders change the world from inside the
game, and every change is written back to the pack's data files.

See :mod:`.sources` (where an entry is written), :mod:`.editor` (an edit checked,
written and applied through the reload path) and :mod:`.commands`.
"""

from maid_stdlib.building.editor import EditResult, PackEditor
from maid_stdlib.building.sources import Located, PackSources

__all__ = ["EditResult", "Located", "PackEditor", "PackSources"]
