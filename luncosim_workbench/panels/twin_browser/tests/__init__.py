"""Tests of the twin_browser panel (run with the suite: pytest collects luncosim_workbench/)."""
