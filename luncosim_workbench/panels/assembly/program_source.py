"""Open source: a program prim's source in the editor, its file or its inline ``info:sourceCode``."""

from __future__ import annotations

from luncosim_core.text.inline_source import InlineSourceDocument, inline_source_path
from luncosim_core.usd.ops import SetAttribute
from luncosim_core.usd.programs import is_program_prim, program_language, program_source
from luncosim_workbench.context import PanelContext


def has_source(prim) -> bool:
    """A program prim with a source the editor can open (a file, or inline Modelica or Rhai)."""
    return bool(prim) and is_program_prim(prim) and program_language(prim) in ("modelica", "rhai")


def open_program_source(ctx: PanelContext, prim_path: str) -> str:
    """Open ``prim_path``'s source in the editor; returns what happened, in a sentence."""
    doc = ctx.documents.scene
    prim = doc.stage.GetPrimAtPath(prim_path) if doc is not None and prim_path else None
    if not prim:
        return "select a program prim first"
    if not has_source(prim):
        return f"{prim_path} has no Modelica or Rhai source to open"
    twin = ctx.workspace.twin
    file, text = program_source(prim, twin.roots if twin is not None else None)
    if file is not None:
        ctx.open_location(str(file))
        return f"opened {file.name}"
    if text is None:
        return f"{prim_path}'s source asset does not resolve to a file"
    language = program_language(prim)
    name = inline_source_path(doc.path, prim_path, language)
    source = ctx.documents.get(name)
    if source is not None and getattr(source, "owner", doc) is not doc:  # left from a scene since closed
        ctx.documents.remove(source)
        source = None
    if source is None:
        def read(_doc=doc, _path=prim_path) -> str | None:
            p = _doc.stage.GetPrimAtPath(_path)
            attr = p.GetAttribute("info:sourceCode") if p else None
            return str(attr.Get()) if attr and attr.HasAuthoredValue() else None

        def commit(text: str, _path=prim_path) -> None:
            ctx.apply(SetAttribute(path=_path, name="info:sourceCode", value=text, type_name="string"))

        source = InlineSourceDocument(doc.path, prim_path, language, read=read, commit=commit, owner=doc)
        ctx.documents.add(source)
    ctx.open_location(str(source.path))
    return f"opened {prim_path}.info:sourceCode (saving it edits the scene)"
