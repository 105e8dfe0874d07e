"""The scene model stays importable without Qt or GL; the package loads vispy/Qt only on demand."""

from __future__ import annotations

import os
import subprocess
import sys

CHECK = """
import sys
import luncosim_workbench.viewport as vp
from luncosim_workbench.viewport.model import geometry, overlays, picking, scene_model, camera_math
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('vispy', 'PySide6', 'OpenGL', 'pyqtgraph', 'pybullet'))
print('HEAVY:' + ','.join(heavy))
"""


def test_model_imports_without_qt_or_vispy():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    line = next(x for x in out.stdout.splitlines() if x.startswith("HEAVY:"))
    assert line == "HEAVY:"


def test_lazy_names_resolve():
    import luncosim_workbench.viewport as vp

    assert callable(vp.render_stage_to_png)
    assert vp.ViewportCanvas.__name__ == "ViewportCanvas"


OFFSCREEN = """
import sys
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from luncosim_workbench.viewport import ViewportWidget
assert not ViewportWidget.can_draw()
try:
    ViewportWidget()
except RuntimeError as exc:
    print("REFUSED:", exc)
"""


def test_widget_refuses_qt_offscreen_platform_with_a_message():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    out = subprocess.run(
        [sys.executable, "-c", OFFSCREEN], capture_output=True, text=True, env=env, check=True
    )
    assert "REFUSED:" in out.stdout and "xvfb-run" in out.stdout
