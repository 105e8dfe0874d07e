"""The live layer's pure helpers: which variable labels a wire, a slider's range, which class runs."""

from __future__ import annotations

from luncosim_core.modelica.syntax.resolve import Connector
from luncosim_workbench.panels.diagram.live import (
    component_of,
    fmt,
    model_matches,
    potential_variable,
    slider_problem,
    slider_span,
)

PIN = Connector("p", "Pin", True, (("i", "flow", "Real"), ("v", "", "Real")))
SIGNAL = Connector("y", "RealOutput", False, base="Real", causality="output")


def test_a_wire_is_labelled_by_the_potential_of_a_physical_end_or_by_its_signal():
    assert potential_variable("resistor.p", PIN) == "resistor.p.v"  # not the flow
    assert potential_variable("wave.y", SIGNAL) == "wave.y"
    assert potential_variable("pipe.port", Connector("port", "Flow", True, (("m", "flow", "Real"),))) is None
    assert potential_variable("x", None) is None


def test_slider_range_from_min_max_else_around_the_value():
    assert slider_span({"value": 0.6, "min": -1.0, "max": 1.0}) == (-1.0, 1.0)
    assert slider_span({"value": 5.0}) == (0.0, 10.0)
    assert slider_span({"value": 0.2}) == (-0.8, 1.2)
    assert slider_span({"value": 3.0, "min": 0.0}) == (0.0, 6.0)
    lo, hi = slider_span({"value": None, "max": 2.0})
    assert hi == 2.0 and lo < hi


def test_slider_problems_and_names():
    assert slider_problem({"port": {"name": "u", "writable": True}}, "/P", "u") == ""
    assert "driven by wire:/A.y" in slider_problem({"port": {"name": "u", "writable": False, "authority": "wire:/A.y"}}, "/P", "u")
    assert "not a port of /P" in slider_problem({}, "/P", "u")
    assert model_matches("Workbench.Rover.DriveController", "DriveController")
    assert not model_matches("Workbench.Rover.DriveController", "Controller") and not model_matches("X", None)
    assert component_of("a[2].p.v") == "a" and component_of("throttle") == ""
    assert fmt(2.31234, "V") == "2.312 V" and fmt(0.5, "1") == "0.5" and fmt(None) == "—"
