"""Train PPO (masked categorical MLP policy) on PokemonGen1Random-v0 against the uniformly random
opponent, then report the saved policy's win rate against the random and the max-damage opponent.

    python examples/ppo_pokemon.py                       # defaults below; progress on stdout
    python examples/ppo_pokemon.py --total-timesteps 4096 --num-envs 16 --num-steps 64   # smoke run
    python examples/ppo_pokemon.py --help                # every PPO option
    python examples/ppo_pokemon.py --env-id PokemonGen9Random-v0   # Gen 9 (restricted battles, in progress)

Every battle is a fresh pair of Showdown gen1randombattle teams; the agent plays a random side.
Stops at the target win rate over the last 200 battles or at the time budget. Writes metrics, a
learning curve and a checkpoint under runs/ppo_pokemon/.
"""

from __future__ import annotations

import jax.numpy as jnp

from paritygym.train import PPOConfig, evaluate, load_checkpoint, train
from paritygym.train.cli import parse_config
from paritygym.twoplayer import OPPONENT_HEURISTIC, OPPONENT_RANDOM

DEFAULTS = PPOConfig(
    env_id="PokemonGen1Random-v0",
    env_kwargs={"opponent": OPPONENT_RANDOM},
    num_envs=256,
    num_steps=64,
    total_timesteps=50_000_000,
    num_minibatches=8,
    ent_coef=0.01,
    learning_rate=3e-4,
    hidden=256,
    time_budget_s=60 * 60,
    target_metric="win",
    target_value=0.95,
    target_window=200,
    out_dir="runs/ppo_pokemon",
)


def win(reward, info):
    """1 for the step that ends a battle the agent won (the only +1 reward), else 0."""
    return (reward > 0).astype(jnp.float32)


def main(argv=None):
    config, args = parse_config(DEFAULTS, __doc__, argv, extra=[("--eval-battles", {"type": int, "default": 256})])
    result = train(config, episode_metrics={"win": win})
    if result.out_dir is None:
        return result
    # Reload the checkpoint and evaluate it, so what we report is what was saved.
    _, params, ppo = load_checkpoint(result.out_dir / "checkpoint.msgpack")
    ppo.metrics["win"] = win
    opponents = [("random", OPPONENT_RANDOM), ("max-damage", OPPONENT_HEURISTIC)]
    for name, opponent in opponents:
        ppo.env_params = ppo.env_params.replace(opponent=opponent)
        scores = evaluate(ppo, params, num_episodes=args.eval_battles, seed=12345)
        result.evaluation[name] = scores
        print(f"saved policy vs the {name} opponent: win rate {scores['win'].mean():.3f} "
              f"over {len(scores['win'])} battles, mean length {scores['length'].mean():.1f} steps")
    return result


if __name__ == "__main__":
    main()
