"""Substep parity of HalfCheetah-v0's physics with MuJoCo along warm-started gait trajectories
(float64): HalfCheetah's start states and gaits (a noisy sine running gait and the shipped PPO
policy); the method is planarjax.substeps.

    python -m cheetahjax.substeps --transitions 20000

prints the largest differences. The tests (tests/halfcheetah/test_l2_substeps.py) run the same
check on fewer transitions.
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from planarjax.substeps import Controller, Records, RECORD_FIELDS, engine_substeps, record_mujoco, report

FRAME_SKIP = 5  # Gymnasium's HalfCheetah-v5


def cheetah_reset(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Gymnasium's reset noise: qpos0 (= 0) + U(-0.1, 0.1), qvel 0.1 N(0, 1)."""
    return rng.uniform(-0.1, 0.1, 9), 0.1 * rng.standard_normal(9)


def sine_gait(nu: int, amplitude: float = 0.9, noise: float = 0.3) -> Controller:
    """A running gait: each actuator a sinusoid (one frequency per episode in 1.5-3 Hz, a phase per
    actuator) plus Gaussian noise, clipped to [-1, 1] and rounded to float32 like the env's actions."""
    episode: dict[str, np.ndarray] = {}

    def controller(rng: np.random.Generator, d) -> np.ndarray:
        if d.time == 0.0:  # a new episode: new frequency and phases
            episode["freq"], episode["phase"] = rng.uniform(1.5, 3.0), rng.uniform(0, 2 * np.pi, nu)
        wave = amplitude * np.sin(2 * np.pi * episode["freq"] * d.time + episode["phase"])
        return np.clip(wave + noise * rng.standard_normal(nu), -1, 1).astype(np.float32).astype(np.float64)

    return controller


def trained_gait() -> Controller | None:
    """The shipped PPO policy (greedy) on MuJoCo's observation, or None if it is not shipped."""
    from cheetahjax.verify import trained_policy

    act = trained_policy()
    if act is None:
        return None
    return lambda rng, d: act(np.concatenate([d.qpos[1:], d.qvel])).astype(np.float64)


def cheetah_records(transitions: int, seed: int = 0, steps: int = 500) -> Records:
    """``transitions`` env steps of HalfCheetah in MuJoCo: half under the sine gait, half under the
    shipped PPO policy (all sine gait if it is absent), in episodes of ``steps``."""
    from cheetahjax.data.generate import compile_half_cheetah

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = compile_half_cheetah()
    gaits = [sine_gait(m.nu)]
    trained = trained_gait()
    if trained is not None:
        gaits.append(trained)
    episodes = -(-transitions // steps)
    parts = [record_mujoco(m, cheetah_reset, gaits[e % len(gaits)], 1, steps, FRAME_SKIP, seed + e)
             for e in range(episodes)]
    return {k: np.concatenate([p[k] for p in parts])[:transitions] for k in RECORD_FIELDS}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transitions", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from cheetahjax.data import half_cheetah_model

    records = cheetah_records(args.transitions, args.seed)
    report("HalfCheetah", records, engine_substeps(half_cheetah_model(), records))


if __name__ == "__main__":
    main()
