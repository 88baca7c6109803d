"""The climbing game as pure functions of the physics state: the action-to-control map, the
terrain height profile, observations, the progress potential and the summit test. No RL
concerns (env.py) and no reference (reference.py); works for any planar model of the course.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from climbjax import course
from planarjax.physics.model import GEOM_BOX, GEOM_CAPSULE, GEOM_PLANE, PlanarModel

# Joint order in course.xml (checked by the env against the model's joint names).
JOINT_NAMES = ("pot_x", "pot_z", "pot_pitch", "hammer_angle", "hammer_extend")
POT_Z_OFFSET = 0.25          # the pot body's height in course.xml; pot_z is relative to it
START_HAMMER = (-0.6, 0.3)   # hammer angle (rad) and extension (m) at the start: forward-down
HEIGHT_OFFSETS = np.linspace(-1.5, 2.5, 9)  # where the terrain is sampled, relative to the pot's x
HEIGHT_GRID_STEP = 0.02      # resolution of the precomputed terrain profile (m)


def action_to_ctrl(action: jnp.ndarray, ctrlrange: np.ndarray) -> jnp.ndarray:
    """Actions in [-1, 1] (clipped) -> position-servo targets across each actuator's ctrlrange."""
    lo, hi = np.asarray(ctrlrange[:, 0]), np.asarray(ctrlrange[:, 1])
    a = jnp.clip(action, -1.0, 1.0)
    return course.constant(lo, action.dtype) + (a + 1.0) * course.constant(0.5 * (hi - lo), action.dtype)


def pot_position(qpos: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """World (x, z) of the pot's centre."""
    return qpos[0], qpos[1] + POT_Z_OFFSET


def start_qpos(section: jnp.ndarray, x_offset: jnp.ndarray, dtype) -> jnp.ndarray:
    starts = course.constant(course.SECTION_STARTS, dtype)[section]
    return jnp.stack([starts[0] + x_offset, starts[1] - POT_Z_OFFSET, jnp.zeros((), dtype),
                      jnp.asarray(START_HAMMER[0], dtype), jnp.asarray(START_HAMMER[1], dtype)]).astype(dtype)


# ---- terrain profile --------------------------------------------------------------------------

def _box_top(x: np.ndarray, center: np.ndarray, rot: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Highest z of a box (rotated about y) over each x; -inf where the vertical line misses it."""
    ex, ez = rot[[0, 2], 0], rot[[0, 2], 2]
    corners = [center + sx * half[0] * ex + sz * half[2] * ez for sx, sz in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    top = np.full_like(x, -np.inf)
    for a, b in zip(corners, corners[1:] + corners[:1]):
        if abs(b[0] - a[0]) < 1e-12:
            continue
        t = (x - a[0]) / (b[0] - a[0])
        z = a[1] + t * (b[1] - a[1])
        top = np.where((t >= 0) & (t <= 1), np.maximum(top, z), top)
    return top


def terrain_profile(model: PlanarModel) -> tuple[float, np.ndarray]:
    """(x0, heights): the highest terrain surface z at x0 + i * HEIGHT_GRID_STEP, from the static
    boxes, the capsules across the plane (discs in the side view) and the horizontal planes."""
    static = [g for g in range(model.ngeom) if model.body_last_dof[model.geom_body[g]] < 0]
    x0, x1 = -5.0, 25.0
    x = np.arange(x0, x1 + HEIGHT_GRID_STEP / 2, HEIGHT_GRID_STEP)
    top = np.full_like(x, -np.inf)
    for g in static:
        center = model.geom_offset[g][[0, 2]]
        rot = model.geom_rot[g]
        if model.geom_type[g] == GEOM_BOX:
            top = np.maximum(top, _box_top(x, center, rot, model.geom_size[g]))
        elif model.geom_type[g] == GEOM_CAPSULE and abs(abs(rot[1, 2]) - 1) < 1e-12:
            r = model.geom_size[g, 0]
            inside = np.abs(x - center[0]) <= r
            top = np.where(inside, np.maximum(top, center[1] + np.sqrt(np.maximum(r * r - (x - center[0]) ** 2, 0))), top)
        elif model.geom_type[g] == GEOM_PLANE and abs(rot[2, 2] - 1) < 1e-12:
            top = np.maximum(top, center[1])
    return x0, np.where(np.isfinite(top), top, -10.0)


def terrain_heights(profile: tuple[float, np.ndarray], x: jnp.ndarray) -> jnp.ndarray:
    x0, heights = profile
    index = jnp.clip(jnp.round((x - x0) / HEIGHT_GRID_STEP).astype(jnp.int32), 0, len(heights) - 1)
    return course.constant(heights, x.dtype)[index]


# ---- observation ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ObservationLayout:
    """Names of the observation entries, in order (docs/envs/climb.md explains each)."""

    names: tuple[str, ...] = (
        ("pot_x", "pot_z", "pot_pitch_cos", "pot_pitch_sin", "hammer_angle", "hammer_extend",
         "pot_vx", "pot_vz", "pot_pitch_rate", "hammer_angle_rate", "hammer_extend_rate",
         "head_dx", "head_dz", "head_contact", "progress")
        + tuple(f"terrain_{o:+.1f}" for o in HEIGHT_OFFSETS))

    @property
    def size(self) -> int:
        return len(self.names)


OBSERVATION = ObservationLayout()
ARM_LENGTH = 0.7  # head centre distance from the shoulder at zero extension (course.xml)
SHOULDER_Z = 0.3  # shoulder above the pot centre (course.xml)


def head_offset(qpos: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """(dx, dz) of the hammer head from the pot centre (pot pitch and hammer angle both about -y)."""
    pitch, angle, extend = qpos[2], qpos[3], qpos[4]
    reach = ARM_LENGTH + extend
    sx, sz = -SHOULDER_Z * jnp.sin(pitch), SHOULDER_Z * jnp.cos(pitch)
    world_angle = pitch + angle
    return sx + reach * jnp.cos(world_angle), sz + reach * jnp.sin(world_angle)


def observation(qpos: jnp.ndarray, qvel: jnp.ndarray, head_contact: jnp.ndarray,
                profile: tuple[float, np.ndarray], dtype) -> jnp.ndarray:
    x, z = pot_position(qpos)
    dx, dz = head_offset(qpos)
    heights = terrain_heights(profile, x + course.constant(HEIGHT_OFFSETS, qpos.dtype)) - z
    parts = [jnp.stack([x, z, jnp.cos(qpos[2]), jnp.sin(qpos[2]), qpos[3], qpos[4]]), qvel,
             jnp.stack([dx, dz, head_contact.astype(qpos.dtype), course.progress(x, z).astype(qpos.dtype)]),
             jnp.maximum(heights, -5.0)]
    return jnp.concatenate(parts).astype(dtype)


def summit(qpos: jnp.ndarray) -> jnp.ndarray:
    x, z = pot_position(qpos)
    return course.at_summit(x, z)


def potential(qpos: jnp.ndarray) -> jnp.ndarray:
    """Course progress (m along the route) of the pot: the reward is its change."""
    return course.progress(*pot_position(qpos))


def check_joint_names(model: PlanarModel) -> None:
    if tuple(model.jnt_names) != JOINT_NAMES:
        raise ValueError(f"course model joints {model.jnt_names} != expected {JOINT_NAMES}")


