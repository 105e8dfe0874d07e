"""UsdPhysics projected onto pybullet: bodies, colliders, joints, drives, contacts, ports."""

from .ports import PortSpec
from .world import PhysicsWorld

__all__ = ["PhysicsWorld", "PortSpec"]
