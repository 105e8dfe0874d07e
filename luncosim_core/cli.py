"""``luncosim``: the command line. One function per verb; each returns the exit code."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from luncosim_core.twin.roots import LUNCO_ROOT_ENV


def _print_diagnostics(diags, as_json: bool, out=None) -> None:
    out = out or sys.stdout
    if as_json:
        json.dump([d.to_json() for d in diags], out, indent=2)
        out.write("\n")
        return
    for d in diags:
        out.write(f"{d}\n")


def cmd_validate(args: argparse.Namespace) -> int:
    """Compose each scene or asset and report diagnostics; exit 1 when any is an error."""
    from luncosim_core.usd.validate import validate_path

    all_diags = []
    for path in args.paths:
        diags = validate_path(path, args.lunco_root)
        all_diags.extend(diags)
        if not args.json:
            errors = sum(d.is_error for d in diags)
            warnings = sum(d.severity == "warning" for d in diags)
            _print_diagnostics(diags, False)
            print(f"{path}: {errors} error(s), {warnings} warning(s)")
    if args.json:
        _print_diagnostics(all_diags, True)
    return 1 if any(d.is_error for d in all_diags) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="luncosim", description="LunCoSim Workbench command line")
    parser.add_argument(
        "--lunco-root", type=Path, default=None,
        help=f"asset library root for lunco:// URIs (default: ${LUNCO_ROOT_ENV} or the bundled assets/)",
    )
    sub = parser.add_subparsers(dest="verb", required=True)

    p = sub.add_parser("validate", help="compose scenes/assets and report diagnostics")
    p.add_argument("paths", nargs="+", help="twin folders, twin.toml files or USD files")
    p.add_argument("--json", action="store_true", help="print diagnostics as JSON")
    p.set_defaults(func=cmd_validate)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.lunco_root is not None:
        root = args.lunco_root.expanduser().resolve()
        if not root.is_dir():
            parser.error(f"--lunco-root {root} is not a folder")
        args.lunco_root = root
        os.environ[LUNCO_ROOT_ENV] = str(root)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
