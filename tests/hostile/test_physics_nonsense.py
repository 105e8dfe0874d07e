"""Silent nonsense in physics: each gets a positioned diagnostic at validate time (lint) and at
projection, and the documented policy (docs/physics.md): refuse the body / joint, or warn."""

from __future__ import annotations

import pytest

from luncosim_core.lint import run_lint
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.usd.validate import validate_path

HEAD = '#usda 1.0\n(\n    defaultPrim = "W"\n    upAxis = "Z"\n    metersPerUnit = 1\n)\ndef Xform "W"\n{\n'
GROUND = '''    def Cube "Ground" (prepend apiSchemas = ["PhysicsCollisionAPI"])
    {
        double size = 1
        double3 xformOp:translate = (0, 0, -0.5)
        double3 xformOp:scale = (50, 50, 1)
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }
'''


def body(name: str, mass: str = "2", translate: str = "(0, 0, 2)", scale: str = "(1, 1, 1)") -> str:
    return f'''    def Cube "{name}" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI", "PhysicsMassAPI"])
    {{
        double size = 1
        float physics:mass = {mass}
        double3 xformOp:translate = {translate}
        double3 xformOp:scale = {scale}
        uniform token[] xformOpOrder = ["xformOp:translate", "xformOp:scale"]
    }}
'''


def joint(body0: str, body1: str = "/W/Rover") -> str:
    return f'''    def PhysicsRevoluteJoint "Hinge"
    {{
        rel physics:body0 = <{body0}>
        rel physics:body1 = <{body1}>
        uniform token physics:axis = "X"
    }}
'''


MESH = '''    def Mesh "Rover" (prepend apiSchemas = ["PhysicsRigidBodyAPI", "PhysicsCollisionAPI"])
    {
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, nan)]
        double3 xformOp:translate = (0, 0, 2)
        uniform token[] xformOpOrder = ["xformOp:translate"]
    }
'''

CASES = {
    # name: (scene body, code, severity, refused prim or None)
    "mass zero": (body("Rover", mass="0"), "physics.mass.zero", "warning", None),
    "mass tiny": (body("Rover", mass="1e-30"), "physics.mass.tiny", "warning", None),
    "mass negative": (body("Rover", mass="-5"), "physics.mass.invalid", "error", "/W/Rover"),
    "mass nan": (body("Rover", mass="nan"), "physics.mass.invalid", "error", "/W/Rover"),
    "mass huge": (body("Rover", mass="1e30"), "physics.mass.extreme", "error", "/W/Rover"),
    "transform nan": (body("Rover", translate="(nan, 0, 2)"), "physics.transform.nonfinite", "error", "/W/Rover"),
    "scale zero": (body("Rover", scale="(1, 0, 1)"), "physics.scale.degenerate", "error", "/W/Rover"),
    "scale huge": (body("Rover", scale="(1e9, 1, 1)"), "physics.scale.extreme", "error", "/W/Rover"),
    "scale 1e308": (body("Rover", scale="(1.6, -1e308, 1)"), "physics.scale.extreme", "error", "/W/Rover"),
    "op order naming no op": (body("Rover").replace('["xformOp:translate", "xformOp:scale"]', '["xformOp:bogus"]'),
                              "physics.transform.invalid", "error", "/W/Rover"),
    "joint to a scope": (body("Rover") + '    def Scope "Marker" {}\n' + joint("/W/Marker"),
                         "joint-target-not-a-body", "error", "/W/Hinge"),
    "joint to itself": (body("Rover") + joint("/W/Rover"), "physics.joint.self", "error", "/W/Hinge"),
    "joint body0 an attribute": (body("Rover") + joint("/W/Rover").replace("rel physics:body0 = </W/Rover>",
                                                                          "float physics:body0 = 0"),
                                 "physics.joint.invalid-target", "error", "/W/Hinge"),
    "joint to a refused body": (body("Rover") + body("Bad", mass="nan", translate="(3, 0, 2)") + joint("/W/Bad"),
                                "physics.joint.body-refused", "error", "/W/Hinge"),
    "size zero": (body("Rover").replace("double size = 1", "double size = 0"), "physics.shape.invalid", "error",
                  "/W/Rover"),
    "size over the extent limit": (body("Rover").replace("double size = 1", "double size = 1e7"),
                                   "physics.shape.extreme", "error", "/W/Rover"),
    "size a vector": (body("Rover").replace("double size = 1", "double3 size = (1, 2, 3)"), "physics.attribute.type",
                      "error", "/W/Rover"),
    "mass a vector": (body("Rover").replace("float physics:mass = 2", "float3 physics:mass = (1, 2, 3)"),
                      "physics.mass.invalid", "error", "/W/Rover"),
    "velocity nan": (body("Rover").replace("double size = 1", "double size = 1\n        vector3f physics:velocity = (nan, 0, 0)"),
                     "physics.attribute.nonfinite", "error", "/W/Rover"),
    "mesh point nan": (MESH, "physics.attribute.nonfinite", "error", "/W/Rover"),
    "joint frame nan": (body("Rover") + body("Arm", translate="(3, 0, 2)")
                        + joint("/W/Arm").replace('uniform token physics:axis = "X"',
                                                  'uniform token physics:axis = "X"\n        point3f physics:localPos0 = (nan, 0, 0)'),
                        "physics.attribute.nonfinite", "error", "/W/Hinge"),
    "joint axis no axis": (body("Rover") + body("Arm", translate="(3, 0, 2)")
                           + joint("/W/Arm").replace('physics:axis = "X"', 'physics:axis = "W"'),
                           "physics.joint.invalid-axis", "error", "/W/Hinge"),
    "scene gravity nan": (body("Rover") + '    def PhysicsScene "Scene"\n    {\n        vector3f physics:gravityDirection = '
                          '(nan, 0, -1)\n        float physics:gravityMagnitude = 1.62\n    }\n',
                          "physics.attribute.nonfinite", "error", "/W/Scene"),
    "material friction nan": (body("Rover") + '    def Material "Mat" (prepend apiSchemas = ["PhysicsMaterialAPI"])\n    {\n'
                              '        float physics:staticFriction = nan\n    }\n',
                              "physics.attribute.nonfinite", "error", "/W/Mat"),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("nonsense")


@pytest.mark.parametrize("case", list(CASES))
def test_physics_nonsense_is_named_at_validate_and_at_projection(folder, case):
    text, code, severity, refused = CASES[case]
    scene = folder / (case.replace(" ", "_") + ".usda")
    scene.write_text(HEAD + GROUND + text + "}\n", encoding="utf-8")
    at_validate = [d for d in validate_path(scene, lint=run_lint) if d.code == code]
    assert at_validate and at_validate[0].severity == severity, validate_path(scene, lint=run_lint)
    d = at_validate[0]
    assert d.path.startswith("/W/") and d.layer.endswith(scene.name) and d.path in d.message
    sim = open_simulation(scene)
    try:
        at_projection = [x for x in sim.diagnostics if x.code == code]
        assert [(x.severity, x.path) for x in at_projection] == [(d.severity, d.path)]
        paths = set(sim.world.body_paths) | set(sim.world.joint_table()[0])
        if refused is None or refused in ("/W/Scene", "/W/Mat"):  # a scene or material is ignored alone
            assert "/W/Rover" in paths
        if refused is not None:
            assert refused not in paths and "refused" in at_projection[0].message
        if refused == "/W/Hinge":
            assert "/W/Rover" in sim.world.body_paths  # the body stays, free: never pinned to the world
        sim.run(30)
        assert sim.fault is None  # nothing left the world at (nan, nan, nan)
    finally:
        sim.close()


FIND_CORRUPTIONS = r"""
import json, os, resource, signal, sys
from pxr import Sdf, Tf
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crashing child writes no core file
data = open(sys.argv[1], "rb").read()
found = {}
for start in range(64, len(data) - 16, 8):
    bad = data[:start] + bytes((start * 7 + i * 31) % 256 for i in range(16)) + data[start + 16:]
    probe = sys.argv[1] + f".{start}.usdc"
    open(probe, "wb").write(bad)
    pid = os.fork()
    if pid == 0:  # the child reads it; it may crash
        signal.alarm(2)  # some corruptions only make USD slow: not what this test is after
        try:
            with Tf.DiagnosticTrap() as trap:
                layer = Sdf.Layer.OpenAsAnonymous(probe)
                if layer is not None:
                    layer.ExportToString()
                trap.Clear()
            os._exit(0)
        except Tf.ErrorException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    slow = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM
    kind = None if slow else "crash" if os.WIFSIGNALED(status) else "error" if os.WEXITSTATUS(status) else None
    if kind and kind not in found:
        found[kind] = start
    os.unlink(probe)
    if len(found) == 2:
        break
print(json.dumps(found))
"""


def _corruptions(good) -> dict[str, bytes]:
    """Corruptions of a crate file found by a fixed series of 16-byte overwrites, each tried in a
    forked child: the first that USD reports as an error and the first that crashes it."""
    import json
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", FIND_CORRUPTIONS, str(good)], capture_output=True, timeout=300)
    found = json.loads(r.stdout.decode().strip().splitlines()[-1])
    data = good.read_bytes()
    return {kind: data[:s] + bytes((s * 7 + i * 31) % 256 for i in range(16)) + data[s + 16:]
            for kind, s in found.items()}


def test_a_corrupt_usdc_is_a_diagnostic_for_validate_and_run(tmp_path):
    from pxr import Sdf

    from tests.hostile.test_files import luncosim

    good = tmp_path / "g.usda"
    points = ", ".join(f"({i}, {i % 7}, {i % 3})" for i in range(200))
    good.write_text(HEAD + GROUND + body("Rover") + f'    def Mesh "M"\n    {{\n        point3f[] points = [{points}]\n    }}\n}}\n',
                    encoding="utf-8")
    Sdf.Layer.FindOrOpen(str(good)).Export(str(tmp_path / "g.usdc"))
    corrupt = _corruptions(tmp_path / "g.usdc")
    assert "error" in corrupt  # "Corrupt asset" (and, on this USD, usually a crash too)
    for kind, data in corrupt.items():
        t = tmp_path / kind
        (t / "scenes").mkdir(parents=True)
        (t / "twin.toml").write_text('name = "t"\n[usd]\ndefault_scene = "scenes/s.usdc"\n', encoding="utf-8")
        (t / "scenes/s.usdc").write_bytes(data)
        errors = [d for d in validate_path(t, lint=run_lint) if d.is_error]  # in this process: never crashes
        assert [d.code for d in errors] == ["usd-malformed-layer"], (kind, errors)
        assert errors[0].layer.endswith("s.usdc") and "not a valid USD file" in errors[0].message
        if kind == "crash":
            assert "crashed" in errors[0].message
        r = luncosim("run", "--scene", str(t), "--ticks", "2")
        assert r.returncode == 1 and "usd-malformed-layer" in r.out + r.err and "s.usdc" in r.out + r.err


@pytest.mark.parametrize(("key", "value", "code"), [
    ("metersPerUnit", "nan", "physics.units.invalid"), ("metersPerUnit", "0", "physics.units.invalid"),
    ("metersPerUnit", "-1", "physics.units.invalid"), ("metersPerUnit", "1e9", "physics.units.extreme"),
    ("metersPerUnit", "1e-9", "physics.units.extreme"), ("kilogramsPerUnit", "inf", "physics.units.invalid"),
    ("kilogramsPerUnit", "0", "physics.units.invalid"), ("kilogramsPerUnit", "1e300", "physics.units.extreme")])
def test_stage_units_out_of_range_refuse_the_projection(folder, key, value, code):
    """docs/physics.md: metersPerUnit and kilogramsPerUnit must be finite, in [1e-6, 1e6]; else the
    physics projection is refused whole (an error at the layer's line), and the rest runs."""
    head = HEAD.replace("metersPerUnit = 1", f"{key} = {value}" if key == "metersPerUnit"
                        else f"metersPerUnit = 1\n    {key} = {value}")
    scene = folder / f"units_{key}_{value}.usda"
    scene.write_text(head + GROUND + body("Rover") + "}\n", encoding="utf-8")
    line = next(i for i, t in enumerate(head.splitlines(), 1) if t.strip().startswith(key))
    at_validate = [d for d in validate_path(scene, lint=run_lint) if d.code == code]
    assert at_validate and at_validate[0].is_error and at_validate[0].line == line
    assert at_validate[0].layer.endswith(scene.name) and key in at_validate[0].message
    sim = open_simulation(scene)
    try:
        errors = [d for d in sim.diagnostics if d.is_error]
        assert [d.code for d in errors] == [code] and "projection is refused" in errors[0].message
        assert sim.world.body_paths == ()
        sim.run(5)
        assert sim.fault is None
    finally:
        sim.close()


def test_the_mass_limit_applies_in_kilograms(folder):
    """kilogramsPerUnit = 1000: physics:mass = 2e6 is 2e9 kg, over the limit; 2e3 is kept."""
    head = HEAD.replace("metersPerUnit = 1", "metersPerUnit = 1\n    kilogramsPerUnit = 1000")
    scene = folder / "kpu.usda"
    scene.write_text(head + GROUND + body("Rover", mass="2e3") + body("Heavy", mass="2e6", translate="(3, 0, 2)")
                     + "}\n", encoding="utf-8")
    found = [d for d in validate_path(scene, lint=run_lint) if d.code.startswith("physics.mass")]
    assert [(d.code, d.path) for d in found] == [("physics.mass.extreme", "/W/Heavy")]
    assert "2e+09 kg" in found[0].message
    sim = open_simulation(scene)
    try:
        assert sim.world.body_paths == ("/W/Rover",)
        assert sim.world.read_port("/W/Rover", "mass") == pytest.approx(2e6)
    finally:
        sim.close()
