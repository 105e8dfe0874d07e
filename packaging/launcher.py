"""Entry point of the desktop bundle: one executable, two names.

``luncosim-workbench [TWIN]`` opens the workbench; ``luncosim ...`` (a link to the same
executable in the bundle folder) is the command line, with the workbench's verbs (render,
screenshot) registered directly (a frozen bundle does not rely on package metadata).

The core starts its helper processes (the Modelica compile worker, the crate check, batch
children, the editor's check process) as ``sys.executable -m MODULE ...``; in the bundle
``sys.executable`` is this program, so ``-m MODULE ARGS`` runs that bundled module as
``python -m`` would."""

from __future__ import annotations

import multiprocessing
import runpy
import sys
from pathlib import Path


def main() -> int:
    multiprocessing.freeze_support()
    if len(sys.argv) >= 3 and sys.argv[1] == "-m":
        sys.argv = [sys.argv[2], *sys.argv[3:]]
        runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
        return 0
    if Path(sys.argv[0]).name.startswith("luncosim") and not Path(sys.argv[0]).name.startswith("luncosim-workbench"):
        from luncosim_core.cli import main as cli_main
        from luncosim_workbench.cli_verbs import add_workbench_verbs

        return cli_main(sys.argv[1:], extra_verbs=[add_workbench_verbs])
    from luncosim_workbench.app import main as app_main

    return app_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
