"""paritygym: verified high-performance RL environments.

    env, params = paritygym.make("Pong-v0")
    venv = paritygym.make_vec("Pong-v0", num_envs=64, seed=0)
"""

from paritygym.xla_flags import apply_default_xla_flags

apply_default_xla_flags()  # before any JAX backend starts: XLA reads XLA_FLAGS once

from paritygym.batching import batched_step  # noqa: E402
from paritygym.registry import EnvSpec, deregister, make, make_vec, register, registered_envs, spec  # noqa: E402
from paritygym import envs as _builtin_envs  # noqa: F401,E402  (registers the built-in ids)

__version__ = "0.1.0"

__all__ = ["EnvSpec", "batched_step", "deregister", "make", "make_vec", "register", "registered_envs", "spec", "__version__"]
