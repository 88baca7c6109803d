"""L4 for PokemonGen1Random-v0: does a trained policy win as often against the max-damage bot when
its battles run in Pokémon Showdown as when they run in pokejax?

Training on Showdown is not affordable on a CPU machine (one node process plays ~1,800 turns/s; a
PPO run is millions of steps), so this checks *evaluation transfer*: the PPO policy trained on
pokejax by `examples/ppo_pokemon.py` (against the random opponent) plays ``games`` new battles
against the max-damage bot on each backend, with a sampled (stochastic) policy.

The Showdown backend (`ShowdownPokemonVectorEnv`) plays every battle in Showdown through the bridge
(many battles per node process). The agent and the bot see Showdown's own state: after every
decision the bridge's state snapshot is converted into a pokejax `BattleState`
(`state_from_showdown`, from the same record `pokejax.reference.showdown_record` that L3 compares
field by field) and pokejax's public `observe`, `legal_mask` and `max_damage_action` are applied to
it. The battles on the two backends are independent draws (Showdown generates both teams from the
player seeds; seed-matched battles would replay L3). A Welch TOST on the per-battle win indicator
(margin 0.02 win rate, alpha 0.05) judges equivalence.

    python examples/ppo_pokemon.py --time-budget-s 900     # vs the random opponent; runs/ppo_pokemon/
    paritygym verify PokemonGen1Random-v0 --level 4 --episodes 2048 \\
        --out docs/verification/PokemonGen1Random-v0-L4.json --markdown docs/verification/PokemonGen1Random-v0-L4.md
"""

from __future__ import annotations

import functools
import pathlib
import re
import time
from typing import Any

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np

from paritygym.twoplayer import OPPONENT_HEURISTIC, OPPONENT_RANDOM, random_legal_action
from pokejax.data import tables
from pokejax.game.bots import max_damage_action
from pokejax.game.masks import NUM_ACTIONS, legal_mask
from pokejax.game.observe import OBS_SIZE, observe
from pokejax.game.state import NUM_MOVE_SLOTS, TEAM_SIZE, Active, BattleState, Side, Team
from pokejax.reference import VOLATILE_COLUMNS, ShowdownBridge, choice_actions, showdown_record

ENV_ID = "PokemonGen1Random-v0"
L4_MARGIN = 0.02  # equivalence margin of the TOST on the win rate against the max-damage bot
#: The policy evaluated: `$PARITYGYM_POKEMON_POLICY`, else what `examples/ppo_pokemon.py` writes.
DEFAULT_CHECKPOINT = "runs/ppo_pokemon/checkpoint.msgpack"
TRAIN_COMMAND = "python examples/ppo_pokemon.py --time-budget-s 900"
MAX_TURNS = 1000  # PokemonParams.max_turns: a battle still running after this turn is truncated

_TABLES = tables.load()
_ACTIVE_LAYOUT = {name: Active.indices(name) for name, _ in Active.FIELDS}


def _to_id(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


# ---------------------------------------------------------------------------------------------
# Showdown's snapshot -> pokejax BattleState
# ---------------------------------------------------------------------------------------------

class RevealTracker:
    """What each player has seen of the other's team in one Showdown battle, kept the way pokejax
    keeps it (``Team.revealed``, ``Team.revealed_moves``), from the protocol log of every reply:
    a Pokémon is revealed once it has been in battle (one may switch in and faint within a turn),
    a move slot once its owner used that move of its set (not a move called by Metronome or
    Mirror Move, marked ``[from]``, nor one used while transformed). Feed it every reply in order."""

    def __init__(self) -> None:
        self.revealed = np.zeros((2, TEAM_SIZE), bool)
        self.revealed_moves = np.zeros((2, TEAM_SIZE, NUM_MOVE_SLOTS), bool)
        self._active = [None, None]
        self._transformed = [False, False]

    def update(self, reply: dict) -> None:
        sides = reply["state"]["sides"]
        for line in reply["log"]:
            parts = line.split("|")
            if len(parts) < 4 or parts[1] not in ("switch", "drag", "move", "-transform"):
                continue
            if not parts[2].startswith(("p1a:", "p2a:")):
                continue
            s = int(parts[2][1]) - 1
            if parts[1] in ("switch", "drag"):
                name = _to_id(parts[3].split(",")[0])
                slot = next(k for k, mon in enumerate(sides[s]["team"]) if name in (mon["base_species"], mon["species"]))
                self._active[s] = slot
                self._transformed[s] = False
                self.revealed[s, slot] = True
            elif parts[1] == "-transform":
                self._transformed[s] = True
            elif self._active[s] is not None and not self._transformed[s] and not any(p.startswith("[from]") for p in parts[4:]):
                move = _to_id(parts[3])
                slots = sides[s]["team"][self._active[s]]["base_move_slots"]
                for j, slot in enumerate(slots):
                    if slot["id"] == move:
                        self.revealed_moves[s, self._active[s], j] = True
        for s in (0, 1):
            active = sides[s]["active"]
            if active is not None:
                self._active[s] = active
                self._transformed[s] = bool(sides[s]["team"][active]["transformed"])
                self.revealed[s, active] = True


def state_from_showdown(reply: dict, seen: RevealTracker) -> BattleState:
    """A pokejax ``BattleState`` (numpy leaves, one battle) holding Showdown's state in ``reply``.

    Every field that L3 compares comes from ``showdown_record`` (the same conversion); the rest of
    what observations, masks and the max-damage bot read comes from the snapshot: each team's
    species, level, stats and move sets, the active's move slots; ``seen`` (updated with this reply)
    says what each player has revealed. Fields no observation, mask or bot reads (IVs, EVs, Sleep
    Clause bookkeeping, trap sources, the PRNG draw pool) are zero."""
    rec = showdown_record(reply)
    sides = reply["state"]["sides"]
    i32 = np.int32
    species = np.zeros((2, TEAM_SIZE), i32)
    level = np.zeros((2, TEAM_SIZE), i32)
    stats = np.zeros((2, TEAM_SIZE, 6), i32)
    moves = np.zeros((2, TEAM_SIZE, NUM_MOVE_SLOTS), i32)
    size = np.zeros(2, i32)
    for s in (0, 1):
        team = sides[s]["team"]
        size[s] = len(team)
        for k, mon in enumerate(team):
            species[s, k] = _TABLES.species_by_id[mon["base_species"]]
            level[s, k] = mon["level"]
            base = mon["base_stored_stats"]
            stats[s, k] = [mon["maxhp"]] + [base[name] for name in ("atk", "def", "spa", "spd", "spe")]
            for j, slot in enumerate(mon["base_move_slots"]):
                moves[s, k, j] = _TABLES.move_by_id[slot["id"]]
    pp = rec["base_pp"].astype(i32)
    revealed_moves = seen.revealed_moves.copy()
    team = Team(species=species, level=level, ivs=np.zeros((2, TEAM_SIZE, 6), i32),
                evs=np.zeros((2, TEAM_SIZE, 6), i32), stats=stats, moves=moves, pp=pp,
                hp=rec["hp"].astype(i32), status=rec["status"].astype(i32), sleep_turns=rec["sleep_turns"].astype(i32),
                status_by_foe=np.zeros((2, TEAM_SIZE), bool), fainted=rec["fainted"].astype(bool), size=size,
                revealed=seen.revealed.copy(), revealed_moves=revealed_moves)

    rows = [[0] * Active.WIDTH, [0] * Active.WIDTH]

    def put(s: int, name: str, value) -> None:
        offset, length = _ACTIVE_LAYOUT[name]
        if length == 1:
            rows[s][offset] = int(value)
        else:
            rows[s][offset:offset + length] = [int(v) for v in value]

    for s in (0, 1):
        slot = int(rec["active"][s])
        mon = sides[s]["team"][slot]
        put(s, "slot", slot)
        put(s, "hp", rec["hp"][s, slot])
        put(s, "status", rec["status"][s, slot])
        put(s, "sleep_turns", rec["sleep_turns"][s, slot])
        put(s, "fainted", rec["fainted"][s, slot])
        put(s, "base_moves", moves[s, slot])
        put(s, "base_pp", pp[s, slot])
        put(s, "base_revealed", revealed_moves[s, slot])
        for name in ("species", "types", "stored", "modified", "boosts", "speed", "transformed", "moves", "pp",
                     "last_move"):
            put(s, name, rec[name][s])
        put(s, "virtual", [ms["virtual"] for ms in mon["move_slots"]] + [False] * (4 - len(mon["move_slots"])))
        put(s, "sub_fainted", mon["sub_fainted"])
        for name, value in zip(VOLATILE_COLUMNS, rec["volatiles"][s].tolist()):
            put(s, name, value)
    active = np.asarray(rows, i32)

    side = np.zeros((2, Side.WIDTH), i32)
    for name, key in (("last_selected_move", "last_selected_move"), ("last_selected_slot", "last_selected_slot"),
                      ("last_move", "side_last_move"), ("last_enemy_move", "last_enemy_move"),
                      ("last_enemy_selected_move", "last_enemy_selected_move"), ("pokemon_left", "pokemon_left")):
        offset, _ = Side.indices(name)
        side[:, offset] = rec[key]
    offset, _ = Side.indices("switch_flag")
    side[:, offset] = [choice["kind"] == "switch" for choice in reply["choices"]]
    offset, _ = Side.indices("fainted_this_turn")
    side[:, offset] = [s["fainted_this_turn"] for s in sides]

    words = rec["rng"].astype(np.uint32)
    rng = np.asarray([(words[0] << 16) | words[1], (words[2] << 16) | words[3]], np.uint32)
    return BattleState(team=team.narrow(), active=Active.from_rows(active), side=Side.from_rows(side), rng=rng,
                       draw_pool=np.zeros(0, np.uint32), turn=np.asarray(rec["turn"], i32),
                       last_damage=np.asarray(rec["last_damage"], i32), request=np.asarray(rec["request"], i32),
                       winner=np.asarray(rec["winner"], i32), draw_log=np.zeros((0, 3), i32),
                       draw_count=np.zeros((), i32))


def stack_states(states: list[BattleState]) -> BattleState:
    return jax.tree_util.tree_map(lambda *xs: np.stack(xs), *states)


@functools.lru_cache(maxsize=None)
def _decide():
    """jit(vmap): (states, agent side, opponent kind, key seeds) -> agent observation, agent mask,
    opponent action, opponent mask. One compile per batch size."""

    def one(st, agent, opponent, seed):
        key = jax.random.key(seed)
        opp = 1 - agent
        opp_mask = legal_mask(st, opp)
        heuristic = max_damage_action(key, st, opp)
        random = random_legal_action(key, opp_mask)
        return observe(st, agent), legal_mask(st, agent), jnp.where(opponent == OPPONENT_HEURISTIC, heuristic, random), opp_mask

    return jax.jit(jax.vmap(one))


def showdown_legal(reply: dict, side: int) -> np.ndarray:
    """bool[NUM_ACTIONS]: the choices Showdown's request offers ``side`` (pokejax's action numbering)."""
    legal = np.zeros(NUM_ACTIONS, bool)
    legal[choice_actions(reply["choices"][side])] = True
    return legal


def _bridge_choice(action: int | None) -> dict | None:
    if action is None:
        return None
    return {"move": int(action)} if action < 4 else {"switch": int(action) - 4}


# ---------------------------------------------------------------------------------------------
# the Showdown-backed vector env
# ---------------------------------------------------------------------------------------------

#: commands in flight per node process at once: their lines (~150 bytes each) must fit the stdin
#: pipe's buffer, since node writes replies synchronously and reads no more input while we are not
#: reading (see ``ShowdownBridge.send``); one round trip per vector step instead of one per battle
PIPELINE_CHUNK = 128


def call_many(bridges: list[ShowdownBridge], requests: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Replies to ``requests`` ((bridge index, command), in order), with every node process
    working on its share at the same time."""
    queues: list[list[int]] = [[] for _ in bridges]
    for n, (b, _) in enumerate(requests):
        queues[b].append(n)
    replies: list[dict[str, Any] | None] = [None] * len(requests)
    while any(queues):
        rounds = [(b, queue[:PIPELINE_CHUNK]) for b, queue in enumerate(queues) if queue]
        for b, numbers in rounds:
            bridges[b].send([requests[n][1] for n in numbers])
        for b, numbers in rounds:
            for n, reply in zip(numbers, bridges[b].receive(len(numbers))):
                replies[n] = reply
            del queues[b][:len(numbers)]
    return replies


# ---------------------------------------------------------------------------------------------
# the Showdown-backed vector env (continued)
# ---------------------------------------------------------------------------------------------

class ShowdownPokemonVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` single-agent gen1randombattle battles played in Showdown, as a Gymnasium vector
    env (numpy, same-step autoreset, ``info["action_mask"]`` every step), mirroring
    `PokemonGen1Random-v0`: the agent plays a random side, both teams come from Showdown's
    generator, the opponent (max-damage or uniformly random legal) and the agent decide on the
    pokejax view of Showdown's state, reward +1 win / -1 loss / 0 tie, truncated after turn
    ``max_turns``. An illegal agent action is replaced by its lowest legal action (as in the JAX
    env). The opponent's lone replacement (the agent fainted its Pokémon) is part of the agent's step.

    ``bridges``: how many node processes share the battles (env i plays in process i mod bridges;
    each vector step sends every process its commands before reading any reply), or a list of
    `ShowdownBridge`s to use (not closed by ``close``).

    ``info["mask_mismatches"]`` counts decisions where pokejax's ``legal_mask`` of the converted
    state differed from Showdown's own choices (Showdown's choice set is then what is sent)."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, seed: int = 0, opponent: int = OPPONENT_HEURISTIC,
                 max_turns: int = MAX_TURNS, bridges: int | list[ShowdownBridge] = 1) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be positive, got {num_envs}")
        if opponent not in (OPPONENT_RANDOM, OPPONENT_HEURISTIC):
            raise ValueError(f"opponent must be {OPPONENT_RANDOM} (random) or {OPPONENT_HEURISTIC} (max-damage), got {opponent}")
        self.num_envs = num_envs
        self.opponent = opponent
        self.max_turns = max_turns
        self.single_observation_space = gymnasium.spaces.Box(-1.0, 1.0, (OBS_SIZE,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._own_bridges = isinstance(bridges, int)
        if self._own_bridges and bridges < 1:
            raise ValueError(f"bridges must be a positive number of node processes, got {bridges}")
        self.bridges = [ShowdownBridge() for _ in range(bridges)] if self._own_bridges else list(bridges)
        self._rng = np.random.default_rng(seed)
        self._ids: list[int | None] = [None] * num_envs
        self._replies: list[dict | None] = [None] * num_envs
        self._seen = [RevealTracker() for _ in range(num_envs)]
        self._states: list[BattleState | None] = [None] * num_envs
        self.agent = np.zeros(num_envs, np.int32)
        self.mask_mismatches = 0
        self.decisions = 0

    # -- battles ----------------------------------------------------------------------------------
    def _seed_words(self) -> list[int]:
        return [int(x) for x in self._rng.integers(0, 65536, size=4)]

    def _bridge_of(self, i: int) -> int:
        return i % len(self.bridges)

    def _new_battles(self, envs: list[int]) -> None:
        """Ends the battles of ``envs`` (if any) and starts a fresh one in each."""
        ended = [(self._bridge_of(i), {"cmd": "destroy", "id": self._ids[i]}) for i in envs if self._ids[i] is not None]
        starts = [(self._bridge_of(i), {"cmd": "start", "format": "gen1randombattle", "seed": self._seed_words(), "trace": False,
                   "p1": {"team": None, "seed": self._seed_words()}, "p2": {"team": None, "seed": self._seed_words()}})
                  for i in envs]
        replies = call_many(self.bridges, ended + starts)[len(ended):]
        for i, reply in zip(envs, replies):
            self._ids[i] = reply["id"]
            self.agent[i] = int(self._rng.integers(2))
            self._seen[i] = RevealTracker()
            self._set_reply(i, reply)

    def _set_reply(self, i: int, reply: dict) -> None:
        self._replies[i] = reply
        self._seen[i].update(reply)
        self._states[i] = state_from_showdown(reply, self._seen[i])

    def _decide_all(self):
        seeds = self._rng.integers(0, 2**32, size=self.num_envs, dtype=np.uint32)
        out = _decide()(stack_states(self._states), self.agent, np.full(self.num_envs, self.opponent, np.int32), seeds)
        return tuple(np.asarray(x) for x in out)

    def _send(self, decisions: list[tuple[int, int | None, int | None]]) -> None:
        """One decision in each of several battles: (env, agent action, opponent action), each
        action legal for Showdown or None (no choice to make)."""
        requests = []
        for i, agent_action, opp_action in decisions:
            choices: list[dict | None] = [None, None]
            choices[self.agent[i]] = _bridge_choice(agent_action)
            choices[1 - self.agent[i]] = _bridge_choice(opp_action)
            requests.append((self._bridge_of(i), {"cmd": "choose", "id": self._ids[i], "p1": choices[0], "p2": choices[1]}))
        for (i, _, _), reply in zip(decisions, call_many(self.bridges, requests)):
            self._set_reply(i, reply)

    def _legal_choice(self, i: int, side: int, action: int, ours: np.ndarray) -> int | None:
        """``action`` if Showdown accepts it, else Showdown's lowest legal choice; None when the side
        has no choice to make. Counts decisions where pokejax's mask and Showdown's differ."""
        legal = showdown_legal(self._replies[i], side)
        if not legal.any():
            return None
        self.decisions += 1
        if not np.array_equal(legal, ours):
            self.mask_mismatches += 1
        return int(action) if 0 <= action < NUM_ACTIONS and legal[action] else int(np.argmax(legal))

    def _observe(self):
        """Resolves pending lone opponent decisions (its replacement after the agent fainted its
        Pokémon), then returns the agent's observations and masks and the opponent's next actions."""
        obs, mask, opp_action, opp_mask = self._decide_all()
        for _ in range(4):   # a replacement is a switch turn, which always ends in a move request
            lone = [i for i in range(self.num_envs) if not self._replies[i]["state"]["ended"]
                    and not showdown_legal(self._replies[i], self.agent[i]).any()
                    and showdown_legal(self._replies[i], 1 - self.agent[i]).any()]
            if not lone:
                return obs, mask, opp_action, opp_mask
            self._send([(i, None, self._legal_choice(i, 1 - self.agent[i], opp_action[i], opp_mask[i])) for i in lone])
            obs, mask, opp_action, opp_mask = self._decide_all()
        raise RuntimeError("the opponent kept deciding alone for 4 decisions in a row")

    # -- gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self._new_battles(list(range(self.num_envs)))
        obs, mask, self._opp_action, self._opp_mask = self._observe()
        self._mask = mask
        return obs.astype(np.float32), {"action_mask": mask, "agent_side": self.agent.copy()}

    def step(self, actions):
        from paritygym.spaces import validate_batched_action

        actions = validate_batched_action(actions, self.single_action_space, self.num_envs)
        reward = np.zeros(self.num_envs, np.float32)
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        self._send([(i, self._legal_choice(i, int(self.agent[i]), int(actions[i]), self._mask[i]),
                      self._legal_choice(i, 1 - int(self.agent[i]), int(self._opp_action[i]), self._opp_mask[i]))
                     for i in range(self.num_envs)])
        # the opponent's lone replacements belong to this step; then score ended battles
        obs, mask, opp_action, opp_mask = self._observe()
        final_obs = obs.copy()
        restarted = []
        for i in range(self.num_envs):
            state = self._replies[i]["state"]
            if state["ended"]:
                winner = {"P1": 0, "P2": 1}.get(state["winner"], -1)
                reward[i] = 0.0 if winner < 0 else (1.0 if winner == self.agent[i] else -1.0)
                terminated[i] = True
            elif state["turn"] > self.max_turns:
                truncated[i] = True
            if terminated[i] or truncated[i]:
                restarted.append(i)
        if restarted:
            self._new_battles(restarted)
            obs, mask, opp_action, opp_mask = self._observe()
        self._mask, self._opp_action, self._opp_mask = mask, opp_action, opp_mask
        info = {"action_mask": mask, "final_obs": final_obs, "agent_side": self.agent.copy(),
                "mask_mismatches": self.mask_mismatches}
        return obs.astype(np.float32), reward, terminated, truncated, info

    def close(self, **kwargs) -> None:
        if self._own_bridges:
            for bridge in self.bridges:
                bridge.close()
        self.bridges = []


# ---------------------------------------------------------------------------------------------
# L4: the trained policy on both backends
# ---------------------------------------------------------------------------------------------

def checkpoint_path() -> pathlib.Path:
    """The trained policy L4 evaluates (PARITYGYM_POKEMON_POLICY, else {DEFAULT_CHECKPOINT})."""
    from paritygym.train.ppo import find_checkpoint

    return find_checkpoint("PARITYGYM_POKEMON_POLICY", DEFAULT_CHECKPOINT, "examples/ppo_pokemon.py", f"L4 for {ENV_ID}")


def _win(reward, info):
    """1 for the step that ends a battle the agent won (the only +1 reward), else 0."""
    return (reward > 0).astype(jnp.float32)


def evaluate_on_showdown(learner, params, games: int, seed: int, num_envs: int = 256,
                         bridges: int = 2) -> dict[str, np.ndarray]:
    """Per-battle win, loss and length of the sampled policy against the max-damage bot in
    Showdown: each of ``num_envs`` envs plays its first ``ceil(games / num_envs)`` battles (a
    fixed number per env, so short battles are not favoured), the first ``games`` kept."""
    per_env = -(-games // num_envs)
    act = jax.jit(learner.act, static_argnames="greedy")
    env = ShowdownPokemonVectorEnv(num_envs, seed=seed, opponent=OPPONENT_HEURISTIC, bridges=bridges)
    try:
        obs, info = env.reset(seed=seed)
        carry = learner.initial_carry(num_envs)
        start = np.ones(num_envs, bool)
        length = np.zeros(num_envs)
        results: list[list[tuple[float, float, float]]] = [[] for _ in range(num_envs)]
        key = jax.random.key(seed)
        last_report = time.perf_counter()
        while min(len(r) for r in results) < per_env:
            if time.perf_counter() - last_report > 120:
                last_report = time.perf_counter()
                print(f"showdown: {sum(min(len(r), per_env) for r in results)} of {per_env * num_envs} battles", flush=True)
            key, k = jax.random.split(key)
            _, action, _, _, carry = act(params, obs, carry, start, info["action_mask"], k, greedy=False)
            obs, reward, terminated, truncated, info = env.step(np.asarray(action))
            length += 1
            done = terminated | truncated
            for i in np.flatnonzero(done):
                if len(results[i]) < per_env:
                    results[i].append((float(reward[i] > 0), float(reward[i] < 0), length[i]))
                length[i] = 0
            start = done
        rows = np.asarray([row for env_rows in results for row in env_rows[:per_env]])[:games]
        return {"win": rows[:, 0], "loss": rows[:, 1], "length": rows[:, 2],
                "mask_mismatches": np.asarray(env.mask_mismatches), "decisions": np.asarray(env.decisions)}
    finally:
        env.close()


def evaluate_on_pokejax(ppo, params, games: int, seed: int, batch: int = 1024) -> dict[str, np.ndarray]:
    """Per-battle win, loss and length against the max-damage bot in pokejax: rounds of ``batch``
    parallel battles (the first battle of each env: `paritygym.train.evaluate`)."""
    from paritygym.train import evaluate

    # the same metrics as examples/ppo_pokemon.py's evaluation, so its compiled program is reused
    # from the persistent cache; a loss is a battle whose return is -1
    ppo.metrics["win"] = _win
    out: dict[str, list] = {"win": [], "loss": [], "length": []}
    round_index = 0
    while len(out["win"]) < games:
        scores = evaluate(ppo, params, num_episodes=batch, seed=seed + 7919 * round_index)
        out["win"].extend(np.asarray(scores["win"]).tolist())
        out["loss"].extend((np.asarray(scores["return"]) < 0).astype(float).tolist())
        out["length"].extend(np.asarray(scores["length"]).tolist())
        round_index += 1
    return {name: np.asarray(values[:games]) for name, values in out.items()}


def evaluate_both(games: int, seed: int) -> dict[str, Any]:
    from paritygym.train.ppo import load_checkpoint, trained_steps

    path = checkpoint_path()
    config, params, ppo = load_checkpoint(path)
    if config.env_id != ENV_ID:
        raise ValueError(f"{path} is a policy for {config.env_id}, not {ENV_ID}")
    ppo.env_params = ppo.env_params.replace(opponent=OPPONENT_HEURISTIC)
    out: dict[str, Any] = {"checkpoint": str(path), "trained_with": {
        "env_kwargs": config.env_kwargs, "steps_trained": trained_steps(path), "hidden": config.hidden,
        "layers": config.layers, "seed": config.seed, "command": TRAIN_COMMAND}}  # fmt: skip
    # The two backends run at the same time (threads: JAX releases the GIL while it computes and
    # Showdown works in its own node processes), so both share the machine's load alike.
    from concurrent.futures import ThreadPoolExecutor

    def timed(name, run):
        start = time.perf_counter()
        result = run()
        seconds = time.perf_counter() - start
        print(f"{name}: {games} battles in {seconds:.0f} s, win rate {result['win'].mean():.3f}", flush=True)
        return result, seconds

    with ThreadPoolExecutor(2) as pool:
        jobs = {"reference": pool.submit(timed, "reference", lambda: evaluate_on_showdown(ppo, params, games, seed + 1)),
                "ours": pool.submit(timed, "ours", lambda: evaluate_on_pokejax(ppo, params, games, seed))}
        for name, job in jobs.items():
            out[name], out[name + "_seconds"] = job.result()
    return out


def verify_l4(level: int = 4, episodes: int = 2048, seed: int = 0, alpha: float = 0.05) -> list:
    """`paritygym verify PokemonGen1Random-v0 --level 4 --episodes N`: N battles per backend (see the
    module docstring); one report, passed when the TOST shows the win rates equivalent within L4_MARGIN."""
    from paritygym.verify import check_transfer_request, transfer_report

    check_transfer_request("pokejax.l4", level, episodes, "battles")
    run = evaluate_both(episodes, seed)
    win_ours, win_ref = run["ours"]["win"], run["reference"]["win"]
    details = {
        "evaluation": "evaluation transfer only: the policy was trained on pokejax (training on Showdown is not "
                      "affordable on CPU); independent battles on each backend, sampled policy; on Showdown the "
                      "agent and the bot see pokejax's observation/mask/max-damage choice of the converted "
                      "Showdown state (pokejax.l4.state_from_showdown)",
        "opponent": "max-damage bot (pokejax.game.bots.max_damage_action)",
        "battles_per_backend": episodes,
        "win_rate": {"ours": float(win_ours.mean()), "reference": float(win_ref.mean())},
        "loss_rate": {"ours": float(run["ours"]["loss"].mean()), "reference": float(run["reference"]["loss"].mean())},
        "mean_battle_length_agent_steps": {"ours": float(run["ours"]["length"].mean()),
                                           "reference": float(run["reference"]["length"].mean())},
        "showdown_mask_mismatches": {"decisions": int(run["reference"]["decisions"]),
                                     "pokejax_mask_differs_from_showdown": int(run["reference"]["mask_mismatches"])},
        "seconds_wall_run_concurrently": {"ours": run["ours_seconds"], "reference": run["reference_seconds"]},
        "checkpoint": run["checkpoint"],
        "trained_with": run["trained_with"],
    }
    return [transfer_report(ENV_ID, "PPO policy (trained on pokejax) vs max-damage bot: pokejax vs Showdown",
                            win_ours, win_ref, L4_MARGIN, alpha, "win rate", 2 * episodes, details)]
