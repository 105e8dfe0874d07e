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
DESKTOP_ID = "org.luncosim.Workbench"  # the .desktop entry and AppStream id (packaging/linux)


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
        app.setDesktopFileName(DESKTOP_ID)
        app.setStyle("Fusion")
        from luncosim_workbench import resources

        app.setWindowIcon(resources.app_icon())
    return app


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="luncosim-workbench", description="LunCoSim Workbench")
    parser.add_argument("path", nargs="?", help="a twin folder, twin.toml or a USD scene (default: the demo twin)")
    parser.add_argument("--perspective", choices=["Build", "Simulate", "Debug"], help="start in this perspective")
    parser.add_argument("--no-viewport", action="store_true", help="show a placeholder instead of the 3D viewport")
    parser.add_argument("--quit-after", type=float, metavar="SECONDS",
                        help="close after SECONDS (smoke tests of an installed bundle); exit 1 if the twin did not open")
    args = parser.parse_args(argv)
    app = ensure_app()
    from luncosim_workbench.main_window import MainWindow

    window = MainWindow(viewport=not args.no_viewport)
    if args.perspective:
        window.apply_perspective(args.perspective)
    window.show()
    target = Path(args.path) if args.path else demo_twin()
    opened = window.open_path(target)
    if not opened:
        print(f"luncosim-workbench: could not open {target}", file=sys.stderr)
    if args.quit_after is not None:
        from PySide6.QtCore import QTimer

        def finish() -> None:
            snap = window.bridge.latest
            print(f"luncosim-workbench: {target} {'opened' if opened else 'did not open'}; "
                  f"simulation {snap.status if snap else 'not running'} at tick {snap.tick if snap else '-'}")
            window.ask_unsaved = lambda _why: "discard"
            window.close()
            app.exit(0 if opened and snap is not None else 1)

        QTimer.singleShot(int(args.quit_after * 1000), finish)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
