"""Placing assets from the viewport (real viewport under Xvfb): an asset dropped on the viewport
is referenced where it lands (one undoable Batch by the user, with its xformOp:translate), and
the viewport's focus point is offered to panels through the PanelContext."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from luncosim_core.twin.roots import repository_root
from luncosim_workbench.mime import ASSET_MIME
from luncosim_workbench.testing import DEMO, MARKER

pytestmark = [
    pytest.mark.gl,
    pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (run under xvfb-run)"),
]

ROVER_FILE = repository_root() / "assets" / "vessels" / "rovers" / "yard_rover.usda"
ROVER_URI = "lunco://vessels/rovers/yard_rover.usda"


@pytest.fixture
def window(qtbot, tmp_path):
    from luncosim_workbench.main_window import MainWindow

    twin = tmp_path / "yard"
    shutil.copytree(DEMO, twin)
    w = MainWindow(settings=tmp_path / "settings")
    w.ask_unsaved = lambda _why: "discard"
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_path(twin) and w.viewport is not None
    w.viewport.viewport.set_camera({"eye": (4, 14, 18), "center": (4, 0, 0)})  # stage axes (Y up)
    qtbot.wait(100)
    yield w
    w.close()


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


def _pixel(window, stage_point):
    """Canvas pixel of a stage point (the practice yard is Y-up)."""
    vc = window.viewport.viewport
    view = vc.model.stage_to_view @ np.r_[np.asarray(stage_point, float), 1.0]
    x, y = vc.project([view[:3]])[0]
    return QPointF(float(x), float(y))


def _mime(asset: str = "", urls=(), text: str = "") -> QMimeData:
    data = QMimeData()
    if asset:
        data.setData(ASSET_MIME, asset.encode())
    if urls:
        data.setUrls([QUrl.fromLocalFile(str(u)) for u in urls])
    if text:
        data.setText(text)
    return data


def _drop(window, pos: QPointF, data: QMimeData) -> tuple[bool, bool]:
    """Drag ``data`` over the viewport and drop it at ``pos``: (entry accepted, drop accepted)."""
    from PySide6.QtWidgets import QApplication

    native = window.viewport.surface
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(QPoint(int(pos.x()), int(pos.y())), actions, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(native, enter)
    drop = QDropEvent(pos, actions, data, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(native, drop)
    return enter.isAccepted(), drop.isAccepted()


def test_a_library_asset_dropped_on_the_ground_is_referenced_where_it_landed(window, qtbot):
    doc = window.session.document
    assert _drop(window, _pixel(window, (6.1, 0.0, 3.9)), _mime(str(ROVER_FILE), urls=[ROVER_FILE])) == (True, True)
    path = "/PracticeYard/yard_rover"
    assert _journal(doc) == [(f"add {ROVER_URI} as {path}", "user")]  # one Batch, one undo step
    prim = doc.stage.GetPrimAtPath(path)
    assert prim.GetTypeName() == "Xform" and prim.HasAuthoredReferences()
    assert [r.assetPath for r in prim.GetMetadata("references").GetAddedOrExplicitItems()] == [ROVER_URI]
    # on the ground top (stage y = 0), snapped to the 0.25 m grid across it
    assert tuple(prim.GetAttribute("xformOp:translate").Get()) == pytest.approx((6.0, 0.0, 4.0), abs=1e-6)
    assert window.session.selection.paths == (path,)
    assert window.statusBar().currentMessage().startswith(f"added {ROVER_URI} as {path} at (6.00, 0.00, 4.00)")
    qtbot.wait(100)
    window.action("edit.undo").trigger()
    assert not doc.stage.GetPrimAtPath(path)


def test_a_drop_on_a_prim_lands_on_its_top_and_uris_and_non_assets_are_told_apart(window):
    doc = window.session.document
    window.viewport.set_manipulator(snapping=False)
    marker_top = (10.0, 0.5, 0.0)  # the 0.5 m marker cube at (10, 0.25, 0)
    assert _drop(window, _pixel(window, marker_top), _mime(text=ROVER_URI)) == (True, True)
    placed = doc.stage.GetPrimAtPath("/PracticeYard/yard_rover").GetAttribute("xformOp:translate").Get()
    assert tuple(placed) == pytest.approx(marker_top, abs=0.02)
    readme = DEMO / "twin.toml"
    assert _drop(window, _pixel(window, (2, 0, 2)), _mime(urls=[readme])) == (False, False)  # not a USD file
    assert _drop(window, _pixel(window, (2, 0, 2)), _mime(text="hello")) == (False, False)
    assert len(_journal(doc)) == 1


def test_the_focus_point_is_the_orbit_centre_on_the_ground_in_any_prim_frame(window):
    ctx = window.ctx
    window.viewport.viewport.set_camera({"eye": (4, 10, 12), "center": (3.0, 2.0, -1.5)})
    assert ctx.focus_point() == pytest.approx((3.0, 0.0, -1.5))  # the centre dropped onto the ground
    # in the frame of RoverA (the recipes' ``at=`` for a child of it)
    rover = window.session.document.stage.GetPrimAtPath("/PracticeYard/RoverA")
    from pxr import Gf, UsdGeom

    world = UsdGeom.XformCache().GetLocalToWorldTransform(rover).Transform(Gf.Vec3d(*ctx.focus_point("/PracticeYard/RoverA")))
    assert tuple(world) == pytest.approx((3.0, 0.0, -1.5))
    assert ctx.focus_point(MARKER) != ctx.focus_point()  # the marker's frame is moved
