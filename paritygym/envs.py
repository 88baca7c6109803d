"""The built-in envs. One `register` call per id; entry points are imported only when made."""

from paritygym.registry import register

register(
    "Pong-v0",
    "pongjax.env:Pong",
    reference="C implementation of PufferLib 3.0 Pong rules (pongjax/reference/pong.c), compiled -O3",
    parity="L1-L3 exact (bit-identical float32) vs the C reference; see docs/envs/pong.md",
    docs="docs/envs/pong.md",
    reference_bench="pongjax.reference:bench_reference",
    verify="pongjax.verify:verify",
    render="pongjax.render:render_state",
)
