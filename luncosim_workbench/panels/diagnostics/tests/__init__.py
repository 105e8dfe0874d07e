"""Tests of the diagnostics panel (run with the suite: pytest collects luncosim_workbench/)."""
