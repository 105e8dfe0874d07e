"""Tests of the ports panel (run with the suite: pytest collects luncosim_workbench/)."""
