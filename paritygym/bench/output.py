"""Benchmark output: a table on screen, JSON, and a log-log PNG of steps/s against batch size."""

from __future__ import annotations

import json
import pathlib

from paritygym.bench.runner import BenchResult


def format_table(result: BenchResult) -> str:
    m = result.machine
    lines = [
        f"{result.env_id} on {m['cpu']} ({m['cpu_count']} cores), JAX {m['jax_version']} {m['jax_backend']} ({m['jax_device']})"
        + (f", {m['step_form']} form of the step" if "step_form" in m else ""),
        f"{'system':<16} {'batch':>7} {'steps/s':>16} {'compile s':>10}",
    ]
    for x in result.measurements:
        compile_s = f"{x.compile_seconds:.2f}" if x.compile_seconds is not None else "-"
        lines.append(f"{x.system:<16} {x.batch:>7} {x.steps_per_second:>16,.0f} {compile_s:>10}")
    for name, ratio in result.ratios().items():
        lines.append(f"ratio {name}: {ratio:,.2f}x")
    return "\n".join(lines)


def write_json(result: BenchResult, path: str | pathlib.Path) -> pathlib.Path:
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return path


def write_plot(result: BenchResult, path: str | pathlib.Path) -> pathlib.Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for system in dict.fromkeys(x.system for x in result.measurements):
        pts = sorted((x.batch, x.steps_per_second) for x in result.measurements if x.system == system)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=system)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch size (envs)")
    ax.set_ylabel("env steps / s")
    ax.set_title(f"{result.env_id} — {result.machine['cpu_count']}-core {result.machine['jax_backend']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
