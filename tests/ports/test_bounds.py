"""Bounds enforced at write, naming the bound and where it comes from: a port's own (customData or
its owner's) and, for an interface port, the bounds of the sink it drives through a wire."""

from __future__ import annotations

import math

import pytest

from luncosim_core.api import ListPorts, SetPorts
from luncosim_core.ports.bounds import bound_problem_json
from luncosim_core.ports.model import PortDecl, PortInfo
from luncosim_core.ports.registry import PortRegistry, PortWriteError
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.roots import repository_root
from luncosim_core.usd.ops import OpError, SetAttribute

ROVER = "/Yard/Rover"
CONTROLLER = ROVER + "/Controller"


def _registry(*, sink_unit: str = "1", source_unit: str = "", source_decl_max: float | None = None,
              chain: bool = False) -> PortRegistry:
    """A rover's ``inputs:throttle`` (authored, no bounds) wired into a Modelica input declared
    ``throttle(min = -1, max = 1)`` (optionally through a forwarding sub-assembly port)."""
    decls = [PortDecl(ROVER, "inputs", "throttle", "float", source_unit, None, source_decl_max, 0.0)]
    wired = {f"{CONTROLLER}.throttle": f"{ROVER}.throttle"}
    if chain:
        decls.append(PortDecl(ROVER + "/Drive", "inputs", "throttle", "float"))
        wired = {f"{ROVER}/Drive.throttle": f"{ROVER}.throttle", f"{CONTROLLER}.throttle": f"{ROVER}/Drive.throttle"}
    backend = [(PortInfo(CONTROLLER, "throttle", "in", "float", sink_unit, -1.0, 1.0, "modelica", "user", True, True),
                math.nan)]
    reg = PortRegistry()
    reg.build(decls, backend, wired)
    return reg


def _refusal(reg: PortRegistry, value: float, prim: str = ROVER) -> str:
    with pytest.raises(PortWriteError) as err:
        reg.check_writes(prim, {"throttle": value})
    (diag,) = err.value.diagnostics
    assert diag.code == "port-out-of-bounds"
    return diag.message


def test_an_interface_port_takes_the_bounds_of_the_sink_it_drives():
    reg = _registry()
    info = reg.info(f"{ROVER}.throttle")
    assert (info.minimum, info.maximum) == (-1.0, 1.0)
    msg = _refusal(reg, 50.0)
    assert msg == (f"{ROVER}.throttle: 50 is above the maximum 1 (declared by the modelica owner of "
                   f"{CONTROLLER}.throttle, which this port drives through a wire)")
    assert "below the minimum -1" in _refusal(reg, -3.0)
    assert reg.check_writes(ROVER, {"throttle": 0.5}) == [(reg.index[f"{ROVER}.throttle"], 0.5)]
    assert reg.info(f"{ROVER}.throttle").to_json()["max_from"].startswith("declared by the modelica owner")


def test_bounds_travel_up_a_chain_of_forwarding_ports():
    reg = _registry(chain=True)
    assert (reg.info(f"{ROVER}.throttle").minimum, reg.info(f"{ROVER}.throttle").maximum) == (-1.0, 1.0)
    assert _refusal(reg, 2.0).endswith(f"{CONTROLLER}.throttle, which this port drives through a wire)")


def test_the_wire_unit_conversion_is_undone_for_the_carried_bound():
    reg = _registry(sink_unit="m/s", source_unit="km/h")  # sink = source / 3.6
    assert reg.info(f"{ROVER}.throttle").maximum == pytest.approx(3.6)
    reg.check_writes(ROVER, {"throttle": 3.5})
    assert "above the maximum 3.6" in _refusal(reg, 3.7)


def test_an_own_tighter_customdata_bound_is_kept_and_named():
    reg = _registry(source_decl_max=0.5)
    assert reg.info(f"{ROVER}.throttle").maximum == 0.5
    assert _refusal(reg, 0.75) == f"{ROVER}.throttle: 0.75 is above the maximum 0.5 (customData max of {ROVER}.inputs:throttle)"


def test_a_client_checks_a_listports_entry_the_same_way():
    reg = _registry()
    entry = reg.info(f"{ROVER}.throttle").to_json()
    assert bound_problem_json(f"{ROVER}.throttle", 50.0, entry) == _refusal(reg, 50.0)
    assert bound_problem_json(f"{ROVER}.throttle", 1.0, entry) == ""


def test_the_demo_rover_refuses_a_throttle_of_50_by_setports_and_as_a_document_edit():
    scene = repository_root() / "assets" / "twins" / "practice_yard" / "scenes" / "practice_yard.usda"
    sim = open_simulation(scene)
    for part in sim.participants:
        wait = getattr(part, "wait_for_compile", None)
        if wait is not None:
            wait(300)
    sim.run(2)
    rover = "/PracticeYard/RoverB"
    ports = {p["name"]: p for p in sim.query(ListPorts(rover)).value}
    assert (ports["throttle"]["min"], ports["throttle"]["max"]) == (-1.0, 1.0)
    results = []
    sim.submit(SetPorts(target=rover, writes={"throttle": 50}), results.append)
    sim.tick()
    assert not results[0].ok
    (diag,) = results[0].diagnostics
    assert diag.code == "port-out-of-bounds"
    # the rover asset authors its interface bounds (as its controller declares them): they are named
    assert diag.message == f"{rover}.throttle: 50 is above the maximum 1 (customData max of {rover}.inputs:throttle)"
    sim.submit(SetPorts(target=rover, writes={"throttle": 0.8}), results.append)
    sim.tick()
    assert results[1].ok
    with pytest.raises(OpError, match=r"50 is above the maximum 1 of /PracticeYard/RoverB.inputs:throttle"):
        sim.document.apply(SetAttribute(path=rover, name="inputs:throttle", value=50.0))
    assert not sim.document.dirty
