"""The RL env `TCGPocketA1-v0`: the two-player alternating core (`TCGGame`) and the single-agent env
against a built-in opponent (`TCGPocketA1`), on paritygym.twoplayer.

- Actions: the flat space of tcgjax.spec (58 actions), with a legal-action mask
  (`env.action_mask(state, params)`, also `info["action_mask"]`). An illegal agent action is replaced
  by the lowest legal one and flagged in `info["illegal_action"]` (paritygym.twoplayer); the vector
  API raises.
- Observation: float32[OBS_SIZE] of what the acting player may know (tcgjax.game.observe).
- Reward: +1 win, -1 loss, 0 draw / turn limit / mid-game.
- Termination: a win, loss or draw by the rules; the turn limit (`max_turns`, default 30) is a
  truncation.
- Opponents (`params.opponent`): 0 uniform random legal, 1 the greedy heuristic bot.
- Decks: `params.game.deck_cards/deck_energy` hold a pool; each game draws one deck per seat from it
  (`fixed_decks=True`: seat 0 plays deck 0, seat 1 deck 1). Build them with `make_game_params`.
"""

from __future__ import annotations

import functools
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import spaces

from paritygym.backend import accelerator_form
from paritygym.batching import update_where_needed_batched, where_needed_batched
from paritygym.checks import bounded, check_discrete_action, check_value
from paritygym.twoplayer import (SingleAgentEnv, SingleAgentParams, SingleAgentState, TwoPlayerGame,
                                 legal_or_first_action)
from tcgjax import spec
from tcgjax.decks import Deck, shipped_decks, validate_deck
from tcgjax.game import bots, card_tables
from tcgjax.game.core import kth_true
from tcgjax.game.observe import OBS_SIZE, observe
from tcgjax.game.state import GameState
from tcgjax.game.step import legal_actions, new_game, step, step_batch
from tcgjax.rng import stream_value_jax
from tcgjax.verify import deck_arrays


@struct.dataclass
class TCGParams:
    deck_cards: jnp.ndarray  # int32 [N, 20]: a pool of decks
    deck_energy: jnp.ndarray  # int32 [N, 3]: their Energy types (-1 padded)
    fixed_decks: bool = False
    max_turns: int = bounded(spec.DEFAULT_MAX_TURNS, ge=1, le=10_000)
    interleaved: bool = False  # single-agent env: one game action per env step (TCGPocketA1)


def make_game_params(decks: Sequence[Deck] | None = None, fixed_decks: bool = False,
                     max_turns: int = spec.DEFAULT_MAX_TURNS, interleaved: bool = False) -> TCGParams:
    """Game params for a pool of decks (default: the 14 shipped decks). Decks are validated."""
    decks = list(shipped_decks().values()) if decks is None else list(decks)
    if not decks:
        raise ValueError("the deck pool is empty")
    for deck in decks:
        validate_deck(deck)
    if not 1 <= int(max_turns) <= 10_000:
        raise ValueError(f"max_turns must be in 1..10000, got {max_turns}")
    cards = np.stack([deck_arrays([d, d])[0][0] for d in decks])
    energy = np.stack([deck_arrays([d, d])[1][0] for d in decks])
    return TCGParams(deck_cards=jnp.asarray(cards), deck_energy=jnp.asarray(energy), fixed_decks=fixed_decks,
                     max_turns=int(max_turns), interleaved=bool(interleaved))


class TCGGame(TwoPlayerGame):
    """The alternating two-player core: exactly one player (the decider) acts at a time."""

    num_actions = spec.NUM_ACTIONS

    def __init__(self, opening_hand_rule: int = spec.OPENING_RESHUFFLE) -> None:
        self.opening_hand_rule = check_value("opening_hand_rule", opening_hand_rule, "int",
                                             choices=(spec.OPENING_RESHUFFLE, spec.OPENING_ONE_BASIC))
        self.tables = card_tables()

    @property
    def default_params(self) -> TCGParams:
        return make_game_params()

    def init(self, key: jax.Array, params: TCGParams) -> GameState:
        k_seed, k_decks = jax.random.split(key)
        seed = jax.random.bits(k_seed, dtype=jnp.uint32)
        pool = params.deck_cards.shape[0]
        drawn = jax.random.randint(k_decks, (2,), 0, pool)
        fixed = jnp.array([0, 1 % pool])
        index = jnp.where(params.fixed_decks, fixed, drawn)
        return new_game(self.tables, seed, params.deck_cards[index], params.deck_energy[index], self.opening_hand_rule)

    def step(self, key, state: GameState, actions, params: TCGParams):
        del key  # all randomness is in the game's stream (RNG-1)
        action = jnp.asarray(actions, jnp.int32)[state.decider]
        new = step(self.tables, state, action, params.max_turns)
        ended = new.game_over & ~state.game_over
        first = jnp.where(new.winner == 0, 1.0, jnp.where(new.winner == 1, -1.0, 0.0)) * ended
        rewards = jnp.stack([first, -first]).astype(jnp.float32)
        return new, rewards, self.is_terminated(new), self.is_truncated(new)

    def acting(self, state: GameState, params: TCGParams):
        return (jnp.arange(2) == state.decider) & ~state.game_over

    def legal_action_mask(self, state: GameState, player, params: TCGParams):
        return legal_actions(self.tables, state) & (state.decider == player)

    def observe(self, state: GameState, player, params: TCGParams):
        return observe(self.tables, state, player, params.max_turns)

    def observation_space(self, params: TCGParams) -> spaces.Box:
        return spaces.Box(-10.0, 10.0, (OBS_SIZE,), jnp.float32)

    def is_terminated(self, state: GameState):
        return state.game_over & ~state.truncated

    def is_truncated(self, state: GameState):
        return state.truncated

    def heuristic_action(self, key, state: GameState, player, params: TCGParams):
        return bots.heuristic_action(self.tables, state)


# default sub-batch of `_advance_batch`'s opponent loop after its first action (played on the whole
# batch), as a fraction of its games: only the games where the opponent decides keep going, and
# their number falls fast (random play, batch 1,024: median 331, 233, 164, 112, 69, 39, 22, 9, 3, 1
# games at the loop's iterations 1..10; agent decisions per CPU s, 2026-12-02: 1/8 over 1/4 1.09x,
# 1/16 over 1/8 1.05x, medians of interleaved rounds, docs/dev/progress-tcg.md)
OPPONENT_LOOP_SHARE = 1 / 16
# the same in the accelerator form, whose sub-batches are moved by one-hot products
# (`paritygym.batching`): a trip there costs ~0.25 ms of small kernels whatever its width (TPU v5e,
# TCG at 4,096 envs), so fewer, wider trips
ACCELERATOR_LOOP_SHARE = 1 / 8
# default sub-batch of the autoreset's new episodes in `step_batch`, as a fraction of the envs:
# episodes last tens of agent decisions, so a few % of the envs end one in a step
RESTART_SHARE = 1 / 16


def _opponent_word(key: jax.Array) -> jax.Array:
    """The uint32 word of an env step's key from which the random opponent draws all its actions
    of that step (`_uniform_legal`): one Threefry hash per env step instead of several per opponent
    action (XLA:CPU runs each Threefry hash as a small loop of kernels)."""
    return jax.random.bits(key, dtype=jnp.uint32)


def _uniform_legal(word: jax.Array, i: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniform random legal action (the k-th legal action; k from one hashed integer, not a
    categorical draw, which makes one Gumbel value per action) for the opponent's `i`-th action of
    an env step whose opponent word (`_opponent_word`) is `word`. The hash is the game stream's
    (`tcgjax.rng`, straight-line integer arithmetic). k = value mod the number of legal actions:
    its bias (at most 58 / 2^32) is far below anything a run can see."""
    count = jnp.maximum(mask.sum(), 1).astype(jnp.uint32)
    return kth_true(mask, (stream_value_jax(word, i) % count).astype(jnp.int32))


def _step_info(state: SingleAgentState, legal, next_mask, terminated, truncated, final_observation) -> dict:
    """The step's `info` (one env in `step`, or a batch in `step_batch`: the same keys, elementwise)."""
    return {"illegal_action": ~legal, "action_mask": next_mask, "terminated": terminated, "truncated": truncated,
            "final_observation": final_observation,
            "agent_acted": ~state.game.game_over & (state.game.decider == state.agent)}


class TCGPocketA1(SingleAgentEnv):
    """`TCGPocketA1-v0`: the agent plays one seat (random each episode unless
    `params.agent_side` is 0 or 1) against the opponent `params.opponent` (0 random, 1 heuristic).

    Same behaviour as paritygym's SingleAgentEnv, with one change for compile time: the agent's
    action and the opponent's following actions go through one loop whose body holds a single game
    step (the base class compiles the game step twice).

    Interleaved mode (`interleaved=True`, the default of `params.game.interleaved`; a traced value,
    so one compiled program serves both modes): each env step is exactly one game action, so that a
    batch of envs never waits for the longest opponent turn in the batch (the default mode's loop
    runs, under vmap, as long as the longest one). While the agent decides, the step applies the
    agent's action; while the opponent decides, it applies the opponent's action and the agent's
    only legal action is `END` (0), a pass that is ignored (`info["agent_acted"]` is False). Reset
    makes no game action. The game played is the same as in the default mode; rewards arrive at the
    step whose action ends the game (possibly an opponent's)."""

    def __init__(self, opening_hand_rule: int = spec.OPENING_RESHUFFLE, max_opponent_actions: int = 512,
                 interleaved: bool = False) -> None:
        super().__init__(TCGGame(opening_hand_rule), (), max_opponent_actions)
        self.interleaved = check_value("interleaved", interleaved, "bool")

    def check_params(self, params: SingleAgentParams) -> None:
        """Besides the scalar fields ``make`` checks: a deck pool of int arrays [N, 20] and [N, 3]
        (``make_game_params`` builds and validates one from decks)."""
        super().check_params(params)
        cards, energy = params.game.deck_cards, params.game.deck_energy
        if isinstance(cards, jax.core.Tracer) or isinstance(energy, jax.core.Tracer):
            return
        cards, energy = np.asarray(cards), np.asarray(energy)
        if (cards.ndim != 2 or cards.shape[1:] != (20,) or energy.shape != (len(cards), 3) or not len(cards)
                or not np.issubdtype(cards.dtype, np.integer) or not np.issubdtype(energy.dtype, np.integer)):
            raise ValueError(f"param game.deck_cards/deck_energy must be int arrays [N, 20] and [N, 3] with N >= 1 "
                             f"(build them with tcgjax.env.make_game_params), got {cards.dtype}{list(cards.shape)} "
                             f"and {energy.dtype}{list(energy.shape)}")

    @property
    def default_params(self) -> SingleAgentParams:
        params = super().default_params
        return params.replace(game=params.game.replace(interleaved=self.interleaved))

    def _agent_mask(self, game_state: GameState, agent, params: SingleAgentParams, decider_mask=None):
        """The agent's legal actions; in interleaved mode, only the pass (`END`) while the opponent
        decides. `decider_mask`: the decider's legal actions (`legal_actions`), if the caller has them."""
        if decider_mask is None:
            mask = self.game.legal_action_mask(game_state, agent, params.game)
        else:
            mask = decider_mask & (game_state.decider == agent)
        waiting = jnp.asarray(params.game.interleaved) & ~game_state.game_over & (game_state.decider != agent)
        return jnp.where(waiting, jnp.arange(spec.NUM_ACTIONS) == spec.END, mask)

    def action_mask(self, state: SingleAgentState, params: SingleAgentParams) -> jax.Array:
        return self._agent_mask(state.game, state.agent, params)

    def _advance(self, key, game_state: GameState, agent, agent_action, has_agent_action, params: SingleAgentParams):
        """Apply the agent's action (if any), then opponent actions until the agent must act or the
        game ends. Returns (game state, agent reward, stuck)."""
        game: TCGGame = self.game
        tables = game.tables
        interleaved = jnp.asarray(params.game.interleaved)
        word = _opponent_word(key)

        def cond(carry):
            i, state, _, count = carry
            opponent_turn = ~state.game_over & (state.decider != agent) & (count < self.max_opponent_actions)
            # interleaved: one action only (the agent's, or the opponent's while it decides)
            return ((i == 0) & has_agent_action) | (opponent_turn & ~interleaved)

        def body(carry):
            i, state, reward, count = carry
            mask = legal_actions(tables, state)
            opponent = self._opponent_policy(word, i, state, mask, params)
            agent_turn = (i == 0) & has_agent_action & (state.decider == agent)
            action = jnp.where(agent_turn, agent_action, opponent)
            new = step(tables, state, action, params.game.max_turns, mask)
            ended = new.game_over & ~state.game_over
            won = jnp.where(new.winner == agent, 1.0, jnp.where(new.winner == 1 - agent, -1.0, 0.0))
            return i + 1, new, reward + jnp.where(ended, won, 0.0), count + (~agent_turn).astype(jnp.int32)

        _, game_state, reward, count = jax.lax.while_loop(
            cond, body, (jnp.int32(0), game_state, jnp.float32(0.0), jnp.int32(0)))
        stuck = (count >= self.max_opponent_actions) & ~game_state.game_over & (game_state.decider != agent)
        return game_state, reward.astype(jnp.float32), stuck

    def _opponent_policy(self, word, i, state: GameState, mask, params: SingleAgentParams):
        """The opponent's action in one game: `params.opponent` 0 uniform random legal (its `i`-th
        action of the env step whose opponent word is `word`, see `_uniform_legal`), 1 heuristic.
        Only the chosen policy runs (`lax.cond`: `params` are one value for a whole batch; a vmap
        over params makes it a select of both)."""
        return jax.lax.cond(jnp.asarray(params.opponent) == 1,
                            lambda: bots.heuristic_action(self.game.tables, state, mask),
                            lambda: _uniform_legal(word, i, mask))

    def _new_episode(self, key, params: SingleAgentParams):
        k_side, k_game, k_opp = jax.random.split(key, 3)
        random_side = jax.random.bernoulli(k_side).astype(jnp.int32)
        agent = jnp.where(params.agent_side < 0, random_side, params.agent_side).astype(jnp.int32)
        return agent, self.game.init(k_game, params.game), k_opp

    def reset_env(self, key: jax.Array, params: SingleAgentParams):
        agent, game_state, k_opp = self._new_episode(key, params)
        game_state, _, stuck = self._advance(k_opp, game_state, agent, jnp.int32(0), jnp.bool_(False), params)
        state = SingleAgentState(game=game_state, agent=agent, truncated=stuck, time=jnp.int32(0))
        return self.game.observe(game_state, agent, params.game), state

    def step_env(self, key: jax.Array, state: SingleAgentState, action: jax.Array, params: SingleAgentParams):
        agent = state.agent
        mask = self._agent_mask(state.game, agent, params)
        action, legal = self._checked(action, mask)
        game_state, reward, stuck = self._advance(key, state.game, agent, action, ~state.game.game_over, params)
        new_state = SingleAgentState(game=game_state, agent=agent, truncated=game_state.truncated | stuck, time=state.time + 1)
        info = {"illegal_action": ~legal, "action_mask": self._agent_mask(game_state, agent, params),
                "agent_acted": ~state.game.game_over & (state.game.decider == agent)}
        return (self.game.observe(game_state, agent, params.game), new_state, reward,
                self.game.is_terminated(game_state), info)

    @staticmethod
    def _checked(action, mask):
        action = check_discrete_action(action, spec.NUM_ACTIONS)  # at trace time only
        return legal_or_first_action(mask, action)

    @functools.partial(jax.jit, static_argnames=("self",))
    def step(self, key: jax.Array, state: SingleAgentState, action, params: SingleAgentParams | None = None):
        """gymnax's step (step_env, truncation, autoreset, info["final_observation"]) with the
        continued episode and the candidate new episode advanced by one vmapped loop, so that the
        game step is compiled once."""
        params = self.default_params if params is None else params
        legal, inputs = self._advance_inputs(key, state, action, params)
        advanced = jax.vmap(self._advance, in_axes=(0, 0, 0, 0, 0, None))(*inputs, params)
        return self._step_outputs(state, legal, inputs[2], *advanced, params)

    def step_batch(self, keys: jax.Array, states: SingleAgentState, actions, params: SingleAgentParams | None = None):
        """`jax.vmap(self.step, in_axes=(0, 0, 0, None))` with the same results, cheaper: each
        iteration of the opponent loop steps only the games whose loop is still going, with
        `tcgjax.game.step.step_batch` (a Trainer, an Ability, an attack or a full `settle` runs
        only on the games that need one), and the autoreset's new episode (a new game, the
        opponent's opening turn, its observation and mask) is made only for the envs whose episode
        ended, in sub-batches of B * RESTART_SHARE. `paritygym.batched_step(env)` returns this
        method (vector env, bench, PPO)."""
        params = self.default_params if params is None else params
        split_keys = jax.vmap(jax.random.split)(keys)
        key_steps, key_resets = split_keys[:, 0], split_keys[:, 1]
        agents = states.agent
        # the deciders' masks serve both the agent's action check and the loop's first action
        decider_masks = jax.vmap(legal_actions, in_axes=(None, 0))(self.game.tables, states.game)
        masks = jax.vmap(self._agent_mask, in_axes=(0, 0, None, 0))(states.game, agents, params, decider_masks)
        actions, legal = jax.vmap(self._checked)(actions, masks)
        games, rewards, stuck = self._advance_batch(key_steps, states.game, agents, actions, ~states.game.game_over, params,
                                                    decider_masks)
        stepped = SingleAgentState(game=games, agent=agents, truncated=games.truncated | stuck, time=states.time + 1)
        # the barrier makes XLA write the observations once: without it, it fused the observation's
        # gathers and concatenation into their consumers below and recomputed them there (env step
        # 2.5x slower with the observation read, `paritygym bench TCGPocketA1-v0`, 2026-12-01)
        observations = jax.lax.optimization_barrier(
            jax.vmap(self.game.observe, in_axes=(0, 0, None))(games, agents, params.game))
        terminated = jax.vmap(self.game.is_terminated)(games)
        truncated = jax.vmap(self.is_truncated, in_axes=(0, None))(stepped, params)
        done = terminated | truncated

        def restart(valid, key_reset):
            """The autoreset's new episode of a sub-batch of envs (as `reset_env`, batched)."""
            new_agents, new_games, keys_opp = jax.vmap(self._new_episode, in_axes=(0, None))(key_reset, params)
            no_action = jnp.zeros(new_agents.shape, jnp.int32)
            new_games, _, new_stuck = self._advance_batch(keys_opp, new_games, new_agents, no_action,
                                                          jnp.zeros(new_agents.shape, bool), params)
            restarted = SingleAgentState(game=new_games, agent=new_agents, truncated=new_stuck, time=no_action)
            return (restarted, jax.vmap(self.game.observe, in_axes=(0, 0, None))(new_games, new_agents, params.game),
                    jax.vmap(self._agent_mask, in_axes=(0, 0, None))(new_games, new_agents, params))

        stepped_masks = jax.vmap(self._agent_mask, in_axes=(0, 0, None))(games, agents, params)
        new_states, obs, next_masks = where_needed_batched(
            done, max(1, int(agents.shape[0] * RESTART_SHARE)), restart, (key_resets,),
            otherwise=(stepped, observations, stepped_masks), on_accelerator="one_hot")
        info = _step_info(states, legal, next_masks, terminated, truncated, observations)
        return obs, new_states, rewards, terminated, truncated, info

    def _advance_inputs(self, key, state: SingleAgentState, action, params: SingleAgentParams):
        """One env: whether the agent's action is legal, and `_advance`'s arguments for the continued
        episode and the candidate new one (autoreset), stacked ([2] leading axis)."""
        key_step, key_reset = jax.random.split(key)
        agent = state.agent
        mask = self._agent_mask(state.game, agent, params)
        action, legal = self._checked(action, mask)
        new_agent, new_game_state, key_opp = self._new_episode(key_reset, params)
        games = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), state.game, new_game_state)
        return legal, (jnp.stack([key_step, key_opp]), games, jnp.stack([agent, new_agent]),
                       jnp.stack([action, jnp.int32(0)]), jnp.stack([~state.game.game_over, jnp.bool_(False)]))

    def _advance_batch(self, keys, game_states: GameState, agents, agent_actions, has_agent_action,
                       params: SingleAgentParams, first_masks=None):
        """`jax.vmap(self._advance)` over N games written as one batched loop (the same
        iterations, a game's carry kept where its own loop has ended). The first iteration steps
        the whole batch; each later one steps only the games whose loop is still going, gathered
        into chunks of N * OPPONENT_LOOP_SHARE games (`paritygym.batching.where_needed_batched`),
        with `step_batch`. `first_masks`: the deciders' legal masks of `game_states`, if the caller
        has them (for the first action)."""
        tables = self.game.tables
        interleaved = jnp.asarray(params.game.interleaved)

        def going(i, state, count, agent, has_action):
            opponent_turn = ~state.game_over & (state.decider != agent) & (count < self.max_opponent_actions)
            return ((i == 0) & has_action) | (opponent_turn & ~interleaved)

        def play(valid, carry, word, agent, agent_action, has_action, masks=None):
            """One game action in each of a sub-batch of games (leading axis K); the padding rows
            (not `valid`) play the illegal action -1, which asks for no handler and no `settle`."""
            i, state, reward, count = carry
            if masks is None:
                masks = jax.vmap(legal_actions, in_axes=(None, 0))(tables, state)
            opponent = jax.vmap(lambda w, j, s, m: self._opponent_policy(w, j, s, m, params))(word, i, state, masks)
            agent_turn = (i == 0) & has_action & (state.decider == agent)
            action = jnp.where(valid, jnp.where(agent_turn, agent_action, opponent), -1)
            new = step_batch(tables, state, action, params.game.max_turns, masks)
            ended = new.game_over & ~state.game_over
            won = jnp.where(new.winner == agent, 1.0, jnp.where(new.winner == 1 - agent, -1.0, 0.0))
            return i + 1, new, reward + jnp.where(ended, won, 0.0), count + (~agent_turn).astype(jnp.int32)

        def body(carry):
            i, state, _, count = carry
            playing = going(i, state, count, agents, has_agent_action)
            # the carry's rows are read from the loop's own output, so that it is updated in place
            share = ACCELERATOR_LOOP_SHARE if accelerator_form() else OPPONENT_LOOP_SHARE
            return update_where_needed_batched(playing, max(1, int(agents.shape[0] * share)), play,
                                               carry, (words, agents, agent_actions, has_agent_action),
                                               on_accelerator="one_hot")

        words = jax.vmap(_opponent_word)(keys)
        zeros = jnp.zeros(agents.shape, jnp.int32)
        carry = (zeros, game_states, jnp.zeros(agents.shape, jnp.float32), zeros)
        # the first action (the agent's in most games; the only one in interleaved mode) is played
        # on the whole batch, without gathering it into chunks: interleaved mode 1.10x agent
        # decisions per CPU s, default mode within noise (`python -m benchmarks.tcg --env`, 2026-12-02)
        playing = going(zeros, game_states, zeros, agents, has_agent_action)
        played = play(playing, carry, words, agents, agent_actions, has_agent_action, first_masks)
        carry = jax.tree_util.tree_map(
            lambda new, old: jnp.where(playing.reshape(playing.shape + (1,) * (new.ndim - 1)), new, old), played, carry)
        _, game_states, reward, count = jax.lax.while_loop(
            lambda carry: jnp.any(going(carry[0], carry[1], carry[3], agents, has_agent_action)), body, carry)
        stuck = (count >= self.max_opponent_actions) & ~game_states.game_over & (game_states.decider != agents)
        return game_states, reward, stuck

    def _step_outputs(self, state: SingleAgentState, legal, agents, games: GameState, rewards, stuck,
                      params: SingleAgentParams):
        """One env: gymnax's step tuple from the advanced continued episode and new episode ([2])."""
        agent, new_agent = agents[0], agents[1]
        observations = jax.vmap(self.game.observe, in_axes=(0, 0, None))(games, agents, params.game)
        masks = jax.vmap(self._agent_mask, in_axes=(0, 0, None))(games, agents, params)
        stepped_game = jax.tree_util.tree_map(lambda x: x[0], games)
        reset_game = jax.tree_util.tree_map(lambda x: x[1], games)
        stepped = SingleAgentState(game=stepped_game, agent=agent, truncated=stepped_game.truncated | stuck[0], time=state.time + 1)
        restarted = SingleAgentState(game=reset_game, agent=new_agent, truncated=stuck[1], time=jnp.int32(0))
        terminated = self.game.is_terminated(stepped_game)
        truncated = self.is_truncated(stepped, params)
        done = terminated | truncated
        new_state = jax.tree_util.tree_map(lambda r, s: jax.lax.select(done, r, s), restarted, stepped)
        obs = jnp.where(done, observations[1], observations[0])
        info = _step_info(state, legal, jnp.where(done, masks[1], masks[0]), terminated, truncated, observations[0])
        return obs, new_state, rewards[0], terminated, truncated, info
