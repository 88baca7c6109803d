"""Tiny envs used only to test the shared machinery (registry, conformance checker, two-player env)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct
from gymnax.environments import environment, spaces

from paritygym.batching import where_needed
from paritygym.checks import bounded, check_discrete_action, check_value
from paritygym.twoplayer import SingleAgentEnv, TwoPlayerGame


@struct.dataclass
class CounterState:
    position: jax.Array
    time: jax.Array


@struct.dataclass
class CounterParams:
    goal: int = 5
    max_steps_in_episode: int = bounded(50, ge=1)


class Counter(environment.Environment):
    """Walk on a line: action 0 steps left, 1 steps right; reaching `goal` ends the episode (+1)."""

    def __init__(self, noisy_start: bool = True):
        super().__init__()
        self.noisy_start = check_value("noisy_start", noisy_start, "bool")

    @property
    def default_params(self) -> CounterParams:
        return CounterParams()

    def reset_env(self, key, params):
        start = jax.random.randint(key, (), -2, 3) if self.noisy_start else jnp.int32(0)
        state = CounterState(position=start.astype(jnp.int32), time=jnp.int32(0))
        return self.get_obs(state), state

    def step_env(self, key, state, action, params):
        action = check_discrete_action(action, 2)
        position = state.position + jnp.where(action == 1, 1, -1)
        state = CounterState(position=position, time=state.time + 1)
        terminated = position >= params.goal
        return self.get_obs(state), state, terminated.astype(jnp.float32), terminated, {}

    def get_obs(self, state, params=None, key=None):
        return jnp.array([state.position, state.time], jnp.float32)

    def is_terminated(self, state, params):
        return state.position >= params.goal

    @property
    def num_actions(self) -> int:
        return 2

    def action_space(self, params=None):
        return spaces.Discrete(2)

    def observation_space(self, params):
        return spaces.Box(-1000.0, 1000.0, (2,), jnp.float32)


class WrongDtypeCounter(Counter):
    def get_obs(self, state, params=None, key=None):
        return jnp.array([state.position, state.time], jnp.int32)


class OutOfBoundsCounter(Counter):
    def observation_space(self, params):
        return spaces.Box(-1.0, 1.0, (2,), jnp.float32)


class NanCounter(Counter):
    def get_obs(self, state, params=None, key=None):
        return jnp.array([state.position, jnp.where(state.time > 3, jnp.nan, 0.0)], jnp.float32)


class LooseOption(Counter):
    """Takes anything for its bool option (`bool("no")` is True)."""

    def __init__(self, noisy_start: bool = True):
        super().__init__()
        self.noisy_start = bool(noisy_start)


@struct.dataclass
class UnboundedLimitParams:
    goal: int = 5
    max_steps_in_episode: int = 50  # no bound: 0 or -5 would truncate at the first step


class UnboundedLimit(Counter):
    @property
    def default_params(self) -> UnboundedLimitParams:
        return UnboundedLimitParams()


class FloatActions(Counter):
    """Casts its Discrete action, so a float is truncated silently."""

    def step_env(self, key, state, action, params):
        return super().step_env(key, state, jnp.asarray(action, jnp.int32), params)


class NeverTruncates(Counter):
    def is_truncated(self, state, params):
        return jnp.bool_(False)

    def reset_env(self, key, params):
        state = CounterState(position=jnp.int32(-100), time=jnp.int32(0))
        return self.get_obs(state), state


@struct.dataclass
class NimState:
    stones: jax.Array
    to_play: jax.Array
    winner: jax.Array  # -1 none, else 0/1
    turns: jax.Array


@struct.dataclass
class NimParams:
    initial_stones: int = 7
    turn_cap: int = 100


class Nim(TwoPlayerGame):
    """Alternating: take 1, 2 or 3 stones (actions 0, 1, 2); whoever takes the last stone wins."""

    num_actions = 3

    @property
    def default_params(self) -> NimParams:
        return NimParams()

    def init(self, key, params):
        first = jax.random.bernoulli(key).astype(jnp.int32)
        return NimState(jnp.int32(params.initial_stones), first, jnp.int32(-1), jnp.int32(0))

    def step(self, key, state, actions, params):
        take = jnp.minimum(actions[state.to_play] + 1, state.stones)
        stones = state.stones - take
        winner = jnp.where(stones == 0, state.to_play, -1)
        new = NimState(stones, 1 - state.to_play, winner, state.turns + 1)
        rewards = jnp.where(winner >= 0, jnp.where(jnp.arange(2) == winner, 1.0, -1.0), 0.0).astype(jnp.float32)
        return new, rewards, self.is_terminated(new), self.is_truncated(new)

    def acting(self, state, params):
        over = self.is_over(state)
        return (jnp.arange(2) == state.to_play) & ~over

    def legal_action_mask(self, state, player, params):
        acting = self.acting(state, params)[player]
        return (jnp.arange(3) < state.stones) & acting

    def observe(self, state, player, params):
        return jnp.array([state.stones, state.to_play == player], jnp.float32)

    def observation_space(self, params):
        return spaces.Box(0.0, 100.0, (2,), jnp.float32)

    def is_terminated(self, state):
        return state.winner >= 0

    def is_truncated(self, state):
        return state.turns >= 100

    def heuristic_action(self, key, state, player, params):
        # Optimal play: leave a multiple of 4 when possible.
        best = (state.stones % 4) - 1
        return jnp.where(best >= 0, best, 0).astype(jnp.int32)


class NimEnv(SingleAgentEnv):
    """Nim as a single-agent env (the registry makes it by class path)."""

    def __init__(self, opponents=()):
        super().__init__(Nim(), opponents=opponents)


TOY_IDS = {
    "ToyCounter-v0": "tests.toy_envs:Counter",
    "ToyWrongDtype-v0": "tests.toy_envs:WrongDtypeCounter",
    "ToyOutOfBounds-v0": "tests.toy_envs:OutOfBoundsCounter",
    "ToyNan-v0": "tests.toy_envs:NanCounter",
    "ToyNeverTruncates-v0": "tests.toy_envs:NeverTruncates",
    "ToyLooseOption-v0": "tests.toy_envs:LooseOption",
    "ToyUnboundedLimit-v0": "tests.toy_envs:UnboundedLimit",
    "ToyFloatActions-v0": "tests.toy_envs:FloatActions",
    "ToyNim-v0": "tests.toy_envs:NimEnv",
}


def register_toys() -> None:
    """Registers the toy ids (idempotent; the toys live only in the test suite)."""
    import paritygym

    for env_id, entry in TOY_IDS.items():
        if env_id not in paritygym.registered_envs():
            paritygym.register(env_id, entry, reference="none (test toy)")


class GatheringCounter(Counter):
    """A `Counter` whose batched step runs the right-steps on the envs that take one, gathered into
    sub-batches (`paritygym.batching.where_needed`), as pokejax's and tcgjax's `step_batch` run their
    handlers: partitioned across devices by XLA, those gathers move env rows between devices."""

    def step_batch(self, keys, states, actions, params):
        step = jax.vmap(self.step, in_axes=(0, 0, 0, None))
        return where_needed(actions == 1, 4, lambda k, s, a: self.step(k, s, a, params), (keys, states, actions),
                            otherwise=step(keys, states, 1 - actions, params))
