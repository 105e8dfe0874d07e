"""FMI 3 co-simulation through the same participant. pythonfmu 0.7 only writes FMI 2, so this
test builds a minimal FMI 3 FMU from C with the system compiler (skipped when none is found)."""

from __future__ import annotations

import inspect
import math
import platform
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from luncosim_core.modelica import FmuParticipant, open_participant

IMPLEMENTED = {
    "fmi3GetVersion", "fmi3SetDebugLogging", "fmi3InstantiateCoSimulation", "fmi3FreeInstance",
    "fmi3EnterInitializationMode", "fmi3ExitInitializationMode", "fmi3Terminate", "fmi3Reset",
    "fmi3DoStep", "fmi3GetFloat64", "fmi3SetFloat64",
}

C_SOURCE = r"""
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct { double v[5]; } Lag;  /* time, command, gain, tau, torque */
#define OK 0
#define ERR 3

const char *fmi3GetVersion(void) { return "3.0"; }
int fmi3SetDebugLogging(void *c, bool on, size_t n, const char *const cats[]) { return OK; }
void *fmi3InstantiateCoSimulation(const char *name, const char *token, const char *res,
    bool visible, bool logging, bool eventMode, bool earlyReturn, const unsigned *req,
    size_t nreq, void *env, void *log, void *upd) {
  Lag *m = calloc(1, sizeof(Lag));
  m->v[2] = 2.0; m->v[3] = 0.5;
  return m;
}
void fmi3FreeInstance(void *c) { free(c); }
int fmi3EnterInitializationMode(void *c, bool tolDef, double tol, double t0, bool stopDef,
    double stop) { ((Lag *)c)->v[0] = t0; return OK; }
int fmi3ExitInitializationMode(void *c) { return OK; }
int fmi3Terminate(void *c) { return OK; }
int fmi3Reset(void *c) { Lag *m = c; m->v[0] = 0; m->v[1] = 0; m->v[2] = 2.0; m->v[3] = 0.5;
  m->v[4] = 0; return OK; }
int fmi3DoStep(void *c, double t, double h, bool noSet, bool *event, bool *term, bool *early,
    double *last) {
  Lag *m = c;
  double target = m->v[2] * m->v[1];
  m->v[4] = target + (m->v[4] - target) * exp(-h / m->v[3]);
  m->v[0] = t + h;
  *event = false; *term = false; *early = false; *last = t + h;
  return OK;
}
int fmi3GetFloat64(void *c, const unsigned *vr, size_t nvr, double *values, size_t nv) {
  for (size_t i = 0; i < nvr; i++) { if (vr[i] > 4) return ERR; values[i] = ((Lag *)c)->v[vr[i]]; }
  return OK;
}
int fmi3SetFloat64(void *c, const unsigned *vr, size_t nvr, const double *values, size_t nv) {
  for (size_t i = 0; i < nvr; i++) { if (vr[i] > 4) return ERR; ((Lag *)c)->v[vr[i]] = values[i]; }
  return OK;
}
"""

MODEL_DESCRIPTION = """<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="MotorLag3"
    instantiationToken="{5b1f3c9e-2a77-4d8e-9a51-0c3d6a1e7f42}">
  <CoSimulation modelIdentifier="MotorLag3" canHandleVariableCommunicationStepSize="true"/>
  <UnitDefinitions><Unit name="1"/><Unit name="N.m"/><Unit name="s"/></UnitDefinitions>
  <ModelVariables>
    <Float64 name="time" valueReference="0" causality="independent" variability="continuous"/>
    <Float64 name="command" valueReference="1" causality="input" start="0" unit="1"
        description="normalised command"/>
    <Float64 name="gain" valueReference="2" causality="parameter" variability="tunable"
        start="2" unit="N.m"/>
    <Float64 name="tau" valueReference="3" causality="parameter" variability="tunable"
        start="0.5" unit="s"/>
    <Float64 name="torque" valueReference="4" causality="output" unit="N.m"
        description="shaft torque"/>
  </ModelVariables>
  <ModelStructure>
    <Output valueReference="4"/>
    <InitialUnknown valueReference="4"/>
  </ModelStructure>
</fmiModelDescription>
"""


@pytest.fixture(scope="module")
def fmu3(tmp_path_factory) -> Path:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("needs a C compiler on x86_64 Linux to build the FMI 3 test FMU")
    from fmpy.fmi3 import FMU3Slave

    stubs = "".join(f"int {n}(void) {{ return 3; }}\n" for n, _ in inspect.getmembers(FMU3Slave)
                    if n.startswith("fmi3") and n not in IMPLEMENTED)
    folder = tmp_path_factory.mktemp("fmu3")
    src = folder / "lag.c"
    src.write_text(C_SOURCE + stubs)
    lib = folder / "MotorLag3.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(src), "-lm"], check=True)
    fmu = folder / "MotorLag3.fmu"
    with zipfile.ZipFile(fmu, "w") as z:
        z.writestr("modelDescription.xml", MODEL_DESCRIPTION)
        z.write(lib, "binaries/x86_64-linux/MotorLag3.so")
    return fmu


def test_fmi3_round_trip(fmu3):
    p = open_participant(fmu3, period=1 / 60)
    assert isinstance(p, FmuParticipant) and p.fmi_version == "3.0"
    assert [(v.name, v.unit) for v in p.interface.inputs] == [("command", "1")]
    assert [(v.name, v.unit) for v in p.interface.outputs] == [("torque", "N.m")]
    p.set_inputs({"command": 0.5})
    for _ in range(60):
        p.step()
    assert p.outputs()["torque"] == pytest.approx(1 - math.exp(-2.0), abs=1e-12)
    p.set_parameter("gain", 4.0)
    p.step()
    y = p.outputs()["torque"]
    assert y == pytest.approx(2.0 + (1 - math.exp(-2.0) - 2.0) * math.exp(-1 / 30), abs=1e-12)
    p.reset()
    assert p.time == 0.0 and p.outputs()["torque"] == 0.0
    p.close()
