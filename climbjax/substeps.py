"""Substep parity of Climb-v0's physics with MuJoCo along warm-started gait trajectories (float64);
see planarjax.substeps for the method.

    python -m climbjax.substeps --transitions 20000

prints the largest differences. The tests (tests/climb/test_l2_substeps.py) run the same check on
fewer transitions.
"""

from __future__ import annotations

import argparse

import numpy as np

from climbjax import course, game
from climbjax.env import SUBSTEPS
from climbjax.reference import action_to_ctrl
from planarjax.substeps import Controller, Records, RECORD_FIELDS, engine_substeps, record_mujoco, report


def hammer_gait(ctrlrange: np.ndarray, noise: float = 0.3) -> Controller:
    """Swinging and pumping the hammer: aim and reach each a sinusoid (one frequency per episode
    in 0.5-1.5 Hz, a phase per actuator) plus Gaussian noise, mapped to controls as the env maps
    its float32 actions. The pot hops, drags and tips against the terrain."""
    episode: dict[str, np.ndarray] = {}

    def controller(rng: np.random.Generator, d) -> np.ndarray:
        if d.time == 0.0:  # a new episode: new frequency and phases
            episode["freq"], episode["phase"] = rng.uniform(0.5, 1.5), rng.uniform(0, 2 * np.pi, 2)
        wave = np.sin(2 * np.pi * episode["freq"] * d.time + episode["phase"])
        action = np.clip(wave + noise * rng.standard_normal(2), -1, 1).astype(np.float32)
        return action_to_ctrl(action, ctrlrange)

    return controller


def start_state(section: int):
    def initial(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        x, z = course.SECTION_STARTS[section]
        qpos = np.array([x + rng.uniform(-0.1, 0.1), z - game.POT_Z_OFFSET, 0.0, *game.START_HAMMER])
        return qpos, np.zeros(5)

    return initial


def climb_records(transitions: int, seed: int = 0, steps: int = 250) -> Records:
    """``transitions`` agent steps in MuJoCo under the hammer gait, episodes of ``steps`` starting
    at the course sections in turn."""
    from climbjax.data.generate import compile_course

    m = compile_course()
    gait = hammer_gait(m.actuator_ctrlrange)
    episodes = -(-transitions // steps)
    parts = [record_mujoco(m, start_state(e % course.NUM_SECTIONS), gait, 1, steps, SUBSTEPS, seed + e)
             for e in range(episodes)]
    return {k: np.concatenate([p[k] for p in parts])[:transitions] for k in RECORD_FIELDS}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transitions", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from climbjax.data import course_model

    records = climb_records(args.transitions, args.seed)
    report("Climb", records, engine_substeps(course_model(), records))


if __name__ == "__main__":
    main()
