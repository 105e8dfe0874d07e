"""The console panel."""
