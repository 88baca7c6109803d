"""A description of the machine a benchmark ran on, stored with every result."""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine_info() -> dict[str, str | int]:
    import jax

    from paritygym.backend import step_form

    dev = jax.devices()[0]
    return {
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count() or 1,
        "jax_backend": jax.default_backend(),
        "jax_device": getattr(dev, "device_kind", str(dev)),
        "jax_device_count": jax.device_count(),
        "jax_version": jax.__version__,
        "step_form": step_form(),   # which form the game engines' steps are traced in (paritygym.backend)
        "python": platform.python_version(),
    }
