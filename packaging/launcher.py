"""Entry point of the desktop bundle: one executable, two names.

``luncosim-workbench [TWIN]`` opens the workbench; ``luncosim ...`` (a link to the same
executable in the bundle folder) is the command line, with the workbench's verbs (render,
screenshot) registered directly (a frozen bundle does not rely on package metadata)."""

from __future__ import annotations

import multiprocessing
import sys
from pathlib import Path


def main() -> int:
    multiprocessing.freeze_support()
    if Path(sys.argv[0]).name.startswith("luncosim") and not Path(sys.argv[0]).name.startswith("luncosim-workbench"):
        from luncosim_core.cli import main as cli_main
        from luncosim_workbench.cli_verbs import add_workbench_verbs

        return cli_main(sys.argv[1:], extra_verbs=[add_workbench_verbs])
    from luncosim_workbench.app import main as app_main

    return app_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
