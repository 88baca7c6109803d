"""Where pokejax's compile time goes: ``python -m benchmarks.pokemon_compile_report``.

For each program it prints the time of JAX's three stages (Python tracing, lowering to
StableHLO, XLA compilation), both wall-clock and CPU seconds of this process (the machine is
shared, so CPU seconds are the steadier figure), and the size of the lowered program in
StableHLO lines. The persistent compilation cache is switched off so that every run compiles.

Programs (``--programs``, comma-separated; default ``env_step,engine_step``):

  env_step      the registered env's ``step`` (gymnax autoreset included), vmapped over ``--batch``
  engine_step   ``pokejax.game.engine.step`` (one battle decision), vmapped over ``--batch``
  env_reset     the env's ``reset``, vmapped
  parts         lowering only (no compile) of the pieces of the env step and of the battle engine
                (unbatched), for their line counts
  throughput    the bench's program (``paritygym.bench.runner.jax_programs``: random legal actions,
                the env's batched step, i.e. ``step_batch``) at ``--batch``: its StableHLO lines and
                compile times, then ``--rounds`` rounds of ``--calls``
                calls, printed as steps per CPU second of this process and per wall second. To compare
                two versions of the code fairly on a shared machine, run both at the same time with the
                same ``--barrier DIR`` (each waits after compiling until both have compiled).
  kernels       the throughput program compiled once: its XLA kernels (fusions; XLA's CPU backend
                emits and LLVM-compiles each one apart, and their count more than their size sets the
                compile time: ~13 ms each plus ~0.06 ms per op) by where they come from (the Python
                call stack XLA keeps per instruction): ``step_batch``'s stage and the part within it.
  profile       the throughput program's run time: ``--calls`` calls inside a ``jax.profiler`` trace,
                kernel time summed by kernel and mapped to its origin like ``kernels`` (stage and part,
                innermost function), plus the top kernels.
  ablations     the throughput program compiled whole, then once per part of the env step with that
                part replaced by a stub of the same output shapes (the move turn, the switch-only
                battle step, the observation, the team generator, the max-damage opponent): lowering
                and XLA compile seconds and kernel count of each, and what each part costs by
                difference (so a change's target is known before it is made; the parts overlap little).
  run_ablations the throughput program's run time whole, without each part (the same stubs as
                ``ablations``) and without all of the four largest at once (or the sets ``--stubs``
                names): CPU microseconds per env step on one JAX device, ``--rounds`` rounds of
                ``--calls`` calls each (the median), after as many warm-up steps from reset. A stub
                also changes what follows it (without the move turn no battle ends), so each row
                bounds from below what that part's removal could leave, i.e. bounds the speed-up from
                above.
  copies        the throughput program's copies of the packed ``Active`` array (XLA copies it where a
                version of it is read after a later in-place write): the write and the stale reader, as
                source lines.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import time
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

import paritygym
from pokejax.game import engine, setup, teams
from pokejax.game.bots import max_damage_action
from pokejax.game.masks import legal_mask
from pokejax.game.observe import OBS_SIZE, observe

ENV_ID = "PokemonGen1Random-v0"


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def stages(fn: Callable, *args, compile_: bool = True) -> dict:
    """Trace, lower and (optionally) compile ``jax.jit(fn)(*args)``; times and StableHLO lines."""
    jitted = jax.jit(fn)
    traced, t_wall, t_cpu = _timed(lambda: jitted.trace(*args))
    lowered, l_wall, l_cpu = _timed(traced.lower)
    row = {"trace_s": t_wall, "trace_cpu_s": t_cpu, "lower_s": l_wall, "lower_cpu_s": l_cpu,
           "hlo_lines": len(lowered.as_text().splitlines())}
    if compile_:
        _, c_wall, c_cpu = _timed(lowered.compile)
        row.update(compile_s=c_wall, compile_cpu_s=c_cpu)
    return row


def report(programs: list[str], batch: int, env_id: str = ENV_ID):
    """Yields (program name, row of ``stages``) in the order measured."""
    env, params = paritygym.make(env_id)
    keys = jax.random.split(jax.random.key(0), batch)
    actions = jnp.zeros(batch, jnp.int32)
    # abstract arguments: nothing is executed, so the report measures compilation only
    states = jax.eval_shape(jax.vmap(env.reset, in_axes=(0, None)), keys, params)[1]
    if "env_step" in programs:
        yield "env_step", stages(jax.vmap(env.step, in_axes=(0, 0, 0, None)), keys, states, actions, params)
    if "engine_step" in programs:
        two = jnp.zeros((batch, 2), jnp.int32)
        yield "engine_step", stages(jax.vmap(engine.step), states.game, two)
    if "env_reset" in programs:
        yield "env_reset", stages(jax.vmap(env.reset, in_axes=(0, None)), keys, params)
    if "parts" in programs:
        game = jax.tree_util.tree_map(lambda x: jax.ShapeDtypeStruct(x.shape[1:], x.dtype), states.game)
        key = keys[0]
        flag = jax.ShapeDtypeStruct((), jnp.bool_)
        move = jax.ShapeDtypeStruct((), jnp.int32)
        two = jax.ShapeDtypeStruct((2,), jnp.int32)
        parts: dict[str, tuple[Callable, tuple]] = {
            # the battle engine, outermost first (each row contains the ones below it)
            "engine.step": (engine.step, (game, two)),
            "engine.move_step": (engine.move_step, (game, two)),
            "engine.switch_step": (engine.switch_step, (game, two)),
            "engine.move_turn": (engine.move_turn, (game, two, flag)),
            "engine.run_move": (engine.run_move, (game, move, flag)),
            "engine.use_move_once": (engine.use_move_once, (game, move, flag, flag)),
            "engine.hit_foe": (engine.hit_foe, (game, move, flag)),
            "engine.hit_self": (engine.hit_self, (game, move, flag)),
            "engine.primary_hit": (engine.primary_hit, (game, move, flag, flag)),
            "engine.get_damage": (engine.get_damage, (game, move, flag)),
            "engine.end_turn": (engine.end_turn, (game, flag)),
            "env.reset_env": (env.reset_env, (key, params)),
            "setup.new_battle": (lambda k: setup.new_battle(teams.random_teams(k), jnp.zeros(2, jnp.uint32)), (key,)),
            "teams.random_teams": (teams.random_teams, (key,)),
            "observe": (lambda s: observe(s, 0), (game,)),
            "max_damage_action": (lambda k, s: max_damage_action(k, s, 0), (key, game)),
            "legal_mask": (lambda s: legal_mask(s, 0), (game,)),
        }
        for name, (fn, args) in parts.items():
            yield name, stages(fn, *args, compile_=False)


def _wait_for_peers(barrier: str, count: int) -> None:
    """Mark this process compiled in directory ``barrier`` and wait until ``count`` processes have:
    side-by-side runs then time their rounds together, not one's rounds against the other's compile."""
    os.makedirs(barrier, exist_ok=True)
    open(os.path.join(barrier, str(os.getpid())), "w").close()
    while len(os.listdir(barrier)) < count:
        time.sleep(0.2)


def throughput(batch: int, calls: int, rounds: int, env_id: str = ENV_ID, barrier: str | None = None,
               barrier_count: int = 2) -> None:
    from paritygym.bench.runner import jax_programs

    env, params = paritygym.make(env_id)
    reset, loop_step, _ = jax_programs(env, params, batch, scan_length=1)
    key = jax.random.key(0)
    states = reset(key)
    lowered, lower_wall, lower_cpu = _timed(lambda: loop_step.lower(key, jnp.int32(0), states))
    compiled, wall, cpu = _timed(lowered.compile)
    print(f"throughput program, batch {batch}: {len(lowered.as_text().splitlines()):,} StableHLO lines, traced and "
          f"lowered in {lower_wall:.1f} s ({lower_cpu:.1f} CPU s), compiled in {wall:.1f} s ({cpu:.1f} CPU s)",
          flush=True)
    states, reward = compiled(key, jnp.int32(0), states)
    jax.block_until_ready(reward)
    if barrier:
        _wait_for_peers(barrier, barrier_count)
    per_cpu_s = []
    for r, (wall, cpu) in enumerate(_timed_rounds(compiled, key, states, calls, rounds, first_step=1)):
        per_cpu_s.append(batch * calls / cpu)
        print(f"  round {r}: {batch * calls / cpu:,.0f} steps per CPU s, {batch * calls / wall:,.0f} steps/s wall",
              flush=True)
    print(f"  median of {rounds} rounds: {float(np.median(per_cpu_s)):,.0f} steps per CPU s", flush=True)


def _timed_rounds(step: Callable, key, states, calls: int, rounds: int, first_step: int):
    """Yields (wall s, CPU s of this process) of each of ``rounds`` rounds of ``calls`` calls of the bench
    program ``step(key, i, states) -> (states, out)``, the step index counting from ``first_step``."""
    for r in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        for i in range(calls):
            states, out = step(key, jnp.int32(first_step + r * calls + i), states)
        jax.block_until_ready(states)
        yield time.perf_counter() - wall, time.process_time() - cpu


# where a kernel comes from: the first function of its call stack (outermost first) named in
# KERNEL_STAGES, then the first name of KERNEL_PARTS (in this order) found below it
# (functions of pokejax.env_step, and the env's _new_episode)
KERNEL_STAGES = ("batch_inputs", "batch_move", "batch_switch_steps", "batch_new_observations", "batch_finish")
KERNEL_PARTS = ("move_step", "switch_step", "_new_episode", "choose", "observe", "joint_outcome", "settle_input",
                "settle_result", "nothing_after", "one_chunk.<locals>.<lambda>", "one_env", "finish")
PACKED_WRITES = ("_Packed.", "set_active", "set_side")


def _hlo_call_stacks(hlo_text: str) -> Callable[[int], list[str]]:
    """``stack(frame_id)``: the function names of an instruction's call stack, outermost first, from
    the tables that XLA prints at the head of a compiled module's text."""
    section, funcs, locations, frames = None, {}, {}, {}
    for line in hlo_text.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            section = line
            continue
        if section and not line.strip():
            section = None
        elif section == "FunctionNames":
            k, name = line.split(" ", 1)
            funcs[int(k)] = name.strip('"')
        elif section == "FileLocations":
            m = re.match(r"(\d+) \{file_name_id=\d+ function_name_id=(\d+)", line)
            locations[int(m.group(1))] = funcs[int(m.group(2))]
        elif section == "StackFrames":
            m = re.match(r"(\d+) \{file_location_id=(\d+)(?: parent_frame_id=(\d+))?", line)
            # a parent id as printed is the parent's own id plus one (0: none)
            frames[int(m.group(1))] = (int(m.group(2)), int(m.group(3) or 0) - 1)

    def stack(frame_id: int) -> list[str]:
        out, seen = [], set()
        while frame_id in frames and frame_id not in seen:
            seen.add(frame_id)
            location, frame_id = frames[frame_id]
            out.append(locations[location])
        return out[::-1]
    return stack


def origin(names: list[str]) -> tuple[str, str]:
    """(stage of ``step_batch``, part within it) of an instruction whose call stack (function names,
    outermost first) is ``names``; ("outside step_batch", innermost function) for the rest."""
    ends = lambda name, suffix: name == suffix or name.endswith("." + suffix)
    at = next((k for k, n in enumerate(names) if any(ends(n, s) for s in KERNEL_STAGES)), None)
    if at is None:
        return "outside step_batch", names[-1] if names else "?"
    stage = next(s for s in KERNEL_STAGES if ends(names[at], s))
    part = next((s for s in KERNEL_PARTS
                 if any(ends(n, s) or (s.startswith("one_chunk") and s in n) for n in names[at + 1:])), "(own)")
    labels = {"one_chunk.<locals>.<lambda>": "where_needed gather/scatter", "one_env": "switch loop (own)"}
    return stage, labels.get(part, part)


def instruction_stacks(hlo_text: str, fusions_only: bool = False) -> dict[str, list[str]]:
    """Call stack (function names, outermost first; [] where XLA kept none, e.g. its own copies) of
    every instruction of a compiled module's text, by instruction name (the name a profiler event
    of its kernel carries)."""
    stack_of = _hlo_call_stacks(hlo_text)
    pattern = r"^\s*(?:ROOT )?%?([\w.\-]+) = (?:\([^)]*\)|\S+) fusion\(" if fusions_only else r"^\s*(?:ROOT )?%?([\w.\-]+) = "
    out = {}
    for line in hlo_text.splitlines():
        match = re.match(pattern, line)
        if not match:
            continue
        frame = re.search(r"stack_frame_id=(\d+)", line)
        out[match.group(1)] = stack_of(int(frame.group(1))) if frame else []
    return out


def kernel_origins(hlo_text: str) -> tuple[collections.Counter, int, int]:
    """(kernels per (stage, part), all kernels, kernels with a packed-row write on their stack) of a
    compiled module's text."""
    counts: collections.Counter = collections.Counter()
    total = packed = 0
    for names in instruction_stacks(hlo_text, fusions_only=True).values():
        total += 1
        packed += any(p in n for n in names for p in PACKED_WRITES)
        counts[origin(names)] += 1
    return counts, total, packed


def kernels(batch: int, env_id: str = ENV_ID) -> None:
    from paritygym.bench.runner import jax_programs

    env, params = paritygym.make(env_id)
    reset, loop_step, _ = jax_programs(env, params, batch, scan_length=1)
    key = jax.random.key(0)
    lowered = loop_step.lower(key, jnp.int32(0), jax.eval_shape(reset, key))
    compiled, _, cpu = _timed(lowered.compile)
    counts, total, packed = kernel_origins(compiled.as_text())
    print(f"throughput program, batch {batch}: {total} XLA kernels (compiled in {cpu:.1f} CPU s); "
          f"{packed} with a packed-row write (_Packed.*, set_active, set_side) on their call stack")
    for (stage, part), n in sorted(counts.items(), key=lambda kv: -kv[1]):
        print(f"  {n:5d}  {stage:<24} {part}")


# generic helpers skipped when naming the innermost function a kernel comes from
_PROFILE_HELPERS = ("_Packed.", "<lambda>", "<listcomp>", "<genexpr>", "where_needed", "one_chunk")


def _innermost(names: list[str]) -> str:
    """The innermost pokejax function of a call stack that is not a generic helper (packed-row writes
    are named by their caller, and marked "+write")."""
    own = [n for n in names if not any(h in n for h in _PROFILE_HELPERS)]
    label = own[-1] if own else (names[-1] if names else "? (no stack)")
    return label + (" +write" if any(p in n for n in names for p in PACKED_WRITES) else "")


def _kernel_stacks(hlo_text: str) -> dict[str, list[str]]:
    """``instruction_stacks``, where a copy XLA inserted (no stack of its own) takes the stack of
    the instruction it copies: a copy is the cost of the write that made it necessary."""
    stacks = instruction_stacks(hlo_text)
    source = dict(re.findall(r"^\s*(?:ROOT )?%?([\w.\-]+) = \S+ copy\(%?([\w.\-]+)\)", hlo_text, re.M))
    for name in source:
        seen, at = set(), name
        while not stacks.get(at) and at in source and at not in seen:
            seen.add(at)
            at = source[at]
        if stacks.get(at):
            stacks[name] = stacks[at] + ["(XLA copy)"]
    return stacks


def kernel_durations(run: Callable[[], Any]) -> tuple[dict[str, list[int]], float]:
    """Runs ``run()`` inside a ``jax.profiler`` trace: ({kernel name: the duration in ns of each of
    its runs}, CPU s of this process in ``run``). XLA:CPU records one event per kernel run (a fusion
    or another thunk, named like its instruction in the compiled module) on its ``tf_XLA*`` threads."""
    import glob
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        with jax.profiler.trace(folder):
            cpu = time.process_time()
            run()
            cpu = time.process_time() - cpu
        (path,) = glob.glob(f"{folder}/**/*.xplane.pb", recursive=True)
        data = jax.profiler.ProfileData.from_file(path)
    durations: dict[str, list[int]] = collections.defaultdict(list)
    for plane in data.planes:
        for line in plane.lines:
            if not line.name.startswith("tf_XLA"):
                continue
            for event in line.events:
                # markers and containers (the executor, loops): their kernels are counted themselves
                if event.name.startswith(("end: ", "Threadpool", "ThunkExecutor", "while")):
                    continue
                durations[event.name].append(event.duration_ns)
    return dict(durations), cpu


def profile(batch: int, env_id: str = ENV_ID, calls: int = 10, top: int = 30) -> None:
    """Run time of the bench's program by kernel: ``calls`` calls of the compiled throughput program
    inside a ``jax.profiler`` trace, each kernel's time (XLA:CPU runs one event per fusion or other
    thunk on its ``tf_XLA*`` threads) taken as runs x its median event duration (on a shared machine
    a few events absorb preemptions of seconds; the median ignores them), each kernel mapped to its
    Python origin by the call stack the compiled module keeps per instruction (a copy XLA inserted
    takes the stack of what it copies). Prints the CPU time per call, the kernel time and the rest
    (dispatch between kernels), then the kernel time by ``step_batch`` stage and part, by function
    (inclusive: every function on the stack), by innermost function, and the top kernels."""
    import statistics

    from paritygym.bench.runner import jax_programs

    env, params = paritygym.make(env_id)
    reset, loop_step, _ = jax_programs(env, params, batch, scan_length=1)
    key = jax.random.key(0)
    states = reset(key)
    compiled, _, compile_cpu = _timed(loop_step.lower(key, jnp.int32(0), states).compile)
    for i in range(5):  # warm up, and leave the first steps (every battle starting at once) behind
        states, reward = compiled(key, jnp.int32(1 + i), states)
    jax.block_until_ready(reward)

    def run_calls():
        nonlocal states
        for i in range(calls):
            states, reward = compiled(key, jnp.int32(100 + i), states)
        jax.block_until_ready(reward)

    durations, cpu = kernel_durations(run_calls)
    kernel_ns = {name: len(d) * statistics.median(d) for name, d in durations.items()}
    events = sum(len(d) for d in durations.values())
    stacks = _kernel_stacks(compiled.as_text())
    total = sum(kernel_ns.values())
    by_stage: collections.Counter = collections.Counter()
    by_function: collections.Counter = collections.Counter()
    inclusive: collections.Counter = collections.Counter()
    inclusive_events: collections.Counter = collections.Counter()
    for name, ns in kernel_ns.items():
        names = stacks.get(name, [])
        by_stage[origin(names) if names else ("?", "no stack")] += ns
        by_function[_innermost(names)] += ns
        below = names[next((k for k, n in enumerate(names) if n.endswith("loop_step")), 0):]  # not this module's frames
        for function in {n.rsplit(".<locals>.", 1)[-1] for n in below if "<lambda>" not in n}:
            inclusive[function] += ns
            inclusive_events[function] += len(durations[name])
    copies = sum(ns for name, ns in kernel_ns.items() if name.startswith("copy"))
    per_call = lambda ns: ns / 1e6 / calls
    print(f"bench program ({env_id}), batch {batch}, compiled in {compile_cpu:.1f} CPU s; {calls} calls traced: "
          f"{cpu * 1e3 / calls:.1f} CPU ms per call ({batch * calls / cpu:,.0f} steps per CPU s under the profiler), "
          f"kernel time {per_call(total):.1f} ms per call (of which XLA's copies {per_call(copies):.1f} in "
          f"{sum(len(d) for n, d in durations.items() if n.startswith('copy')) / calls:,.0f} runs), "
          f"{events / calls:,.0f} kernel runs per call of {len(kernel_ns)} distinct kernels; the rest, "
          f"{cpu * 1e3 / calls - per_call(total):.1f} ms, is dispatch between kernels "
          f"(~{(cpu * 1e9 / calls - total / calls) / (events / calls) / 1e3:.1f} us per kernel run)")
    print("share of kernel time by step_batch stage / part:")
    for (stage, part), ns in by_stage.most_common():
        if ns >= total * 0.001:
            print(f"  {ns / total:6.1%}  {stage:<24} {part}")
    print(f"share of kernel time and kernel runs per call by function, inclusive (top {2 * top}):")
    for function, ns in inclusive.most_common(2 * top):
        print(f"  {ns / total:6.1%} {inclusive_events[function] / calls:7.1f}  {function}")
    print(f"share of kernel time by innermost function (top {top}; '+write': a packed-row write below it):")
    for label, ns in by_function.most_common(top):
        print(f"  {ns / total:6.1%}  {label}")
    print(f"top {top} kernels: share, runs per call, kernel, stage / part, innermost 3 functions")
    for name, ns in sorted(kernel_ns.items(), key=lambda kv: -kv[1])[:top]:
        names = stacks.get(name, [])
        stage, part = origin(names) if names else ("?", "")
        print(f"  {ns / total:6.1%} {len(durations[name]) / calls:5.1f}  {name:<36} {stage} / {part}  "
              f"{' > '.join(names[-3:])}")


def _hlo_sites(hlo_text: str) -> dict[str, str]:
    """By instruction name: its innermost pokejax source lines as ``function:line > ...`` (the
    three innermost frames in ``pokejax/``, without the packed-row helpers of ``state.py``)."""
    lines = hlo_text.splitlines()

    def table(title: str) -> list[str]:
        if title not in lines:
            return []
        rows = []
        for line in lines[lines.index(title) + 1:]:
            if not line[:1].isdigit():
                break
            rows.append(line)
        return rows

    ids = lambda row: {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", row)}
    files = {int(r.split()[0]): r.split('"')[1] for r in table("FileNames")}
    functions = {int(r.split()[0]): r.split('"')[1] for r in table("FunctionNames")}
    locations = {int(r.split()[0]): ids(r) for r in table("FileLocations")}
    frames = {int(r.split()[0]): ids(r) for r in table("StackFrames")}

    def site(frame: int) -> str:
        out, seen = [], set()
        while frame in frames and frame not in seen:
            seen.add(frame)
            where = locations[frames[frame]["file_location_id"]]
            file = files[where["file_name_id"]]
            if "pokejax/" in file and not file.endswith("state.py"):
                out.append(f"{functions[where['function_name_id']].rsplit('.', 1)[-1]}:{where.get('line', '?')}")
            frame = frames[frame].get("parent_frame_id", 0) - 1
        return " > ".join(out[:3][::-1]) or "?"

    out = {}
    for line in lines:
        match = re.match(r"\s*(?:ROOT )?%?([\w.\-]+) = .*stack_frame_id=(\d+)", line)
        if match:
            out[match.group(1)] = site(int(match.group(2)))
    return out


def stale_reads(hlo_text: str) -> tuple[str, int, int, collections.Counter]:
    """(the largest copied shape, its copies, all copies, {(copied write's source, another reader of
    the copied version's source): count}) of a compiled module's text: why XLA copies an array
    before updating it in place (the other readers of the old version run after the update)."""
    sites = _hlo_sites(hlo_text)
    copied = re.findall(r"^\s*(?:ROOT )?%?([\w.\-]+) = (\w+\[[\d,]*\])\S* copy\(%?([\w.\-]+)\)", hlo_text, re.M)
    if not copied:
        return "", 0, 0, collections.Counter()
    size = lambda shape: np.prod([int(d) for d in shape[shape.index("[") + 1:-1].split(",") if d] or [1])
    largest = max((shape for _, shape, _ in copied), key=size)
    readers = collections.defaultdict(list)
    for line in hlo_text.splitlines():
        match = re.match(r"\s*(?:ROOT )?%?([\w.\-]+) = [^(]*?\w\((.*)", line)
        if match:
            for operand in set(re.findall(r"%([\w.\-]+)", match.group(2).split("metadata=")[0])):
                readers[operand].append(match.group(1))
    pairs: collections.Counter = collections.Counter()
    count = 0
    for name, shape, source in copied:
        if shape != largest:
            continue
        count += 1
        for reader in readers[source]:
            if reader != name:
                pairs[(sites.get(source, "?"), sites.get(reader, "?"))] += 1
    return largest, count, len(copied), pairs


def copies(batch: int, env_id: str = ENV_ID, top: int = 40) -> None:
    """The bench program's copies of its largest copied array (the packed ``Active``): for each, the
    write whose result XLA copies and the other readers of that result (reads of a version of the
    array that run after a later in-place write: the reason for the copy), as source lines."""
    from paritygym.bench.runner import jax_programs

    env, params = paritygym.make(env_id)
    reset, loop_step, _ = jax_programs(env, params, batch, scan_length=1)
    key = jax.random.key(0)
    text = loop_step.lower(key, jnp.int32(0), jax.eval_shape(reset, key)).compile().as_text()
    largest, count, total, pairs = stale_reads(text)
    print(f"{count} copies of {largest} (of {total} copies); "
          f"top {top} (copied write, other reader of the same version): count")
    for (write, reader), n in pairs.most_common(top):
        print(f"  {n:3d}  {write}  <-  {reader}")


def _stub_parts() -> dict[str, Callable[[Any], None]]:
    """Name -> a function that replaces that part of a ``PokemonGen1RandomEnv``'s step (on the instance
    given) by a stub with the same output shapes: what ``ablations`` compiles without."""
    from paritygym.twoplayer import random_legal_action

    def no_move_turn(e):
        e.game.move_step_batch = lambda s, a, p, m, engine_fallback=True: (s, jnp.zeros(a.shape, jnp.float32))

    def no_switch_step(e):
        e.game.switch_step = lambda k, s, a, p, m=None: (s, jnp.zeros(2, jnp.float32), jnp.bool_(False),
                                                         jnp.bool_(False))
        e.game.switch_step_batch = lambda s, a, p, m: (s, jnp.zeros(a.shape, jnp.float32))

    def no_observation(e):
        e.game.observe = lambda g, player, p: jnp.zeros(OBS_SIZE, jnp.float32) + g.turn.astype(jnp.float32)

    def no_team_generator(e):
        key = jax.random.key(0)
        shapes = jax.eval_shape(e._new_episode, key, e.default_params)
        e._new_episode = lambda k, p: jax.tree_util.tree_map(
            lambda x: jnp.zeros(x.shape, x.dtype) + jax.random.key_data(k)[0].astype(x.dtype), shapes)

    def random_opponent_only(e):   # the max-damage policy (and user policies) left out
        e._opponent_action = lambda key, g, side, p, mask=None: random_legal_action(key, mask)

    return {"move turn": no_move_turn, "switch-only step": no_switch_step, "observation": no_observation,
            "team generator": no_team_generator, "max-damage opponent": random_opponent_only}


def _stubbed_programs(env_id: str, batch: int, stubs: list[Callable[[Any], None]]) -> tuple[Callable, Callable]:
    """The bench's reset and loop-step programs (``paritygym.bench.runner.jax_programs``) of a fresh env
    with ``stubs`` (from ``_stub_parts``) applied to it."""
    from paritygym.bench.runner import jax_programs

    env, params = paritygym.make(env_id)
    for stub in stubs:
        stub(env)
    reset, loop_step, _ = jax_programs(env, params, batch, scan_length=1)
    return reset, loop_step


def ablations(batch: int, env_id: str = ENV_ID) -> None:
    """Compile time of the bench program whole and without each part (``_stub_parts``)."""
    def compile_once(stub=None):
        reset, loop_step = _stubbed_programs(env_id, batch, [] if stub is None else [stub])
        key = jax.random.key(0)
        shapes = jax.eval_shape(reset, key)
        lowered, lower_s, _ = _timed(lambda: loop_step.lower(key, jnp.int32(0), shapes))
        compiled, compile_s, _ = _timed(lowered.compile)
        return lower_s, compile_s, compiled.as_text().count(" fusion(")

    print(f"bench program ({env_id}), batch {batch}: lower + XLA compile, without each part")
    compile_once()   # warm-up: the process's first trace and compile pay one-time costs (~2 s)
    base = compile_once()
    print(f"  {'whole program':<32} lower {base[0]:5.1f} s  compile {base[1]:5.1f} s  total {base[0] + base[1]:5.1f} s"
          f"  kernels {base[2]:,}", flush=True)
    for name, stub in _stub_parts().items():
        lower_s, compile_s, fusions = compile_once(stub)
        part_s = base[0] + base[1] - lower_s - compile_s
        print(f"  {'without ' + name:<32} lower {lower_s:5.1f} s  compile {compile_s:5.1f} s  total "
              f"{lower_s + compile_s:5.1f} s  kernels {fusions:,}   (the part: {part_s:+.1f} s, "
              f"{base[2] - fusions:+,} kernels)", flush=True)


def run_ablations(batch: int, calls: int, rounds: int, env_id: str = ENV_ID, only: str | None = None) -> None:
    """CPU microseconds per env step of the bench program whole and without each part (``_stub_parts``).
    ``only``: the cases to run instead of the default ones, ``;``-separated, each a ``+``-joined set of
    part names (e.g. ``"move turn;move turn+observation"``); the whole program runs first and last."""
    stubs = _stub_parts()
    if only is None:
        largest = ("move turn", "observation", "switch-only step", "team generator")
        sets = [[name] for name in stubs] + [list(largest)]
    else:
        sets = [[name.strip() for name in case.split("+")] for case in only.split(";")]
        unknown = sorted({name for names in sets for name in names} - set(stubs))
        if unknown:
            raise ValueError(f"unknown parts {unknown}; the parts are {sorted(stubs)}")
    cases = [("whole program", [])] + [("without " + " + ".join(names), names) for names in sets]
    cases += [("whole program (again)", [])]

    def cpu_us_per_step(names: list[str]) -> float:
        reset, loop_step = _stubbed_programs(env_id, batch, [stubs[name] for name in names])
        key = jax.random.key(0)
        states = reset(key)
        for i in range(calls):   # compile, then warm up: battles under way, as in the bench
            states, out = loop_step(key, jnp.int32(i), states)
        jax.block_until_ready(out)
        rounds_s = _timed_rounds(loop_step, key, states, calls, rounds, first_step=calls)
        return float(np.median([cpu / calls / batch * 1e6 for _, cpu in rounds_s]))

    print(f"bench program ({env_id}), batch {batch}, one device: CPU us per env step (median of {rounds} rounds "
          f"of {calls} calls), without each part")
    base = None
    for label, names in cases:
        us = cpu_us_per_step(names)
        base = us if base is None else base
        print(f"  {label:<72} {us:7.2f} us   ({us / base:5.1%} of the whole)", flush=True)


def main(argv: list[str] | None = None) -> None:
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--programs", default="env_step,engine_step")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--env", default=ENV_ID, help="env id (PokemonGen1RandomPool-v0: teams from a pool)")
    ap.add_argument("--calls", type=int, default=10, help="calls per round (throughput)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (throughput)")
    ap.add_argument("--barrier", help="throughput: a directory shared with the processes run side by side; "
                    "each waits after compiling until --barrier-count of them have compiled")
    ap.add_argument("--barrier-count", type=int, default=2)
    ap.add_argument("--stubs", help="run_ablations: the cases instead of the default ones, ';'-separated, each a "
                    "'+'-joined set of parts (e.g. 'move turn;move turn+observation')")
    args = ap.parse_args(argv)
    jax.config.update("jax_enable_compilation_cache", False)
    programs = args.programs.split(",")
    reports = {  # each prints its own table; the remaining names are compiled programs, below
        "ablations": lambda: ablations(args.batch, args.env),
        "copies": lambda: copies(args.batch, args.env),
        "run_ablations": lambda: run_ablations(args.batch, args.calls, args.rounds, args.env, args.stubs),
        "profile": lambda: profile(args.batch, args.env, args.calls),
        "kernels": lambda: kernels(args.batch, args.env),
        "throughput": lambda: throughput(args.batch, args.calls, args.rounds, args.env, args.barrier,
                                         args.barrier_count),
    }
    for name, print_report in reports.items():
        if name in programs:
            print_report()
            programs.remove(name)
    if not programs:
        return
    print(f"{'program':<20} {'HLO lines':>9} {'trace s':>8} {'lower s':>8} {'compile s':>9}   (CPU s: trace lower compile)")
    for name, row in report(programs, args.batch, args.env):
        comp = f"{row['compile_s']:9.1f}" if "compile_s" in row else f"{'-':>9}"
        comp_cpu = f"{row['compile_cpu_s']:.1f}" if "compile_cpu_s" in row else "-"
        print(f"{name:<20} {row['hlo_lines']:>9,} {row['trace_s']:8.1f} {row['lower_s']:8.1f} {comp}"
              f"   ({row['trace_cpu_s']:.1f} {row['lower_cpu_s']:.1f} {comp_cpu})", flush=True)


if __name__ == "__main__":
    main()
