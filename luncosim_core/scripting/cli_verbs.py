"""The ``luncosim rhai`` verb, ready to add to the command-line parser.

``add_scripting_verbs(subparsers)`` registers it; it sets ``func`` to a function taking the parsed
arguments and returning the exit code. (``luncosim test`` opens simulations: it is registered by
:mod:`luncosim_core.sim.scene_test`.)"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_rhai(args: argparse.Namespace) -> int:
    """Run a Rhai script standalone; ``--eval CODE`` also prints the value it evaluates to."""
    from luncosim_core.scripting.testrunner import run_rhai

    if args.jsonl:
        if args.file is not None or args.eval is not None:
            print("luncosim rhai: --jsonl reads requests from stdin; give no FILE or --eval",
                  file=sys.stderr)
            return 2
        from luncosim_core.scripting.rhai.batch import run_jsonl

        run_jsonl(sys.stdin, lambda line: print(line, flush=True))
        return 0
    if (args.file is None) == (args.eval is None):
        print("luncosim rhai: give exactly one of FILE, --eval CODE or --jsonl", file=sys.stderr)
        return 2
    return run_rhai(file=args.file, code=args.eval, out=lambda line: print(line, flush=True))


def add_scripting_verbs(sub) -> None:
    """Add ``rhai`` to an ``argparse`` subparsers object."""
    p = sub.add_parser("rhai", help="run a Rhai script standalone")
    p.add_argument("file", nargs="?", type=Path, help="a .rhai file")
    p.add_argument("--eval", metavar="CODE", help="run CODE and print the value it evaluates to")
    p.add_argument("--jsonl", action="store_true",
                   help='batch: read one JSON request per line from stdin ({"code": ..., '
                        '"limits": {...}, "compile_only": false}) and write one JSON result '
                        "per line, each on a fresh engine")
    p.set_defaults(func=cmd_rhai)
