"""Shared helpers for the Rhai interpreter tests."""

from __future__ import annotations

from typing import Any

import pytest

from luncosim_core.scripting.rhai import Engine, Limits


def same(a: Any, b: Any) -> bool:
    """Equal values of exactly the same Python types, recursively (bool is not int)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and a != a:
        return b != b
    return a == b


@pytest.fixture(name="same")
def same_fixture() -> Any:
    return same


@pytest.fixture
def engine() -> Engine:
    return Engine(limits=Limits(max_operations=1_000_000))
