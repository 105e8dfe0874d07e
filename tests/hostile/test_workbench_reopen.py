"""A failed open in the workbench leaves the open scene as it was, still followed: the window
keeps hearing its edits (``open_path`` stopped listening before opening and did not listen again
when the open failed, so edits after it no longer reached the title, lint or the simulation)."""

from __future__ import annotations

from luncosim_workbench.testing import *  # noqa: F403 - the window fixtures


def test_a_failed_open_keeps_following_the_open_scene(opened, tmp_path, monkeypatch):
    from luncosim_workbench import main_window

    monkeypatch.setattr(main_window.QMessageBox, "warning", lambda *a, **k: None)  # no modal box in a test
    doc = opened.session.document
    listening = len(doc.changed)
    garbage = tmp_path / "garbage"
    (garbage / "scenes").mkdir(parents=True)
    (garbage / "twin.toml").write_bytes(bytes(range(256)) * 4)
    assert opened.open_path(garbage) is False
    assert opened.session.document is doc
    assert len(doc.changed) == listening  # connected again, once
