"""A pure-Python Rhai interpreter: hand-written lexer, Pratt parser and an evaluator that
compiles the syntax tree to Python closures over slot-resolved frames.

Value mapping (host functions receive and return these): i64 -> ``int``, f64 -> ``float``,
bool -> ``bool`` (kept distinct from int), string -> ``str``, char -> :class:`Char`, array ->
``list``, object map -> ``dict``, ``()`` -> :data:`Unit` (a host function returning ``None``
also gives ``()``), function pointer -> :class:`FnPtr`, range -> :class:`RhaiRange`, blob ->
``bytearray``, timestamp -> :class:`Timestamp`.
"""

from .engine import AST, Engine, Limits, Scope
from .errors import RhaiError, RhaiLimitError, RhaiRuntimeError, RhaiSyntaxError
from .values import Char, FnPtr, RhaiRange, Timestamp, Unit, to_debug, to_display, type_of

__all__ = [
    "AST",
    "Char",
    "Engine",
    "FnPtr",
    "Limits",
    "RhaiError",
    "RhaiLimitError",
    "RhaiRange",
    "RhaiRuntimeError",
    "RhaiSyntaxError",
    "Scope",
    "Timestamp",
    "Unit",
    "to_debug",
    "to_display",
    "type_of",
]
