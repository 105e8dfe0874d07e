"""A port value typed in the inspector is checked against the bounds the running simulation knows
(the owner's included, carried up a wire) before it is authored: refused with the reason, the
journal untouched; a value inside the bounds is one edit by the user."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from luncosim_core.api import ListPorts
from luncosim_workbench.testing import wait_future

# a rig whose interface input feeds a Modelica input declared min = 0, max = 2 (no customData)
SCENE = '''#usda 1.0
(
    defaultPrim = "Rig"
    upAxis = "Y"
)

def Xform "Rig" (
    kind = "assembly"
)
{
    float inputs:gain = 1.0

    def Scope "Amp" (
        prepend apiSchemas = ["LunCoProgramAPI"]
    )
    {
        uniform token info:implementationSource = "sourceCode"
        uniform string info:sourceCode = """model Amp "Doubles its gain"
  input Real gain(min = 0, max = 2) "Gain";
  output Real y "Twice the gain";
equation
  y = 2 * gain;
end Amp;
"""
        float inputs:gain.connect = </Rig.inputs:gain>
        float outputs:y
    }
}
'''


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


@pytest.fixture
def rig(window, tmp_path, qtbot):
    scene = tmp_path / "rig.usda"
    scene.write_text(SCENE)
    assert window.open_path(scene)
    window.show()
    window.docks["assembly"].show()
    window.activateWindow()

    qtbot.waitUntil(lambda: window.bridge.latest is not None, timeout=15000)
    window.bridge.step(1)  # a step waits out the compile; then the model's bounds are live

    def bounded() -> bool:
        res = wait_future(qtbot, window.bridge.query(ListPorts("/Rig")), timeout=5)
        return res.ok and any(p["name"] == "gain" and p["max"] == 2.0 for p in res.value)

    qtbot.waitUntil(bounded, timeout=120000)
    return window


def _type(qtbot, field, text):
    def focused() -> bool:
        if not field.hasFocus():
            field.window().activateWindow()
            field.setFocus()
        return field.hasFocus()

    qtbot.waitUntil(focused, timeout=10000)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_a_value_outside_the_owner_bound_is_refused_in_the_inspector(rig, qtbot):
    doc = rig.session.document
    inspector = rig.panels["assembly"].inspector
    rig.session.selection.set(["/Rig"])
    qtbot.waitUntil(lambda: "inputs:gain" in inspector.editors, timeout=3000)
    _type(qtbot, inspector.editors["inputs:gain"], "5")
    assert _journal(doc) == []
    assert doc.stage.GetAttributeAtPath("/Rig.inputs:gain").Get() == 1.0
    assert inspector.error.text() == ("/Rig.gain: 5 is above the maximum 2 (declared by the modelica owner of "
                                      "/Rig/Amp.gain, which this port drives through a wire)")
    qtbot.waitUntil(lambda: inspector.editors["inputs:gain"].text() == "1", timeout=2000)  # the shown value back
    _type(qtbot, inspector.editors["inputs:gain"], "1.5")
    assert _journal(doc) == [("set /Rig.inputs:gain", "user")]
    assert doc.stage.GetAttributeAtPath("/Rig.inputs:gain").Get() == 1.5
