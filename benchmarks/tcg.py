"""Throughput of the two-player core (game actions/s), apart from the single-agent env.

`paritygym bench TCGPocketA1-v0` counts *agent steps* of the single-agent env: one agent action plus
every opponent action up to the agent's next decision. This module counts *game actions*: one
legal action of whichever player decides, for every game of the batch at every step, with finished
games replaced by new ones. It is the cost of the rules engine itself (and of the legal mask that
random play needs), the number to compare with the reference engine's game actions/s.

    python -m benchmarks.tcg --batch 1 64 1024 4096 --seconds 3 --reference
    python -m benchmarks.tcg --env --batch 1024     # the single-agent env, default vs interleaved mode
    python -m benchmarks.tcg --env --reference      # + game actions per agent decision of the reference env
    python -m benchmarks.tcg --env --closed-params  # the same, params closed over as a trainer compiles them
    python -m benchmarks.tcg --profile --batch 1024 # kernel time by kernel (fused instructions, source)
    python -m benchmarks.tcg --profile --env        # the env step's kernel time by part (restart, observation, ...)
    python -m benchmarks.tcg --bytes --batch 64     # bytes written per game action, by call site
    python -m benchmarks.tcg --requests --batch 1024 # share of games asking for each step_batch part
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from tcgjax import spec
from tcgjax.game import card_tables
from tcgjax.game.core import kth_true
from tcgjax.game.step import _legal_for_seat0, new_game, step, step_batch
from tcgjax.game.state import rotate


def core_programs(batch: int, scan_length: int, max_turns: int = spec.DEFAULT_MAX_TURNS, vmapped: bool = False,
                  report: bool = False):
    """(reset, run): `reset(key)` starts `batch` games; `run(key, states)` plays `scan_length` random
    legal actions in every game (finished games restart) and returns (states, finished games).
    The batch is stepped by `step_batch` (heavy handlers on sub-batches), or by the vmapped `step`
    where `vmapped` (same games, same results). `report`: `run` also returns, per action, how many
    games asked for each part of `step_batch` ({part: int[scan_length]})."""
    from tcgjax.env import make_game_params

    tables = card_tables()
    params = make_game_params()
    pool = params.deck_cards.shape[0]

    def start(key):
        k_seed, k_decks = jax.random.split(key)
        decks = jax.random.randint(k_decks, (2,), 0, pool)
        return new_game(tables, jax.random.bits(k_seed, dtype=jnp.uint32), params.deck_cards[decks],
                        params.deck_energy[decks])

    def choose(state, key):
        mask = _legal_for_seat0(tables, rotate(state, state.decider))
        # uniform among the legal actions from one random integer (a categorical draw would make
        # one Gumbel value per action: 5% of the step at batch 1,024)
        choice = jax.random.randint(key, (), 0, jnp.maximum(mask.sum(), 1))
        return kth_true(mask, choice), mask

    def restart(new, fresh):
        done = new.game_over
        return jax.tree_util.tree_map(lambda f, s: jnp.where(done, f, s), fresh, new), done

    def reset(key):
        return jax.vmap(start)(jax.random.split(key, batch))

    def run(key, states):
        # New games for the games that end during this call, one batch per call: a game almost
        # always lasts longer than scan_length actions (a rare one that ends twice restarts the
        # same new game, which is still a legal game).
        k_fresh, k_actions = jax.random.split(key)
        fresh = reset(k_fresh)

        def body(states, k):
            actions, masks = jax.vmap(choose)(states, jax.random.split(k, batch))
            requests = {}
            if vmapped:
                new = jax.vmap(lambda s, a, m: step(tables, s, a, max_turns, m))(states, actions, masks)
            elif report:
                new, gates = step_batch(tables, states, actions, max_turns, masks, report=True)
                requests = {part: gate.sum() for part, gate in gates.items()}
            else:
                new = step_batch(tables, states, actions, max_turns, masks)
            states, done = jax.vmap(restart)(new, fresh)
            return states, (done.sum(), requests)

        states, (finished, requests) = jax.lax.scan(body, states, jax.random.split(k_actions, scan_length))
        return (states, finished.sum(), requests) if report else (states, finished.sum())

    return jax.jit(reset), jax.jit(run, donate_argnums=1)


def request_rates(batch: int, calls: int = 64, scan_length: int = 16,
                  warmup_calls: int = 32) -> dict[str, tuple[float, float]]:
    """Per part of `step_batch` (Trainer, Ability, attack, full `settle`): the mean and the largest
    share of the games that ask for it in one game action, with random legal play at `batch`
    games over `calls * scan_length` actions, after `warmup_calls * scan_length` uncounted ones
    (all games start together, so the first turns of the batch are in step: a third to half of the
    games play a Trainer or end a turn at once). The chunk shares in `tcgjax.game.step`
    (HANDLERS, SETTLE_SHARE) come from these figures."""
    reset, run = core_programs(batch, scan_length, report=True)
    key = jax.random.key(0)
    states = reset(key)
    per_action: dict[str, list] = {}
    for call in range(warmup_calls + calls):
        states, _, requests = run(jax.random.fold_in(key, call), states)
        for part, counts in jax.device_get(requests).items() if call >= warmup_calls else ():
            per_action.setdefault(part, []).append(counts)
    return {part: (float(np.mean(np.concatenate(c))) / batch, float(np.max(np.concatenate(c))) / batch)
            for part, c in per_action.items()}


def bench_core(batch: int, seconds: float = 2.0, scan_length: int = 16, vmapped: bool = False) -> dict:
    """Game actions/s of the batched core with random legal play, and the compile time."""
    reset, run = core_programs(batch, scan_length, vmapped=vmapped)
    key = jax.random.key(0)
    states = reset(key)
    start = time.perf_counter()
    compiled = run.lower(key, states).compile()
    compile_s = time.perf_counter() - start
    states, finished = compiled(jax.random.fold_in(key, 0), states)  # warm-up
    jax.block_until_ready(finished)
    calls, games, start, cpu_start = 0, 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        calls += 1
        states, finished = compiled(jax.random.fold_in(key, calls), states)
        games += int(finished)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    actions = calls * scan_length * batch
    # actions per CPU second (all threads): comparable between runs on a shared, loaded machine
    return {"batch": batch, "actions_per_s": actions / elapsed, "games_per_s": games / elapsed,
            "actions_per_cpu_s": actions / cpu, "compile_s": compile_s, "seconds": elapsed}


def _hlo_index(text: str):
    """(computations, stack) of a compiled HLO text: `computations` maps each computation's name to
    its instruction lines; `stack(frame_id)` gives the (file, function, line) frames of an
    instruction's `stack_frame_id`, outermost first."""
    import re

    lines = text.splitlines()

    def table(title):
        start = lines.index(title) + 1
        rows = []
        for line in lines[start:]:
            if not line[:1].isdigit():
                break
            rows.append(line)
        return rows

    def ids(line):
        return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}

    files = {int(r.split()[0]): r.split('"')[1] for r in table("FileNames")}
    functions = {int(r.split()[0]): r.split('"')[1] for r in table("FunctionNames")}
    locations = {int(r.split()[0]): ids(r) for r in table("FileLocations")}
    frames = {int(r.split()[0]): ids(r) for r in table("StackFrames")}

    def stack(frame):  # innermost first; a parent id is printed one above the frame it names
        out = []
        while frame in frames:
            location = locations[frames[frame]["file_location_id"]]
            out.append((files[location["file_name_id"]], functions[location["function_name_id"]], location["line"]))
            frame = frames[frame]["parent_frame_id"] - 1
        return out[::-1]

    computations, current = {}, None
    for line in lines:
        header = re.match(r"^(ENTRY )?%?([\w.\-]+) .*\{\s*$", line)
        if header and not line.startswith(" "):
            current = computations.setdefault(header.group(2), [])
        elif current is not None and line.startswith("  "):
            current.append(line)
    return computations, stack


# generic helpers skipped when a kernel's source is named by a rule function
_HELPERS = frozenset(("merge", "materialize", "_replace", "rotate", "kth_true", "pick_at", "value_at"))


def kernel_sources(text: str) -> dict[str, tuple[int, str, str, tuple[str, ...]]]:
    """For each instruction of a compiled HLO text, by name: (instructions per output element: the
    size of the computation a fusion calls, else 1; its source: the innermost `tcgjax` frames; its
    part: the innermost rule function (tcgjax.game, not local, not a generic helper), "bench" for
    the bench's own code (action choice, restarts); every `tcgjax` / `paritygym` frame as
    "file.py:function", outermost first)."""
    import re

    computations, stack = _hlo_index(text)
    out = {}
    for body in computations.values():
        for line in body:
            match = re.match(r"\s*(ROOT )?%?([\w.\-]+) = ", line)
            if not match:
                continue
            called = re.search(r"calls=%?([\w.\-]+)", line)
            frame = re.search(r"stack_frame_id=(\d+)", line)
            every = stack(int(frame.group(1))) if frame else []
            frames = [f for f in every if "tcgjax/" in f[0]]
            named = [function for file, function, _ in frames
                     if "tcgjax/game/" in file and "<" not in function and function not in _HELPERS]
            part = named[-1] if named else "rotate" if any(f[1] == "rotate" for f in frames) else "bench" if frames else "?"
            functions = tuple(f"{file.rsplit('/', 1)[-1]}:{function}" for file, function, _ in every
                              if "tcgjax/" in file or "paritygym/" in file)
            out[match.group(2)] = (len(computations.get(called.group(1), [])) if called else 1,
                                   " > ".join(f"{function}:{number}" for _, function, number in frames[-3:]), part,
                                   functions)
    return out


def profile_core(batch: int, calls: int = 3, scan_length: int = 16, top: int = 25,
                 vmapped: bool = False) -> list[tuple[str, float, int, int, str, str, tuple[str, ...]]]:
    """Kernel time of the batched core: runs the compiled program `calls` times inside a
    `jax.profiler` trace and sums the host-side event durations by kernel name (XLA:CPU emits one
    event per fusion/kernel run). Returns the `top` (name, time / wall time of the calls, runs,
    fused instructions per output element, source frames, part, all frames) rows (see
    `kernel_sources`)."""
    reset, run = core_programs(batch, scan_length, vmapped=vmapped)
    key = jax.random.key(0)
    states = reset(key)
    compiled = run.lower(key, states).compile()
    states, finished = compiled(key, states)
    jax.block_until_ready(finished)

    def call(i, states):
        states, finished = compiled(jax.random.fold_in(key, i + 1), states)
        jax.block_until_ready(finished)
        return states

    return _profile(compiled, call, states, calls, top)


def profile_env(batch: int, interleaved: bool, calls: int = 3, scan_length: int = 16,
                top: int = 10_000) -> list[tuple[str, float, int, int, str, str, tuple[str, ...]]]:
    """`profile_core` for the single-agent env program of `env_program` (random agent vs the random
    opponent, params traced): rows of (name, share of wall, runs, instructions per element,
    source, part, all frames); `env_part` names the env's part of a row."""
    reset, run, params = env_program(batch, scan_length)
    params = params.replace(game=params.game.replace(interleaved=interleaved))
    key = jax.random.key(0)
    states = reset(key, params)
    compiled = run.lower(key, states, params).compile()
    states, decisions, _ = compiled(key, states, params)
    jax.block_until_ready(decisions)

    def call(i, states):
        states, decisions, _ = compiled(jax.random.fold_in(key, i + 1), states, params)
        jax.block_until_ready(decisions)
        return states

    return _profile(compiled, call, states, calls, top)


def env_part(functions: tuple[str, ...]) -> str:
    """The part of the env step a kernel belongs to, from its frames (`kernel_sources`): the
    autoreset's new episodes, the game step (`tcgjax.game.step.step_batch`) and the legal masks
    and opponent policy of the opponent loop, its gathers and scatters, the observation, the
    agent's mask, the bench's random agent; "?" for the copies XLA inserts."""
    # frames name nested functions by their qualified name ("TCGPocketA1.step_batch.<locals>.restart")
    frames = {f"{file}:{function.rsplit('.', 1)[-1]}" for file, function in (f.split(":", 1) for f in functions)}
    if "env.py:restart" in frames:
        return "restart (new episodes)"
    for frame, part in (("step.py:step_batch", "game step (step_batch)"), ("env.py:_opponent_policy", "opponent policy"),
                        ("step.py:legal_actions", "legal masks (opponent loop)"), ("observe.py:observe", "observation"),
                        ("env.py:_agent_mask", "agent mask"),
                        ("env.py:_advance_batch", "opponent loop (gathers, scatters)")):
        if frame in frames:
            return part
    if any(f.startswith("bench.py:") for f in functions) and not any(f.startswith("env.py:") for f in functions):
        return "bench (random agent)"
    return "env (other)" if functions else "?"


def _profile(compiled, call, state, calls: int, top: int):
    """Runs `state = call(i, state)` for i < `calls` inside a `jax.profiler` trace; the rows of
    `profile_core` for the `compiled` program."""
    import glob
    import tempfile
    from collections import defaultdict

    with tempfile.TemporaryDirectory() as folder:
        with jax.profiler.trace(folder):
            start = time.perf_counter()
            for i in range(calls):
                state = call(i, state)
            wall_ns = (time.perf_counter() - start) * 1e9
        (path,) = glob.glob(f"{folder}/**/*.xplane.pb", recursive=True)
        data = jax.profiler.ProfileData.from_file(path)
    total_ns, runs = defaultdict(float), defaultdict(int)
    for plane in data.planes:
        for line in plane.lines:
            if not line.name.startswith("tf_XLA"):  # the threads that run XLA:CPU kernels
                continue
            for event in line.events:
                # skip markers and containers (the executor, loops: their kernels are counted)
                if event.name.startswith(("end: ", "Threadpool", "ThunkExecutor", "while")):
                    continue
                total_ns[event.name] += event.duration_ns
                runs[event.name] += 1
    # shares of the wall time: what the kernels do not cover is dispatch between kernels (and
    # kernels run in parallel on several threads, which makes the sum exceed the wall time)
    rows = sorted(total_ns.items(), key=lambda item: -item[1])[:top]
    sources = kernel_sources(compiled.as_text())
    return [(name, ns / wall_ns, runs[name]) + sources.get(name, (0, "", "?", ())) for name, ns in rows]


# the step's parts by which `bytes_written` groups the writes (the innermost one on a stack wins)
_BYTES_SITES = ("_before_handlers", "_apply_light", "_run_handlers", "step_batch", "_after_handlers", "settle",
                "_to_turn_player", "_back_to_table", "settle_quiet", "_play_trainer", "_use_ability", "_resolve_attack")


def bytes_written(batch: int = 64, scan_length: int = 16, top: int = 25,
                  vmapped: bool = False) -> tuple[float, list[tuple[str, float]]]:
    """Bytes the compiled core writes per game per game action, and their split by call site.

    Compiles `core_programs`' run, takes the largest `while` body of its HLO (the scan body: one
    batched game action; loops nested in it, such as the shuffle, are not counted) and adds up the
    output size of every instruction that writes an array. Each instruction's stack frames (in the
    compiled HLO text) name the line of the step's parts (`_apply_light`, `step_batch`, `settle`, ...) it comes from and the
    rule function called there. Returns (bytes per game, the `top` (site, bytes per game) rows);
    "?" collects the copies XLA inserts, which carry no source location."""
    import re
    from collections import Counter

    reset, run = core_programs(batch, scan_length, vmapped=vmapped)
    key = jax.random.key(0)
    text = run.lower(key, reset(key)).compile().as_text()
    computations, stack = _hlo_index(text)
    body = max(set(re.findall(r"body=%?([\w.\-]+)", text)), key=lambda name: len(computations.get(name, [])))
    itemsize = {"pred": 1, "s8": 1, "u8": 1}
    sites, total = Counter(), 0
    for line in computations[body]:
        match = re.match(r"\s*(ROOT )?%?[\w.\-]+ = (\w+)\[([\d,]*)\]\S* ([\w\-]+)\(", line)
        if not match or match.group(4) in ("parameter", "get-tuple-element", "tuple", "bitcast", "constant"):
            continue
        size = int(np.prod([int(d) for d in match.group(3).split(",") if d])) * itemsize.get(match.group(2), 4)
        total += size
        frame = re.search(r"stack_frame_id=(\d+)", line)
        site = "?"
        calls = [f for f in (stack(int(frame.group(1))) if frame else [])
                 if "tcgjax/game/" in f[0] and f[1] != "<lambda>"]
        for i, (_, function, line_number) in enumerate(calls):
            if function in _BYTES_SITES:
                site = f"{function}:{line_number}" + (f" -> {calls[i + 1][1]}" if i + 1 < len(calls) else "")
        sites[site] += size
    return total / batch, [(site, size / batch) for site, size in sites.most_common(top)]


def env_program(batch: int, scan_length: int, closed_params=None, vmapped: bool = False):
    """(reset, run, params) of the single-agent env `TCGPocketA1-v0` with a uniform random legal
    agent: `run(key, states, params)` makes `scan_length` env steps in each of `batch` envs and
    returns (states, agent decisions made: the steps where the agent acted, which is every step in
    the default mode) and the sum of every observation (so the observation is computed, as in
    `paritygym bench`). One program for both modes (`params.game.interleaved` is traced).

    `closed_params`: compile with these params as constants instead (what a trainer and
    `paritygym bench` do: the opponent and the mode are known at compile time, so XLA drops the
    other opponent's code); `run` then ignores its `params` argument. The batch is stepped by
    `paritygym.batched_step(env)` (the env's `step_batch`), or by the vmapped `step` where `vmapped`."""
    from paritygym.batching import batched_step
    from paritygym.bench.runner import observation_checksum
    from tcgjax.env import TCGPocketA1
    env = TCGPocketA1()
    if closed_params is not None:
        reset_traced, run_traced, _ = env_program(batch, scan_length, vmapped=vmapped)
        reset_closed = jax.jit(lambda key, params: reset_traced(key, closed_params))
        run_closed = jax.jit(lambda key, states, params: run_traced(key, states, closed_params), donate_argnums=1)
        return reset_closed, run_closed, closed_params

    def reset(key, params):
        return jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(key, batch), params)[1]

    def run(key, states, params):
        def body(states, k):
            k_act, k_step = jax.random.split(k)
            masks = jax.vmap(env.action_mask, in_axes=(0, None))(states, params)
            actions = jax.random.categorical(k_act, jnp.where(masks, 0.0, -jnp.inf)).astype(jnp.int32)
            step_envs = jax.vmap(env.step, in_axes=(0, 0, 0, None)) if vmapped else batched_step(env)
            obs, states, _, _, _, info = step_envs(jax.random.split(k_step, batch), states, actions, params)
            # read every observation, as `paritygym bench` does: else XLA drops it as dead code
            return states, (info["agent_acted"].sum(), observation_checksum(obs))

        states, (decisions, checksums) = jax.lax.scan(body, states, jax.random.split(key, scan_length))
        return states, decisions.sum(), checksums.sum()

    return jax.jit(reset), jax.jit(run, donate_argnums=1), env.default_params


def bench_env(batch: int, interleaved: bool, seconds: float = 2.0, scan_length: int = 16, programs=None,
              closed: bool = False, vmapped: bool = False) -> dict:
    """Env steps/s and agent decisions/s (per wall and per CPU second) of the single-agent env
    (random agent vs the random opponent). `programs`: (reset, compiled run, params) to reuse.
    `closed`: params closed over (one program per mode, as a trainer compiles it)."""
    key = jax.random.key(0)
    compile_s = 0.0
    if programs is None:
        closed_params = None
        if closed:
            from tcgjax.env import TCGPocketA1
            default = TCGPocketA1().default_params
            closed_params = default.replace(game=default.game.replace(interleaved=interleaved))
        reset, run, params = env_program(batch, scan_length, closed_params, vmapped)
        start = time.perf_counter()
        compiled = run.lower(key, reset(key, params), params).compile()
        compile_s = time.perf_counter() - start
        programs = (reset, compiled, params)
    reset, compiled, params = programs
    params = params.replace(game=params.game.replace(interleaved=interleaved))
    states = reset(key, params)
    states, decisions, _ = compiled(jax.random.fold_in(key, 0), states, params)
    jax.block_until_ready(decisions)
    calls, total, start, cpu_start = 0, 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        calls += 1
        states, decisions, _ = compiled(jax.random.fold_in(key, calls), states, params)
        total += int(decisions)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    steps = calls * scan_length * batch
    return {"batch": batch, "interleaved": interleaved, "steps_per_s": steps / elapsed, "decisions_per_s": total / elapsed,
            "decisions_per_cpu_s": total / cpu, "compile_s": compile_s, "programs": programs}


def reference_actions_per_decision(num_steps: int = 20_000, interleaved: bool = False, seed: int = 1) -> float:
    """Mean game actions per agent decision of the reference single-agent env with random play
    (random agent vs the random opponent, shipped decks, as `tcgjax.reference.env.bench_reference`):
    the agent's action plus the opponent's actions up to the agent's next decision (the opponent's
    opening turns of the new episodes included). The JAX env plays the same games: in its
    interleaved mode every env step is one game action, so env steps / agent decisions is the
    same mean."""
    from unittest import mock

    from tcgjax.decks import shipped_decks
    from tcgjax.reference import Game
    from tcgjax.reference.env import ReferenceSingleAgentEnv

    rng = np.random.default_rng(seed)
    decks = list(shipped_decks().values())
    env = ReferenceSingleAgentEnv("random", seed=seed, interleaved=interleaved)
    actions = decisions = 0
    game_step = Game.step

    def counted_step(game, action):
        nonlocal actions
        actions += 1
        return game_step(game, action)

    def new_episode():
        env.reset([decks[rng.integers(len(decks))], decks[rng.integers(len(decks))]], int(rng.integers(2**32)),
                  int(rng.integers(2)))

    with mock.patch.object(Game, "step", counted_step):
        new_episode()
        for _ in range(num_steps):
            decisions += env.game.state.decider == env.agent
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
            if terminated or truncated:
                new_episode()
    return actions / decisions


def _reference_actions(num_actions: int, seed: int) -> tuple[int, float]:
    """Game actions of the reference engine with random legal play on both sides, timed."""
    from tcgjax.decks import shipped_decks
    from tcgjax.reference import Game

    rng = np.random.default_rng(seed)
    decks = list(shipped_decks().values())

    def new_game_ref():
        return Game.new([decks[rng.integers(len(decks))], decks[rng.integers(len(decks))]], int(rng.integers(2**32)))

    game = new_game_ref()
    start = time.perf_counter()
    for _ in range(num_actions):
        game.step(int(rng.choice(np.flatnonzero(game.legal_actions()))))
        if game.done:
            game = new_game_ref()
    return num_actions, time.perf_counter() - start


def _worker(args):
    return _reference_actions(*args)


def bench_reference_core(num_actions: int = 20_000, num_procs: int = 1) -> float:
    """Game actions/s of the reference engine (random play), over `num_procs` processes."""
    if num_procs <= 1:
        n, s = _reference_actions(num_actions, 1)
        return n / s
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(num_procs) as pool:
        results = pool.map(_worker, [(num_actions // num_procs, 100 + i) for i in range(num_procs)])
    return sum(r[0] for r in results) / max(r[1] for r in results)


def main(argv=None) -> None:
    from paritygym.memory import keep_freed_memory

    keep_freed_memory()  # XLA:CPU's per-call buffers reused, not faulted in afresh (paritygym.memory)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[1024])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--scan-length", type=int, default=16)
    parser.add_argument("--reference", action="store_true", help="also time the reference (1 process, 1 per core)")
    parser.add_argument("--env", action="store_true",
                        help="time the single-agent env (default and interleaved modes, random agent vs random opponent) instead")
    parser.add_argument("--closed-params", action="store_true",
                        help="with --env: compile one program per mode with the params closed over (as a trainer does)")
    parser.add_argument("--bytes", action="store_true",
                        help="bytes the compiled core writes per game action, by call site (HLO of the scan body) instead")
    parser.add_argument("--vmapped", action="store_true",
                        help="step the batch with the vmapped step instead of step_batch (core and --env; same games, to compare)")
    parser.add_argument("--requests", action="store_true",
                        help="share of the games asking for each part of step_batch per game action (random legal play) instead")
    parser.add_argument("--profile", action="store_true",
                        help="kernel time of the core by kernel name (jax.profiler trace) instead of throughput")
    args = parser.parse_args(argv)
    if args.bytes:
        for batch in args.batch:
            total, rows = bytes_written(batch, args.scan_length, vmapped=args.vmapped)
            print(f"batch {batch}: {total:,.0f} bytes written per game per game action; by call site:", flush=True)
            for site, size in rows:
                print(f"  {size:9,.0f}  {site}")
        return
    if args.requests:
        for batch in args.batch:
            print(f"batch {batch}: share of the games asking for each part of step_batch per game action, "
                  f"{64 * args.scan_length} actions of random legal play after {32 * args.scan_length}: mean, largest",
                  flush=True)
            for part, (mean, largest) in request_rates(batch, 64, args.scan_length).items():
                print(f"  {part:8s} {mean:6.1%} {largest:6.1%}")
        return
    if args.profile and args.env:
        for batch in args.batch:
            for interleaved in (False, True):
                rows = profile_env(batch, interleaved, 3, args.scan_length)
                print(f"env {'interleaved' if interleaved else 'default'} batch {batch}: share of wall time in 3 calls "
                      f"of {args.scan_length} env steps; all kernels {sum(row[1] for row in rows):.0%} "
                      f"({len(rows)} kernels); by part of the env step:", flush=True)
                parts: dict[str, float] = {}
                for row in rows:
                    parts[env_part(row[6])] = parts.get(env_part(row[6]), 0.0) + row[1]
                for part, share in sorted(parts.items(), key=lambda item: -item[1]):
                    print(f"  {share:6.1%}  {part}")
        return
    if args.profile:
        for batch in args.batch:
            print(f"batch {batch}: share of wall time, runs in 3 calls of {args.scan_length} steps, kernel", flush=True)
            rows = profile_core(batch, 3, args.scan_length, top=10_000, vmapped=args.vmapped)
            print(f"  all kernels: {sum(row[1] for row in rows):.0%} of wall time ({len(rows)} kernels); "
                  "share, runs, fused instructions per element, kernel, source")
            for name, share, runs, instructions, source, *_ in rows[:30]:
                print(f"  {share:6.1%} {runs:7d} {instructions:5d}  {name:40s} {source}")
            parts: dict[str, float] = {}
            for _, share, _, _, _, part, *_ in rows:
                parts[part] = parts.get(part, 0.0) + share
            print("  by part (innermost rule function of the source; ?: XLA copies, no source):")
            for part, share in sorted(parts.items(), key=lambda item: -item[1])[:20]:
                print(f"  {share:6.1%}  {part}")
        return
    if args.env:
        for batch in args.batch:
            programs = None
            for interleaved in (False, True):
                r = bench_env(batch, interleaved, args.seconds, args.scan_length, programs, args.closed_params, args.vmapped)
                programs = None if args.closed_params else r["programs"]
                # interleaved: one game action per env step, so steps / decisions = game actions per decision
                per_decision = (f"  ({r['steps_per_s'] / r['decisions_per_s']:.3f} game actions per agent decision)"
                                if interleaved else "")
                print(f"env {'interleaved' if interleaved else 'default    '} batch {batch:>6}: {r['steps_per_s']:>10,.0f} env steps/s  "
                      f"{r['decisions_per_s']:>10,.0f} agent decisions/s  {r['decisions_per_cpu_s']:>10,.0f} per CPU s  "
                      f"(compile {r['compile_s']:.1f} s){per_decision}", flush=True)
        if args.reference:
            for interleaved in (False, True):
                print(f"reference env {'interleaved' if interleaved else 'default'}: "
                      f"{reference_actions_per_decision(20_000, interleaved):.3f} game actions per agent decision",
                      flush=True)
        return
    for batch in args.batch:
        r = bench_core(batch, args.seconds, args.scan_length, args.vmapped)
        print(f"jax core{' (vmap)' if args.vmapped else ''}   batch {batch:>6}: {r['actions_per_s']:>12,.0f} game actions/s  "
              f"{r['games_per_s']:>9,.1f} games/s  {r['actions_per_cpu_s']:>10,.0f} per CPU s  "
              f"(compile {r['compile_s']:.1f} s)", flush=True)
    if args.reference:
        import os
        for procs in sorted({1, os.cpu_count() or 1}):
            print(f"reference x{procs}:            {bench_reference_core(20_000, procs):>12,.0f} game actions/s", flush=True)


if __name__ == "__main__":
    main()
