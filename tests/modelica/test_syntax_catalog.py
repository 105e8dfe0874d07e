"""The palette's data (Qt-free): classes of library roots with their full names, placeable or not;
names for new and pasted components; a copied component's modification kept verbatim; where a
Bitmap's fileName points."""

from __future__ import annotations

from pathlib import Path

import pytest

from luncosim_core.modelica.syntax.catalog import (
    component_name,
    copy_name,
    initials,
    palette,
    read_root,
)
from luncosim_core.modelica.syntax.graphics import bitmap_path
from luncosim_core.modelica.syntax.ops import AddComponent, OpError, apply_op

from .conftest import LIBRARY


def test_the_palette_reads_our_library_and_the_msl_subset_with_full_names():
    cat = palette()
    resistor = cat.find("Workbench.Electrical.Resistor")
    assert resistor.placeable and resistor.source == "Workbench" and resistor.path.name == "Resistor.mo"
    assert cat.find("Modelica.Electrical.Analog.Basic.Resistor").source == "Modelica (bundled subset)"
    assert not cat.find("Workbench.Interfaces.OnePort").placeable  # partial
    assert not cat.find("Workbench.Electrical").placeable  # a package
    assert cat.find("Workbench.Interfaces.Pin").placeable  # a connector can be placed
    assert LIBRARY.resolve() in cat.roots and not cat.problems
    assert {e.qualified for e in cat.search("analog resistor")} == {"Modelica.Electrical.Analog.Basic.Resistor"}


def test_loose_model_files_are_their_own_library_root(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "Lag.mo").write_text('model Lag "a lag"\n  Real y;\nend Lag;\n')
    (tmp_path / "models" / "Bad.mo").write_text("model Bad\n  Real\nend Bad;\n")
    cat = read_root(tmp_path, "Twin")
    assert cat.find("Lag").description == "a lag" and cat.find("Lag").placeable
    assert tmp_path / "models" in cat.roots and len(cat.problems) == 1 and "Bad.mo" in cat.problems[0]


def test_component_names_from_initials_and_copies():
    assert [initials(n) for n in ("Resistor", "ConstantVoltage", "PIDAxis", "pin")] == ["R", "CV", "PIDA", "P"]
    assert component_name("Resistor", {"R1", "R2"}) == "R3"
    assert copy_name("R1", {"R1", "R2"}) == "R3" and copy_name("pump", {"pump"}) == "pump1"


def test_add_component_keeps_a_copied_modification_verbatim_and_refuses_one_that_is_not():
    text = "model M\n  Real x;\nend M;\n"
    edit = apply_op(text, AddComponent(None, "Real", "y", modification="start = 1, fixed = true"))
    assert "  Real y(start = 1, fixed = true);\n" in edit.text
    for bad in ("start = 1); Real z(", "start = 1) annotation(x", "start ="):
        with pytest.raises(OpError):
            apply_op(text, AddComponent(None, "Real", "y", modification=bad))
    with pytest.raises(OpError, match="not both"):
        apply_op(text, AddComponent(None, "Real", "y", modifiers=(("start", "1"),), modification="fixed = true"))


def test_bitmap_file_names_resolve_like_modelica_uris(tmp_path):
    home = tmp_path / "Pkg" / "package.mo"
    dirs = {"Pkg": tmp_path / "Pkg", "Pkg.Sub": tmp_path / "Pkg" / "Sub"}
    assert bitmap_path("modelica://Pkg/Resources/a.png", home, dirs.get) == tmp_path / "Pkg" / "Resources" / "a.png"
    assert bitmap_path("modelica://Pkg.Sub/b.png", home, dirs.get) == tmp_path / "Pkg" / "Sub" / "b.png"
    assert bitmap_path("modelica://Nope/b.png", home, dirs.get) is None
    assert bitmap_path("file:///tmp/x.png", home, dirs.get) == Path("/tmp/x.png")
    assert bitmap_path("icons/c.png", home, dirs.get) == tmp_path / "Pkg" / "icons" / "c.png"
    assert bitmap_path("https://example.org/x.png", home, dirs.get) is None
