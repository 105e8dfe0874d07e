"""The plots panel."""
