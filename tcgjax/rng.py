"""The explicit random stream of a game (RNG-1..3), in plain Python and in JAX.

Value i of the stream of a game with seed s is ``stream_value(s, i)``: a 32-bit hash of (s, i), so
the engines need no generator state besides a counter, and the JAX engine can compute any value
without a sequential dependency. Both implementations use the same arithmetic mod 2**32.

The mixer is the "lowbias32" integer hash (an xorshift-multiply finaliser with published
constants); the seed is mixed once, then offset by a Weyl sequence of the index.
"""

from __future__ import annotations

import jax.numpy as jnp

MASK32 = 0xFFFFFFFF
_MUL1 = 0x7FEB352D
_MUL2 = 0x846CA68B
_WEYL = 0x9E3779B9


def mix32(x: int) -> int:
    x &= MASK32
    x ^= x >> 16
    x = (x * _MUL1) & MASK32
    x ^= x >> 15
    x = (x * _MUL2) & MASK32
    x ^= x >> 16
    return x


def stream_value(seed: int, index: int) -> int:
    """Value `index` of the stream of game `seed` (both taken mod 2**32)."""
    return mix32((mix32(seed) + ((index + 1) * _WEYL)) & MASK32)


class RandomStream:
    """A game's stream with its read position. Every random event in the reference engine goes
    through one of these methods; the JAX engine mirrors each one (tcgjax.game.rng)."""

    def __init__(self, seed: int, counter: int = 0) -> None:
        self.seed = seed & MASK32
        self.counter = counter

    def next_value(self) -> int:
        value = stream_value(self.seed, self.counter)
        self.counter += 1
        return value

    def coin(self) -> bool:
        """RNG-2: heads when the value is odd."""
        return self.next_value() % 2 == 1

    def pick(self, n: int) -> int:
        """RNG-2: a uniform choice among n >= 1 options."""
        if n < 1:
            raise ValueError("pick needs at least one option")
        return self.next_value() % n

    def flip_until_tails(self) -> int:
        """Number of heads before the first tails (RNG-5, no cap)."""
        heads = 0
        while self.coin():
            heads += 1
        return heads

    def shuffle(self, items: list) -> None:
        """RNG-3: Fisher-Yates in place, last position down to 1, one value per position."""
        for i in range(len(items) - 1, 0, -1):
            j = self.pick(i + 1)
            items[i], items[j] = items[j], items[i]


# --- JAX versions (uint32 arithmetic wraps mod 2**32) -------------------------------------------

def mix32_jax(x):
    x = jnp.asarray(x, jnp.uint32)
    x = x ^ (x >> 16)
    x = x * jnp.uint32(_MUL1)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(_MUL2)
    x = x ^ (x >> 16)
    return x


def stream_value_jax(seed, index):
    """Same as stream_value for uint32/int32 arrays (broadcasting)."""
    index = jnp.asarray(index).astype(jnp.uint32)
    return mix32_jax(mix32_jax(seed) + (index + jnp.uint32(1)) * jnp.uint32(_WEYL))
