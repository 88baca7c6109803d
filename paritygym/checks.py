"""Checks of what an env is configured with, run once where ``make`` receives it (on the host,
never inside a step): static options (constructor arguments), params (traced values), the
deprecated spellings of option names, and the dtype of a discrete action (at trace time).

Params rules come from the env's default params: a field holds the same kind of value as its
default (bool, int, float, or the same params class, checked field by field), an int fits int32
(the dtype JAX gives it), a float is finite, and a field declared with ``bounded`` lies in its
range. An env with rules these cannot say (arrays, pools, ranges that depend on the env) adds a
``check_params(params)`` method.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Iterable, Literal

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1

#: Old option names that ``make``/``make_vec`` still take, with a ``DeprecationWarning``, for any env
#: that has the new name: one name for one concept across every env.
DEPRECATED_OPTIONS: dict[str, str] = {
    "frameskip": "frame_skip",
    "max_episode_steps": "max_steps_in_episode",
}

Kind = Literal["bool", "int", "float"]


def bounded(default: Any, *, ge: float | None = None, gt: float | None = None, le: float | None = None) -> Any:
    """A params field whose value ``make`` checks: ``>= ge``, ``> gt``, ``<= le`` (each optional)."""
    return struct.field(default=default, metadata={"bounds": (ge, gt, le)})


def value_kind(value: Any) -> Kind | None:
    """"bool", "int" or "float" for a Python or numpy scalar or a 0-d array; None otherwise."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (np.ndarray, jax.Array)) and value.ndim == 0:
        return {"b": "bool", "i": "int", "u": "int", "f": "float"}.get(np.dtype(value.dtype).kind)
    return None


def _describe(kind: Kind, ge: float | None, gt: float | None, le: float | None) -> str:
    text = {"bool": "a bool", "int": "an int", "float": "a finite float"}[kind]
    limits = [f">= {ge}" if ge is not None else "", f"> {gt}" if gt is not None else "", f"<= {le}" if le is not None else ""]
    limits = [x for x in limits if x]
    return f"{text} {' and '.join(limits)}" if limits else text


def check_value(name: str, value: Any, kind: Kind, *, ge: float | None = None, gt: float | None = None,
                le: float | None = None, choices: Iterable[Any] | None = None) -> Any:
    """Returns ``value`` as a Python bool/int/float if it is of ``kind`` and within the bounds (or one
    of ``choices``); raises ``TypeError`` for a wrong kind and ``ValueError`` for a wrong value, both
    naming ``name`` and what it must be. An int is accepted where a float is expected, a bool
    nowhere but for a bool."""
    got = value_kind(value)
    if kind == "int":
        ge, le = max(INT32_MIN, ge) if ge is not None else INT32_MIN, min(INT32_MAX, le) if le is not None else INT32_MAX
    if choices is not None:
        choices = tuple(choices)
        what = f"one of {list(choices)}"
    else:
        what = _describe(kind, ge, gt, le)
    if got != kind and not (kind == "float" and got == "int"):
        raise TypeError(f"{name} must be {what}, got {value!r} ({type(value).__name__})")
    value = {"bool": bool, "int": int, "float": float}[kind](value)
    bad = (
        (choices is not None and value not in choices)
        or (kind == "float" and not math.isfinite(value))
        or (ge is not None and value < ge)
        or (gt is not None and value <= gt)
        or (le is not None and value > le)
    )
    if bad:
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value


def check_params(env: Any, params: Any, where: str = "") -> None:
    """Checks every field of ``params`` against the env's default params (see the module docstring),
    then the env's own ``check_params`` if it has one. ``where`` prefixes the messages (the env id)."""
    prefix = f"{where}: " if where else ""
    _check_fields(params, env.default_params, prefix + "param ")
    if callable(getattr(env, "check_params", None)):
        try:
            env.check_params(params)
        except (TypeError, ValueError) as exc:
            if type(exc) not in (TypeError, ValueError) or not prefix:
                raise
            raise type(exc)(f"{prefix}{exc}") from None


def _check_fields(params: Any, default: Any, prefix: str) -> None:
    if type(params) is not type(default):
        raise TypeError(f"{prefix.rstrip('.').rstrip()} must be a {type(default).__name__}, got {type(params).__name__}")
    for field in dataclasses.fields(default):
        value, ref = getattr(params, field.name), getattr(default, field.name)
        if isinstance(value, jax.core.Tracer):  # params under a transformation: checked where made
            continue
        if dataclasses.is_dataclass(ref) and not isinstance(ref, type):
            _check_fields(value, ref, f"{prefix}{field.name}.")
            continue
        kind = value_kind(ref)
        if kind is None:  # arrays, pools, None: the env's own check_params
            continue
        ge, gt, le = field.metadata.get("bounds", (None, None, None))
        check_value(f"{prefix}{field.name}", value, kind, ge=ge, gt=gt, le=le)


def rename_deprecated(kwargs: dict[str, Any], accepted: Iterable[str], where: str) -> dict[str, Any]:
    """``kwargs`` with each deprecated option name (``DEPRECATED_OPTIONS``) that has its new name in
    ``accepted`` renamed, with a ``DeprecationWarning``; giving both names is a ``TypeError``."""
    accepted = set(accepted)
    out = dict(kwargs)
    for old, new in DEPRECATED_OPTIONS.items():
        if old in out and new in accepted:
            if new in out:
                raise TypeError(f"{where}: give {new!r} only ({old!r} is its deprecated name)")
            warnings.warn(f"{where}: option {old!r} is deprecated, use {new!r}", DeprecationWarning, stacklevel=3)
            out[new] = out.pop(old)
    return out


def unknown_options_error(where: str, unknown: Iterable[str], **valid: Iterable[str]) -> TypeError:
    """The error for options an env does not have, listing the valid ones (and the new name of a
    deprecated one the env does not have either)."""
    listing = "; ".join(f"{kind.replace('_', ' ')}: {sorted(names)}" for kind, names in valid.items())
    return TypeError(f"{where} has no option {sorted(unknown)}; valid {listing}")


def check_discrete_action(action: Any, num_actions: int, batch_dims: int = 0) -> jax.Array:
    """``action`` as int32 if its dtype is an integer one and it has ``batch_dims`` dimensions; else
    a ``TypeError``/``ValueError`` raised while JAX traces the step (dtype and shape are static, so
    this costs nothing when the step runs). A float would otherwise be truncated silently
    (2.7 -> 2, NaN -> 0)."""
    dtype = jnp.result_type(action)
    if not jnp.issubdtype(dtype, jnp.integer):
        raise TypeError(f"a Discrete({num_actions}) action must have an integer dtype, got {dtype}; "
                        "cast with .astype(jnp.int32)")
    if jnp.ndim(action) != batch_dims:
        expected = "a scalar" if batch_dims == 0 else f"an array of {batch_dims} dimension(s)"
        raise ValueError(f"a Discrete({num_actions}) action must be {expected}, got shape {jnp.shape(action)}")
    return jnp.asarray(action, jnp.int32)
