"""PPO training for paritygym envs (the shared trainer the examples use)."""

from paritygym.train.ppo import PPO, PPOConfig, TrainResult, evaluate, load_checkpoint, save_checkpoint, train

__all__ = ["PPO", "PPOConfig", "TrainResult", "evaluate", "load_checkpoint", "save_checkpoint", "train"]
