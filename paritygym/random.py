"""Cheap random words from a JAX key, for envs that need only a few random bits per step.

Deriving bits with `jax.random.bits` runs a Threefry block per call; under `vmap` over thousands
of envs that can cost more than a simple game's whole step. A key handed to `step` is normally a
fresh output of `jax.random.split`, whose words are already uniformly random; mixing them with an
integer hash (murmur3's finaliser) gives well-spread bits even for structured keys such as
`jax.random.key(t)` for consecutive `t`, at the cost of a handful of integer operations.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def _fmix32(h: jax.Array) -> jax.Array:
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def key_word(key: jax.Array) -> jax.Array:
    """A uint32 random word derived from ``key`` (typed or raw uint32 key) without a Threefry call."""
    data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
    words = jnp.asarray(data, jnp.uint32).reshape(-1)
    h = jnp.uint32(0x9E3779B9)
    for i in range(words.shape[0]):
        h = _fmix32(h ^ words[i])
    return h


def batch_words(key: jax.Array, batch: int) -> jax.Array:
    """uint32[batch, 2] of well-mixed words, one pair per env, hashed from ``key`` and the env index."""
    data = jax.random.key_data(key) if jnp.issubdtype(key.dtype, jax.dtypes.prng_key) else key
    words = jnp.asarray(data, jnp.uint32).reshape(-1)
    index = jnp.arange(batch, dtype=jnp.uint32)
    w0 = _fmix32(words[0] ^ _fmix32(index * jnp.uint32(0x9E3779B9) + jnp.uint32(0x7F4A7C15)))
    w1 = _fmix32(words[-1] ^ w0 ^ (index * jnp.uint32(0x85EBCA6B)))
    return jnp.stack([w0, w1], axis=-1)


def batch_keys(key: jax.Array, batch: int) -> jax.Array:
    """``batch`` distinct keys from one key by integer hashing, without a Threefry call per env.

    A stand-in for ``jax.random.split(key, batch)`` where the split itself would dominate the cost
    (simple games stepped by the thousand): the keys are valid keys of the default implementation
    (two uint32 words), so anything may still draw from them with ``jax.random``.
    """
    return jax.random.wrap_key_data(batch_words(key, batch))


def uniform_legal_actions(words: jax.Array, mask: jax.Array) -> jax.Array:
    """For each row of ``mask`` (bool[B, A], or one env's bool[A]), a uniformly random legal action:
    the k-th True column, k = ``words`` (uint32[B], or one word; random) mod the row's number of legal
    actions (bias below A / 2^32). A row without a legal action draws from all A actions. Not
    ``jax.random.categorical``: its Gumbel value per action is a Threefry hash each, which XLA:CPU
    runs as a loop of small kernels (1.5-1.9 ms per call at [1024, 58] against ~0.4 ms for this,
    about 8% of a TCG env call)."""
    usable = jnp.where(mask.any(axis=-1, keepdims=True), mask, True)
    count = usable.sum(axis=-1, dtype=jnp.uint32)
    k = (words % count).astype(jnp.float32)
    # legal actions up to and including each column, as one small matmul (a cumsum along a short
    # axis becomes a slower reduce-window on XLA:CPU); exact in float32 for A < 2^24
    num_actions = mask.shape[-1]
    rank = usable.astype(jnp.float32) @ jnp.triu(jnp.ones((num_actions, num_actions), jnp.float32))
    return jnp.argmax(rank > k[..., None], axis=-1).astype(jnp.int32)
