"""The workbench survives clumsy settings and hostile twins: a layout whose ``perspective`` is a
list or deeply nested JSON, a settings folder that is a file, a ``layout.json`` that is a folder,
and opening a garbage or 10,000-deep twin. Each ends in a message, never a traceback, and the
window still closes and shuts its simulation down."""

from __future__ import annotations

import json

import pytest

from luncosim_workbench import layout as layouts


def _close(w) -> None:
    w.close()  # saves the layout, then shuts down: neither may raise
    assert w._closed


@pytest.mark.parametrize("content", [
    json.dumps({"version": layouts.LAYOUT_VERSION, "perspective": ["Build"], "geometry": "", "state": ""}),
    json.dumps({"version": layouts.LAYOUT_VERSION, "perspective": {"a": 1}, "geometry": "", "state": ""}),
    "[" * 200_000 + "]" * 200_000,
    '{"version": ' + "[" * 100_000 + "]" * 100_000 + "}",
])
def test_a_hostile_layout_file_falls_back_to_the_default(make_window, tmp_path, content):
    settings = tmp_path / "s"
    settings.mkdir()
    (settings / layouts.LAYOUT_FILE).write_text(content, encoding="utf-8")
    w = make_window(settings=settings)
    assert w.perspective == layouts.DEFAULT_PERSPECTIVE
    assert w.layout_message.startswith("saved layout ignored")
    _close(w)


def test_a_settings_folder_that_is_a_file(make_window, tmp_path):
    settings = tmp_path / "settings-file"
    settings.write_text("I am not a folder", encoding="utf-8")
    w = make_window(settings=settings)
    assert w.perspective == layouts.DEFAULT_PERSPECTIVE
    w.set_theme("dark") if hasattr(w, "set_theme") else None
    _close(w)
    assert settings.read_text(encoding="utf-8") == "I am not a folder"  # nothing overwritten


def test_a_layout_json_that_is_a_folder(make_window, tmp_path):
    settings = tmp_path / "s"
    (settings / layouts.LAYOUT_FILE).mkdir(parents=True)
    w = make_window(settings=settings)
    assert w.perspective == layouts.DEFAULT_PERSPECTIVE and "saved layout ignored" in w.layout_message
    _close(w)
    assert (settings / layouts.LAYOUT_FILE).is_dir()


def test_opening_a_garbage_twin_says_so(window, tmp_path):
    t = tmp_path / "garbage"
    (t / "scenes").mkdir(parents=True)
    (t / "twin.toml").write_bytes(bytes(range(256)) * 4)
    assert window.open_path(t) is False
    t2 = tmp_path / "garbage2"
    (t2 / "scenes").mkdir(parents=True)
    (t2 / "twin.toml").write_text('name = "g"\n[usd]\ndefault_scene = "scenes/s.usda"\n', encoding="utf-8")
    (t2 / "scenes/s.usda").write_bytes(b"#usda 1.0\n" + bytes(range(256)) * 8)
    window.open_path(t2)  # opens with diagnostics or refuses: either way no exception
    _close(window)


def test_opening_a_ten_thousand_deep_twin_says_so(window, tmp_path):
    t = tmp_path / "deep"
    (t / "scenes").mkdir(parents=True)
    (t / "twin.toml").write_text('name = "d"\n[usd]\ndefault_scene = "scenes/s.usda"\n', encoding="utf-8")
    depth = 10_000
    body = "".join(f'def Xform "P{i}" {{\n' for i in range(depth)) + "}\n" * depth
    (t / "scenes/s.usda").write_text('#usda 1.0\n(\n    defaultPrim = "P0"\n)\n' + body, encoding="utf-8")
    assert window.open_path(t) is False
    _close(window)
