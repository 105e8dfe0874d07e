"""Run every benchmark in this folder (``./dev bench``); each prints its own figures and ratios."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    only = set(argv)
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        if only and script.stem not in only and script.stem.removeprefix("bench_") not in only:
            continue
        print(f"\n=== {script.stem} ===", flush=True)
        rc = subprocess.call([sys.executable, str(script)])
        if rc:
            failed.append(script.stem)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
