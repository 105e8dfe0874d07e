"""The robot contract: how the mission commands a robot's motion through its input ports.

A robot offers one of (checked in this order):

* ``throttle_steer``: ``inputs:throttle`` and ``inputs:steer`` on the robot prim, each -1..1;
  +throttle drives forward (+X of the base body), +steer yaws right (clockwise seen from above).
* ``wheel_velocity``: revolute wheel joints under the robot (a joint whose child body carries a
  cylinder collider along the joint axis, the axis lying across the robot); the mission writes
  each joint's ``target_velocity`` (rad/s) for differential (skid-steer) drive.

Optional attributes on the robot prim give its capability: ``float mission:maxSpeed`` (m/s) and
``float mission:maxYawRate`` (rad/s); without them 1.0 m/s and 1.0 rad/s are used. Commands are
rates: at steady state a robot's forward speed and yaw rate follow its throttle and steer (a full
command reaches about those maxima), as with speed-controlled motors or motors whose back-EMF
damps them. The actual ratio (a skid-steer robot turns slower than commanded, its wheels slipping
sideways) is learnt while driving; a command that only sets torque, with nothing to hold a speed,
does not meet the contract.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from luncosim_core.api.commands import SetPorts
from luncosim_core.mission.frames import GroundFrame
from luncosim_core.mission.host import MissionHost

DEFAULT_MAX_SPEED_M_S = 1.0
DEFAULT_MAX_YAW_RATE = 1.0
GAIN_RANGE = (0.05, 2.0)  # the measured/commanded rate ratios a robot may have
GAIN_ADAPT_S = 0.7  # time constant of learning it
RESPONSE_LAG_S = 0.5  # the robot's assumed response lag to a command
MIN_REACH = 0.1  # the least share of a maximum taken as reachable


class DriveError(Exception):
    """The robot offers no drive interface the mission can use."""


@dataclass
class ChannelLoop:
    """One channel of the drive (forward speed or yaw rate): command = reference / gain + PI on
    the measured rate, where ``gain`` (the measured rate per unit of command) is learnt while the
    channel is driven steadily: a skid-steer robot reaches only part of its commanded yaw rate, as
    its wheels slip sideways."""

    kp: float = 0.6
    ki: float = 1.0
    limit: float = 1.0  # integral authority, as a multiple of the channel's maximum
    gain: float = 1.0
    integral: float = 0.0
    lagged: float = 0.0  # the applied command through the robot's response lag
    out: float = 0.0  # the last command
    measured: float = 0.0  # the last measured rate
    saturated: bool = False  # the last command hit the robot's limit short of the reference

    def __call__(self, ref: float, measured: float, dt: float, scale: float, saturation: float | None = None) -> float:
        """The command for reference rate ``ref`` given the ``measured`` one; ``scale`` is the
        channel's maximum, ``saturation`` the largest command the robot accepts (the integral
        stops growing against it)."""
        steady = abs(self.out - self.lagged) <= 0.15 * abs(self.lagged)  # the robot has caught up
        if steady and abs(self.lagged) > 0.1 * scale and abs(measured) > 0.05 * scale and measured * self.lagged > 0:
            seen = min(max(measured / self.lagged, GAIN_RANGE[0]), GAIN_RANGE[1])
            self.gain += (seen - self.gain) * min(1.0, dt / GAIN_ADAPT_S)
        err = ref - measured
        integral = min(max(self.integral + self.ki * err * dt, -self.limit * scale), self.limit * scale)
        out = ref / self.gain + self.kp * err + integral
        self.measured = measured
        self.saturated = saturation is not None and abs(out) > saturation and abs(measured) < abs(ref)
        if saturation is not None and abs(out) > saturation:
            out = math.copysign(saturation, out)
            if err * out <= 0:  # integrate only while it pulls back from the limit
                self.integral = integral
        else:
            self.integral = integral
        self.out = out
        self.lagged += (out - self.lagged) * min(1.0, dt / RESPONSE_LAG_S)
        return out

    def reset(self) -> None:
        self.integral = self.lagged = self.out = 0.0


@dataclass
class RateLoop:
    """Forward-speed and yaw-rate loops (:class:`ChannelLoop`), so the achieved rates follow the
    commanded ones."""

    speed: ChannelLoop = field(default_factory=ChannelLoop)
    yaw: ChannelLoop = field(default_factory=ChannelLoop)

    def __call__(self, v: float, w: float, mv: float, mw: float, dt: float, vmax: float, wmax: float,
                 saturates: bool = False):
        return (self.speed(v, mv, dt, vmax, vmax if saturates else None),
                self.yaw(w, mw, dt, wmax, wmax if saturates else None))

    def reset(self) -> None:
        self.speed.reset()
        self.yaw.reset()


@dataclass
class Drive:
    kind: str
    robot: str
    max_speed: float
    max_yaw_rate: float
    wheels: list[tuple[str, float, float]] = field(default_factory=list)  # joint, side (+1 left), sign
    radius: float = 0.0
    track: float = 0.0
    loop: RateLoop = field(default_factory=RateLoop)

    def reach(self) -> tuple[float, float]:
        """The forward speed and yaw rate the robot can reach: throttle and steer stop at full
        command, so a robot that turns (or drives) slower than commanded reaches only that share
        of its maxima."""
        if self.kind != "throttle_steer":
            return self.max_speed, self.max_yaw_rate
        out = []
        for ch, top in ((self.loop.speed, self.max_speed), (self.loop.yaw, self.max_yaw_rate)):
            reach = top * min(1.0, ch.gain)
            if ch.saturated:  # at full command right now: what it reaches is what it measures
                reach = min(reach, max(MIN_REACH * top, abs(ch.measured)))
            out.append(reach)
        return out[0], out[1]

    def command(self, host: MissionHost, v: float, w: float, measured_v: float, measured_w: float,
                dt: float) -> None:
        """Submit the port writes for desired forward speed ``v`` and yaw rate ``w``."""
        v = float(np.clip(v, -self.max_speed, self.max_speed))
        w = float(np.clip(w, -self.max_yaw_rate, self.max_yaw_rate))
        cv, cw = self.loop(v, w, measured_v, measured_w, dt, self.max_speed, self.max_yaw_rate,
                           saturates=self.kind == "throttle_steer")
        if self.kind == "throttle_steer":
            host.submit(SetPorts(target=self.robot, writes={
                "throttle": float(np.clip(cv / self.max_speed, -1.0, 1.0)),
                "steer": float(np.clip(-cw / self.max_yaw_rate, -1.0, 1.0))}))
            return
        for joint, side, sign in self.wheels:
            rate = (cv - side * cw * self.track / 2.0) / self.radius * sign
            host.submit(SetPorts(target=joint, writes={"target_velocity": rate}))

    def stop(self, host: MissionHost) -> None:
        self.loop.reset()
        if self.kind == "throttle_steer":
            host.submit(SetPorts(target=self.robot, writes={"throttle": 0.0, "steer": 0.0}))
            return
        for joint, _side, _sign in self.wheels:
            host.submit(SetPorts(target=joint, writes={"target_velocity": 0.0}))

    def to_json(self) -> dict:
        out = {"kind": self.kind, "max_speed_m_s": self.max_speed, "max_yaw_rate_rad_s": self.max_yaw_rate}
        if self.kind == "wheel_velocity":
            out.update(wheels=[j for j, _s, _g in self.wheels], radius_m=self.radius, track_m=self.track)
        return out


def _limits(host: MissionHost, robot: str) -> tuple[float, float]:
    attrs = (host.prim_attributes(robot) or {}).get("attributes", {})
    out = []
    for name, default in (("mission:maxSpeed", DEFAULT_MAX_SPEED_M_S), ("mission:maxYawRate", DEFAULT_MAX_YAW_RATE)):
        v = attrs.get(name)
        if v is None:
            out.append(default)
            continue
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise DriveError(f"{robot}.{name} must be a number, got {v!r}") from None
        if not math.isfinite(f) or f <= 0:
            raise DriveError(f"{robot}.{name} must be > 0, got {v!r}")
        out.append(f)
    return out[0], out[1]


def bind_drive(host: MissionHost, robot: str, frame: GroundFrame, base: str, bodies: tuple[str, ...]) -> Drive:
    """Find the robot's drive interface (see the module doc); :class:`DriveError` when none."""
    vmax, wmax = _limits(host, robot)
    ports = {p["name"]: p for p in host.ports(robot)}
    if all(n in ports and ports[n]["direction"] == "in" and ports[n]["writable"] for n in ("throttle", "steer")):
        return Drive("throttle_steer", robot, vmax, wmax)
    wheels, radius, track = _wheels(host, robot, frame, base, set(bodies))
    if wheels:
        return Drive("wheel_velocity", robot, vmax, wmax, wheels, radius, track)
    raise DriveError(f"robot {robot} offers no drive interface: declare inputs:throttle and inputs:steer on it, "
                     "or give it revolute wheel joints (a child body with a cylinder collider along the joint "
                     "axis); see docs/mission.md")


def _wheels(host: MissionHost, robot: str, frame: GroundFrame, base: str, bodies: set[str]):
    pos, orn, _v, _w = host.body_state(base)
    bx, by, _h = frame.to_plane(pos)
    yaw = frame.yaw_of(orn)
    fwd = frame.to_world(math.cos(yaw), math.sin(yaw), 0.0)
    up = frame.up_vector
    radii: dict[str, float] = {}
    for g in host.colliders():
        if g.body in bodies and g.kind == "cylinder":
            radii[g.body] = max(radii.get(g.body, 0.0), g.radius)
    wheels: list[tuple[str, float, float]] = []
    rs, lateral = [], {1.0: [], -1.0: []}
    for j in host.joints():
        if j.kind != "revolute" or j.body1 not in bodies or j.body1 not in radii or j.body1 == base:
            continue
        axis = np.array(j.axis, dtype=float)
        if abs(float(axis @ up)) > 0.3 or abs(float(axis @ fwd)) > 0.3:
            continue  # not an axle across the robot
        roll = np.cross(axis, up)
        sign = 1.0 if float(roll @ fwd) > 0 else -1.0
        wpos, _q, _lv, _av = host.body_state(j.body1)
        wx, wy, _wh = frame.to_plane(wpos)
        lat = -math.sin(yaw) * (wx - bx) + math.cos(yaw) * (wy - by)
        side = 1.0 if lat > 0 else -1.0
        wheels.append((j.joint_path, side, sign))
        rs.append(radii[j.body1])
        lateral[side].append(abs(lat))
    if not wheels or not lateral[1.0] or not lateral[-1.0]:
        return [], 0.0, 0.0
    track = float(np.mean(lateral[1.0]) + np.mean(lateral[-1.0]))
    return sorted(wheels), float(np.mean(rs)), track
