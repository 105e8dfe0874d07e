"""Scripting: the Rhai interpreter and the scenario runtime built on it."""
