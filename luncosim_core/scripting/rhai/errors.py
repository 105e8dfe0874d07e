"""Rhai errors (positioned, in Rhai's wording) and the control-flow signals of the evaluator."""

from __future__ import annotations

from typing import Any

from luncosim_core.diagnostics import Diagnostic


class RhaiError(Exception):
    """Any error from the Rhai engine; carries file, line and column (1-based) when known."""

    kind = "error"

    def __init__(self, message: str, file: str = "", line: int = 0, col: int = 0) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        super().__init__(self._text())

    def _text(self) -> str:
        where = ""
        if self.line:
            where = f" ({self.file or '<script>'}:{self.line}:{self.col})"
        return f"{self.message}{where}"

    def __str__(self) -> str:
        return self._text()

    def to_diagnostic(self) -> Diagnostic:
        """The error as the project's shared diagnostic record."""
        return Diagnostic(
            severity="error",
            code=f"rhai.{self.kind}",
            message=self.message,
            layer=self.file,
            line=self.line or None,
            column=self.col or None,
            source="rhai",
        )


class RhaiSyntaxError(RhaiError):
    """The script does not parse."""

    kind = "syntax"


class RhaiRuntimeError(RhaiError):
    """Evaluation failed. ``value`` is the thrown value for ``throw``; ``call_stack`` lists the
    functions the error passed through (innermost first) as ``name @ file:line:col``."""

    kind = "runtime"

    def __init__(
        self, message: str, file: str = "", line: int = 0, col: int = 0, value: Any = None
    ) -> None:
        self.thrown = value is not None
        self.value = message if value is None else value
        self.call_stack: list[str] = []
        super().__init__(message, file, line, col)

    def _text(self) -> str:
        base = super()._text()
        if self.call_stack:
            base += " in " + " <- ".join(self.call_stack)
        return base

    def locate(self, file: str, line: int, col: int) -> RhaiRuntimeError:
        """Fill in the position if not yet known (innermost position wins)."""
        if not self.line:
            self.file, self.line, self.col = file, line, col
            self.args = (self._text(),)
        return self


class RhaiLimitError(RhaiRuntimeError):
    """A host-set limit (operations, call depth, sizes) was exceeded."""

    kind = "limit"


MB = 1 << 20


def mb(n: int) -> str:
    """``n`` bytes in MB (2^20 bytes) as the memory-budget messages write them."""
    x = n / MB
    return f"{x:.0f}" if x >= 10 or x == int(x) else f"{x:.1f}"


def budget_error(live: int, budget: int) -> RhaiLimitError:
    """The live values (``live`` bytes) are over the engine's memory budget."""
    return RhaiLimitError(f"memory budget exceeded: {mb(live)} MB of {mb(budget)} MB")


def out_of_memory_error(budget: int) -> RhaiLimitError:
    """What a Python ``MemoryError`` during evaluation becomes (``budget``: the engine's, 0 for
    none)."""
    if budget:
        return RhaiLimitError("memory budget exceeded: the process ran out of memory before "
                              f"the budget of {mb(budget)} MB was reached")
    return RhaiLimitError("memory budget exceeded: the process ran out of memory (the engine "
                          "has no memory budget)")


class FnNotFound(Exception):
    """Raised by a native function when no overload accepts the argument types."""


class BreakSignal(Exception):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class ContinueSignal(Exception):
    pass


class ReturnSignal(Exception):
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


CONTINUE = ContinueSignal()
