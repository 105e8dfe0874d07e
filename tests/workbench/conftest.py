"""The workbench's shared fixtures live in :mod:`luncosim_workbench.testing` (panels' own test
folders use them too)."""

from luncosim_workbench.testing import *  # noqa: F403
