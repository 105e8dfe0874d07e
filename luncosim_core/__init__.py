"""LunCoSim Workbench headless core: twins, USD documents, physics, ports, Modelica, Rhai, runtime.

This package never imports Qt, vispy or pyqtgraph (``tests/test_core_headless.py`` enforces it).
"""

__version__ = "0.1.0"
