"""The fixed course: route, sections and summit (pure functions of the pot position).

The terrain itself lives in ``data/course.xml`` (the MJCF both engines run); this module holds the
game's reading of it: a route polyline through the resting positions of the pot's centre, the
course progress (arc length of the pot's projection on the route, the reward's potential), the
start position of each section, and the summit test. Functions take (x, z) arrays and work on
numpy or JAX inputs alike (``xp``-free: only arithmetic, min and where).
"""

from __future__ import annotations

import pathlib

import numpy as np

from climbjax.data import COURSE_XML  # noqa: E402  (the MJCF both engines run)

# Resting positions of the pot's centre (0.25 above each surface) along the intended way up,
# from the start ground over the steps and the rock, up the slope, across the ledge and onto the
# cliff top. Progress is measured along this polyline.
ROUTE = np.array([
    [-2.25, 0.25], [2.5, 0.25],    # start ground (top z = 0)
    [2.75, 0.85], [4.5, 0.85],     # step 1 (top 0.6)
    [4.75, 1.45], [5.7, 1.75],     # step 2 (top 1.2) and over the rock
    [7.0, 1.45], [11.0, 2.85],     # slope up to the ledge (top 2.6)
    [12.5, 2.85], [13.4, 3.85],    # across the ledge, over the pit onto the overhang (top 3.6)
    [16.5, 3.85],                  # cliff top
])
_SEGMENT = ROUTE[1:] - ROUTE[:-1]
_SEGMENT_LENGTH = np.sqrt(np.sum(_SEGMENT ** 2, axis=1))
_SEGMENT_START = np.concatenate([[0.0], np.cumsum(_SEGMENT_LENGTH)[:-1]])
ROUTE_LENGTH = float(np.sum(_SEGMENT_LENGTH))

# Start pose (pot x, pot z) of each section: the course start, step 1, past the rock, the ledge.
SECTION_STARTS = np.array([[0.0, 0.25], [3.6, 0.85], [6.5, 1.45], [11.8, 2.85]])
NUM_SECTIONS = len(SECTION_STARTS)

# The summit: the pot's centre over the cliff top (x >= SUMMIT_X) and at least SUMMIT_Z high.
SUMMIT_X = 14.0
SUMMIT_Z = 3.7


def constant(table, dtype):
    """A module table as a JAX constant of ``dtype``, from a fresh numpy copy. (JAX caches the
    conversion of a numpy array per object; a table first used in 32-bit mode and then inside
    ``jax.enable_x64`` code would come back as float32 and fail to lower.)"""
    import jax.numpy as jnp

    return jnp.asarray(np.array(table, dtype=dtype))


def progress(x, z):
    """Arc length (m) along ROUTE of the point of the route nearest to the pot's centre (x, z)."""
    import jax.numpy as jnp

    px, pz = jnp.asarray(x)[..., None], jnp.asarray(z)[..., None]
    dtype = jnp.result_type(px.dtype, jnp.float32)
    route, segment = constant(ROUTE, dtype), constant(_SEGMENT, dtype)
    length, start = constant(_SEGMENT_LENGTH, dtype), constant(_SEGMENT_START, dtype)
    ax, az = route[:-1, 0], route[:-1, 1]
    t = ((px - ax) * segment[:, 0] + (pz - az) * segment[:, 1]) / length ** 2
    t = jnp.clip(t, 0.0, 1.0)
    dx, dz = px - (ax + t * segment[:, 0]), pz - (az + t * segment[:, 1])
    dist2 = dx * dx + dz * dz
    best = jnp.argmin(dist2, axis=-1)
    along = start + t * length
    return jnp.take_along_axis(along, best[..., None], axis=-1)[..., 0]


def section_of_progress(s):
    """Index of the section whose start is the last one at or before progress ``s``."""
    import jax.numpy as jnp

    starts = progress(SECTION_STARTS[:, 0], SECTION_STARTS[:, 1])
    return jnp.sum(jnp.asarray(s)[..., None] >= starts[1:], axis=-1)


def at_summit(x, z):
    return (x >= SUMMIT_X) & (z >= SUMMIT_Z)
