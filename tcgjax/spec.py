"""Numbers both engines share: zone sizes, the flat action layout, phases, condition codes.

Action layout (CHOICE-1): one flat discrete space of NUM_ACTIONS. "Self" and "opponent" are relative
to the player who must act (the decider).

    0            END          end the turn (MAIN) / done placing Pokémon (SETUP)
    1  .. 20     PLAY_HAND h  play the card in hand slot h (Basic to Bench or Active, evolution,
                              Item, Supporter, fossil); a target, if needed, is asked next
    21 .. 24     ATTACH s     attach the current Energy to own slot s (0 = Active)
    25 .. 28     ABILITY s    use the Ability of own slot s (a fossil: discard it, ABILITY-3)
    29 .. 31     RETREAT b    retreat the Active to Bench slot b = 1..3
    32 .. 33     ATTACK a     use attack a of the Active
    34 .. 37     SELF s       answer a pending choice with own slot s
    38 .. 41     OPP s        answer a pending choice with opponent slot s
    42 .. 49     ENERGY t     answer a pending choice with Energy type t
    50 .. 57     COPY 2s+a    Ditto: copy attack a of opponent slot s
"""

from __future__ import annotations

DECK_SIZE = 20
HAND_CAPACITY = 20  # a hand can hold the whole deck; draws stop at HAND_DRAW_LIMIT (LIMIT-1)
HAND_DRAW_LIMIT = 10
NUM_SLOTS = 4  # slot 0 is the Active spot, 1-3 the Bench
BENCH_SLOTS = (1, 2, 3)
STACK_DEPTH = 3  # Basic (or fossil), Stage 1, Stage 2
NUM_ENERGY = 8
OPENING_HAND = 5
POINTS_TO_WIN = 3
DEFAULT_MAX_TURNS = 30
WEAKNESS_BONUS = 20
POISON_DAMAGE = 10
BURN_DAMAGE = 20

# Action layout
END = 0
PLAY_HAND = 1
ATTACH = PLAY_HAND + HAND_CAPACITY  # 21
ABILITY = ATTACH + NUM_SLOTS  # 25
RETREAT = ABILITY + NUM_SLOTS  # 29 (bench slot b -> RETREAT + b - 1)
ATTACK = RETREAT + 3  # 32
CHOOSE_SELF = ATTACK + 2  # 34
CHOOSE_OPP = CHOOSE_SELF + NUM_SLOTS  # 38
CHOOSE_ENERGY = CHOOSE_OPP + NUM_SLOTS  # 42
CHOOSE_COPY = CHOOSE_ENERGY + NUM_ENERGY  # 50
NUM_ACTIONS = CHOOSE_COPY + 2 * NUM_SLOTS  # 58

# Phases: what the decider is asked for.
MAIN = 0  # the turn player's free actions
SETUP = 1  # place the Active (first Basic played) and Bench, then END
PROMOTE = 2  # choose a Benched Pokémon for the empty Active spot (KO-4)
SWITCH_OUT = 3  # choose a Benched Pokémon to swap with the Active (KO-5)
EVOLVE_TARGET = 4  # aux_index = hand slot of the evolution card
TRAINER_TARGET = 5  # aux_index = hand slot of the Trainer
ABILITY_TARGET = 6  # aux_index = slot of the Pokémon using its Ability
ATTACK_TARGET = 7  # aux_card/aux_index = the attack (card, attack index)
COPY_ATTACK = 8  # Ditto's Copy Anything
PLACE_ENERGY = 9  # aux_count Energy of type aux_type left to place (Moltres ex)
RETREAT_PAY = 10  # aux_index = Bench slot to retreat to, aux_count Energy left to discard
GAME_OVER = 11
PHASE_NAMES = ("main", "setup", "promote", "switch_out", "evolve_target", "trainer_target", "ability_target",
               "attack_target", "copy_attack", "place_energy", "retreat_pay", "game_over")

# Asleep, Paralyzed and Confused exclude one another (STATUS-2): one code per Active.
NO_SPECIAL = 0
ASLEEP = 1
PARALYZED = 2
CONFUSED = 3

# Opening hand rules (SETUP-3).
OPENING_RESHUFFLE = 0
OPENING_ONE_BASIC = 1


def action_name(action: int) -> str:
    """Readable name of a flat action, for logs and error messages."""
    if action == END:
        return "end"
    if PLAY_HAND <= action < ATTACH:
        return f"play_hand[{action - PLAY_HAND}]"
    if ATTACH <= action < ABILITY:
        return f"attach[{action - ATTACH}]"
    if ABILITY <= action < RETREAT:
        return f"ability[{action - ABILITY}]"
    if RETREAT <= action < ATTACK:
        return f"retreat[{action - RETREAT + 1}]"
    if ATTACK <= action < CHOOSE_SELF:
        return f"attack[{action - ATTACK}]"
    if CHOOSE_SELF <= action < CHOOSE_OPP:
        return f"self[{action - CHOOSE_SELF}]"
    if CHOOSE_OPP <= action < CHOOSE_ENERGY:
        return f"opp[{action - CHOOSE_OPP}]"
    if CHOOSE_ENERGY <= action < CHOOSE_COPY:
        return f"energy[{action - CHOOSE_ENERGY}]"
    if CHOOSE_COPY <= action < NUM_ACTIONS:
        k = action - CHOOSE_COPY
        return f"copy[slot {k // 2}, attack {k % 2}]"
    return f"invalid[{action}]"
