"""The channel between the workbench (or ``luncosim serve``) and its sim server child.

Messages are tuples whose first item names them; version :data:`VERSION` is checked in the
hello. Parent to child: ``("hello", VERSION, spec)``, ``("control", verb, arg)`` (play, pause,
step n, reset, speed x), ``("replace", spec)``, ``("command", id, Command)``,
``("query", id, Query)``, ``("stop",)``. Child to parent: ``("ready", VERSION, pid)``,
``("frame", snapshot, ticks, times, values)`` (the newest snapshot carrying every event since the
previous frame, and one row of port values per tick), ``("result", id, CommandResult)``,
``("failed", id, text)``, ``("fault", Diagnostic)`` (the scene could not be built: no snapshot
carries it), ``("heartbeat", t)``, ``("fatal", text)``.

The values are the ``api`` types themselves (commands, document ops with their USD values,
results, frozen snapshots), pickled with protocol 5: the peer is our own child, started from the
same installation, so there is no untrusted input here, and a typed value survives the trip
without a second schema to keep in step. Untrusted clients speak JSON over HTTP instead
(:mod:`luncosim_core.server.protocol`), decoded into the same types. Pickling happens per frame
(a batch of ticks), never per tick; the arrays travel as contiguous buffers.
"""

from __future__ import annotations

import pickle

VERSION = 1


def dumps(msg: tuple) -> bytes:
    return pickle.dumps(msg, protocol=5)


def loads(data: bytes) -> tuple:
    return pickle.loads(data)  # noqa: S301  (our own child, see the module doc)
