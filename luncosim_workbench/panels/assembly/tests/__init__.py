"""Tests of the assembly panel (run with the suite: pytest collects luncosim_workbench/)."""
