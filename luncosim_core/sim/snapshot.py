"""The snapshot type lives in the ``api`` vocabulary (:mod:`luncosim_core.api.snapshot`)."""

from luncosim_core.api.snapshot import WorkbenchSnapshot, frozen

__all__ = ["WorkbenchSnapshot", "frozen"]
