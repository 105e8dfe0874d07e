"""USD: stage composition with diagnostics, the three-layer document, typed ops and the journal."""
