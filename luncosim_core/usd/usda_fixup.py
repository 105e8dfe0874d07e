"""Read USDA written with one-line bodies (``over "X" { float a = 1 }``).

Some authoring tools accept several statements on one line inside ``{ ... }`` (prim bodies,
dictionaries); usd-core's text parser needs them on separate lines. :func:`normalize_usda` inserts
line breaks only between statements (never inside strings, asset paths or prim paths), so the
meaning is unchanged. :func:`open_tolerant` opens such a file as an in-memory layer registered under
the identifier USD will ask for, so references to it compose normally.
"""

from __future__ import annotations

from pathlib import Path

from pxr import Sdf

_STATEMENT_START = {
    "def", "over", "class", "custom", "uniform", "rel", "prepend", "append", "add", "delete", "reorder",
    "variantSet", "dictionary", "config",
    "bool", "uchar", "int", "uint", "int64", "uint64", "half", "float", "double", "timecode", "string",
    "token", "asset", "opaque", "pathExpression",
    "matrix2d", "matrix3d", "matrix4d", "quatd", "quatf", "quath",
    "double2", "double3", "double4", "float2", "float3", "float4", "half2", "half3", "half4",
    "int2", "int3", "int4", "point3d", "point3f", "point3h", "normal3d", "normal3f", "normal3h",
    "vector3d", "vector3f", "vector3h", "color3d", "color3f", "color3h", "color4d", "color4f", "color4h",
    "texCoord2d", "texCoord2f", "texCoord2h", "texCoord3d", "texCoord3f", "texCoord3h", "frame4d",
}
_MODIFIERS = {"custom", "uniform", "prepend", "append", "add", "delete", "reorder", "def", "over", "class", "rel", "config"}


def _tokens(text: str):
    """Yield (kind, text) tokens: ws, nl, comment, string, asset, path, punct, word."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            yield "nl", c
            i += 1
        elif c in " \t\r":
            j = i
            while j < n and text[j] in " \t\r":
                j += 1
            yield "ws", text[i:j]
            i = j
        elif c == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            yield "comment", text[i:j]
            i = j
        elif c in "\"'":
            triple = text[i : i + 3]
            if triple in ('"""', "'''"):
                j = text.find(triple, i + 3)
                j = n if j < 0 else j + 3
            else:
                j = i + 1
                while j < n and text[j] != c:
                    j += 2 if text[j] == "\\" else 1
                j = min(n, j + 1)
            yield "string", text[i:j]
            i = j
        elif c == "@":
            if text.startswith("@@@", i):
                j = text.find("@@@", i + 3)
                j = n if j < 0 else j + 3
            else:
                j = text.find("@", i + 1)
                j = n if j < 0 else j + 1
            yield "asset", text[i:j]
            i = j
        elif c == "<":
            j = text.find(">", i + 1)
            j = n if j < 0 else j + 1
            yield "path", text[i:j]
            i = j
        elif c.isalnum() or c in "_-+.:":
            j = i
            while j < n and (text[j].isalnum() or text[j] in "_-+.:[]" and not (text[j] == "[" and j + 1 < n and text[j + 1] != "]")):
                if text[j] == "[":
                    j += 2
                    continue
                j += 1
            yield "word", text[i:j]
            i = j
        else:
            yield "punct", c
            i += 1


def normalize_usda(text: str) -> str:
    """Put every statement inside ``{ ... }`` on its own line."""
    out: list[str] = []
    depth = 0  # brace depth
    line_has_content = False
    prev = ""  # previous significant token
    prev_kind = ""
    for kind, tok in _tokens(text):
        if kind == "nl":
            out.append(tok)
            line_has_content = False
            continue
        if kind in ("ws", "comment"):
            out.append(tok)
            continue
        if kind == "punct" and tok == "{":
            out.append(tok)
            depth += 1
            out.append("\n")
            line_has_content = False
            prev, prev_kind = tok, kind
            continue
        if kind == "punct" and tok == "}":
            if line_has_content:
                out.append("\n")
            out.append(tok)
            depth = max(0, depth - 1)
            line_has_content = True
            prev, prev_kind = tok, kind
            continue
        if (
            depth > 0
            and kind == "word"
            and tok.split("[")[0] in _STATEMENT_START
            and line_has_content
            and prev not in ("=", "(", "[", ",", "{", ":")
            and not (prev_kind == "word" and prev in _MODIFIERS)
        ):
            out.append("\n")
        out.append(tok)
        line_has_content = True
        prev, prev_kind = tok, kind
    return "".join(out)


_FIXED: dict[str, tuple[int, Sdf.Layer]] = {}  # identifier -> (file mtime, layer), kept alive


def open_tolerant(identifier: str, real_path: str | Path, *, cache: bool = True) -> Sdf.Layer | None:
    """Open ``real_path`` with :func:`normalize_usda` as a layer named ``identifier``.

    Returns None when the normalized text still does not parse (the original error stands).
    ``cache=False`` reads the file again even when its mtime has not changed, and does not keep
    a layer that was not kept before (a private copy).
    """
    from luncosim_core.fsutil import MAX_LAYER_BYTES, UnreadableFile, read_text_limited

    path = Path(real_path)
    if path.suffix != ".usda" or not path.exists():
        return None
    mtime = path.stat().st_mtime_ns
    existing = _FIXED.get(identifier)
    if cache and existing is not None and existing[0] == mtime:
        return existing[1]
    try:
        text = normalize_usda(read_text_limited(path, "layer", MAX_LAYER_BYTES))
    except UnreadableFile:
        return None  # not text USD can read: the original parse error stands
    fmt = Sdf.FileFormat.FindByExtension("usda")
    layer = Sdf.Layer.Find(identifier) or Sdf.Layer.New(fmt, identifier)
    try:
        ok = layer.ImportFromString(text)
    except Exception:
        ok = False
    if not ok:
        return None
    if cache or existing is not None:
        _FIXED[identifier] = (mtime, layer)
    return layer
