"""Generate one Modelica model from a component network (a ``CollectionAPI:components`` scope).

Members are compiled together, not one by one (a turbopump and its combustion chamber are not
balanced alone): each member is an instance of the class its ``.mo`` source declares, with

* unwired ``inputs:`` constants as modifications (``Battery battery(capacity = 2.0)``),
* ``connectors:`` wires between members as ``connect()`` equations,
* an ``inputs:`` wired from another member's output, or from the scope's boundary input (directly,
  or from the same source a boundary input reads), as an equation,

and the generated model declares the scope's ``inputs:`` as ``input Real``, each ``outputs:X``
connected to a member output as ``output Real X = member.y``, and every output a member declares
(and its class has) as ``output Real __member_<instance>_<name>``
(:func:`luncosim_core.usd.networks.member_output_alias`). A member with acausal connectors that
nothing connects is an installed but unwired part: it is left out, with what it published.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pxr import Usd

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.fsutil import UnreadableFile, read_text_limited
from luncosim_core.modelica.source_text import guess_model_name
from luncosim_core.usd.networks import (
    identifier,
    instance_name,
    member_output_alias,
    path_identifier,
)
from luncosim_core.usd.programs import program_source


@dataclass
class NetworkMember:
    path: str
    source: Path | None
    class_name: str
    constants: dict[str, float] = field(default_factory=dict)
    connectors: dict[str, list[str]] = field(default_factory=dict)  # connector -> target "prim.connectors:x"
    declared_connectors: set[str] = field(default_factory=set)
    inputs: dict[str, str] = field(default_factory=dict)  # input -> source "prim.ns:name"
    outputs: list[str] = field(default_factory=list)  # declared outputs:


@dataclass
class Network:
    root: str
    members: list[NetworkMember]
    inputs: list[str]  # boundary inputs (the scope's inputs:)
    input_sources: dict[str, str]  # boundary input -> its wire source
    outputs: dict[str, tuple[str, str]]  # scope output -> (member path, member output)
    omitted: list[str]
    problems: list[Diagnostic]
    period: float | None = None

    @property
    def model_name(self) -> str:
        return "Network_" + path_identifier(self.root.strip("/"))


def _error(path: str, message: str) -> Diagnostic:
    return Diagnostic("error", "network-invalid", message, path=path, source="modelica")


def read_network(stage: Usd.Stage, root: str, members: list[str], roots) -> Network:
    """The network rooted at ``root`` with its Modelica program ``members`` (see the module doc)."""
    problems: list[Diagnostic] = []
    out: list[NetworkMember] = []
    periods: list[float] = []
    for path in members:
        prim = stage.GetPrimAtPath(path)
        m = _read_member(prim, path, roots, problems)
        if m is None:
            continue
        per = prim.GetAttribute("lunco:program:communicationPeriod")
        if per and per.HasAuthoredValue():
            periods.append(float(per.Get()))
        out.append(m)
    omitted = _unwired(out)
    out = [m for m in out if m.path not in omitted]
    inputs, input_sources, outputs = _read_scope(stage.GetPrimAtPath(root), root, out, omitted, problems)
    _check_member_wires(root, out, input_sources, problems)
    period = min(periods) if periods else None
    return Network(root, out, inputs, input_sources, outputs, omitted, problems, period)


def _read_member(prim, path: str, roots, problems: list[Diagnostic]) -> NetworkMember | None:
    """One member: its class and its ``connectors:``, ``inputs:`` and ``outputs:`` attributes."""
    source, _text = program_source(prim, roots)
    if source is None:
        problems.append(_error(path, f"network member {path}: its info:sourceAsset does not resolve to a file"))
        return None
    sub = prim.GetAttribute("info:sourceAsset:subIdentifier")
    cls = str(sub.Get()) if sub and sub.HasAuthoredValue() and sub.Get() else None
    if cls is None:
        try:
            cls = guess_model_name(read_text_limited(source, "Modelica source"), source)
        except (OSError, UnreadableFile) as exc:  # not text, a FIFO, too large: never a traceback or a hang
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            problems.append(Diagnostic("error", "modelica.source", f"network member {path}: {why}", path=path,
                                       layer=str(source), line=getattr(exc, "line", None), source="modelica"))
            return None
    m = NetworkMember(path, source, cls or source.stem)
    for attr in prim.GetAttributes():
        ns, _, bare = attr.GetName().partition(":")
        if ns == "connectors":
            m.declared_connectors.add(bare)
            targets = [str(t) for t in attr.GetConnections()]
            if targets:
                m.connectors[bare] = targets
        elif ns == "inputs":
            _read_member_input(m, attr, bare, problems)
        elif ns == "outputs":
            m.outputs.append(bare)
    return m


def _read_member_input(m: NetworkMember, attr, bare: str, problems: list[Diagnostic]) -> None:
    """A member input: wired (one source at most) or a finite constant (a modification)."""
    where = f"{m.path}.{attr.GetName()}"
    targets = [str(t) for t in attr.GetConnections()]
    if len(targets) > 1:
        problems.append(_error(where, f"{where}: a scalar Modelica input takes at most one connection"))
    elif targets:
        m.inputs[bare] = targets[0]
    elif attr.HasAuthoredValue():
        value = attr.Get()
        if isinstance(value, bool):
            value = 1.0 if value else 0.0
        if not isinstance(value, (int, float)):
            return
        if float(value) == float(value) and abs(float(value)) != float("inf"):
            m.constants[bare] = float(value)
        else:
            problems.append(_error(where, f"{where} = {value} is not a finite number"))


def _unwired(members: list[NetworkMember]) -> list[str]:
    """Installed but unwired parts: declared connectors, none connected either way."""
    connected = set()
    for m in members:
        for targets in m.connectors.values():
            for t in targets:
                prim_path, sep, _ = t.partition(".connectors:")
                if sep:
                    connected.update((m.path, prim_path))
    return [m.path for m in members if m.declared_connectors and m.path not in connected]


def _read_scope(scope, root: str, members: list[NetworkMember], omitted: list[str], problems: list[Diagnostic]):
    """The scope's boundary ``inputs:`` (with their sources) and ``outputs:`` (each a member output)."""
    inputs, input_sources, outputs = [], {}, {}
    member_paths = {m.path for m in members}
    for attr in scope.GetAttributes():
        name = attr.GetName()
        ns, _, bare = name.partition(":")
        conns = [str(t) for t in attr.GetConnections()]
        if ns == "inputs":
            inputs.append(bare)
            if len(conns) == 1:
                input_sources[bare] = conns[0]
            continue
        if ns != "outputs":
            continue
        if len(conns) != 1:
            problems.append(_error(f"{root}.{name}", f"{root}.{name}: a network output needs exactly one member "
                                   "output as its source"))
            continue
        src_prim, sep, src_out = conns[0].partition(".outputs:")
        if src_prim in omitted:
            continue  # published by an unwired part that is not in the network
        if not sep or src_prim not in member_paths:
            problems.append(_error(f"{root}.{name}", f"{root}.{name} reads {conns[0]}, which is not an output of "
                                   "a member of this network"))
            continue
        outputs[bare] = (src_prim, src_out)
    return inputs, input_sources, outputs


def _check_member_wires(root: str, members: list[NetworkMember], input_sources: dict[str, str],
                        problems: list[Diagnostic]) -> None:
    """Connectors stay inside the network; member inputs read member outputs or boundary inputs."""
    member_paths = {m.path for m in members}
    boundary_sources = set(input_sources.values())
    for m in members:
        for conn, targets in m.connectors.items():
            for t in targets:
                prim_path, sep, _tconn = t.partition(".connectors:")
                if not sep or prim_path not in member_paths:
                    problems.append(_error(f"{m.path}.connectors:{conn}", f"{m.path}.connectors:{conn} connects to {t}, "
                                           "outside this network"))
        for name, src in m.inputs.items():
            src_prim, _, src_port = src.partition(".")
            if (src_prim == root and src_port.startswith("inputs:")) or src in boundary_sources \
                    or (src_prim in member_paths and src_port.startswith("outputs:")):
                continue
            problems.append(_error(f"{m.path}.inputs:{name}", f"{m.path}.inputs:{name} reads {src}: a network member's "
                                   f"input must come from a member output or a boundary input of {root}"))


def generate(network: Network, member_outputs: Callable[[NetworkMember], frozenset[str] | None]) -> tuple[str, dict[str, tuple[str, str]]]:
    """``(Modelica text, {alias: (member path, output)})`` of the generated model.

    ``member_outputs(member)`` gives the outputs of a member's class (None: unknown, every declared
    output is trusted).
    """
    root = network.root
    names = {m.path: instance_name(root, m.path) for m in network.members}
    aliases: dict[str, tuple[str, str]] = {}
    for m in network.members:
        have = member_outputs(m)
        for o in m.outputs:
            if have is None or o in have:
                aliases[member_output_alias(root, m.path, o)] = (m.path, o)
    lines = [f"model {network.model_name} \"Generated from the component network {root}\""]
    lines += [f"  input Real {identifier(name)};" for name in network.inputs]
    lines += [f"  output Real {identifier(name)};" for name in network.outputs]
    lines += [f"  output Real {alias};" for alias in aliases]
    for m in network.members:
        mods = ", ".join(f"{identifier(k)} = {_number(v)}" for k, v in sorted(m.constants.items()))
        lines.append(f"  {m.class_name} {names[m.path]}{f'({mods})' if mods else ''} \"USD: {m.path}\";")
    lines.append("equation")
    lines += _member_equations(network, names)
    for name, (member, out) in network.outputs.items():
        lines.append(f"  {identifier(name)} = {names[member]}.{identifier(out)};")
    for alias, (member, out) in aliases.items():
        lines.append(f"  {alias} = {names[member]}.{identifier(out)};")
    lines.append(f"end {network.model_name};")
    return "\n".join(lines) + "\n", aliases


def _member_equations(network: Network, names: dict[str, str]) -> list[str]:
    """``connect()`` equations of the members' connector wires (each edge once) and an equation per
    wired member input."""
    lines: list[str] = []
    edges = set()
    for m in network.members:
        for conn, targets in sorted(m.connectors.items()):
            for t in targets:
                prim_path, _, tconn = t.partition(".connectors:")
                if prim_path not in names:
                    continue
                a, b = f"{names[m.path]}.{identifier(conn)}", f"{names[prim_path]}.{identifier(tconn)}"
                edge = (min(a, b), max(a, b))
                if edge not in edges:
                    edges.add(edge)
                    lines.append(f"  connect({edge[0]}, {edge[1]});")
        for name, src in sorted(m.inputs.items()):
            rhs = _input_source(network, names, src)
            if rhs is not None:
                lines.append(f"  {names[m.path]}.{identifier(name)} = {rhs};")
    return lines


def _input_source(network: Network, names: dict[str, str], src: str) -> str | None:
    """The expression a member input wired from ``src`` equals (None: not inside the network)."""
    src_prim, _, src_port = src.partition(".")
    boundary_by_source = {s: name for name, s in network.input_sources.items()}
    if src_prim == network.root and src_port.startswith("inputs:"):
        return identifier(src_port.partition(":")[2])
    if src in boundary_by_source:
        return identifier(boundary_by_source[src])
    if src_prim in names and src_port.startswith("outputs:"):
        return f"{names[src_prim]}.{identifier(src_port.partition(':')[2])}"
    return None


def _number(v: float) -> str:
    return repr(float(v))


def network_library_roots(network: Network) -> list[Path]:
    """Folders that make every member's class resolvable: each source's outermost package parent,
    or its own folder for a file outside any package."""
    from luncosim_core.modelica.compiler import _package_root

    out: list[Path] = []
    for m in network.members:
        if m.source is None:
            continue
        root = _package_root(m.source.resolve()) or m.source.resolve().parent
        if root not in out:
            out.append(root)
    return out
