"""Train PPO on HalfCheetah-v0 (float32 JAX engine) for a time budget; writes metrics, a learning
curve and a checkpoint under runs/ppo_halfcheetah/.

    python examples/ppo_halfcheetah.py                 # defaults below
    python examples/ppo_halfcheetah.py --help          # every PPO option

A full run (the defaults: 64 envs x 128 steps, 12-minute budget) on 2 shared CPU cores reached
5.2M steps and a mean training return of 1476 (greedy evaluation about 1540, on this engine and on
MuJoCo C alike: `paritygym verify HalfCheetah-v0 --level 4`).

The policy shipped in cheetahjax/data/ppo_policy.msgpack (used by the parity tests as the
"trained policy") was made with this script: copy checkpoint.msgpack and checkpoint.config.json
there as ppo_policy.msgpack / ppo_policy.config.json.
"""

from __future__ import annotations

from paritygym.train import PPOConfig, evaluate, load_checkpoint, train
from paritygym.train.cli import parse_config

DEFAULTS = PPOConfig(
    env_id="HalfCheetah-v0",
    num_envs=64,
    num_steps=128,
    total_timesteps=20_000_000,
    update_epochs=10,
    num_minibatches=32,
    learning_rate=3e-4,
    ent_coef=0.0,
    gamma=0.99,
    gae_lambda=0.95,
    hidden=64,
    layers=2,
    time_budget_s=12 * 60,
    out_dir="runs/ppo_halfcheetah",
)


def main(argv=None):
    config, args = parse_config(DEFAULTS, __doc__, argv, extra=[
        ("--eval-episodes", dict(type=int, default=16, help="greedy evaluation episodes of the saved policy (0: none)"))])
    result = train(config)
    if result.out_dir is None:
        return result
    if args.eval_episodes < 1:
        return result
    _, params, ppo = load_checkpoint(result.out_dir / "checkpoint.msgpack")
    scores = evaluate(ppo, params, num_episodes=args.eval_episodes, seed=12345, greedy=True)
    print(f"evaluation of the saved policy (greedy) over {len(scores['return'])} episodes: "
          f"mean return {scores['return'].mean():.1f}")
    return result


if __name__ == "__main__":
    main()
