"""UsdPhysics projected onto pybullet: bodies, colliders, joints, drives, contacts, ports.

``PhysicsWorld`` loads pybullet on first use, so importing ``physics.debug`` or
``physics.ports`` stays light.
"""

from .ports import PortSpec

__all__ = ["PhysicsWorld", "PortSpec"]


def __getattr__(name: str):
    if name == "PhysicsWorld":
        from .world import PhysicsWorld

        return PhysicsWorld
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
