"""Small widgets and model bases the panels share (no panel-specific code here)."""
