"""The Connections canvas as data (no Qt): the prims of one assembly that have ports, as nodes
(inputs on the left, outputs on the right, with units), the authored ``.connect`` wires between
them (broken ones with the reason, unit-converted ones marked), joints as read-only edges
between bodies, and a layered left-to-right layout (a node's rank is the longest chain of wires
feeding it). Gestures become typed ops: :func:`connect_op` (refusing incompatible units with
the reason) and :func:`disconnect_op`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pxr import Sdf, Usd, UsdPhysics

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.declarations import SHADING_TYPES
from luncosim_core.ports.units import UnitError, conversion
from luncosim_core.usd.ops import OpError, SetConnection

POSITION_ATTR = "ui:connections:position"  # a node's place on the canvas, in the view layer


@dataclass(frozen=True)
class Port:
    name: str  # the attribute name, inputs:x / outputs:y
    direction: str  # in | out
    unit: str
    type_name: str

    @property
    def label(self) -> str:
        bare = self.name.partition(":")[2]
        return f"{bare} [{self.unit}]" if self.unit else bare


@dataclass
class Node:
    path: str
    title: str
    inputs: list[Port] = field(default_factory=list)
    outputs: list[Port] = field(default_factory=list)
    body: bool = False
    rank: int = 0
    position: tuple[float, float] | None = None

    def port(self, name: str) -> Port | None:
        return next((p for p in self.inputs + self.outputs if p.name == name), None)


@dataclass(frozen=True)
class Wire:
    source: str  # /Prim.outputs:y
    sink: str  # /Prim.inputs:x
    broken: str = ""  # why, when the source does not exist
    converted: str = ""  # "m/s -> km/h" when units differ but convert

    @property
    def source_prim(self) -> str:
        return str(Sdf.Path(self.source).GetPrimPath())

    @property
    def sink_prim(self) -> str:
        return str(Sdf.Path(self.sink).GetPrimPath())


@dataclass(frozen=True)
class JointEdge:
    path: str
    body0: str
    body1: str


@dataclass
class Graph:
    root: str
    nodes: dict[str, Node] = field(default_factory=dict)
    wires: list[Wire] = field(default_factory=list)
    joints: list[JointEdge] = field(default_factory=list)


def _unit(attr: Usd.Attribute) -> str:
    return str((attr.GetCustomData() or {}).get("unit", "") or "")


def _ports(prim: Usd.Prim) -> tuple[list[Port], list[Port]]:
    ins, outs = [], []
    for attr in prim.GetAttributes():
        ns = attr.GetName().partition(":")[0]
        if ns in ("inputs", "outputs"):
            port = Port(attr.GetName(), "in" if ns == "inputs" else "out", _unit(attr), str(attr.GetTypeName()))
            (ins if ns == "inputs" else outs).append(port)
    return ins, outs


def _walk(stage: Usd.Stage, root: str):
    top = stage.GetPrimAtPath(root) if root != "/" else stage.GetPseudoRoot()
    it = iter(Usd.PrimRange(top))
    for prim in it:
        if prim.GetTypeName() in SHADING_TYPES:
            it.PruneChildren()
            continue
        if not prim.IsPseudoRoot():
            yield prim


def build_graph(stage: Usd.Stage, root: str, positions: dict[str, tuple[float, float]] | None = None) -> Graph:
    """The canvas of the assembly under ``root`` (its own ports included)."""
    graph = Graph(root)
    for prim in _walk(stage, root):
        path = str(prim.GetPath())
        ins, outs = _ports(prim)
        body = prim.HasAPI(UsdPhysics.RigidBodyAPI)
        if ins or outs or body:
            title = path[len(root):].lstrip("/") if root != "/" and path.startswith(root + "/") else prim.GetName()
            graph.nodes[path] = Node(path, title or prim.GetName(), ins, outs, body)
        if prim.IsA(UsdPhysics.Joint):
            joint = UsdPhysics.Joint(prim)
            b0, b1 = joint.GetBody0Rel().GetTargets(), joint.GetBody1Rel().GetTargets()
            if b0 and b1:
                graph.joints.append(JointEdge(path, str(b0[0]), str(b1[0])))
    for node in graph.nodes.values():
        prim = stage.GetPrimAtPath(node.path)
        for port in node.inputs + node.outputs:
            for src in prim.GetAttribute(port.name).GetConnections():
                graph.wires.append(_wire(stage, src, f"{node.path}.{port.name}", port))
    graph.joints = [j for j in graph.joints if j.body0 in graph.nodes and j.body1 in graph.nodes]
    _rank(graph)
    for path, pos in (positions or {}).items():
        if path in graph.nodes:
            graph.nodes[path].position = pos
    return graph


def _wire(stage: Usd.Stage, src: Sdf.Path, sink: str, sink_port: Port) -> Wire:
    src_prim = stage.GetPrimAtPath(src.GetPrimPath())
    if not src_prim:
        return Wire(str(src), sink, broken=f"no prim at {src.GetPrimPath()}")
    attr = src_prim.GetAttribute(src.name)
    if not attr:
        return Wire(str(src), sink, broken=f"{src.GetPrimPath()} has no port {src.name}")
    src_unit = _unit(attr)
    try:
        scale, offset = conversion(src_unit or None, sink_port.unit or None)
    except UnitError as exc:
        return Wire(str(src), sink, broken=str(exc))
    converted = f"{src_unit} -> {sink_port.unit}" if (scale, offset) != (1.0, 0.0) else ""
    return Wire(str(src), sink, converted=converted)


def _rank(graph: Graph) -> None:
    """Longest chain of wires feeding each node (cycles cut at the second visit)."""
    feeds: dict[str, set[str]] = {p: set() for p in graph.nodes}
    for w in graph.wires:
        if not w.broken and w.source_prim in graph.nodes and w.sink_prim in graph.nodes and w.source_prim != w.sink_prim:
            feeds[w.sink_prim].add(w.source_prim)
    memo: dict[str, int] = {}

    def rank(path: str, seen: frozenset) -> int:
        if path in memo:
            return memo[path]
        r = max((rank(s, seen | {path}) + 1 for s in sorted(feeds[path]) if s not in seen), default=0)
        memo[path] = r
        return r

    for path in sorted(graph.nodes):
        graph.nodes[path].rank = rank(path, frozenset())


def layout(graph: Graph, column: float = 260.0, row_gap: float = 30.0) -> dict[str, tuple[float, float]]:
    """Canvas positions: saved ones kept, the others in columns by rank, stacked in path order."""
    out: dict[str, tuple[float, float]] = {}
    heights: dict[int, float] = {}
    for path in sorted(graph.nodes, key=lambda p: (graph.nodes[p].rank, p)):
        node = graph.nodes[path]
        if node.position is not None:
            out[path] = node.position
            continue
        y = heights.get(node.rank, 0.0)
        out[path] = (node.rank * column, y)
        heights[node.rank] = y + node_height(node) + row_gap
    return out


def node_height(node: Node) -> float:
    return 28.0 + 18.0 * max(len(node.inputs), len(node.outputs), 1)


def _fail(message: str, path: str) -> OpError:
    return OpError(Diagnostic("error", "op-set-connection", message, path=path, source="ports"))


def connect_op(stage: Usd.Stage, source: str, sink: str) -> SetConnection:
    """The op of a drag from output ``source`` to input ``sink`` (``/Prim.ns:name`` each): adds the
    source to the sink's wires. Refuses a wrong direction or incompatible units, with the reason."""
    src, dst = Sdf.Path(source), Sdf.Path(sink)
    if not dst.name.startswith("inputs:"):
        raise _fail(f"{sink} is not an input: drag from an output to an input", sink)
    src_attr = stage.GetAttributeAtPath(src)
    dst_attr = stage.GetAttributeAtPath(dst)
    if not src_attr or not dst_attr:
        raise _fail(f"{source if not src_attr else sink} does not exist", sink)
    try:
        conversion(_unit(src_attr) or None, _unit(dst_attr) or None)
    except UnitError as exc:
        raise _fail(f"cannot wire {source} to {sink}: {exc}", sink) from None
    sources = tuple(str(s) for s in dst_attr.GetConnections())
    if source in sources:
        raise _fail(f"{sink} is already wired from {source}", sink)
    return SetConnection(path=str(dst.GetPrimPath()), name=dst.name, sources=(*sources, source),
                         type_name=str(dst_attr.GetTypeName()))


def disconnect_op(stage: Usd.Stage, wire: Wire) -> SetConnection:
    """The op that deletes one wire (the sink keeps its other sources)."""
    attr = stage.GetAttributeAtPath(wire.sink)
    rest = tuple(str(s) for s in attr.GetConnections() if str(s) != wire.source)
    dst = Sdf.Path(wire.sink)
    return SetConnection(path=str(dst.GetPrimPath()), name=dst.name, sources=rest, type_name=str(attr.GetTypeName()))
