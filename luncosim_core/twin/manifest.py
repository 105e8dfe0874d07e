"""``twin.toml``: the one place a twin names itself and its default scene.

Parsed with :mod:`tomllib`. Unknown keys and wrong types are errors naming the key, the file and
the line, so a typo never silently becomes a default.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from luncosim_core.diagnostics import Diagnostic, DiagnosticError
from luncosim_core.fsutil import UnreadableFile, read_text_limited

MANIFEST_NAME = "twin.toml"
MAX_MANIFEST_BYTES = 1024 * 1024
COMPOSITION_POLICIES = ("allow_partial", "reject_scene")

# table -> key -> accepted python types
_SCHEMA: dict[str, dict[str, tuple[type, ...]]] = {
    "": {"name": (str,), "version": (str,), "description": (str,), "usd": (dict,), "ports": (dict,)},
    "usd": {
        "default_scene": (str,),
        "runtime_persistence": (bool,),
        "scenes": (list,),
        "composition_policy": (str,),
    },
    "ports": {
        "strict_public_outputs": (bool,),
    },
}


class ManifestError(DiagnosticError):
    """The manifest could not be read; every problem is a diagnostic with file and line."""


@dataclass(frozen=True)
class TwinManifest:
    """The validated content of ``twin.toml``."""

    path: Path
    name: str
    version: str = "0.0.0"
    description: str = ""
    default_scene: str | None = None
    runtime_persistence: bool = False
    scenes: tuple[str, ...] = ()
    composition_policy: str = "allow_partial"
    strict_public_outputs: bool = False  # [ports]: refuse wires to undeclared model outputs
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.path.parent


def _line_of(text: str, table: str, key: str) -> int | None:
    """Line (1-based) where ``key`` is assigned inside ``[table]`` ('' = top level)."""
    current = ""
    key_re = re.compile(rf"^\s*(\"{re.escape(key)}\"|'{re.escape(key)}'|{re.escape(key)})\s*=")
    dotted_re = re.compile(rf"^\s*{re.escape(table)}\.{re.escape(key)}\s*=") if table else None
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"^\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1).strip()
            continue
        if current == table and key_re.match(line):
            return number
        if dotted_re is not None and current == "" and dotted_re.match(line):
            return number
    if table:
        for number, line in enumerate(text.splitlines(), start=1):
            if re.match(rf"^\s*\[\s*{re.escape(table)}\s*\]", line) and key == "":
                return number
    return None


def _escapes(relative: str) -> bool:
    """A manifest path that is not twin-relative: absolute, climbing out, or a URI."""
    return relative.startswith(("/", "~")) or ".." in Path(relative).parts or "://" in relative or "\x00" in relative


def load_manifest(path: str | Path) -> TwinManifest:
    """Read and validate a ``twin.toml``; raise :class:`ManifestError` listing every problem."""
    path = Path(path)
    file = str(path)
    text, data = _read_manifest(path)
    problems: list[Diagnostic] = []
    _check_table(problems, text, file, "", data)
    usd = data.get("usd", {})
    if isinstance(usd, dict):
        _check_table(problems, text, file, "usd", usd)
    else:
        usd = {}
    ports = data.get("ports", {})
    if isinstance(ports, dict):
        _check_table(problems, text, file, "ports", ports)
    else:
        ports = {}
    scenes = usd.get("scenes", [])
    policy = usd.get("composition_policy", "allow_partial")
    default_scene = usd.get("default_scene")
    _check_usd_values(problems, text, file, scenes, policy, default_scene)
    name = data.get("name")
    if "name" not in data:
        problems.append(Diagnostic("error", "twin-manifest-missing-key", "required key 'name' is missing", layer=file, source="twin"))
    if problems:
        raise ManifestError(problems)
    return TwinManifest(
        path=path.resolve(),
        name=str(name),
        version=str(data.get("version", "0.0.0")),
        description=str(data.get("description", "")),
        default_scene=default_scene,
        runtime_persistence=bool(usd.get("runtime_persistence", False)),
        scenes=tuple(scenes) if isinstance(scenes, list) else (),
        composition_policy=str(policy),
        strict_public_outputs=ports.get("strict_public_outputs") is True,
    )


def _read_manifest(path: Path) -> tuple[str, dict]:
    file = str(path)
    try:
        text = read_text_limited(path, "manifest", MAX_MANIFEST_BYTES)
    except (OSError, UnreadableFile) as exc:
        raise ManifestError(
            Diagnostic("error", "twin-manifest-unreadable", f"cannot read manifest: {exc}", layer=file, source="twin")
        ) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        col = getattr(exc, "colno", None)
        m = re.search(r"line (\d+), column (\d+)", str(exc))
        if line is None and m:
            line, col = int(m.group(1)), int(m.group(2))
        raise ManifestError(
            Diagnostic("error", "twin-manifest-syntax", f"malformed TOML: {exc}", layer=file, line=line, column=col, source="twin")
        ) from exc


def _check_table(problems: list[Diagnostic], text: str, file: str, table: str, values: dict[str, Any]) -> None:
    """Unknown keys and wrong value types of one table."""
    schema = _SCHEMA[table]
    for key, value in values.items():
        dotted = f"{table}.{key}" if table else key
        if key not in schema:
            allowed = ", ".join(sorted(schema))
            problems.append(
                Diagnostic(
                    "error", "twin-manifest-unknown-key",
                    f"unknown key '{dotted}' (allowed here: {allowed})",
                    layer=file, line=_line_of(text, table, key), source="twin",
                )
            )
            continue
        types = schema[key]
        if not isinstance(value, types) or (bool not in types and isinstance(value, bool)):
            want = " or ".join(t.__name__ for t in types).replace("str", "string").replace("dict", "table").replace("list", "array")
            problems.append(
                Diagnostic(
                    "error", "twin-manifest-type",
                    f"'{dotted}' must be a {want}, not {type(value).__name__} ({value!r})",
                    layer=file, line=_line_of(text, table, key), source="twin",
                )
            )


def _check_usd_values(problems: list[Diagnostic], text: str, file: str, scenes: Any, policy: Any,
                      default_scene: Any) -> None:
    """The values of ``[usd]``: scene globs inside the twin, a known policy, a relative default scene."""
    if isinstance(scenes, list) and not all(isinstance(s, str) for s in scenes):
        problems.append(
            Diagnostic("error", "twin-manifest-type", "'usd.scenes' must be an array of glob strings",
                       layer=file, line=_line_of(text, "usd", "scenes"), source="twin")
        )
    elif isinstance(scenes, list):
        for pattern in scenes:
            if not pattern or _escapes(pattern):
                problems.append(
                    Diagnostic("error", "twin-manifest-value",
                               f"'usd.scenes' entry {pattern!r} must be a twin-relative glob inside the twin "
                               "(no absolute path, no '..', no URI)",
                               layer=file, line=_line_of(text, "usd", "scenes"), source="twin"))
    if isinstance(policy, str) and policy not in COMPOSITION_POLICIES:
        problems.append(
            Diagnostic(
                "error", "twin-manifest-value",
                f"'usd.composition_policy' must be one of {', '.join(COMPOSITION_POLICIES)}, not {policy!r}",
                layer=file, line=_line_of(text, "usd", "composition_policy"), source="twin",
            )
        )
    if isinstance(default_scene, str) and (not default_scene or _escapes(default_scene)):
        problems.append(
            Diagnostic(
                "error", "twin-manifest-value",
                f"'usd.default_scene' must be a twin-relative path inside the twin, not {default_scene!r}",
                layer=file, line=_line_of(text, "usd", "default_scene"), source="twin",
            )
        )
