"""`check_env`: the conformance checker every registered env must pass.

For JAX envs it checks, under `jit`, `vmap` and `lax.scan`:
- reset/step signatures and the gymnax tuple `(obs, state, reward, terminated, truncated, info)`
  with `info["final_observation"]`;
- observation dtype/shape match `observation_space`, observations finite, reward a finite scalar
  float32, flags bool;
- same key => identical trajectory (bit for bit);
- the batched step compiles once for a given batch (data varies, the program does not);
- stepping goes on across episode ends (autoreset) without non-finite values;
- the vector API (`make_vec`) works and refuses actions of the wrong shape, dtype or range;
- options (`check_options`): an unknown option's error lists every valid one; the deprecated
  spellings (`paritygym.checks.DEPRECATED_OPTIONS`) warn and work where the env has the new name;
  a bad value of every static option and of every param (wrong type, NaN, beyond int32, outside
  its declared bounds, a time limit below 1) is refused by `make` with a `TypeError` or
  `ValueError` naming it;
- a discrete env refuses an action of a non-integer dtype when its step (single or batched) is
  traced (`TypeError`), so a float is never truncated silently.
For native envs (the Rust Game Boy) it checks the vector API and the options through `make_vec`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Iterator

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnax.environments import spaces as gymnax_spaces

from paritygym.batching import batched_step
from paritygym.checks import DEPRECATED_OPTIONS, value_kind
from paritygym.registry import make, make_vec, options, spec
from paritygym.spaces import to_gymnasium


@dataclasses.dataclass
class ConformanceReport:
    env_id: str
    checks: list[str] = dataclasses.field(default_factory=list)
    episodes_ended: int = 0

    def passed(self, name: str) -> None:
        self.checks.append(name)


class ConformanceError(AssertionError):
    """An env does not meet the paritygym API contract."""


def _fail(env_id: str, what: str) -> None:
    raise ConformanceError(f"{env_id}: {what}")


def _check_obs(env_id: str, obs: Any, space: gymnasium.spaces.Space, batch: tuple[int, ...], where: str) -> None:
    if isinstance(space, gymnasium.spaces.Dict):
        if not isinstance(obs, dict) or set(obs) != set(space.spaces):
            _fail(env_id, f"{where}: observation keys {sorted(obs) if isinstance(obs, dict) else type(obs)} != space keys {sorted(space.spaces)}")
        for k, sub in space.spaces.items():
            _check_obs(env_id, obs[k], sub, batch, f"{where}[{k!r}]")
        return
    if isinstance(space, gymnasium.spaces.Tuple):
        for i, sub in enumerate(space.spaces):
            _check_obs(env_id, obs[i], sub, batch, f"{where}[{i}]")
        return
    arr = np.asarray(obs)
    expected_shape = batch + tuple(space.shape or ())
    if arr.shape != expected_shape:
        _fail(env_id, f"{where}: observation shape {arr.shape} != {expected_shape}")
    if arr.dtype != np.dtype(space.dtype):
        _fail(env_id, f"{where}: observation dtype {arr.dtype} != space dtype {np.dtype(space.dtype)}")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        _fail(env_id, f"{where}: observation has non-finite values")
    if isinstance(space, gymnasium.spaces.Box):
        low = np.broadcast_to(space.low, arr.shape)
        high = np.broadcast_to(space.high, arr.shape)
        if np.any(arr < low) or np.any(arr > high):
            _fail(env_id, f"{where}: observation outside the space's bounds")


def _bad_actions(space: gymnasium.spaces.Space, num_envs: int) -> list[tuple[str, Any]]:
    """Actions the vector API must refuse, with a label each."""
    if isinstance(space, gymnasium.spaces.Discrete):
        return [
            ("wrong shape", np.zeros((num_envs + 1,), np.int32)),
            ("wrong dtype", np.zeros((num_envs,), np.float32)),
            ("out of range (too large)", np.full((num_envs,), space.start + space.n, np.int64)),
            ("out of range (negative)", np.full((num_envs,), space.start - 1, np.int64)),
        ]
    if isinstance(space, gymnasium.spaces.Box):
        shape = (num_envs, *space.shape)
        return [
            ("wrong shape", np.zeros((num_envs + 1, *space.shape), space.dtype)),
            ("wrong dtype", np.zeros(shape, np.complex64)),
            ("out of range", np.broadcast_to(space.high, shape).astype(np.float64) + 1.0),
            ("not finite", np.full(shape, np.nan, np.float32)),
        ]
    return []


def check_vector_api(env_id: str, num_envs: int = 3, num_steps: int = 20, seed: int = 0, **kwargs: Any) -> list[str]:
    """The vector-API part of the conformance checks (run for every env, JAX or native)."""
    checks = []
    venv = make_vec(env_id, num_envs=num_envs, seed=seed, **kwargs)
    try:
        if not isinstance(venv, gymnasium.vector.VectorEnv):
            _fail(env_id, f"make_vec returned {type(venv).__name__}, not a gymnasium VectorEnv")
        if "autoreset_mode" not in venv.metadata:
            _fail(env_id, "vector env metadata does not declare autoreset_mode")
        obs, info = venv.reset(seed=seed)
        _check_obs(env_id, obs, venv.single_observation_space, (num_envs,), "vector reset")
        rng = np.random.default_rng(seed)
        for t in range(num_steps):
            actions = _sample_vector_actions(venv, info, rng)
            obs, reward, terminated, truncated, info = venv.step(actions)
            _check_obs(env_id, obs, venv.single_observation_space, (num_envs,), f"vector step {t}")
            for name, arr in (("reward", reward), ("terminated", terminated), ("truncated", truncated)):
                if np.asarray(arr).shape != (num_envs,):
                    _fail(env_id, f"vector {name} shape {np.asarray(arr).shape} != ({num_envs},)")
            if not np.all(np.isfinite(reward)):
                _fail(env_id, "vector reward not finite")
        checks.append("vector API reset/step shapes and dtypes")
        for label, bad in _bad_actions(venv.single_action_space, num_envs):
            try:
                venv.step(bad)
            except (ValueError, TypeError):
                continue
            _fail(env_id, f"vector step accepted an action batch with {label}")
        checks.append("vector API refuses bad actions with ValueError/TypeError")
        # Same seed => same observations.
        a, _ = venv.reset(seed=seed + 1)
        b, _ = venv.reset(seed=seed + 1)
        if not all(np.asarray(x).tobytes() == np.asarray(y).tobytes() for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b))):
            _fail(env_id, "vector reset with the same seed gave different observations")
        checks.append("vector API reset(seed) is deterministic")
    finally:
        venv.close()
    return checks


def _sample_vector_actions(venv: gymnasium.vector.VectorEnv, info: dict, rng: np.random.Generator) -> np.ndarray:
    space = venv.single_action_space
    if isinstance(space, gymnasium.spaces.Discrete):
        mask = info.get("action_mask") if isinstance(info, dict) else None
        if mask is not None:
            mask = np.asarray(mask)
            return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask], dtype=np.int32) + space.start
        return rng.integers(space.start, space.start + space.n, size=venv.num_envs).astype(np.int32)
    if isinstance(space, gymnasium.spaces.Box):
        low = np.broadcast_to(space.low, space.shape)
        high = np.broadcast_to(space.high, space.shape)
        return rng.uniform(low, high, size=(venv.num_envs, *space.shape)).astype(space.dtype)
    raise ConformanceError(f"unsupported action space {space}")


def _bad_values(kind: str, bounds: tuple[Any, Any, Any] = (None, None, None)) -> list[tuple[str, Any]]:
    """Values an option or param of ``kind`` must refuse, with a label each."""
    ge, gt, le = bounds
    values: list[tuple[str, Any]] = {
        "bool": [("a string", "yes"), ("an int", 2)],
        "int": [("a string", "1"), ("a float", 1.5), ("a bool", True), ("beyond int32", 2**31)],
        "float": [("a string", "1.0"), ("a bool", True), ("NaN", math.nan), ("infinity", math.inf)],
        "str": [("an unknown name", "no-such-value"), ("an int", 1)],
    }[kind]
    if ge is not None:
        values.append((f"below its bound {ge}", ge - 1))
    if gt is not None:
        values.append((f"at its exclusive bound {gt}", gt))
    if le is not None:
        values.append((f"above its bound {le}", le + 1))
    return values


def _param_probes(params: Any) -> Iterator[tuple[str, str, Any, dict[str, Any]]]:
    """(dotted name, label, bad value, ``make`` kwargs) for every scalar field of ``params``, nested
    params classes included (a bad nested field is given as the whole nested params)."""
    for field in dataclasses.fields(params):
        ref = getattr(params, field.name)
        if dataclasses.is_dataclass(ref) and not isinstance(ref, type):
            yield field.name, "a string", "a", {field.name: "a"}
            for name, label, bad, sub in _param_probes(ref):
                yield f"{field.name}.{name}", label, bad, {field.name: ref.replace(**sub)}
            continue
        kind = value_kind(ref)
        if kind is None:
            continue
        values = _bad_values(kind, field.metadata.get("bounds", (None, None, None)))
        if field.name == "max_steps_in_episode":  # every env's time limit: at least one step
            values += [("0", 0), ("negative", -5)]
        for label, bad in values:
            yield field.name, label, bad, {field.name: bad}


def check_options(env_id: str, **kwargs: Any) -> list[str]:
    """The option and param checks of `check_env` (see the module docstring), on top of ``kwargs``."""
    native = spec(env_id).kind == "native"

    def build(**extra: Any) -> None:
        if native:
            make_vec(env_id, 1, **{**kwargs, **extra}).close()
        else:
            make(env_id, **{**kwargs, **extra})

    def refused(what: str, name: str, **extra: Any) -> None:
        try:
            build(**extra)
        except (TypeError, ValueError) as exc:
            if name.rsplit(".", 1)[-1] not in str(exc):
                _fail(env_id, f"the error for {what} does not name {name!r}: {exc}")
            return
        _fail(env_id, f"make accepted {what}")

    checks = []
    declared = options(env_id)
    names = set(declared["static options"]) | set(declared["params"])
    try:
        build(no_such_option=1)
    except TypeError as exc:
        missing = sorted(n for n in names if repr(n) not in str(exc))
        if missing:
            _fail(env_id, f"the error for an unknown option does not list {missing}: {exc}")
    else:
        _fail(env_id, "make accepted an unknown option")
    checks.append("an unknown option's error lists every valid option")

    for old, new in DEPRECATED_OPTIONS.items():
        if new in kwargs:
            continue
        if new not in names:
            refused(f"the deprecated option {old!r} although it has no {new!r}", old, **{old: 1})
            continue
        default = declared["static options"].get(new, declared["params"].get(new))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            build(**{old: default})
        if not any(issubclass(w.category, DeprecationWarning) and old in str(w.message) for w in caught):
            _fail(env_id, f"the deprecated option {old!r} did not warn")
    checks.append("deprecated option names warn and work where the env has the new name")

    for name, default in declared["static options"].items():
        kind = "str" if isinstance(default, str) else value_kind(default)
        if kind is None or name in kwargs:
            continue
        for label, bad in _bad_values(kind):
            refused(f"static option {name}={bad!r} ({label})", name, **{name: bad})
    checks.append("make refuses a bad value of every static option")

    if not native:
        _, params = make(env_id, **kwargs)
        for name, label, bad, extra in _param_probes(params):
            refused(f"param {name}={bad!r} ({label})", name, **extra)
        checks.append("make refuses a bad value of every param")
    return checks


def check_action_dtype(env_id: str, seed: int = 0, **kwargs: Any) -> list[str]:
    """The action-dtype check of `check_env` alone (tracing only, nothing compiled): for envs whose
    full conformance run is too slow for the default suite."""
    env, params = make(env_id, **kwargs)
    if not isinstance(env.action_space(params), gymnax_spaces.Discrete):
        return []
    _check_discrete_action_dtype(env_id, env, params, seed)
    return ["a Discrete step refuses non-integer actions when traced"]


def _check_discrete_action_dtype(env_id: str, env: Any, params: Any, seed: int) -> None:
    """A Discrete env's step, single and batched, refuses non-integer actions while it is traced."""
    key = jax.random.key(seed)
    state = jax.eval_shape(env.reset, key, params)[1]  # shapes suffice: only tracing happens below
    for label, bad in (("float32 2.7", jnp.float32(2.7)), ("float32 NaN", jnp.float32(jnp.nan)),
                       ("Python float 2.7", 2.7), ("bool", True)):
        try:
            jax.eval_shape(jax.jit(env.step), key, state, bad, params)  # traced as jax.jit(env.step) traces it
        except TypeError:
            continue
        _fail(env_id, f"the step accepted a {label} action for a Discrete space (it must refuse non-integer dtypes)")
    keys = jax.random.split(key, 2)
    states = jax.tree.map(lambda x: jax.ShapeDtypeStruct((2, *x.shape), x.dtype), state)
    try:
        jax.eval_shape(batched_step(env), keys, states, jnp.full((2,), 1.0, jnp.float32), params)
    except TypeError:
        return
    _fail(env_id, "the batched step accepted float32 actions for a Discrete space")


def check_env(env_id: str, num_envs: int = 4, num_steps: int = 64, seed: int = 0, **kwargs: Any) -> ConformanceReport:
    """Runs every conformance check on ``env_id`` and raises `ConformanceError` on the first failure."""
    report = ConformanceReport(env_id)
    report.checks += check_options(env_id, **kwargs)
    if spec(env_id).kind == "native":
        report.checks += check_vector_api(env_id, seed=seed, **kwargs)
        return report

    env, params = make(env_id, **kwargs)
    obs_space = to_gymnasium(env.observation_space(params))
    act_space_gx = env.action_space(params)
    has_mask = callable(getattr(env, "action_mask", None))

    def policy(key, state, params):
        if has_mask:
            from paritygym.twoplayer import random_legal_action

            return random_legal_action(key, env.action_mask(state, params))
        return act_space_gx.sample(key)

    # Single env under jit.
    key = jax.random.key(seed)
    obs, state = jax.jit(env.reset)(key, params)
    _check_obs(env_id, jax.device_get(obs), obs_space, (), "reset")
    step = jax.jit(env.step)
    out = step(key, state, policy(key, state, params), params)
    if not (isinstance(out, tuple) and len(out) == 6):
        _fail(env_id, "step must return (obs, state, reward, terminated, truncated, info)")
    obs1, _, reward, terminated, truncated, info = out
    _check_obs(env_id, jax.device_get(obs1), obs_space, (), "step")
    if "final_observation" not in info:
        _fail(env_id, "step info lacks 'final_observation'")
    _check_obs(env_id, jax.device_get(info["final_observation"]), obs_space, (), "final_observation")
    if jnp.shape(reward) != () or not jnp.issubdtype(jnp.asarray(reward).dtype, jnp.floating):
        _fail(env_id, f"reward must be a float scalar, got shape {jnp.shape(reward)} dtype {jnp.asarray(reward).dtype}")
    for name, flag in (("terminated", terminated), ("truncated", truncated)):
        if jnp.shape(flag) != () or jnp.asarray(flag).dtype != jnp.bool_:
            _fail(env_id, f"{name} must be a bool scalar, got {jnp.asarray(flag).dtype}{jnp.shape(flag)}")
    report.passed("reset/step under jit: signature, spaces, dtypes")
    if isinstance(act_space_gx, gymnax_spaces.Discrete):
        _check_discrete_action_dtype(env_id, env, params, seed)
        report.passed("a Discrete step refuses non-integer actions when traced")

    # Batched rollout: vmap inside lax.scan, compiled once. The Python body runs only while JAX
    # traces it, so counting its runs counts traces (what chex.assert_max_traces does, but local
    # to this call, so check_env can run many times in one process).
    traces = 0

    def rollout(key, params, length):
        nonlocal traces
        traces += 1
        k_reset, k_run = jax.random.split(key)
        obs, states = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_reset, num_envs), params)

        def body(carry, k):
            states = carry
            k_act, k_step = jax.random.split(k)
            actions = jax.vmap(policy, in_axes=(0, 0, None))(jax.random.split(k_act, num_envs), states, params)
            obs, states, reward, terminated, truncated, info = batched_step(env)(
                jax.random.split(k_step, num_envs), states, actions, params
            )
            return states, (obs, reward, terminated, truncated, info["final_observation"])

        _, traj = jax.lax.scan(body, states, jax.random.split(k_run, length))
        return traj

    run = jax.jit(rollout, static_argnums=2)
    traj_a = jax.device_get(run(jax.random.key(seed), params, num_steps))
    traj_b = jax.device_get(run(jax.random.key(seed), params, num_steps))
    # New data, same program: must not retrace. A short time limit (where the env has one) also
    # makes every env end episodes, so stepping across autoresets is exercised.
    short = params.replace(max_steps_in_episode=7) if hasattr(params, "max_steps_in_episode") else params
    traj_short = jax.device_get(run(jax.random.key(seed + 1), short, num_steps))
    if traces != 1:
        _fail(env_id, f"the batched rollout was traced {traces} times for one batch shape (expected once)")
    report.passed("vmap + lax.scan rollout compiles once for a given batch")
    for x, y in zip(jax.tree.leaves(traj_a), jax.tree.leaves(traj_b)):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():  # bit for bit
            _fail(env_id, "the same key gave different trajectories")
    report.passed("same key => identical trajectory")
    obs_t, reward_t, term_t, trunc_t, final_t = traj_a
    _check_obs(env_id, obs_t, obs_space, (num_steps, num_envs), "scan rollout")
    _check_obs(env_id, final_t, obs_space, (num_steps, num_envs), "scan rollout final_observation")
    if not np.all(np.isfinite(reward_t)):
        _fail(env_id, "non-finite reward in rollout")
    report.episodes_ended = int(np.sum(np.asarray(term_t) | np.asarray(trunc_t)))
    obs_s, reward_s, term_s, trunc_s, final_s = traj_short
    _check_obs(env_id, obs_s, obs_space, (num_steps, num_envs), "short-episode rollout")
    _check_obs(env_id, final_s, obs_space, (num_steps, num_envs), "short-episode final_observation")
    if not np.all(np.isfinite(reward_s)):
        _fail(env_id, "non-finite reward in short-episode rollout")
    ended = np.asarray(term_s) | np.asarray(trunc_s)
    if short is not params and not ended.any():
        _fail(env_id, "no episode ended with max_steps_in_episode=7: truncation does not work")
    report.episodes_ended += int(ended.sum())
    report.passed("stepping across episode ends (autoreset) stays valid")

    report.checks += check_vector_api(env_id, seed=seed, **kwargs)
    return report
