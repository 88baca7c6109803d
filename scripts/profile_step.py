"""Where one batched env step spends its device time: a `jax.profiler` trace of the bench program
(`paritygym bench`'s loop step: random legal actions, the batched step, the observations read),
summarised per compiled operation.

    python scripts/profile_step.py PokemonGen1Random-v0 --batch 4096 --calls 10 --out runs/profile

Prints the compile time, the wall time per call, then for the device's op line (TPU/GPU: "XLA Ops";
CPU: the host threads running XLA's kernels) the number of op launches per call, their busy time
per call and the top ops by total time. The raw trace stays under --out for TensorBoard/Perfetto.
With --hlo the ops' time is also summed per line of the project's source (from the compiled HLO's stack
frames: a line is charged the time of every op it is on the call stack of, loops and conditionals
themselves left out so that no time counts twice), and every op's total is written to ops.tsv.
On an accelerator the ratio of launches to busy time tells latency-bound (many tiny kernels, loop
trips, conditionals) from throughput-bound (few wide kernels) programs.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import re
import sys
import time

import jax
import jax.numpy as jnp


_CPU_BOOKKEEPING = ("ThreadpoolListener", "ThunkExecutor", "end: ")


def _op_lines(plane) -> dict[str, list]:
    """{line name: events} of the compiled program's ops: an accelerator plane's "XLA Ops" and
    "XLA Modules" lines, or on the CPU every XLA thread's kernels (bookkeeping events left out)."""
    lines = {line.name: list(line.events) for line in plane.lines if line.name in ("XLA Ops", "XLA Modules")}
    if not lines and plane.name == "/host:CPU":
        kernels = [e for line in plane.lines if line.name.startswith("tf_XLA") for e in line.events
                   if not e.name.startswith(_CPU_BOOKKEEPING)]
        lines = {"XLA Ops": kernels} if kernels else {}
    return lines


_CONTAINERS = ("while", "conditional", "call")


def _hlo_frames(hlo: str) -> dict[str, list[str]]:
    """{instruction name: its call stack, outermost first, as "file:line function"} from the optimised
    HLO text's stack-frame tables (only frames in this project's files)."""
    sections: dict[str, dict[int, str]] = {}
    current = None
    for line in hlo.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            current = sections.setdefault(line, {})
        elif current is not None and line[:1].isdigit():
            number, rest = line.split(" ", 1)
            current[int(number)] = rest
        elif line.strip():
            current = None
    files = {k: v.strip('"') for k, v in sections.get("FileNames", {}).items()}
    functions = {k: v.strip('"') for k, v in sections.get("FunctionNames", {}).items()}
    root = pathlib.Path(__file__).resolve().parents[1]
    locations = {}
    for k, v in sections.get("FileLocations", {}).items():
        fields = dict(re.findall(r"(\w+)=(\d+)", v))
        path = files.get(int(fields["file_name_id"]), "?")
        short = path[len(str(root)) + 1:] if path.startswith(str(root)) else ""
        locations[k] = f"{short}:{fields['line']} {functions.get(int(fields['function_name_id']), '?')}" if short else ""
    frames = {}
    for k, v in sections.get("StackFrames", {}).items():
        fields = dict(re.findall(r"(\w+)=(\d+)", v))
        frames[k] = (int(fields["file_location_id"]), int(fields["parent_frame_id"]) - 1)

    def stack(frame: int) -> list[str]:
        out = []
        while frame > 0 and frame in frames and len(out) < 200:
            location, frame = frames[frame]
            if locations.get(location):
                out.append(locations[location])
        return out[::-1]

    calls = {}
    for match in re.finditer(r"^\s*(?:ROOT )?%([\w.\-]+) = .*?stack_frame_id=(\d+)", hlo, re.M):
        calls[match.group(1)] = stack(int(match.group(2)))
    return calls


def _by_source(totals: collections.Counter, hlo: str, calls: int, top: int) -> None:
    stacks = _hlo_frames(hlo)
    per_line, unplaced = collections.Counter(), 0.0
    for op, ns in totals.items():
        name = op.split(" = ")[0].lstrip("%")
        if name.split(".")[0] in _CONTAINERS:
            continue
        stack = stacks.get(name)
        if not stack:
            unplaced += ns
        for frame in dict.fromkeys(stack or ()):
            per_line[frame] += ns
    print(f"\n  by source line (ms per call, every op under the line; {unplaced / 1e6 / calls:.3f} ms unplaced):")
    for frame, ns in per_line.most_common(top):
        print(f"    {ns / 1e6 / calls:9.3f}  {frame}")


def _summarise(xspace: pathlib.Path, calls: int, top: int, hlo: str | None = None, out: pathlib.Path | None = None) -> None:
    data = jax.profiler.ProfileData.from_file(str(xspace))
    for plane in data.planes:
        lines = _op_lines(plane)
        if not lines:
            continue
        print(f"\nplane {plane.name}")
        for name, events in lines.items():
            totals, counts = collections.Counter(), collections.Counter()
            for event in events:
                totals[event.name] += event.duration_ns
                counts[event.name] += 1
            busy = sum(totals.values()) / 1e6
            print(f"  line {name!r}: {sum(counts.values()) / calls:,.0f} launches per call, "
                  f"{busy / calls:,.3f} ms busy per call")
            if name != "XLA Ops":
                continue
            for op, ns in totals.most_common(top):
                print(f"    {ns / 1e6 / calls:9.3f} ms/call  {counts[op] / calls:7.1f} x/call  {op[:110]}")
            if out is not None:
                (out / "ops.tsv").write_text("".join(f"{ns / 1e6 / calls:.6f}\t{counts[op] / calls:g}\t{op}\n"
                                                     for op, ns in totals.most_common()))
            if hlo is not None:
                _by_source(totals, hlo, calls, top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("env_id")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--calls", type=int, default=10, help="calls traced (after the warm-up and a timed run)")
    parser.add_argument("--warmup", type=int, default=100,
                        help="calls run before timing, so that episodes end and restart as in a long run (the "
                             "first calls after a reset start no new episode and flatter an env with costly resets)")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/profile"))
    parser.add_argument("--hlo", action="store_true", help="also write the optimised HLO text under --out")
    args = parser.parse_args(argv)

    from paritygym.bench.runner import jax_programs
    from paritygym.registry import make

    print(f"JAX {jax.__version__} on {jax.devices()}", flush=True)
    env, params = make(args.env_id)
    reset, loop_step, _ = jax_programs(env, params, args.batch, scan_length=1)
    key = jax.random.key(0)
    states = jax.block_until_ready(reset(key))
    start = time.perf_counter()
    compiled = loop_step.lower(key, jnp.int32(0), states).compile()
    print(f"{args.env_id} batch {args.batch}: compile {time.perf_counter() - start:.1f} s", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    hlo = compiled.as_text() if args.hlo else None
    if hlo is not None:
        (args.out / f"{args.env_id}-{args.batch}.hlo.txt").write_text(hlo)
    for i in range(max(args.warmup, 1)):
        states, r = compiled(key, jnp.int32(-1 - i), states)
    jax.block_until_ready(r)
    start = time.perf_counter()
    for i in range(args.calls):
        states, r = compiled(key, jnp.int32(i + 1), states)
    jax.block_until_ready((states, r))
    per_call = (time.perf_counter() - start) / args.calls
    print(f"untraced: {per_call * 1e3:.2f} ms per call, {args.batch / per_call:,.0f} env steps/s", flush=True)
    trace_dir = args.out / f"{args.env_id}-{args.batch}"
    with jax.profiler.trace(str(trace_dir)):
        for i in range(args.calls):
            states, r = compiled(key, jnp.int32(1000 + i), states)
        jax.block_until_ready((states, r))
    xspaces = sorted(trace_dir.rglob("*.xplane.pb"), key=lambda p: p.stat().st_mtime)
    if not xspaces:
        print("no trace written", file=sys.stderr)
        return 1
    _summarise(xspaces[-1], args.calls, args.top, hlo, args.out if args.hlo else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
