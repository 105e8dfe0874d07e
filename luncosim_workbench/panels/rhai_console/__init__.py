"""The Rhai console panel: a REPL against the running simulation's host API."""
