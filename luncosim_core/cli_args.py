"""Argument types for the command line: numbers are checked where they are parsed, so a bad one
is a usage error naming the option (exit 2), never a traceback or a silent nonsense run."""

from __future__ import annotations

import argparse
import math

MAX_TICK_HZ = 100_000.0
MAX_SUBSTEPS = 1_000
MAX_PIXELS = 16_384


def _number(text: str, kind: type) -> float | int:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def bounded(kind: type, low: float, high: float, *, low_open: bool = False):
    """An argparse type accepting ``kind`` values in [low, high] (``(low, high]`` with ``low_open``)."""

    def parse(text: str):
        value = _number(text, kind)
        if value < low or (low_open and value == low) or value > high:
            left = "(" if low_open else "["
            raise argparse.ArgumentTypeError(f"{text} is outside {left}{low:g}, {high:g}]")
        return value

    parse.__name__ = f"{kind.__name__} in range"
    return parse


tick_hz = bounded(float, 0.0, MAX_TICK_HZ, low_open=True)
substeps = bounded(int, 1, MAX_SUBSTEPS)
ticks = bounded(int, 0, 10**12)
positive_ticks = bounded(int, 1, 10**12)
pixels = bounded(int, 16, MAX_PIXELS)
seconds = bounded(float, 0.0, 86_400.0, low_open=True)
