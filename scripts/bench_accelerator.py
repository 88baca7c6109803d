"""Bench every JAX env on the accelerator this process sees (or the CPU): a batch sweep per env and
mode, doubling the batch until it no longer fits, its compile takes too long or the time budget is
spent; compile time, run time and the program's device memory beside each figure. Writes a
Markdown table and a JSON file.

    python scripts/bench_accelerator.py                       # every JAX env, default sweeps
    python scripts/bench_accelerator.py --envs Pong-v0 --modes scan --max-batch 4194304
    scripts/bench_accelerator.sh                              # the same, after the TPU machine's setup

Each figure is env steps per second of the whole batch (agent steps for the two-player games, with
the built-in opponent), the observation read, as `paritygym bench` measures it: random legal
actions from one key, the batched step, every observation summed into the output. "memory" is the
compiled program's own device memory (arguments, outputs and temporaries, from XLA's memory
analysis); "peak" the device's peak in use so far, where the backend reports it.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
from typing import Any

import jax
import jax.numpy as jnp

# Where each env's sweep starts and stops by default (batch), and its scan length: the simple envs
# grow to millions of envs; the game engines compile for minutes at large batches.
DEFAULT_SWEEPS: dict[str, dict[str, Any]] = {
    "Pong-v0": {"start": 65_536, "stop": 4_194_304, "scan": 128},
    "HalfCheetah-v0": {"start": 4_096, "stop": 262_144, "scan": 16},
    "Climb-v0": {"start": 4_096, "stop": 262_144, "scan": 16},
    "PokemonGen1Random-v0": {"start": 4_096, "stop": 65_536, "scan": 8},
    "TCGPocketA1-v0": {"start": 4_096, "stop": 65_536, "scan": 8},
    "PokemonGen9Random-v0": {"start": 4_096, "stop": 65_536, "scan": 8},
}


def _log(message: str) -> None:
    print(message, flush=True)


def _program_bytes(compiled) -> int | None:
    try:
        stats = compiled.memory_analysis()
        return int(stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes
                   - stats.alias_size_in_bytes)
    except Exception:   # not every backend reports it
        return None


def _device_peak() -> int | None:
    stats = jax.devices()[0].memory_stats() or {}
    return stats.get("peak_bytes_in_use")


def measure(env_id: str, batch: int, mode: str, scan_length: int, min_seconds: float) -> dict[str, Any]:
    """One figure: compile, one warm-up call, then calls until ``min_seconds`` have passed."""
    from paritygym.bench.runner import jax_programs
    from paritygym.registry import make

    env, params = make(env_id)
    reset, loop_step, scan_steps = jax_programs(env, params, batch, scan_length)
    key = jax.random.key(0)
    states = jax.block_until_ready(reset(key))
    fn = loop_step if mode == "loop" else scan_steps
    start = time.perf_counter()
    compiled = fn.lower(key, jnp.int32(0), states).compile()
    compile_s = time.perf_counter() - start
    states, out = compiled(key, jnp.int32(0), states)
    jax.block_until_ready(out)
    calls, start = 0, time.perf_counter()
    while True:
        states, out = compiled(key, jnp.int32(calls + 1), states)
        calls += 1
        jax.block_until_ready(out)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            break
    steps = calls * batch * (1 if mode == "loop" else scan_length)
    return {"env": env_id, "mode": mode, "batch": batch, "steps_per_second": steps / elapsed,
            "compile_seconds": compile_s, "run_seconds": elapsed, "calls": calls,
            "program_bytes": _program_bytes(compiled), "device_peak_bytes": _device_peak()}


def sweep(env_id: str, mode: str, start: int, stop: int, scan_length: int, min_seconds: float,
          max_compile_s: float, deadline: float, factor: int = 2, done=None) -> list[dict[str, Any]]:
    """The figures of one env and mode, the batch multiplied by ``factor`` each time; ``done(row)``
    after each one (the run writes its table as it goes: a command cut short keeps what it measured)."""
    rows, batch = [], start
    while batch <= stop and time.perf_counter() < deadline:
        try:
            row = measure(env_id, batch, mode, scan_length, min_seconds)
        except Exception as error:   # out of device memory, or a compile the backend refuses
            _log(f"  {env_id} {mode} batch {batch:,}: stopped ({type(error).__name__}: {str(error)[:160]})")
            break
        rows.append(row)
        if done is not None:
            done(row)
        _log(f"  {env_id:<22} {mode:<4} batch {batch:>9,}: {row['steps_per_second']:>16,.0f} steps/s  "
             f"compile {row['compile_seconds']:6.1f} s  program {_mib(row['program_bytes'])}")
        if row["compile_seconds"] > max_compile_s:
            _log(f"  (compile over {max_compile_s:.0f} s: no larger batch)")
            break
        batch *= factor
    return rows


def _mib(value: int | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.0f} MiB"


def table(rows: list[dict[str, Any]], device: str) -> str:
    lines = [f"Device: {device}", "",
             "| env | mode | batch | env steps/s | compile (s) | program memory | device peak |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['env']} | {r['mode']} | {r['batch']:,} | {r['steps_per_second']:,.0f} | "
                     f"{r['compile_seconds']:.1f} | {_mib(r['program_bytes'])} | {_mib(r['device_peak_bytes'])} |")
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for r in rows:
        key = (r["env"], r["mode"])
        if key not in best or r["steps_per_second"] > best[key]["steps_per_second"]:
            best[key] = r
    lines += ["", "Best per env and mode:", ""]
    lines += [f"- {env} {mode}: {r['steps_per_second']:,.0f} steps/s at batch {r['batch']:,}"
              for (env, mode), r in best.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", default=",".join(DEFAULT_SWEEPS), help="comma-separated env ids")
    parser.add_argument("--modes", default="loop,scan")
    parser.add_argument("--start", type=int, default=None, help="first batch (default: per env)")
    parser.add_argument("--max-batch", type=int, default=None, help="largest batch (default: per env)")
    parser.add_argument("--factor", type=int, default=2, help="the batch is multiplied by this from one figure to the next")
    parser.add_argument("--min-seconds", type=float, default=2.0, help="timed run per figure")
    parser.add_argument("--max-compile-s", type=float, default=150.0, help="no larger batch after a compile this long")
    parser.add_argument("--budget-s", type=float, default=None, help="wall-time budget for the whole run")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/bench_accelerator"))
    args = parser.parse_args(argv)
    if not args.min_seconds > 0 or (args.budget_s is not None and not args.budget_s > 0):
        parser.error("--min-seconds and --budget-s must be positive numbers")
    if args.factor < 2:
        parser.error("--factor must be at least 2")

    from paritygym.registry import spec

    device = f"{jax.devices()[0].device_kind} ({jax.default_backend()}, JAX {jax.__version__})"
    _log(f"bench_accelerator on {device}; writing to {args.out}")
    deadline = time.perf_counter() + (args.budget_s or float("inf"))
    rows: list[dict[str, Any]] = []
    args.out.mkdir(parents=True, exist_ok=True)

    def write(row: dict[str, Any] | None = None) -> str:
        if row is not None:
            rows.append(row)
        (args.out / "results.json").write_text(json.dumps({"device": device, "rows": rows}, indent=1))
        text = table(rows, device)
        (args.out / "table.md").write_text(text)
        return text

    for env_id in [e for e in args.envs.split(",") if e]:
        if spec(env_id).kind == "native":
            _log(f"  {env_id}: not a JAX env, skipped")
            continue
        defaults = DEFAULT_SWEEPS.get(env_id, {"start": 1_024, "stop": 65_536, "scan": 16})
        for mode in [m for m in args.modes.split(",") if m]:
            sweep(env_id, mode, args.start or defaults["start"], args.max_batch or defaults["stop"],
                  defaults["scan"], args.min_seconds, args.max_compile_s, deadline, args.factor, write)
    print("\n" + write())
    return 0


if __name__ == "__main__":
    sys.exit(main())
