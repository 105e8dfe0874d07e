"""The environment a scene stands in: gravity, the Sun's and Earth's directions at a site.

Pure computations over the composed stage and a real ephemeris; the runtime publishes them through
environment probes (:mod:`luncosim_core.sim.environment_probe`).
"""

from luncosim_core.environment.ephemeris import EphemerisError, earth_direction_enu
from luncosim_core.environment.scene import (
           SiteAnchor,
           scenario_epoch_jd,
           scene_gravity,
           scene_sun_direction,
           site_anchor,
)

__all__ = ["EphemerisError", "SiteAnchor", "earth_direction_enu", "scenario_epoch_jd", "scene_gravity",
           "scene_sun_direction", "site_anchor"]
