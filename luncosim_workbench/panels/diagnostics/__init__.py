"""The diagnostics panel."""
