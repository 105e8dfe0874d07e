"""The Modelica and Rhai source editor panel."""
