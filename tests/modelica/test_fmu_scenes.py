"""FMU program prims in scenes: typed ports under the registry's type rules, array ports, fixed
parameters authored in the scene, a participant that waited steps at the scene's time (FMU and
Modelica), and ``luncosim run`` exiting 1 when a program cannot load."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from luncosim_core.api import ApplyOp, SetPorts
from luncosim_core.sim.simulation import open_simulation
from luncosim_core.twin.roots import MOUNT_PREFIX
from luncosim_core.usd.ops import SetConnection

from .fmu_build import build_c_fmu3, build_pythonfmu, foreign_fmu3
from .test_fmu_typed import COUNTER2

HEAD = """#usda 1.0
(
    defaultPrim = "W"
    metersPerUnit = 1
)
def Xform "W"
{
"""


def program(name: str, fmu: str, body: str) -> str:
    return f"""    def Scope "{name}" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {{
        uniform asset info:sourceAsset = @{fmu}@
{body}
    }}
"""


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fmus")
    return {"Counter2": build_pythonfmu(folder, "counter2.py", COUNTER2),
            "Typed3": build_c_fmu3(folder, "Typed3")}


@pytest.fixture
def scene(tmp_path, fmus, writer):
    """Write a scene next to copies of the test FMUs and open it."""
    for fmu in fmus.values():
        shutil.copy(fmu, tmp_path / fmu.name)
    opened = []

    def _open(*prims: str):
        path = writer(tmp_path / "scene.usda", HEAD + "".join(prims) + "}\n")
        sim = open_simulation(path)
        sim.wait_until_ready(60)
        opened.append(sim)
        return sim

    yield _open
    for sim in opened:
        sim.close()


def errors(sim) -> list:
    return [d for d in sim.diagnostics if d.is_error]


def test_integer_and_boolean_ports_and_a_fixed_parameter_authored_in_the_scene(scene):
    sim = scene(program("Counter", "Counter2.fmu", """
        int inputs:step_by = 2
        bool inputs:enable = true
        double inputs:offset = 5
        int outputs:count
        bool outputs:odd
        double outputs:level
        double outputs:clock"""))
    assert errors(sim) == []
    reg = sim.registry
    assert {n: reg.info(f"/W/Counter.{n}").type for n in ("step_by", "enable", "count", "odd", "level")} == {
        "step_by": "int", "enable": "bool", "count": "int", "odd": "bool", "level": "double"}
    sim.run(6)
    assert (sim.read("/W/Counter", "count"), sim.read("/W/Counter", "odd")) == (12.0, 0.0)
    assert sim.read("/W/Counter", "level") == 17.0  # the fixed offset applied at initialization
    assert sim.read("/W/Counter", "clock") == pytest.approx(sim.time, abs=1e-12)
    refused = sim.execute(SetPorts(target="/W/Counter", writes={"step_by": 2.5}))
    assert not refused.ok and refused.diagnostics[0].code == "port-type"
    assert sim.execute(SetPorts(target="/W/Counter", writes={"step_by": 3, "enable": True})).ok
    sim.run(1)
    assert sim.read("/W/Counter", "count") == 15.0
    # a fixed parameter cannot change during the run: reported, the port reverts, the run goes on
    assert sim.execute(SetPorts(target="/W/Counter", writes={"offset": 7.0})).ok
    sim.run(1)
    fixed = [d for d in sim.snapshot().diagnostics if d.code == "modelica.parameter.fixed"]
    assert fixed and fixed[0].path == "/W/Counter.inputs:offset" and sim.fault is None
    assert sim.read("/W/Counter", "offset") == 5.0
    assert sim.read("/W/Counter", "level") == 5.0 + 18.0


def test_type_rules_widening_carried_integers_and_narrowing(scene):
    sim = scene(program("Counter", "Counter2.fmu", """
        double inputs:step_by = 1
        double outputs:count
        bool outputs:level"""))
    reg = sim.registry
    assert reg.info("/W/Counter.count").type == "double"  # an Int32 output in a double port: widening
    step_by = reg.info("/W/Counter.step_by")
    assert (step_by.type, step_by.carries) == ("double", "int")
    refused = sim.execute(SetPorts(target="/W/Counter", writes={"step_by": 2.5}))
    assert not refused.ok and "feeds an int value" in refused.diagnostics[0].message
    assert sim.execute(SetPorts(target="/W/Counter", writes={"step_by": 4.0})).ok
    narrowing = [d for d in errors(sim) if d.code == "port-type-narrowing"]
    assert len(narrowing) == 1 and "/W/Counter.level" in narrowing[0].message
    assert reg.info("/W/Counter.level").type == "double"  # the port keeps the owner's type


def test_float32_and_array_ports(scene):
    sim = scene(program("T", "Typed3.fmu", """
        float inputs:u32 = 0.5
        float inputs:gain = 4
        double[] inputs:v = [1, 2, 3]
        double[] inputs:scale = [2, 3]
        float outputs:y32
        double[] outputs:w
        double[] outputs:grid"""))
    assert errors(sim) == [] and not [d for d in sim.diagnostics if d.code == "port-not-scalar"]
    ports = {p.name for p in sim.registry.ports_of("/W/T")}
    assert {"v[1]", "v[3]", "w[1]", "w[2]", "w[3]", "grid[1,1]", "grid[2,2]", "scale[2]"} <= ports
    assert sim.registry.info("/W/T.y32").type == "float"
    sim.run(2)
    assert sim.read("/W/T", "y32") == 2.0  # fixed Float32 gain authored in the scene
    assert [sim.read("/W/T", f"w[{i}]") for i in (1, 2, 3)] == [2.0, 4.0, 6.0]
    assert sim.read("/W/T", "grid[2,2]") == 6.0
    assert sim.execute(SetPorts(target="/W/T", writes={"v[2]": 7.0, "scale[1]": 5.0})).ok
    sim.run(1)
    assert (sim.read("/W/T", "w[2]"), sim.read("/W/T", "grid[1,2]")) == (14.0, 10.0)


def test_array_port_with_the_wrong_number_of_values_is_an_interface_error(scene):
    sim = scene(program("T", "Typed3.fmu", """
        double[] inputs:v = [1, 2]
        double[] outputs:nothing"""))
    codes = {(d.code, d.path) for d in errors(sim)}
    assert ("modelica.interface.shape", "/W/T.inputs:v") in codes
    assert ("modelica.interface.missing", "/W/T.outputs:nothing") in codes


def test_a_participant_that_waited_steps_at_the_scenes_time(scene):
    sim = scene("""    def Scope "Src"
    {
        double outputs:level
        double outputs:later
    }
""", program("T", "Typed3.fmu", """
        double inputs:uin.connect = </W/Src.outputs:level>
        double outputs:x
        double outputs:clock"""), """    def Scope "Ctl" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform string info:sourceCode = "model Clk\\n  input Real u;\\n  output Real clock;\\n  output Real y(start = 0, fixed = true);\\nequation\\n  clock = time;\\n  der(y) = u;\\nend Clk;\\n"
        double inputs:u.connect = </W/Src.outputs:level>
        double outputs:clock
        double outputs:y
    }
""")
    assert errors(sim) == []
    fmu = next(p for p in sim.participants if p.prim_path == "/W/T")
    mo = next(p for p in sim.participants if p.prim_path == "/W/Ctl")
    sim.run(30)
    assert sim.read("/W/T", "x") is None and "waiting for input uin" in sim.snapshot().extra["waits"]["/W/T"]
    sim.submit(SetPorts(target="/W/Src", writes={"level": 1.0}))
    sim.run(90)
    assert sim.time == 2.0
    for part in (fmu, mo):  # both start at the scene's time when their input arrives
        assert part.participant.time == sim.time
    assert sim.read("/W/T", "clock") == pytest.approx(2.0, abs=1e-12)
    assert sim.read("/W/Ctl", "clock") == pytest.approx(2.0, abs=1e-12)
    assert sim.read("/W/T", "x") == pytest.approx(1.5, abs=1e-12)  # 90 steps of 1/60 with uin = 1
    assert sim.read("/W/Ctl", "y") == pytest.approx(1.5, abs=1e-9)
    # rewired to a source with no sample yet: both wait, then catch up holding their last input
    sim.execute(ApplyOp(SetConnection(path="/W/T", name="inputs:uin", sources=("/W/Src.outputs:later",),
                                      type_name="double")))
    sim.execute(ApplyOp(SetConnection(path="/W/Ctl", name="inputs:u", sources=("/W/Src.outputs:later",),
                                      type_name="double")))
    sim.run(12)
    assert sim.read("/W/T", "x") == pytest.approx(1.5, abs=1e-12)  # held while waiting
    sim.submit(SetPorts(target="/W/Src", writes={"later": 3.0}))
    sim.run(6)
    expected = 1.5 + 12 / 60 * 1.0 + 6 / 60 * 3.0
    assert sim.read("/W/T", "x") == pytest.approx(expected, abs=1e-12)
    assert sim.read("/W/Ctl", "y") == pytest.approx(expected, abs=1e-9)
    for part in (fmu, mo):
        assert part.participant.time == sim.time
    assert sim.read("/W/T", "clock") == pytest.approx(sim.time, abs=1e-12)


def test_an_fmu_that_ends_the_simulation_holds_its_outputs_and_the_scene_runs_on(scene):
    sim = scene(program("T", "Typed3.fmu", """
        double inputs:stop_after = 0.1
        double inputs:uin = 1
        double outputs:x"""))
    sim.run(12)
    assert sim.fault is None and sim.tick_count == 12
    assert sim.read("/W/T", "x") == pytest.approx(0.1, abs=1e-12)  # stopped after 6 steps
    ended = [d for d in sim.snapshot().diagnostics if d.code == "fmu.terminated"]
    assert len(ended) == 1 and ended[0].severity == "warning"
    assert "ended the simulation" in sim.snapshot().extra["waits"]["/W/T"]


def test_run_exits_1_when_a_program_cannot_load(tmp_path, writer, monkeypatch, capsys):
    from luncosim_core.cli import main

    foreign_fmu3(tmp_path, "Typed3", ("x86_64-windows",)).rename(tmp_path / "Foreign.fmu")
    scene = writer(tmp_path / "scene.usda", HEAD + program("T", "Foreign.fmu", "        double outputs:x") + "}\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert main(["run", "--scene", str(scene), "--ticks", "3"]) == 1
    out, err = capsys.readouterr()
    assert "fmu.platform" in out and "x86_64-windows" in out
    assert "/W/T did not load" in err
    # nothing extracted, nothing left behind (the process's asset-mount folder lives until exit)
    assert [p for p in scratch.iterdir() if not p.name.startswith(MOUNT_PREFIX)] == []
