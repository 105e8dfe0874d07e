"""A simulation-side copy of a document, so edits reach a running world between ticks.

The UI thread owns the ``UsdDocument``; the worker's Simulation runs on a flattened copy of it
(never sharing pxr layers across threads). ``flattened_copy`` makes that copy; ``StageDocument``
lets the worker apply the same typed op to it (``ApplyOp``), so a running world keeps its motion
across an edit. Structural edits (prims added, removed, moved, references, variants) and undo/redo
send a fresh flattened copy instead (``SyncStage``): references resolve here, through the
document's own asset roots, and the simulation re-projects keeping its clock and the motion of
what the edit did not touch (:func:`edit_command` chooses).
"""

from __future__ import annotations

from pxr import Sdf, Usd

from luncosim_core.api.commands import ApplyOp, Command, SyncStage
from luncosim_core.usd.journal import Journal
from luncosim_core.usd.ops import Batch, MovePrim, RestoreSpecs, SetAttribute, SetConnection


def flattened_text(stage: Usd.Stage) -> str:
    """The composed stage as one layer's text (call on the thread that owns ``stage``)."""
    return stage.Flatten().ExportToString()


def stage_from_text(text: str) -> Usd.Stage | None:
    """A private stage over an anonymous layer holding ``text`` (call on the worker thread);
    None when the text does not parse."""
    layer = Sdf.Layer.CreateAnonymous("simulation.usda")
    if not layer.ImportFromString(text):
        return None
    return Usd.Stage.Open(layer)


def touched_paths(op) -> tuple[str, ...]:
    """The prim and property paths an op (or an undo/redo restore) writes, in order."""
    if isinstance(op, Batch):
        return tuple(p for o in op.ops for p in touched_paths(o))
    if isinstance(op, RestoreSpecs):
        return tuple(str(s.path) for s in op.snapshots)
    path = getattr(op, "path", "")
    if isinstance(op, (SetAttribute, SetConnection)) and path:
        return (f"{path}.{op.name}",)
    paths = [path, op.new_path if isinstance(op, MovePrim) else ""]
    return tuple(p for p in paths if p)


def _value_only(op) -> bool:
    """Forward edits of values and wires: replayed op by op on the simulation's copy."""
    if isinstance(op, Batch):
        return all(_value_only(o) for o in op.ops)
    return isinstance(op, (SetAttribute, SetConnection))


def edit_command(stage: Usd.Stage, op) -> Command:
    """The command that carries a document edit ``op`` (already applied to ``stage``) to the
    simulation: the op itself for value and wire edits, else the whole flattened stage."""
    if _value_only(op):
        return ApplyOp(op=op)
    return SyncStage(text=flattened_text(stage), changed=touched_paths(op))


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
