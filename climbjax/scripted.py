"""A scripted climber that runs in MuJoCo: the course's feasibility check.

Model-predictive random shooting: every ``decide_every`` control steps it copies the MuJoCo
state, tries ``candidates`` random piecewise-constant target sequences (hammer angle and
extension, held for a few control steps each) over a short horizon, and keeps executing the one
whose rollout ends with the most course progress (``course.progress``), the previous plan's
remainder included. It needs no learning and no knowledge of the course beyond the progress
measure, so if it reaches the summit the course is climbable with the game's actuators and
physics settings.

    python -m climbjax.scripted --section 0 --seconds 240
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import mujoco
import numpy as np

from climbjax import course

CONTROL_DT = 1.0 / 30.0


@dataclasses.dataclass
class ClimbResult:
    reached_summit: bool
    seconds: float                 # simulated time used
    progress: list[float]          # course progress after every control step
    pot_xz: np.ndarray             # (steps, 2)
    ctrl: np.ndarray               # (steps, nu): the executed controls (MuJoCo ctrl units)
    wall_seconds: float


def load_course() -> tuple[mujoco.MjModel, mujoco.MjData]:
    m = mujoco.MjModel.from_xml_path(str(course.COURSE_XML))
    return m, mujoco.MjData(m)


def substeps(m: mujoco.MjModel) -> int:
    return int(round(CONTROL_DT / m.opt.timestep))


def place_at_section(m: mujoco.MjModel, d: mujoco.MjData, section: int) -> None:
    """Pot at the section's start, hammer hanging forward-down, at rest."""
    mujoco.mj_resetData(m, d)
    x, z = course.SECTION_STARTS[section]
    d.qpos[:] = [x, z - 0.25, 0.0, -0.6, 0.3]  # pot_z is relative to the body's 0.25 offset
    mujoco.mj_forward(m, d)


def pot_xz(d: mujoco.MjData) -> tuple[float, float]:
    return float(d.qpos[0]), float(d.qpos[1]) + 0.25


def _progress(d: mujoco.MjData) -> float:
    x, z = pot_xz(d)
    return float(course.progress(np.float64(x), np.float64(z)))


def climb(section: int = 0, max_seconds: float = 240.0, seed: int = 0, candidates: int = 24,
          horizon: int = 24, hold: int = 6, decide_every: int = 6, verbose: bool = False) -> ClimbResult:
    rng = np.random.default_rng(seed)
    m, d = load_course()
    sim = mujoco.MjData(m)
    n_sub = substeps(m)
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    place_at_section(m, d, section)
    plan = np.tile((lo + hi) / 2, (horizon, 1))
    log_progress, log_xz, log_ctrl = [], [], []
    start = time.time()
    steps = int(max_seconds / CONTROL_DT)
    for step in range(steps):
        if step % decide_every == 0:
            best_score, best_plan = -np.inf, plan
            shifted = np.concatenate([plan[decide_every:], np.repeat(plan[-1:], decide_every, 0)])
            for k in range(candidates + 1):
                if k == 0:
                    trial = shifted
                else:
                    targets = rng.uniform(lo, hi, size=(horizon // hold + 1, m.nu))
                    trial = np.repeat(targets, hold, axis=0)[:horizon]
                mujoco.mj_copyData(sim, m, d)
                for t in range(horizon):
                    sim.ctrl[:] = trial[t]
                    mujoco.mj_step(m, sim, nstep=n_sub)
                x, z = pot_xz(sim)
                score = _progress(sim) + (10.0 if course.at_summit(x, z) else 0.0)
                if score > best_score:
                    best_score, best_plan = score, trial
            plan = best_plan
        d.ctrl[:] = plan[step % decide_every]
        mujoco.mj_step(m, d, nstep=n_sub)
        log_progress.append(_progress(d))
        log_xz.append(pot_xz(d))
        log_ctrl.append(d.ctrl.copy())
        if verbose and step % 150 == 0:
            print(f"t={step * CONTROL_DT:6.1f}s progress={log_progress[-1]:6.2f} pot={log_xz[-1]}", flush=True)
        if course.at_summit(*pot_xz(d)):
            break
    return ClimbResult(reached_summit=bool(course.at_summit(*pot_xz(d))), seconds=(step + 1) * CONTROL_DT,
                       progress=log_progress, pot_xz=np.array(log_xz), ctrl=np.array(log_ctrl),
                       wall_seconds=time.time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--section", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=240.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = climb(args.section, args.seconds, args.seed, verbose=True)
    print(f"summit={result.reached_summit} simulated={result.seconds:.1f}s wall={result.wall_seconds:.0f}s "
          f"final progress={result.progress[-1]:.2f}/{course.ROUTE_LENGTH:.2f}")


if __name__ == "__main__":
    main()
