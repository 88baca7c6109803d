"""Record a GIF of a policy playing one episode, using the env's registered `render` hook."""

from __future__ import annotations

import pathlib
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import paritygym
from paritygym.registry import load
from paritygym.train import networks as nets
from paritygym.train.ppo import PPO, _flatten_obs


def record_gif(ppo: PPO, params: Any, path: str | pathlib.Path, seed: int = 0, max_steps: int = 3000,
               every: int = 1, fps: int = 30, greedy: bool = False) -> pathlib.Path:
    """Plays one episode (or ``max_steps`` steps) with the policy and writes every ``every``-th frame."""
    from PIL import Image

    spec = paritygym.spec(ppo.config.env_id)
    if spec.render is None:
        raise ValueError(f"{spec.id} has no render hook")
    render = load(spec.render)
    env, env_params = ppo.env, ppo.env_params

    @jax.jit
    def step(state, obs, carry, start, key):
        k_act, k_env = jax.random.split(key)
        batch_obs = _flatten_obs(jax.tree.map(lambda x: x[None], obs))
        mask = env.action_mask(state, env_params)[None] if ppo.has_mask else None
        dist, _, carry = ppo.apply(params, batch_obs, carry, start)
        if greedy:
            action = nets.greedy_action(dist, ppo.continuous, mask)
        else:
            action, _ = nets.sample_action(k_act, dist, ppo.continuous, mask)
        obs, state, reward, term, trunc, info = env.step(k_env, state, ppo.env_action(action)[0], env_params)
        return state, obs, carry, (term | trunc)[None], info["final_observation"], term | trunc

    key = jax.random.key(seed)
    obs, state = env.reset(key, env_params)
    carry = ppo.network.initial_carry(1) if ppo.config.policy == "gru" else jnp.zeros((1, 1))
    start = jnp.ones(1, bool)
    frames = [render(jax.device_get(state), env_params)]
    for t in range(max_steps):
        key, k = jax.random.split(key)
        previous = state
        state, obs, carry, start, _, done = step(state, obs, carry, start, k)
        if bool(done):
            break  # the env has already reset; the last frame shown is the one before the end
        if t % every == 0:
            frames.append(render(jax.device_get(state), env_params))
    del previous
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(np.asarray(f)) for f in frames]
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path
