"""Floating-point helpers for bit-exact parity with C references.

XLA's algebraic simplifier rewrites a division by a compile-time constant into a multiplication by
its reciprocal, which is not IEEE division (x / 26 and x * (1 / 26) differ in the last bit for
many x). C compilers without fast-math never do this. Hiding the divisor behind an optimisation
barrier keeps a true division whether the divisor is a literal, a closed-over param or a traced
value.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def exact_div(numerator: jax.Array, denominator: jax.Array | float) -> jax.Array:
    """IEEE division ``numerator / denominator``, never turned into a reciprocal multiplication."""
    numerator = jnp.asarray(numerator)
    denominator = jnp.asarray(denominator, dtype=numerator.dtype)
    return numerator / jax.lax.optimization_barrier(denominator)
