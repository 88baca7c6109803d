"""Train PPO on TCGPocketA1-v0 against the random legal opponent, then measure the saved policy's
win rate against the random opponent and against the heuristic bot.

    python examples/ppo_tcg.py                   # defaults below; progress on stdout
    python examples/ppo_tcg.py --help            # every PPO option

The policy is an MLP with masked logits (the env's legal-action mask; paritygym.train does the
masking). Decks are drawn from the 14 shipped decks for each seat and game; the agent's seat is
random. Reward: +1 win, -1 loss, 0 draw or turn limit, so the mean episode return is
(wins - losses) / games. Stops at the time budget or once the rolling win rate over the last 200
games reaches 0.9. Writes metrics, a learning curve and a checkpoint under runs/ppo_tcg/.
"""

from __future__ import annotations

import jax.numpy as jnp

from paritygym.train import PPOConfig, evaluate, load_checkpoint, train
from paritygym.train.cli import parse_config

OPPONENT_RANDOM, OPPONENT_HEURISTIC = 0, 1

DEFAULTS = PPOConfig(
    env_id="TCGPocketA1-v0",
    env_kwargs={"opponent": OPPONENT_RANDOM},
    num_envs=256,
    num_steps=32,
    total_timesteps=50_000_000,
    num_minibatches=8,
    ent_coef=0.01,
    learning_rate=3e-4,
    hidden=128,
    time_budget_s=20 * 60.0,
    target_metric="win",
    target_value=0.9,
    target_window=200,
    out_dir="runs/ppo_tcg",
)


def win(reward, info):
    """1 for the step that ends a game the agent won (the env's only reward +1)."""
    return (reward > 0.5).astype(jnp.float32)


def evaluate_both(ppo, params, games: int, seed: int) -> dict[str, dict]:
    """Per-game metrics (return, length) of the policy over `games` new games against each opponent."""
    out = {}
    base = ppo.env_params
    for name, opponent in (("random", OPPONENT_RANDOM), ("heuristic", OPPONENT_HEURISTIC)):
        ppo.env_params = base.replace(opponent=opponent)
        out[name] = evaluate(ppo, params, num_episodes=games, seed=seed)
    ppo.env_params = base
    return out


def win_rates(evaluation: dict[str, dict]) -> dict[str, float]:
    """Win and loss rates per opponent of `evaluate_both`'s games (+1 win, -1 loss, 0 draw or turn limit)."""
    rates = {}
    for name, scores in evaluation.items():
        rates[name] = float((scores["return"] > 0.5).mean())
        rates[name + "_loss"] = float((scores["return"] < -0.5).mean())
    return rates


def main(argv=None):
    config, args = parse_config(DEFAULTS, __doc__, argv, extra=[("--eval-games", {"type": int, "default": 256})])
    result = train(config, episode_metrics={"win": win})
    if result.out_dir is None:
        return result
    # Reload the checkpoint and evaluate it, so what we report is what was saved.
    _, params, ppo = load_checkpoint(result.out_dir / "checkpoint.msgpack")
    result.evaluation = evaluate_both(ppo, params, args.eval_games, seed=12345)
    rates = win_rates(result.evaluation)
    print(f"evaluation of the saved policy over {args.eval_games} new games per opponent: "
          f"vs random win {rates['random']:.3f} (loss {rates['random_loss']:.3f}), "
          f"vs heuristic win {rates['heuristic']:.3f} (loss {rates['heuristic_loss']:.3f})")
    return result


if __name__ == "__main__":
    main()
