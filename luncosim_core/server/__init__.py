"""The sim server: the simulation in a process of its own, one message vocabulary for the
workbench, HTTP clients and scripts (``luncosim serve``, docs/architecture.md)."""
