/* Typed3: an FMI 3 co-simulation FMU written for the test suite. It exercises every value type
 * the participant maps onto ports: Float32, Int32, Boolean, a structural parameter sizing arrays,
 * 1-D and 2-D Float64 arrays, a fixed parameter and a clock output.
 *
 *   y32   = gain * u32                      (Float32; gain is a fixed parameter)
 *   count += step_by at every step, when enable is true (Int32, Boolean inputs)
 *   odd   = count is odd                    (Boolean output)
 *   w[i]  = 2 * v[i], i < n                 (arrays sized by the structural parameter n)
 *   grid[i][j] = scale[i] * (j + 1)         (2 x 2 output; scale is a tunable array parameter)
 *   x     += uin * h                        (integral of the input)
 *   clock = the FMU's own time
 *   the FMU asks to end the simulation once its time reaches stop_after (when > 0)
 *
 * Fixed and structural parameters can only be set before initialization (as real FMUs insist).
 */
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"

#define MAX_N 4

typedef enum { INSTANTIATED, INITIALIZING, STEPPING, TERMINATED } Mode;

typedef struct {
    Mode mode;
    fmi3Float64 time;
    fmi3Float32 gain, u32, y32;
    fmi3Int32 count, step_by;
    fmi3Boolean enable, odd;
    fmi3UInt64 n;
    fmi3Float64 v[MAX_N], w[MAX_N], scale[2], grid[2][2];
    fmi3Float64 uin, x, clock, stop_after;
} Model;

static void defaults(Model *m) {
    memset(m, 0, sizeof(*m));
    m->gain = 2.0f;
    m->step_by = 1;
    m->enable = fmi3True;
    m->n = 3;
    for (int i = 0; i < MAX_N; i++) m->v[i] = i + 1;
    m->scale[0] = 1.0;
    m->scale[1] = 10.0;
}

static void calculate(Model *m) {
    m->y32 = m->gain * m->u32;
    m->odd = (m->count % 2) != 0;
    for (fmi3UInt64 i = 0; i < m->n; i++) m->w[i] = 2.0 * m->v[i];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) m->grid[i][j] = m->scale[i] * (j + 1);
    m->clock = m->time;
}

fmi3Instance fmi3InstantiateCoSimulation(fmi3String instanceName, fmi3String instantiationToken,
    fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
    Model *m = malloc(sizeof(Model));
    if (m) defaults(m);
    return m;
}

void fmi3FreeInstance(fmi3Instance instance) { free(instance); }
const char *fmi3GetVersion(void) { return fmi3Version; }
fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
    const fmi3String categories[]) { return fmi3OK; }

fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
    fmi3Float64 tolerance, fmi3Float64 startTime, fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Model *m = instance;
    m->time = startTime;
    m->mode = INITIALIZING;
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Model *m = instance;
    calculate(m);
    m->mode = STEPPING;
    return fmi3OK;
}

fmi3Status fmi3Terminate(fmi3Instance instance) { ((Model *)instance)->mode = TERMINATED; return fmi3OK; }
fmi3Status fmi3Reset(fmi3Instance instance) { defaults(instance); return fmi3OK; }

fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
    fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
    fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation, fmi3Boolean *earlyReturn,
    fmi3Float64 *lastSuccessfulTime) {
    Model *m = instance;
    if (m->mode != STEPPING || currentCommunicationPoint != m->time) return fmi3Error;
    if (m->enable) m->count += m->step_by;
    m->x += m->uin * communicationStepSize;
    m->time = currentCommunicationPoint + communicationStepSize;
    calculate(m);
    *eventHandlingNeeded = fmi3False;
    *terminateSimulation = m->stop_after > 0 && m->time >= m->stop_after;
    *earlyReturn = fmi3False;
    *lastSuccessfulTime = m->time;
    return fmi3OK;
}

/* one value reference -> its storage and element count */
static fmi3Float64 *float64(Model *m, fmi3ValueReference vr, size_t *count) {
    *count = 1;
    switch (vr) {
    case 0: return &m->time;
    case 9: *count = m->n; return m->v;
    case 10: *count = m->n; return m->w;
    case 11: *count = 2; return m->scale;
    case 12: return &m->uin;
    case 13: return &m->x;
    case 14: return &m->clock;
    case 15: *count = 4; return &m->grid[0][0];
    case 16: return &m->stop_after;
    default: return NULL;
    }
}

#define GETTER(NAME, TYPE, LOOKUP)                                                              \
    fmi3Status NAME(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,           \
                    TYPE values[], size_t nValues) {                                            \
        size_t k = 0;                                                                           \
        for (size_t i = 0; i < nvr; i++) {                                                      \
            size_t count;                                                                       \
            TYPE *p = LOOKUP((Model *)instance, vr[i], &count);                                 \
            if (!p || k + count > nValues) return fmi3Error;                                    \
            for (size_t j = 0; j < count; j++) values[k++] = p[j];                              \
        }                                                                                       \
        return k == nValues ? fmi3OK : fmi3Error;                                               \
    }

static int settable(Model *m, fmi3ValueReference vr) {
    if (vr == 1 || vr == 8 || vr == 16) return m->mode == INSTANTIATED; /* fixed / structural */
    return vr == 2 || vr == 5 || vr == 6 || vr == 9 || vr == 11 || vr == 12;
}

#define SETTER(NAME, TYPE, LOOKUP)                                                              \
    fmi3Status NAME(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,           \
                    const TYPE values[], size_t nValues) {                                      \
        size_t k = 0;                                                                           \
        for (size_t i = 0; i < nvr; i++) {                                                      \
            size_t count;                                                                       \
            TYPE *p = LOOKUP((Model *)instance, vr[i], &count);                                 \
            if (!p || !settable(instance, vr[i]) || k + count > nValues) return fmi3Error;      \
            for (size_t j = 0; j < count; j++) p[j] = values[k++];                              \
        }                                                                                       \
        if (((Model *)instance)->mode == STEPPING) calculate(instance);                         \
        return k == nValues ? fmi3OK : fmi3Error;                                               \
    }

static fmi3Float32 *float32(Model *m, fmi3ValueReference vr, size_t *count) {
    *count = 1;
    return vr == 1 ? &m->gain : vr == 2 ? &m->u32 : vr == 3 ? &m->y32 : NULL;
}
static fmi3Int32 *int32(Model *m, fmi3ValueReference vr, size_t *count) {
    *count = 1;
    return vr == 4 ? &m->count : vr == 5 ? &m->step_by : NULL;
}
static fmi3Boolean *boolean(Model *m, fmi3ValueReference vr, size_t *count) {
    *count = 1;
    return vr == 6 ? &m->enable : vr == 7 ? &m->odd : NULL;
}
static fmi3UInt64 *uint64(Model *m, fmi3ValueReference vr, size_t *count) {
    *count = 1;
    return vr == 8 ? &m->n : NULL;
}

GETTER(fmi3GetFloat64, fmi3Float64, float64)
GETTER(fmi3GetFloat32, fmi3Float32, float32)
GETTER(fmi3GetInt32, fmi3Int32, int32)
GETTER(fmi3GetBoolean, fmi3Boolean, boolean)
GETTER(fmi3GetUInt64, fmi3UInt64, uint64)
SETTER(fmi3SetFloat64, fmi3Float64, float64)
SETTER(fmi3SetFloat32, fmi3Float32, float32)
SETTER(fmi3SetInt32, fmi3Int32, int32)
SETTER(fmi3SetBoolean, fmi3Boolean, boolean)
SETTER(fmi3SetUInt64, fmi3UInt64, uint64)
