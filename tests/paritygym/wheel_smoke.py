"""Smoke run of an installed paritygym: every registered env makes, resets and steps.

Run by ``test_wheel.py`` with the python of a fresh virtualenv that holds only the built wheel and
its dependencies (no source tree on the path, no cargo, no node, no reference systems). Prints one
line per env and exits non-zero on the first failure. ``--make-only`` ids are made and their reset and
step traced (``jax.eval_shape``: the package data they read loaded) but not compiled or run: the game
engines' first compile takes minutes. A JAX env resets and steps once as a single
env through the functional API (jitted; JAX's persistent compilation cache, ``PARITYGYM_JAX_CACHE``,
keeps the programs for the next run); a native env (the Game Boy) through ``make_vec``. The
observation must be finite and inside the observation space.
"""

from __future__ import annotations

import sys

import jax
import numpy as np

import paritygym
from paritygym.cache import enable_compilation_cache
from paritygym.spaces import to_gymnasium


def smoke(env_id: str, step: bool = True) -> str:
    spec = paritygym.spec(env_id)
    if spec.kind == "native":
        venv = paritygym.make_vec(env_id, num_envs=2, seed=0)
        obs, _ = venv.reset(seed=0)
        obs, reward, terminated, truncated, _ = venv.step(venv.action_space.sample())
        venv.close()
        return f"obs {np.asarray(obs).shape}, reward {np.asarray(reward).tolist()}"
    env, params = paritygym.make(env_id)
    key_reset, key_action, key_step = jax.random.split(jax.random.key(0), 3)
    if not step:
        # made, and its reset and step traced (every table, deck and pool they read loaded), nothing compiled
        obs, state = jax.eval_shape(env.reset, key_reset, params)
        action = env.action_space(params).sample(key_action)
        outs = jax.eval_shape(env.step, key_step, state, action, params)
        if jax.tree.structure(outs[0]) != jax.tree.structure(obs):
            raise AssertionError(f"{env_id}: the step's observation is not the reset's")
        return f"made, reset and step traced, observation {[tuple(leaf.shape) for leaf in jax.tree.leaves(obs)]}"
    obs, state = jax.jit(env.reset)(key_reset, params)
    action = env.action_space(params).sample(key_action)
    obs, state, reward, terminated, truncated, _ = jax.jit(env.step)(key_step, state, action, params)
    obs = jax.tree.map(np.asarray, obs)
    if not all(np.isfinite(np.asarray(leaf, np.float64)).all() for leaf in jax.tree.leaves(obs)):
        raise AssertionError(f"{env_id}: non-finite observation after one step")
    space = to_gymnasium(env.observation_space(params))
    if not space.contains(obs):
        raise AssertionError(f"{env_id}: observation outside {space}")
    return f"obs {[tuple(np.shape(leaf)) for leaf in jax.tree.leaves(obs)]}, reward {float(reward)}"


def main(args: list[str]) -> int:
    """``wheel_smoke.py [--make-only ID,ID...] [ID ...]``: every id given (default: all) made, reset and stepped,
    except those ``--make-only`` names, which are made only."""
    make_only: set[str] = set()
    if args[:1] == ["--make-only"]:
        make_only, args = set(args[1].split(",")), args[2:]
    enable_compilation_cache()
    module_file = paritygym.__file__
    print(f"paritygym {paritygym.__version__} from {module_file}")
    for env_id in args or paritygym.registered_envs():
        print(f"{env_id}: {smoke(env_id, step=env_id not in make_only)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
