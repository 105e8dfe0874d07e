"""Tests of the plots panel (run with the suite: pytest collects luncosim_workbench/)."""
