"""``luncosim check FILE... [--json]``: the editor's diagnostics for ``.mo`` and ``.rhai`` files.

With ``--json`` one JSON array of ``{file, line, column, severity, code, message}`` (1-based line
and column, null when unknown). Exit 1 when any error, else 0. A file that is not a regular file
or not UTF-8 text is an error entry, not a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from luncosim_core.diagnostics import Diagnostic
from luncosim_core.fsutil import UnreadableFile, read_text_limited


def _roots_for(path: Path):
    from luncosim_core.twin.roots import AssetRoots

    for folder in path.resolve().parents:
        if (folder / "twin.toml").is_file():
            return AssetRoots(folder)
    return AssetRoots(None)


def check_file(path: Path) -> list[Diagnostic]:
    from luncosim_core.language import check_source

    if path.suffix not in (".mo", ".rhai"):
        return [Diagnostic("error", "check-unsupported", f"{path} is not a .mo or .rhai file", layer=str(path),
                           source="check")]
    try:
        text = read_text_limited(path, "source file")
    except UnreadableFile as exc:
        return [Diagnostic("error", "check-unreadable", str(exc), layer=str(path), source="check")]
    return [d if d.layer else Diagnostic(d.severity, d.code, d.message, layer=str(path), line=d.line,
                                         column=d.column, source=d.source)
            for d in check_source(path, text, _roots_for(path))]


def cmd_check(args) -> int:
    found: list[tuple[Path, Diagnostic]] = []
    for name in args.files:
        path = Path(name)
        found += [(path, d) for d in check_file(path)]
    if args.json:
        print(json.dumps([{"file": str(p), "line": d.line, "column": d.column, "severity": d.severity,
                           "code": d.code, "message": d.message} for p, d in found], indent=1))
    else:
        for p, d in found:
            where = f"{p}:{d.line}:{d.column}" if d.line else str(p)
            print(f"{where}: {d.severity}: {d.message} [{d.code}]")
        print(f"{len(args.files)} file(s), {sum(d.is_error for _p, d in found)} error(s), "
              f"{sum(d.severity == 'warning' for _p, d in found)} warning(s)")
    return 1 if any(d.is_error for _p, d in found) else 0


def add_check_verb(sub) -> None:
    p = sub.add_parser("check", help="diagnostics of .mo and .rhai files (what the source editor shows)")
    p.add_argument("files", nargs="+", help=".mo and .rhai files")
    p.add_argument("--json", action="store_true", help="print one JSON array of diagnostics")
    p.set_defaults(func=cmd_check)
