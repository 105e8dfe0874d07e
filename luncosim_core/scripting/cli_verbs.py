"""The ``luncosim test`` and ``luncosim rhai`` verbs, ready to add to the command-line parser.

``add_scripting_verbs(subparsers)`` registers both; each sets ``func`` to a function taking the
parsed arguments (with the global ``--lunco-root`` already resolved) and returning the exit code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from luncosim_core import cli_args


def cmd_test(args: argparse.Namespace) -> int:
    """Run a scene test deterministically as fast as possible: 0 PASS, 1 FAIL, 2 no verdict."""
    from luncosim_core.scripting.testrunner import run_scene_test

    report = run_scene_test(Path(args.scene), max_ticks=args.max_ticks, tick_hz=args.tick_hz,
                            lunco_root=getattr(args, "lunco_root", None),
                            verdict_channel=args.verdict_channel,
                            out=lambda line: print(line, flush=True))
    if report.final_hash:
        print(f"final hash {report.final_hash}", flush=True)
    return report.exit_code


def cmd_rhai(args: argparse.Namespace) -> int:
    """Run a Rhai script standalone; ``--eval CODE`` also prints the value it evaluates to."""
    from luncosim_core.scripting.testrunner import run_rhai

    if (args.file is None) == (args.eval is None):
        print("luncosim rhai: give exactly one of FILE or --eval CODE", file=sys.stderr)
        return 2
    return run_rhai(file=args.file, code=args.eval, out=lambda line: print(line, flush=True))


def add_scripting_verbs(sub) -> None:
    """Add ``test`` and ``rhai`` to an ``argparse`` subparsers object."""
    from luncosim_core.scripting.testrunner import DEFAULT_MAX_TICKS

    p = sub.add_parser("test", help="run a scene test: exit 0 PASS, 1 FAIL, 2 no verdict")
    p.add_argument("--scene", required=True, help="a scene file or a twin folder (its default scene)")
    p.add_argument("--max-ticks", type=cli_args.positive_ticks, default=DEFAULT_MAX_TICKS,
                   help=f"safety bound on simulated ticks (default {DEFAULT_MAX_TICKS}); exhausting it is 'no verdict'")
    p.add_argument("--tick-hz", type=cli_args.tick_hz, default=60.0, help="fixed tick rate (default 60)")
    p.add_argument("--verdict-channel", default=None,
                   help="only accept PASS/FAIL from this event name (default: the first on any channel)")
    p.set_defaults(func=cmd_test)

    p = sub.add_parser("rhai", help="run a Rhai script standalone")
    p.add_argument("file", nargs="?", type=Path, help="a .rhai file")
    p.add_argument("--eval", metavar="CODE", help="run CODE and print the value it evaluates to")
    p.set_defaults(func=cmd_rhai)
