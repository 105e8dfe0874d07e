"""Twins: the ``twin.toml`` manifest, asset roots and URIs, the library index, entry points."""

from luncosim_core.twin.manifest import ManifestError, TwinManifest, load_manifest
from luncosim_core.twin.roots import AssetRoots, default_lunco_root
from luncosim_core.twin.twin import OpenResult, Twin, open_path

__all__ = [
    "AssetRoots",
    "ManifestError",
    "OpenResult",
    "Twin",
    "TwinManifest",
    "default_lunco_root",
    "load_manifest",
    "open_path",
]
