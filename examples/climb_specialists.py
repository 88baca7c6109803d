"""Resumable PPO specialists for Climb-v0's course sections, sized for an accelerator.

One invocation trains the specialist of one section for ``--time-budget-s`` seconds and leaves
its whole training state (params, optimiser state, envs, RNG, step count; about 1 MB at 4,096
envs) in ``--out-dir/specialist_<k>/training_state.msgpack``, every ``--checkpoint-every-s`` and at
the end; the next invocation with the same arguments continues from it. A 21-minute run is three
10-minute commands of 7 minutes of training each (the rest: start, compilation, evaluation; on a
TPU v5e chip Climb-v0 steps about 412 K agent steps/s at 4,096 envs):

    python examples/climb_specialists.py --section 3 --out-dir runs/climb --time-budget-s 420
    python examples/climb_specialists.py --section 3 --out-dir runs/climb --time-budget-s 420 --route-weight 2 --new-shaping
    python examples/climb_specialists.py --section 3 --out-dir runs/climb --time-budget-s 420 --route-weight 2

(section 3: reach shaping first, then the route term; on the CPU this order took the specialist
from 0 to 95-100 % success from the section start, 98 % in MuJoCo C; docs/envs/climb.md).

CPU-sized:  ... --num-envs 64 --num-steps 128 --num-minibatches 4 --time-budget-s 120

The folder is what ``examples/climb_distill.py --specialists-from runs/climb`` reads
(specialist_<k>/checkpoint.msgpack, metrics.json; the checkpoint's config is plain Climb-v0).

Training-only changes (Climb-v0's reward and observation are untouched; they live in the wrapper
``TrainingClimb`` below and are written to specialist_<k>/shaping.json):

- starts: with probability ``--spread`` an episode starts at a uniform x along the section (the
  pot dropped onto the terrain there), with ``--pit`` (section 3) on the pit floor; otherwise at
  the section's start. Spread starts near the goal give a reverse curriculum for free: the policy
  first learns the last move (e.g. from the overhang onto the cliff top), then earlier ones.
- shaping: potential-based terms added to the env's progress reward, r' = r + Phi(s') - Phi(s):
  ``--height-weight`` x pot height (falling into the pit costs what climbing out pays back) and
  ``--hook-weight`` x [hammer head on the upper level: over the overhang or the cliff top] and
  ``--reach-weight`` x minus the head's distance to a hold on the overhang (dense guidance for the
  hammer while the pot is short of the summit) and ``--route-weight`` x minus the pot's distance to
  the route polyline (off the route, e.g. hanging under the overhang or in the pit, costs).
- the episode length (``--episode-steps``, 15 s by default).

Printed as it trains: steps, steps/s, mean return (shaped), ``gain`` (course progress gained,
unshaped), ``goal`` (fraction of episodes reaching the section's goal: the next section's start,
for section 3 the summit), ``std`` (fraction of episodes from the section start) and ``std_goal``
(those that reached the goal: success from the section start = std_goal / std); for section 3
also ``out`` (episodes that climbed out of the pit after being in it) and ``hook`` (the hammer
head got over the overhang or the cliff top). At the end of each invocation: the stochastic and
greedy success rates from the section start (section 3: also from the pit floor), appended to
specialist_<k>/evaluations.jsonl.
"""


import argparse
import json
import pathlib
import time

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from climbjax import course, game
from climbjax.env import Climb, EnvParams, EnvState
from paritygym.train import PPOConfig, evaluate, train
from paritygym.train.ppo import PPO

POT_HALF_WIDTH = 0.4          # pot spheres at x +-0.15, radius 0.25
PIT_X = (12.9, 13.2)          # pot centre x on the pit floor without touching the ledge wall (pit: 12.5..13.5)
PIT_Z = 1.2 + 0.25 + 0.02     # pit floor top + pot radius + a little
UPPER_X, UPPER_Z = 13.3, 3.62  # the hammer head "hooked": over the overhang/cliff top (top z 3.6; head r 0.1)
LAST_X = 13.95                # spread starts of section 3 end short of the summit (x >= 14)
HOOK_POINT = (13.6, 3.72)     # the head resting on the overhang, 0.2 m past the lip
PIT_LOW, LEDGE_LEVEL = 2.0, 2.75  # pot centre heights: in the pit below, at the ledge's level (top 2.6) above


def section_goal(section: int) -> float:
    """Course progress that ends a section: the next section's start (section 3: the summit, unused)."""
    if section + 1 < course.NUM_SECTIONS:
        x, z = course.SECTION_STARTS[section + 1]
        return float(course.progress(np.float32(x), np.float32(z)))
    return float("inf")


def spread_range(section: int) -> tuple[float, float]:
    lo = float(course.SECTION_STARTS[section, 0])
    hi = float(course.SECTION_STARTS[section + 1, 0]) if section + 1 < course.NUM_SECTIONS else LAST_X
    return lo, hi


def route_distance(x: jax.Array, z: jax.Array) -> jax.Array:
    """Distance (m) of the pot's centre from the route polyline (climbjax.course.ROUTE)."""
    route = course.constant(course.ROUTE, x.dtype)
    a, b = route[:-1], route[1:]
    ab = b - a
    t = jnp.clip(((x - a[:, 0]) * ab[:, 0] + (z - a[:, 1]) * ab[:, 1]) / jnp.sum(ab * ab, axis=1), 0.0, 1.0)
    return jnp.sqrt(jnp.min((x - a[:, 0] - t * ab[:, 0]) ** 2 + (z - a[:, 1] - t * ab[:, 1]) ** 2))


@struct.dataclass
class TrainingParams(EnvParams):
    spread: float = 0.0          # probability of a start at a uniform x along the section
    pit: float = 0.0             # probability of a start on the pit floor
    height_weight: float = 0.0   # shaping potential: x pot height (m)
    hook_weight: float = 0.0     # shaping potential: x [head over the upper level]
    reach_weight: float = 0.0    # shaping potential: x -(head's distance to HOOK_POINT, at most 3 m), pot short of the summit x
    route_weight: float = 0.0    # shaping potential: x -(pot's distance to the route polyline, at most 3 m)
    goal_progress: float = float("inf")  # the section's goal (course progress); the summit counts too


@struct.dataclass
class TrainingState(EnvState):
    standard: jax.Array = True   # the episode started at the section's start
    reached: jax.Array = False   # the goal was reached in this episode
    fell: jax.Array = False      # the pot was in the pit (z < PIT_LOW) in this episode
    escaped: jax.Array = False   # ...and then back at the ledge's level or higher
    hooked: jax.Array = False    # the head was over the upper level (the overhang, the cliff top)


class TrainingClimb(Climb):
    """Climb-v0 with training starts and a shaped reward (TrainingParams); observation, action and
    physics are Climb-v0's, so a policy trained here runs unchanged on Climb-v0."""

    def __init__(self, section: int, **kwargs):
        super().__init__(**kwargs)
        self.section = section
        x0, heights = self.profile
        lo, hi = spread_range(section)
        xs = np.linspace(lo, hi, 256)
        # drop the pot at x from just above the highest terrain under its whole width
        grid = x0 + np.arange(len(heights)) * game.HEIGHT_GRID_STEP
        tops = np.array([heights[(grid >= x - POT_HALF_WIDTH) & (grid <= x + POT_HALF_WIDTH)].max() for x in xs])
        self._spread_xz = np.stack([xs, tops + game.POT_Z_OFFSET + 0.02], axis=1)

    @property
    def default_params(self) -> TrainingParams:
        return TrainingParams(start_section=self.section, goal_progress=section_goal(self.section))

    @staticmethod
    def head_hooked(qpos: jax.Array) -> jax.Array:
        x, z = game.pot_position(qpos)
        dx, dz = game.head_offset(qpos)
        return (x + dx >= UPPER_X) & (z + dz >= UPPER_Z)

    def potential(self, qpos: jax.Array, params: TrainingParams) -> jax.Array:
        x, z = game.pot_position(qpos)
        dx, dz = game.head_offset(qpos)
        distance = jnp.minimum(jnp.hypot(x + dx - HOOK_POINT[0], z + dz - HOOK_POINT[1]), 3.0)
        reach = -jnp.where(x < course.SUMMIT_X, distance, 0.0)
        return (params.height_weight * z + params.hook_weight * self.head_hooked(qpos).astype(qpos.dtype)
                + params.reach_weight * reach - params.route_weight * jnp.minimum(route_distance(x, z), 3.0))

    def reset_env(self, key: jax.Array, params: TrainingParams):
        k_base, k_kind, k_spread, k_pit = jax.random.split(key, 4)
        _, state = super().reset_env(k_base, params)
        u = jax.random.uniform(k_kind)
        spread, pit = u < params.spread, (u >= params.spread) & (u < params.spread + params.pit)
        table = course.constant(self._spread_xz, self.dtype)
        sx, sz = table[jax.random.randint(k_spread, (), 0, table.shape[0])]
        px = jax.random.uniform(k_pit, (), self.dtype, PIT_X[0], PIT_X[1])
        qpos = state.physics.qpos
        x = jnp.where(spread, sx, jnp.where(pit, px, qpos[0]))
        z = jnp.where(spread, sz, jnp.where(pit, jnp.asarray(PIT_Z, self.dtype), qpos[1] + game.POT_Z_OFFSET))
        qpos = qpos.at[0].set(x).at[1].set(z - game.POT_Z_OFFSET)
        false = jnp.zeros((), bool)
        state = TrainingState(physics=state.physics.replace(qpos=qpos), time=state.time, standard=~(spread | pit),
                              reached=false, fell=z < PIT_LOW, escaped=false, hooked=false)
        return self.get_obs(state), state

    def step_env(self, key: jax.Array, state: TrainingState, action, params: TrainingParams):
        obs, new, reward, terminated, info = super().step_env(key, state, action, params)
        shaped = reward + (self.potential(new.physics.qpos, params) - self.potential(state.physics.qpos, params)).astype(reward.dtype)
        goal = (info["progress"] >= params.goal_progress) | info["summit"]
        first_goal = goal & ~state.reached
        fell = state.fell | (info["height"] < PIT_LOW)
        escaped = fell & (info["height"] >= LEDGE_LEVEL)
        hooked = self.head_hooked(new.physics.qpos)
        new = TrainingState(physics=new.physics, time=new.time, standard=state.standard, reached=state.reached | goal,
                            fell=fell, escaped=state.escaped | escaped, hooked=state.hooked | hooked)
        gain = (reward - jnp.where(info["summit"], params.summit_bonus, 0.0)) / params.progress_weight
        info = dict(info, gain=gain, goal=first_goal, standard_first=state.standard & (state.time == 0),
                    standard_goal=first_goal & state.standard, escaped=escaped & ~state.escaped,
                    hooked=hooked & ~state.hooked)
        return obs, new, shaped.astype(self.dtype), terminated, info


EPISODE_METRICS = {
    "gain": lambda r, info: info["gain"],
    "goal": lambda r, info: info["goal"].astype(jnp.float32),
    "std": lambda r, info: info["standard_first"].astype(jnp.float32),
    "std_goal": lambda r, info: info["standard_goal"].astype(jnp.float32),
    "out": lambda r, info: info["escaped"].astype(jnp.float32),    # climbed out of the pit (section 3)
    "hook": lambda r, info: info["hooked"].astype(jnp.float32),    # head over the overhang / cliff top (section 3)
}
SHAPING_FIELDS = ("spread", "pit", "height_weight", "hook_weight", "reach_weight", "route_weight", "episode_steps")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--section", type=int, required=True, choices=range(course.NUM_SECTIONS))
    p.add_argument("--out-dir", default="runs/climb")
    p.add_argument("--time-budget-s", type=float, default=420.0, help="training seconds of this invocation (420: a 10-minute command with compilation and evaluation)")
    p.add_argument("--checkpoint-every-s", type=float, default=120.0)
    p.add_argument("--total-steps", type=float, default=2e9, help="stop for good after this many env steps")
    p.add_argument("--num-envs", type=int, default=4096)
    p.add_argument("--num-steps", type=int, default=64, help="rollout length per update")
    p.add_argument("--num-minibatches", type=int, default=8)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--hidden", type=int, default=64, help="MLP width (climb_distill's student has the same shape)")
    p.add_argument("--episode-steps", type=int, default=450, help="episode length (15 s)")
    p.add_argument("--spread", type=float, default=None, help="probability of a start anywhere along the section "
                   "(default 0.5; 0.3 for section 3)")
    p.add_argument("--pit", type=float, default=None, help="probability of a start on the pit floor (section 3; default 0.1)")
    p.add_argument("--height-weight", type=float, default=None, help="shaping: potential per metre of height (default 1 for section 3, else 0)")
    p.add_argument("--hook-weight", type=float, default=None, help="shaping: potential of the head over the upper level (default 1 for section 3, else 0)")
    p.add_argument("--reach-weight", type=float, default=None, help="shaping: potential of minus the head's distance "
                   "to a hold on the overhang (default 1 for section 3, else 0)")
    p.add_argument("--route-weight", type=float, default=0.0, help="shaping: potential of minus the pot's distance "
                   "to the route (progress along a path, not only x; default 0)")
    p.add_argument("--new-shaping", action="store_true", help="resume a run whose starts/shaping were different "
                   "(a shaping curriculum: e.g. section 3 first with --route-weight 0, then 2)")
    p.add_argument("--mujoco-episodes", type=int, default=64, help="greedy episodes from the section start in MuJoCo C "
                   "at the end (0: none)")
    p.add_argument("--eval-episodes", type=int, default=256, help="episodes from the section start at the end (0: none)")
    p.add_argument("--log-every-s", type=float, default=20.0)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    last = args.section == course.NUM_SECTIONS - 1
    for name, for_last, other in (("spread", 0.3, 0.5), ("pit", 0.1, 0.0), ("height_weight", 1.0, 0.0), ("hook_weight", 1.0, 0.0),
                                      ("reach_weight", 1.0, 0.0)):
        if getattr(args, name) is None:
            setattr(args, name, for_last if last else other)
    if args.spread + args.pit > 1:
        p.error("--spread + --pit must be at most 1")
    return args


def make_env(args, standard_only: bool = False) -> tuple[TrainingClimb, TrainingParams]:
    env = TrainingClimb(args.section)
    params = env.default_params.replace(
        max_steps_in_episode=args.episode_steps, spread=0.0 if standard_only else args.spread,
        pit=0.0 if standard_only else args.pit, height_weight=args.height_weight, hook_weight=args.hook_weight,
        reach_weight=args.reach_weight, route_weight=args.route_weight)
    return env, params


def config_of(args) -> PPOConfig:
    return PPOConfig(
        env_id="Climb-v0", env_kwargs=dict(start_section=args.section, max_steps_in_episode=args.episode_steps),
        num_envs=args.num_envs, num_steps=args.num_steps, total_timesteps=int(args.total_steps), anneal_lr=False,
        update_epochs=args.update_epochs, num_minibatches=args.num_minibatches, learning_rate=args.learning_rate,
        ent_coef=args.ent_coef, hidden=args.hidden, layers=2, seed=args.seed + args.section,
        time_budget_s=args.time_budget_s, log_every_s=args.log_every_s, checkpoint_every_s=args.checkpoint_every_s,
        resume=True, out_dir=str(pathlib.Path(args.out_dir) / f"specialist_{args.section}"))  # fmt: skip


def evaluation_cases(args, params) -> dict[str, dict[str, float]]:
    """Episodes from the section's start (section 3: also from the pit floor), stochastic and greedy:
    the fraction that reach the goal, the mean progress gained, and (section 3) the fractions that
    climbed out of the pit and hooked the overhang. One learner: the compiled evaluation is reused."""
    env, standard = make_env(args, standard_only=True)
    ppo = PPO(config_of(args), EPISODE_METRICS, (env, standard))
    last = args.section == course.NUM_SECTIONS - 1
    report = {}
    for greedy in (False, True):
        for from_pit in (False, True) if last else (False,):
            ppo.env_params = standard.replace(pit=1.0 if from_pit else 0.0)
            scores = evaluate(ppo, params, args.eval_episodes, seed=args.seed + 999, greedy=greedy,
                              max_steps=args.episode_steps + 256)
            score = {k: float(np.mean(scores[k])) for k in ("goal", "gain", "out", "hook")} | {"episodes": len(scores["goal"])}
            report[("greedy" if greedy else "stochastic") + ("_from_pit" if from_pit else "")] = score
            print(f"from the {'pit floor' if from_pit else 'section start'}, {'greedy' if greedy else 'stochastic'}: "
                  f"goal {score['goal']:.1%} of {score['episodes']} episodes, mean progress gained {score['gain']:+.2f} m"
                  + (f", climbed out of the pit {score['out']:.1%}, hooked the overhang {score['hook']:.1%}" if last else ""),
                  flush=True)
    return report


def evaluate_mujoco(args, params) -> dict[str, float]:
    """Greedy episodes from the section's start in MuJoCo C (climbjax.reference), the policy in numpy
    (climb_distill's ``numpy_policy``): the fraction that reach the section's goal."""
    import importlib.util

    try:
        from climbjax.reference import MujocoClimb
    except ImportError as error:  # no MuJoCo here
        print(f"MuJoCo evaluation skipped: {error}")
        return {}
    spec = importlib.util.spec_from_file_location("climb_distill", pathlib.Path(__file__).with_name("climb_distill.py"))
    distill = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(distill)
    act = distill.numpy_policy(params)
    ref, goal = MujocoClimb(section=args.section), section_goal(args.section)
    reached = []
    with jax.default_device(jax.devices("cpu")[0]):  # the reference's float64 readout: on the host, also beside a TPU
        for episode in range(args.mujoco_episodes):
            rec = ref.reset(args.seed + 5000 + episode)
            done = False
            for _ in range(args.episode_steps):
                rec = ref.step(act(rec["obs"].astype(np.float32)))
                done = bool(rec["terminated"]) or float(rec["progress"]) >= goal
                if done:
                    break
            reached.append(done)
    score = {"goal": float(np.mean(reached)), "episodes": len(reached)}
    print(f"MuJoCo C from the section start, greedy: goal {score['goal']:.1%} of {score['episodes']} episodes", flush=True)
    return score


def main(argv=None) -> dict:
    from paritygym.cache import enable_compilation_cache
    from paritygym.memory import keep_freed_memory

    enable_compilation_cache()
    keep_freed_memory()
    args = parse_args(argv)
    config = config_of(args)
    out = pathlib.Path(config.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shaping = {k: getattr(args, k) for k in SHAPING_FIELDS}
    saved = out / "shaping.json"
    resuming = (out / "training_state.msgpack").is_file()
    if saved.is_file() and resuming and json.loads(saved.read_text()) != shaping and not args.new_shaping:
        raise SystemExit(f"{out} holds a run with other starts/shaping {saved.read_text()}: use another --out-dir, "
                         "or --new-shaping to continue it with these")
    saved.write_text(json.dumps(shaping, indent=1) + "\n")
    print(f"== specialist for section {args.section}: {shaping}", flush=True)
    t0 = time.time()
    result = train(config, EPISODE_METRICS, env=make_env(args))
    report = {"section": args.section, "steps": result.steps, "train_seconds": result.seconds, "shaping": shaping,
              "final": result.history[-1] if result.history else {}}
    report["shaping_from_steps"] = result.history[0]["steps"] - config.batch_size if result.history else 0
    if args.eval_episodes:
        report.update(evaluation_cases(args, result.params))
    if args.mujoco_episodes:
        report["mujoco_greedy"] = evaluate_mujoco(args, result.params)
    report["wall_seconds_this_invocation"] = time.time() - t0
    with (out / "evaluations.jsonl").open("a") as f:
        f.write(json.dumps(report, default=float) + "\n")
    return report


if __name__ == "__main__":
    main()
