"""PPO training for paritygym envs (the shared trainer the examples use)."""

from paritygym.train.learner import PPOConfig, TrainResult, save_checkpoint
from paritygym.train.ppo import PPO, evaluate, load_checkpoint, train

__all__ = ["PPO", "PPOConfig", "TrainResult", "evaluate", "load_checkpoint", "save_checkpoint", "train"]
