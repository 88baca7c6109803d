"""paritygym: verified high-performance RL environments.

    env, params = paritygym.make("Pong-v0")
    venv = paritygym.make_vec("Pong-v0", num_envs=64, seed=0)
"""

from paritygym.batching import batched_step
from paritygym.memory import keep_freed_memory
from paritygym.registry import EnvSpec, deregister, make, make_vec, options, register, registered_envs, spec
from paritygym import envs as _builtin_envs  # noqa: F401  (registers the built-in ids)

__version__ = "0.1.0"

__all__ = ["EnvSpec", "batched_step", "deregister", "keep_freed_memory", "make", "make_vec", "options", "register", "registered_envs", "spec", "__version__"]
