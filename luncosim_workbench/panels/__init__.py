"""Dock panels: one folder a panel, each discovered through its ``plugin.py`` (``PANEL``).

See :mod:`luncosim_workbench.plugins` and "Add a panel in five steps" in docs/architecture.md.
"""
