"""Compiling: interface with units and bounds, diagnostics with positions, packages, purity."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import pytest

from luncosim_core.modelica import ModelicaParticipant, compile_model

from .conftest import LIBRARY, lib_model

SPRING = """model Spring "mass on a spring"
  parameter Real m(unit = "kg", min = 0) = 2.0 "mass";
  parameter Real k(unit = "N/m", min = 0, max = 1000) = 8.0 "stiffness";
  input Real F(unit = "N") "external force";
  output Real pos(unit = "m") "position";
  Real x(start = 0.5, fixed = true, unit = "m");
  Real v(start = 0, fixed = true, unit = "m/s");
equation
  der(x) = v;
  m * der(v) = -k * x + F;
  pos = x;
end Spring;
"""


def test_interface_reports_units_bounds_descriptions_and_starts(write_model):
    cm = compile_model(write_model("Spring", SPRING))
    assert cm.ok, cm.diagnostics
    assert cm.model_name == "Spring"
    itf = cm.interface
    assert [(v.name, v.unit, v.description) for v in itf.inputs] == [("F", "N", "external force")]
    assert [(v.name, v.unit) for v in itf.outputs] == [("pos", "m")]
    k = itf.parameter("k")
    assert (k.unit, k.min, k.max, k.start, k.description) == ("N/m", 0.0, 1000.0, 8.0, "stiffness")
    assert {v.name: v.start for v in itf.states} == {"x": 0.5, "v": 0.0}


def test_syntax_error_reports_line_and_column(write_model):
    bad = SPRING.replace('unit = "m/s");', 'unit = "m/s")')  # missing semicolon
    cm = compile_model(write_model("Spring", bad))
    assert not cm.ok
    d = cm.diagnostics[0]
    assert d.severity == "error" and d.code == "modelica.syntax"
    assert d.layer.endswith("Spring.mo")
    assert d.line == 8 and d.column == 1  # the `equation` keyword after the broken line


def test_unresolved_name_is_located(write_model):
    bad = SPRING.replace("pos = x;", "pos = xx;")
    cm = compile_model(write_model("Spring", bad))
    assert not cm.ok
    d = cm.diagnostics[0]
    assert d.code == "modelica.unresolved" and "'xx'" in d.message
    assert (d.line, d.column) == (11, 9)


def test_compile_of_source_text_overrides_file_content(write_model):
    path = write_model("Spring", SPRING)
    edited = SPRING.replace('output Real pos(unit = "m") "position";',
                            'output Real pos(unit = "m") "position";\n  output Real speed(unit = "m/s");')
    edited = edited.replace("pos = x;", "pos = x;\n  speed = v;")
    cm = compile_model(path, source_text=edited)
    assert cm.ok, cm.diagnostics
    assert [v.name for v in cm.interface.outputs] == ["pos", "speed"]
    assert cm.source_path == path.resolve()


def test_event_constructs_compile(write_model):
    text = """model Bouncy
  Real h(start = 1, fixed = true);
  Real v(start = 0, fixed = true);
equation
  der(h) = v;
  der(v) = -9.81;
  when h < 0 then
    reinit(v, -0.8 * pre(v));
  end when;
end Bouncy;
"""
    cm = compile_model(write_model("Bouncy", text))
    assert cm.ok, cm.diagnostics
    assert cm.diagnostics == ()  # events are handled: no "unlocated crossing" note any more


@pytest.mark.parametrize("body, what, line", [
    ("  y = delay(x, 0.1);", "delay()", 7),
    ("  y = sample(x, c);", "clocked", 7),
])
def test_unsupported_event_constructs_are_rejected_with_a_located_diagnostic(write_model, body,
                                                                              what, line):
    text = f"""model D
  Real x(start = 0, fixed = true);
  discrete Real y;
  Clock c = Clock(0.1);
equation
  der(x) = 1;
{body}
end D;
"""
    if what == "delay()":
        text = text.replace("discrete Real y;", "Real y;").replace("Clock c = Clock(0.1);", "parameter Real c = 0;")
    cm = compile_model(write_model("D", text))
    assert not cm.ok
    d = cm.diagnostics[0]
    assert d.code == "modelica.unsupported.events"
    assert what in d.message and d.line == line


def test_unbalanced_model_is_an_error_not_an_exception(write_model):
    text = "model U\n  Real x(start = 1);\n  Real y;\nequation\n  der(x) = -x;\nend U;\n"
    cm = compile_model(write_model("U", text))
    assert not cm.ok
    assert cm.diagnostics[0].code == "modelica.unbalanced"
    assert "unbalanced" in cm.diagnostics[0].message
    assert (cm.diagnostics[0].line, cm.diagnostics[0].column) == (1, 7)  # the class name


def test_unconnected_physical_connector_names_the_free_variable():
    cm = compile_model(lib_model("Workbench/Electrical/Ground.mo"))
    assert cm.ok  # grounds its own pin: balanced
    cm = compile_model(lib_model("Workbench/Electrical/Resistor.mo"))
    assert not cm.ok
    assert cm.diagnostics[0].code == "modelica.index"
    assert "component" in cm.diagnostics[0].message


def test_package_within_extends_connectors_and_bundled_msl_subset():
    # RCCircuit: within, extends OnePort, connectors with flow, connect(), SI types from the
    # bundled Modelica subset, component modifiers R(R = R).
    cm = compile_model(lib_model("Workbench/Electrical/RCCircuit.mo"))
    assert cm.ok, cm.diagnostics
    assert cm.model_name == "Workbench.Electrical.RCCircuit"
    assert {v.name: v.unit for v in cm.interface.outputs} == {"v_cap": "V", "current": "A"}
    assert cm.interface.input("V_supply").unit == "V"


def test_arrays_and_for_equations_scalarize():
    cm = compile_model(lib_model("Workbench/Electrical/RCLadder.mo"))
    assert cm.ok, cm.diagnostics
    assert [v.name for v in cm.interface.states] == ["v[1]", "v[2]", "v[3]", "v[4]"]


def test_model_importing_msl_from_a_user_file(write_model):
    text = """model Rad
  import Modelica.Units.SI;
  import Modelica.Constants.sigma;
  parameter SI.Area A = 1;
  input SI.HeatFlowRate q;
  output SI.Temperature T(start = 250, fixed = true);
equation
  1000 * der(T) = q - A * sigma * T^4;
end Rad;
"""
    cm = compile_model(write_model("Rad", text))
    assert cm.ok, cm.diagnostics
    assert cm.interface.output("T").unit == "K"
    assert cm.interface.input("q").unit == "W"


def test_compile_is_pure_and_thread_safe():
    path = lib_model("Workbench/Rover/DriveController.mo")
    first = compile_model(path)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: compile_model(path), range(4)))
    for cm in results:
        assert cm.ok and cm.interface == first.interface and cm.source_hash == first.source_hash


def test_missing_file_is_a_diagnostic(tmp_path):
    cm = compile_model(tmp_path / "nope.mo")
    assert not cm.ok and cm.diagnostics[0].code == "modelica.source"


def test_library_root_option_finds_packages_outside_the_bundle(tmp_path):
    lib = tmp_path / "lib" / "Extra"
    lib.mkdir(parents=True)
    (lib / "package.mo").write_text("within;\npackage Extra\n  constant Real two = 2;\nend Extra;\n")
    model = tmp_path / "user" / "UseExtra.mo"
    model.parent.mkdir()
    model.write_text("model UseExtra\n  output Real y;\nequation\n  y = Extra.two;\nend UseExtra;\n")
    assert not compile_model(model).ok
    cm = compile_model(model, library_roots=[tmp_path / "lib"])
    assert cm.ok, cm.diagnostics
    assert LIBRARY.is_dir()


def test_stale_copy_of_the_class_in_the_same_folder_does_not_break_compile(write_model):
    path = write_model("Spring", SPRING)
    (path.parent / "Spring_backup.mo").write_text(SPRING.replace("8.0", "9.0"))
    cm = compile_model(path)
    assert cm.ok, cm.diagnostics
    assert cm.interface.parameter("k").start == 8.0


def test_editor_buffer_without_a_file_compiles():
    cm = compile_model(source_text="model A\n  output Real y(unit = \"m\");\nequation\n  y = 1;\nend A;\n")
    assert cm.ok and cm.model_name == "A"
    empty = compile_model(source_text="")
    assert not empty.ok and empty.diagnostics[0].severity == "error"


def test_a_buffer_redefining_a_class_compiled_earlier_in_the_process_compiles(write_model):
    """A cached session keeps what it loaded: a later buffer with another definition of the same
    class (an edited model, or a test harness wrapping it) is compiled on its own, not refused."""
    path = write_model("Spring", SPRING)
    assert compile_model(path).ok
    edited = SPRING.replace("8.0", "9.0")
    again = compile_model(source_text=edited, model_name="Spring", library_roots=[])
    assert again.ok, again.diagnostics
    assert again.interface.parameter("k").start == 9.0
    wrapped = compile_model(source_text=SPRING + "model Wrap\n  Spring s(F = 1.0);\nend Wrap;\n",
                            model_name="Wrap", library_roots=[])
    assert wrapped.ok, wrapped.diagnostics


def test_a_full_msl_root_shadows_the_bundled_subset(tmp_path):
    msl = tmp_path / "msl" / "Modelica"
    msl.mkdir(parents=True)
    (msl / "package.mo").write_text(
        "within;\npackage Modelica\n  package Constants\n    final constant Real tau = 6.28;\n"
        "  end Constants;\nend Modelica;\n")
    src = "model Q\n  output Real y;\nequation\n  y = Modelica.Constants.{name};\nend Q;\n"
    assert compile_model(source_text=src.format(name="sigma")).ok  # bundled subset
    assert compile_model(source_text=src.format(name="tau"), library_roots=[tmp_path / "msl"]).ok
    shadowed = compile_model(source_text=src.format(name="sigma"), library_roots=[tmp_path / "msl"])
    assert not shadowed.ok and shadowed.diagnostics[0].line == 4


def test_packages_and_connectors_are_not_models():
    pkg = "package P\n  model A\n    output Real y;\n  equation\n    y = 1;\n  end A;\nend P;\n"
    cm = compile_model(source_text=pkg)
    assert not cm.ok and cm.diagnostics[0].code == "modelica.not_a_model"
    assert "package" in cm.diagnostics[0].message and cm.diagnostics[0].line == 1
    assert compile_model(source_text=pkg, model_name="P.A").ok
    conn = compile_model(lib_model("Workbench/Interfaces/Pin.mo"))
    assert not conn.ok and "connector" in conn.diagnostics[0].message


def test_string_parameters_are_left_out_of_the_numeric_interface():
    src = 'model S\n  parameter String label = "x";\n  output Real y;\nequation\n  y = 1;\nend S;\n'
    cm = compile_model(source_text=src)
    assert cm.ok and cm.interface.parameters == ()


def test_compiling_in_workers_while_the_sim_thread_builds_step_functions():
    drive = compile_model(lib_model("Workbench/Rover/DriveController.mo"))
    paths = [lib_model(p) for p in ("Workbench/Power/Battery.mo", "Workbench/Electrical/RCCircuit.mo",
                                    "Workbench/Control/PIDAxis.mo", "Workbench/Electrical/RCLadder.mo")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(compile_model, p) for p in paths * 2]
        finals = []
        for substeps in (5, 6, 7, 8, 9, 10):  # each needs a freshly built step function
            p = ModelicaParticipant(drive, substeps=substeps, method="rk4")
            p.set_inputs({"throttle": 1.0})
            for _ in range(30):
                p.step()
            finals.append(p.outputs()["torque_left"])
        results = [f.result() for f in futures]
    assert all(cm.ok for cm in results)
    expected = 40.0 * (1 - math.exp(-0.5 / 0.15))
    assert finals == pytest.approx([expected] * 6, abs=1e-6)


def test_model_name_comes_from_within_and_the_first_real_class(write_model):
    text = ('// model Fake in a comment\n/* block Nope */\nmodel Real1 "doc: model X"\n'
            '  output Real y;\nequation\n  // y = nope;\n  y = z;\nend Real1;\n')
    cm = compile_model(write_model("Real1", text))
    assert cm.model_name == "Real1"
    d = cm.diagnostics[0]
    assert d.code == "modelica.unresolved" and (d.line, d.column) == (7, 7)
