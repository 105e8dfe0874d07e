"""The Connections canvas as data (no Qt): the prims of one assembly that have ports, as nodes
(inputs on the left, outputs on the right, with units), the authored ``.connect`` wires between
them (broken ones with the reason, unit-converted ones marked), joints as read-only edges
between bodies, and a layered left-to-right layout (a node's rank is the longest chain of wires
feeding it). Gestures become typed ops: :func:`connect_op` (refusing incompatible units with
the reason), :func:`delete_op` (wires, and every wire of a deleted node, as one undo step).

A port's unit is its ``customData`` unit, else the running simulation's (``ListPorts``: a Modelica
``unit=``, a physics port's), else the one unit of the ports it is wired to (a rover's unitless
``inputs:throttle`` forwards to its controller's dimensionless ``throttle``). Node places persist
in a sidecar (:func:`positions_file`, under the twin's ``.lunco/``) besides the view layer.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from pxr import Sdf, Usd, UsdPhysics

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.declarations import SHADING_TYPES
from luncosim_core.ports.units import UnitError, conversion
from luncosim_core.usd.ops import Batch, Op, OpError, SetConnection

POSITION_ATTR = "ui:connections:position"  # a node's place on the canvas, in the view layer


UNIT_FROM = {"customData": "authored customData", "live": "the running simulation (its owner)",
             "wire": "the ports it is wired to"}


@dataclass(frozen=True)
class Port:
    name: str  # the attribute name, inputs:x / outputs:y
    direction: str  # in | out
    unit: str
    type_name: str
    unit_from: str = ""  # customData | live | wire ("" without a unit)

    @property
    def label(self) -> str:
        bare = self.name.partition(":")[2]
        return f"{bare} [{self.unit}]" if self.unit else bare

    @property
    def tip(self) -> str:
        return f"unit {self.unit} (from {UNIT_FROM[self.unit_from]})" if self.unit else "no unit"


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
    units: dict[str, str] = field(default_factory=dict)  # every port's unit, by /Prim.ns:name (graph_units)


def _unit(attr: Usd.Attribute) -> str:
    return str((attr.GetCustomData() or {}).get("unit", "") or "")


def live_units(ports: list[Mapping]) -> dict[str, str]:
    """``/Prim.inputs:x`` / ``/Prim.outputs:y`` -> unit, from a ``ListPorts`` answer (a port whose
    produced side shares its name with an input is named ``outputs:<name>`` there)."""
    out: dict[str, str] = {}
    for p in ports:
        name, unit = str(p.get("name", "")), str(p.get("unit", "") or "")
        if not unit:
            continue
        attr = name if ":" in name else ("inputs:" if p.get("direction") == "in" else "outputs:") + name
        out[f"{p.get('prim', '')}.{attr}"] = unit
    return out


def _attr_unit(attr: Usd.Attribute, live: Mapping[str, str]) -> tuple[str, str]:
    authored = _unit(attr)
    if authored:
        return authored, "customData"
    unit = live.get(str(attr.GetPath()), "")
    return unit, "live" if unit else ""


def _ports(prim: Usd.Prim, live: Mapping[str, str]) -> tuple[list[Port], list[Port]]:
    ins, outs = [], []
    for attr in prim.GetAttributes():
        ns = attr.GetName().partition(":")[0]
        if ns in ("inputs", "outputs"):
            unit, origin = _attr_unit(attr, live)
            port = Port(attr.GetName(), "in" if ns == "inputs" else "out", unit, str(attr.GetTypeName()), origin)
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


def build_graph(stage: Usd.Stage, root: str, positions: dict[str, tuple[float, float]] | None = None,
                live: Mapping[str, str] | None = None) -> Graph:
    """The canvas of the assembly under ``root`` (its own ports included); ``live``: the running
    simulation's units (:func:`live_units`) for ports that author none."""
    graph = Graph(root)
    live = live or {}
    for prim in _walk(stage, root):
        path = str(prim.GetPath())
        ins, outs = _ports(prim, live)
        body = prim.HasAPI(UsdPhysics.RigidBodyAPI)
        if ins or outs or body:
            title = path[len(root):].lstrip("/") if root != "/" and path.startswith(root + "/") else prim.GetName()
            graph.nodes[path] = Node(path, title or prim.GetName(), ins, outs, body)
        if prim.IsA(UsdPhysics.Joint):
            joint = UsdPhysics.Joint(prim)
            b0, b1 = joint.GetBody0Rel().GetTargets(), joint.GetBody1Rel().GetTargets()
            if b0 and b1:
                graph.joints.append(JointEdge(path, str(b0[0]), str(b1[0])))
    ends: list[tuple[Sdf.Path, str]] = []
    for node in graph.nodes.values():
        prim = stage.GetPrimAtPath(node.path)
        for port in node.inputs + node.outputs:
            ends += [(src, f"{node.path}.{port.name}") for src in prim.GetAttribute(port.name).GetConnections()]
    graph.units = graph_units(stage, graph, ends, live)
    graph.wires = [_wire(stage, src, sink, graph.units) for src, sink in ends]
    graph.joints = [j for j in graph.joints if j.body0 in graph.nodes and j.body1 in graph.nodes]
    _rank(graph)
    for path, pos in (positions or {}).items():
        if path in graph.nodes:
            graph.nodes[path].position = pos
    return graph


def graph_units(stage: Usd.Stage, graph: Graph, ends: list[tuple[Sdf.Path, str]],
                live: Mapping[str, str]) -> dict[str, str]:
    """Every wired port's unit (``/Prim.ns:name`` -> unit), and the graph's unitless ports given
    the one unit of the ports they are wired to (repeated along chains of forwarding ports)."""
    units: dict[str, str] = {f"{n.path}.{p.name}": p.unit for n in graph.nodes.values() for p in n.inputs + n.outputs}
    for src, _sink in ends:
        attr = stage.GetAttributeAtPath(src)
        if str(src) not in units and attr:
            units[str(src)] = _attr_unit(attr, live)[0]
    neighbours: dict[str, set[str]] = {}
    for src, sink in ends:
        neighbours.setdefault(str(src), set()).add(sink)
        neighbours.setdefault(sink, set()).add(str(src))
    inferred: set[str] = set()
    for _ in range(len(neighbours)):
        found = {key: next(iter(seen)) for key, others in neighbours.items() if not units.get(key)
                 for seen in [{units[o] for o in others if units.get(o)}] if len(seen) == 1}
        if not found:
            break
        units.update(found)
        inferred |= set(found)
    for node in graph.nodes.values():
        node.inputs = [replace(p, unit=units[f"{node.path}.{p.name}"], unit_from="wire")
                       if f"{node.path}.{p.name}" in inferred else p for p in node.inputs]
        node.outputs = [replace(p, unit=units[f"{node.path}.{p.name}"], unit_from="wire")
                        if f"{node.path}.{p.name}" in inferred else p for p in node.outputs]
    return units


def _wire(stage: Usd.Stage, src: Sdf.Path, sink: str, units: Mapping[str, str]) -> Wire:
    src_prim = stage.GetPrimAtPath(src.GetPrimPath())
    if not src_prim:
        return Wire(str(src), sink, broken=f"no prim at {src.GetPrimPath()}")
    attr = src_prim.GetAttribute(src.name)
    if not attr:
        return Wire(str(src), sink, broken=f"{src.GetPrimPath()} has no port {src.name}")
    src_unit, sink_unit = units.get(str(src), ""), units.get(sink, "")
    try:
        scale, offset = conversion(src_unit or None, sink_unit or None)
    except UnitError as exc:
        return Wire(str(src), sink, broken=str(exc))
    converted = f"{src_unit} -> {sink_unit}" if (scale, offset) != (1.0, 0.0) else ""
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


def connect_op(stage: Usd.Stage, source: str, sink: str, units: Mapping[str, str] | None = None) -> SetConnection:
    """The op of a drag from output ``source`` to input ``sink`` (``/Prim.ns:name`` each): adds the
    source to the sink's wires. Refuses a wrong direction or incompatible units, with the reason;
    ``units`` are the canvas's (:func:`graph_units`: authored, live or carried along wires), else
    the authored ones."""
    src, dst = Sdf.Path(source), Sdf.Path(sink)
    if not dst.name.startswith("inputs:"):
        raise _fail(f"{sink} is not an input: drag from an output to an input", sink)
    src_attr = stage.GetAttributeAtPath(src)
    dst_attr = stage.GetAttributeAtPath(dst)
    if not src_attr or not dst_attr:
        raise _fail(f"{source if not src_attr else sink} does not exist", sink)
    units = units or {}
    src_unit, dst_unit = units.get(source) or _unit(src_attr), units.get(sink) or _unit(dst_attr)
    try:
        conversion(src_unit or None, dst_unit or None)
    except UnitError as exc:
        raise _fail(f"cannot wire {source} to {sink}: {exc}", sink) from None
    sources = tuple(str(s) for s in dst_attr.GetConnections())
    if source in sources:
        raise _fail(f"{sink} is already wired from {source}", sink)
    return SetConnection(path=str(dst.GetPrimPath()), name=dst.name, sources=(*sources, source),
                         type_name=str(dst_attr.GetTypeName()))


def disconnect_op(stage: Usd.Stage, wires: list[Wire]) -> SetConnection:
    """The op that deletes ``wires`` (all into one sink; the sink keeps its other sources)."""
    sink = wires[0].sink
    gone = {w.source for w in wires}
    attr = stage.GetAttributeAtPath(sink)
    rest = tuple(str(s) for s in attr.GetConnections() if str(s) not in gone)
    dst = Sdf.Path(sink)
    return SetConnection(path=str(dst.GetPrimPath()), name=dst.name, sources=rest, type_name=str(attr.GetTypeName()))


def delete_op(stage: Usd.Stage, graph: Graph, wires: list[Wire], nodes: list[str] = ()) -> Op | None:
    """Delete ``wires`` and every wire of the ``nodes`` (their prims stay): one op per sink, as a
    ``Batch`` when there are several, so the whole deletion is one undo step (None: nothing to do)."""
    chosen = list(dict.fromkeys([*wires, *(w for w in graph.wires if w.source_prim in nodes or w.sink_prim in nodes)]))
    by_sink: dict[str, list[Wire]] = {}
    for w in chosen:
        by_sink.setdefault(w.sink, []).append(w)
    ops = tuple(disconnect_op(stage, ws) for _sink, ws in sorted(by_sink.items()))
    if not ops:
        return None
    if len(ops) == 1 and not nodes:
        return ops[0]
    what = f"{len(chosen)} wire{'s' if len(chosen) != 1 else ''}"
    name = f"delete {what} of {', '.join(nodes)}" if nodes and not wires else f"delete {what}"
    return Batch(ops=ops, name=name)


# ---------------------------------------------------------------------------------- node places
def positions_file(twin_root: Path | None, scene: Path, relative: str | None = None) -> Path:
    """Where the node places of ``scene`` persist: ``<twin>/.lunco/connections/<scene path>.json``
    (beside the scene when it has no twin)."""
    if twin_root is None:
        return scene.parent / ".lunco" / "connections" / f"{scene.name}.json"
    return Path(twin_root) / ".lunco" / "connections" / f"{relative or scene.name}.json"


def read_positions(path: Path) -> dict[str, tuple[float, float]]:
    """The saved node places (an unreadable file is ignored: the layout recomputes them)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): (float(v[0]), float(v[1])) for k, v in data.get("positions", {}).items()}
    except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return {}


def write_positions(path: Path, positions: Mapping[str, tuple[float, float]]) -> None:
    """Save node places atomically (a temporary file renamed over the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    body = {"version": 1, "positions": {k: [round(x, 2), round(y, 2)] for k, (x, y) in sorted(positions.items())}}
    tmp.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)
