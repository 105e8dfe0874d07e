"""The twin browser panel."""
