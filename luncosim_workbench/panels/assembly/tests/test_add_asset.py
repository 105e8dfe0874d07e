"""Add Asset…: the catalog of ``twin://`` and ``lunco://`` assets, the grid with thumbnails
rendered headless (in child processes, cached), search, adding at the viewport's focus point
and dragging an entry onto the viewport."""

from __future__ import annotations

import os
import shutil

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage

from luncosim_core.twin.roots import repository_root
from luncosim_workbench.mime import ASSET_MIME
from luncosim_workbench.panels.assembly import asset_dialog
from luncosim_workbench.panels.assembly.asset_catalog import AssetCatalog, ThumbnailCache
from luncosim_workbench.panels.assembly.asset_dialog import AddAssetDialog, AssetGridModel
from luncosim_workbench.testing import DEMO, SCENE_REL

ASSETS = repository_root() / "assets"
ROVER_URI = "lunco://vessels/rovers/yard_rover.usda"
CRATE_URI = "twin://parts/crate.usda"
ROOT = "/PracticeYard"
CRATE = """#usda 1.0
(
    defaultPrim = "Crate"
    upAxis = "Y"
    metersPerUnit = 1
)

def Xform "Crate" (
    kind = "component"
)
{
    def Cube "Box"
    {
        double size = 0.6
        color3f[] primvars:displayColor = [(0.85, 0.45, 0.1)]
    }
}
"""


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    """Thumbnails go to a cache folder of the test's own (never the user's)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("LUNCOSIM_CACHE_DIR", str(folder))
    monkeypatch.setattr(asset_dialog, "_FAILED", {})
    return folder / "thumbnails"


def _parts(twin):
    (twin / "parts").mkdir()
    (twin / "parts" / "crate.usda").write_text(CRATE)
    (twin / ".lunco").mkdir(exist_ok=True)
    (twin / ".lunco" / "hidden.usda").write_text(CRATE)
    return twin / "parts" / "crate.usda"


def _journal(doc):
    return [(e.label, e.author) for e in doc.journal.entries()[: doc.journal.position]]


def _loaded(qtbot, dlg):
    qtbot.waitUntil(lambda: dlg.loaded, timeout=5000)
    return dlg


def _row(dlg, uri):
    return next(i for i, e in enumerate(dlg.model.entries()) if e.uri == uri)


def _state(dlg, uri):
    return dlg.model.index(_row(dlg, uri)).data(AssetGridModel.STATE_ROLE)


def test_the_catalog_lists_the_bundled_assets_with_their_uris(twin_copy):
    _parts(twin_copy)
    catalog = AssetCatalog.scan(ASSETS, twin_copy, exclude=[twin_copy / SCENE_REL])
    # the open scene is not offered (it cannot reference itself), nor scenes/tests/, .lunco/ or the
    # library's own twins (their twin:// would resolve against this one)
    assert catalog.uris() == [CRATE_URI, ROVER_URI]
    rover = catalog.entries[1]
    assert rover.path == ASSETS / "vessels" / "rovers" / "yard_rover.usda"
    assert (rover.name, rover.folder, rover.scheme) == ("yard_rover", "lunco://vessels/rovers", "lunco")
    assert catalog.folders() == [("twin://parts", 1), ("lunco://vessels/rovers", 1)]
    assert [e.uri for e in catalog.search("ROVER")] == [ROVER_URI]
    assert [e.uri for e in catalog.search("twin crate")] == [CRATE_URI]
    assert catalog.search("crate rover") == []
    assert [e.uri for e in catalog.search(folder="lunco://vessels")] == [ROVER_URI]  # subfolders too
    # the bundled demo twin lies inside the library: its files are listed once, as twin://
    demo = AssetCatalog.scan(ASSETS, DEMO)
    assert demo.uris() == ["twin://scenes/practice_yard.usda", ROVER_URI]


def test_without_a_viewport_add_asset_places_at_the_parents_origin(opened):
    doc = opened.session.document
    opened.session.selection.set([ROOT])
    path = opened.panels["assembly"].create_asset(ROVER_URI)
    assert path == f"{ROOT}/yard_rover"
    assert tuple(doc.stage.GetPrimAtPath(path).GetAttribute("xformOp:translate").Get()) == (0.0, 0.0, 0.0)


def test_an_entry_dropped_on_a_prim_references_its_uri(opened):
    doc = opened.session.document
    assert opened.panels["assembly"].add_reference(f"{ROOT}/Marker", ROVER_URI)  # the URI kept as it is
    prim = doc.stage.GetPrimAtPath(f"{ROOT}/Marker")
    assert [r.assetPath for r in prim.GetMetadata("references").GetAddedOrExplicitItems()] == [ROVER_URI]


def test_search_and_folders_filter_the_grid_and_enter_adds_the_current_entry(twin_copy, qtbot):
    _parts(twin_copy)
    added = []
    dlg = AddAssetDialog(add=lambda uri: added.append(uri) or "/X", lunco_root=ASSETS, twin_root=twin_copy,
                         exclude=[twin_copy / SCENE_REL], cache=ThumbnailCache(), jobs=0)
    qtbot.addWidget(dlg)
    dlg.show()
    _loaded(qtbot, dlg)
    assert [e.uri for e in dlg.model.entries()] == [CRATE_URI, ROVER_URI]
    assert [dlg.folders.item(i).text() for i in range(dlg.folders.count())] == [
        "All assets (2)", "twin://parts (1)", "lunco://vessels/rovers (1)"]
    qtbot.keyClicks(dlg.search, "yard")
    assert [e.uri for e in dlg.model.entries()] == [ROVER_URI]
    assert dlg.status.text().startswith("1 of 2 assets")
    qtbot.keyClick(dlg.search, Qt.Key.Key_Return)  # Enter adds the (first) match
    assert added == [ROVER_URI] and dlg.isVisible()  # the dialog stays for the next one
    dlg.search.clear()
    dlg.folders.setCurrentRow(1)
    assert [e.uri for e in dlg.model.entries()] == [CRATE_URI]
    dlg.search.setText("nothing like it")
    assert dlg.model.rowCount() == 0
    dlg.add_current()
    assert added == [ROVER_URI]
    # a drag carries the URI the viewport takes (and the file, for other drop targets)
    dlg.search.clear()
    mime = dlg.model.mimeData([dlg.model.index(0)])
    assert bytes(mime.data(ASSET_MIME)).decode() == CRATE_URI and mime.text() == CRATE_URI
    assert mime.urls()[0].toLocalFile() == str(twin_copy / "parts" / "crate.usda")


def _blank(png) -> bool:
    img = QImage(str(png))
    assert not img.isNull()
    colours = {img.pixel(x, y) for x in range(0, img.width(), 4) for y in range(0, img.height(), 4)}
    return len(colours) < 8


@pytest.mark.slow
def test_thumbnails_are_rendered_in_child_processes_and_cached(opened, twin_copy, qtbot, _cache_dir):
    crate = _parts(twin_copy)
    (twin_copy / "parts" / "broken.usda").write_text("#usda 1.0\nthis is not a layer\n")
    editor = opened.panels["assembly"]
    opened.action("assembly.create.asset").trigger()
    dlg = editor.asset_dialog
    assert dlg is not None and dlg.isVisible()
    _loaded(qtbot, dlg)
    assert [e.uri for e in dlg.model.entries()] == ["twin://parts/broken.usda", CRATE_URI, ROVER_URI]
    assert _state(dlg, CRATE_URI) == ("pending", "")
    assert dlg.renderer.started and len(dlg.renderer.started) <= 2  # two children at a time
    qtbot.waitUntil(lambda: all(_state(dlg, e.uri)[0] != "pending" for e in dlg.model.entries()), timeout=120000)
    kind, png = _state(dlg, CRATE_URI)
    assert kind == "ok" and os.path.dirname(png) == str(_cache_dir) and os.path.isfile(png)
    assert png == str(ThumbnailCache().png(next(e for e in dlg.catalog.entries if e.path == crate)))
    assert not _blank(png) and not _blank(_state(dlg, ROVER_URI)[1])
    assert not list(_cache_dir.glob("*.part-*"))  # partial files renamed or removed
    kind, why = _state(dlg, "twin://parts/broken.usda")
    assert kind == "failed" and why
    tip = dlg.model.index(_row(dlg, "twin://parts/broken.usda")).data(Qt.ItemDataRole.ToolTipRole)
    assert f"no thumbnail: {why}" in tip
    assert len(dlg.renderer.started) == 3
    dlg.close()
    qtbot.waitUntil(lambda: editor.asset_dialog is None, timeout=2000)

    opened.action("assembly.create.asset").trigger()  # a second opening: the cache, no render
    again = _loaded(qtbot, editor.asset_dialog)
    assert again is not dlg
    assert _state(again, CRATE_URI) == ("ok", png)
    assert _state(again, "twin://parts/broken.usda") == ("failed", why)  # not tried again this session
    qtbot.wait(200)
    assert again.renderer.started == []
    shots = os.environ.get("LUNCOSIM_SHOTS")
    if shots:
        again.resize(820, 520)
        qtbot.wait(300)
        again.grab().save(os.path.join(shots, "add-asset-dialog.png"))
    crate.write_text(CRATE.replace("0.6", "0.8"))  # an edited file is a new key: rendered again
    again.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.slow
def test_closing_the_dialog_stops_its_renders(opened, qtbot, _cache_dir):
    editor = opened.panels["assembly"]
    dlg = _loaded(qtbot, editor.ask_asset())
    qtbot.waitUntil(lambda: bool(dlg.renderer._running), timeout=5000)
    qtbot.waitUntil(lambda: all(job[0].processId() for job in dlg.renderer._running.values()), timeout=5000)
    pids = [job[0].processId() for job in dlg.renderer._running.values()]
    dlg.close()
    qtbot.waitUntil(lambda: not any(_alive(pid) for pid in pids), timeout=5000)  # killed and reaped
    qtbot.wait(100)
    assert not list(_cache_dir.glob("*.png"))


# ---------------------------------------------------------------------- with a real viewport
@pytest.fixture
def gl_window(qtbot, tmp_path, make_window):
    if not os.environ.get("DISPLAY"):
        pytest.skip("needs an X display (run under xvfb-run)")
    twin = tmp_path / "yard"
    shutil.copytree(DEMO, twin)
    w = make_window(viewport=True)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    assert w.open_path(twin) and w.viewport is not None
    yield w
    w.close()


@pytest.mark.gl
def test_a_double_click_adds_the_asset_at_the_viewports_focus_point(gl_window, qtbot):
    from pxr import UsdGeom

    w = gl_window
    doc = w.session.document
    w.viewport.viewport.set_camera({"eye": (4, 10, 12), "center": (3.0, 2.0, -1.5)})
    focus = w.ctx.focus_point()
    assert focus == pytest.approx((3.0, 0.0, -1.5))
    w.session.selection.set([ROOT])
    dlg = _loaded(qtbot, w.panels["assembly"].ask_asset())
    dlg.renderer.stop()
    qtbot.waitExposed(dlg)
    idx = dlg.model.index(_row(dlg, ROVER_URI))
    qtbot.waitUntil(lambda: dlg.view.visualRect(idx).isValid(), timeout=2000)  # the grid is laid out
    rect = dlg.view.visualRect(idx)
    qtbot.mouseClick(dlg.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(dlg.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    path = f"{ROOT}/yard_rover"
    assert _journal(doc) == [(f"add {ROVER_URI} as {path}", "user")]  # exactly one Batch
    prim = doc.stage.GetPrimAtPath(path)
    assert [r.assetPath for r in prim.GetMetadata("references").GetAddedOrExplicitItems()] == [ROVER_URI]
    assert prim.GetAttribute("xformOp:translate").IsAuthored()
    world = UsdGeom.XformCache().GetLocalToWorldTransform(prim).ExtractTranslation()
    assert tuple(world) == pytest.approx(focus, abs=1e-6)
    assert w.session.selection.paths == (path,)
    assert dlg.status.text().endswith(f"added {ROVER_URI} as {path}")
    dlg.close()


@pytest.mark.gl
def test_an_entry_dragged_onto_the_viewport_lands_where_it_is_dropped(gl_window, qtbot):
    import numpy as np
    from PySide6.QtWidgets import QApplication

    w = gl_window
    doc = w.session.document
    w.viewport.viewport.set_camera({"eye": (4, 14, 18), "center": (4, 0, 0)})
    qtbot.wait(100)
    dlg = _loaded(qtbot, w.panels["assembly"].ask_asset())
    dlg.renderer.stop()
    data = dlg.model.mimeData([dlg.model.index(_row(dlg, ROVER_URI))])
    vc = w.viewport.viewport
    view = vc.model.stage_to_view @ np.r_[np.array([6.1, 0.0, 3.9]), 1.0]
    x, y = vc.project([view[:3]])[0]
    native = w.viewport.surface
    enter = QDragEnterEvent(QPoint(int(x), int(y)), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(native, enter)
    drop = QDropEvent(QPointF(float(x), float(y)), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(native, drop)
    assert enter.isAccepted() and drop.isAccepted()
    path = f"{ROOT}/yard_rover"
    assert _journal(doc) == [(f"add {ROVER_URI} as {path}", "user")]
    placed = doc.stage.GetPrimAtPath(path).GetAttribute("xformOp:translate").Get()
    assert tuple(placed) == pytest.approx((6.0, 0.0, 4.0), abs=1e-6)  # on the ground, snapped to the grid
    dlg.close()
