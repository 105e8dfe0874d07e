"""The Diagnostics panel: composition warnings and lint findings, activation selects or opens."""

from __future__ import annotations

from luncosim_core.diagnostics import Diagnostic


def test_composition_warnings_reach_the_browser_and_diagnostics(window, tmp_path, qtbot):
    scene = tmp_path / "broken.usda"
    scene.write_text('#usda 1.0\ndef Xform "W"\n{\n    def Xform "Thing" (\n        prepend references = @nowhere.usda@\n    )\n    {\n    }\n}\n')
    assert window.open_path(scene)
    diags = window.session.composition_diagnostics()
    assert diags, "a missing reference must be reported"
    warnings = window.panels["twin_browser"].sections["warnings"]
    assert warnings.childCount() == len(diags)
    panel = window.panels["diagnostics"]
    assert len([r for r in panel.model.rows if r[0] == "composition"]) == len(diags)
    assert any(o == "lint" and d.code == "missing-stage-metadata" for o, d in panel.model.rows)
    assert any(d.code == "usd-missing-arc" and "nowhere.usda" in d.message for _o, d in panel.model.rows)
    opened_files = []
    window.ctx.open_location = lambda path, line: opened_files.append((path, line))
    row = next(i for i, (_o, d) in enumerate(panel.model.rows) if d.code == "usd-missing-arc")
    panel._on_activated(panel.proxy.mapFromSource(panel.model.index(row, 0)))
    assert window.session.selection.paths == ("/W/Thing",)  # the arc's prim is named: it is selected
    assert opened_files == []
    panel.activate(Diagnostic("warning", "stage-missing-up-axis", "layer has no upAxis", layer=str(scene), source="usd"))
    assert opened_files == [(str(scene), 0)]  # no prim named: the file opens
    panel.activate(Diagnostic("error", "x", "joint limit violated", path="/W/Thing.angle", source="physics"))
    assert window.session.selection.paths == ("/W/Thing",)  # a prim named: it is selected
