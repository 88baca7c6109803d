"""The env registry: ids with versions, resolved lazily to import paths.

An id names behaviour: `Pong-v0` changes to `Pong-v1` only when what the env does changes.
Entry points are import paths (``"pongjax.env:Pong"``) so that importing paritygym imports no
env package; an env's package is imported only when it is made.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from typing import Any, Callable, Literal

from paritygym.checks import DEPRECATED_OPTIONS, check_params, rename_deprecated, unknown_options_error

_ID_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9]*-v\d+$")

EnvKind = Literal["jax", "native"]


@dataclasses.dataclass(frozen=True)
class EnvSpec:
    """What the registry knows about one env id.

    Attributes:
        id: versioned name, e.g. ``"Pong-v0"``.
        entry_point: ``"module:attr"``. For ``kind="jax"`` a gymnax ``Environment`` subclass
            (constructor kwargs are the env's static config), made by ``make``. For
            ``kind="native"`` a ``gymnasium.Env`` class for a single env (same options as the
            vector env); ``make`` refuses native envs and names it.
        kind: ``"jax"`` (pure functional gymnax env) or ``"native"`` (a batched native backend
            such as the Rust Game Boy emulator, used through ``make_vec``; no functional API).
        reference: the real system this env is proven equivalent to.
        parity: one line on the parity status, as measured by the test suite.
        docs: path of the env's docs page, relative to the repository root.
        vector_entry_point: ``"module:attr"`` of ``(num_envs, seed, **options) -> VectorEnv`` for
            native envs, whose signature names every option (``make_vec`` lists them when given an
            unknown one); JAX envs get paritygym's generic jitted-vmap vector env.
        reference_bench: ``"module:attr"`` of ``(batch_size, num_steps, num_procs) -> steps/s``
            that runs the reference side by side in ``paritygym bench --reference``.
        verify: ``"module:attr"`` of ``(level, episodes, seed) -> list[ParityReport]`` used by
            ``paritygym verify``.
        verify_l4: like ``verify``, for level 4 only, when an env's L4 (policy transfer) lives apart
            from its other levels; ``paritygym verify --level 4`` prefers it.
        render: ``"module:attr"`` of ``(state, params) -> uint8[H, W, 3]`` for one env's state
            (host arrays), used to record GIFs of policies.
        default_kwargs: kwargs applied by ``make`` before the caller's.
    """

    id: str
    entry_point: str
    kind: EnvKind = "jax"
    reference: str = ""
    parity: str = "not yet verified"
    docs: str = ""
    vector_entry_point: str | None = None
    reference_bench: str | None = None
    verify: str | None = None
    verify_l4: str | None = None
    render: str | None = None
    default_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.id.rsplit("-v", 1)[0]

    @property
    def version(self) -> int:
        return int(self.id.rsplit("-v", 1)[1])


_REGISTRY: dict[str, EnvSpec] = {}


def register(env_id: str, entry_point: str, **fields: Any) -> EnvSpec:
    """Registers an env id. Raises ``ValueError`` on a malformed or duplicate id."""
    if not _ID_PATTERN.match(env_id):
        raise ValueError(f"env id {env_id!r} must look like 'Name-v0'")
    if env_id in _REGISTRY:
        raise ValueError(f"env id {env_id!r} is already registered")
    if ":" not in entry_point:
        raise ValueError(f"entry_point {entry_point!r} must be 'module:attribute'")
    spec_ = EnvSpec(id=env_id, entry_point=entry_point, **fields)
    _REGISTRY[env_id] = spec_
    return spec_


def deregister(env_id: str) -> None:
    """Removes an id (used by tests that register toy envs)."""
    _REGISTRY.pop(env_id, None)


def registered_envs() -> list[str]:
    """All registered ids, sorted."""
    return sorted(_REGISTRY)


def spec(env_id: str) -> EnvSpec:
    """The spec of a registered id, with a helpful error for unknown ids."""
    try:
        return _REGISTRY[env_id]
    except KeyError:
        known = ", ".join(registered_envs()) or "none"
        close = [k for k in _REGISTRY if k.split("-v")[0].lower() == env_id.split("-v")[0].lower()]
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"unknown env id {env_id!r}.{hint} Registered: {known}") from None


def load(path: str) -> Any:
    """Imports ``"module:attr"`` and returns the attribute."""
    module_name, _, attr = path.partition(":")
    module = importlib.import_module(module_name)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _named_parameters(target: Any, skip: set[str]) -> dict[str, Any]:
    """Name -> default of the keyword parameters of a class's constructor or a callable (``...``
    for a parameter without a default), but for ``skip`` and the deprecated spellings."""
    fn = target.__init__ if inspect.isclass(target) else target
    out = {}
    for name, p in inspect.signature(fn).parameters.items():
        if name in skip or name in DEPRECATED_OPTIONS or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        out[name] = ... if p.default is p.empty else p.default
    return out


def options(env_id: str) -> dict[str, dict[str, Any]]:
    """The options an env takes, with their defaults: ``{"static options": {...}, "params": {...}}``.

    Static options are constructor arguments (they change the compiled program; for native envs,
    every option of the vector env). Params are the fields of a JAX env's ``EnvParams`` (traced
    values: changing them does not recompile); native envs have none."""
    spec_ = spec(env_id)
    if spec_.kind == "native":
        if spec_.vector_entry_point is None:
            raise ValueError(f"{env_id} has no vector entry point")
        static = _named_parameters(load(spec_.vector_entry_point), {"self", "num_envs", "seed"})
        return {"static options": static, "params": {}}
    target = load(spec_.entry_point)
    static = _named_parameters(target, {"self"})
    env = target(**{k: v for k, v in spec_.default_kwargs.items() if k in static})
    params = env.default_params
    return {"static options": static, "params": {f.name: getattr(params, f.name) for f in dataclasses.fields(params)}}


def make(env_id: str, **kwargs: Any) -> tuple[Any, Any]:
    """Makes a JAX env's functional (gymnax) API: returns ``(env, params)``.

    Keyword arguments that name constructor arguments configure the env statically (they change
    the compiled program); those that name fields of the env's ``EnvParams`` replace them in the
    returned params (traced values: changing them does not recompile). Every value is checked
    here: a wrong type raises ``TypeError``, a value out of range ``ValueError``, an unknown name
    ``TypeError`` listing the valid ones. Native envs (``kind="native"``) have no functional API:
    ``make`` raises ``TypeError`` naming ``make_vec`` and their single-env Gymnasium class.
    """
    spec_ = spec(env_id)
    if spec_.kind == "native":
        raise TypeError(
            f"{env_id} is a native env without a functional (gymnax) API, so make() cannot return (env, params): "
            f"use paritygym.make_vec({env_id!r}, num_envs, seed, **options) for a gymnasium VectorEnv, or "
            f"{spec_.entry_point.replace(':', '.')}(seed, **options) for one gymnasium.Env"
        )
    target = load(spec_.entry_point)
    ctor_names = set(_named_parameters(target, {"self"}))
    kwargs = rename_deprecated({**spec_.default_kwargs, **kwargs}, ctor_names, env_id)
    env = target(**{k: v for k, v in kwargs.items() if k in ctor_names})
    params = env.default_params
    param_names = {f.name for f in dataclasses.fields(params)}
    overrides = rename_deprecated({k: v for k, v in kwargs.items() if k not in ctor_names}, param_names, env_id)
    unknown = set(overrides) - param_names
    if unknown:
        raise unknown_options_error(env_id, unknown, static_options=ctor_names, params=param_names)
    if overrides:
        params = params.replace(**overrides)
    check_params(env, params, env_id)
    return env, params


def make_vec(env_id: str, num_envs: int, seed: int = 0, **kwargs: Any) -> Any:
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` copies (numpy in, numpy out).

    JAX envs run as one jitted, vmapped step; native envs use their own batched backend. Options
    are checked as by ``make``. Actions of the wrong shape, dtype or range raise
    ``ValueError``/``TypeError``.
    """
    if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    spec_ = spec(env_id)
    if spec_.kind == "native":
        if spec_.vector_entry_point is None:
            raise ValueError(f"{env_id} has no vector entry point")
        factory: Callable[..., Any] = load(spec_.vector_entry_point)
        names = set(options(env_id)["static options"])
        kwargs = rename_deprecated({**spec_.default_kwargs, **kwargs}, names, env_id)
        unknown = set(kwargs) - names
        if unknown:
            raise unknown_options_error(env_id, unknown, options=names)
        return factory(num_envs, seed, **kwargs)
    from paritygym.vector import JaxVectorEnv

    env, params = make(env_id, **kwargs)
    return JaxVectorEnv(env, params, num_envs=num_envs, seed=seed, env_id=env_id)
