"""Text of USD errors that never fails: a message quoting bytes that are not UTF-8 (a corrupt
file's header, say) makes ``str()`` of a ``Tf.ErrorException`` raise UnicodeDecodeError."""

from __future__ import annotations

UNDECODABLE = "(USD's message quotes bytes that are not UTF-8 text)"


def tf_error_text(exc: BaseException) -> str:
    """``str(exc)`` for a ``Tf.ErrorException`` (or anything), with undecodable parts replaced."""
    try:
        return str(exc)
    except UnicodeDecodeError:
        pass
    parts = []
    for err in getattr(exc, "args", ()):
        parts.append(safe_text(err))
    return "\n\t" + "\n\t".join(parts)


def safe_text(obj: object) -> str:
    """``str(obj)``, or its commentary's readable description when the text cannot be decoded."""
    try:
        return str(obj)
    except UnicodeDecodeError:
        where = getattr(obj, "sourceFunction", "") or type(obj).__name__
        return f"Error in '{where}': {UNDECODABLE}"
