"""Executing :class:`AttachBodies` / :class:`DetachBodies` against the physics world."""

from __future__ import annotations

from luncosim_core.api.attachments import AttachBodies, DetachBodies
from luncosim_core.api.commands import CommandResult
from luncosim_core.diagnostics import Diagnostic


def execute_attachment(sim, cmd: AttachBodies | DetachBodies, tick: int, seq: int) -> CommandResult:
    """Apply one attachment command at admission; a refusal names what and why."""
    world = sim.world
    try:
        if isinstance(cmd, AttachBodies):
            world.attach(cmd.attachment, cmd.parent, cmd.child)
            value = {"attachment": cmd.attachment, "parent": cmd.parent, "child": cmd.child}
        else:
            parent, child = world.detach(cmd.attachment)
            value = {"attachment": cmd.attachment, "parent": parent, "child": child}
    except (KeyError, ValueError) as exc:
        path = getattr(cmd, "child", "") or ""
        diag = Diagnostic("error", "attachment-refused", f"{cmd.name}: {str(exc).strip(chr(39))}", path=path,
                          source="physics")
        return CommandResult(False, None, (diag,), tick, seq)
    return CommandResult(True, value, (), tick, seq)
