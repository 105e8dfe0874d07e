"""The ports panel."""
