"""pongjax"""

# paritygym applies its XLA defaults (paritygym/xla_flags.py) on import, before JAX starts a backend.
import paritygym as _paritygym  # noqa: F401
