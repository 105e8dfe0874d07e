"""The Twin Browser: entry points (folder, loose file, preview), library entries, activation."""

from __future__ import annotations


def test_entry_points_folder_loose_file_and_preview(window, tmp_path, twin_copy):
    browser = window.panels["twin_browser"]
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "a.usda").write_text('#usda 1.0\ndef Xform "A"\n{\n}\n')
    assert window.open_path(loose)  # a folder without twin.toml: no scene, a reason
    assert window.session.document is None
    assert "no scene selected" in browser.header.text()
    assert window.open_path(loose / "a.usda")  # a loose file opens as the scene
    assert window.session.document is not None and window.session.scene.name == "a.usda"
    part = twin_copy / "parts" / "p.usda"
    part.parent.mkdir()
    part.write_text('#usda 1.0\ndef Xform "P"\n{\n}\n')
    assert window.open_path(twin_copy, preview=part)
    assert window.session.preview and "preview" in browser.header.text()
    assert not window.action("file.save").isEnabled()
    library = browser.sections["library"]
    entries = [library.child(i).text(0) for i in range(library.childCount())]
    assert entries == ["parts/p.usda", "scenes/practice_yard.usda", "scenes/tests/drill_check.usda"]
    assert browser.tree.mimeData([library.child(0)]).urls()[0].toLocalFile() == str(part)
    assert window.open_path(tmp_path / "missing") is False


def test_activating_browser_entries_opens_scenes_and_previews(opened, twin_copy):
    browser = opened.panels["twin_browser"]
    part = twin_copy / "parts" / "q.usda"
    part.parent.mkdir()
    part.write_text('#usda 1.0\ndef Xform "Q"\n{\n}\n')
    browser.refresh()
    library = browser.sections["library"]
    item = next(library.child(i) for i in range(library.childCount()) if library.child(i).text(0) == "parts/q.usda")
    browser._on_activated(item, 0)
    assert opened.session.preview and opened.session.scene == part.resolve()
    scenes = browser.sections["scenes"]
    browser._on_activated(scenes.child(0), 0)
    assert not opened.session.preview and opened.session.scene.name == "practice_yard.usda"
