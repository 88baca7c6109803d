"""Conversions between gymnax spaces (used inside JAX) and Gymnasium spaces (used by the vector API),
and validation of user-supplied numpy actions against a Gymnasium space."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnax.environments import spaces as gx


def to_gymnasium(space: Any) -> gymnasium.spaces.Space:
    """The Gymnasium space equivalent to a gymnax space."""
    if isinstance(space, gx.Discrete):
        return gymnasium.spaces.Discrete(int(space.n))
    if isinstance(space, gx.Box):
        dtype = np.dtype(space.dtype)
        shape = tuple(int(d) for d in space.shape)
        low = np.broadcast_to(np.asarray(space.low, dtype=np.float64), shape)
        high = np.broadcast_to(np.asarray(space.high, dtype=np.float64), shape)
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            low = np.clip(low, info.min, info.max)
            high = np.clip(high, info.min, info.max)
        return gymnasium.spaces.Box(low=low.astype(dtype), high=high.astype(dtype), shape=shape, dtype=dtype)
    if isinstance(space, gx.Dict):
        return gymnasium.spaces.Dict({k: to_gymnasium(v) for k, v in space.spaces.items()})
    if isinstance(space, gx.Tuple):
        return gymnasium.spaces.Tuple(tuple(to_gymnasium(s) for s in space.spaces))
    raise TypeError(f"cannot convert space {space!r} to Gymnasium")


def validate_batched_action(action: Any, space: gymnasium.spaces.Space, num_envs: int) -> np.ndarray:
    """Checks a batch of actions for ``space`` and returns it as a numpy array of the space's dtype.

    Raises ``TypeError`` for a wrong kind of value or dtype and ``ValueError`` for a wrong shape or
    an out-of-range value, naming the env index of the first bad action.
    """
    arr = np.asarray(action)
    if arr.dtype == object:
        raise TypeError(f"actions must be a numeric array, got {type(action).__name__}")
    if isinstance(space, gymnasium.spaces.Discrete):
        expected_shape = (num_envs,)
        if arr.shape != expected_shape:
            raise ValueError(f"actions must have shape {expected_shape} for Discrete({space.n}), got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.integer):
            if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
                raise TypeError(
                    f"actions for Discrete({space.n}) must have an integer dtype, got {arr.dtype}; "
                    "cast with .astype(np.int32)"
                )
            raise TypeError(f"actions for Discrete({space.n}) must have an integer dtype, got {arr.dtype}")
        bad = np.flatnonzero((arr < space.start) | (arr >= space.start + space.n))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"action {int(arr[i])} of env {i} is outside Discrete({space.n}) (valid: {space.start}..{space.start + space.n - 1})"
            )
        return arr.astype(np.int32)
    if isinstance(space, gymnasium.spaces.Box):
        expected_shape = (num_envs, *space.shape)
        if arr.shape != expected_shape:
            raise ValueError(f"actions must have shape {expected_shape} for {space}, got {arr.shape}")
        if not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
            raise TypeError(f"actions for {space} must be real numbers, got {arr.dtype}")
        arr = arr.astype(space.dtype)
        if not np.all(np.isfinite(arr)):
            i = int(np.flatnonzero(~np.isfinite(arr).reshape(num_envs, -1).all(axis=1))[0])
            raise ValueError(f"action of env {i} is not finite")
        outside = (arr < space.low) | (arr > space.high)
        if np.any(outside):
            i = int(np.flatnonzero(outside.reshape(num_envs, -1).any(axis=1))[0])
            raise ValueError(f"action of env {i} is outside [{space.low.min()}, {space.high.max()}]: {arr[i]}")
        return arr
    raise TypeError(f"unsupported action space {space}")
