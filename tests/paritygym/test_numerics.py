"""paritygym.numerics: IEEE results that XLA's rewrites would otherwise change (checked against
numpy's float32, which rounds each operation), jitted alone, vmapped and inside a scan."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from paritygym.numerics import exact_div, rounded_product

RNG = np.random.default_rng(0)
X = RNG.uniform(-20, 20, 4096).astype(np.float32)
A = RNG.uniform(-10, 10, 4096).astype(np.float32)
B = RNG.uniform(-1, 1, 4096).astype(np.float32)


def _programs(fn):
    """The same function compiled as XLA sees it in envs: elementwise on a batch, vmapped, in a scan."""
    scanned = jax.jit(lambda *args: jax.lax.scan(lambda c, _: (fn(*args), None), fn(*args), None, length=2)[0])
    return [jax.jit(fn), jax.jit(jax.vmap(fn)), scanned]


def test_sum_with_a_rounded_product_matches_separate_rounding():
    unfused = X + A * B  # numpy: the product is rounded to float32, then the sum
    fused = (X.astype(np.float64) + A.astype(np.float64) * B.astype(np.float64)).astype(np.float32)
    assert (unfused != fused).sum() > 10  # the inputs do tell a fused multiply-add apart
    for program in _programs(lambda x, a, b: x + rounded_product(a, b)):
        np.testing.assert_array_equal(np.asarray(program(X, A, B)), unfused)
    scalar = jax.jit(lambda x, a, b: x + rounded_product(a, b))
    i = int(np.flatnonzero(unfused != fused)[0])
    assert np.asarray(scalar(X[i], A[i], B[i])) == unfused[i]


def test_rounded_product_keeps_special_values():
    a = np.array([-0.0, 0.0, 1.0, np.inf, -np.inf, np.nan, 2.0], np.float32)
    b = np.array([1.0, -1.0, -0.0, 2.0, 3.0, 1.0, np.inf], np.float32)
    got = np.asarray(jax.jit(rounded_product)(a, b))
    np.testing.assert_array_equal(got, a * b)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(a * b))


def test_exact_div_is_true_division_by_a_constant():
    expected = X / np.float32(26.0)
    assert (X * np.float32(1 / 26) != expected).sum() > 10  # a reciprocal multiplication would show
    for program in _programs(lambda x: exact_div(x, 26.0)):
        np.testing.assert_array_equal(np.asarray(program(X)), expected)
    assert jnp.float32(exact_div(jnp.float32(7.0), 26.0)) == np.float32(7.0) / np.float32(26.0)
