"""`luncosim` gains verbs from other packages through the ``luncosim.cli`` entry points, without
the core importing them; the workbench declares its verbs (render, screenshot) that way."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from luncosim_core import __version__
from luncosim_core.cli import VERB_ENTRY_POINTS, build_parser

REPO = Path(__file__).resolve().parents[1]

FAKE_VERBS = '''
def add(sub):
    p = sub.add_parser("hello", help="say hello")
    p.add_argument("--name", default="moon")
    p.set_defaults(func=lambda args: print(f"hello {args.name}") or 0)
'''


def _run(args: list[str], extra_path: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    paths = [str(extra_path)] if extra_path else []
    env["PYTHONPATH"] = os.pathsep.join(paths + [str(REPO), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "luncosim_core.cli", *args], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=120)


def test_an_installed_package_adds_a_verb_through_the_entry_point(tmp_path):
    (tmp_path / "fake_verbs.py").write_text(FAKE_VERBS)
    info = tmp_path / "fake_verbs-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-verbs\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{VERB_ENTRY_POINTS}]\nfake = fake_verbs:add\n")
    done = _run(["hello", "--name", "rover"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello rover"
    # a broken entry point is reported and skipped: the core verbs still work
    (info / "entry_points.txt").write_text(f"[{VERB_ENTRY_POINTS}]\nfake = no_such_module:add\n")
    done = _run(["--version"], tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"luncosim {__version__}"
    assert "verbs from no_such_module:add are unavailable" in done.stderr


def test_the_workbench_declares_its_verbs_and_the_core_does_not_import_them():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert project["project"]["entry-points"][VERB_ENTRY_POINTS] == {
        "workbench": "luncosim_workbench.cli_verbs:add_workbench_verbs"}
    cli_lines = (REPO / "luncosim_core" / "cli.py").read_text().splitlines()
    assert not [line for line in cli_lines if "import" in line and "luncosim_workbench" in line]
    from luncosim_workbench.cli_verbs import add_workbench_verbs

    parser = build_parser(extra_verbs=[add_workbench_verbs])
    args = parser.parse_args(["screenshot", "--out", "x.png", "--ticks", "3"])
    assert args.ticks == 3 and args.func.__module__ == "luncosim_workbench.cli_verbs"
    args = parser.parse_args(["render", "--scene", "s.usda", "--out", "r.png", "--overlays", "joints"])
    assert args.overlays == "joints"
