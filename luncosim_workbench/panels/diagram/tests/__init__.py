"""Tests of the Modelica Diagram panel."""
