"""Floating-point helpers for bit-exact parity with C references.

XLA's algebraic simplifier rewrites a division by a compile-time constant into a multiplication by
its reciprocal, which is not IEEE division (x / 26 and x * (1 / 26) differ in the last bit for
many x). C compilers without fast-math never do this. Hiding the divisor behind an optimisation
barrier keeps a true division whether the divisor is a literal, a closed-over param or a traced
value.

XLA:CPU also lets LLVM contract a multiplication feeding an addition into one fused multiply-add
(one rounding instead of two), whatever the flags; a C reference built with `-ffp-contract=off`
rounds the product first. `rounded_product` keeps that rounding.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def exact_div(numerator: jax.Array, denominator: jax.Array | float) -> jax.Array:
    """IEEE division ``numerator / denominator``, never turned into a reciprocal multiplication."""
    numerator = jnp.asarray(numerator)
    denominator = jnp.asarray(denominator, dtype=numerator.dtype)
    return numerator / jax.lax.optimization_barrier(denominator)


def rounded_product(a: jax.Array | float, b: jax.Array | float) -> jax.Array:
    """``a * b`` rounded to its dtype before any addition that uses it, as C computes ``x + a * b``
    without FMA contraction. The product passes through ``p - z`` with ``z`` a zero the compilers
    cannot prove constant (``p`` itself where ``p`` is NaN): an FMA the backend still forms there,
    ``fma(a, b, -z)``, rounds exactly ``a * b``, and the caller's addition stays a separate rounding.
    Exact for every input (signed zeros, infinities and NaN pass unchanged)."""
    product = jnp.asarray(a) * jnp.asarray(b)
    return product - jnp.where(product != product, product, jnp.zeros_like(product))
