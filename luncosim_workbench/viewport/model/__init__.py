"""Pure scene model of the viewport (numpy + pxr only; no Qt, no GL)."""
