"""Train PPO on the Game Boy (emurust, Rust) playing the bundled CATCH game: policy in JAX, emulators
stepped in Rust through the numpy vector API (one thread-pool-batched call per step).

    python examples/ppo_gameboy.py                 # RAM observations; --env-kwargs to change
    python examples/ppo_gameboy.py --env-kwargs '{"observation": "screen", "downscale": 4}'

Reward: the game's score change (+1 fruit, +5 coin); the episode ends after 3 lost lives. Writes
metrics, a learning curve and a checkpoint under runs/ppo_gameboy/.
"""

from __future__ import annotations

from paritygym.train import PPOConfig
from paritygym.train.cli import parse_config
from paritygym.train.host import train_host

DEFAULTS = PPOConfig(
    env_id="GameBoy-v0",
    env_kwargs={"observation": "ram", "frame_skip": 4},
    num_envs=64,
    num_steps=128,
    total_timesteps=2_000_000,
    num_minibatches=8,
    ent_coef=0.01,
    hidden=64,
    time_budget_s=15 * 60,
    target_window=64,
    out_dir="runs/ppo_gameboy",
)


def main(argv=None):
    config, _ = parse_config(DEFAULTS, __doc__, argv)
    return train_host(config)


if __name__ == "__main__":
    main()
