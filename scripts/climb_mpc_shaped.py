"""Section 3 of Climb-v0 in MuJoCo with climbjax.scripted's planner (random shooting, 24
candidates of 0.8 s every 0.2 s), scoring plans by course progress + summit bonus (the game's
reward, as climbjax.scripted) or by that plus the specialists' shaping terms
(examples/climb_specialists.py: height_weight x pot height + hook_weight x [head over the overhang
or cliff top]), from the ledge (section 3's start) and from the pit floor. A learning-free check of
whether the shaping turns the pit from a trap into something a greedy climber gets out of.

    python scripts/climb_mpc_shaped.py 2      # seeds per case; about 4 minutes on one core
"""

from __future__ import annotations

import sys
import time

import mujoco
import numpy as np

from climbjax import course, scripted

UPPER_X, UPPER_Z = 13.3, 3.62  # as examples/climb_specialists.py
STARTS = {"ledge": (11.8, 2.85), "pit": (13.0, 1.47)}


def run(start, height_weight, hook_weight, seconds=40.0, seed=0, candidates=24, horizon=24, hold=6, decide_every=6):
    """(summit reached, game seconds, fell into the pit, climbed out of it, final pot (x, z))."""
    rng = np.random.default_rng(seed)
    m, d = scripted.load_course()
    sim = mujoco.MjData(m)
    n_sub = scripted.substeps(m)
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    head = m.geom("head").id
    mujoco.mj_resetData(m, d)
    d.qpos[:] = [start[0], start[1] - 0.25, 0.0, -0.6, 0.3]
    mujoco.mj_forward(m, d)

    def score(s):
        x, z = scripted.pot_xz(s)
        hx, hz = s.geom_xpos[head][[0, 2]]
        value = float(course.progress(np.float64(x), np.float64(z))) + (10.0 if course.at_summit(x, z) else 0.0)
        return value + height_weight * z + hook_weight * float(hx >= UPPER_X and hz >= UPPER_Z)

    plan = np.tile((lo + hi) / 2, (horizon, 1))
    fell = out = False
    x, z = scripted.pot_xz(d)
    for step in range(int(seconds * 30)):
        if step % decide_every == 0:
            best, best_plan = -np.inf, plan
            shifted = np.concatenate([plan[decide_every:], np.repeat(plan[-1:], decide_every, 0)])
            for k in range(candidates + 1):
                trial = shifted if k == 0 else np.repeat(rng.uniform(lo, hi, size=(horizon // hold + 1, m.nu)), hold, 0)[:horizon]
                mujoco.mj_copyData(sim, m, d)
                for t in range(horizon):
                    sim.ctrl[:] = trial[t]
                    mujoco.mj_step(m, sim, nstep=n_sub)
                value = score(sim)
                if value > best:
                    best, best_plan = value, trial
            plan = best_plan
        d.ctrl[:] = plan[step % decide_every]
        mujoco.mj_step(m, d, nstep=n_sub)
        x, z = scripted.pot_xz(d)
        fell |= z < 2.0
        out |= fell and z >= 2.75
        if course.at_summit(x, z):
            return True, (step + 1) / 30, fell, out, (x, z)
    return False, seconds, fell, out, (x, z)


def main(seeds: int = 2) -> None:
    for name, start in STARTS.items():
        for height_weight, hook_weight in ((0, 0), (1, 1)):
            for seed in range(seeds):
                t = time.time()
                summit, seconds, fell, out, (x, z) = run(start, height_weight, hook_weight, seed=seed)
                print(f"start {name} height_weight {height_weight} hook_weight {hook_weight} seed {seed}: summit {summit} "
                      f"at {seconds:.1f}s game, fell in pit {fell}, climbed out {out}, end pot {x:.2f},{z:.2f}  "
                      f"wall {time.time() - t:.0f}s", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
