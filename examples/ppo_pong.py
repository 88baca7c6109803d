"""Train PPO on Pong-v0 until the agent beats the scripted opponent clearly, then record a GIF.

    python examples/ppo_pong.py                  # defaults below; progress on stdout
    python examples/ppo_pong.py --help           # every PPO option

Stops when the mean score margin (agent points - opponent points per 21-point game) over the last
100 games exceeds +10, or at the time budget. Writes metrics, a learning curve, a checkpoint and
a GIF under runs/ppo_pong/.
"""

from __future__ import annotations

import jax.numpy as jnp

from paritygym.train import PPOConfig, evaluate, load_checkpoint, train
from paritygym.train.cli import parse_config
from paritygym.train.record import record_gif

DEFAULTS = PPOConfig(
    env_id="Pong-v0",
    env_kwargs={"frame_skip": 4, "max_steps_in_episode": 20_000},
    num_envs=512,
    num_steps=64,
    total_timesteps=200_000_000,
    num_minibatches=8,
    ent_coef=0.01,
    learning_rate=2.5e-4,
    hidden=64,
    time_budget_s=14 * 60,
    target_metric="score_margin",
    target_value=10.0,
    target_window=100,
    out_dir="runs/ppo_pong",
)


def score_margin(reward, info):
    """Points only: +1 when the agent scores, -1 when the opponent does (hits give +0.1)."""
    return jnp.where(jnp.abs(reward) == 1.0, reward, 0.0)


def main(argv=None):
    config, args = parse_config(DEFAULTS, __doc__, argv, extra=[("--no-gif", {"action": "store_true"})])
    result = train(config, episode_metrics={"score_margin": score_margin})
    if result.out_dir is None:
        return result
    # Reload the checkpoint and evaluate it, so what we report is what was saved.
    _, params, ppo = load_checkpoint(result.out_dir / "checkpoint.msgpack")
    ppo.metrics["score_margin"] = score_margin
    scores = evaluate(ppo, params, num_episodes=32, seed=12345)
    print(f"evaluation of the saved policy over {len(scores['score_margin'])} games: "
          f"mean score margin {scores['score_margin'].mean():+.2f}, mean return {scores['return'].mean():+.2f}")  # fmt: skip
    if not args.no_gif:
        gif = record_gif(ppo, params, result.out_dir / "pong.gif", max_steps=2500, every=2)
        print(f"wrote {gif}")
    return result


if __name__ == "__main__":
    main()
