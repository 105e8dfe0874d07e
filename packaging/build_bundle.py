"""Build the one-folder desktop bundle and smoke-test it (``./dev package`` runs this).

    python packaging/build_bundle.py [--dist DIR] [--no-smoke]

Builds ``DIR/luncosim-workbench/`` with PyInstaller (packaging/luncosim.spec), adds the
``luncosim`` command (a link to the same executable), the desktop entry, the AppStream metainfo
and the icon under ``share/``, then runs the bundle *outside the virtualenv*: ``luncosim
--version`` and ``luncosim validate`` on the bundled demo twin. Prints the build time and size.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "luncosim-workbench"
DESKTOP_ID = "org.luncosim.Workbench"


def build(dist: Path, work: Path) -> Path:
    """Run PyInstaller; return the bundle folder."""
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
           "--distpath", str(dist), "--workpath", str(work), str(ROOT / "packaging" / "luncosim.spec")]
    subprocess.run(cmd, check=True, cwd=ROOT)
    bundle = dist / NAME
    cli = bundle / "luncosim"
    if cli.is_symlink() or cli.exists():
        cli.unlink()
    cli.symlink_to(NAME)
    share = bundle / "share"
    for sub, src in (("applications", ROOT / "packaging" / "linux" / f"{DESKTOP_ID}.desktop"),
                     ("metainfo", ROOT / "packaging" / "linux" / f"{DESKTOP_ID}.metainfo.xml")):
        (share / sub).mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, share / sub / src.name)
    icons = share / "icons" / "hicolor" / "scalable" / "apps"
    icons.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "resources" / "icons" / "luncosim.svg", icons / f"{DESKTOP_ID}.svg")
    return bundle


def clean_env() -> dict[str, str]:
    """An environment without the development virtualenv or the source tree on any path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "LUNCOSIM_LUNCO_ROOT")}
    venv = str(Path(sys.prefix))
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(venv))
    return env


def smoke(bundle: Path, out=print) -> None:
    """``luncosim --version`` and ``luncosim validate`` of the bundled demo twin, from a clean
    environment and a folder outside the source tree; raises on failure."""
    env = clean_env()
    cwd = bundle.parent
    demo = bundle / "_internal" / "assets" / "twins" / "practice_yard"
    for args in (["--version"], ["validate", str(demo)]):
        done = subprocess.run([str(bundle / "luncosim"), *args], capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=600)
        out(f"$ luncosim {' '.join(args)}\n{done.stdout.strip()}")
        if done.returncode != 0:
            raise RuntimeError(f"luncosim {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle folder goes (default dist/)")
    parser.add_argument("--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's work folder")
    parser.add_argument("--no-smoke", action="store_true", help="build only")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    bundle = build(args.dist.resolve(), args.work.resolve())
    seconds = time.perf_counter() - t0
    print(f"bundle: {bundle}  ({folder_size(bundle) / 1e6:.0f} MB, built in {seconds:.0f} s)")
    if not args.no_smoke:
        smoke(bundle)
        print("smoke test passed: the bundle runs without the virtualenv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
