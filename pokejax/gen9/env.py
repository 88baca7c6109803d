"""Gen 9 random battles as RL environments, on the restricted engine of ``pokejax.gen9``.

``PokemonGen9Random`` is the two-player functional core (``paritygym.twoplayer.TwoPlayerGame``):
``step(key, state, actions[2])``, per-player observations (``pokejax.gen9.observe``), +1/-1/0
rewards, legal-action masks (``pokejax.gen9.masks``: Discrete(14), moves 0-3, Terastallize + move
4-7, switches 8-13). ``PokemonGen9RandomEnv`` is the single-agent gymnax env against a built-in
opponent (uniform random legal, or the max-damage bot of ``pokejax.gen9.bots``), registered as ``PokemonGen9Random-v0``.

While the engine covers part of the format, battles are between teams of Showdown's own
``gen9randombattle`` generator (``pokejax/gen9/data/pool.json``) restricted to what the engine
covers (``turn.restricted_team``: its moves kept where covered, no ability or item), each identical
to Showdown's battle of the same teams and seed (the L3 tests). The restriction shrinks as coverage
grows (docs/envs/pokemon-gen9.md).
"""

from __future__ import annotations

import functools
import json

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import spaces

from paritygym.checks import bounded, check_discrete_action, check_value
from paritygym.twoplayer import (
    SingleAgentEnv,
    SingleAgentParams,
    SingleAgentState,
    TwoPlayerGame,
    legal_or_first_action,
)
from pokejax.gen9 import bots, masks, pool, turn
from pokejax.gen9 import observe as obs_module
from pokejax.gen9 import state as S

NUM_ACTIONS = masks.NUM_ACTIONS
OBS_SIZE = obs_module.OBS_SIZE


@functools.lru_cache(maxsize=1)
def restricted_pool() -> pool.Pool:
    """The pool's teams the restricted engine plays, as ``turn.restricted_team`` makes them."""
    document = json.loads(pool.POOL_FILE.read_text())
    teams = [turn.restricted_team(t) for t in document["teams"] if all(turn.restricted_species_ok(m[0]) for m in t)]
    return pool.pack({"teams": teams})


@struct.dataclass
class Gen9Battle:
    """One battle and what each side has shown: ``seen`` bool[2, 6], the Pokémon each side has had
    on the field (Showdown's protocol named them to the other player)."""
    battle: S.BattleState
    seen: jax.Array


@struct.dataclass
class Gen9Params:
    max_turns: int = bounded(1000, ge=1)   # turn cap: a battle still running after this turn is truncated


def _on_field(battle: S.BattleState) -> jax.Array:
    return (jnp.arange(S.TEAM_SIZE) == battle.active[..., None]) & (battle.request != S.REQUEST_START)


class PokemonGen9Random(TwoPlayerGame):
    """Gen 9 random battles (restricted teams, see the module docstring) between two players."""

    num_actions = NUM_ACTIONS

    @property
    def default_params(self) -> Gen9Params:
        return Gen9Params()

    def init(self, key, params: Gen9Params) -> Gen9Battle:
        """A new started battle (``init_unstarted``, then Showdown's ``start``: the leads sent out)."""
        return self.step(key, self.init_unstarted(key, params), jnp.zeros(2, jnp.int32), params)[0]

    def init_unstarted(self, key, params: Gen9Params) -> Gen9Battle:
        """A new battle before its start (``REQUEST_START``; its next ``step`` starts it, whatever the
        actions): two teams drawn from ``restricted_pool()``, the battle PRNG seeded from ``key``."""
        team_pool = restricted_pool()
        k1, k2, k3 = jax.random.split(key, 3)
        teams = len(team_pool)
        battle = S.from_pool(team_pool, jax.random.randint(k1, (1,), 0, teams), jax.random.randint(k2, (1,), 0, teams),
                             jax.random.bits(k3, (1, 2), jnp.uint32))
        battle = jax.tree.map(lambda x: x[0], battle)
        return Gen9Battle(battle=battle, seen=jnp.zeros((2, S.TEAM_SIZE), bool))

    def step(self, key, state: Gen9Battle, actions, params: Gen9Params):
        return self._step(state, actions, params, turn.step)

    def switch_step(self, key, state: Gen9Battle, actions, params: Gen9Params):
        """``step`` through ``turn.switch_step``: the same for a battle that does not ``needs_turn``."""
        return self._step(state, actions, params, turn.switch_step)

    def needs_turn(self, state: Gen9Battle) -> jax.Array:
        """Whether ``step`` runs a turn here (``turn.needs_turn``), where ``switch_step`` would not do."""
        return turn.needs_turn(state.battle)

    def _step(self, state: Gen9Battle, actions, params: Gen9Params, battle_step):
        over = self.is_over(state, params)
        battle = battle_step(state.battle, masks.legal_or_first(state.battle, actions))
        battle = jax.tree.map(lambda new, old: jnp.where(over, old, new), battle, state.battle)
        new = Gen9Battle(battle=battle, seen=state.seen | _on_field(battle))
        ended = (battle.request == S.REQUEST_ENDED) & ~over
        win = jnp.where(battle.winner == S.WINNER_TIE, 0.0, jnp.where(jnp.arange(2) == battle.winner, 1.0, -1.0))
        rewards = jnp.where(ended & (battle.winner >= 0), win, 0.0).astype(jnp.float32)
        return new, rewards, self.is_terminated(new), self.is_truncated(new, params)

    def acting(self, state: Gen9Battle, params: Gen9Params) -> jax.Array:
        return masks.must_act(state.battle) & ~self.is_truncated(state, params)

    def legal_action_mask(self, state: Gen9Battle, player, params: Gen9Params) -> jax.Array:
        return S.select(masks.legal_mask(state.battle), player)

    def heuristic_action(self, key, state: Gen9Battle, player, params: Gen9Params) -> jax.Array:
        """The max-damage bot (``pokejax.gen9.bots``)."""
        return bots.max_damage_action(key, state.battle, player, self.legal_action_mask(state, player, params))

    def observe(self, state: Gen9Battle, player, params: Gen9Params) -> jax.Array:
        return obs_module.observe(state.battle, state.seen, player)

    def observation_space(self, params: Gen9Params) -> spaces.Box:
        return spaces.Box(-1.0, 1.0, (OBS_SIZE,), jnp.float32)

    def is_terminated(self, state: Gen9Battle) -> jax.Array:
        return state.battle.request == S.REQUEST_ENDED

    def is_truncated(self, state: Gen9Battle, params: Gen9Params | None = None) -> jax.Array:
        cap = (params or self.default_params).max_turns
        return (state.battle.request != S.REQUEST_ENDED) & (state.battle.turn > cap)

    def is_over(self, state: Gen9Battle, params: Gen9Params | None = None) -> jax.Array:
        return self.is_terminated(state) | self.is_truncated(state, params)


def observe_where(observe, games, players, which, chunk: int | None = None) -> jax.Array:
    """float32[B, OBS_SIZE]: ``observe(game, player)`` of the battles where ``which`` (bool[B]), zeros
    elsewhere, run on sub-batches of ``chunk`` battles (default ``ceil(B / 16)``) gathered from them
    (``jnp.nonzero``) until none is left: one sub-batch where few are asked for (the episodes ending in
    one step), not an observation of the whole batch."""
    size = which.shape[0]
    chunk = -(-size // 16) if chunk is None else chunk

    def one(carry):
        obs, left = carry
        rows = jnp.nonzero(left, size=chunk, fill_value=size)[0]       # ``size``: no battle (dropped below)
        take = jnp.minimum(rows, size - 1)
        sub = jax.vmap(observe)(jax.tree.map(lambda x: x[take], games), players[take])
        return obs.at[rows].set(sub, mode="drop"), left.at[rows].set(False, mode="drop")

    obs = jnp.zeros((size, OBS_SIZE), jnp.float32)
    return jax.lax.while_loop(lambda c: c[1].any(), one, (obs, which))[0]


class PokemonGen9RandomEnv(SingleAgentEnv):
    """One player of ``PokemonGen9Random`` against a built-in opponent (``params.opponent``: 0 uniform
    random legal, 1 max damage, ``pokejax.gen9.bots``).

    ``step`` runs the battle's turn (``turn.step``, the large part of the program) once in its
    compiled program, in a loop over the decisions one agent step covers: the joint decision, the
    opponent's lone decisions after it (replacing a fainted Pokémon), and, where the episode ended,
    the start of the next battle (gymnax's autoreset). The generic ``SingleAgentEnv`` would hold the
    turn three or four times (step, the opponent's loop, and the reset's own start and loop), each
    compiled apart."""

    def __init__(self, opponents=(), max_opponent_actions: int = 64, trip_chunk: int = 4096):
        super().__init__(PokemonGen9Random(), opponents, max_opponent_actions)
        #: ``step_batch`` runs a batch larger than this as sub-batches of at most this many envs, one after
        #: another, each through its own trips: the turn's program compiled once at the sub-batch's size
        #: whatever the batch, and a trip as wide as the sub-batch, not the batch (its busiest env decides
        #: how many a sub-batch runs)
        self.trip_chunk = check_value("trip_chunk", trip_chunk, "int", ge=1)

    @property
    def default_params(self) -> SingleAgentParams:
        return SingleAgentParams(game=Gen9Params())

    def _new_episode(self, key, params: SingleAgentParams) -> SingleAgentState:
        """A new episode whose battle is not started yet (``REQUEST_START``)."""
        k_side, k_game = jax.random.split(key)
        agent = jnp.where(params.agent_side < 0, jax.random.bernoulli(k_side).astype(jnp.int32),
                          params.agent_side).astype(jnp.int32)
        return SingleAgentState(game=self.game.init_unstarted(k_game, params.game), agent=agent,
                                truncated=jnp.asarray(False), time=jnp.int32(0))

    def reset_env(self, key, params: SingleAgentParams):
        """A started battle: a Gen 9 battle starts with a decision of both sides (no lone opponent)."""
        k_new, k_start = jax.random.split(key)
        state = self._new_episode(k_new, params)
        game = self.game.step(k_start, state.game, jnp.zeros(2, jnp.int32), params.game)[0]
        return self.game.observe(game, state.agent, params.game), state.replace(game=game)

    # One agent step is a loop of decisions ("trips"): the joint one (trip 0), then the opponent's lone
    # ones (replacing a fainted Pokémon) and, where the episode ended, the next battle's start. Its
    # parts below are per env: ``step`` runs the loop per env (under ``vmap`` the batch runs as many
    # trips as its busiest env, each a whole turn), ``step_batch`` runs it batch-wide and steps the
    # trips where no env needs a turn through the far smaller ``switch_step``.
    # A trip's carry: (trip, game, reward, lone decisions, the ended episode's last game, ended, key).

    def _first_decision(self, key, state: SingleAgentState, action, params: SingleAgentParams):
        """The agent's action checked (an illegal one becomes the first legal one), the opponent's
        choice, the loop's initial carry; returns ``(carry, joint actions, legal)``."""
        gp, agent = params.game, state.agent
        opp = 1 - agent
        k_opp, k_loop = jax.random.split(key)
        mask = self.game.legal_action_mask(state.game, agent, gp)
        action = check_discrete_action(action, NUM_ACTIONS)   # at trace time only
        action, legal = legal_or_first_action(mask, action)
        acting = self.game.acting(state.game, gp)
        opp_action = jnp.where(S.select(acting, opp), self._opponent_action(k_opp, state.game, opp, params), 0)
        joint = jnp.where(jnp.arange(2) == agent, action, opp_action).astype(jnp.int32)
        carry = (jnp.int32(0), state.game, jnp.float32(0.0), jnp.int32(0), state.game, jnp.asarray(False), k_loop)
        return carry, joint, legal

    def _opponent_alone(self, game, agent, params: SingleAgentParams):
        acts = self.game.acting(game, params.game)
        return S.select(acts, 1 - agent) & ~S.select(acts, agent) & ~self.game.is_over(game, params.game)

    def _keep_going(self, carry, agent, params: SingleAgentParams):
        """Whether the loop runs another trip: the first, a battle to start, the opponent alone to act."""
        trip, game, _, lone, _, ended, _ = carry
        return ((trip == 0) | (game.battle.request == S.REQUEST_START)
                | (~ended & self._opponent_alone(game, agent, params) & (lone < self.max_opponent_actions)))

    def _trip_actions(self, carry, joint, agent, params: SingleAgentParams):
        """A trip's actions (the joint ones first, then the opponent's alone, zeros to start a battle),
        the game step's key and the carry's next key."""
        trip, game, _, _, _, _, key = carry
        key, k_act, k_step = jax.random.split(key, 3)
        starting = game.battle.request == S.REQUEST_START
        opp = 1 - agent
        alone = jnp.where(jnp.arange(2) == opp, self._opponent_action(k_act, game, opp, params), 0).astype(jnp.int32)
        return jnp.where(trip == 0, joint, jnp.where(starting, 0, alone)), k_step, key

    def _after_trip(self, carry, key, stepped, rewards, agent, time_up, params: SingleAgentParams,
                    restart: SingleAgentState | None):
        """The carry after a trip's game step (``stepped``, ``rewards``): the agent's reward, the lone
        count, and where the episode ends (the battle over, or the time limit up or the opponent's
        budget spent with the agent to act next) its last game kept and the next battle put in."""
        trip, game, reward, lone, final, ended, _ = carry
        starting = game.battle.request == S.REQUEST_START
        reward = reward + jnp.where(starting, 0.0, S.select(rewards, agent))
        lone = lone + (~starting & (trip > 0)).astype(jnp.int32)
        stuck = lone >= self.max_opponent_actions
        ends = ~starting & ~ended & (self.game.is_over(stepped, params.game) | stuck
                                     | (time_up & ~self._opponent_alone(stepped, agent, params)))
        final = jax.tree.map(lambda a, b: jnp.where(ends, a, b), stepped, final)
        ended = ended | ends
        if restart is not None:
            stepped = jax.tree.map(lambda a, b: jnp.where(ends, a, b), restart.game, stepped)
        return trip + 1, stepped, reward, lone, final, ended, key

    def _advance(self, key, state: SingleAgentState, action, params: SingleAgentParams, restart: SingleAgentState | None):
        """The decisions of one agent step, as a loop around one ``game.step``: returns the state the
        agent acts in next (a new episode's first where ``restart`` is given and the episode ended),
        the agent's reward, the ended episode's last game state, whether it ended, and whether the
        agent's action was legal."""
        carry, joint, legal = self._first_decision(key, state, action, params)
        agent, time_up = state.agent, state.time + 1 >= params.max_steps_in_episode

        def one(carry):
            actions, k_step, key = self._trip_actions(carry, joint, agent, params)
            stepped, rewards, _, _ = self.game.step(k_step, carry[1], actions, params.game)
            return self._after_trip(carry, key, stepped, rewards, agent, time_up, params, restart)

        _, game, reward, _, final, ended, _ = jax.lax.while_loop(lambda c: self._keep_going(c, agent, params), one, carry)
        return game, reward, final, ended, legal

    def _finish(self, state: SingleAgentState, restart: SingleAgentState, game, reward, final, ended, legal,
                params: SingleAgentParams, restarted_obs=None):
        """``step``'s outputs from the loop's (gymnax's autoreset: the next episode's first observation
        where one ended, the last one in ``info["final_observation"]``). ``restarted_obs``: that first
        observation where the episode ended, if computed already (``step_batch``)."""
        terminated = ended & self.game.is_terminated(final)
        truncated = ended & ~terminated
        last = jax.tree.map(lambda a, b: jnp.where(ended, a, b), final, game)   # the step's end, before any reset
        obs_final = self.game.observe(last, state.agent, params.game)
        agent = jnp.where(ended, restart.agent, state.agent)
        if restarted_obs is None:
            restarted_obs = self.game.observe(game, agent, params.game)
        obs = jnp.where(ended, restarted_obs, obs_final)
        new_state = SingleAgentState(game=game, agent=agent, truncated=jnp.asarray(False),
                                     time=jnp.where(ended, 0, state.time + 1).astype(jnp.int32))
        info = {"illegal_action": ~legal, "action_mask": self.game.legal_action_mask(game, agent, params.game),
                "terminated": terminated, "truncated": truncated, "final_observation": obs_final}
        return obs, new_state, reward, terminated, truncated, info

    @functools.partial(jax.jit, static_argnames=("self",))
    def step(self, key, state: SingleAgentState, action, params: SingleAgentParams | None = None):
        """gymnax's ``step`` (autoreset; ``terminated``, ``truncated``, ``final_observation`` in info),
        with the next battle started inside the step's loop (see the class docstring)."""
        if params is None:
            params = self.default_params
        key_step, key_reset = jax.random.split(key)
        restart = self._new_episode(key_reset, params)
        game, reward, final, ended, legal = self._advance(key_step, state, action, params, restart)
        return self._finish(state, restart, game, reward, final, ended, legal, params)

    def step_batch(self, keys, states: SingleAgentState, actions, params: SingleAgentParams | None = None):
        """``jax.vmap(self.step, in_axes=(0, 0, 0, None))``, the same results (``paritygym.batched_step``
        returns this method): the decision loop runs batch-wide, its trips as whole turns while an env
        of the batch needs one (``turn.needs_turn``), then through ``switch_step`` (replacements and
        battle starts). Under ``vmap`` every trip is a whole turn, and a batch of thousands runs three
        to six per agent step where the average env needs 1.1. A batch larger than ``trip_chunk`` runs
        as sub-batches of at most that many envs, one after another; the first observation of a new
        episode is computed only where one ended (``observe_where``)."""
        if params is None:
            params = self.default_params
        split = jax.vmap(jax.random.split)(keys)
        key_step, key_reset = split[:, 0], split[:, 1]
        restart = jax.vmap(self._new_episode, in_axes=(0, None))(key_reset, params)
        carry, joint, legal = jax.vmap(self._first_decision, in_axes=(0, 0, 0, None))(key_step, states, actions, params)
        agent = states.agent
        time_up = states.time + 1 >= params.max_steps_in_episode
        size = keys.shape[0]
        chunks = -(-size // self.trip_chunk)
        if chunks == 1:
            carry = self._trips(carry, joint, agent, time_up, restart, params)
        else:
            # sub-batches of ``width`` envs (the last padded with copies of the first env, dropped after)
            width = -(-size // chunks)
            pad = jnp.zeros(chunks * width - size, jnp.int32)
            fold = lambda x: jnp.concatenate([x, x[pad]]).reshape((chunks, width) + x.shape[1:])
            per_chunk = jax.lax.map(lambda a: self._trips(*a, params), jax.tree.map(fold, (carry, joint, agent, time_up, restart)))
            carry = jax.tree.map(lambda x: x.reshape((chunks * width,) + x.shape[2:])[:size], per_chunk)
        _, game, reward, _, final, ended, _ = carry
        # the next episode's first observation only where one ended (a few percent of the batch per step)
        agent = jnp.where(ended, restart.agent, agent)
        restarted_obs = observe_where(lambda g, a: self.game.observe(g, a, params.game), game, agent, ended)
        finish = jax.vmap(self._finish, in_axes=(0, 0, 0, 0, 0, 0, 0, None, 0))
        return finish(states, restart, game, reward, final, ended, legal, params, restarted_obs)

    def _trips(self, carry, joint, agent, time_up, restart: SingleAgentState, params: SingleAgentParams):
        """The decision loop's trips batch-wide (``step_batch``; one sub-batch of it): whole turns while an
        env needs one, then switch-only trips; returns the final carry."""
        per_env = functools.partial(jax.vmap, in_axes=0)
        keep_going = per_env(lambda c, a: self._keep_going(c, a, params))
        trip_actions = per_env(lambda c, j, a: self._trip_actions(c, j, a, params))
        after_trip = per_env(lambda c, k, g, r, a, t, re: self._after_trip(c, k, g, r, a, t, params, re))
        game_step = jax.vmap(self.game.step, in_axes=(0, 0, 0, None))
        game_switch_step = jax.vmap(self.game.switch_step, in_axes=(0, 0, 0, None))

        def trip(carry, battle_step):
            going = keep_going(carry, agent)
            trip_acts, k_step, key = trip_actions(carry, joint, agent)
            stepped, rewards, _, _ = battle_step(k_step, carry[1], trip_acts, params.game)
            new = after_trip(carry, key, stepped, rewards, agent, time_up, restart)
            return jax.tree.map(lambda a, b: jnp.where(going.reshape(going.shape + (1,) * (a.ndim - 1)), a, b), new, carry)

        def turns_left(carry):
            return jnp.any(keep_going(carry, agent) & self.game.needs_turn(carry[1]))

        # Whole turns while a going env needs one (the first trip, an opponent's mid-turn self-switch),
        # then switch-only trips (replacements, battle starts) while the others finish: a switch-only
        # trip never leads to a turn with the opponent alone to act (a move request has both sides act,
        # and only a turn makes a mid-turn switch request), which test_step_batch_equals_vmapped_step
        # checks against ``vmap(step)``. Two loops one after the other: a ``lax.cond`` between the two
        # steps in one loop ran 3x slower on the TPU v5e, and a loop around both did not compile there.
        carry = jax.lax.while_loop(turns_left, lambda c: trip(c, game_step), carry)
        return jax.lax.while_loop(lambda c: jnp.any(keep_going(c, agent)), lambda c: trip(c, game_switch_step), carry)

    def step_env(self, key, state: SingleAgentState, action, params: SingleAgentParams):
        """gymnax's ``step_env`` (no autoreset): the agent step's decisions, the episode left ended."""
        game, reward, final, ended, legal = self._advance(key, state, action, params, None)
        terminated = ended & self.game.is_terminated(final)
        new_state = SingleAgentState(game=game, agent=state.agent, truncated=ended & ~terminated, time=state.time + 1)
        info = {"illegal_action": ~legal, "action_mask": self.game.legal_action_mask(game, state.agent, params.game)}
        return self.game.observe(game, state.agent, params.game), new_state, reward, terminated, info


__all__ = ["NUM_ACTIONS", "OBS_SIZE", "Gen9Battle", "Gen9Params", "PokemonGen9Random", "PokemonGen9RandomEnv",
           "restricted_pool"]
