"""A component network (``CollectionAPI:components`` scope) as one Modelica participant.

The scope's members are compiled together into one generated model
(:mod:`luncosim_core.modelica.network_model`); the members get no participant of their own, and
their wires inside the network are equations of that model, not runtime wires. The participant's
ports live on the scope: its ``inputs:`` (boundary inputs, fed by runtime wires), its ``outputs:``
and one alias per member output (``__member_<instance>_<output>``); a runtime wire that reads a
member's output reads that alias (see :func:`luncosim_core.ports.declarations.read_wires`).
"""

from __future__ import annotations

import dataclasses
import math
from concurrent.futures import Future
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.ports.model import PortInfo, port_key
from luncosim_core.sim.program_modelica import ModelicaProgram, _executor


class NetworkProgram(ModelicaProgram):
    """One network scope stepping its generated model at its communication period."""

    kind = "modelica-network"

    def __init__(self, sim, prim, members: list[str]) -> None:
        from luncosim_core.modelica.network_model import network_library_roots, read_network

        root = str(prim.GetPath())
        self.network = read_network(sim.stage, root, members, sim.roots)
        self.aliases: dict[str, tuple[str, str]] = {}
        self._extra_roots = tuple(network_library_roots(self.network))
        super().__init__(sim, prim)
        self._diags.extend(self.network.problems)
        for path in self.network.omitted:
            self._diags.append(Diagnostic("info", "network-member-omitted",
                                          f"{path} declares acausal connectors that nothing connects: it is not part of "
                                          f"the network {root}", path=path, source="modelica"))
        if self.network.problems and not self.error:
            self.error = "network invalid"
            self.future = None
        # until the model is generated: the scope's connected outputs
        self.declared_out = {name: self.declared_out.get(name, "") for name in self.network.outputs}
        if self.network.period is not None and not any(a.GetName() == "lunco:program:communicationPeriod"
                                                       for a in prim.GetAttributes()):
            self.period = self.network.period
            self.every = max(1, round(self.period / sim.dt))

    def start_compile(self, sim) -> Future:
        """Generate the network's model (it needs each member class's outputs, a front-end compile
        each) and compile it, all on the compile thread."""
        from luncosim_core.modelica import compile_model
        from luncosim_core.modelica.network_model import generate
        from luncosim_core.modelica.program_outputs import model_outputs

        stage, roots, network, lib = sim.stage, sim.roots, self.network, self._library_roots

        def job():
            text, aliases = generate(network, lambda m: model_outputs(stage.GetPrimAtPath(m.path), roots))
            return text, aliases, compile_model(source_text=text, library_roots=list(lib))

        return _executor().submit(job)

    def _commit(self, result) -> None:
        _text, aliases, compiled = result
        self.aliases = aliases
        self.revision = compiled.source_hash
        super()._commit(compiled)

    def _expand_arrays(self, interface) -> None:
        """The declared ports, plus the member outputs the generated model publishes as aliases."""
        super()._expand_arrays(interface)
        self.declared_out.update(dict.fromkeys(self.aliases, ""))

    def port_infos(self) -> list[tuple[PortInfo, float]]:
        """The scope's ports, plus each member output again on the member itself (``/Member.name``),
        so a wire or a script reading the member's output finds it where it was authored."""
        out = super().port_infos()
        by_name = {info.name: info for info, _ in out if info.prim_path == self.prim_path}
        for alias, (member, name) in self.aliases.items():
            info = by_name.get(alias)
            if info is not None:
                out.append((dataclasses.replace(info, prim_path=member, name=name,
                                                description=f"published by the network {self.prim_path}"), math.nan))
        return out

    def step(self, sim) -> None:
        super().step(sim)
        reg = sim.registry
        for alias, (member, name) in self.aliases.items():
            i, j = reg.index.get(port_key(self.prim_path, alias)), reg.index.get(port_key(member, name))
            if i is not None and j is not None:
                reg.values[j] = reg.values[i]

    def library_roots(self, sim) -> tuple[Path, ...]:
        return tuple(dict.fromkeys((*super().library_roots(sim), *self._extra_roots)))

    def _read_source(self, prim) -> tuple[Path | None, str, bool]:
        return None, "", False  # generated by start_compile

    def poll_source(self, sim) -> bool:
        return False  # regenerated when the stage is re-projected


class WrenchProgram(ModelicaProgram):
    """An actuator-wrench network scope stepping its generated allocator
    (:mod:`luncosim_core.modelica.wrench_model`): the scope's wrench inputs in, one normalized
    command per force actuator out."""

    kind = "actuator-wrench"

    def __init__(self, sim, prim, members: list[str]) -> None:
        from luncosim_core.modelica.wrench_model import read_wrench_network

        self.network = read_wrench_network(sim.stage, str(prim.GetPath()), members)
        super().__init__(sim, prim)
        self._diags.extend(self.network.problems)
        if self.network.problems and not self.error:
            self.error = "network invalid"
            self.future = None

    def start_compile(self, sim) -> Future:
        from luncosim_core.modelica import compile_model
        from luncosim_core.modelica.wrench_model import generate_wrench

        if self.network.problems:
            return None
        text, lib = generate_wrench(self.network), list(self._library_roots)
        return _executor().submit(lambda: compile_model(source_text=text, library_roots=lib))

    def _commit(self, compiled) -> None:
        self.revision = compiled.source_hash
        super()._commit(compiled)

    def _read_source(self, prim) -> tuple[Path | None, str, bool]:
        return None, "", False  # generated by start_compile

    def poll_source(self, sim) -> bool:
        return False  # regenerated when the stage is re-projected


def network_participants(sim) -> tuple[list[NetworkProgram], set[str]]:
    """One participant per Modelica component network, and the member paths they own."""
    from luncosim_core.usd.networks import modelica_networks, wrench_networks

    parts, members = [], set()
    for root, actuators in sorted(wrench_networks(sim.stage).items()):
        parts.append(WrenchProgram(sim, sim.stage.GetPrimAtPath(root), actuators))
    for root, progs in sorted(modelica_networks(sim.stage).items()):
        progs = [m for m in progs if m not in members]
        if not progs:
            continue
        members.update(progs)
        parts.append(NetworkProgram(sim, sim.stage.GetPrimAtPath(root), progs))
    return parts, members
