"""The card database as fixed-size arrays for the JAX engine (one row per card index).

Effect kinds become small integers: index + 1 in the order of tcgjax.cards.ATTACK_EFFECT_KINDS,
ABILITY_KINDS and TRAINER_KINDS (0 = no effect); parameters become columns (-1 when unused). Lists
of names (Blaine, Koga, Brock, Lt. Surge) become rows of NAME_LISTS.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np
from flax import struct

from tcgjax import spec
from tcgjax.cards import (ABILITY_KINDS, ATTACK_EFFECT_KINDS, COLORLESS, ENERGY_TYPES, STATUSES, TRAINER_KINDS,
                          TYPE_INDEX, CardDatabase, load_cards)
from paritygym.indexing import Table
from paritygym.lookup import pack_tables

ATTACK_KIND = {name: i + 1 for i, name in enumerate(ATTACK_EFFECT_KINDS)}
ABILITY_KIND = {name: i + 1 for i, name in enumerate(ABILITY_KINDS)}
TRAINER_KIND = {name: i + 1 for i, name in enumerate(TRAINER_KINDS)}
STATUS_CODE = {name: i for i, name in enumerate(STATUSES)}  # poisoned 0, burned 1, asleep 2, paralyzed 3, confused 4
CANNOT_RETREAT = 99  # a fossil's Retreat Cost (RETREAT-4)
ANY_TYPE = -1
PACK_CARD_TABLES = True  # one one-hot product per card index for every card table (the accelerator form)


@struct.dataclass
class CardTables:
    # identity
    name: jnp.ndarray  # name id
    is_pokemon: jnp.ndarray
    is_basic: jnp.ndarray  # Basic Pokémon card (fossils are not: DECK-3, RNG-4 Poké Ball)
    is_fossil: jnp.ndarray
    trainer_kind: jnp.ndarray  # 0 Pokémon, 1 Item, 2 Supporter
    # Pokémon in play (fossils as 40-HP Basic Colorless Pokémon)
    stage: jnp.ndarray
    ptype: jnp.ndarray
    hp: jnp.ndarray
    ex: jnp.ndarray
    weakness: jnp.ndarray
    retreat: jnp.ndarray
    evolves_from: jnp.ndarray  # name id or -1
    # Trainer effect
    t_kind: jnp.ndarray
    t_amount: jnp.ndarray
    t_type: jnp.ndarray
    t_target_type: jnp.ndarray
    t_count: jnp.ndarray
    t_names: jnp.ndarray  # row of name_lists or -1
    # Ability
    ab_kind: jnp.ndarray
    ab_amount: jnp.ndarray
    ab_type: jnp.ndarray
    ab_requires_active: jnp.ndarray
    # Attacks [card, 2]
    atk_exists: jnp.ndarray
    atk_cost: jnp.ndarray  # [card, 2, 8] typed symbols per Energy type
    atk_colorless: jnp.ndarray
    atk_damage: jnp.ndarray
    atk_kind: jnp.ndarray
    atk_amount: jnp.ndarray
    atk_self_damage: jnp.ndarray
    atk_coins: jnp.ndarray
    atk_extra: jnp.ndarray
    atk_count: jnp.ndarray
    atk_times: jnp.ndarray
    atk_type: jnp.ndarray  # Energy type, or -1 "any" for times_own_bench
    atk_target_type: jnp.ndarray
    atk_status: jnp.ndarray
    atk_name: jnp.ndarray
    name_lists: jnp.ndarray  # [lists, names] bool
    named_bonus_list: int = struct.field(pytree_node=False, default=-1)  # Blaine's names (row of name_lists)
    max_attack_draw: int = struct.field(pytree_node=False, default=0)  # largest draw count of an attack
    max_trainer_draw: int = struct.field(pytree_node=False, default=0)  # ... of a Trainer (either player)

    @property
    def num_cards(self) -> int:
        return self.name.shape[0]


def build_numpy_tables(database: CardDatabase) -> dict:
    n = len(database)
    names = database.name_index
    i32 = lambda fill=0, shape=(): np.full((n,) + shape, fill, np.int32)  # noqa: E731
    t = {k: i32() for k in ("name", "is_pokemon", "is_basic", "is_fossil", "trainer_kind", "stage", "hp", "ex", "retreat",
                             "t_kind", "t_amount", "t_count", "ab_kind", "ab_amount", "ab_requires_active")}
    for k in ("ptype", "weakness", "evolves_from", "t_type", "t_target_type", "t_names", "ab_type"):
        t[k] = i32(-1)
    for k in ("atk_exists", "atk_colorless", "atk_damage", "atk_kind", "atk_amount", "atk_self_damage", "atk_coins",
              "atk_extra", "atk_count", "atk_times"):
        t[k] = i32(0, (2,))
    for k in ("atk_type", "atk_target_type", "atk_status", "atk_name"):
        t[k] = i32(-1, (2,))
    t["atk_cost"] = i32(0, (2, len(ENERGY_TYPES)))
    name_lists: list[tuple[str, ...]] = []

    def name_list(values) -> int:
        key = tuple(values)
        if key not in name_lists:
            name_lists.append(key)
        return name_lists.index(key)

    def energy_or_any(value: str) -> int:
        return ANY_TYPE if value == "any" else TYPE_INDEX[value]

    named_bonus = -1
    for card in database.cards:
        c = card.index
        t["name"][c] = names[card.name]
        if card.is_pokemon:
            t["is_pokemon"][c] = 1
            t["is_basic"][c] = int(card.stage == 0)
            t["stage"][c] = card.stage
            t["ptype"][c] = TYPE_INDEX[card.type]
            t["hp"][c] = card.hp
            t["ex"][c] = int(card.ex)
            t["weakness"][c] = TYPE_INDEX[card.weakness] if card.weakness else -1
            t["retreat"][c] = card.retreat
            t["evolves_from"][c] = names[card.evolves_from] if card.evolves_from else -1
            if card.ability:
                ab = card.ability
                t["ab_kind"][c] = ABILITY_KIND[ab["kind"]]
                t["ab_amount"][c] = ab.get("amount", 0)
                t["ab_type"][c] = TYPE_INDEX[ab["type"]] if "type" in ab else -1
                t["ab_requires_active"][c] = int(bool(ab.get("requires_active")))
            for a, attack in enumerate(card.attacks):
                t["atk_exists"][c, a] = 1
                for symbol in attack.cost:
                    if symbol == "colorless":
                        t["atk_colorless"][c, a] += 1
                    else:
                        t["atk_cost"][c, a, TYPE_INDEX[symbol]] += 1
                t["atk_damage"][c, a] = attack.damage
                e = attack.effect
                if e is None:
                    continue
                t["atk_kind"][c, a] = ATTACK_KIND[e["kind"]]
                t["atk_amount"][c, a] = e.get("amount", 0)
                t["atk_self_damage"][c, a] = e.get("self_damage", 0)
                t["atk_coins"][c, a] = e.get("coins", 0)
                t["atk_extra"][c, a] = e.get("extra", 0)
                t["atk_count"][c, a] = e.get("count", 0)
                t["atk_times"][c, a] = e.get("times", 0)
                if "type" in e:
                    t["atk_type"][c, a] = energy_or_any(e["type"])
                if "target_type" in e:
                    t["atk_target_type"][c, a] = energy_or_any(e["target_type"])
                if "status" in e:
                    t["atk_status"][c, a] = STATUS_CODE[e["status"]]
                if "card_name" in e:
                    t["atk_name"][c, a] = names[e["card_name"]]
        else:
            e = card.effect
            t["trainer_kind"][c] = 1 if card.trainer_kind == "item" else 2
            t["t_kind"][c] = TRAINER_KIND[e["kind"]]
            t["t_amount"][c] = e.get("amount", 0)
            t["t_count"][c] = e.get("count", 0)
            if "type" in e:
                t["t_type"][c] = TYPE_INDEX[e["type"]]
            if "target_type" in e:
                t["t_target_type"][c] = energy_or_any(e["target_type"])
            if "names" in e:
                t["t_names"][c] = name_list(e["names"])
                if e["kind"] == "named_attack_bonus":
                    named_bonus = t["t_names"][c]
            if card.is_fossil:
                t["is_fossil"][c] = 1
                t["stage"][c] = 0
                t["ptype"][c] = COLORLESS
                t["hp"][c] = e["hp"]
                t["retreat"][c] = CANNOT_RETREAT
    lists = np.zeros((max(1, len(name_lists)), len(database.names)), bool)
    for row, values in enumerate(name_lists):
        for value in values:
            lists[row, names[value]] = True
    t["name_lists"] = lists
    t["named_bonus_list"] = int(named_bonus)
    t["max_attack_draw"] = int(t["atk_count"][t["atk_kind"] == ATTACK_KIND["draw"]].max(initial=0))
    draws = (t["t_kind"] == TRAINER_KIND["draw"]) | (t["t_kind"] == TRAINER_KIND["opponent_shuffle_hand_draw"])
    t["max_trainer_draw"] = int(t["t_count"][draws].max(initial=0))
    return t


@functools.lru_cache(maxsize=4)
def card_tables(database: CardDatabase | None = None) -> CardTables:
    tables = build_numpy_tables(database or load_cards())
    static = {k: tables.pop(k) for k in ("named_bonus_list", "max_attack_draw", "max_trainer_draw")}
    # Table: subscripts become one-hot products on an accelerator (paritygym.indexing), the tables indexed by card
    # packed into one product per card index
    by_card = [k for k, v in tables.items() if v.shape[0] == len(tables["name"])]
    packed = dict(zip(by_card, pack_tables([tables[k] for k in by_card]) if PACK_CARD_TABLES else [None] * len(by_card)))
    return CardTables(**{k: Table(jnp.asarray(v), packed.get(k)) for k, v in tables.items()}, **static)


assert spec.NUM_ENERGY == len(ENERGY_TYPES)
