"""Sweep files become tasks: grids, seeded Monte Carlo, and errors that name the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from luncosim_core.batch.spec import SweepError, expand_scene_globs, load_sweep


def write(folder: Path, text: str) -> Path:
    path = folder / "sweep.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_grid_is_the_cartesian_product_in_order(sled_dir):
    tasks = load_sweep(write(sled_dir, """
scene = "sled.usda"
ticks = 30
[[parameter]]
port = "/Yard/Sled.force_x"
values = [0, 10, 20]
[[parameter]]
attribute = "/Yard/Sled.physics:mass"
values = [5.0, 10.0]
[[output]]
port = "/Yard/Sled.position_x"
stats = ["final", "max"]
"""))
    assert [t.params for t in tasks] == [
        {"/Yard/Sled.force_x": f, "/Yard/Sled.physics:mass": m} for f in (0, 10, 20) for m in (5.0, 10.0)]
    assert {t.kind for t in tasks} == {"sweep"} and tasks[0].ticks == 30
    assert tasks[0].param_kinds == {"/Yard/Sled.force_x": "port", "/Yard/Sled.physics:mass": "attribute"}
    assert tasks[0].outputs == [{"port": "/Yard/Sled.position_x", "stats": ["final", "max"]}]
    assert len({t.task_id for t in tasks}) == 6


def test_monte_carlo_samples_are_seeded_and_inside_the_range(sled_dir):
    text = """
scene = "sled.usda"
seed = 11
samples = 8
[[parameter]]
port = "/Yard/Sled.force_x"
range = [5.0, 25.0]
[[parameter]]
attribute = "/Yard/Sled.physics:mass"
range = [1.0, 100.0]
distribution = "log-uniform"
"""
    a = [t.params for t in load_sweep(write(sled_dir, text))]
    b = [t.params for t in load_sweep(write(sled_dir, text))]
    c = [t.params for t in load_sweep(write(sled_dir, text.replace("seed = 11", "seed = 12")))]
    assert a == b and a != c and len(a) == 8
    assert all(5.0 <= p["/Yard/Sled.force_x"] <= 25.0 and 1.0 <= p["/Yard/Sled.physics:mass"] <= 100.0 for p in a)


@pytest.mark.parametrize(("text", "says"), [
    ('scene = "sled.usda"\nbogus = 1', "unknown key(s) bogus"),
    ('ticks = 5', "'scene'"),
    ('scene = "nope.usda"', "does not exist"),
    ('scene = "sled.usda"\nsamples = 2\n[[parameter]]\nport = "/Yard/Sled.force_x"\nrange = [3, 1]', "parameter[0].range"),
    ('scene = "sled.usda"\n[[parameter]]\nport = "/Yard/Sled.force_x"\nrange = [1, 3]', "'samples'"),
    ('scene = "sled.usda"\n[[parameter]]\nport = "Sled"\nvalues = [1]', "parameter[0].port"),
    ('scene = "sled.usda"\n[[parameter]]\nport = "/Yard/Sled.force_x"\nvalues = [1]\nstep = 2', "parameter[0]: unknown field(s) step"),
    ('scene = "sled.usda"\n[[output]]\nport = "/Yard/Sled.position_x"\nstats = ["median"]', "output[0].stats"),
    ('scene = "sled.usda"\nticks = 0', "'ticks'"),
    ('scene = "sled.usda"\nverdict = "missing.rhai"', "verdict 'missing.rhai' cannot be read"),
    ('scene = [', "sweep.toml"),
])
def test_bad_sweep_files_name_the_field(sled_dir, text, says):
    with pytest.raises(SweepError) as err:
        load_sweep(write(sled_dir, text))
    assert says in str(err.value)
    assert "sweep.toml" in str(err.value)


def test_scene_globs_expand_sorted_and_refuse_an_empty_match(sled_dir):
    found = expand_scene_globs([str(sled_dir / "*.usda")])
    assert [p.name for p in found] == ["never.usda", "push_check.usda", "sled.usda"]
    with pytest.raises(SweepError, match="matches no file"):
        expand_scene_globs([str(sled_dir / "nothing-*.usda")])
