"""Applied API schemas of a prim, including schemas with no registered definition.

``Usd.Prim.GetAppliedSchemas()`` lists only schemas USD has a definition for; LunCoSim's own
schemas (``LunCoProgramAPI``, ``LunCoEnvironmentProbeAPI``, ...) are codeless here, so every check of
an applied schema goes through :func:`applied_schemas`.
"""

from __future__ import annotations


def applied_schemas(prim) -> list[str]:
    """Every applied API schema name, in authored order, registered or not."""
    return list(prim.GetPrimTypeInfo().GetAppliedAPISchemas())


def has_schema(prim, name: str) -> bool:
    return name in prim.GetPrimTypeInfo().GetAppliedAPISchemas()
