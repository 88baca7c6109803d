"""Side-view RGB frames of HalfCheetah states (a small numpy rasteriser, no OpenGL).

The camera looks along +y like Gymnasium's "track" camera (3 m away, 45 degree field of view,
following the torso), drawn orthographically: sky, a checkered floor below z = 0 so that motion
is visible, and every capsule geom in its model colour.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import jax
import numpy as np

from cheetahjax.data import half_cheetah_model
from planarjax.physics import kinematics
from planarjax.physics.model import GEOM_CAPSULE, PlanarModel


_POSES: dict[int, tuple[PlanarModel, Any]] = {}


def _poses_fn(model: PlanarModel):
    """A jitted poses function per model object (the model is baked in as constants)."""
    if id(model) not in _POSES:
        _POSES[id(model)] = (model, jax.jit(lambda qpos: kinematics.poses(model, qpos)))
    return _POSES[id(model)][1]


@functools.lru_cache(maxsize=None)
def _default_model() -> PlanarModel:
    return half_cheetah_model().astype(np.float32)


def render_qpos(qpos: np.ndarray, model: PlanarModel | None = None, width: int = 480, height: int = 480,
                distance: float = 3.0, fovy_degrees: float = 45.0) -> np.ndarray:
    """uint8[height, width, 3] image of the model at ``qpos``."""
    model = model or _default_model()
    poses = jax.device_get(_poses_fn(model)(np.asarray(qpos, model.timestep.dtype)))
    view_height = 2.0 * distance * math.tan(math.radians(fovy_degrees) / 2.0)
    pixels_per_metre = height / view_height
    center_x = float(poses.body_xz[1, 0])     # follow the first moving body (the torso)
    center_z = 0.3 + float(model.body_offset_xz[1, 1]) * 0.5
    xs = center_x + (np.arange(width) + 0.5 - width / 2) / pixels_per_metre
    zs = center_z - (np.arange(height) + 0.5 - height / 2) / pixels_per_metre
    gx, gz = np.meshgrid(xs, zs)

    sky = np.linspace(0.55, 0.85, height)[:, None, None] * np.array([0.75, 0.85, 1.0])
    image = np.broadcast_to(sky, (height, width, 3)).copy()
    floor = gz < 0
    checker = ((np.floor(gx / 0.5) + np.floor(gz / 0.5)) % 2 == 0)
    image[floor] = np.where(checker[floor, None], [0.55, 0.6, 0.55], [0.42, 0.47, 0.42])

    for g in range(model.ngeom):
        if model.geom_type[g] != GEOM_CAPSULE:
            continue
        radius, half = float(model.geom_size[g, 0]), float(model.geom_size[g, 1])
        center = poses.geom_pos[g][[0, 2]]
        axis = poses.geom_mat[g][[0, 2], 2]
        a, b = center - half * axis, center + half * axis
        ab = b - a
        t = np.clip(((gx - a[0]) * ab[0] + (gz - a[1]) * ab[1]) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
        dist = np.hypot(gx - (a[0] + t * ab[0]), gz - (a[1] + t * ab[1]))
        inside = dist <= radius
        # Shade by distance from the capsule's axis so the limbs read as rounded.
        shade = 1.0 - 0.35 * (dist / radius) ** 2
        color = np.asarray(model.geom_rgba[g][:3], np.float64)
        image[inside] = shade[inside, None] * color
    return (np.clip(image, 0.0, 1.0) * 255).astype(np.uint8)


def render_state(state: Any, params: Any = None) -> np.ndarray:
    """paritygym's render hook: one env's EnvState (host arrays) -> uint8[480, 480, 3]."""
    return render_qpos(np.asarray(state.physics.qpos))
