"""Showdown's Gen 5 PRNG (a 64-bit linear congruential generator) in JAX, without x64 mode.

State ``S`` (uint64) is held as two uint32 words ``[hi, lo]``; Showdown's seed ``"a,b,c,d"``
(four 16-bit words, ``a`` most significant) is ``hi = a·2^16 + b``, ``lo = c·2^16 + d``.
``next``: ``S ← (0x5D588B656C078965·S + 0x269EC3) mod 2^64``, output ``S >> 32``.

Derived draws reduce with a multiply-shift, never a modulo, exactly as Showdown does:
``random(n) = floor(u·n / 2^32)``, ``random(m, n) = m + floor(u·(n−m) / 2^32)``,
``random_chance(k, d) = random(d) < k``.  Every function takes an optional ``when`` mask:
when it is false the state does not advance (the draw "did not happen"), so that masked,
branch-free battle code makes exactly Showdown's sequence of calls.
"""

from __future__ import annotations

from typing import Sequence

import jax.numpy as jnp
import numpy as np

_MUL_HI = np.uint32(0x5D588B65)
_MUL_LO = np.uint32(0x6C078965)
_INC = np.uint32(0x00269EC3)
_MASK16 = np.uint32(0xFFFF)


def _mul_hi_lo(x: jnp.ndarray, y: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Full 32×32→64-bit product of uint32 arrays, as (high word, low word)."""
    x = jnp.asarray(x, jnp.uint32)
    y = jnp.asarray(y, jnp.uint32)
    x0, x1 = x & _MASK16, x >> 16
    y0, y1 = y & _MASK16, y >> 16
    low_low = x0 * y0
    mid1 = x1 * y0 + (low_low >> 16)
    mid2 = x0 * y1 + (mid1 & _MASK16)
    high = x1 * y1 + (mid1 >> 16) + (mid2 >> 16)
    return high, x * y


def advance_words(hi: jnp.ndarray, lo: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    """One LCG step on a state held as two uint32 arrays (hi, lo); the output is the new ``hi``.
    Batched code keeps the two words apart: an interleaved ``[B, 2]`` state ran ~3x slower on
    XLA:CPU (``python -m benchmarks.pokemon_shape_probe``)."""
    prod_hi, prod_lo = _mul_hi_lo(lo, _MUL_LO)
    new_lo = prod_lo + _INC
    carry = (new_lo < prod_lo).astype(jnp.uint32)
    return prod_hi + lo * _MUL_HI + hi * _MUL_LO + carry, new_lo


def advance(state: jnp.ndarray) -> jnp.ndarray:
    """One LCG step on a ``uint32[..., 2]`` state ``[hi, lo]``."""
    return jnp.stack(advance_words(state[..., 0], state[..., 1]), axis=-1)


def _maybe_advance(state: jnp.ndarray, when) -> tuple[jnp.ndarray, jnp.ndarray]:
    nxt = advance(state)
    if when is None:
        return nxt, nxt[..., 0]
    when = jnp.asarray(when, bool)
    return jnp.where(when[..., None], nxt, state), nxt[..., 0]


def next_u32(state: jnp.ndarray, when=None) -> tuple[jnp.ndarray, jnp.ndarray]:
    """Showdown's ``rng.next()``: (new state, uint32 output)."""
    return _maybe_advance(state, when)


def random_int(state: jnp.ndarray, n, when=None) -> tuple[jnp.ndarray, jnp.ndarray]:
    """``random(n)``: integer in [0, n) (n < 2^16). Returns (new state, int32 value)."""
    state, u = _maybe_advance(state, when)
    high, _ = _mul_hi_lo(u, jnp.asarray(n, jnp.uint32))
    return state, high.astype(jnp.int32)


def random_range(state: jnp.ndarray, low, high, when=None) -> tuple[jnp.ndarray, jnp.ndarray]:
    """``random(m, n)``: integer in [m, n) (n > m)."""
    low = jnp.asarray(low, jnp.int32)
    state, value = random_int(state, jnp.asarray(high, jnp.int32) - low, when)
    return state, value + low


def random_chance(state: jnp.ndarray, numerator, denominator, when=None) -> tuple[jnp.ndarray, jnp.ndarray]:
    """``randomChance(k, d)`` = ``random(d) < k`` (always one draw, whatever k is)."""
    state, value = random_int(state, denominator, when)
    return state, value < jnp.asarray(numerator, jnp.int32)


def seed_from_words(words: Sequence[int]) -> jnp.ndarray:
    """Showdown seed ``[a, b, c, d]`` (each 0…65535) -> uint32[2] state."""
    a, b, c, d = (int(w) for w in words)
    for w in (a, b, c, d):
        if not 0 <= w <= 0xFFFF:
            raise ValueError(f"Showdown seed words must be 0..65535, got {list(words)}")
    return jnp.array([(a << 16) | b, (c << 16) | d], dtype=jnp.uint32)


def seed_from_showdown(seed: str | Sequence[int]) -> jnp.ndarray:
    """Accepts ``"a,b,c,d"``, ``"gen5,<16 hex>"`` or a 4-sequence."""
    if isinstance(seed, str):
        if seed.startswith("gen5,"):
            hexpart = seed[5:]
            if len(hexpart) != 16:
                raise ValueError(f"bad gen5 seed {seed!r}")
            return seed_from_words([int(hexpart[i:i + 4], 16) for i in range(0, 16, 4)])
        return seed_from_words([int(x) for x in seed.split(",")])
    return seed_from_words(seed)


def to_showdown(state) -> str:
    """uint32[2] state -> Showdown's ``getSeed()`` string ``"a,b,c,d"``."""
    hi, lo = (int(x) for x in np.asarray(state).reshape(2))
    return f"{hi >> 16},{hi & 0xFFFF},{lo >> 16},{lo & 0xFFFF}"


def seed_from_key(key) -> jnp.ndarray:
    """A Showdown-compatible generator state drawn from a JAX PRNG key (for training resets)."""
    import jax
    return jax.random.bits(key, (2,), jnp.uint32)


# ---------------------------------------------------------------------------------------------
# Draw pools: the next K outputs computed at once by jump-ahead, so that a draw inside the
# battle code is a table lookup instead of a 64-bit multiply chain.
_MOD = 1 << 64
_A = 0x5D588B656C078965
_C = 0x00269EC3


def _jump_constants(k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """(A_k, C_k) as uint32 [k_max+1, 2] (hi, lo) with S_k = A_k·S + C_k (mod 2^64)."""
    a_k, c_k = 1, 0
    out_a, out_c = [], []
    for _ in range(k_max + 1):
        out_a.append([a_k >> 32, a_k & 0xFFFFFFFF])
        out_c.append([c_k >> 32, c_k & 0xFFFFFFFF])
        a_k, c_k = (_A * a_k) % _MOD, (_A * c_k + _C) % _MOD
    return np.asarray(out_a, np.uint32), np.asarray(out_c, np.uint32)


def _mul_add64_words(a_hi, a_lo, s_hi, s_lo, c_hi, c_lo):
    """(a·s + c) mod 2^64 on separate hi and lo uint32 words: ``(hi, lo)``."""
    prod_hi, prod_lo = _mul_hi_lo(a_lo, s_lo)
    lo = prod_lo + c_lo
    carry = (lo < prod_lo).astype(jnp.uint32)
    return prod_hi + a_lo * s_hi + a_hi * s_lo + c_hi + carry, lo


def _mul_add64(a, s, c):
    """(a·s + c) mod 2^64 on [..., 2] (hi, lo) uint32 words."""
    hi, lo = _mul_add64_words(a[..., 0], a[..., 1], s[..., 0], s[..., 1], c[..., 0], c[..., 1])
    return jnp.stack([hi, lo], axis=-1)


POOL_SIZE = 96
_JUMP_A, _JUMP_C = _jump_constants(POOL_SIZE)


def pool(state: jnp.ndarray, size: int = POOL_SIZE) -> jnp.ndarray:
    """The next ``size`` outputs of the generator (uint32[size])."""
    states = _mul_add64(jnp.asarray(_JUMP_A[1:size + 1]), state[None, :], jnp.asarray(_JUMP_C[1:size + 1]))
    return states[:, 0]


def advance_by(state: jnp.ndarray, count) -> jnp.ndarray:
    """The state after ``count`` draws (0 <= count <= POOL_SIZE)."""
    count = jnp.clip(jnp.asarray(count, jnp.int32), 0, POOL_SIZE)
    return _mul_add64(jnp.asarray(_JUMP_A)[count], state, jnp.asarray(_JUMP_C)[count])


def jump_words(state: jnp.ndarray, count: int) -> tuple[jnp.ndarray, jnp.ndarray]:
    """The states after 1, 2, ..., ``count`` draws (``count`` <= POOL_SIZE), one jump each, as two
    ``uint32[..., count]`` arrays: their hi words (draw ``k``'s output is ``hi[..., k - 1]``; ``random(n)``
    of it: ``scale``) and lo words. Two arrays, not a trailing axis of 2, which an accelerator pads to a
    whole vector register (128 lanes on a TPU: 64 times the bytes, and a relayout copy into and out of
    every fusion that reads it)."""
    if not 0 < count <= POOL_SIZE:
        raise ValueError(f"count must be 1..{POOL_SIZE}, got {count}")
    a, c = jnp.asarray(_JUMP_A[1:count + 1]), jnp.asarray(_JUMP_C[1:count + 1])
    return _mul_add64_words(a[:, 0], a[:, 1], state[..., 0:1], state[..., 1:2], c[:, 0], c[:, 1])


def skip(state: jnp.ndarray, count, max_count: int) -> jnp.ndarray:
    """The ``uint32[..., 2]`` state after ``count`` draws (int ``[...]``, 0 <= count <= ``max_count``, a
    static bound < 128): one masked jump by 2**j per bit of the bound, no gather. Batched code whose
    draws are only counted (their values unread) advances the state once through this instead of one
    masked 64-bit step per draw; bit-identical to ``count`` calls of ``advance``."""
    if not 0 <= max_count < 128:
        raise ValueError(f"max_count must be 0..127, got {max_count}")
    count = jnp.asarray(count, jnp.int32)
    for j in range(int(max_count).bit_length()):
        jumped = _mul_add64(jnp.asarray(_JUMP_A[1 << j]), state, jnp.asarray(_JUMP_C[1 << j]))
        state = jnp.where((((count >> j) & 1) == 1)[..., None], jumped, state)
    return state


def scale(u: jnp.ndarray, n) -> jnp.ndarray:
    """floor(u·n / 2^32) for a uint32 output u and 0 <= n < 2^16 (Showdown's multiply-shift)."""
    n = jnp.asarray(n, jnp.uint32)
    u = jnp.asarray(u, jnp.uint32)
    return (((u >> 16) * n + (((u & _MASK16) * n) >> 16)) >> 16).astype(jnp.int32)
