"""A simulation-side copy of a document, so edits reach a running world between ticks.

The UI thread owns the ``UsdDocument``; the worker's Simulation runs on a flattened copy of it
(never sharing pxr layers across threads). ``flattened_copy`` makes that copy; ``StageDocument``
lets the worker apply the same typed op to it (``ApplyOp``), so a running world keeps its motion
across an edit. Undo and redo are not mirrored op by op: their inverses describe the UI
document's own layers, so the worker is given a fresh copy instead (``SimulationWorker.replace``).
"""

from __future__ import annotations

from pxr import Sdf, Usd

from luncosim_core.usd.journal import Journal


def flattened_text(stage: Usd.Stage) -> str:
    """The composed stage as one layer's text (call on the thread that owns ``stage``)."""
    return stage.Flatten().ExportToString()


def stage_from_text(text: str) -> Usd.Stage:
    """A private stage over an anonymous layer holding ``text`` (call on the worker thread)."""
    layer = Sdf.Layer.CreateAnonymous("simulation.usda")
    layer.ImportFromString(text)
    return Usd.Stage.Open(layer)


class StageDocument:
    """The minimal document interface typed ops need, over one stage and its root layer."""

    def __init__(self, stage: Usd.Stage, roots=None) -> None:
        self.stage = stage
        self.roots = roots
        self.journal = Journal()

    def layer_for(self, target: str) -> Sdf.Layer:
        return self.stage.GetRootLayer()

    def apply(self, op):
        inverse = op.apply(self)
        self.journal.record(op, inverse)
        return inverse
