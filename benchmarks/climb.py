"""Climb-v0 against MuJoCo XLA (MJX) on the same course: agent steps per second.

    python -m benchmarks.climb --batch 64 --steps 320

MuJoCo C, the reference `paritygym bench Climb-v0 --reference` compares with, is
`climbjax.reference.reference_bench`; climbjax itself is timed by `paritygym bench Climb-v0`.
"""

from __future__ import annotations

import argparse
import time

import jax
import mujoco
import numpy as np

from climbjax import game
from climbjax.data import COURSE_XML
from climbjax.env import SUBSTEPS
from climbjax.reference import action_to_ctrl


def mjx_bench(batch_size: int, num_steps: int, num_procs: int = 1) -> float:
    """Agent steps per second of MuJoCo XLA (mjx, float32) on the same course.xml: ``batch_size``
    copies vmapped, 8 mjx.step per agent step, constant controls, compile time excluded.
    (Shaped like `climbjax.reference.reference_bench`, the registry's hook, which runs the C engine.)"""
    from mujoco import mjx

    m = mujoco.MjModel.from_xml_path(str(COURSE_XML))
    d = mujoco.MjData(m)
    d.qpos[:] = [0.0, 0.0, 0.0, *game.START_HAMMER]
    d.ctrl[:] = action_to_ctrl(np.array([0.5, 0.5]), m.actuator_ctrlrange)
    model, data = mjx.put_model(m), mjx.put_data(m, d)

    def agent_step(x):
        return jax.lax.fori_loop(0, SUBSTEPS, lambda _, y: mjx.step(model, y), x)

    step = jax.jit(jax.vmap(agent_step))
    batch = jax.tree.map(lambda x: jax.numpy.broadcast_to(x, (batch_size,) + x.shape), data)
    batch = jax.block_until_ready(step(batch))
    calls = max(1, num_steps // batch_size)
    start = time.perf_counter()
    for _ in range(calls):
        batch = step(batch)
    jax.block_until_ready(batch)
    return calls * batch_size / (time.perf_counter() - start)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="MJX agent steps/s on climbjax/data/course.xml")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=320, help="agent steps in all (the batch's included)")
    args = parser.parse_args()
    print(f"MJX, batch {args.batch}: {mjx_bench(args.batch, args.steps):,.0f} agent steps/s")
