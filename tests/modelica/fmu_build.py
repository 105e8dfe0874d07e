"""Build the test suite's own FMUs: C sources compiled with the system compiler (FMI 3 headers
from the installed fmpy, used in place) and pythonfmu slaves (FMI 2)."""

from __future__ import annotations

import inspect
import platform
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

FMUS = Path(__file__).resolve().parent / "fmus"


def require_compiler() -> str:
    """The C compiler, or skip the test (FMI 3 test FMUs are built for x86_64 Linux only)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("needs a C compiler on x86_64 Linux to build the FMI 3 test FMUs")
    return cc


def build_c_fmu3(folder: Path, name: str) -> Path:
    """Compile ``fmus/<name>.c`` against fmpy's FMI 3 headers and pack it with ``fmus/<name>.xml``.

    fmpy binds every FMI 3 function it knows, so a second file defines each of them as a weak
    stub returning fmi3Error; the model's own definitions win at link time.
    """
    import fmpy
    from fmpy.fmi3 import FMU3Slave

    cc = require_compiler()
    stubs = folder / f"{name}_stubs.c"
    stubs.write_text("".join(f"__attribute__((weak)) int {n}(void) {{ return 3; }}\n"
                             for n, _ in inspect.getmembers(FMU3Slave) if n.startswith("fmi3")))
    headers = Path(fmpy.__file__).parent / "c-code"
    lib = folder / f"{name}.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-Wall", "-I", str(headers), "-o", str(lib),
                    str(FMUS / f"{name}.c"), str(stubs)], check=True)
    fmu = folder / f"{name}.fmu"
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("modelDescription.xml", (FMUS / f"{name}.xml").read_text())
        z.write(lib, f"binaries/x86_64-linux/{name}.so")
    return fmu


def foreign_fmu3(folder: Path, name: str, platforms: tuple[str, ...]) -> Path:
    """``fmus/<name>.xml`` packed with binaries for other platforms only (bytes, not libraries)."""
    fmu = folder / f"{name}_foreign.fmu"
    ext = {"windows": ".dll", "darwin": ".dylib", "linux": ".so"}
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("modelDescription.xml", (FMUS / f"{name}.xml").read_text())
        for plat in platforms:
            z.writestr(f"binaries/{plat}/{name}{ext[plat.rsplit('-', 1)[1]]}", b"not for this host")
    return fmu


def build_pythonfmu(folder: Path, script_name: str, source: str) -> Path:
    """An FMI 2 co-simulation FMU from a pythonfmu slave class written in ``source``."""
    from pythonfmu import FmuBuilder

    script = folder / script_name
    script.write_text(source)
    return FmuBuilder.build_FMU(script, dest=folder)
