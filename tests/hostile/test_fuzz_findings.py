"""Defects the fuzz suite found, each now a regression test: the input ends in a positioned
diagnostic (what, where, why) with the documented policy (docs/physics.md, "Nonsense in,
diagnostics out"; docs/hardening.md), never an exception out of the command path."""

from __future__ import annotations

from luncosim_core.diagnostics import DiagnosticError
from luncosim_core.lint import run_lint
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.usd.validate import validate_path

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Z"\n    metersPerUnit = {mpu}\n)\ndef Xform "W"\n{{\n'
CUBE = '''    def Cube "Box" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {{
        {size}
        double3 xformOp:translate = (0, 0, 2)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }}
'''


def _project(path, *, code: str, refused: str | None = None, severity: str = "error"):
    """Validate and open + tick ``path``: the finding ``code`` at both, ``refused`` (a body or
    joint path) left out of the projection, and the scene still runs. Returns the projection's
    finding."""
    at_validate = [d for d in validate_path(path, lint=run_lint) if d.code == code]
    assert at_validate and at_validate[0].severity == severity, validate_path(path, lint=run_lint)
    sim = open_simulation(path)
    try:
        found = [d for d in sim.diagnostics if d.code == code]
        assert found and found[0].severity == severity, sim.diagnostics
        if refused is not None:
            assert refused not in set(sim.world.body_paths) | set(sim.world.joint_table()[0])
        sim.run(3)
        assert sim.fault is None
        return found[0]
    finally:
        sim.close()


def test_a_cube_size_authored_as_a_vector(tmp_path):
    scene = tmp_path / "s.usda"
    scene.write_text(HEAD.format(mpu=1) + CUBE.format(size="double3 size = (1, 2, 3)") + "}\n", encoding="utf-8")
    d = _project(scene, code="physics.attribute.type", refused="/W/Box")
    assert d.path == "/W/Box" and d.data["attribute"] == "size" and d.layer.endswith("s.usda")
    assert "double3" in d.message and "refused" in d.message


def test_a_negative_meters_per_unit(tmp_path):
    scene = tmp_path / "s.usda"
    wheel = CUBE.replace('def Cube "Box"', 'def Cylinder "Wheel"').format(size="double radius = 0.5\n        double height = 1")
    scene.write_text(HEAD.format(mpu=-5) + wheel + "}\n", encoding="utf-8")
    d = _project(scene, code="physics.units.invalid", refused="/W/Wheel")
    assert d.layer.endswith("s.usda") and d.line == 5 and "metersPerUnit = -5" in d.message
    assert "projection is refused" in d.message


def test_a_negative_radius(tmp_path):
    scene = tmp_path / "s.usda"
    wheel = CUBE.replace('def Cube "Box"', 'def Cylinder "Wheel"').format(size="double radius = -0.5\n        double height = 1")
    scene.write_text(HEAD.format(mpu=1) + wheel + "}\n", encoding="utf-8")
    d = _project(scene, code="physics.shape.invalid", refused="/W/Wheel")
    assert d.path == "/W/Wheel" and d.data["attribute"] == "radius" and "radius = -0.5" in d.message


WHEN_AT_ZERO = """model Fuzz
  Real x(start = 0);
  output Real y;
  discrete Real d(start = 0);
equation
  der(x) = (time)^((-1.0));
  y = time;
  when time > 0 then d = pre(d) + 1; end when;
end Fuzz;
"""


def test_a_step_whose_error_estimate_is_zero():
    """der(x) = 1/time is inf at t = 0: the implicit step reports an error estimate of 0 with a
    non-finite state; the retry shrinks the step (it used to raise 0 ** -0.2) until the step is
    refused with a named modelica.step diagnostic."""
    from luncosim_core.modelica import ModelicaParticipant, compile_model

    compiled = compile_model(source_text=WHEN_AT_ZERO)
    assert compiled.ok, compiled.diagnostics
    part = ModelicaParticipant(compiled, name="/Fuzz")
    try:
        for _ in range(10):
            part.step()
    except DiagnosticError as exc:
        assert exc.diagnostics[0].code.startswith("modelica.step."), exc.diagnostics


def test_a_joint_axis_that_is_no_axis(tmp_path):
    bodies = "".join(CUBE.replace('"Box"', f'"{n}"').format(size="double size = 1") for n in ("A", "B"))
    hinge = ('    def PhysicsRevoluteJoint "Hinge"\n    {\n        rel physics:body0 = </W/A>\n'
             '        rel physics:body1 = </W/B>\n        uniform token physics:axis = "-"\n    }\n')
    scene = tmp_path / "s.usda"
    scene.write_text(HEAD.format(mpu=1) + bodies + hinge + "}\n", encoding="utf-8")
    d = _project(scene, code="physics.joint.invalid-axis", refused="/W/Hinge")
    assert d.path == "/W/Hinge" and "'-'" in d.message and "X, Y or Z" in d.message


def test_an_infinite_cylinder_height(tmp_path):
    wheel = CUBE.replace('def Cube "Box"', 'def Cylinder "Wheel"').format(size="double radius = 0.3\n        double height = inf")
    scene = tmp_path / "s.usda"
    scene.write_text(HEAD.format(mpu=1) + wheel.replace('"PhysicsRigidBodyAPI", ', '"PhysicsRigidBodyAPI", "PhysicsMassAPI", ')
                     .replace("double height = inf", "double height = inf\n        uniform token axis = \"Z\"\n"
                              "        float physics:mass = 4\n        quatf physics:principalAxes = (1, 0, 0.5, 0)")
                     + "}\n", encoding="utf-8")
    d = _project(scene, code="physics.shape.invalid", refused="/W/Wheel")
    assert d.data["attribute"] == "height" and "height = inf" in d.message


TWO_INITIAL = ("model Two\n  parameter Real s0 = 0.5;\n  Real soc;\ninitial equation\n  soc = s0;\n  soc = s0;\n"
               "equation\n  der(soc) = -0.1;\nend Two;\n")


def test_two_initial_equations_for_one_state():
    """Refused at compile time (it used to raise NumericsError out of the participant)."""
    from luncosim_core.modelica import compile_model

    compiled = compile_model(source_text=TWO_INITIAL)
    assert not compiled.ok
    d = compiled.diagnostics[0]
    assert d.code == "modelica.initialization" and d.line == 1 and "soc" in d.message


def test_a_huge_meters_per_unit_with_a_density(tmp_path):
    box = CUBE.replace('"PhysicsRigidBodyAPI", ', '"PhysicsRigidBodyAPI", "PhysicsMassAPI", ').format(
        size="double size = 1\n        float physics:density = 1000")
    scene = tmp_path / "s.usda"
    scene.write_text(HEAD.format(mpu="1e120") + box + "}\n", encoding="utf-8")
    d = _project(scene, code="physics.units.extreme", refused="/W/Box")
    assert "1e+120" in d.message and d.line == 5


def test_a_crate_string_that_is_not_utf8(tmp_path):
    from pxr import Sdf

    from luncosim_core.lint import validate_lint

    text = tmp_path / "s.usda"
    text.write_text('#usda 1.0\ndef Xform "W"\n{\n    float inputs:x = 1 (\n        doc = "MARKERdoc"\n    )\n}\n',
                    encoding="utf-8")
    (tmp_path / "twin/scenes").mkdir(parents=True)
    crate = tmp_path / "twin/scenes/s.usdc"
    Sdf.Layer.FindOrOpen(str(text)).Export(str(crate))
    data = crate.read_bytes()
    at = data.find(b"MARKERdoc")
    crate.write_bytes(data[:at] + b"\xd8" + data[at + 1:])
    (tmp_path / "twin/twin.toml").write_text('name = "t"\n[usd]\ndefault_scene = "scenes/s.usdc"\n', encoding="utf-8")
    diags = validate_path(tmp_path / "twin", lint=validate_lint)  # a list of diagnostics, never an exception
    assert any("not UTF-8 text" in d.message for d in diags), diags
