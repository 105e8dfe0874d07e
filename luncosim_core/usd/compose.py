"""Compose a scene: resolve URIs, refuse escapes, keep partial stages, report what is missing.

Policy (the composition rules): a missing sublayer, reference or payload keeps everything that did
resolve and records, in authored order, a warning naming the referring layer and the dependency;
``reject_scene`` turns those into a failed open listing the pairs. A malformed layer is an error
with file and line. An escaping asset path is refused (its layer is muted) with an error.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pxr import Ar, Sdf, Tf, Usd

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.fsutil import MAX_LAYER_BYTES, file_problem
from luncosim_core.twin.roots import AssetRoots
from luncosim_core.usd.tferrors import safe_text, tf_error_text
from luncosim_core.usd.usda_fixup import open_tolerant

_OPEN_ASSET_RE = re.compile(
    r"Could not open asset @(?P<dep>[^@]*)@ for (?P<arc>\w+) introduced by @(?P<layer>[^@]*)@(?:<(?P<path>[^>]*)>)?"
)
_SUBLAYER_RE = re.compile(r"Could not load sublayer @(?P<dep>[^@]*)@ of layer @(?P<layer>[^@]*)@")
_ERROR_IN_RE = re.compile(r"Error in '[^']*' at line \d+ in file [^:]* : '(?P<msg>.*)'", re.S)
_PARSE_RE = re.compile(r"(?P<file>/[^\s:]*(?::/[^\s:]*)?|[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<msg>.*)", re.S)


class CompositionRejected(DiagnosticError):
    """``composition_policy = reject_scene`` and at least one arc did not resolve."""


@dataclass
class ComposedStage:
    """A composed stage and everything composition had to say about it."""

    stage: Usd.Stage
    roots: AssetRoots
    diagnostics: list[Diagnostic] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)  # (referring layer, dependency)


def uri_display(asset: str) -> str:
    """``lunco:/a/b.usda`` (the search-path form) back to ``lunco://a/b.usda``."""
    for scheme in ("lunco", "twin"):
        if asset.startswith(f"{scheme}:/") and not asset.startswith(f"{scheme}://"):
            return f"{scheme}://" + asset[len(scheme) + 2 :]
    return asset


def layer_display(identifier: str, roots: AssetRoots | None = None) -> str:
    """A readable layer name: the file path, or the URI form for layers reached through a URI (a
    private copy of a file, see :func:`open_layer`, is named by its file)."""
    return uri_display(private_source(identifier) or identifier)


_PRIVATE_ARG = "luncosim_private"
_PRIVATE_SIBLING = re.compile(r"^(?P<dir>.*/)\.(?P<stem>[^/]+)\.luncosim-private-\d+(?P<ext>\.[^./]+)$")
_private_serial = itertools.count(1)


def private_source(identifier: str) -> str | None:
    """The file a private layer copy (:func:`open_layer` ``private=True``) was read from, else None."""
    path, args = Sdf.Layer.SplitIdentifier(identifier)
    if _PRIVATE_ARG in args:
        return path
    m = _PRIVATE_SIBLING.match(identifier)
    return m.group("dir") + m.group("stem") + m.group("ext") if m else None


def parse_layer_error(text: str) -> tuple[str | None, int | None, int | None, str]:
    """Pull ``file:line:col: message`` out of a USD parser error."""
    for chunk in reversed(text.split(" -- ")):
        m = _PARSE_RE.search(chunk.strip().strip("'"))
        if m:
            msg = m.group("msg").strip().rstrip("'").strip()
            msg = msg.split("\n")[0].rstrip(";").strip()
            file = m.group("file")
            if os.path.exists(file):
                file = os.path.realpath(file)
            return file, int(m.group("line")), int(m.group("col")), msg
    m = _ERROR_IN_RE.search(text)
    if m:  # "Error in 'pxr...::Fn' at line N in file X : 'message'": keep the message
        return None, None, None, m.group("msg").strip()
    return None, None, None, text.strip()


def crate_problem(path: str) -> str | None:
    """Why a binary (crate) layer cannot be read, checked in a child process; None for text."""
    try:
        with open(path, "rb") as f:
            if f.read(8) != b"PXR-USDC":
                return None
    except OSError:
        return None
    from luncosim_core.usd.crate_check import crate_problem as ask

    return ask(path)


def open_layer(path: str | Path, roots: AssetRoots, *, private: bool = False) -> Sdf.Layer:
    """Open one layer file; a malformed file raises :class:`DiagnosticError` with file and line.

    Only a regular file under the size limit is opened (a FIFO would block, a device never ends).
    ``private=True`` reads the file into a layer of its own, never USD's shared (cached) layer of
    that file: its identifier carries a file-format argument (``PATH:SDF_FORMAT_ARGS:luncosim_private=N``)
    so relative asset paths still anchor at the file's folder, and edits of either copy never
    reach the other."""
    path = str(path)
    if private:
        return _open_private(path, roots)
    problem = file_problem(path, "layer", MAX_LAYER_BYTES)
    if problem:
        code = "usd-layer-missing" if not os.path.lexists(path) else "usd-layer-unreadable"
        raise DiagnosticError(Diagnostic("error", code, problem, layer=path, source="usd"))
    crate = crate_problem(path)  # a binary layer is read in a child first: corruption can crash USD
    if crate:
        raise DiagnosticError(Diagnostic("error", "usd-malformed-layer", f"malformed layer: not a valid USD file ({crate})",
                                         layer=path, source="usd"))
    try:
        with Ar.ResolverContextBinder(roots.resolver_context()), Tf.DiagnosticTrap() as trap:
            layer = Sdf.Layer.FindOrOpen(path)
            trap.Clear()
    except Tf.ErrorException as exc:
        fixed = open_tolerant(os.path.abspath(path), path)
        if fixed is not None:
            return fixed
        file, line, col, msg = parse_layer_error(tf_error_text(exc))
        if "Corrupt asset" in msg or "corrupt" in msg.lower():
            msg = f"not a valid USD file (the crate reader says: {msg})"
        raise DiagnosticError(
            Diagnostic("error", "usd-malformed-layer", f"malformed layer: {msg}", layer=file or path, line=line, column=col, source="usd")
        ) from exc
    if layer is None:
        raise DiagnosticError(Diagnostic("error", "usd-layer-missing", f"cannot open layer {path}: no such file", layer=path, source="usd"))
    try:
        with Tf.DiagnosticTrap() as trap:
            too_deep = namespace_problem(layer)
            trap.Clear()
    except Tf.ErrorException as exc:  # a crate file unpacks lazily: corruption shows on first read
        _file, _line, _col, msg = parse_layer_error(tf_error_text(exc))
        raise DiagnosticError(Diagnostic("error", "usd-malformed-layer",
                                         f"malformed layer: not a valid USD file (the crate reader says: {msg})",
                                         layer=path, source="usd")) from exc
    if too_deep:
        raise DiagnosticError(Diagnostic("error", "usd-namespace-too-deep", too_deep, layer=path, source="usd"))
    return layer


def _open_private(path: str, roots: AssetRoots) -> Sdf.Layer:
    problem = file_problem(path, "layer", MAX_LAYER_BYTES)
    if problem:
        code = "usd-layer-missing" if not os.path.lexists(path) else "usd-layer-unreadable"
        raise DiagnosticError(Diagnostic("error", code, problem, layer=path, source="usd"))
    crate = crate_problem(path)
    if crate:
        raise DiagnosticError(Diagnostic("error", "usd-malformed-layer", f"malformed layer: not a valid USD file ({crate})",
                                         layer=path, source="usd"))
    serial = str(next(_private_serial))
    try:
        with Ar.ResolverContextBinder(roots.resolver_context()), Tf.DiagnosticTrap() as trap:
            layer = Sdf.Layer.FindOrOpen(path, {_PRIVATE_ARG: serial})
            trap.Clear()
    except Tf.ErrorException as exc:
        # a file only the tolerant reader takes: an in-memory layer named as a sibling of the file
        # (never written), so its relative asset paths anchor at the same folder
        folder, name = os.path.split(os.path.abspath(path))
        stem, ext = os.path.splitext(name)
        fixed = open_tolerant(os.path.join(folder, f".{stem}.luncosim-private-{serial}{ext}"), path, cache=False)
        if fixed is not None:
            return fixed
        file, line, col, msg = parse_layer_error(tf_error_text(exc))
        raise DiagnosticError(
            Diagnostic("error", "usd-malformed-layer", f"malformed layer: {msg}", layer=file or path, line=line, column=col, source="usd")
        ) from exc
    if layer is None:
        raise DiagnosticError(Diagnostic("error", "usd-layer-missing", f"cannot open layer {path}: no such file", layer=path, source="usd"))
    too_deep = namespace_problem(layer)
    if too_deep:
        raise DiagnosticError(Diagnostic("error", "usd-namespace-too-deep", too_deep, layer=path, source="usd"))
    return layer


def reread_layer(layer: Sdf.Layer, path: str | Path, roots: AssetRoots) -> None:
    """Replace ``layer``'s content with the file's text as it is now (its unsaved edits are gone);
    a file that no longer parses raises :class:`DiagnosticError` and leaves the layer as it was."""
    path = str(path)
    problem = file_problem(path, "layer", MAX_LAYER_BYTES)
    if problem:
        code = "usd-layer-missing" if not os.path.lexists(path) else "usd-layer-unreadable"
        raise DiagnosticError(Diagnostic("error", code, problem, layer=path, source="usd"))
    error = None
    try:
        with Ar.ResolverContextBinder(roots.resolver_context()), Tf.DiagnosticTrap() as trap:
            ok = layer.Reload(True)  # False for an in-memory layer the tolerant reader made
            trap.Clear()
        if ok:
            return
    except Tf.ErrorException as exc:
        error = exc
    if open_tolerant(layer.identifier, path, cache=False) is not None:
        return
    file, line, col, msg = parse_layer_error(tf_error_text(error)) if error is not None else (None, None, None, "cannot be read")
    raise DiagnosticError(Diagnostic("error", "usd-malformed-layer", f"malformed layer: {msg}", layer=file or path,
                                     line=line, column=col, source="usd")) from error


MAX_NAMESPACE_DEPTH = 512  # prims nested deeper than this are refused (no real asset comes close)


def namespace_problem(layer: Sdf.Layer) -> str | None:
    """Why ``layer`` is refused for its namespace depth (None when it is fine)."""
    deepest = [0, ""]

    def visit(path: Sdf.Path) -> None:
        if path.IsPrimPath() and path.pathElementCount > deepest[0]:
            deepest[0], deepest[1] = path.pathElementCount, path

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    if deepest[0] <= MAX_NAMESPACE_DEPTH:
        return None
    shown = str(deepest[1].GetPrefixes()[MAX_NAMESPACE_DEPTH])
    return (f"prims are nested {deepest[0]} levels deep (the limit is {MAX_NAMESPACE_DEPTH}; "
            f"first over it: {shown[:120]}{'...' if len(shown) > 120 else ''})")


def _listop_items(listop) -> list:
    items = []
    for part in (listop.explicitItems, listop.prependedItems, listop.appendedItems, listop.addedItems):
        items.extend(part)
    return items


def authored_dependencies(layer: Sdf.Layer) -> list[str]:
    """Asset paths of sublayers, references and payloads, in authored (namespace) order."""
    deps: list[str] = list(layer.subLayerPaths)
    stack = list(reversed(layer.rootPrims))  # iterative: namespaces can be thousands deep
    while stack:
        spec = stack.pop()
        for ref in _listop_items(spec.referenceList):
            if ref.assetPath:
                deps.append(ref.assetPath)
        for pay in _listop_items(spec.payloadList):
            if pay.assetPath:
                deps.append(pay.assetPath)
        children = [variant.primSpec for vset in spec.variantSets.values() for variant in vset.variants.values()]
        children += list(spec.nameChildren)
        stack.extend(reversed(children))

    seen: set[str] = set()
    return [d for d in deps if not (d in seen or seen.add(d))]


def asset_closure(authored: str, anchor: Sdf.Layer, roots: AssetRoots) -> list[str]:
    """The real path of the file ``authored`` (an asset path written in ``anchor``) resolves to,
    then of every file it brings in (sublayers, references, payloads), depth first; refused,
    missing and unreadable ones are left out (an empty list: ``authored`` itself is)."""
    resolver = Ar.GetResolver()
    out: list[str] = []
    seen: set[str] = set()

    def resolve(dep: str, layer: Sdf.Layer) -> str | None:
        anchor_path = layer.realPath or layer.identifier
        if roots.check(dep, anchor_path if not layer.anonymous else None).refused:
            return None
        ident = resolver.CreateIdentifier(dep, Ar.ResolvedPath(layer.resolvedPath or anchor_path))
        resolved = str(resolver.Resolve(ident))
        if not resolved or file_problem(resolved, "layer", MAX_LAYER_BYTES) or crate_problem(resolved):
            return None
        return ident

    with Ar.ResolverContextBinder(roots.resolver_context()):
        stack = [(authored, anchor)]
        while stack:
            dep, layer = stack.pop()
            ident = resolve(dep, layer)
            if ident is None:
                continue
            real = os.path.realpath(str(resolver.Resolve(ident)))
            if real in seen:
                continue
            seen.add(real)
            out.append(real)
            try:
                with Tf.DiagnosticTrap() as trap:
                    child = Sdf.Layer.FindOrOpen(ident)
                    trap.Clear()
            except Tf.ErrorException:
                continue
            if child is not None:
                stack.extend((d, child) for d in reversed(authored_dependencies(child)))
    return out


def _walk_dependencies(root: Sdf.Layer, roots: AssetRoots) -> tuple[list[tuple[str, str]], list[Diagnostic], list[tuple[str, str]]]:
    """Depth-first walk of the layer closure in authored order.

    Returns the authored order of (referring real path, dependency) pairs, escape diagnostics,
    and the (anchor identifier, authored path) pairs that were refused.
    """
    order: list[tuple[str, str]] = []
    problems: list[Diagnostic] = []
    refused: list[tuple[str, str]] = []
    seen: set[str] = set()
    resolver = Ar.GetResolver()

    def visit(layer: Sdf.Layer) -> None:
        if layer.identifier in seen:
            return
        seen.add(layer.identifier)
        anchor = layer.realPath or layer.identifier
        for dep in authored_dependencies(layer):
            order.append((layer.identifier, dep))
            check = roots.check(dep, anchor, layer=layer_display(layer.identifier, roots))
            if check.refused:
                problems.append(check.diagnostic)
                refused.append((layer.identifier, dep))
                continue
            ident = resolver.CreateIdentifier(dep, Ar.ResolvedPath(layer.resolvedPath or anchor))
            resolved = str(resolver.Resolve(ident))
            problem = file_problem(resolved, "layer", MAX_LAYER_BYTES) if resolved else None
            if not problem and resolved and (crate := crate_problem(resolved)):
                problem = f"{resolved} is not a valid USD file ({crate})"
            if problem and os.path.lexists(resolved):  # a missing file is reported by composition
                problems.append(Diagnostic("error", "usd-layer-unreadable", f"@{uri_display(dep)}@: {problem}; refused",
                                           layer=layer_display(layer.identifier, roots), source="usd"))
                refused.append((layer.identifier, dep))
                Sdf.Layer.AddToMutedLayers(ident)  # USD must never try to read it (a FIFO blocks)
                continue
            try:
                with Tf.DiagnosticTrap() as trap:
                    child = Sdf.Layer.FindOrOpen(ident)
                    trap.Clear()
            except Tf.ErrorException:
                resolved = str(resolver.Resolve(ident))
                child = open_tolerant(resolved, os.path.realpath(resolved)) if resolved else None
                if child is None:
                    continue  # malformed: reported by composition with file and line
            if child is not None:
                too_deep = namespace_problem(child)
                if too_deep:
                    problems.append(Diagnostic("error", "usd-namespace-too-deep", f"@{uri_display(dep)}@: {too_deep}; refused",
                                               layer=layer_display(layer.identifier, roots), source="usd"))
                    refused.append((layer.identifier, dep))
                    continue
                visit(child)

    with Ar.ResolverContextBinder(roots.resolver_context()):
        visit(root)
    return order, problems, refused


def compose(
    path: str | Path,
    roots: AssetRoots,
    *,
    policy: str = "allow_partial",
    session_layer: Sdf.Layer | None = None,
    root_layer: Sdf.Layer | None = None,
) -> ComposedStage:
    """Open ``path`` as a stage under ``roots`` and collect its composition diagnostics."""
    path = Path(path)
    root = root_layer or open_layer(path, roots)
    root_name = str(path)
    order, problems, refused = _walk_dependencies(root, roots)
    stage, muted, errors = _open_muted(root, roots, refused, session_layer, problems)
    # a refused arc is reported once, as an escape: skip USD's own error for it, in either the
    # authored spelling or the identifier USD made of it (the one that was muted)
    refused_deps = {uri_display(d) for _, d in refused} | {uri_display(i) for i in muted}
    missing, arc_prim, malformed = _classify_errors(errors, refused_deps, roots, root_name)
    missing, arc_prim = _in_authored_order(order, missing, arc_prim, roots)
    # de-duplicate (the same arc is reported once per prim that composes it)
    seen: set[tuple[str, str]] = set()
    pairs: list[tuple[str, str]] = []
    diags: list[Diagnostic] = list(problems) + malformed
    for layer, dep, kind in missing:
        if (layer, dep) in seen:
            continue
        seen.add((layer, dep))
        pairs.append((layer, dep))
        diags.append(
            Diagnostic("warning" if policy == "allow_partial" else "error", "usd-missing-arc",
                       f"missing {kind} @{dep}@ referred to by {layer}", layer=layer, source="usd",
                       path=arc_prim.get((layer, dep), ""),
                       data={"dependency": dep, "arc": kind})
        )
    if policy == "reject_scene" and pairs:
        listing = "; ".join(f"{lay} -> @{dep}@" for lay, dep in pairs)
        raise CompositionRejected(
            [Diagnostic("error", "usd-scene-rejected",
                        f"composition_policy reject_scene: {len(pairs)} arc(s) did not resolve: {listing}",
                        layer=root_name, source="usd", data={"missing": pairs})] + diags
        )
    diags.extend(stage_metadata_diagnostics(stage, root_name))
    return ComposedStage(stage=stage, roots=roots, diagnostics=diags, missing=pairs)


def _open_muted(root: Sdf.Layer, roots: AssetRoots, refused: list[tuple[str, str]], session_layer: Sdf.Layer | None,
                problems: list[Diagnostic]) -> tuple[Usd.Stage, list[str], list]:
    """Open the stage, mute what was refused and every used layer outside the roots; the muted
    identifiers and USD's composition errors (``problems`` gains the escapes)."""
    ctx = roots.resolver_context()
    with Ar.ResolverContextBinder(ctx), Tf.DiagnosticTrap() as trap:
        if session_layer is not None:
            stage = Usd.Stage.Open(root, session_layer, ctx, Usd.Stage.LoadAll)
        else:
            stage = Usd.Stage.Open(root, ctx, Usd.Stage.LoadAll)
        muted: list[str] = []
        resolver = Ar.GetResolver()
        for anchor_id, dep in refused:
            anchor_layer = Sdf.Layer.Find(anchor_id)
            base = anchor_layer.resolvedPath if anchor_layer is not None else anchor_id
            muted.append(resolver.CreateIdentifier(dep, Ar.ResolvedPath(str(base))))
        for layer in stage.GetUsedLayers():
            if layer.anonymous or not layer.realPath:
                continue
            if not roots.contains(layer.realPath) and layer.identifier != root.identifier:
                muted.append(layer.identifier)
                problems.append(
                    Diagnostic("error", "asset-escape-link",
                               f"layer {layer.realPath} lies outside the allowed roots; refused",
                               layer=layer_display(layer.identifier, roots), source="twin")
                )
        if muted:
            stage.MuteAndUnmuteLayers(sorted(set(muted)), [])
        errors = list(stage.GetCompositionErrors())
        trap.Clear()
    return stage, muted, errors


def _classify_errors(errors: list, refused_deps: set[str], roots: AssetRoots, root_name: str):
    """USD's composition errors as (missing arcs, the prim of each arc, malformed-layer diagnostics)."""
    missing: list[tuple[str, str, str]] = []  # (layer, dep, kind)
    arc_prim: dict[tuple[str, str], str] = {}  # (layer, dep) -> the prim whose arc it is
    malformed: list[Diagnostic] = []
    for err in errors:
        text = safe_text(err).strip()
        m = _OPEN_ASSET_RE.search(text) or _SUBLAYER_RE.search(text)
        if not m:
            malformed.append(Diagnostic("error", "usd-composition-error", text, layer=root_name, source="usd"))
            continue
        dep = uri_display(m.group("dep"))
        referring = layer_display(m.group("layer"), roots)
        kind = m.groupdict().get("arc") or "sublayer"
        if dep in refused_deps:
            continue
        if " -- " in text:
            file, line, col, msg = parse_layer_error(text)
            malformed.append(
                Diagnostic("error", "usd-malformed-layer",
                           f"{kind} @{dep}@ of {referring} is malformed: {msg}",
                           layer=file or dep, line=line, column=col, path=m.groupdict().get("path") or "", source="usd")
            )
            continue
        missing.append((referring, dep, kind))
        arc_prim.setdefault((referring, dep), m.groupdict().get("path") or "")
    return missing, arc_prim, malformed


def _in_authored_order(order: list[tuple[str, str]], missing: list[tuple[str, str, str]],
                       arc_prim: dict[tuple[str, str], str], roots: AssetRoots):
    """Missing arcs in authored order (their place in the dependency walk), each named as
    authored. USD names a relative dependency by its anchored path; both spellings map back."""
    authored_at: dict[tuple[str, str], tuple[int, str]] = {}
    for i, (lid, d) in enumerate(order):
        referring_name = layer_display(lid, roots)
        anchored = d if "://" in d or os.path.isabs(d) else os.path.normpath(os.path.join(os.path.dirname(lid), d))
        for spelling in (uri_display(d), anchored):
            authored_at.setdefault((referring_name, spelling), (i, uri_display(d)))

    def rank(item: tuple[str, str, str]) -> int:
        return authored_at.get((item[0], item[1]), (len(order), ""))[0]

    shown = {(lay, dep): authored_at.get((lay, dep), (0, dep))[1] or dep for lay, dep, _ in missing}
    arc_prim = {(lay, shown[(lay, dep)]): prim for (lay, dep), prim in arc_prim.items()}
    missing = [(lay, shown[(lay, dep)], kind) for lay, dep, kind in missing]
    missing.sort(key=rank)
    return missing, arc_prim


def stage_metadata_diagnostics(stage: Usd.Stage, layer_name: str) -> list[Diagnostic]:
    """A defaultPrim naming nothing, and a stage with nothing on it.

    Unauthored defaultPrim / upAxis / metersPerUnit are a lint policy (``missing-stage-metadata``
    in ``assets/scripting/policy/stage.rhai``), reported by ``luncosim validate`` and the
    workbench's Diagnostics.
    """
    out: list[Diagnostic] = []
    root = stage.GetRootLayer()
    if root.HasDefaultPrim() and not stage.GetDefaultPrim():
        out.append(Diagnostic("error", "stage-default-prim-invalid",
                              f"defaultPrim '{root.defaultPrim}' names no prim on the stage", layer=layer_name, source="usd"))
    if not any(True for _ in stage.GetPseudoRoot().GetChildren()):
        out.append(Diagnostic("warning", "stage-empty", "the composed stage defines no prims (only overs or classes, or nothing)", layer=layer_name, source="usd"))
    return out
