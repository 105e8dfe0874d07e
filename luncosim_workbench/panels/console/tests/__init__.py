"""Tests of the console panel (run with the suite: pytest collects luncosim_workbench/)."""
