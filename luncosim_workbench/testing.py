"""Test fixtures for the workbench and its panels (a pytest plugin module; not used at run time).

``tests/workbench/conftest.py`` and ``luncosim_workbench/panels/conftest.py`` import these, so a
panel's own ``tests/`` folder gets the same real window, twin copy and settings isolation.

Workbench tests run on Qt's offscreen platform when there is no display (the 3D viewport shows
its placeholder there); under Xvfb they share the session's X platform with the GL tests, and
their windows still use the placeholder (``MainWindow(viewport=False)``). Every test gets its own
settings folder (``LUNCOSIM_SETTINGS_DIR``), so nothing touches the user's real layout or recent
list, and its own copy of the demo twin, so saves never touch the repository.
"""

from __future__ import annotations

import gc
import os
import shutil
import time
from pathlib import Path

if not os.environ.get("DISPLAY"):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from luncosim_core.twin.roots import repository_root  # noqa: E402

DEMO = repository_root() / "assets" / "twins" / "practice_yard"
SCENE_REL = Path("scenes") / "practice_yard.usda"
AXLES = ("Axle_FL", "Axle_FR", "Axle_RL", "Axle_RR")
AXLE_FL = "/PracticeYard/RoverA/Joints/Axle_FL"
CHASSIS_X = "/PracticeYard/RoverA/Chassis.position_x"
MARKER = "/PracticeYard/Marker"

__all__ = [
    "AXLES", "AXLE_FL", "CHASSIS_X", "DEMO", "MARKER", "SCENE_REL", "_collect_closed_windows",
    "_restore_garbage_collection", "_settings_dir", "make_window", "opened", "ports_ready", "twin_copy",
    "wait_for", "wait_future", "window",
]


@pytest.fixture(autouse=True, scope="session")
def _restore_garbage_collection():
    """The workbench collects garbage on the UI thread only; give it back after these tests."""
    yield
    from luncosim_workbench import gc_guard

    gc_guard.uninstall()


@pytest.fixture(autouse=True)
def _collect_closed_windows():
    """Closed windows and their cycles are collected here, on the UI thread, after each test."""
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def _settings_dir(tmp_path, monkeypatch):
    folder = tmp_path / "settings"
    monkeypatch.setenv("LUNCOSIM_SETTINGS_DIR", str(folder))
    return folder


@pytest.fixture
def twin_copy(tmp_path) -> Path:
    dst = tmp_path / "practice_yard"
    shutil.copytree(DEMO, dst)
    return dst


@pytest.fixture
def make_window(qtbot, tmp_path):
    from luncosim_workbench.main_window import MainWindow

    made = []

    def make(**kw):
        kw.setdefault("settings", tmp_path / "settings")
        kw.setdefault("viewport", False)
        w = MainWindow(**kw)
        # a test that is not about the unsaved-edits prompt must never open a modal dialog
        w.ask_unsaved = lambda _why: "discard"
        qtbot.addWidget(w)
        made.append(w)
        return w

    yield make
    for w in made:
        w.ask_unsaved = lambda _why: "discard"
        w.close()


@pytest.fixture
def window(make_window):
    return make_window()


@pytest.fixture
def opened(window, twin_copy):
    window.show()  # live values are drawn only into visible panels
    assert window.open_path(twin_copy)
    return window


def wait_for(qtbot, predicate, timeout=15000):
    qtbot.waitUntil(predicate, timeout=timeout)


def wait_future(qtbot, fut, timeout=15.0):
    end = time.perf_counter() + timeout
    while not fut.done() and time.perf_counter() < end:
        qtbot.wait(10)
    return fut.result(0)


def ports_ready(window):
    """A predicate: the Ports panel has its port list."""
    ports = window.panels["ports"]
    return lambda: len(ports.model.ports) > 0


def play_ready(window):
    """A predicate: Play is enabled (the scene is built and its programs compiled)."""
    return lambda: window.action("sim.play").isEnabled()
