"""The desktop entry and the AppStream metainfo are valid (checked with the freedesktop tools
when this machine has them: desktop-file-utils, appstream)."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from configparser import ConfigParser
from pathlib import Path

import pytest

LINUX = Path(__file__).resolve().parents[2] / "packaging" / "linux"
DESKTOP = LINUX / "org.luncosim.Workbench.desktop"
METAINFO = LINUX / "org.luncosim.Workbench.metainfo.xml"


def test_the_entry_launches_the_workbench_with_its_icon():
    entry = ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(DESKTOP, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Exec"].split()[0] == "luncosim-workbench" and section["Icon"] == "org.luncosim.Workbench"
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("id") == "org.luncosim.Workbench"
    assert root.find("launchable").text == DESKTOP.name
    assert {b.text for b in root.iter("binary")} == {"luncosim-workbench", "luncosim"}


@pytest.mark.parametrize("tool, args, path", [("desktop-file-validate", [], DESKTOP),
                                              ("appstreamcli", ["validate", "--no-net"], METAINFO)])
def test_freedesktop_validators_accept_them(tool, args, path):
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed")
    done = subprocess.run([exe, *args, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
