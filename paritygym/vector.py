"""A Gymnasium ``VectorEnv`` over a functional JAX env: one jitted, vmapped step per call.

This is how torch / SB3 / CleanRL users drive any paritygym JAX env: numpy in, numpy out.
The batch of states stays on the JAX device between calls; only observations, rewards and
flags cross to numpy.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode

from paritygym.batching import batched_step
from paritygym.checks import check_params
from paritygym.random import batch_keys
from paritygym.spaces import to_gymnasium, validate_batched_action


class JaxVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` copies of a gymnax env stepped together.

    Autoreset is same-step (gymnax semantics): when an env ends, the returned observation is the
    first of its next episode and ``info["final_obs"]`` holds the last observation of the one that
    ended (``info["final_observation"]`` is the same array under gymnax's name; both are full
    batches, valid where ``terminated | truncated``).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, env: Any, params: Any, num_envs: int, seed: int = 0, env_id: str | None = None):
        self.env = env
        self.params = params
        self.num_envs = num_envs
        self.env_id = env_id or type(env).__name__
        # params built by hand, not by make, are checked here too: on the host, once (as make does)
        check_params(env, params, self.env_id)
        self.single_observation_space = to_gymnasium(env.observation_space(params))
        self.single_action_space = to_gymnasium(env.action_space(params))
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._key = jax.random.key(seed)
        self._states = None

        def reset_batch(key, params):
            keys = jax.random.split(key, num_envs)
            return jax.vmap(env.reset, in_axes=(0, None))(keys, params)

        def step_batch(key, states, actions, params):
            keys = batch_keys(key, num_envs)
            obs, states, reward, terminated, truncated, info = batched_step(env)(
                keys, states, actions, params
            )
            return obs, states, reward, terminated, truncated, info

        self._reset_batch = jax.jit(reset_batch)
        self._step_batch = jax.jit(step_batch)
        # Envs with legal-action masks (the card and battle games) expose `action_mask(state, params)`;
        # the mask is returned in info and illegal actions are refused.
        self._has_mask = callable(getattr(env, "action_mask", None))
        if self._has_mask:
            self._mask_batch = jax.jit(jax.vmap(env.action_mask, in_axes=(0, None)))
        self._mask: np.ndarray | None = None

    def _next_key(self) -> jax.Array:
        self._key, key = jax.random.split(self._key)
        return key

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"seed must be a non-negative int, got {seed!r}")
            self._key = jax.random.key(int(seed))
        obs, self._states = self._reset_batch(self._next_key(), self.params)
        return jax.tree.map(np.asarray, obs), self._mask_info()

    def _mask_info(self) -> dict[str, Any]:
        if not self._has_mask:
            return {}
        self._mask = np.asarray(self._mask_batch(self._states, self.params))
        return {"action_mask": self._mask}

    def step(self, actions: Any):
        if self._states is None:
            raise RuntimeError("call reset() before step()")
        actions = validate_batched_action(actions, self.single_action_space, self.num_envs)
        if self._mask is not None:
            illegal = ~self._mask[np.arange(self.num_envs), actions]
            if np.any(illegal):
                i = int(np.flatnonzero(illegal)[0])
                legal = np.flatnonzero(self._mask[i]).tolist()
                raise ValueError(f"action {int(actions[i])} of env {i} is illegal now; legal actions: {legal}")
        obs, self._states, reward, terminated, truncated, info = self._step_batch(
            self._next_key(), self._states, jnp.asarray(actions), self.params
        )
        info = jax.tree.map(np.asarray, info)
        info["final_obs"] = info["final_observation"]
        info.update(self._mask_info())
        return (
            jax.tree.map(np.asarray, obs),
            np.asarray(reward, dtype=np.float32),
            np.asarray(terminated, dtype=bool),
            np.asarray(truncated, dtype=bool),
            info,
        )

    @property
    def states(self) -> Any:
        """The current batch of env states (a pytree of JAX arrays with leading axis ``num_envs``)."""
        return self._states

    def close_extras(self, **kwargs: Any) -> None:
        self._states = None

    def __repr__(self) -> str:
        return f"JaxVectorEnv({self.env_id}, num_envs={self.num_envs})"
