"""Modelica unit strings (``N.m``, ``m/s2``, ``rad/s``) compared by physical dimension.

One vocabulary for the whole product: the registry and the Modelica-unit translator live in
:mod:`luncosim_core.ports.units`; this module keeps the names the Modelica code uses."""

from __future__ import annotations

from luncosim_core.ports.units import dimensionality

__all__ = ["dimensionality"]
