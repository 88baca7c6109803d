"""Side-view RGB frames of the climbing game (a small numpy rasteriser, no OpenGL).

The camera looks along +y and follows the pot: sky, the terrain (boxes as rotated rectangles,
capsules across the plane as discs, horizontal planes as ground), the summit flag, the pot's
spheres, the hammer shaft and head.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import numpy as np

from climbjax import course
from climbjax.data import course_model
from planarjax.physics import kinematics
from planarjax.physics.model import GEOM_BOX, GEOM_CAPSULE, GEOM_PLANE, GEOM_SPHERE, PlanarModel


@functools.lru_cache(maxsize=None)
def _model() -> PlanarModel:
    # A float32 copy of its own: JAX caches the conversion of a model's numpy index tables per
    # array object, and reusing tables traced in 32-bit mode inside 64-bit code fails (the parity
    # tests trace course_model() itself under jax.enable_x64).
    return course_model().astype(np.float32)


@functools.lru_cache(maxsize=None)
def _poses_fn():
    model = _model()
    return jax.jit(lambda qpos: kinematics.poses(model, qpos))


def render_qpos(qpos: np.ndarray, width: int = 480, height: int = 320, view_width: float = 9.0) -> np.ndarray:
    """uint8[height, width, 3] side view of the course with the climber at ``qpos`` (5,)."""
    model = _model()
    poses = jax.device_get(_poses_fn()(np.asarray(qpos, np.float64).astype(np.float32)))
    scale = width / view_width
    cx, cz = float(qpos[0]) + 1.0, float(qpos[1]) + 0.8
    xs = cx + (np.arange(width) + 0.5 - width / 2) / scale
    zs = cz - (np.arange(height) + 0.5 - height / 2) / scale
    gx, gz = np.meshgrid(xs, zs)
    sky = np.linspace(0.6, 0.9, height)[:, None, None] * np.array([0.75, 0.85, 1.0])
    image = np.broadcast_to(sky, (height, width, 3)).copy()

    def paint(mask: np.ndarray, rgb) -> None:
        image[mask] = np.asarray(rgb, np.float64)[:3]

    for g in range(model.ngeom):
        static = model.body_last_dof[model.geom_body[g]] < 0
        center = poses.geom_pos[g][[0, 2]].astype(np.float64)
        rot = poses.geom_mat[g].astype(np.float64)
        color = model.geom_rgba[g]
        if model.geom_type[g] == GEOM_PLANE and static and abs(rot[2, 2] - 1) < 1e-6:
            paint(gz < center[1], color)
        elif model.geom_type[g] == GEOM_BOX:
            ex, ez = rot[[0, 2], 0], rot[[0, 2], 2]
            u = (gx - center[0]) * ex[0] + (gz - center[1]) * ex[1]
            w = (gx - center[0]) * ez[0] + (gz - center[1]) * ez[1]
            paint((np.abs(u) <= model.geom_size[g, 0]) & (np.abs(w) <= model.geom_size[g, 2]), color)
        elif model.geom_type[g] in (GEOM_SPHERE, GEOM_CAPSULE):
            radius = model.geom_size[g, 0]
            axis = rot[[0, 2], 2]
            half = model.geom_size[g, 1] if model.geom_type[g] == GEOM_CAPSULE and np.hypot(*axis) > 1e-6 else 0.0
            a, b = center - half * axis, center + half * axis
            ab = b - a
            t = np.clip(((gx - a[0]) * ab[0] + (gz - a[1]) * ab[1]) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
            paint(np.hypot(gx - (a[0] + t * ab[0]), gz - (a[1] + t * ab[1])) <= radius, color)
    # summit flag
    pole = (np.abs(gx - (course.SUMMIT_X + 0.5)) < 0.03) & (gz > 3.6) & (gz < 4.6)
    flag = (gx > course.SUMMIT_X + 0.5) & (gx < course.SUMMIT_X + 0.9) & (gz > 4.3) & (gz < 4.6)
    paint(pole, (0.2, 0.2, 0.2))
    paint(flag, (0.9, 0.2, 0.2))
    return (np.clip(image, 0.0, 1.0) * 255).astype(np.uint8)


def render_state(state: Any, params: Any = None) -> np.ndarray:
    """paritygym's render hook: one env's EnvState (host arrays) -> uint8[320, 480, 3]."""
    return render_qpos(np.asarray(state.physics.qpos))
