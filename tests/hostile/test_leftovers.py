"""What a killed process leaves behind is cleaned up by the next one."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from luncosim_core.fsutil import atomic_write_text, clean_stale_temporaries
from luncosim_core.twin.roots import MOUNT_PREFIX, clean_stale_mounts


def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_mount_folders_of_dead_processes_are_removed(tmp_path):
    stale = tmp_path / f"{MOUNT_PREFIX}{dead_pid()}-abc"
    live = tmp_path / f"{MOUNT_PREFIX}{os.getpid()}-def"
    foreign = tmp_path / f"{MOUNT_PREFIX}legacy"
    for d in (stale, live, foreign):
        (d / "x").mkdir(parents=True)
        (d / "x" / "lunco:").symlink_to(tmp_path)
    assert clean_stale_mounts(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and foreign.exists()
    assert tmp_path.exists()  # the link's target is never followed


def test_temporary_files_of_a_killed_save_are_removed_by_the_next_save(tmp_path):
    target = tmp_path / "scene.usda"
    old = tmp_path / ".scene.usda.k1l2.tmp"
    fresh = tmp_path / ".scene.usda.m3n4.tmp"
    other = tmp_path / ".other.usda.x.tmp"
    for f in (old, fresh, other):
        f.write_text("partial", encoding="utf-8")
    hour_ago = time.time() - 7200
    os.utime(old, (hour_ago, hour_ago))
    os.utime(other, (hour_ago, hour_ago))
    atomic_write_text(target, "#usda 1.0\n")
    assert target.read_text(encoding="utf-8") == "#usda 1.0\n"
    assert not old.exists() and fresh.exists() and other.exists()  # a recent one may be a live save
    assert clean_stale_temporaries(tmp_path / "other.usda") == [other]
