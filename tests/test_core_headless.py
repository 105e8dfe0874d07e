"""luncosim_core must import with Qt, vispy and pyqtgraph unavailable."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

BLOCKER = r"""
import importlib, pkgutil, sys
class Block:
    def find_spec(self, name, path=None, target=None):
        root = name.split(".")[0]
        if root in ("PySide6", "shiboken6", "vispy", "pyqtgraph", "qtawesome", "superqt", "PyQt5", "PyQt6", "OpenGL"):
            raise ImportError(f"blocked GUI package {name}")
        return None
sys.meta_path.insert(0, Block())
import luncosim_core
failed = []
count = 0
for mod in pkgutil.walk_packages(luncosim_core.__path__, "luncosim_core."):
    try:
        importlib.import_module(mod.name)
        count += 1
    except ImportError as exc:
        if "blocked GUI package" in str(exc):
            failed.append(f"{mod.name}: {exc}")
        else:
            raise
print(count)
if failed:
    print("\n".join(failed)); sys.exit(1)
"""


def test_every_core_module_imports_without_gui_packages():
    proc = subprocess.run([sys.executable, "-c", BLOCKER], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert int(proc.stdout.strip().splitlines()[0]) >= 10  # it really walked the package


def test_no_gui_import_statements_in_core_sources():
    offenders = []
    for path in (REPO / "luncosim_core").rglob("*.py"):
        for line in path.read_text().splitlines():
            s = line.strip()
            if s.startswith(("import ", "from ")) and any(
                f" {name}" in s or f" {name}." in s for name in ("PySide6", "vispy", "pyqtgraph", "shiboken6")
            ):
                offenders.append(f"{path}: {s}")
    assert not offenders, offenders
