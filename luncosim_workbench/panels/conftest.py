"""Fixtures for the panels' own ``tests/`` folders (see :mod:`luncosim_workbench.testing`)."""

from luncosim_workbench.testing import *  # noqa: F403
