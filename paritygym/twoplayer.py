"""Two-player games: an explicit functional core, and a single-agent env against an opponent.

The core (`TwoPlayerGame`) keeps both sides explicit: `step` takes one action per player, returns
one reward per player, and `acting` says who must act now. Simultaneous games (Pokémon: both
choose, then the turn resolves) have both players acting; alternating games (TCG: one player
acts at a time) have one. The action of a player who is not acting is ignored.

`SingleAgentEnv` turns a core into a gymnax env: the agent plays one side and a built-in or user
opponent policy plays the other, chosen by index in `EnvParams.opponent`:

    0 = uniform random over legal actions
    1 = the game's heuristic bot (`TwoPlayerGame.heuristic_action`)
    2.. = user policies passed to the constructor, `policy(key, obs, legal_mask) -> action`

Illegal agent actions in the functional API are replaced by the lowest-index legal action and
flagged in `info["illegal_action"]`; the vector API (`paritygym.make_vec`) raises instead. An
action of a non-integer dtype is a `TypeError` in both, raised when the step is traced.
"""

from __future__ import annotations

import abc
from typing import Any, Callable, Generic, Sequence, TypeVar

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import environment, spaces

from paritygym.checks import bounded, check_discrete_action, check_value
from paritygym.random import key_word, uniform_legal_actions

GameState = TypeVar("GameState")
GameParams = TypeVar("GameParams")

# A user opponent: (key, observation of its side, legal-action mask) -> action.
OpponentPolicy = Callable[[jax.Array, Any, jax.Array], jax.Array]

OPPONENT_RANDOM = 0
OPPONENT_HEURISTIC = 1


class TwoPlayerGame(abc.ABC, Generic[GameState, GameParams]):
    """The functional two-player core every two-player game implements."""

    #: Size of the flat discrete action space (the same for both players).
    num_actions: int

    @property
    @abc.abstractmethod
    def default_params(self) -> GameParams: ...

    @abc.abstractmethod
    def init(self, key: jax.Array, params: GameParams) -> GameState:
        """A new game."""

    @abc.abstractmethod
    def step(
        self, key: jax.Array, state: GameState, actions: jax.Array, params: GameParams
    ) -> tuple[GameState, jax.Array, jax.Array, jax.Array]:
        """Applies ``actions`` (int32[2]) and returns ``(state, rewards f32[2], terminated, truncated)``.

        Rewards are +1 win / -1 loss / 0 otherwise (draw, truncation, mid-game)."""

    @abc.abstractmethod
    def acting(self, state: GameState, params: GameParams) -> jax.Array:
        """bool[2]: which players must choose an action now."""

    @abc.abstractmethod
    def legal_action_mask(self, state: GameState, player: jax.Array, params: GameParams) -> jax.Array:
        """bool[num_actions] of the legal actions of ``player`` (all False if not acting)."""

    @abc.abstractmethod
    def observe(self, state: GameState, player: jax.Array, params: GameParams) -> Any:
        """What ``player`` may know of the state."""

    @abc.abstractmethod
    def observation_space(self, params: GameParams) -> spaces.Space: ...

    @abc.abstractmethod
    def is_terminated(self, state: GameState) -> jax.Array:
        """bool: the game has ended by its rules (win, loss or draw)."""

    @abc.abstractmethod
    def is_truncated(self, state: GameState) -> jax.Array:
        """bool: the game was cut off by its turn cap before ending by its rules."""

    def is_over(self, state: GameState) -> jax.Array:
        return self.is_terminated(state) | self.is_truncated(state)

    def heuristic_action(self, key: jax.Array, state: GameState, player: jax.Array, params: GameParams) -> jax.Array:
        """The game's built-in bot (e.g. max damage). Defaults to random legal."""
        return random_legal_action(key, self.legal_action_mask(state, player, params))


def random_legal_action(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random legal action (action 0 if nothing is legal): ``uniform_legal_actions`` of a
    word hashed from ``key`` (``paritygym.random.key_word``), not ``jax.random.categorical``, whose
    Threefry draw per action is a loop of small kernels, a few percent of a cheap env step when vmapped
    over thousands of envs. One env: ``mask`` is bool[A] (``jax.vmap`` it for a batch)."""
    mask = jnp.asarray(mask, bool)
    if mask.ndim != 1:
        raise ValueError(f"random_legal_action takes one env's mask, bool[A], got shape {mask.shape}; "
                         "vmap it for a batch")
    return jnp.where(mask.any(), uniform_legal_actions(key_word(key), mask), 0).astype(jnp.int32)


def first_legal_action(mask: jax.Array) -> jax.Array:
    """The lowest legal action of ``mask`` (bool[..., num_actions]), one per row."""
    return jnp.argmax(mask, axis=-1).astype(jnp.int32)


def is_legal_action(mask: jax.Array, action) -> jax.Array:
    """Whether ``action`` (an int, any value) is legal under ``mask`` (bool[num_actions]); false for one out
    of range. With leading axes (``mask`` ``[..., num_actions]``, ``action`` ``[...]``) one answer per row.
    Compared against every action, not gathered: an accelerator runs a gather at a per-game index
    as one slow lookup per game."""
    return jnp.any(mask & (jnp.arange(mask.shape[-1]) == jnp.asarray(action)[..., None]), axis=-1)


def legal_or_first_action(mask: jax.Array, action) -> tuple[jax.Array, jax.Array]:
    """``(action, legal)``: ``action`` where ``is_legal_action``, else ``first_legal_action``; and whether it was
    legal (rows as ``is_legal_action``'s)."""
    legal = is_legal_action(mask, action)
    return jnp.where(legal, action, first_legal_action(mask)), legal


@struct.dataclass
class SingleAgentState(Generic[GameState]):
    game: Any
    agent: jax.Array  # int32: which side the agent plays this episode
    truncated: jax.Array  # bool: the game ended by its own turn cap
    time: jax.Array  # int32: agent steps taken this episode


@struct.dataclass
class SingleAgentParams:
    game: Any
    opponent: int = bounded(OPPONENT_RANDOM, ge=0)  # at most 1 + the number of user opponents
    agent_side: int = bounded(-1, ge=-1, le=1)  # 0 or 1: fixed side; -1: a random side each episode
    max_steps_in_episode: int = bounded(100_000, ge=1)


class SingleAgentEnv(environment.Environment):
    """One side of a `TwoPlayerGame` as a gymnax env, the other side played by an opponent policy.

    Args:
        game: the two-player core.
        opponents: extra user policies, selectable with ``params.opponent = 2 + index``.
        max_opponent_actions: bound on consecutive opponent actions between two agent actions
            (alternating games); reaching it ends the episode as truncated.
    """

    def __init__(self, game: TwoPlayerGame, opponents: Sequence[OpponentPolicy] = (), max_opponent_actions: int = 64):
        super().__init__()
        self.game = game
        if isinstance(opponents, (str, bytes)) or not all(callable(o) for o in opponents):
            raise TypeError(f"opponents must be a sequence of policies (key, obs, legal_mask) -> action, got {opponents!r}")
        self.opponents = tuple(opponents)
        self.max_opponent_actions = check_value("max_opponent_actions", max_opponent_actions, "int", ge=1)

    def check_params(self, params: SingleAgentParams) -> None:
        """The opponent index must name a policy this env has (``make`` calls this on the host)."""
        last = 1 + len(self.opponents)
        if not isinstance(params.opponent, jax.core.Tracer) and not 0 <= int(params.opponent) <= last:
            raise ValueError(f"param opponent must be an int in [0, {last}] (0 random, 1 heuristic, 2.. user policies), "
                             f"got {params.opponent!r}")

    @property
    def default_params(self) -> SingleAgentParams:
        return SingleAgentParams(game=self.game.default_params)

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    def action_space(self, params: SingleAgentParams | None = None) -> spaces.Discrete:
        return spaces.Discrete(self.game.num_actions)

    def observation_space(self, params: SingleAgentParams) -> spaces.Space:
        return self.game.observation_space(params.game)

    def action_mask(self, state: SingleAgentState, params: SingleAgentParams) -> jax.Array:
        """bool[num_actions]: the agent's legal actions in ``state``."""
        return self.game.legal_action_mask(state.game, state.agent, params.game)

    def _opponent_action(self, key, game_state, side, params):
        mask = self.game.legal_action_mask(game_state, side, params.game)
        builtins = [
            lambda k: random_legal_action(k, mask),
            lambda k: self.game.heuristic_action(k, game_state, side, params.game),
        ]
        users = [
            (lambda k, pol=pol: jnp.asarray(pol(k, self.game.observe(game_state, side, params.game), mask), jnp.int32))
            for pol in self.opponents
        ]
        branches = builtins + users
        index = jnp.clip(jnp.asarray(params.opponent, jnp.int32), 0, len(branches) - 1)
        action = jax.lax.switch(index, branches, key)
        # A user policy that picks an illegal or out-of-range action falls back to the first legal one.
        return legal_or_first_action(mask, action)[0].astype(jnp.int32)

    def _play_opponent(self, key, game_state, agent, params):
        """Opponent acts alone until the agent must act or the game ends (alternating games)."""
        opp = 1 - agent

        def needs_opponent(carry):
            _, state, _, count = carry
            acting = self.game.acting(state, params.game)
            return (~self.game.is_over(state)) & (~acting[agent]) & acting[opp] & (count < self.max_opponent_actions)

        def opponent_moves(carry):
            key, state, reward, count = carry
            key, k_act, k_step = jax.random.split(key, 3)
            action = self._opponent_action(k_act, state, opp, params)
            actions = jnp.zeros(2, jnp.int32).at[opp].set(action)
            state, rewards, _, _ = self.game.step(k_step, state, actions, params.game)
            return key, state, reward + rewards[agent], count + 1

        _, game_state, reward, count = jax.lax.while_loop(
            needs_opponent, opponent_moves, (key, game_state, jnp.float32(0.0), jnp.int32(0))
        )
        # The opponent used its whole budget and still holds the turn: end the episode (truncated).
        agent_to_act = self.game.acting(game_state, params.game)[agent]
        stuck = (count >= self.max_opponent_actions) & ~self.game.is_over(game_state) & ~agent_to_act
        return game_state, reward, stuck

    def reset_env(self, key: jax.Array, params: SingleAgentParams):
        k_side, k_game, k_opp = jax.random.split(key, 3)
        random_side = jax.random.bernoulli(k_side).astype(jnp.int32)
        agent = jnp.where(params.agent_side < 0, random_side, params.agent_side).astype(jnp.int32)
        game_state = self.game.init(k_game, params.game)
        game_state, _, stuck = self._play_opponent(k_opp, game_state, agent, params)
        state = SingleAgentState(game=game_state, agent=agent, truncated=stuck, time=jnp.int32(0))
        return self.game.observe(game_state, agent, params.game), state

    def step_env(self, key: jax.Array, state: SingleAgentState, action: jax.Array, params: SingleAgentParams):
        k_opp_act, k_step, k_after = jax.random.split(key, 3)
        agent, opp = state.agent, 1 - state.agent
        mask = self.game.legal_action_mask(state.game, agent, params.game)
        action = check_discrete_action(action, self.game.num_actions)  # at trace time only
        action, legal = legal_or_first_action(mask, action)
        acting = self.game.acting(state.game, params.game)
        opp_action = jnp.where(acting[opp], self._opponent_action(k_opp_act, state.game, opp, params), 0)
        actions = jnp.zeros(2, jnp.int32).at[agent].set(action).at[opp].set(opp_action)
        game_state, rewards, _, _ = self.game.step(k_step, state.game, actions, params.game)
        reward = rewards[agent]
        game_state, opp_reward, stuck = self._play_opponent(k_after, game_state, agent, params)
        new_state = SingleAgentState(
            game=game_state, agent=agent, truncated=self.game.is_truncated(game_state) | stuck, time=state.time + 1
        )
        terminated = self.game.is_terminated(game_state)
        info = {"illegal_action": ~legal, "action_mask": self.game.legal_action_mask(game_state, agent, params.game)}
        obs = self.game.observe(game_state, agent, params.game)
        return obs, new_state, (reward + opp_reward).astype(jnp.float32), terminated, info

    def is_terminated(self, state: SingleAgentState, params: SingleAgentParams) -> jax.Array:
        return self.game.is_terminated(state.game)

    def is_truncated(self, state: SingleAgentState, params: SingleAgentParams) -> jax.Array:
        return state.truncated | (state.time >= params.max_steps_in_episode)
