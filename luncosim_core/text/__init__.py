"""Text documents (Modelica, Rhai): minimal-diff splices with exact inverses, a journal, atomic
saves, and debounced off-thread diagnostics."""

from luncosim_core.text.document import LANGUAGES, TextConflict, TextDocument, TextEdit, TextEntry
from luncosim_core.text.engine import DiagnosticsEngine
from luncosim_core.text.splice import (
           Splice,
           SpliceError,
           apply_splices,
           compose_groups,
           diff_splices,
)

__all__ = ["LANGUAGES", "DiagnosticsEngine", "Splice", "SpliceError", "TextConflict", "TextDocument", "TextEdit",
           "TextEntry", "apply_splices", "compose_groups", "diff_splices"]
