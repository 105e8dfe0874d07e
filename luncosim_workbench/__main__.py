"""``python -m luncosim_workbench [TWIN_OR_SCENE]``."""

from luncosim_workbench.app import main

raise SystemExit(main())
