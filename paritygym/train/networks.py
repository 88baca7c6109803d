"""Actor-critic networks for PPO: an MLP and a GRU, for discrete (optionally masked) and continuous
action spaces."""

from __future__ import annotations

from typing import Sequence

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np


def _dense(features: int, scale: float = np.sqrt(2)) -> nn.Dense:
    return nn.Dense(features, kernel_init=nn.initializers.orthogonal(scale), bias_init=nn.initializers.zeros)


class PolicyHead(nn.Module):
    """Logits (discrete) or Gaussian mean and log-std (continuous), and the value."""

    action_dim: int
    continuous: bool

    @nn.compact
    def __call__(self, actor_features: jax.Array, critic_features: jax.Array):
        if self.continuous:
            mean = _dense(self.action_dim, 0.01)(actor_features)
            log_std = self.param("log_std", nn.initializers.zeros, (self.action_dim,))
            dist = (mean, jnp.broadcast_to(log_std, mean.shape))
        else:
            dist = _dense(self.action_dim, 0.01)(actor_features)
        value = _dense(1, 1.0)(critic_features)[..., 0]
        return dist, value


class MLPActorCritic(nn.Module):
    """Separate actor and critic MLPs (tanh), orthogonal initialisation as in PPO's reference setup."""

    action_dim: int
    continuous: bool = False
    hidden: Sequence[int] = (64, 64)

    @nn.compact
    def __call__(self, obs: jax.Array):
        actor, critic = obs, obs
        for width in self.hidden:
            actor = nn.tanh(_dense(width)(actor))
            critic = nn.tanh(_dense(width)(critic))
        return PolicyHead(self.action_dim, self.continuous)(actor, critic)


class GRUActorCritic(nn.Module):
    """An embedding, a GRU over time (reset where an episode started), then actor and critic heads.

    Called on sequences: ``obs`` [T, B, obs_dim], ``starts`` [T, B] (True on an episode's first
    step), ``carry`` [B, hidden]; returns the new carry and per-step outputs.
    """

    action_dim: int
    continuous: bool = False
    hidden: int = 128

    @nn.compact
    def __call__(self, carry: jax.Array, obs: jax.Array, starts: jax.Array):
        embedding = nn.relu(_dense(self.hidden)(obs))
        cell = nn.GRUCell(features=self.hidden)

        def step(cell, carry, inputs):
            x, start = inputs
            carry = jnp.where(start[:, None], jnp.zeros_like(carry), carry)
            carry, y = cell(carry, x)
            return carry, y

        scan = nn.scan(step, variable_broadcast="params", split_rngs={"params": False})
        carry, features = scan(cell, carry, (embedding, starts))
        actor = nn.tanh(_dense(self.hidden)(features))
        critic = nn.tanh(_dense(self.hidden)(features))
        dist, value = PolicyHead(self.action_dim, self.continuous)(actor, critic)
        return carry, dist, value

    def initial_carry(self, batch: int) -> jax.Array:
        return jnp.zeros((batch, self.hidden), jnp.float32)


def sample_action(key: jax.Array, dist, continuous: bool, mask: jax.Array | None = None):
    """Samples actions and returns (action, log_prob)."""
    if continuous:
        mean, log_std = dist
        action = mean + jnp.exp(log_std) * jax.random.normal(key, mean.shape)
        return action, gaussian_log_prob(mean, log_std, action)
    logits = masked_logits(dist, mask)
    action = jax.random.categorical(key, logits)
    return action, categorical_log_prob(logits, action)


def masked_logits(logits: jax.Array, mask: jax.Array | None) -> jax.Array:
    if mask is None:
        return logits
    return jnp.where(mask, logits, jnp.finfo(logits.dtype).min)


def categorical_log_prob(logits: jax.Array, action: jax.Array) -> jax.Array:
    log_p = jax.nn.log_softmax(logits)
    return jnp.take_along_axis(log_p, action[..., None].astype(jnp.int32), axis=-1)[..., 0]


def categorical_entropy(logits: jax.Array) -> jax.Array:
    log_p = jax.nn.log_softmax(logits)
    p = jnp.exp(log_p)
    return -jnp.sum(jnp.where(p > 0, p * log_p, 0.0), axis=-1)


def gaussian_log_prob(mean: jax.Array, log_std: jax.Array, action: jax.Array) -> jax.Array:
    z = (action - mean) * jnp.exp(-log_std)
    return jnp.sum(-0.5 * z**2 - log_std - 0.5 * jnp.log(2 * jnp.pi), axis=-1)


def gaussian_entropy(log_std: jax.Array) -> jax.Array:
    return jnp.sum(log_std + 0.5 * jnp.log(2 * jnp.pi * jnp.e), axis=-1)


def log_prob_and_entropy(dist, action: jax.Array, continuous: bool, mask: jax.Array | None = None):
    if continuous:
        mean, log_std = dist
        return gaussian_log_prob(mean, log_std, action), gaussian_entropy(log_std)
    logits = masked_logits(dist, mask)
    return categorical_log_prob(logits, action), categorical_entropy(logits)


def greedy_action(dist, continuous: bool, mask: jax.Array | None = None) -> jax.Array:
    if continuous:
        return dist[0]
    return jnp.argmax(masked_logits(dist, mask), axis=-1)
