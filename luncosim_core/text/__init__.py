"""Text documents (Modelica, Rhai): minimal-diff splices with exact inverses."""

from luncosim_core.text.splice import Splice, SpliceError, apply_splices, diff_splices

__all__ = ["Splice", "SpliceError", "apply_splices", "diff_splices"]
