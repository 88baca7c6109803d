"""Specialists per course section, distilled into one student (DAgger), on Climb-v0.

    python examples/climb_distill.py                       # defaults below (about an hour on 2 CPU cores)
    python examples/climb_distill.py --specialist-seconds 60 --dagger-iterations 3 --eval-episodes 100

1. Specialists: one PPO policy per section (``start_section = k``: episodes start at that
   section's start), trained with paritygym's PPO for a time budget each.
2. Distillation: the student (an MLP of the specialists' shape, or ``--student-hidden`` wide) is rolled out from the course start; every visited
   state is labelled by the specialist responsible for the section the pot is in (by course
   progress), and the student minimises KL(specialist || student) between the Gaussian policies
   on the aggregated states (DAgger). In early iterations the specialist acts with probability
   beta = 0.5 ** iteration, so that the student sees the states its teachers reach.
3. Evaluation from the course start, greedy, in climbjax (vmapped) and in MuJoCo C (the same
   student in numpy driving ``climbjax.reference.MujocoClimb``): success rate (summit reached),
   mean final height and progress, the sections reached; TOSTs on success (margin 0.05) and on
   the mean final height (margin 0.25 m) (L4).

Writes under --out-dir: specialist_<k>/ (PPO metrics, curve, checkpoint), dagger.json,
student.msgpack (+ .config.json: a plain Climb-v0 policy), curves.png (specialists' training
returns and the student's DAgger loss and success), climb.gif (the student's greedy episode from
the course start, with MuJoCo-free rendering) and report.json.

The student shipped with the repo (examples/data/climb_student.msgpack, how it was trained:
docs/envs/climb.md) is evaluated without any training by

    python examples/climb_distill.py --evaluate                      # 1,000 episodes per engine, ~10 min
    python examples/climb_distill.py --evaluate --eval-episodes 100  # 1 min; too few for the TOST on success
    python examples/climb_distill.py --evaluate --eval-episodes 0 --gif climb_student.gif  # the GIF alone

which prints the success rates (summit within 60 s), mean final heights, the sections reached,
and TOSTs of climbjax against MuJoCo C on success (margin 0.05) and on final height (margin 0.25 m).
At ~89 % success a TOST at ±0.05 needs about 1,000 episodes per engine (100 give a 90 % interval of
about ±0.07), hence --evaluate's default. MuJoCo and imageio come with ``pip install -e ".[verify]"``.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import pathlib
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

import paritygym
from climbjax import course
from paritygym.train import PPOConfig, load_checkpoint, save_checkpoint, train
from paritygym.train import networks as nets
from paritygym.train.ppo import PPO
from paritygym.verify import tost

OBS_PROGRESS = 14  # index of course progress in the observation (docs/envs/climb.md)
SHIPPED_STUDENT = pathlib.Path(__file__).resolve().parent / "data" / "climb_student.msgpack"
SUCCESS_MARGIN = 0.05  # TOST margin on the success rate (climbjax vs MuJoCo C)
HEIGHT_MARGIN = 0.25  # TOST margin on the mean final height (m)
REACHED_TOLERANCE_M = 0.05  # progress short of a section's start that still counts as reaching it


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out-dir", default="runs/climb_distill")
    p.add_argument("--specialist-seconds", type=float, default=600.0, help="PPO wall-time budget per section")
    p.add_argument("--specialist-steps", type=int, default=450, help="episode length of specialist training (15 s)")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--hidden", type=int, default=64, help="MLP width of the specialists trained here")
    p.add_argument("--student-hidden", type=int, default=None, help="MLP width of the student (default: the specialists')")
    p.add_argument("--dagger-iterations", type=int, default=6)
    p.add_argument("--dagger-envs", type=int, default=64)
    p.add_argument("--dagger-steps", type=int, default=600, help="student rollout length per iteration (20 s)")
    p.add_argument("--dagger-epochs", type=int, default=200, help="Adam steps on the aggregate per iteration")
    p.add_argument("--dagger-batch", type=int, default=1024, help="states per Adam step")
    p.add_argument("--episode-steps", type=int, default=1800, help="evaluation episode length (60 s)")
    p.add_argument("--eval-episodes", type=int, default=None,
                   help="evaluation episodes per engine (default 100; with --evaluate 1000; 0 with --gif: the GIF alone)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--specialists-from", default=None,
                   help="reuse the specialists saved by an earlier run in this folder (skip step 1)")
    p.add_argument("--evaluate", action="store_true",
                   help="no training: evaluate the student in --weights in climbjax and MuJoCo C")
    p.add_argument("--weights", default=str(SHIPPED_STUDENT),
                   help="the student's checkpoint for --evaluate (default: the one shipped with the repo)")
    p.add_argument("--gif", default=None,
                   help="with --evaluate: write a GIF of the student's greedy climb, MuJoCo's rendering beside ours")
    args = p.parse_args(argv)
    if args.eval_episodes is None:
        args.eval_episodes = 1000 if args.evaluate else 100
    if not (args.eval_episodes >= 2 or (args.eval_episodes == 0 and args.evaluate and args.gif)):
        p.error("--eval-episodes must be at least 2 (a TOST needs two episodes per engine); 0 only with --evaluate --gif")
    if args.episode_steps < 1:
        p.error("--episode-steps must be positive")
    if not args.evaluate and (args.gif or args.weights != str(SHIPPED_STUDENT)):
        p.error("--gif and --weights go with --evaluate")
    for name in ("student_hidden", "dagger_batch"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    missing = [m for m in ("mujoco",) + (("imageio",) if args.gif else ()) if importlib.util.find_spec(m) is None]
    if missing:  # found now, not after an hour of training
        p.error(f"{', '.join(missing)} missing: pip install -e \".[verify]\"")
    return args


# ---- specialists ------------------------------------------------------------------------------

def load_specialists(folder: pathlib.Path) -> tuple[list, list, list]:
    learners, params, histories = [], [], []
    for section in range(course.NUM_SECTIONS):
        _, p, learner = load_checkpoint(folder / f"specialist_{section}" / "checkpoint.msgpack")
        learners.append(learner)
        params.append(p)
        histories.append(json.loads((folder / f"specialist_{section}" / "metrics.json").read_text())["history"])
    return learners, params, histories


def train_specialists(args, out: pathlib.Path) -> tuple[list, list, list]:
    learners, params, histories = [], [], []
    for section in range(course.NUM_SECTIONS):
        config = PPOConfig(env_id="Climb-v0", env_kwargs=dict(start_section=section,
                                                             max_steps_in_episode=args.specialist_steps),
                           num_envs=args.num_envs, num_steps=128, total_timesteps=10**9, update_epochs=10,
                           num_minibatches=16, learning_rate=3e-4, ent_coef=0.0, hidden=args.hidden, layers=2,
                           seed=args.seed + section, time_budget_s=args.specialist_seconds,
                           out_dir=str(out / f"specialist_{section}"))
        print(f"== specialist for section {section} ({args.specialist_seconds:.0f} s budget)", flush=True)
        result = train(config)
        learners.append(PPO(config))
        params.append(result.params)
        histories.append(result.history)
    return learners, params, histories


# ---- distillation -----------------------------------------------------------------------------

def gaussian_kl(mean_p, log_std_p, mean_q, log_std_q):
    """KL(p || q) of diagonal Gaussians, summed over action dimensions."""
    var_p, var_q = jnp.exp(2 * log_std_p), jnp.exp(2 * log_std_q)
    return jnp.sum(log_std_q - log_std_p + (var_p + (mean_p - mean_q) ** 2) / (2 * var_q) - 0.5, axis=-1)


def make_dagger(env, env_params, network, student_network, specialists_params, args):
    """Jitted (student_params, key, beta) -> (obs [T, N, obs], done [T, N]) rollouts from the course
    start; ``network``: the specialists' shape, ``student_network``: the student's."""
    n, steps = args.dagger_envs, args.dagger_steps
    starts = jnp.asarray(course.progress(course.SECTION_STARTS[1:, 0], course.SECTION_STARTS[1:, 1]))

    def teacher_dist(obs):
        section = jnp.sum(obs[:, OBS_PROGRESS, None] >= starts, axis=-1)
        outs = [network.apply(p, obs)[0] for p in specialists_params]
        mean = jnp.stack([o[0] for o in outs])[section, jnp.arange(obs.shape[0])]
        log_std = jnp.stack([o[1] for o in outs])[section, jnp.arange(obs.shape[0])]
        return mean, log_std

    @jax.jit
    def rollout(student, key, beta):
        k_reset, k_run = jax.random.split(key)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(k_reset, n), env_params)

        def step(carry, key):
            obs, state = carry
            k_a, k_b, k_env = jax.random.split(key, 3)
            (s_mean, s_log_std), _ = student_network.apply(student, obs)
            t_mean, t_log_std = teacher_dist(obs)
            use_teacher = jax.random.uniform(k_b, (n, 1)) < beta
            mean = jnp.where(use_teacher, t_mean, s_mean)
            log_std = jnp.where(use_teacher, t_log_std, s_log_std)
            action = jnp.clip(mean + jnp.exp(log_std) * jax.random.normal(k_a, mean.shape), -1, 1)
            obs2, state, _, term, trunc, _ = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(k_env, n), state, action, env_params)
            return (obs2, state), (obs, term | trunc)

        return jax.lax.scan(step, (obs, state), jax.random.split(k_run, steps))[1]

    return rollout, teacher_dist


def distill(learners, specialists_params, args, out: pathlib.Path):
    env, env_params = paritygym.make("Climb-v0", start_section=0, max_steps_in_episode=args.episode_steps)
    teachers = learners[0].network
    network = nets.MLPActorCritic(teachers.action_dim, teachers.continuous,
                                  (args.student_hidden or learners[0].config.hidden,) * learners[0].config.layers)
    rollout, teacher_dist = make_dagger(env, env_params, teachers, network, specialists_params, args)
    key = jax.random.key(args.seed + 100)
    student = network.init(key, jnp.zeros((1, env.observation_space(env_params).shape[0])))
    optimiser = optax.adam(1e-3)
    opt_state = optimiser.init(student)

    @jax.jit
    def fit(student, opt_state, obs, key):
        t_mean, t_log_std = teacher_dist(obs)

        def loss_fn(p, batch, tm, tl):
            (mean, log_std), _ = network.apply(p, batch)
            return jnp.mean(gaussian_kl(tm, tl, mean, log_std))

        def one(carry, k):
            p, s = carry
            pick = jax.random.randint(k, (args.dagger_batch,), 0, obs.shape[0])
            loss, grads = jax.value_and_grad(loss_fn)(p, obs[pick], t_mean[pick], t_log_std[pick])
            updates, s = optimiser.update(grads, s, p)
            return (optax.apply_updates(p, updates), s), loss

        (student, opt_state), losses = jax.lax.scan(one, (student, opt_state), jax.random.split(key, args.dagger_epochs))
        return student, opt_state, losses

    dataset, history = [], []
    for it in range(args.dagger_iterations):
        beta = 0.5 ** it
        key, k_roll, k_fit = jax.random.split(key, 3)
        obs, _ = rollout(student, k_roll, beta)
        dataset.append(np.asarray(obs).reshape(-1, obs.shape[-1]))
        dataset = dataset[-4:]  # aggregate the most recent iterations (bounded memory)
        data = jnp.asarray(np.concatenate(dataset))
        student, opt_state, losses = fit(student, opt_state, data, k_fit)
        reached = float(np.max(np.asarray(obs)[..., OBS_PROGRESS]))
        history.append(dict(iteration=it, beta=beta, kl=float(losses[-1]), states=int(data.shape[0]),
                            best_progress=reached))
        print(f"dagger {it}: beta {beta:.3f} KL {float(losses[-1]):.4f} states {data.shape[0]} "
              f"best progress {reached:.2f}", flush=True)
    (out / "dagger.json").write_text(json.dumps(history, indent=1))
    return env, env_params, network, student, history


# ---- evaluation -------------------------------------------------------------------------------

def evaluate_ours(env, env_params, network, student, episodes: int, steps: int, seed: int) -> dict[str, np.ndarray]:
    """Greedy episodes from the course start in climbjax (vmapped): per episode, summit reached,
    final height and progress, and the furthest progress reached."""
    @jax.jit
    def run(key):
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, episodes), env_params)

        def step(carry, key):
            obs, state, done, summit, height, progress, best = carry
            (mean, _), _ = network.apply(student, obs)
            obs2, state2, _, term, info = jax.vmap(env.step_env, in_axes=(0, 0, 0, None))(
                jax.random.split(key, episodes), state, jnp.clip(mean, -1, 1), env_params)
            live = ~done
            keep = lambda new, old: jnp.where(live[:, None] if new.ndim > 1 else live, new, old)
            return (keep(obs2, obs), jax.tree.map(keep, state2, state), done | term, summit | (live & term),
                    keep(info["height"], height), keep(info["progress"], progress),
                    keep(jnp.maximum(best, info["progress"]), best)), None

        zeros = jnp.zeros(episodes)
        carry = (obs, state, jnp.zeros(episodes, bool), jnp.zeros(episodes, bool), zeros, zeros, obs[:, OBS_PROGRESS])
        return jax.lax.scan(step, carry, jax.random.split(key, steps))[0]

    _, _, _, summit, height, progress, best = jax.device_get(run(jax.random.key(seed)))
    return dict(summit=np.asarray(summit), height=np.asarray(height), progress=np.asarray(progress),
                best_progress=np.asarray(best))


def numpy_policy(student):
    """The student's mean action in numpy (for driving MuJoCo without JAX in the loop)."""
    layers = jax.device_get(student)["params"]

    def dense(p, x):
        return x @ np.asarray(p["kernel"]) + np.asarray(p["bias"])

    actor = [layers[k] for k in sorted((k for k in layers if k.startswith("Dense")), key=lambda k: int(k.split("_")[1]))]
    head = layers["PolicyHead_0"]

    def act(obs):
        x = np.asarray(obs, np.float32)
        for p in actor[::2]:  # actor and critic layers alternate in creation order
            x = np.tanh(dense(p, x))
        return np.clip(dense(head["Dense_0"], x), -1, 1).astype(np.float32)

    return act


def evaluate_mujoco(student, episodes: int, steps: int, seed: int) -> dict[str, np.ndarray]:
    """The same greedy episodes in MuJoCo C (the student in numpy; start x jitter from ``seed + e``)."""
    from climbjax.reference import MujocoClimb  # MuJoCo only where it is used (an accelerator machine may lack it)

    act = numpy_policy(student)
    ref = MujocoClimb(section=0)
    summit, height, progress, best = [], [], [], []
    for e in range(episodes):
        rec = ref.reset(seed + e)
        furthest = float(rec["progress"])
        for _ in range(steps):
            rec = ref.step(act(rec["obs"].astype(np.float32)))
            furthest = max(furthest, float(rec["progress"]))
            if rec["terminated"]:
                break
        summit.append(bool(rec["terminated"]))
        height.append(float(rec["qpos"][1] + 0.25))
        progress.append(float(rec["progress"]))
        best.append(furthest)
    return dict(summit=np.array(summit), height=np.array(height), progress=np.array(progress),
                best_progress=np.array(best))


def summarise(result: dict[str, np.ndarray]) -> dict:
    """Success rate, mean final height and progress, and the fraction of episodes that reached each
    section's start (by the furthest course progress) and the summit."""
    starts = course.progress(course.SECTION_STARTS[:, 0], course.SECTION_STARTS[:, 1])
    # a section counts as reached a little short of its start point: the pot's resting spot there
    # is jittered like the starts (±0.1 m) and may settle just before the point
    reached = {f"section_{k}": float(np.mean(result["best_progress"] >= starts[k] - REACHED_TOLERANCE_M))
               for k in range(1, len(starts))}
    return dict(episodes=int(result["summit"].size), success_rate=float(result["summit"].mean()),
                mean_height=float(result["height"].mean()), mean_progress=float(result["progress"].mean()),
                reached=dict(reached, summit=float(result["summit"].mean())))


def compare_engines(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray]) -> dict:
    """climbjax's and MuJoCo's summaries and the two L4 TOSTs (success, final height)."""
    on_success = tost(ours["summit"].astype(float), theirs["summit"].astype(float), margin=SUCCESS_MARGIN)
    on_height = tost(ours["height"], theirs["height"], margin=HEIGHT_MARGIN)
    return dict(climbjax=summarise(ours), mujoco=summarise(theirs),
                l4_tost_success=dict(margin=SUCCESS_MARGIN, describe=on_success.describe(),
                                     equivalent=bool(on_success.equivalent)),
                l4_tost_height=dict(margin_m=HEIGHT_MARGIN, describe=on_height.describe(),
                                    equivalent=bool(on_height.equivalent)))


def check_numpy_policy(network, student, obs_dim: int) -> float:
    obs = np.random.default_rng(0).normal(size=(16, obs_dim)).astype(np.float32)
    (mean, _), _ = network.apply(student, jnp.asarray(obs))
    return float(np.max(np.abs(np.clip(np.asarray(mean), -1, 1) - numpy_policy(student)(obs))))


# ---- outputs ----------------------------------------------------------------------------------

def plot(histories, dagger, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for k, h in enumerate(histories):
        xs = [row.get("steps", i) for i, row in enumerate(h)]
        ys = [row.get("mean_return", np.nan) for row in h]
        axes[0].plot(xs, ys, label=f"section {k}")
    axes[0].set_xlabel("env steps"); axes[0].set_ylabel("episode return (progress, m)"); axes[0].legend()
    axes[0].set_title("specialists (PPO)")
    axes[1].plot([d["iteration"] for d in dagger], [d["kl"] for d in dagger], "o-", label="KL to teachers")
    axes[1].plot([d["iteration"] for d in dagger], [d["best_progress"] for d in dagger], "s-", label="best progress (m)")
    axes[1].set_xlabel("DAgger iteration"); axes[1].legend(); axes[1].set_title("student")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


FRAME_EVERY = 3  # agent steps per GIF frame: 10 frames per second of game time


def climbjax_frames(env, env_params, network, student, steps: int, key, size=(480, 320, 9.0)) -> tuple[list, int | None]:
    """The student's greedy episode in climbjax rendered by `climbjax.render` (width, height, view
    width in m), a frame every FRAME_EVERY steps and the last pose; and the step it summited at (or None)."""
    from climbjax.render import render_qpos

    step = jax.jit(env.step_env)
    obs, state = env.reset(key, env_params)
    frames, summit = [render_qpos(np.asarray(state.physics.qpos), *size)], None
    for t in range(steps):
        (mean, _), _ = network.apply(student, obs[None])
        obs, state, _, term, _ = step(jax.random.key(t), state, jnp.clip(mean[0], -1, 1), env_params)
        if bool(term):
            summit = t + 1
        if t % FRAME_EVERY == FRAME_EVERY - 1 or summit:
            frames.append(render_qpos(np.asarray(state.physics.qpos), *size))
        if summit:
            break
    return frames, summit


def mujoco_frames(student, steps: int, width: int, height: int, view_width: float) -> tuple[list, int | None]:
    """The student's greedy episode in MuJoCo C from the exact course start, rendered by MuJoCo in
    an orthographic side view centred as `climbjax.render` centres ours; frames and summit step as
    `climbjax_frames`."""
    import mujoco

    from climbjax.reference import MujocoClimb

    act = numpy_policy(student)
    ref = MujocoClimb(section=0, start_x_noise=0.0)
    rec = ref.reset(0)
    # rendering settings only (the course has no lights of its own): a brighter headlight, and for
    # an orthographic camera fovy is the view's height in metres
    ref.m.vis.headlight.ambient[:] = 0.5
    ref.m.vis.headlight.diffuse[:] = 0.6
    ref.m.vis.global_.fovy = view_width * height / width
    renderer = mujoco.Renderer(ref.m, height, width)
    camera = mujoco.MjvCamera()
    camera.type = mujoco.mjtCamera.mjCAMERA_FREE
    camera.orthographic = 1
    camera.azimuth, camera.elevation, camera.distance = 90.0, 0.0, 20.0  # looking along +y at the x-z plane

    def frame():
        camera.lookat[:] = [ref.d.qpos[0] + 1.0, 0.0, ref.d.qpos[1] + 0.8]
        renderer.update_scene(ref.d, camera)
        return renderer.render()

    frames, summit = [frame()], None
    for t in range(steps):
        rec = ref.step(act(rec["obs"].astype(np.float32)))
        if rec["terminated"]:
            summit = t + 1
        if t % FRAME_EVERY == FRAME_EVERY - 1 or summit:
            frames.append(frame())
        if summit:
            break
    renderer.close()
    return frames, summit


def record_gif(env, env_params, network, student, path: pathlib.Path, steps: int) -> None:
    import imageio

    frames, _ = climbjax_frames(env, env_params, network, student, steps, jax.random.key(7))
    imageio.mimsave(path, frames, duration=0.1, loop=0)


def record_side_by_side_gif(env, env_params, network, student, path: pathlib.Path, steps: int,
                            width: int = 300, height: int = 200, view_width: float = 9.0) -> dict:
    """The student's greedy climb from the exact course start (no jitter) in MuJoCo C, rendered by
    MuJoCo (left), and in climbjax, rendered by `climbjax.render` (right); 10 frames per second of
    game time, the shorter episode held on its last frame. Each engine runs its own episode (chaos
    parts them after a while: docs/envs/climb.md)."""
    import imageio

    left, summit_mujoco = mujoco_frames(student, steps, width, height, view_width)
    right, summit_ours = climbjax_frames(env, env_params.replace(start_x_noise=0.0), network, student, steps,
                                         jax.random.key(0), (width, height, view_width))
    n = max(len(left), len(right))
    left, right = (f + [f[-1]] * (n - len(f)) for f in (left, right))
    gap = np.full((height, 8, 3), 255, np.uint8)
    frames = [np.concatenate([a, gap, b], axis=1) for a, b in zip(left, right)]
    imageio.mimsave(path, frames + [frames[-1]] * 10, duration=0.1, loop=0)
    return dict(mujoco=summit_mujoco, climbjax=summit_ours)


def evaluate_both(env, env_params, network, student, episodes: int, steps: int, seed: int) -> dict:
    """Greedy episodes from the course start in climbjax and MuJoCo C (same seeds), their summaries,
    the two TOSTs and the seconds each engine took; printed as they come."""
    start = time.time()
    ours = evaluate_ours(env, env_params, network, student, episodes, steps, seed)
    ours_s = time.time() - start
    theirs = evaluate_mujoco(student, episodes, steps, seed)
    report = dict(compare_engines(ours, theirs), seconds=dict(climbjax=ours_s, mujoco=time.time() - start - ours_s))
    for engine in ("climbjax", "mujoco"):
        r = report[engine]
        reached = ", ".join(f"{k} {100 * v:.0f}%" for k, v in r["reached"].items())
        print(f"{engine:9s} success {100 * r['success_rate']:5.1f}% of {r['episodes']}, mean final height "
              f"{r['mean_height']:.2f} m, progress {r['mean_progress']:.1f} m; reached: {reached}")
    print(f"TOST on success (margin {SUCCESS_MARGIN}): {report['l4_tost_success']['describe']}")
    print(f"TOST on final height (margin {HEIGHT_MARGIN} m): {report['l4_tost_height']['describe']}")
    return report


def evaluate_shipped(args) -> dict:
    """`--evaluate`: the student in ``--weights`` from the course start, greedy, in both engines
    (and first, so that a rendering problem shows at once, the GIF of ``--gif``)."""
    config, student, learner = load_checkpoint(args.weights)
    env, env_params = paritygym.make("Climb-v0", start_section=0, max_steps_in_episode=args.episode_steps)
    report: dict = dict(weights=str(args.weights), episode_steps=args.episode_steps)
    if args.gif:
        report["gif_summit_steps"] = record_side_by_side_gif(env, env_params, learner.network, student,
                                                             pathlib.Path(args.gif), args.episode_steps)
        print(f"wrote {args.gif} (summit after {report['gif_summit_steps']} agent steps)")
    if not args.eval_episodes:
        return report
    print(f"student {args.weights} ({config.hidden}x{config.layers} MLP): {args.eval_episodes} greedy episodes of "
          f"{args.episode_steps} steps from the course start in climbjax, then in MuJoCo C...", flush=True)
    report.update(evaluate_both(env, env_params, learner.network, student, args.eval_episodes, args.episode_steps,
                                args.seed + 1000))
    return report


def main(argv=None) -> dict:
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    args = parse_args(argv)
    if args.gif and sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        # MuJoCo picks its OpenGL platform when first imported: headless EGL unless the user chose one
        os.environ.setdefault("MUJOCO_GL", "egl")
    if args.evaluate:
        return evaluate_shipped(args)
    out = pathlib.Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    if args.specialists_from:
        learners, specialists, histories = load_specialists(pathlib.Path(args.specialists_from))
    else:
        learners, specialists, histories = train_specialists(args, out)
    env, env_params, network, student, dagger = distill(learners, specialists, args, out)
    # the student as a plain Climb-v0 policy from the course start (what --evaluate --weights reads)
    student_config = dataclasses.replace(learners[0].config, env_kwargs=dict(start_section=0, max_steps_in_episode=args.episode_steps),
                                         hidden=args.student_hidden or learners[0].config.hidden,
                                         out_dir=None, resume=False, checkpoint_every_s=None, time_budget_s=None)
    save_checkpoint(out / "student.msgpack", student_config, student)
    print(f"numpy student vs JAX student: max |action difference| {check_numpy_policy(network, student, 24):.2e}")
    print(f"evaluating {args.eval_episodes} episodes from the course start (climbjax, then MuJoCo)...", flush=True)
    both = evaluate_both(env, env_params, network, student, args.eval_episodes, args.episode_steps, args.seed + 1000)
    report = dict(args=vars(args), wall_seconds=time.time() - start, **both, dagger=dagger)
    (out / "report.json").write_text(json.dumps(report, indent=1))
    plot(histories, dagger, out / "curves.png")
    record_gif(env, env_params, network, student, out / "climb.gif", args.episode_steps)
    print(f"wrote {out / 'report.json'}, curves.png, climb.gif, student.msgpack")
    return report


if __name__ == "__main__":
    main()
