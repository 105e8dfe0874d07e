"""The assembly panel."""
