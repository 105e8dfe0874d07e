"""Plain records of the port surface: declarations, live port metadata, wires."""

from __future__ import annotations

from dataclasses import dataclass

SCALAR_TYPES = ("float", "double", "half", "int", "int64", "uint", "uint64", "bool")
NAMESPACES = ("inputs", "outputs", "connectors")


def port_key(prim_path: str, name: str) -> str:
    """``/Rover.throttle``: the stable identity of a port (bare name, no namespace)."""
    return f"{prim_path}.{name}"


@dataclass(frozen=True, slots=True)
class PortDecl:
    """A port as authored in USD: ``<type> inputs:<name>`` on a prim (composed)."""

    prim_path: str
    namespace: str  # inputs | outputs | connectors
    name: str  # without namespace
    type: str  # authored USD scalar type
    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    default: float | None = None  # authored value, None when unauthored
    description: str = ""

    @property
    def key(self) -> str:
        return port_key(self.prim_path, self.name)

    @property
    def attribute(self) -> str:
        return f"{self.namespace}:{self.name}"


@dataclass(frozen=True, slots=True)
class PortInfo:
    """Metadata of one live port (what ReadPorts / ListPorts / the Ports panel show)."""

    prim_path: str
    name: str
    direction: str  # in | out | inout
    type: str = "double"
    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    source: str = "usd"  # backend label: usd, physics, modelica, fmu, script
    authority: str = "user"  # the owner that may write it: user, physics, modelica:<prim>, wire, script:<prim>
    writable: bool = False
    declared: bool = False  # authored as inputs:/outputs: on the prim (public)
    description: str = ""
    carries: str = ""  # the owner's narrower value type a write must also fit (ports.types)
    min_from: str = ""  # where ``minimum`` comes from, in words ("" = the port's own; ports.bounds)
    max_from: str = ""

    @property
    def key(self) -> str:
        return port_key(self.prim_path, self.name)

    def to_json(self) -> dict:
        return {
            "prim": self.prim_path, "name": self.name, "direction": self.direction, "type": self.type,
            "unit": self.unit, "min": self.minimum, "max": self.maximum, "source": self.source,
            "authority": self.authority, "writable": self.writable,
        } | ({"carries": self.carries} if self.carries else {}) \
          | ({"min_from": self.min_from} if self.min_from else {}) | ({"max_from": self.max_from} if self.max_from else {})


@dataclass(frozen=True, slots=True)
class Wire:
    """One authored connection resolved on the composed stage (a SimConnection)."""

    source_prim: str
    source_port: str  # bare name
    sink_prim: str
    sink_port: str
    scalar_type: str
    source_attr: str = ""  # as authored, with namespace (outputs:x)
    sink_attr: str = ""
    broken: str = ""  # why the wire is invalid ("" = valid)
    scale: float = 1.0
    offset: float = 0.0
    implicit: bool = False  # the source is an undeclared output of a compiled model (resolved live)

    @property
    def source_key(self) -> str:
        return port_key(self.source_prim, self.source_port)

    @property
    def sink_key(self) -> str:
        return port_key(self.sink_prim, self.sink_port)

    def describe(self) -> str:
        return f"{self.source_prim}.{self.source_attr or self.source_port} -> {self.sink_prim}.{self.sink_attr or self.sink_port}"

    def to_json(self) -> dict:
        return {"source": f"{self.source_prim}.{self.source_attr or self.source_port}",
                "sink": f"{self.sink_prim}.{self.sink_attr or self.sink_port}",
                "source_prim": self.source_prim, "sink_prim": self.sink_prim,
                "type": self.scalar_type, "broken": self.broken, "scale": self.scale, "offset": self.offset,
                "implicit": self.implicit}
