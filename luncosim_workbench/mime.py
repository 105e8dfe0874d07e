"""Drag-and-drop payload types shared between panels (so no panel imports another)."""

#: A port key per line (``/Prim.port``): dragged from the Ports panel, dropped on Plots.
PORT_MIME = "application/x-luncosim-port"
#: A USD file path: dragged from the Twin Browser, dropped on a prim to add a reference.
ASSET_MIME = "application/x-luncosim-asset"
