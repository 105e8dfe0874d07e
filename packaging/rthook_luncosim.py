"""PyInstaller runtime hook: point OpenUSD at the plugin registrations collected into the bundle."""

import os
import sys

_base = getattr(sys, "_MEIPASS", None)
if _base:
    _plugins = os.path.join(_base, "pxr", "pluginfo")
    if os.path.isdir(_plugins):
        os.environ.setdefault("PXR_PLUGINPATH_NAME", _plugins)
