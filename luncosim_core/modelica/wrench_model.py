"""Generate the allocator of an actuator-wrench network (``lunco:synthesizer`` "actuator-wrench").

A ``CollectionAPI:components`` scope whose members are all force actuators
(``LunCoForceActuatorAPI``) is not an acausal Modelica network: it maps a requested body wrench
(the scope's ``inputs:desired_force_*`` / ``desired_torque_*``) to one normalized command per
actuator, published as the scope's ``outputs:<lunco:forceActuator:commandOutput>``. Each actuator
contributes one column of the six-component wrench matrix, from the composed USD geometry in its
rigid body's frame: force = direction * maxForce, torque = position x direction * maxForce. The
generated model instantiates ``LunCo.Actuation.WrenchAllocator`` (a bounded projected-gradient
least-squares solve, commands in [0, 1]) with step 0.9 / ||B||_F^2, which keeps the fixed
iteration stable for every arrangement. Columns and outputs are ordered by command name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pxr import Usd, UsdGeom

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.usd.actuators import FORCE_ACTUATOR_API, read_force_actuator
from luncosim_core.usd.networks import is_identifier, path_identifier
from luncosim_core.usd.schemas import has_schema

WRENCH_INPUTS = ("desired_force_x", "desired_force_y", "desired_force_z",
                 "desired_torque_x", "desired_torque_y", "desired_torque_z")
ITERATIONS = 64


@dataclass
class WrenchNetwork:
    root: str
    inputs: list[str]
    outputs: list[str]
    columns: dict[str, tuple[float, ...]] = field(default_factory=dict)  # command output -> wrench column
    actuators: dict[str, str] = field(default_factory=dict)  # command output -> actuator path
    problems: list[Diagnostic] = field(default_factory=list)

    @property
    def model_name(self) -> str:
        return "Wrench_" + path_identifier(self.root.strip("/"))


def _error(path: str, message: str) -> Diagnostic:
    return Diagnostic("error", "network-invalid", message, path=path, source="modelica")


def read_wrench_network(stage: Usd.Stage, root: str, members: list[str]) -> WrenchNetwork:
    """The scope's ports and each member actuator's wrench column (see the module doc)."""
    scope = stage.GetPrimAtPath(root)
    names = [a.GetName() for a in scope.GetAttributes()]
    net = WrenchNetwork(root, sorted(n[7:] for n in names if n.startswith("inputs:")),
                        sorted(n[8:] for n in names if n.startswith("outputs:")))
    cache = UsdGeom.XformCache(Usd.TimeCode.Default())
    for path in members:
        prim = stage.GetPrimAtPath(path)
        if not prim or not has_schema(prim, FORCE_ACTUATOR_API):
            continue
        cmd_attr = prim.GetAttribute("lunco:forceActuator:commandOutput")
        command = str(cmd_attr.Get()) if cmd_attr and cmd_attr.HasAuthoredValue() else ""
        if not is_identifier(command):
            net.problems.append(_error(f"{path}.lunco:forceActuator:commandOutput",
                                       f"{path}: an actuator-wrench member needs lunco:forceActuator:commandOutput, a "
                                       f"Modelica identifier (it is {command!r})"))
            continue
        if command in net.columns:
            net.problems.append(_error(path, f"{path}: actuator output {command!r} is authored more than once "
                                       f"(also by {net.actuators[command]})"))
            continue
        actuator, why = read_force_actuator(prim, cache)
        if actuator is None:
            net.problems.append(_error(path, f"{path} is not a valid force actuator: it {why}"))
            continue
        net.columns[command], net.actuators[command] = actuator.wrench_column(), path
    _check_ports(net)
    return net


def _check_ports(net: WrenchNetwork) -> None:
    if not net.columns and not net.problems:
        net.problems.append(_error(net.root, f"{net.root}: the actuator-wrench collection has no force actuators"))
    unknown = [n for n in net.inputs if n not in WRENCH_INPUTS]
    if unknown:
        net.problems.append(_error(net.root, f"{net.root}: inputs {', '.join(unknown)} are not wrench components "
                                   f"(expected some of {', '.join(WRENCH_INPUTS)})"))
    if not net.problems and sorted(net.columns) != net.outputs:
        net.problems.append(_error(net.root, f"{net.root}: actuator command outputs {sorted(net.columns)} do not match "
                                   f"the authored network outputs {net.outputs}"))
    if net.columns and sum(v * v for c in net.columns.values() for v in c) <= 0:
        net.problems.append(_error(net.root, f"{net.root}: the actuators have no wrench authority"))


def _terms(coeffs: list[tuple[float, str]]) -> str:
    parts = [f"{c!r} * {v}" if c > 0 else f"({c!r}) * {v}" for c, v in coeffs if c != 0.0]
    return " + ".join(parts) if parts else "0.0"


def generate_wrench(net: WrenchNetwork) -> str:
    """The Modelica source of the allocator (outputs in command-name order).

    The same bounded projected-gradient solve as ``LunCo.Actuation.WrenchAllocator``
    (``c[k+1] = clamp(c[k] - step * B^T (B c[k] - w), 0, 1)`` from ``c[1] = 0``), written out
    as scalar equations with the geometry's numbers folded in (``G = B^T B``, ``h = B^T w``), which
    our Modelica front end compiles (it does not take the library class's array comprehensions).
    """
    names = sorted(net.columns)
    cols = [net.columns[n] for n in names]
    n = len(cols)
    step = 0.9 / sum(v * v for c in cols for v in c)
    gram = [[sum(cols[i][r] * cols[j][r] for r in range(6)) for j in range(n)] for i in range(n)]
    lines = [f"model {net.model_name}", f'  "Actuator-wrench allocator of {net.root}"']
    lines += [f"  input Real {w};" for w in net.inputs]
    lines += [f"  output Real {name};" for name in names]
    lines.append("protected")
    lines += [f"  Real h_{i + 1};" for i in range(n)]
    lines += [f"  Real c_{k}_{i + 1};" for k in range(1, ITERATIONS + 1) for i in range(n)]
    lines.append("equation")
    for i in range(n):
        lines.append(f"  h_{i + 1} = " + _terms([(cols[i][r], w) for r, w in enumerate(WRENCH_INPUTS)
                                                  if w in net.inputs]) + ";")
    for k in range(1, ITERATIONS + 1):
        for i in range(n):
            prev = [f"c_{k - 1}_{j + 1}" for j in range(n)] if k > 1 else None
            grad = (_terms([(gram[i][j], prev[j]) for j in range(n)]) + f" - h_{i + 1}") if prev else f"-h_{i + 1}"
            own = prev[i] if prev else "0.0"
            lines.append(f"  c_{k}_{i + 1} = max(0.0, min(1.0, {own} - {step!r} * ({grad})));")
    lines += [f"  {name} = c_{ITERATIONS}_{i + 1};" for i, name in enumerate(names)]
    lines.append(f"end {net.model_name};")
    return "\n".join(lines) + "\n"
