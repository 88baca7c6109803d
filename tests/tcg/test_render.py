"""The text and RGB views of a game (tcgjax.render): they show what the reference engine's state
holds (cards in play with HP left, hands, points, the result), and reject what is not one game."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import paritygym
from tcgjax import spec
from tcgjax.game.state import from_canonical
from tcgjax.render import legal_action_names, render_state, render_text
from tcgjax.verify import random_games


@pytest.fixture(scope="module")
def finished_game():
    """The reference states of one random game (the last one is over)."""
    return random_games(1, seed=5)[0]


def test_text_shows_the_reference_state(finished_game, db):
    middle = finished_game.states[len(finished_game.states) // 2]
    text = render_text(from_canonical(middle))
    assert f"Turn {int(middle['turn'])} " in text
    for seat in (0, 1):
        assert f"Player {seat}" in text and f"{int(middle['points'][seat])} point(s)" in text
        for slot in range(spec.NUM_SLOTS):
            card = int(middle["card"][seat, slot])
            if card >= 0:
                info = db.cards[card]
                assert f"{info.name:<22} HP {info.hp - int(middle['damage'][seat, slot]):>3}/{info.hp}" in text
        hand = [db.cards[c].name for c in middle["hand"][seat][: int(middle["hand_size"][seat])]]
        assert f"Hand ({len(hand)}): " + (", ".join(hand) if hand else "-") in text


def test_text_shows_the_result(finished_game):
    last = finished_game.states[-1]
    text = render_text(from_canonical(last))
    winner = int(last["winner"])
    assert ("draw" if winner < 0 else f"player {winner} wins") in text


def test_frame_and_registered_hook(finished_game):
    assert paritygym.spec("TCGPocketA1-v0").render == "tcgjax.render:render_state"
    frames = [render_state(from_canonical(s)) for s in (finished_game.states[0], finished_game.states[-1])]
    assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3 for f in frames)
    assert frames[0].shape == frames[1].shape  # one size for every frame of a GIF
    assert (frames[0] != frames[0][0, 0]).any()  # text was drawn


def test_bad_input_is_a_clear_error(finished_game):
    with pytest.raises(TypeError, match="GameState"):
        render_text({"card": 1})
    batched = from_canonical(finished_game.states[0])
    batched = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), batched)
    with pytest.raises(ValueError, match="one game"):
        render_text(batched)
    with pytest.raises(ValueError, match="shape"):
        legal_action_names(np.zeros(3, bool))


def test_legal_action_names(finished_game):
    names = legal_action_names(finished_game.masks[0])
    assert names and all(isinstance(n, str) for n in names)
    assert len(names) == int(np.sum(finished_game.masks[0]))
