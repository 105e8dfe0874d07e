"""Commands that fix one body to another at run time (a gripper holding a crate) and release it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from luncosim_core.api.commands import Command


@dataclass(frozen=True)
class AttachBodies(Command):
    """Fix body ``child`` to body ``parent`` at their current relative pose under ``name``; the
    pair stops colliding. Refused when either is not a body, the child is kinematic or the name
    is taken."""

    name: ClassVar[str] = "AttachBodies"
    attachment: str = ""
    parent: str = ""
    child: str = ""


@dataclass(frozen=True)
class DetachBodies(Command):
    """Remove the attachment ``attachment``; the pair collides again."""

    name: ClassVar[str] = "DetachBodies"
    attachment: str = ""
