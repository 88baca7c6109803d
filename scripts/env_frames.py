"""Writes a short GIF of each env played by random (legal) actions, for the docs' env pages.

    python scripts/env_frames.py                      # every env with a renderer, into docs/envs/img/
    python scripts/env_frames.py Pong-v0 --steps 200

JAX envs are drawn by their registered `render` hook; the Game Boy's frames are its own screen.
PokemonGen1Random-v0 has no renderer and is skipped.
"""

from __future__ import annotations

import argparse
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from PIL import Image

import paritygym
from paritygym.cache import enable_compilation_cache
from paritygym.registry import load

OUT = pathlib.Path(__file__).resolve().parent.parent / "docs" / "envs" / "img"
#: Frames wider than this are scaled down (the TCG's text panel keeps its size, to stay readable).
WIDTH = {"TCGPocketA1-v0": 1200}
STEPS = {"Pong-v0": 240, "HalfCheetah-v0": 120, "Climb-v0": 150, "TCGPocketA1-v0": 40, "GameBoy-v0": 150}
EVERY = {"Pong-v0": 2, "HalfCheetah-v0": 2, "Climb-v0": 2, "TCGPocketA1-v0": 1, "GameBoy-v0": 2}


def jax_frames(env_id: str, steps: int, every: int, seed: int) -> list[np.ndarray]:
    spec = paritygym.spec(env_id)
    render = load(spec.render)
    env, params = paritygym.make(env_id)
    has_mask = callable(getattr(env, "action_mask", None))

    @jax.jit
    def step(key, state):
        k_act, k_env = jax.random.split(key)
        if has_mask:
            mask = env.action_mask(state, params)
            action = jax.random.choice(k_act, mask.shape[-1], p=mask / jnp.sum(mask))
        else:
            action = env.action_space(params).sample(k_act)
        _, state, _, _, _, _ = env.step(k_env, state, action, params)
        return state

    key = jax.random.key(seed)
    _, state = jax.jit(env.reset)(key, params)
    frames = [render(jax.device_get(state), params)]
    for t in range(steps):
        key, k = jax.random.split(key)
        state = step(k, state)
        if t % every == 0:
            frames.append(render(jax.device_get(state), params))
    return frames


def gameboy_frames(steps: int, every: int, seed: int) -> list[np.ndarray]:
    venv = paritygym.make_vec("GameBoy-v0", num_envs=1, seed=seed, screen="rgb", downscale=1)
    venv.action_space.seed(seed)
    obs, _ = venv.reset(seed=seed)
    frames = [obs[0]]
    for t in range(steps):
        obs, *_ = venv.step(venv.action_space.sample())
        if t % every == 0:
            frames.append(obs[0])
    venv.close()
    return frames


def write_gif(frames: list[np.ndarray], path: pathlib.Path, width: int, fps: int) -> pathlib.Path:
    images = []
    for frame in frames:
        image = Image.fromarray(np.asarray(frame, np.uint8))
        if image.width > width:
            image = image.resize((width, round(image.height * width / image.width)), Image.Resampling.LANCZOS)
        elif image.width < 200:  # small frames (Pong, the Game Boy) shown at a whole multiple
            factor = width // image.width
            image = image.resize((image.width * factor, image.height * factor), Image.Resampling.NEAREST)
        images.append(image.convert("P", palette=Image.Palette.ADAPTIVE, colors=64))
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0, optimize=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("envs", nargs="*", default=sorted(STEPS))
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--width", type=int, default=320, help="frames wider than this are scaled down")
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    paritygym.keep_freed_memory()
    enable_compilation_cache()  # a rerun loads the compiled steps
    for env_id in args.envs:
        steps = args.steps or STEPS.get(env_id, 120)
        every = EVERY.get(env_id, 2)
        if env_id == "GameBoy-v0":
            frames = gameboy_frames(steps, every, args.seed)
        elif paritygym.spec(env_id).render is None:
            print(f"{env_id}: no renderer, skipped")
            continue
        else:
            frames = jax_frames(env_id, steps, every, args.seed)
        fps = 6 if env_id == "TCGPocketA1-v0" else 30
        path = write_gif(frames, args.out / f"{env_id}.gif", WIDTH.get(env_id, args.width), fps)
        print(f"{env_id}: {len(frames)} frames -> {path} ({path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
