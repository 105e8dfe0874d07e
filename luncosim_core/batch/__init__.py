"""Batch runs: many scene tests, parameter sweeps and Monte Carlo runs, on a Dask cluster.

A task is one deterministic run on a fresh simulation in its own process (:mod:`.task`); the
driver (:mod:`.driver`) spreads tasks over a ``dask.distributed`` cluster (a LocalCluster by
default) and writes ``results.csv``, ``results.parquet`` and ``report.html`` (:mod:`.report`).
"""

from luncosim_core.batch.spec import BatchTask, SweepError, load_sweep, scene_test_tasks

__all__ = ["BatchTask", "SweepError", "load_sweep", "scene_test_tasks"]
