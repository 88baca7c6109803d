"""L3 parity: play the same battle in Showdown and in pokejax, compare after every decision.

Both players choose uniformly at random among Showdown's legal choices. After every step the full
comparable state (HP, status, stages, volatiles, PP, actives, faints, winner, PRNG state, the legal
choices...) must be identical; on the first difference ``BattleResult.divergence`` says where,
with both values, the protocol log of the turn and both sequences of PRNG draws.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Callable, Sequence

import jax
import numpy as np

from pokejax import prng
from pokejax.game import batched, engine, setup
from pokejax.game.state import REQUEST_MOVE
from pokejax.reference import ShowdownBridge, choice_actions, engine_arrays, showdown_record
from paritygym.verify import compare_trajectories

TRACE_CAPACITY = prng.POOL_SIZE


@dataclasses.dataclass
class BattleResult:
    battle_seed: list[int]
    player_seeds: list[list[int]]
    teams: list[str]
    steps: int
    matched: bool
    divergence: str = ""
    winner: int = -1

    def __str__(self) -> str:
        head = f"battle seed {self.battle_seed}, player seeds {self.player_seeds}: {self.steps} steps"
        return head + (" identical" if self.matched else f"\n{self.divergence}")


@functools.lru_cache(maxsize=None)
def compiled_engine(trace_capacity: int = TRACE_CAPACITY):
    """(new_battle, step), jitted once per process (and cached on disk by JAX). The battle starts
    through ``engine.step`` on the unstarted state (request REQUEST_START), the route the RL env's
    autoreset takes, so that every L3 battle checks it."""
    step = jax.jit(engine.step)
    unstarted = jax.jit(lambda teams, rng: setup.initial_state(teams, rng, trace_capacity))

    def new(teams, rng):
        return step(unstarted(teams, rng), np.zeros(2, np.int32))

    record = jax.jit(engine_arrays)
    return new, step, record


# (step index, Showdown's legal choices of both players, rng) -> both actions (None: no choice),
# or None to stop the battle there
Policy = Callable[[int, list, np.random.Generator], "list[int | None] | None"]


def _random_choice(rng: np.random.Generator, choices: dict) -> int | None:
    options = choice_actions(choices)
    if not options:
        return None
    return int(options[rng.integers(len(options))])


def _draws_text(ours: np.ndarray, theirs: list) -> str:
    ref = [(0, a, r) if b is None else (a, b, r) for a, b, r, *_ in theirs]
    sites = [d[3] if len(d) > 3 else "" for d in theirs]
    lines = []
    for k in range(max(len(ours), len(ref))):
        o = tuple(int(x) for x in ours[k]) if k < len(ours) else None
        r = ref[k] if k < len(ref) else None
        mark = "  " if o == r else "!!"
        lines.append(f"  {mark} {k:3d} ours={o} showdown={r} {sites[k] if k < len(sites) else ''}")
    return "\n".join(lines)


def _divergence_head(n: int, theirs: dict, d, log: list[str]) -> str:
    """Where a battle first differs: the step, the field, both values and the protocol log of the step."""
    return (f"step {n} (turn {int(theirs['turn'])}): field {d.field}{list(d.index) if d.index else ''}: "
            f"ours={d.ours} showdown={d.reference}\nprotocol log of the step:\n  " + "\n  ".join(log))


def _send_choices(bridge: ShowdownBridge, battle_id, actions) -> dict:
    """Both players' actions (0-3 move slot, 4-9 switch to team slot, None: no choice) to Showdown."""
    return bridge.choose(battle_id, *({"move": a} if a is not None and a < 4 else
                                      ({"switch": a - 4} if a is not None else None) for a in actions))


def play_battle(bridge: ShowdownBridge, battle_seed: Sequence[int], player_seeds: Sequence[Sequence[int]] | None = None,
                teams: Sequence[str] | None = None, choice_seed: int = 0, max_steps: int = 2000,
                format: str = "gen1randombattle", policy: Policy | None = None) -> BattleResult:
    """One battle in both engines; stops at the first difference. ``policy(step, choices, rng)``
    picks both players' actions from Showdown's legal choices (default: uniformly random); a
    scripted policy that returns ``max_steps``-long scripts ends the battle early by returning None."""
    new, step, record = compiled_engine()
    player_seeds = [list(s) for s in player_seeds] if player_seeds else [None, None]
    reply = bridge.start(battle_seed, p1_team=teams[0] if teams else None, p2_team=teams[1] if teams else None,
                         p1_seed=player_seeds[0], p2_seed=player_seeds[1], format=format, trace="sites")
    battle_id = reply["id"]
    packed = reply["teams"]
    st = new(setup.stack_teams(setup.from_packed(packed[0]), setup.from_packed(packed[1])),
             prng.seed_from_showdown(list(battle_seed)))
    result = BattleResult(list(battle_seed), player_seeds, packed, 0, True)
    rng = np.random.default_rng(choice_seed)
    log: list[str] = list(reply["log"])
    try:
        for n in range(max_steps + 1):
            ours = {k: np.asarray(v) for k, v in record(st).items()}
            theirs = showdown_record(reply)
            cmp = compare_trajectories([ours], [theirs])
            if not cmp.matched:
                d = cmp.first_divergence
                result.matched = False
                result.steps = n
                draws = np.asarray(st.draw_log)[:int(st.draw_count)]
                result.divergence = (_divergence_head(n, theirs, d, log) +
                                     f"\nPRNG draws of the step:\n{_draws_text(draws, reply.get('draws') or [])}")
                return result
            if reply["state"]["ended"]:
                result.steps = n
                result.winner = int(theirs["winner"])
                return result
            if policy is None:
                actions = [_random_choice(rng, reply["choices"][s]) for s in (0, 1)]
            else:
                actions = policy(n, reply["choices"], rng)
                if actions is None:   # the script is over
                    result.steps = n
                    return result
            reply = _send_choices(bridge, battle_id, actions)
            log = list(reply["log"])
            st = step(st, np.asarray([a if a is not None else 0 for a in actions], np.int32))
        result.steps = max_steps
        result.matched = False
        result.divergence = f"battle did not end within {max_steps} steps"
        return result
    finally:
        bridge.destroy(battle_id)


def seeds_for(index: int, base: int = 0) -> tuple[list[int], list[list[int]], int]:
    """Deterministic (battle seed, player seeds, choice seed) for battle number ``index``."""
    r = np.random.default_rng([base, index])
    words = r.integers(0, 65536, size=12).tolist()
    return words[:4], [words[4:8], words[8:12]], int(r.integers(1 << 31))


def play_generated_battle(bridge: ShowdownBridge, index: int, base: int, team_format: str,
                          battle_format: str = "gen1randombattle") -> BattleResult:
    """A battle whose teams come from another Showdown team generator (``gen1hackmonscup``: any
    moves and levels; ``gen1challengecup``: learnset moves, random IVs), played under
    ``battle_format`` rules. Exercises moves and Pokémon random battles never use."""
    battle_seed, player_seeds, choice_seed = seeds_for(index, base)
    teams = [bridge.generate_team(seed, format=team_format)["packed"] for seed in player_seeds]
    return play_battle(bridge, battle_seed, None, teams=teams, choice_seed=choice_seed, format=battle_format)


def batched_engine() -> tuple[Callable, Callable, Callable]:
    """(new_battle, step, record) for batches: the step is the RL env's route, the batched move turn
    (``batched.move_step_batch``) for battles in a move request and the batched switch turn
    (``batched.switch_step_batch``, the accelerator form's) for the others; no draw log (the batched
    turns keep none). Fresh jitted functions: they trace in the step form current at their first
    call (``paritygym.backend``); ``compiled_batched_engine`` is the per-process cached one."""
    # fresh functions: JAX caches traces by function, so jitting the module's functions again would
    # hand back a trace made in the other form
    moved = jax.jit(lambda states, actions: batched.move_step_batch(states, actions))
    switched = jax.jit(lambda states, actions: batched.switch_step_batch(states, actions))
    unstarted = jax.jit(jax.vmap(setup.initial_state))

    def new(teams, rng):   # Showdown's start action: the switch step of an unstarted battle
        states = unstarted(teams, rng)
        return switched(states, np.zeros((states.turn.shape[0], 2), np.int32))

    def step(states, actions):
        is_move = np.asarray(states.request) == REQUEST_MOVE
        a, b = moved(states, actions), switched(states, actions)
        return jax.tree_util.tree_map(lambda x, y: np.where(is_move.reshape((-1,) + (1,) * (x.ndim - 1)), x, y), a, b)

    return new, step, jax.jit(jax.vmap(engine_arrays))


compiled_batched_engine = functools.lru_cache(maxsize=None)(batched_engine)


def play_battles_batched(bridge: ShowdownBridge, indices: Sequence[int], base: int = 0,
                         max_steps: int = 2000) -> list[BattleResult]:
    """``play_battle`` for many random battles at once (battle ``i`` as ``seeds_for(i, base)`` gives
    it), stepped together as one batch through ``compiled_batched_engine``'s step: each battle is
    compared with Showdown after every one of its steps; a battle stops at its first difference."""
    new, step, record = compiled_batched_engine()
    results, replies, rngs = [], [], []
    for i in indices:
        battle_seed, player_seeds, choice_seed = seeds_for(i, base)
        reply = bridge.start(battle_seed, p1_seed=player_seeds[0], p2_seed=player_seeds[1])
        replies.append(reply)
        rngs.append(np.random.default_rng(choice_seed))
        results.append(BattleResult(list(battle_seed), player_seeds, reply["teams"], 0, True))
    teams = [setup.stack_teams(setup.from_packed(r["teams"][0]), setup.from_packed(r["teams"][1])) for r in replies]
    states = new(jax.tree_util.tree_map(lambda *x: np.stack(x), *teams),
                 np.stack([prng.seed_from_showdown(r.battle_seed) for r in results]))
    going = np.ones(len(results), bool)
    logs = [list(r["log"]) for r in replies]
    try:
        for n in range(max_steps + 1):
            ours = {k: np.asarray(v) for k, v in record(states).items()}
            actions = np.zeros((len(results), 2), np.int32)
            for b in np.flatnonzero(going):
                theirs = showdown_record(replies[b])
                cmp = compare_trajectories([{k: v[b] for k, v in ours.items()}], [theirs])
                if not cmp.matched:
                    d = cmp.first_divergence
                    results[b].matched, results[b].steps, going[b] = False, n, False
                    results[b].divergence = _divergence_head(n, theirs, d, logs[b])
                    continue
                if replies[b]["state"]["ended"]:
                    results[b].steps, results[b].winner, going[b] = n, int(theirs["winner"]), False
                    continue
                choice = [_random_choice(rngs[b], replies[b]["choices"][s]) for s in (0, 1)]
                replies[b] = _send_choices(bridge, replies[b]["id"], choice)
                logs[b] = list(replies[b]["log"])
                actions[b] = [a if a is not None else 0 for a in choice]
            if not going.any():
                return results
            states = step(states, actions)
        for b in np.flatnonzero(going):
            results[b].matched, results[b].steps = False, max_steps
            results[b].divergence = f"battle did not end within {max_steps} steps"
        return results
    finally:
        for r in replies:
            bridge.destroy(r["id"])


NO_CHOICE = -1  # a player without a choice this step (recordings); the engine is sent action 0


@dataclasses.dataclass
class BattleRecording:
    """A battle played in Showdown alone, enough to replay it without node: the battle seed and both
    packed teams (what ``setup`` needs to start it), both players' actions per step (``NO_CHOICE``
    for none) and Showdown's record (``showdown_record``) at the start and after every step."""

    battle_seed: list[int]
    teams: list[str]
    actions: list[list[int]]
    records: list[dict[str, np.ndarray]]


def record_battles(bridge: ShowdownBridge, indices: Sequence[int], base: int = 0,
                   max_steps: int = 2000) -> list[BattleRecording]:
    """The random battles ``play_battles_batched`` plays (battle ``i`` as ``seeds_for(i, base)`` gives
    it, the same random choices), played in Showdown only and recorded."""
    out = []
    for i in indices:
        battle_seed, player_seeds, choice_seed = seeds_for(i, base)
        reply = bridge.start(battle_seed, p1_seed=player_seeds[0], p2_seed=player_seeds[1])
        rng = np.random.default_rng(choice_seed)
        rec = BattleRecording(list(battle_seed), list(reply["teams"]), [], [showdown_record(reply)])
        try:
            while not reply["state"]["ended"]:
                if len(rec.actions) >= max_steps:
                    raise RuntimeError(f"battle {i} did not end within {max_steps} steps")
                choice = [_random_choice(rng, reply["choices"][s]) for s in (0, 1)]
                reply = _send_choices(bridge, reply["id"], choice)
                rec.actions.append([NO_CHOICE if a is None else a for a in choice])
                rec.records.append(showdown_record(reply))
        finally:
            bridge.destroy(reply["id"])
        out.append(rec)
    return out


def replay_records(recordings: Sequence[BattleRecording],
                   engine: tuple[Callable, Callable, Callable] | None = None) -> list[list[dict[str, np.ndarray]]]:
    """pokejax's records (``engine_arrays``) for the recorded battles, started from their seeds and
    teams and stepped together as one batch with the recorded actions (default engine:
    ``compiled_batched_engine``): per battle, the start and every step, as many as recorded."""
    new, step, record = engine or compiled_batched_engine()
    teams = [setup.stack_teams(setup.from_packed(r.teams[0]), setup.from_packed(r.teams[1])) for r in recordings]
    states = new(jax.tree_util.tree_map(lambda *x: np.stack(x), *teams),
                 np.stack([prng.seed_from_showdown(r.battle_seed) for r in recordings]))
    out: list[list[dict[str, np.ndarray]]] = [[] for _ in recordings]
    for n in range(max(len(r.actions) for r in recordings) + 1):
        ours = jax.device_get(record(states))
        actions = np.zeros((len(recordings), 2), np.int32)
        for b, r in enumerate(recordings):
            if n < len(r.records):
                out[b].append({k: np.asarray(v[b]) for k, v in ours.items()})
            if n < len(r.actions):   # ended battles step with action 0 and are no longer read
                actions[b] = np.maximum(r.actions[n], 0)
        if n < max(len(r.actions) for r in recordings):
            states = step(states, actions)
    return out
