"""Command-line arguments for `PPOConfig` (used by the examples): every field becomes `--field`."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any, Sequence

from paritygym.train.ppo import PPOConfig


def _type_of(field: dataclasses.Field, default: Any):
    if field.name == "env_kwargs":
        return json.loads
    if default is None or "None" in str(field.type):  # an optional field: "none" unsets it
        number = "float" in str(field.type)
        return lambda text: None if text.lower() == "none" else (float(text) if number else text)
    if isinstance(default, bool):
        return lambda text: text.lower() in ("1", "true", "yes", "on")
    if isinstance(default, int):
        return int
    if isinstance(default, float):
        return float
    return str


def config_parser(defaults: PPOConfig, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    for field in dataclasses.fields(PPOConfig):
        default = getattr(defaults, field.name)
        shown = json.dumps(default) if field.name == "env_kwargs" else default
        parser.add_argument(f"--{field.name.replace('_', '-')}", dest=field.name, type=_type_of(field, default),
                            default=default, help=f"(default: {shown})")  # fmt: skip
    return parser


def parse_config(defaults: PPOConfig, description: str, argv: Sequence[str] | None = None,
                 extra: Sequence[tuple[str, dict]] = ()) -> tuple[PPOConfig, argparse.Namespace]:
    parser = config_parser(defaults, description)
    for flag, kwargs in extra:
        parser.add_argument(flag, **kwargs)
    args = parser.parse_args(argv)
    from paritygym.cache import enable_compilation_cache

    enable_compilation_cache()  # a rerun of the same example loads its compiled programs
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    names = {f.name for f in dataclasses.fields(PPOConfig)}
    config = PPOConfig(**{k: v for k, v in vars(args).items() if k in names})
    return config, args
