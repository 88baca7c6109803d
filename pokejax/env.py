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

The game functions are in ``pokejax.game``: ``engine`` the battle step, ``observe`` the observation,
``masks`` who acts and the legal actions, ``bots`` the max-damage opponent. This module wraps them as
the two envs; the single-agent env's step (one env, or a batch) is in ``pokejax.env_step``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import spaces

from paritygym.checks import bounded, check_value
from paritygym.random import batch_keys
from paritygym.twoplayer import (OPPONENT_RANDOM, SingleAgentEnv, SingleAgentParams, SingleAgentState,
                                 TwoPlayerGame, legal_or_first_action, random_legal_action)
from pokejax import env_step, prng
from pokejax.game import batched, engine, setup, teams
from pokejax.game.bots import expected_damage, max_damage_action
from pokejax.game.masks import NUM_ACTIONS, legal_mask, legal_masks, legal_or_first, must_act
from pokejax.game.observe import OBS_SIZE, obs_layout, observe
from pokejax.game.state import REQUEST_ENDED, WINNER_TIE, BattleState

# the envs, and the game functions this module has always offered (now in pokejax.game)
__all__ = ["NUM_ACTIONS", "OBS_SIZE", "PokemonGen1Random", "PokemonGen1RandomEnv", "PokemonParams",
           "expected_damage", "legal_mask", "legal_masks", "legal_or_first", "make_team_pool_cached",
           "max_damage_action", "must_act", "obs_layout", "observe"]


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

    def switch_step_batch(self, states: BattleState, actions, params: PokemonParams, masks: jax.Array):
        """``jax.vmap(self.switch_step)`` on a batch (the same results; no keys: the step uses none),
        through ``batched.switch_step_batch``: the switch turn as batched code, no engine.
        ``masks``: ``legal_masks`` of each state. Returns (states, rewards)."""
        stepped = batched.switch_step_batch(states, jax.vmap(legal_or_first)(states, actions, masks))
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
        joint = env_step.joint_step(self, key_step, state, action, params, autoreset=True)
        after = env_step.switch_after(self, joint, state.agent, self._new_episode(key_reset, params), params)
        return env_step.finish(self, state, joint, after, params)

    def step_env(self, key, state: SingleAgentState, action, params: SingleAgentParams):
        """gymnax's ``step_env`` (no autoreset): the joint step and the opponent's lone replacement."""
        joint = env_step.joint_step(self, key, state, action, params, autoreset=False)
        after = env_step.switch_after(self, joint, state.agent, state, params)
        # no restart: the new-episode observation is not used
        obs, new_state, reward, terminated, _, info = env_step.finish(self, state, joint, after, params,
                                                                      obs_new=jnp.zeros(OBS_SIZE, jnp.float32))
        info = {k: v for k, v in info.items() if k in ("illegal_action", "action_mask")}
        return obs, new_state, reward, terminated, info

    def step_batch(self, keys, states: SingleAgentState, actions, params: SingleAgentParams | None = None,
                   switch_chunk: int | None = None, restart_chunk: int | None = None):
        """``jax.vmap(self.step, in_axes=(0, 0, 0, None))`` with the same results, cheaper: the
        work only some envs need runs on those envs alone, in sub-batches of ``switch_chunk``
        (switch-only battle steps, default B/8) and ``restart_chunk`` (new battles, default B/64)
        envs (``pokejax.env_step.step_batch``).
        ``paritygym.batched_step(env)`` returns this method (vector env, bench, PPO)."""
        if params is None:
            params = self.default_params
        return env_step.step_batch(self, keys, states, actions, params, switch_chunk, restart_chunk)

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

    def _replacement_action(self, key, game_state, side, params, mask):
        """The opponent's choice of a lone replacement. Both built-in opponents pick a uniformly
        random legal switch there (no move is legal, so max damage falls back to random)."""
        if not self.opponents:
            return random_legal_action(key, mask)
        return self._opponent_action(key, game_state, side, params, mask)

    def _opponent_action(self, key, game_state, side, params, mask=None):
        """``SingleAgentEnv._opponent_action`` given the opponent's mask (computed once per state
        by ``env_step.choose``): the opponent ``params.opponent`` picks; an illegal or out-of-range pick of a
        user policy falls back to the first legal action."""
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
        return legal_or_first_action(mask, action)[0].astype(jnp.int32)
