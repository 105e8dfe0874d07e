"""Start the workbench: ``python -m luncosim_workbench [TWIN_OR_SCENE]`` (default: the demo twin)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from luncosim_core.twin.roots import repository_root

DEMO_TWIN = Path("assets") / "twins" / "practice_yard"


def demo_twin() -> Path:
    return repository_root() / DEMO_TWIN


UI_SWITCH_INTERVAL_S = 0.001


def ensure_app():
    """The QApplication (created on first use, with the workbench's name and style).

    Also shortens the interpreter's thread switch interval: the simulation thread runs Python
    continuously, and the UI thread waits up to one interval each time Qt calls back into Python."""
    from PySide6.QtWidgets import QApplication

    sys.setswitchinterval(min(sys.getswitchinterval(), UI_SWITCH_INTERVAL_S))
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("LunCoSim Workbench")
        app.setOrganizationName("LunCoSim")
        app.setStyle("Fusion")
    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="luncosim-workbench", description="LunCoSim Workbench")
    parser.add_argument("path", nargs="?", help="a twin folder, twin.toml or a USD scene (default: the demo twin)")
    parser.add_argument("--perspective", choices=["Build", "Simulate", "Debug"], help="start in this perspective")
    parser.add_argument("--no-viewport", action="store_true", help="show a placeholder instead of the 3D viewport")
    args = parser.parse_args(argv)
    app = ensure_app()
    from luncosim_workbench.main_window import MainWindow

    window = MainWindow(viewport=not args.no_viewport)
    if args.perspective:
        window.apply_perspective(args.perspective)
    window.show()
    target = Path(args.path) if args.path else demo_twin()
    if not window.open_path(target):
        print(f"luncosim-workbench: could not open {target}", file=sys.stderr)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
