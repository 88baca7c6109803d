"""Gen 1 random battles as RL environments.

``PokemonGen1Random`` is the two-player functional core (``paritygym.twoplayer.TwoPlayerGame``):
``step(key, state, actions[2])``, per-player observations, +1/-1/0 rewards, legal-action masks.
``PokemonGen1RandomEnv`` is the single-agent gymnax env against a built-in opponent (uniform
random legal, or the max-damage heuristic), registered as ``PokemonGen1Random-v0``.

Actions (both players): 0-3 use move slot 0-3, 4-9 switch to team slot 0-5 (team order as
generated). A forced move (recharge, Thrash/Rage/charge/Bide/Wrap locks, "Fight" while asleep,
frozen or partially trapped, Struggle) is action 0. A player who must not act this step
(the other side is replacing a fainted Pokémon) has an all-False mask and its action is ignored.

Observation (float32[OBS_SIZE], what that player may know; layout in ``obs_layout()`` and
docs/envs/pokemon.md): both teams per slot (own in full; the opponent's only once revealed:
species and level once seen, HP as Showdown's percentage, status, moves once used), both active
Pokémon's visible battle state (stages, confusion, substitute, screens, locks, ...), and the
request. ``params.full_observation`` shows the opponent as fully as one's own side.

Teams: by default every new battle runs Showdown's random-battle team generator (exactly
Showdown's teams for the drawn seed). ``PokemonGen1RandomEnv(team_pool_size=N)`` (registered as
``PokemonGen1RandomPool-v0`` with N = 4096) instead draws both teams of a new battle from N teams
generated once by that generator (``PokemonParams.team_pool``; ``teams.make_team_pool``): the
training and benchmark option, 2.5x the env steps per CPU second at batch 1024.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import spaces

from paritygym.batching import update_where_needed, where_needed
from paritygym.checks import bounded, check_discrete_action, check_value
from paritygym.random import batch_keys
from paritygym.twoplayer import (OPPONENT_RANDOM, SingleAgentEnv, SingleAgentParams, SingleAgentState,
                                 TwoPlayerGame, first_legal_action, random_legal_action)
from pokejax import prng
from pokejax.data import tables
from pokejax.game import batched, engine, mechanics, setup, teams
from pokejax.game.state import REQUEST_ENDED, REQUEST_MOVE, REQUEST_START, REQUEST_SWITCH, WINNER_TIE, BattleState

_TABLES = tables.load()
NUM_ACTIONS = engine.NUM_ACTIONS

# ---------------------------------------------------------------------------------------------
# observation layout
# ---------------------------------------------------------------------------------------------
MON_FIELDS = (
    ("present", 1), ("active", 1), ("fainted", 1), ("species", 1), ("level", 1), ("hp_fraction", 1),
    ("status", 7), ("base_stats", 6), ("types", 16), ("stats", 6),
)
MOVE_FIELDS = (("known", 1), ("move", 1), ("type", 16), ("category", 3), ("power", 1), ("accuracy", 1),
               ("pp_fraction", 1), ("priority", 1))
ACTIVE_FIELDS = (
    ("boosts", 7), ("stats", 5), ("confused", 1), ("substitute", 1), ("reflect", 1), ("light_screen", 1),
    ("mist", 1), ("focus_energy", 1), ("leech_seed", 1), ("must_recharge", 1), ("locked", 1), ("trapped", 1),
    ("transformed", 1), ("disabled_slot", 4), ("toxic_counter", 1),
)
GLOBAL_FIELDS = (("move_request", 1), ("switch_request", 1), ("must_act", 1), ("opponent_must_act", 1),
                 ("turn", 1))
MON_SIZE = sum(n for _, n in MON_FIELDS)
MOVE_SIZE = sum(n for _, n in MOVE_FIELDS)
SLOT_SIZE = MON_SIZE + 4 * MOVE_SIZE
ACTIVE_SIZE = sum(n for _, n in ACTIVE_FIELDS) + 4 * MOVE_SIZE
GLOBAL_SIZE = sum(n for _, n in GLOBAL_FIELDS)
OBS_SIZE = 2 * 6 * SLOT_SIZE + 2 * ACTIVE_SIZE + GLOBAL_SIZE


def obs_layout() -> list[tuple[str, int, int]]:
    """(name, start, length) of every block of the observation vector."""
    out, pos = [], 0
    for who in ("own", "opponent"):
        for k in range(6):
            for name, n in MON_FIELDS:
                out.append((f"{who}.team[{k}].{name}", pos, n))
                pos += n
            for j in range(4):
                for name, n in MOVE_FIELDS:
                    out.append((f"{who}.team[{k}].moves[{j}].{name}", pos, n))
                    pos += n
    for who in ("own", "opponent"):
        for name, n in ACTIVE_FIELDS:
            out.append((f"{who}.active.{name}", pos, n))
            pos += n
        for j in range(4):
            for name, n in MOVE_FIELDS:
                out.append((f"{who}.active.moves[{j}].{name}", pos, n))
                pos += n
    for name, n in GLOBAL_FIELDS:
        out.append((f"global.{name}", pos, n))
        pos += n
    assert pos == OBS_SIZE
    return out


_MOVE_TYPE = jnp.asarray(_TABLES.move_type)
_MOVE_CATEGORY = jnp.asarray(_TABLES.move_category)
_MOVE_POWER = jnp.asarray(_TABLES.move_power)
_MOVE_ACCURACY = jnp.asarray(_TABLES.move_accuracy)
_MOVE_MAXPP = jnp.asarray(_TABLES.move_maxpp)
_MOVE_PRIORITY = jnp.asarray(_TABLES.move_priority)
F32 = jnp.float32


def _unit(x) -> jax.Array:
    """float32 ``x`` clipped to [-1, 1]: PP underflow (63), long Toxic counters, custom levels and the
    turn past 1,000 saturate. Each computed feature is clipped where it is made; the table features
    (one-hots, base stats, power, accuracy, priority) lie in [-1, 1] already
    (``test_observation_table_features_lie_in_unit_range``). A clip of the whole vector would be one
    more pass over it: a kernel of its own in the env step (~3% of its kernel time)."""
    return jnp.clip(jnp.asarray(x, F32), -1.0, 1.0)


def _move_features(moves, pp, known, show_pp):
    """[..., 4] moves -> [..., 4, MOVE_SIZE]."""
    known = known & (moves != 0)
    acc = _MOVE_ACCURACY[moves]
    feats = [
        known[..., None].astype(F32), _unit(moves / 165.0)[..., None],
        jax.nn.one_hot(_MOVE_TYPE[moves], 16, dtype=F32), jax.nn.one_hot(_MOVE_CATEGORY[moves], 3, dtype=F32),
        (_MOVE_POWER[moves] / 255.0)[..., None].astype(F32),
        jnp.where(acc < 0, 1.0, acc / 255.0)[..., None].astype(F32),
        _unit(jnp.where(show_pp, pp / jnp.maximum(_MOVE_MAXPP[moves], 1), 0.0))[..., None],
        _MOVE_PRIORITY[moves][..., None].astype(F32),
    ]
    return jnp.where(known[..., None], jnp.concatenate(feats, axis=-1), 0.0)


def _team_features(st: BattleState, side, visible_all):
    """[6, SLOT_SIZE] for ``side`` (traced index); ``visible_all``: own side or full observation."""
    team = engine.synced_team(st)
    pick = lambda x: x[side]
    species, level, hp, status = pick(team.species), pick(team.level), pick(team.hp), pick(team.status)
    stats, fainted = pick(team.stats), pick(team.fainted)
    exists = jnp.arange(6) < pick(team.size)
    seen = exists & (visible_all | pick(team.revealed))
    is_active = jnp.arange(6) == st.active.slot[side]
    max_hp = jnp.maximum(stats[:, 0], 1)
    exact = hp / max_hp
    percent = jnp.ceil(100.0 * hp / max_hp)   # HP Percentage Mod: what the opponent sees
    percent = jnp.where((percent == 100) & (hp < max_hp), 99, percent) / 100.0
    types = mechanics.SPECIES_TYPES[species]
    mon = jnp.concatenate([
        seen[:, None].astype(F32), (is_active & seen)[:, None].astype(F32), (fainted & seen)[:, None].astype(F32),
        _unit(species / 151.0)[:, None], _unit(level / 100.0)[:, None],
        _unit(jnp.where(visible_all, exact, percent))[:, None],
        jax.nn.one_hot(jnp.where(fainted, 0, status), 7, dtype=F32),
        mechanics.SPECIES_BASE[species] / 255.0,
        jnp.clip(jax.nn.one_hot(types[:, 0], 16, dtype=F32) + jax.nn.one_hot(types[:, 1], 16, dtype=F32), 0, 1),
        _unit(jnp.where(visible_all, stats / 999.0, 0.0)),
    ], axis=-1).astype(F32)
    mon = jnp.where(seen[:, None], mon, 0.0)
    moves = _move_features(pick(team.moves), pick(team.pp), visible_all | pick(team.revealed_moves), visible_all)
    return jnp.concatenate([mon, moves.reshape(6, 4 * MOVE_SIZE)], axis=-1)


def _active_features(st: BattleState, side, visible_all):
    a = st.active.of_side(side)
    flags = [a.confusion > 0, a.sub_hp > 0, a.reflect, a.light_screen, a.mist, a.focus_energy, a.leech_seed,
             a.must_recharge,
             (a.locked_move != 0) | a.rage | (a.two_turn_move != 0) | (a.bide_time > 0) | (a.trap_lock_move != 0),
             a.trapped > 0, a.transformed]
    disabled = jnp.where(a.disable_move != 0, jax.nn.one_hot(a.disable_slot, 4, dtype=F32), 0.0)
    head = jnp.concatenate([
        _unit(a.boosts / 6.0), _unit(jnp.where(visible_all, a.modified / 999.0, 0.0)),
        jnp.stack(flags).astype(F32), disabled, _unit(a.toxic_counter / 16.0)[None],
    ]).astype(F32)
    # the active's current move slots (Transform, Mimic) are shown to its own player only
    moves = _move_features(a.moves, a.pp, jnp.broadcast_to(visible_all, (4,)), visible_all)
    return jnp.concatenate([head, moves.reshape(-1)])


@jax.jit   # traced once for its calls of the same shapes in an env step (less tracing, same program)
def observe(st: BattleState, player, full: bool | jax.Array = False) -> jax.Array:
    """float32[OBS_SIZE]: what ``player`` (0 or 1, may be traced) may know of the battle."""
    player = jnp.asarray(player, jnp.int32)
    foe = 1 - player
    full = jnp.asarray(full, bool)
    own_team = _team_features(st, player, jnp.asarray(True))
    foe_team = _team_features(st, foe, full)
    acting = must_act(st)
    glob = jnp.stack([st.request == REQUEST_MOVE, st.request == REQUEST_SWITCH, acting[player], acting[foe],
                      jnp.asarray(False)]).astype(F32).at[4].set(_unit(st.turn / 1000.0))
    return jnp.concatenate([own_team.reshape(-1), foe_team.reshape(-1),
                            _active_features(st, player, jnp.asarray(True)), _active_features(st, foe, full), glob])


def must_act(st: BattleState) -> jax.Array:
    """bool[2]: which players choose an action in the next step."""
    live = st.request != REQUEST_ENDED
    return live & ((st.request == REQUEST_MOVE) | ((st.request == REQUEST_SWITCH) & st.side.switch_flag))


@jax.jit   # the same: five calls in the env step
def legal_masks(st: BattleState) -> jax.Array:
    """bool[2, NUM_ACTIONS]: both players' legal actions (a row is all False when that player does
    not act this step). The env step computes it once per state it needs masks of and passes it on."""
    masks = jnp.stack([engine.legal_actions(st, 0), engine.legal_actions(st, 1)])
    return masks & must_act(st)[:, None]


def legal_mask(st: BattleState, player) -> jax.Array:
    """bool[NUM_ACTIONS]: ``player``'s legal actions (all False when it does not act this step)."""
    return legal_masks(st)[player]


def legal_or_first(st: BattleState, actions, masks: jax.Array | None = None) -> jax.Array:
    """int32[2]: each player's action, an illegal (or out-of-range) one replaced by its lowest
    legal action, so that the engine only ever sees choices Showdown would accept. ``masks``:
    ``legal_masks(st)`` when the caller has it already."""
    actions = jnp.asarray(actions, jnp.int32)
    masks = legal_masks(st) if masks is None else masks
    in_range = (actions >= 0) & (actions < NUM_ACTIONS)
    ok = in_range & jnp.take_along_axis(masks, jnp.clip(actions, 0, NUM_ACTIONS - 1)[:, None], axis=1)[:, 0]
    return jnp.where(ok, actions, jnp.argmax(masks, axis=1).astype(jnp.int32))


# ---------------------------------------------------------------------------------------------
# the max-damage opponent
# ---------------------------------------------------------------------------------------------

def expected_damage(st: BattleState, player) -> jax.Array:
    """float[4]: expected damage of each of ``player``'s active move slots on the foe's active
    (average roll, no crit, times accuracy); 0 for moves that deal no direct damage."""
    me = st.active.of_side(player)
    foe = st.active.of_side(1 - player)
    level = st.team.wide().level[player, me.slot]
    moves = me.moves
    mtype = _MOVE_TYPE[moves]
    special = _MOVE_CATEGORY[moves] == tables.CATEGORY_SPECIAL
    attack = jnp.where(special, me.modified[tables.SPA], me.modified[tables.ATK])
    defense = jnp.where(special, foe.modified[tables.SPD], foe.modified[tables.DEF])
    defense = jnp.where(jnp.where(special, foe.light_screen, foe.reflect), defense * 2, defense)
    selfdestruct = engine.MOVE_SELFDESTRUCT[moves] & ~special
    d = mechanics.base_damage(level, _MOVE_POWER[moves], attack, defense, False, selfdestruct)
    d = mechanics.modify_by_type(d, mtype, jnp.broadcast_to(me.types, (4, 2)), jnp.broadcast_to(foe.types, (4, 2)))
    d = jnp.where(d > 1, d * 236.0 / 255.0, d.astype(F32))
    fixed = engine.MOVE_FIXED[moves]
    d = jnp.where(fixed == -1, level.astype(F32), jnp.where(fixed > 0, fixed.astype(F32), d))
    d = jnp.where(engine.MOVE_EFFECT[moves] == tables.Effect.SUPER_FANG, jnp.maximum(foe.hp // 2, 1).astype(F32), d)
    immune = ~engine.MOVE_IGNORE_IMMUNITY[moves] & mechanics.is_immune(mtype, jnp.broadcast_to(foe.types, (4, 2)))
    damaging = (_MOVE_POWER[moves] > 0) | (fixed != 0) | (engine.MOVE_EFFECT[moves] == tables.Effect.SUPER_FANG)
    damaging = (damaging & (engine.MOVE_EFFECT[moves] != tables.Effect.COUNTER)
                & (engine.MOVE_EFFECT[moves] != tables.Effect.OHKO))
    acc = _MOVE_ACCURACY[moves]
    hit = jnp.where(acc < 0, 1.0, acc / 256.0)
    return jnp.where(damaging & ~immune & (moves != 0), d * hit, 0.0)


def max_damage_action(key, st: BattleState, player, mask: jax.Array | None = None) -> jax.Array:
    """The heuristic opponent: the legal move with the highest expected damage; a random legal
    action when no legal move deals damage (including forced switches). ``mask``:
    ``legal_mask(st, player)`` when the caller has it already."""
    mask = legal_mask(st, player) if mask is None else mask
    dmg = jnp.where(mask[:4], expected_damage(st, player), -1.0)
    best = jnp.argmax(dmg).astype(jnp.int32)
    return jnp.where(dmg[best] > 0, best, random_legal_action(key, mask))


# ---------------------------------------------------------------------------------------------
# the two-player core and the single-agent env
# ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def make_team_pool_cached(size: int, seed: int = 0) -> teams.TeamPool:
    """``teams.make_team_pool``, generated once per process for each (size, seed)."""
    return teams.make_team_pool(size, seed)


@functools.lru_cache(maxsize=None)
def _jitted_new_battle():
    return jax.jit(setup.new_battle)


@struct.dataclass
class PokemonParams:
    max_turns: int = bounded(1000, ge=1)  # turn cap: a battle still running after this turn is truncated
    full_observation: bool = False  # show the opponent's side in full
    # None: every new battle runs Showdown's team generator for both teams (the default, exactly
    # Showdown's gen1randombattle). A ``teams.TeamPool``: new battles draw two teams from it
    # (much cheaper per step; each team is one Showdown's generator makes; see ``make_team_pool``).
    # Teams of the random-battle sets only: the env's batched step runs no engine fallback.
    team_pool: teams.TeamPool | None = None


class PokemonGen1Random(TwoPlayerGame):
    """Gen 1 random battles (Showdown's gen1randombattle) between two players."""

    num_actions = NUM_ACTIONS

    @property
    def default_params(self) -> PokemonParams:
        return PokemonParams()

    def init(self, key, params: PokemonParams) -> BattleState:
        return engine.start_battle(self.init_unstarted(key, params))

    def init_unstarted(self, key, params: PokemonParams) -> BattleState:
        """A new battle (two random teams, battle seed from the key) before its leads are sent out
        (request REQUEST_START): the next ``step``, whatever the actions, starts it."""
        k_teams, k_battle = jax.random.split(key)
        if params.team_pool is None:
            battle_teams = teams.random_teams(k_teams)
        else:
            battle_teams = teams.draw_battle_teams(k_teams, params.team_pool)
        return setup.initial_state(battle_teams, prng.seed_from_key(k_battle))

    def init_from_packed(self, p1: str, p2: str, seed) -> BattleState:
        """Team injection (parity runs): the battle Showdown starts between two packed teams at a
        battle seed (four 16-bit words). Host-side: parses the teams, then one jitted start."""
        teams_ = setup.stack_teams(setup.from_packed(p1), setup.from_packed(p2))
        return _jitted_new_battle()(teams_, prng.seed_from_showdown(list(seed)))

    def step(self, key, state: BattleState, actions, params: PokemonParams, masks: jax.Array | None = None):
        """``masks``: ``legal_masks(state)`` when the caller has it already."""
        return self._step(engine.step, state, actions, params, masks)

    def move_step(self, key, state: BattleState, actions, params: PokemonParams, masks: jax.Array | None = None):
        """``step`` for a state in a move request (``engine.move_step``: no switch turn in its
        program); a state in a switch request or unstarted comes back unchanged (but for the
        engine's per-step draw pool), and ``switch_step`` then gives what ``step`` gives."""
        return self._step(engine.move_step, state, actions, params, masks)

    def switch_step(self, key, state: BattleState, actions, params: PokemonParams, masks: jax.Array | None = None):
        """``step`` for a state in a switch request or an unstarted battle (``init_unstarted``);
        any other state is returned unchanged. Its program lacks the move turn (a fraction of
        ``step``'s size and cost)."""
        return self._step(engine.switch_step, state, actions, params, masks)

    def move_step_batch(self, states: BattleState, actions, params: PokemonParams, masks: jax.Array,
                        engine_fallback: bool = True):
        """``jax.vmap(self.move_step)`` on a batch (the same results; no keys: the step uses none),
        through ``batched.move_step_batch``: the common move turn as batched code, the other battles
        through ``engine.move_step``. ``masks``: ``legal_masks`` of each state. Returns (states, rewards).
        ``engine_fallback=False``: no engine in the program, only for battles between teams of the
        random-battle sets (``init``'s; not every team ``init_from_packed`` accepts)."""
        stepped = batched.move_step_batch(states, jax.vmap(legal_or_first)(states, actions, masks),
                                          fallback=engine_fallback)
        new, rewards, _, _ = jax.vmap(lambda s, n: self._settle(s, n, params))(states, stepped)
        return new, rewards

    def _step(self, engine_step, state: BattleState, actions, params: PokemonParams, masks=None):
        return self._settle(state, engine_step(state, legal_or_first(state, actions, masks)), params)

    def _settle(self, state: BattleState, new: BattleState, params: PokemonParams):
        """A battle step's outcome: ``new`` (the engine's step of ``state``) unless ``state`` was over,
        the rewards, terminated, truncated."""
        over = self.is_over(state, params)
        new = jax.tree_util.tree_map(lambda a, b: jnp.where(over, b, a), new, state)
        ended = (new.request == REQUEST_ENDED) & ~over
        win = jnp.where(new.winner == WINNER_TIE, 0.0, jnp.where(jnp.arange(2) == new.winner, 1.0, -1.0))
        rewards = jnp.where(ended & (new.winner >= 0), win, 0.0).astype(jnp.float32)
        return new, rewards, self.is_terminated(new), self.is_truncated(new, params)

    def acting(self, state: BattleState, params: PokemonParams) -> jax.Array:
        return must_act(state) & ~self.is_truncated(state, params)

    def legal_action_mask(self, state: BattleState, player, params: PokemonParams) -> jax.Array:
        return legal_mask(state, player)

    def observe(self, state: BattleState, player, params: PokemonParams) -> jax.Array:
        return observe(state, player, params.full_observation)

    def observation_space(self, params: PokemonParams) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (OBS_SIZE,), jnp.float32)

    def is_terminated(self, state: BattleState) -> jax.Array:
        return state.request == REQUEST_ENDED

    def is_truncated(self, state: BattleState, params: PokemonParams | None = None) -> jax.Array:
        cap = (params or self.default_params).max_turns
        return (state.request != REQUEST_ENDED) & (state.turn > cap)

    def is_over(self, state: BattleState, params: PokemonParams | None = None) -> jax.Array:
        return self.is_terminated(state) | self.is_truncated(state, params)

    def heuristic_action(self, key, state: BattleState, player, params: PokemonParams) -> jax.Array:
        return max_damage_action(key, state, player)


class PokemonGen1RandomEnv(SingleAgentEnv):
    """One player of ``PokemonGen1Random`` against a built-in opponent (``params.opponent``:
    0 uniform random legal, 1 max damage).

    The full battle step appears once in the compiled program and runs once per env step: the
    opponent's lone replacement (the agent's attack fainted its Pokémon) and the start of the next
    battle after an episode ends (gymnax's autoreset) both run in one switch-only step after it.
    ``step`` overrides gymnax's to do so; it returns what gymnax's would
    (``info["final_observation"]`` included)."""

    def __init__(self, opponents=(), team_pool_size: int = 0, team_pool_seed: int = 0):
        """``team_pool_size`` > 0: ``default_params`` carry a pool of that many teams generated
        once (``teams.make_team_pool(team_pool_size, team_pool_seed)``) that new battles draw
        from, instead of running Showdown's team generator at every reset (the training and
        benchmark option; ``PokemonGen1RandomPool-v0``). 0: the generator (the default)."""
        super().__init__(PokemonGen1Random(), opponents)
        team_pool_size = check_value("team_pool_size", team_pool_size, "int", ge=0)
        team_pool_seed = check_value("team_pool_seed", team_pool_seed, "int", ge=0)
        if team_pool_size:   # fail at construction, not at the first default_params
            make_team_pool_cached(team_pool_size, team_pool_seed)
        self.team_pool_size = team_pool_size
        self.team_pool_seed = team_pool_seed

    @property
    def default_params(self) -> SingleAgentParams:
        pool = make_team_pool_cached(self.team_pool_size, self.team_pool_seed) if self.team_pool_size else None
        return SingleAgentParams(game=PokemonParams(team_pool=pool), opponent=OPPONENT_RANDOM)

    def _new_episode(self, key, params: SingleAgentParams) -> SingleAgentState:
        """A new episode whose battle is not started yet (request REQUEST_START)."""
        k_side, k_game = jax.random.split(key)
        agent = jnp.where(params.agent_side < 0, jax.random.bernoulli(k_side).astype(jnp.int32),
                          params.agent_side).astype(jnp.int32)
        game_state = self.game.init_unstarted(k_game, params.game)
        return SingleAgentState(game=game_state, agent=agent, truncated=jnp.asarray(False), time=jnp.int32(0))

    def reset_env(self, key, params: SingleAgentParams):
        state = self._new_episode(key, params)
        state = state.replace(game=engine.start_battle(state.game))
        return self.game.observe(state.game, state.agent, params.game), state

    @functools.partial(jax.jit, static_argnames=("self",))
    def step(self, key, state: SingleAgentState, action, params: SingleAgentParams | None = None):
        """gymnax's ``step`` (autoreset, ``terminated``/``truncated``/``final_observation`` in info),
        with the next battle started by the step's switch-only battle step instead of a separate
        battle start."""
        if params is None:
            params = self.default_params
        key_step, key_reset = batch_keys(key, 2)   # hashed, not a Threefry split (paritygym.random)
        joint = self._joint_step(key_step, state, action, params, autoreset=True)
        after = self._switch_after(joint, state.agent, self._new_episode(key_reset, params), params)
        return self._finish(state, joint, after, params)

    def step_env(self, key, state: SingleAgentState, action, params: SingleAgentParams):
        """gymnax's ``step_env`` (no autoreset): the joint step and the opponent's lone replacement."""
        joint = self._joint_step(key, state, action, params, autoreset=False)
        after = self._switch_after(joint, state.agent, state, params)
        # no restart: the new-episode observation is not used
        obs, new_state, reward, terminated, _, info = self._finish(state, joint, after, params,
                                                                   obs_new=jnp.zeros(OBS_SIZE, jnp.float32))
        info = {k: v for k, v in info.items() if k in ("illegal_action", "action_mask")}
        return obs, new_state, reward, terminated, info

    def step_batch(self, keys, states: SingleAgentState, actions, params: SingleAgentParams | None = None,
                   switch_chunk: int | None = None, restart_chunk: int | None = None):
        """``jax.vmap(self.step, in_axes=(0, 0, 0, None))`` with the same results, cheaper: the
        work only some envs need runs on those envs alone (``paritygym.batching.where_needed``).
        The joint battle step is ``engine.move_step`` (no switch turn) for every env. The
        switch-only battle steps run in chunks of ``switch_chunk`` envs (default B/8), in two
        passes: the joint step of the envs in a switch request (the agent replaces a fainted
        Pokémon, ~8% of states), then, after the joint step, the opponent's lone replacement or the
        next battle's start (``_batch_switch_steps``). The next battles (~1% of envs per step) are
        drawn, and their first observation computed, for the envs whose episode ended, in chunks of
        ``restart_chunk`` (default B/64). More needing envs than a chunk holds run in more chunks
        (same results).
        ``paritygym.batched_step(env)`` returns this method (vector env, bench, PPO)."""
        if params is None:
            params = self.default_params
        inputs = self._batch_inputs(keys, states, actions)
        results = []
        for _, stage, stage_args in self._batch_stages(params, *self._chunks(inputs, switch_chunk, restart_chunk)):
            results.append(stage(*stage_args(inputs, results)))
        return results[-1]

    # ``step_batch``'s stages, each on the whole batch. ``_batch_stages`` is their one list, which
    # ``step_batch`` runs and ``python -m benchmarks.pokemon --pieces`` times stage by stage.

    @staticmethod
    def _batch_inputs(keys, states: SingleAgentState, actions) -> dict:
        """``step_batch``'s inputs, each env's key split as ``step`` splits it."""
        split = jax.vmap(lambda k: batch_keys(k, 2))(keys)
        return {"keys_step": split[:, 0], "keys_reset": split[:, 1], "states": states, "actions": actions}

    @staticmethod
    def _chunks(inputs: dict, switch_chunk: int | None = None, restart_chunk: int | None = None) -> tuple[int, int]:
        """The chunk sizes, given or by default (None): switch-only steps B/8, new episodes B/64."""
        batch = jnp.shape(inputs["actions"])[0]
        sizes = (max(1, batch // 8) if switch_chunk is None else switch_chunk,
                 max(1, batch // 64) if restart_chunk is None else restart_chunk)
        for name, size in zip(("switch_chunk", "restart_chunk"), sizes):
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
                raise ValueError(f"{name} must be a positive int or None, got {size!r}")
        return sizes

    def _batch_stages(self, params: SingleAgentParams, switch_chunk: int, restart_chunk: int
                      ) -> list[tuple[str, Callable, Callable]]:
        """``step_batch``'s stages in order: (name, function, arguments), where ``arguments(inputs,
        results)`` picks the function's arguments from ``_batch_inputs`` and the results of the stages
        before. The last stage's result is ``step_batch``'s."""
        return [
            ("choices, move turn (engine.move_step, every env)",
             lambda k, s, a: self._batch_move(k, s, a, params),
             lambda inputs, results: (inputs["keys_step"], inputs["states"], inputs["actions"])),
            (f"switch-only steps (chunks of {switch_chunk}, 1-2 per env; new episodes in chunks of {restart_chunk})",
             lambda s, c, m, r, k: self._batch_switch_steps(s, c, m, r, k, params, switch_chunk, restart_chunk),
             lambda inputs, results: (inputs["states"], *results[0], inputs["keys_reset"])),
            (f"observations (new battles' in chunks of {restart_chunk})",
             lambda s, j, a: self._batch_new_observations(s, j, a, params, restart_chunk),
             lambda inputs, results: (inputs["states"], *results[1])),
            ("finish (observe, flags)",
             lambda s, j, a, o: self._batch_finish(s, j, a, o, params),
             lambda inputs, results: (inputs["states"], *results[1], results[2])),
        ]

    def check_params(self, params: SingleAgentParams) -> None:
        """Refuses a team pool holding a move the batched step does not run. That step has no engine
        fallback, which is right only for teams whose every move the batched turn runs (all of
        Showdown's random-battle sets: ``make_team_pool`` makes only such teams); a pool built by hand
        with another move would give wrong turns without a word. Called on the host by paritygym's
        vector env, and by the step when it is traced with a concrete pool (params closed over); a
        traced pool cannot be read there. Also the checks of every single-agent env (the opponent)."""
        super().check_params(params)
        pool = params.game.team_pool
        if pool is None:
            return
        if not isinstance(pool, teams.TeamPool):
            raise TypeError(f"param game.team_pool must be None or a TeamPool (make_team_pool), got {type(pool).__name__}")
        try:
            moves = np.asarray(pool.teams.moves)
        except jax.errors.TracerArrayConversionError:
            return
        missing = batched.unbatched_moves(moves)
        if missing:
            raise ValueError(f"the team pool holds moves the env's batched step does not run: {', '.join(missing)}; "
                             "build pools with make_team_pool (Showdown's random-battle sets), or step the two-player "
                             "game with move_step_batch(..., engine_fallback=True)")

    def _batch_move(self, keys_step, states: SingleAgentState, actions, params: SingleAgentParams):
        """Both players' choices, and the move turn (``engine.move_step``, batched: ``move_step_batch``) of every env: the joint
        battle step of the envs in a move request (the others are left for ``_batch_switch_steps``)."""
        choices = jax.vmap(lambda k, s, a: self._choose(k, s, a, params))(keys_step, states, actions)
        # the env's battles are all between random-battle teams (its reset draws them from Showdown's
        # sets, or a pool of such teams), so every move turn is a batched one: no engine fallback
        self.check_params(params)
        moved, rewards = self.game.move_step_batch(states.game, choices.actions, params.game, choices.masks,
                                                   engine_fallback=False)
        return choices, moved, rewards

    def _batch_switch_steps(self, states: SingleAgentState, choices: "_Choices", moved: BattleState, move_rewards,
                            keys_reset, params: SingleAgentParams, switch_chunk: int, restart_chunk: int):
        """Every switch-only battle step of the batch, in two passes of one loop (one ``switch_step``
        in the program): pass 0, the joint step of the envs in a switch request or an unstarted
        battle, where ``step`` does what ``switch_step`` does; pass 1, after the joint step,
        ``_switch_after`` (the opponent's lone replacement, or the next battle's start) where it is
        due. Each pass runs on its needing envs only, in chunks of ``switch_chunk``. Between the
        passes the next episodes are drawn, in chunks of ``restart_chunk``, for the envs whose
        episode ended (Showdown's team generator, the default env's, costs more than the rest of a
        step: drawn before pass 0 it would have to run for every env in a switch request, as its own
        replacement may end the episode, ~8x the envs that need one). Returns (_JointStep,
        _AfterJoint) of every env."""
        agents = states.agent
        request = states.game.request
        deciding = (request == REQUEST_SWITCH) | (request == REQUEST_START)
        outcome = functools.partial(self._joint_outcome, params=params, autoreset=True)
        joint = jax.vmap(outcome)(states, choices, moved, move_rewards)
        # where no next episode is drawn (a new episode has the env state's shapes: no trace to learn them)
        unused_episode = jax.tree_util.tree_map(jnp.zeros_like, states)

        def one_pass(settle, joint_and_after):
            """Pass 0 (``settle`` False) or pass 1 of every env that needs it."""
            joint, _ = joint_and_after
            need = jnp.where(settle, joint.lone | joint.restarted, deciding)
            fresh_episodes = where_needed(settle & joint.restarted, restart_chunk,
                                          lambda k: self._new_episode(k, params), (keys_reset,),
                                          otherwise=unused_episode)

            def one_env(joint_and_after, state, choices, fresh):
                joint, after = joint_and_after
                second, replacement, second_masks = self._settle_input(joint, state.agent, fresh, params)
                pick = lambda a, b: jax.tree_util.tree_map(lambda x, y: jnp.where(settle, y, x), a, b)
                game, rewards, _, _ = self.game.switch_step(
                    pick(choices.k_step, joint.k_switch), pick(state.game, second),
                    pick(choices.actions, replacement), params.game, pick(choices.masks, second_masks))
                decided = outcome(state, choices, game, rewards)
                settled = self._settle_result(joint, state.agent, fresh.agent, game, rewards)
                return pick(decided, joint), pick(self._nothing_after(decided, state.agent), settled)

            # a switch-only step is cheap per battle: on an accelerator it runs on the whole batch
            return update_where_needed(need, switch_chunk, one_env, joint_and_after,
                                       (states, choices, fresh_episodes), whole_batch_on_accelerator=True)

        # a loop of two passes: the pass's body (with its switch_step) is compiled once
        return jax.lax.fori_loop(0, 2, lambda k, carry: one_pass(k == 1, carry),
                                 (joint, jax.vmap(self._nothing_after)(joint, agents)))

    def _batch_new_observations(self, states: SingleAgentState, joint: "_JointStep", after: "_AfterJoint",
                                params: SingleAgentParams, restart_chunk: int) -> tuple[jax.Array, jax.Array]:
        """(final, next) observations: the agent's view after the joint step for every env, and the
        one it sees next, which is the new battle's first observation where the episode ended,
        computed for those envs only and written over the final one (no batch-wide buffer of zeros
        and select: each is a whole [B, OBS_SIZE] float32 pass)."""
        observe = lambda g, p: self.game.observe(g, p, params.game)
        obs_final = jax.vmap(observe)(after.final, states.agent)
        obs_next = where_needed(joint.restarted, restart_chunk, observe, (after.game, after.next_agent),
                                otherwise=obs_final, whole_batch_on_accelerator=True)
        return obs_final, obs_next

    def _batch_finish(self, states: SingleAgentState, joint: "_JointStep", after: "_AfterJoint", obs_new,
                      params: SingleAgentParams):
        return jax.vmap(lambda s, j, a, o: self._finish(s, j, a, params, observations=o))(states, joint, after, obs_new)

    def _replacement_action(self, key, game_state, side, params, mask):
        """The opponent's choice of a lone replacement. Both built-in opponents pick a uniformly
        random legal switch there (no move is legal, so max damage falls back to random)."""
        if not self.opponents:
            return random_legal_action(key, mask)
        return self._opponent_action(key, game_state, side, params, mask)

    def _opponent_action(self, key, game_state, side, params, mask=None):
        """``SingleAgentEnv._opponent_action`` given the opponent's mask (computed once per state
        by ``_joint_step``): the opponent ``params.opponent`` picks; an illegal pick of a user policy
        falls back to the first legal action."""
        if mask is None:
            mask = self.game.legal_action_mask(game_state, side, params.game)
        branches = [
            lambda k: random_legal_action(k, mask),
            lambda k: max_damage_action(k, game_state, side, mask),
        ] + [
            (lambda k, pol=pol: jnp.asarray(pol(k, self.game.observe(game_state, side, params.game), mask), jnp.int32))
            for pol in self.opponents
        ]
        index = jnp.clip(jnp.asarray(params.opponent, jnp.int32), 0, len(branches) - 1)
        action = jax.lax.switch(index, branches, key)
        return jnp.where(mask[action], action, first_legal_action(mask)).astype(jnp.int32)

    # An env step in three parts (one env each; ``step`` runs all three, ``step_batch`` runs the
    # middle one only for the envs that need it):
    #   _joint_step    the agent's and the opponent's choices, one full ``engine.step``
    #   _switch_after  one switch-only ``engine.switch_step``: the opponent's lone replacement (the
    #                  agent's attack fainted its Pokémon) or the next battle's start (autoreset).
    #                  A switch turn always ends in a move request (or the end): no more are needed.
    #   _finish        observations, masks, flags, the next env state

    def _joint_step(self, key, state: SingleAgentState, action, params: SingleAgentParams, autoreset: bool):
        choices = self._choose(key, state, action, params)
        final, rewards, _, _ = self.game.step(choices.k_step, state.game, choices.actions, params.game, choices.masks)
        return self._joint_outcome(state, choices, final, rewards, params, autoreset)

    def _choose(self, key, state: SingleAgentState, action, params: SingleAgentParams) -> "_Choices":
        """Both players' choices for the joint battle step (the agent's illegal action replaced)."""
        agent, opp = state.agent, 1 - state.agent
        # both players' masks, once per state: the step's start, its end, the switch step's input
        masks = legal_masks(state.game)
        mask = masks[agent]
        action = check_discrete_action(action, NUM_ACTIONS)  # at trace time only
        legal = (action >= 0) & (action < NUM_ACTIONS) & mask[jnp.clip(action, 0, NUM_ACTIONS - 1)]
        action = jnp.where(legal, action, first_legal_action(mask))
        k_opp, k_step, k_replace, k_switch = batch_keys(key, 4)

        acting = self.game.acting(state.game, params.game)
        opp_action = jnp.where(acting[opp], self._opponent_action(k_opp, state.game, opp, params, masks[opp]), 0)
        actions = jnp.zeros(2, jnp.int32).at[agent].set(action).at[opp].set(opp_action)
        return _Choices(actions=actions, masks=masks, legal=legal, k_step=k_step, k_replace=k_replace,
                        k_switch=k_switch)

    def _joint_outcome(self, state: SingleAgentState, choices: "_Choices", final: BattleState, rewards,
                       params: SingleAgentParams, autoreset: bool) -> "_JointStep":
        """The joint step's result for one env, given the battle after both players' choices."""
        agent, opp = state.agent, 1 - state.agent
        acting = self.game.acting(final, params.game)
        over = self.game.is_over(final, params.game)
        restarted = (over | (state.time + 1 >= params.max_steps_in_episode)) if autoreset else jnp.asarray(False)
        # the step limit ends the episode before a pending replacement
        lone = ~over & ~acting[agent] & acting[opp] & ~restarted
        return _JointStep(final=final, final_masks=legal_masks(final), reward=rewards[agent], legal=choices.legal,
                          lone=lone, restarted=restarted, k_replace=choices.k_replace, k_switch=choices.k_switch)

    def _nothing_after(self, joint: "_JointStep", agent) -> "_AfterJoint":
        """``_switch_after``'s result for an env with neither a lone replacement nor a restart due."""
        return _AfterJoint(final=joint.final, game=joint.final, reward=jnp.zeros_like(joint.reward),
                           next_agent=agent, agent_mask=joint.final_masks[agent])

    def _switch_after(self, joint: "_JointStep", agent, fresh: SingleAgentState, params: SingleAgentParams):
        """The switch-only step after ``_joint_step`` for one env, with ``fresh`` the next
        episode (unstarted; used where ``joint.restarted``). Where neither a lone replacement nor a
        restart is due, its results are ``_nothing_after``'s but for ``game``, which is then unused
        (``step_batch`` does not run it there)."""
        second, actions, masks = self._settle_input(joint, agent, fresh, params)
        game, rewards, _, _ = self.game.switch_step(joint.k_switch, second, actions, params.game, masks)
        return self._settle_result(joint, agent, fresh.agent, game, rewards)

    def _settle_input(self, joint: "_JointStep", agent, fresh: SingleAgentState, params: SingleAgentParams):
        """The switch-only step's battle, actions and masks: the next battle (unstarted) where the
        episode ended, else the battle after the joint step with the opponent's lone replacement."""
        opp = 1 - agent
        second = jax.tree_util.tree_map(lambda a, b: jnp.where(joint.restarted, a, b), fresh.game, joint.final)
        replacement = jnp.where(joint.lone, self._replacement_action(joint.k_replace, joint.final, opp, params,
                                                                      joint.final_masks[opp]), 0)
        # a new battle (REQUEST_START) has no legal action, so its masks are all False
        masks = jnp.where(joint.restarted, False, joint.final_masks)
        return second, jnp.zeros(2, jnp.int32).at[opp].set(replacement), masks

    def _settle_result(self, joint: "_JointStep", agent, fresh_agent, game: BattleState, rewards) -> "_AfterJoint":
        """``_switch_after``'s result given the switch-only step's ``game`` and ``rewards``."""
        stay = self._nothing_after(joint, agent)
        # a lone replacement is part of this step's transition; a restart is not
        return _AfterJoint(final=jax.tree_util.tree_map(lambda a, b: jnp.where(joint.lone, a, b), game, stay.final),
                           game=game, reward=jnp.where(joint.lone, rewards[agent], stay.reward),
                           next_agent=jnp.where(joint.restarted, fresh_agent, stay.next_agent),
                           agent_mask=jnp.where(joint.lone, legal_masks(game)[agent], stay.agent_mask))

    def _finish(self, state: SingleAgentState, joint: "_JointStep", after: "_AfterJoint", params,
                obs_new: jax.Array | None = None, observations: tuple[jax.Array, jax.Array] | None = None):
        """gymnax ``step``'s tuple for one env. ``obs_new``: the next episode's first observation
        (used where ``joint.restarted``), or None to observe it here; ``observations``: (final, next)
        already computed (``step_batch``), instead of either."""
        final, agent = after.final, state.agent
        ended = SingleAgentState(game=final, agent=agent, truncated=self.game.is_truncated(final, params.game),
                                 time=state.time + 1)
        terminated = self.game.is_terminated(final)
        truncated = self.is_truncated(ended, params)
        if observations is not None:
            obs_final, obs_next = observations
        elif obs_new is None:
            # one observation program for both: the end of the step, and the new episode's start
            both = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), final, after.game)
            obs_final, obs_new = jax.vmap(lambda g, p: self.game.observe(g, p, params.game))(
                both, jnp.stack([agent, after.next_agent]))
        else:
            obs_final = self.game.observe(final, agent, params.game)
        if observations is None:
            obs_next = jnp.where(joint.restarted, obs_new, obs_final)
        new_state = SingleAgentState(game=after.game, agent=after.next_agent, truncated=jnp.asarray(False),
                                     time=jnp.int32(0))
        new_state = jax.tree_util.tree_map(lambda a, b: jnp.where(joint.restarted, a, b), new_state, ended)
        info = {"illegal_action": ~joint.legal, "action_mask": after.agent_mask,
                "terminated": terminated, "truncated": truncated, "final_observation": obs_final}
        return obs_next, new_state, joint.reward + after.reward, terminated, truncated, info


@struct.dataclass
class _Choices:
    """One env's choices for the joint battle step (``PokemonGen1RandomEnv._choose``)."""
    actions: jax.Array       # int32[2]: both players' actions (legal)
    masks: jax.Array         # legal_masks of the state they answer
    legal: jax.Array         # the agent's own action was legal
    k_step: jax.Array        # keys: the battle step, the switch-only step's replacement choice and step
    k_replace: jax.Array
    k_switch: jax.Array


@struct.dataclass
class _JointStep:
    """One env after the joint battle step (``PokemonGen1RandomEnv._joint_step``)."""
    final: BattleState       # the battle after both players' choices
    final_masks: jax.Array   # legal_masks(final)
    reward: jax.Array        # the agent's reward of that battle step
    legal: jax.Array         # the agent's action was legal
    lone: jax.Array          # the opponent must now replace a fainted Pokémon alone
    restarted: jax.Array     # the episode ended: the next one starts in this step (autoreset)
    k_replace: jax.Array     # keys of the switch-only step: the opponent's replacement choice, the step
    k_switch: jax.Array


@struct.dataclass
class _AfterJoint:
    """One env after the switch-only step (``PokemonGen1RandomEnv._switch_after``)."""
    final: BattleState       # the battle at the end of this env step (after a lone replacement)
    game: BattleState        # the next env state's battle (the new one where the episode ended)
    reward: jax.Array        # the agent's reward of the lone replacement (0 otherwise)
    next_agent: jax.Array    # the agent's side in the next env state
    agent_mask: jax.Array    # the agent's legal actions in ``final``
