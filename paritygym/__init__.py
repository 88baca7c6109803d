"""paritygym: verified high-performance RL environments.

    env, params = paritygym.make("Pong-v0")
    venv = paritygym.make_vec("Pong-v0", num_envs=64, seed=0)
"""

from paritygym.batching import batched_step
from paritygym.memory import keep_freed_memory
from paritygym.registry import EnvSpec, deregister, make, make_vec, options, register, registered_envs, spec
from paritygym import envs as _builtin_envs  # noqa: F401  (registers the built-in ids)



def _version() -> str:
    """The installed distribution's version (pyproject.toml's ``version``, the single source); in a
    source tree that is not installed, read from its pyproject.toml; else ``0+unknown``."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("paritygym")
    except PackageNotFoundError:
        import pathlib
        import tomllib

        pyproject = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            project = tomllib.loads(pyproject.read_text())["project"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "0+unknown"
        return str(project["version"]) if project.get("name") == "paritygym" else "0+unknown"


__version__ = _version()

__all__ = ["EnvSpec", "batched_step", "deregister", "keep_freed_memory", "make", "make_vec", "options", "register", "registered_envs", "spec", "__version__"]
