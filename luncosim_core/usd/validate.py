"""Compose a scene or asset and gather every diagnostic ``luncosim validate`` reports."""

from __future__ import annotations

from pathlib import Path

from pxr import Sdf, Usd

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.twin.roots import AssetRoots
from luncosim_core.twin.twin import USD_SUFFIXES, open_path
from luncosim_core.usd.compose import compose

ASSET_ATTRIBUTES = ("info:sourceAsset",)


def asset_attribute_diagnostics(stage: Usd.Stage, roots: AssetRoots) -> list[Diagnostic]:
    """Check asset-valued program attributes (``info:sourceAsset``) resolve inside the roots."""
    out: list[Diagnostic] = []
    for prim in stage.Traverse():
        for name in ASSET_ATTRIBUTES:
            attr = prim.GetAttribute(name)
            if not attr or not attr.HasAuthoredValue():
                continue
            value = attr.Get()
            authored = value.path if isinstance(value, Sdf.AssetPath) else str(value)
            anchor = _strongest_layer_file(attr)
            result = roots.resolve_file(authored, anchor)
            if result.diagnostic is not None:
                d = result.diagnostic
                out.append(Diagnostic(d.severity, d.code, d.message, path=str(attr.GetPath()), layer=anchor or "", source="twin"))
    return out


def _strongest_layer_file(attr: Usd.Attribute) -> str | None:
    for spec in attr.GetPropertyStack(Usd.TimeCode.Default()):
        layer = spec.layer
        if layer.realPath:
            return layer.realPath
    return None


def validate_path(path: str | Path, lunco_root: Path | None = None, *, lint=None) -> list[Diagnostic]:
    """All diagnostics for one path: a twin folder, a ``twin.toml`` or a USD file.

    ``lint(stage, roots=...)`` (the Rhai lint policies) runs on each composed scene when given.
    """
    path = Path(path)
    if not path.exists():
        return [Diagnostic("error", "validate-not-found", f"{path} does not exist", layer=str(path), source="twin")]
    try:
        opened = open_path(path, lunco_root)
    except DiagnosticError as exc:
        return exc.diagnostics
    diags = list(opened.twin.diagnostics)
    scenes: list[Path] = []
    if opened.scene is not None:
        scenes = [opened.scene]
    elif path.is_dir():
        scenes = opened.twin.scene_entries() or ([] if opened.twin.manifest else [])
        if not scenes:
            diags.append(Diagnostic("info", "twin-no-scene", opened.reason, layer=str(path), source="twin"))
    for scene in scenes:
        if scene.suffix not in USD_SUFFIXES or not scene.exists():
            continue
        diags.extend(validate_scene(scene, opened.twin.roots, opened.twin.composition_policy, lint=lint))
    return diags


def validate_scene(scene: Path, roots: AssetRoots, policy: str = "allow_partial", *, lint=None) -> list[Diagnostic]:
    try:
        composed = compose(scene, roots, policy=policy)
    except DiagnosticError as exc:
        return exc.diagnostics
    diags = list(composed.diagnostics)
    diags.extend(asset_attribute_diagnostics(composed.stage, roots))
    if lint is not None:
        known = {(d.code, d.path) for d in diags}
        diags.extend(d for d in lint(composed.stage, roots=roots) if (d.code, d.path) not in known)
    return diags
