"""Readable views of one game: a text board and the same text drawn as an RGB frame.

    print(render_text(state))                      # a GameState or the env's SingleAgentState
    frame = render_state(env_state, env_params)    # uint8[H, W, 3], the registered render hook

Both read one unbatched state (device arrays or numpy). The text shows the whole game (both hands,
the decks' sizes, every Pokémon in play with damage, Energy and conditions), for debugging and for
GIFs of a trained policy; it is not what a player may see (that is tcgjax.game.observe).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

from tcgjax import spec
from tcgjax.cards import ENERGY_TYPES, CardDatabase, load_cards
from tcgjax.game.state import fields as state_fields

SPECIAL_NAMES = {spec.ASLEEP: "asleep", spec.PARALYZED: "paralyzed", spec.CONFUSED: "confused"}
ENERGY_LETTERS = {"grass": "G", "fire": "R", "water": "W", "lightning": "L", "psychic": "P", "fighting": "F",
                  "darkness": "D", "metal": "M"}


def _game_state(state: Any) -> tuple[Any, int | None]:
    """(GameState, agent seat or None) of a GameState or a paritygym SingleAgentState."""
    if hasattr(state, "game") and hasattr(state, "agent"):
        return state.game, int(np.asarray(state.agent))
    if not hasattr(state, "card") or not hasattr(state, "stack"):
        raise TypeError(f"expected a tcgjax GameState or the env's SingleAgentState, got {type(state).__name__}")
    return state, None


def _values(game) -> dict[str, np.ndarray]:
    values = {name: np.asarray(value) for name, value in state_fields(jax.device_get(game)).items()}
    if values["card"].shape != (2, spec.NUM_SLOTS):
        raise ValueError(f"render takes one game, not a batch (card has shape {values['card'].shape})")
    return values


def _card_name(db: CardDatabase, index: int) -> str:
    return db.cards[index].name if 0 <= index < len(db.cards) else "?"


def _energy_text(counts: np.ndarray) -> str:
    parts = [f"{ENERGY_LETTERS[ENERGY_TYPES[t]]}{int(n)}" for t, n in enumerate(counts) if n > 0]
    return " ".join(parts) if parts else "-"


def _pokemon_line(db: CardDatabase, v: dict, seat: int, slot: int) -> str:
    card = int(v["card"][seat, slot])
    label = "Active" if slot == 0 else f"Bench {slot}"
    if card < 0:
        return f"  {label:<8} (empty)"
    info = db.cards[card]
    hp_left = info.hp - int(v["damage"][seat, slot])
    line = f"  {label:<8} {info.name:<22} HP {hp_left:>3}/{info.hp:<3} Energy {_energy_text(v['energy'][seat, slot])}"
    if slot == 0:
        conditions = [name for name, flag in (("poisoned", v["poisoned"][seat]), ("burned", v["burned"][seat])) if flag]
        special = int(v["special"][seat])
        if special in SPECIAL_NAMES:
            conditions.append(SPECIAL_NAMES[special])
        if conditions:
            line += "  [" + ", ".join(conditions) + "]"
    return line


def render_text(state: Any, db: CardDatabase | None = None) -> str:
    """The board of one game as text (seat 0 first; the agent's seat is marked)."""
    db = db or load_cards()
    game, agent = _game_state(state)
    v = _values(game)
    phase = int(v["phase"])
    phase_name = spec.PHASE_NAMES[phase] if 0 <= phase < len(spec.PHASE_NAMES) else f"phase {phase}"
    header = f"Turn {int(v['turn'])}  player {int(v['turn_player'])} to play  phase {phase_name}  decides: {int(v['decider'])}"
    lines = [header]
    if bool(v["game_over"]):
        winner = int(v["winner"])
        result = "draw" if winner < 0 else f"player {winner} wins"
        lines.append(f"Game over: {result}{' (turn limit)' if bool(v['truncated']) else ''}")
    for seat in (0, 1):
        tag = " (agent)" if agent == seat else ""
        energy_zone = ", ".join(ENERGY_TYPES[t] for t in v["energy_types"][seat] if t >= 0)
        current, upcoming = int(v["energy_current"][seat]), int(v["energy_next"][seat])
        lines.append("")
        lines.append(f"Player {seat}{tag}: {int(v['points'][seat])} point(s)   deck {int(v['deck_size'][seat])}   "
                     f"discard {int(v['discard_size'][seat])}   Energy Zone [{energy_zone}]   "
                     f"current {ENERGY_TYPES[current] if current >= 0 else '-'}, next {ENERGY_TYPES[upcoming] if upcoming >= 0 else '-'}")
        for slot in range(spec.NUM_SLOTS):
            lines.append(_pokemon_line(db, v, seat, slot))
        hand = [_card_name(db, int(c)) for c in v["hand"][seat][: int(v["hand_size"][seat])]]
        lines.append(f"  Hand ({len(hand)}): " + (", ".join(hand) if hand else "-"))
    return "\n".join(lines)


def legal_action_names(mask: Any) -> list[str]:
    """Names of the legal actions of a [NUM_ACTIONS] mask (tcgjax.spec.action_name)."""
    mask = np.asarray(mask)
    if mask.shape != (spec.NUM_ACTIONS,):
        raise ValueError(f"expected a mask of shape ({spec.NUM_ACTIONS},), got {mask.shape}")
    return [spec.action_name(int(a)) for a in np.flatnonzero(mask)]


FONT_SIZE = 14
LINE_HEIGHT = 17
CHAR_WIDTH = 8.5
BACKGROUND = (250, 250, 245)
INK = (20, 20, 20)


MONOSPACE_FONTS = ("DejaVuSansMono.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf")


def _monospace_font():
    """A monospace font keeps the columns aligned; Pillow's default font where none is installed."""
    from PIL import ImageFont

    for name in MONOSPACE_FONTS:
        try:
            return ImageFont.truetype(name, FONT_SIZE)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size=FONT_SIZE)
    except TypeError:  # Pillow < 10.1 has no sized default font
        return ImageFont.load_default()


def render_state(state: Any, params: Any = None) -> np.ndarray:
    """The registered render hook: `render_text` drawn on a white frame, uint8[H, W, 3]. The frame
    size depends only on the text's line count and width, so a game's frames share one size."""
    from PIL import Image, ImageDraw

    del params  # the board does not depend on params
    text = render_text(state)
    lines = text.split("\n")
    width = int(CHAR_WIDTH * 110) + 16
    height = LINE_HEIGHT * 17 + 16  # header, result, 2 x (blank, seat, 4 slots, hand)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = _monospace_font()
    for i, line in enumerate(lines[:17]):
        draw.text((8, 8 + i * LINE_HEIGHT), line, fill=INK, font=font)
    return np.asarray(image, dtype=np.uint8)
