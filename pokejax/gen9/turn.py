"""The Gen 9 turn, batched: ``step(state, actions) -> state`` for the battles stage 1 covers.

One call is one decision of Showdown's battle: ``REQUEST_START`` runs its start (the leads switch in),
``REQUEST_MOVE`` a whole turn, ``REQUEST_SWITCH`` the switch-ins after a faint; ``REQUEST_ENDED``
battles do not change. Every array keeps its leading batch axis ``[B]``; which part of the turn
happens is a mask, never a Python branch on values, so the program has no control flow (checked by
``tests/pokemon/gen9/test_design.py``).

What is covered (the "restricted" battles of ``tests/pokemon/gen9/test_l3_restricted.py``): no
abilities or items, moves whose whole effect is their damage or stat stages (``restricted_moves()``,
the stage moves ``boost_moves()``: status moves raising their user's stages, damaging moves lowering
their user's, secondaries raising or lowering either side's), Terastallization
(but not Ogerpon's, Terapagos's or Morpeko's forme changes, nor Zacian's and Zamazenta's Crowned formes:
``restricted_species_ok``), switching, fainting, forced switches, the end of the battle, and
Struggle (a side with no PP left: typeless, no PP, recoil, so both actives can faint in one turn and
both switch at once), the major statuses (``status_moves()``, below), flinching (``flinch_moves()``,
below, with the Fangs and Fake Out), confusion (``confusion_moves()``, below), the entry hazards with
their removal (``hazard_moves()``, ``removal_moves()``, below), the moves moving HP besides their
damage (``hp_moves()``, below) and the damaging moves whose power, type, category or success depends
on the battle (``power_moves()``, below), the self-switch moves (``switch_moves()``, below), the multi-hit
moves (``multihit_moves()``, below), Thunder, Hurricane, Blizzard, Freeze-Dry and the crash moves
(``crash_moves()``, below), Explosion (``explode_moves()``, below), Tidy Up (``TIDY_MOVES``, below), Heal Bell and
Aurora Veil (``ally_side_moves()``, below), Protect (``protect_moves()``, below), Substitute (``substitute_moves()``,
below), Taunt, Encore, Throat Chop and Psychic Noise (``lock_moves()``, below), Rest and Sleep Talk (``sleep_moves()``, below)
Wish (``wish_moves()``, below), Leech Seed (``leech_moves()``, below) and Haze (``haze_moves()``: target ``all``,
``tryMoveHit`` with no accuracy check and none of the hit loop's ``Update`` events, running with the foe fainted,
its ``onHitField`` clearing every active's stages; it never fails) and Yawn (``yawn_moves()``: its ``onTryHit``
fails on a target with a status, ``addVolatile`` on one yawning; the ``yawn`` volatile, ``BattleState.yawn``, lasts
2, its residual handler of order 23, after the statuses', two of them ordered by a speed-tie draw, ending it at the
second residual with ``trySetStatus('slp')`` from the yawner: the Sleep Clause Mod and a status stop it, else the
sleep turns are drawn). The residual's speed ties are read where Showdown's ``speedSort`` passes leave each
handler (``_later_first``), from the order each active's listed volatiles were added in
(``BattleState.volatile_order``, ``_stamp_volatiles``). Outrage and Petal Dance (``locked_moves()``, below) lock
their user in for 2-3 turns, then confuse it. Not covered yet: other volatiles, everything of later stages.

Substitute as ``moves.js`` runs it: its ``onTryHit`` (no draw) fails with NOT_FAIL (no Update) with a
substitute up or ``hp <= maxhp / 4``; else the volatile (``BattleState.sub_hp``: ``floor(maxhp / 4)``), then its
``onHit``'s ``directDamage`` of as much, and the hit's two Updates. The volatile's ``onTryPrimaryHit`` (after
the accuracy) takes the foe's moves without ``bypasssub`` (sound moves, Defog and Parting Shot have it): a
status move fails (``getDamage`` gives nothing; its hit loop's two Updates still run); a damaging one's ``getDamage`` (its crit and roll draws) goes to
the substitute, at most its HP, breaking it at 0, with the recoil right then (before the hit's Update and the
hit loop's ``faintMessages``, which makes a user at 0 HP faint before the next Update) and the drain rounded
up (``Math.ceil``); the target is then ``null``: its secondaries still draw ``random(100)`` but change nothing on
it, while its user's ``self`` stages, its secondaries' ``self`` stages, its self-switch and Rapid Spin's
``onAfterSubDamage`` happen; no DamagingHit (no Fire thaw), no thawsTarget, no ``attackedBy`` (Avalanche).
Defog lowers no evasion behind a substitute. Switching out and fainting end it.

Taunt and Encore as ``moves.js`` runs their volatiles (``BattleState.taunt``, ``encore``, ``encore_slot``,
``last_move``): a status move adding its volatile after the accuracy check (Protect stops it), failing on a
target holding it already. Taunt lasts 3 turns, 4 where ``onStart`` finds the target's move action already
run and the target not switched in this turn (``activeTurns``, ``queue.willMove``); the target's status
moves are disabled in the requests (``masks.disabled``; none left: Struggle, chosen so at the decision)
and a status move chosen before it landed is stopped at ``BeforeMove`` (priority 5: after sleep, freeze
and flinch, before confusion and paralysis; no PP, no draw). Encore takes the target's ``lastMove``
(``moveUsed``: a move action past ``BeforeMove`` and its PP; Struggle is in no slot) and fails with none,
a ``failencore`` one or one out of PP; 3 turns, 4 where the target's move action has run; every other move
is disabled, and a move action chosen before it landed becomes the encored move at ``runMove``'s
``OverrideAction`` (Struggle excepted). Their residual handlers (orders 15 and 16, after the statuses',
before Roost's; the two actives' handlers of one order tie on speed) count them down, Encore's also
ending when its move has no PP left; ``nextTurn``'s ``DisableMove`` event of a Pokémon holding both
sorts their two handlers (a tie: a draw). Throat Chop's secondary (chance 100: its ``random(100)`` drawn,
always below) adds ``throatchop`` (``BattleState.throat_chop``), Psychic Noise's ``healblock``
(``heal_block``), each for 2 turns on a target up that does not hold it (a second one changes nothing):
the target's sound moves, or its moves with the ``heal`` flag (every healing move here, drain ones
included: Pain Split has none), are disabled and, chosen before, stopped at ``BeforeMove`` (priority 6:
after flinch, before Taunt); their residual handlers have orders 22 and 20. Their ``BeforeMove`` and
``ModifyMove`` handlers tie on one Pokémon (a draw at each sort), and at ``nextTurn`` the ``DisableMove``
handlers of k of the four volatiles draw k - 1 times. Switching out and fainting clear them all and the
last move.

Rest as ``moves.js`` runs it: its ``onTry`` (after the PP, before the hit steps, no draw) fails on a sleeping user
(one that woke in this ``BeforeMove`` has been cured) or one at full HP, the move ending before its ``Update``
events; its ``onHit`` runs ``setStatus('slp')`` on its user, which replaces another status and which the Sleep Clause
Mod lets through (its ``onSetStatus`` returns for a source that is an ally), slp's ``onStart`` drawing its turns
``random(2, 5)`` before Rest sets them to 3 (asleep two turns, awake and moving on the third), then heals to the max
HP. The clause then ignores that sleeper (``statusState.source`` an ally: ``BattleState.self_sleep``), so the foe may
put another Pokémon of its side to sleep.

Sleep Talk as ``moves.js`` runs it: ``sleepUsable``, so slp's ``BeforeMove`` counts the turns down and lets it run
(other handlers still run: confusion's); its PP is spent, then its ``onTry`` fails (no draw, no Update) unless its user
is asleep (one that woke in this ``BeforeMove`` is not). Its ``onHit`` samples one of the user's moves that may be
called (``nosleeptalk``, ``charge``, Z and Max moves left out; PP left or not), ``random(n)`` over them in slot order
(none: it fails), and ``useMove`` runs that one in the same pipeline (``_use_move`` gathers the called move's rows; its
PP is not spent; its own draws, Updates and faints; a called Rest fails, its user asleep; a called U-turn switches).
Sleep Talk's hit then runs its ``Update`` (a target fainted by the called move is out; a user at 0 HP by its recoil
or crash is still in: it faints at Sleep Talk's ``faintMessages``, after it) and its hit loop's ``Update``.

Wish as its ``wish`` slot condition runs: ``addSlotCondition`` on its user's slot fails while one waits there (the
move fails, no ``Update``); ``onStart`` keeps half the user's max HP (``BattleState.wish_hp``: the max HP) and
``startingTurn``, the turn - 1 mod 256 (``BattleState.wish_turn``). Its residual handler (order 4, before the
statuses'; a fainted holder's runs too, sorted by its cached speed; both sides' tie on speed with a draw) returns
on that turn; at a later turn's residual it ends, healing whoever is in the slot by the half, truncated, at least 1
(nothing at full HP, nothing for a fainted Pokémon: the wish is gone all the same). Switching keeps it in the slot.

Leech Seed as ``moves.js`` runs it: its ``onTryImmunity`` makes a Grass type (current types) immune before the
accuracy check (no draw); after its 90 % accuracy ``addVolatile('leechseed')`` fails on a target seeded already (no
``Update``). The volatile (``BattleState.seeded``; its source is the foe's slot) has a residual handler of order 8
(after a wish's, before the statuses'; both actives seeded and tied on speed: a draw whose value orders them): with
the Pokémon in the seeder's slot fainted it does nothing, else ``floor(baseMaxhp / 8)`` (at least 1, at most the
holder's HP) of damage to its holder, healed to that Pokémon, then ``faintMessages`` (a holder fainted so runs no
status handler; its side out ends the battle). Switching out, fainting and the holder's Rapid Spin (its ``onAfterHit``,
with the hazards) remove it.

Protect as ``moves.js`` and ``conditions.js`` run it (priority +4): its ``onPrepareHit`` (after the PP, before
the hit steps) fails unless an action is still queued (``queue.willAct``: the foe's move action; not for the
Pokémon moving last, nor against a switch, which ran first), drawing nothing, else runs ``StallMove``: with its
user's ``stall`` volatile up (``BattleState.stall``, its counter) ``randomChance(1, counter)``, a failure
deleting the volatile. A success adds the ``protect`` volatile (``BattleState.protect``), whose ``onTryHit``
(the TryHit step, before the type immunity and the accuracy) stops the foe's moves with the ``protect`` flag
(no draw, no effect: Parting Shot switches nothing), and adds the ``stall`` volatile (counter 3) or restarts
it (counter tripled up to 729, duration 2 again), then the hit's two Updates. At the residual the
volatiles' durations (protect 1, stall 2: a stall not restarted this turn ends) put handlers of no order
into the sort, after the statuses' and roost's: flinch, protect and stall of one Pokémon tie with each
other, and with the other active's where the speeds tie (a group of k draws k - 1 times); switching out
and fainting clear both.

Self-switch moves as ``battle-actions.js`` and ``battle.js`` run them: U-turn, Volt Switch and Flip Turn set
their user's ``switchFlag`` after a hit that dealt damage (``moveHit``: not on a miss or an immunity),
Parting Shot after its ``onHit`` lowered the target's Atk or SpA (at -6 both it deletes its
``selfSwitch``; the move never fails: its two ``Update`` events run). At the end of the move action
(after its ``Update``) ``runAction`` clears the flag where the side has no other Pokémon (``canSwitch``),
else asks that side for a switch in the middle of the turn (``REQUEST_SWITCH`` with
``BattleState.mid_turn``; the other side does not act; nothing drawn: ``BeforeSwitchOut`` is a
``runEvent``). The rest of the queue waits: the other side's move action if it has not run (its Pokémon
up: ``BattleState.queued``, the slot) and the residual. The next ``step`` answers it as the forced
switches' ``instaswitch`` (no ``BeforeSwitchOut`` again: the ``Update`` after the switch, runSwitch's sort
of all actives, a fainted foe's too, the entry hazards, the ``Update``; the commit's ``updateSpeed``
refreshes the cached speeds), then runs that queued move action against the Pokémon that came in (a
newly switched target: Payback not doubled, nothing for Avalanche or Sucker Punch to read) and the
residual; the queued move may be a self-switch itself, stopping the turn again. A foe fainted by the
self-switch hit switches at the end of the turn (``checkFainted``), after the residual.

Moves whose callbacks read only the terrain or the weather (``FIELD_ONLY_MOVES``: Bleakwind Storm, Psyblade,
Expanding Force, Grassy Glide) or act on an ally only (``ALLY_ONLY_MOVES``: Pollen Puff) run as their data say. Tri Attack and Dire Claw (``sampled_status_moves()``): after
their secondary's roll passes, its ``onHit`` samples one of three statuses (random(3), drawn on a target the hit
fainted too) and tries it on the target (``trySetStatus``: a statused or immune target, the Sleep Clause).
Moves with one callback that changes nothing here or that ``step`` runs: Thunder, Hurricane and Blizzard
(``WEATHER_ACCURACY_MOVES``: their ``onModifyMove`` sets their accuracy in rain, sun or snow only, and
these battles have no weather) run as their data say, 70 % accuracy, with their secondary (Thunder's
paralysis, Blizzard's freeze: ``status_moves()``; Hurricane's confusion: ``confusion_moves()``); a
single-target battle gives Blizzard's ``allAdjacentFoes`` one target (no spread modifier). Freeze-Dry
(``WATER_SUPER_MOVES``, and its freeze secondary in ``status_moves()``): its ``onEffectiveness`` makes
each Water type among the target's current types (a Tera type counts) weak to it, +1 instead of -1.
High Jump Kick and Supercell Slam (``crash_moves()``): their ``onMoveFail`` (``useMoveInner``, after the
failed hit steps: a miss or an immunity, not a target fainted before, whose move fails earlier) costs
the user ``floor(baseMaxhp / 2)`` (at least 1) as direct damage, no draw; a user fainted so goes at
runMove's ``faintMessages`` (its side out: the foe wins), and the ``Update`` after its action sorts
nothing.

Multi-hit moves as ``hitStepMoveHitLoop`` runs them (``_multihit_columns``, ``_later_hits``): after the
accuracy check a [2, 5] move draws its count, ``sample`` of seven 2s, seven 3s, three 4s and three 5s (one
``random(20)``); Dual Wingbeat, Dragon Darts (one target in singles: its ``smartTarget`` only retargets
the log) and Tachyon Cutter hit twice, Surging Strikes three times (``willCrit``: no crit draw), Triple
Axel three times (``basePowerCallback``: 20 per hit) and Population Bomb ten times, these two
(``multiaccuracy``) checking their accuracy again before each later hit: ``randomChance(a, 100)`` with
``a`` scaled in floating point by the user's accuracy stage then the target's evasion stage, a miss ending
the loop. Each hit draws its crit and roll, deals its damage (no Tera floor; the Stellar boost of the
first hit for all, ``move.stellarBoosted``) and runs an ``Update`` (a speed-tie draw); the loop stops
when the target's HP is 0, and its ``faintMessages`` come after it. A target immune to the type stops
the move before the count is drawn. Scale Shot's ``selfBoost`` (-1 Def, +1 Spe) comes after the loop
(``useMoveInner``), unless the loop's faint ended the battle (``boost`` fails with no foe Pokémon left).
The later hits are one ``damage.damage`` vectorised over a hit axis of ``MAX_HITS - 1``, their PRNG
states jumps from the first one's, not a loop.

Recoil, drain and healing as ``battle-actions.js`` runs them (``_hp_tables``: per move, its recoil and
its drain or heal as one ``floor((base * mul + add) / div)``). Drain heals in ``spreadDamage``, right
after the damage (before the move's effects and secondaries): Math.round of the damage dealt's fraction
(the HP the target lost, at most what it had), nothing at full HP. Recoil (``applyRecoilDamage``) comes
after the hit loop's ``faintMessages`` (the target fainted first) and before the Update after the loop:
Math.round of the damage dealt's fraction, at least 1 (Head Smash 1/2; Struggle's Math.round of the
base max HP / 4 is a row of the same table); the user fainted by it goes at runMove's
``faintMessages`` (both sides out: the user's side wins). A status move's ``heal`` (Recover, Slack Off,
Soft-Boiled, Milk Drink, Roost) fails at full HP, its PP spent, ending its hit loop before its two
``Update`` events; it heals Math.round of the base max HP's fraction. Roost then adds its ``roost``
volatile (``_Turn.roosted``; not on a Terastallized user, whose ``onStart`` fails): until the residual
its Flying type is gone for the foe's move (pure Flying is Normal), and its residual handler (order 25,
after the statuses') ties with the other active's on speed (a draw) when both roosted. Synthesis,
Moonlight, Morning Sun and Shore Up heal ``modify(maxhp, 0.5)`` (floored) at no weather, and at full
HP fail with NOT_FAIL: their hit's Updates still run. Strength Sap fails at -6 Attack, else lowers the
target's Attack and heals its user by the target's Attack before it (stat and stage; nothing at full
HP, still a success). Pain Split sets both HPs to their floored mean (each at most its max HP).

The battle-dependent damaging moves (``POWER_RULES``: a rule per move, a column of the status table,
read at the hit by ``_power``) as Showdown runs them with no items, abilities, weather, terrain, screens
or Dynamax: Knock Off, Psychic Fangs, Ice Spinner, Judgment and Weather Ball find nothing to act on;
Acrobatics doubles (no item); Facade doubles under a status other than sleep (``BasePower``'s
``chainModify(2)``) and escapes burn's halving (``modifyDamage``); Hex doubles against a status; Stored
Power is 20 + 20 per positive stage; Lash Out doubles (``chainModify(2)``) after its user's stages fell this turn; Grass Knot and Low Kick go by the target's weight, Heavy Slam and
Heat Crash by the ratio of the weights (the species' ``weighthg``, at least 1); Eruption and Water Spout
are ``floor(150 * hp / maxhp)``, at least 1; these weight and HP moves get no Tera floor (Showdown skips
it for a data base power of 0 or 150 with a ``basePowerCallback``), Stored Power does. Super Fang's
``damageCallback`` deals half the target's HP (at least 1), after the type immunity and accuracy, with no
crit or roll draw. Poltergeist's ``onTry`` fails (no item) and Sucker Punch's unless the target's move
action is still queued and damaging (``queue.willMove``): after the PP, before the hit steps, no draw.
Payback doubles when its target's move action ran earlier in the turn (not ``newlySwitched``, no move
queued), Avalanche when that move damaged its user (``attackedBy`` this turn). Tera Blast takes its
Terastallized user's Tera type (``onModifyType``, before the immunity) and is Physical when its Atk with
stages beats its SpA with stages (``onModifyMove``): Atk and Def, and burn halves it; a Stellar Tera
Blast is not covered (``restricted_team`` keeps it from Stellar Tera types).

Entry hazards as Showdown's side conditions run them (``BattleState.hazards``: each side's layers;
``hazard_order``: the order they were set, Showdown's ``effectOrder``): a ``foeSide`` move goes through
``tryMoveHit`` (no accuracy check, no hit loop, so none of its ``Update`` events), runs even with the foe
fainted, and fails at the most layers, spending its PP. On switching in, runSwitch's ``SwitchIn`` field
event runs the hazards' handlers (after a tox status's) in the order they were set, each followed by
``faintMessages``: a Pokémon fainted by one runs none of the later ones, and a side out ends the battle
there (in a double forced switch, before the slower Pokémon's handlers). A Pokémon fainted on entry
mid-turn leaves the foe's move without a target; in a forced switch it makes a new switch request of the
same turn. Sticky Web's drop stays out of the cached ``Pokemon.speed`` the ``eachEvent`` sorts read until
its next refresh (``_Turn.webbed``), and a fainted active's cached speed is its speed stat (fainting's
``clearVolatile`` calls ``setSpecies``), which runSwitch's sort of all actives, fainted ones included,
reads. Rapid Spin's ``onAfterHit`` clears its user's side after the hit and its +1 Speed (the user
up); Defog lowers the target's evasion and clears both sides, and fails when neither happens.

Flinching as ``conditions.js``'s ``flinch`` runs it: a damaging move whose only other effect is a
secondary ``volatileStatus: 'flinch'`` draws its ``random(100)`` like the other secondaries and, below
its chance, adds the volatile to a target still up (no draw). The volatile's ``BeforeMove`` handler
(priority 8: after sleep's and freeze's, before paralysis's, so a flinched paralysed Pokémon draws no
full paralysis) stops a target that has not moved yet, spending no PP; its duration of 1 ends it at the
residual (its handler, of no order, sorts after the statuses' and ties with none), unless the battle
ended before. With no abilities or items, nothing changes the chance (Serene Grace, King's Rock) or
blocks it (Inner Focus, Shield Dust, Covert Cloak) and nothing reacts to it (Steadfast). The Fangs
(Fire Fang, Ice Fang) have two secondaries, a status then a flinch: ``secondaries`` draws a
``random(100)`` for each, in order, the status set (or not) before the second draw. Fake Out and First
Impression (``FIRST_TURN_MOVES``, priority +3 and +2) fail in its ``onTry`` when its user's ``activeMoveActions``, which
``runMove`` counts before ``BeforeMove`` and ``switchIn`` resets, is above 1 (``BattleState.moved``:
any move action since switching in, one stopped by a status or flinch included): after the PP, before
the hit steps, so it draws nothing.

Confusion as ``conditions.js``'s ``confusion`` runs it: a damaging move whose only other effect is a
secondary ``volatileStatus: 'confusion'`` draws its ``random(100)``; below its chance ``addVolatile``
fails with no draw on a fainted or confused target, else ``onStart`` draws the turns ``random(2, 6)``.
Its ``BeforeMove`` handler (priority 3: after sleep's, freeze's and flinch's, before paralysis's)
counts them down; at 0 the volatile ends (no draw, the move goes on), else ``randomChance(33, 100)``
(a ``random(100)``) and on a self-hit ``getConfusionDamage``: 40 base power, the user's own Atk and
Def with their stages, no crit, STAB, type or burn, the damage roll ``random(16)``, at least 1; the
user then does not move (no PP, no paralysis draw) and may faint (the action's ``faintMessages``, the
end of the battle). Switching out and fainting clear it (``BattleState.confusion``). Alluring Voice's
secondary (chance 100, its ``random(100)`` drawn) confuses the same way, only a target whose stages rose this
turn.

Each active's marks of the turn (``BattleState.raised`` and ``lowered``, Showdown's ``statsRaisedThisTurn`` and
``statsLoweredThisTurn``): set by a ``Battle.boost`` that moved a stage up or down (a move's, a secondary's,
Sticky Web's on entering, in the hazards' order), cleared at ``nextTurn`` and on switching. Alluring Voice and
Lash Out read them.

The major statuses as Showdown's ``conditions.js`` runs them: a status move whose whole effect is
``status`` on its target sets it after the type immunity (Thunder Wave on Ground; other status moves
ignore it), the powder immunity of Grass types (both before the accuracy draw) and the accuracy check;
``setStatus`` fails on a Pokémon with a status, one immune by its current types (Fire: brn, Electric:
par, Ice: frz, Poison and Steel: psn and tox; a Tera type counts, Stellar keeps the original types) and,
for sleep, under the Sleep Clause Mod (another Pokémon of the side asleep); a failed status move ends its
hit loop before its two ``Update`` events. A status secondary draws ``random(100)`` like the stage ones.
Sleep draws its turns ``random(2, 5)`` when set; ``BeforeMove`` (before the PP is spent) counts them
down and wakes the sleeper at 0, draws ``random(5)`` for a frozen Pokémon (0 thaws it; a defrost move
thaws without a draw), ``random(4)`` for a paralysed one (0: fully paralysed); a Pokémon that cannot move
spends no PP. A damaging Fire move thaws its target (``DamagingHit``), a ``thawsTarget`` move too (after
the hit loop). Burn halves physical damage, paralysis halves speed. The residual runs the handlers of
the actives' statuses sorted by order (psn and tox 9, brn 10) then speed (a tie draws once): brn 1/16,
psn 1/8, tox stage/16 of the max HP (the stage rises first, to 15 at most, and starts again at 0 on
switching in); a Pokémon fainting there ends the battle if its side is out (the residual stops), else
its side gets the forced switch. A fainted Pokémon keeps its status until ``checkFainted`` at the end of
the turn (it stays in a battle that ended). A double forced switch (Showdown's ``instaswitch``) draws
nothing for its first switch-in; the second one's runSwitch is inserted next to the first (a draw on a
speed tie of the new actives) before the Update, the one runSwitch of both and its Update.

Stat stages as ``Battle.boost`` changes them: each stage clamped to -6…+6; a status move none of whose
stages can move fails (its hit loop ends before the two ``Update`` events a success has); a fainted
Pokémon's stages do not move and fainting clears them. A hit's ``self`` boosts and its secondary draw
``random(100)`` each (in that order, after the damage and before the hit's ``Update``), even when
certain or when the target fainted. The speeds ``eachEvent`` sorts by are the ones Showdown caches in
``Pokemon.speed``: a boost changes them only at the next refresh (the re-sort before a queued move,
the residual), so a move's own ``Update`` events still see the speeds from before it.

Showdown's draws, read from its ``battle.js``, ``battle-queue.js`` and ``battle-actions.js`` and
counted with traced battles (``gen9.js`` ``play``): apart from accuracy, critical hit and damage roll,
every draw of these battles is a speed tie of two things sorted by ``speedSort`` (one ``random(0, 2)``,
or ``random(k, k + 2)``, the same step of the PRNG), made only when they tie:

- ``eachEvent`` sorts the non-fainted actives by their ``speed``: the ``BeforeTurn`` event, the
  ``Update`` after every action, after each hit and after the hit loop of a move, and after
  ``BeforeSwitchOut``; ``runSwitch`` sorts all actives the same way;
- the queue sort at the commit of the choices and, from Gen 8 on, again after every action whose
  successor is a move: two switches, two Terastallizations or two moves of one priority tie on speed;
  the moves' order is the parity of the draws of 1 (each one swaps them);
- at the start, inserting the second lead's ``runSwitch`` next to the first one's.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from paritygym.backend import accelerator_form
from pokejax import prng
from pokejax.gen9 import accuracy, damage, masks, order
from pokejax.gen9 import state as S
from pokejax.gen9.data import tables
from pokejax.gen9.masks import ACTION_SWITCH_BASE, ACTION_TERA_BASE
from pokejax.gen9.state import (
    BRN,
    FRZ,
    HAZARD_LAYERS,
    HAZARDS,
    NUM_BOOSTS,
    PAR,
    PSN,
    REQUEST_ENDED,
    REQUEST_MOVE,
    REQUEST_START,
    REQUEST_SWITCH,
    SLP,
    STATUSES,
    TEAM_SIZE,
    TOX,
    BattleState,
)

# Move fields whose effect goes beyond the damage (read from gen9.json's Showdown data).
_EFFECT_FIELDS = ("secondaries", "secondary", "self", "multihit", "recoil", "drain", "selfSwitch",
                  "volatileStatus", "forceSwitch", "selfBoost", "selfdestruct", "smartTarget", "thawsTarget")
# Species whose Terastallization or battle start changes their forme (not modelled yet).
EXCLUDED_SPECIES_PREFIXES = ("ogerpon", "terapagos", "morpeko", "zacian", "zamazenta")


def _boost_effect(m: dict):
    """The stat-stage effect of a move whose only effect besides its damage is one, as
    ``(primary, self, self_chance, secondary, secondary_self, secondary_chance)`` (dicts of stages,
    chances 0-100; None for a missing part), or None when the move does anything else."""
    if m["id"] in CURSE_MOVES:
        return None, CURSE_SELF_BOOSTS, 100, None, None, 0
    if m["id"] in TIDY_MOVES:
        return TIDY_BOOSTS, None, 0, None, None, 0
    if m["id"] in SOUL_MOVES:
        keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
        plain = (m["category"] == "Status" and m["target"] == "self" and keys == {"boosts"}
                 and sorted(m.get("callbacks") or []) == ["onHit", "onTry", "onTryHit"])
        return (m["boosts"], None, 0, None, None, 0) if plain else None
    if m["id"] in NO_RETREAT_MOVES:
        keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
        plain = (m["category"] == "Status" and m["target"] == "self" and keys == {"boosts", "volatileStatus"}
                 and m["volatileStatus"] == m["id"] and sorted(m.get("callbacks") or []) == _NO_RETREAT_CALLBACKS)
        return (m["boosts"], None, 0, None, None, 0) if plain else None
    if m["id"] in ON_HIT_BOOSTS:
        plain = (m["category"] == "Status" and m["target"] == "self" and m.get("callbacks") == ["onHit"]
                 and not any(m.get(f) for f in _EFFECT_FIELDS) and not m.get("boosts"))
        return (ON_HIT_BOOSTS[m["id"]], None, 0, None, None, 0) if plain else None
    m = _weatherless(m)
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("self", "secondary", "secondaries")]
    if others or (m.get("callbacks") and m["id"] not in SPIN_MOVES) or m.get("volatileStatus"):
        return None
    if m["category"] == "Status":
        # a status move whose whole effect is raising or lowering its user's stages
        keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
        ok = m.get("target") == "self" and m.get("boosts") and keys == {"boosts"}
        return (m["boosts"], None, 0, None, None, 0) if ok else None
    selfb, secs = m.get("self"), m.get("secondaries") or []
    if _arrow_effect(m) is not None:          # its flinch: ``flinch_moves()``
        secs = secs[:1]
    if selfb is not None and set(selfb) == {"boosts", "chance"} and secs == [{}]:
        # Diamond Storm: selfDrops' random(100) against its chance, then its empty secondary's draw (``empty_secondary``)
        return None, selfb["boosts"], selfb["chance"], None, None, 0
    if selfb is not None and (set(selfb) != {"boosts"} or secs):
        return None                           # a chance on ``self`` (Diamond Storm) comes with an empty secondary
    if len(secs) > 1 or (secs and not (set(secs[0]) <= {"chance", "boosts", "self"})):
        return None
    sec = secs[0] if secs else {}
    if sec.get("self") is not None and set(sec["self"]) != {"boosts"}:
        return None
    if selfb is None and not sec:
        return None
    return (None, selfb["boosts"] if selfb else None, 100, sec.get("boosts"), (sec.get("self") or {}).get("boosts"),
            sec.get("chance", 100) if sec else 0)


# Curse by a Pokémon that is not a Ghost: its ``onModifyMove`` aims it at its user (``nonGhostTarget``), its
# ``onTryHit`` drops its volatile and its ``onHit`` and gives it these ``self`` stages (selfDrops: random(100)
# drawn, then the stages). A Ghost's Curse (half its HP, the ``curse`` volatile on the target) is not covered:
# ``restricted_team`` gives Curse to no Pokémon that is a Ghost or Terastallizes into one.
CURSE_MOVES = ("curse",)
CURSE_SELF_BOOSTS = {"spe": -1, "atk": 1, "def": 1}


# Tidy Up: its ``onHit`` removes both actives' substitutes and both sides' entry hazards, then raises its user's
# Attack and Speed by 1 (``boost``, not a secondary): the stages run as a status move's own ``boosts`` (nothing
# between them and the removal reads either), and the move fails only when nothing was removed and no stage moved.
TIDY_MOVES = ("tidyup",)
TIDY_BOOSTS = {"atk": 1, "spe": 1}


# Status moves on their user whose ``onHit`` raises its stages (``boost``, run here as the move's own ``boosts``) with a
# condition or a cost: Belly Drum fails at half its max HP or less, at +6 Attack or with 1 max HP, else loses
# ``floor(maxhp / 2)`` HP (``directDamage``: no draw, it cannot faint) and then takes +12 Attack; Take Heart raises
# Special Attack and Special Defense, then cures its user's status (``cureStatus``), failing only when neither happened.
ON_HIT_BOOSTS = {"bellydrum": {"atk": 12}, "takeheart": {"spa": 1, "spd": 1}}
# Status moves on their user with ``boosts`` and a trapping volatile of their own: No Retreat (+1 to Attack, Defense,
# Special Attack, Special Defense and Speed; its ``onTry`` fails on a user holding the ``noretreat`` volatile, else
# the stages move where they can and the volatile is added, so the move succeeds even with every stage at +6; the
# volatile's ``onTrapPokemon`` traps its holder, ``tryTrap``: not a Ghost by its current types).
NO_RETREAT_MOVES = ("noretreat",)
# Status moves on their user with ``boosts`` and a cost of a percentage of its max HP: Clangorous Soul (+1 to Attack,
# Defense, Special Attack, Special Defense and Speed; 33 %), Fillet Away (+2 to Attack, Special Attack and Speed; 50 %).
# Their ``onTry`` fails at ``maxhp * percent / 100`` HP or less or with 1 max HP, their ``onTryHit`` runs the boosts and
# fails when no stage moves, their ``onHit`` then costs ``floor(maxhp * percent / 100)`` HP (``directDamage``).
SOUL_MOVES = {"clangoroussoul": 33, "filletaway": 50}
_NO_RETREAT_CALLBACKS = ["condition.onStart", "condition.onTrapPokemon", "onTry"]


# Damaging moves whose one callback is an ``onHit`` clearing the target's stages (``clearBoosts``; after the damage,
# in runMoveEffects: not through a substitute, a target the hit fainted too; no draw): Clear Smog.
CLEAR_BOOST_MOVES = ("clearsmog",)


def clear_boost_moves() -> list[str]:
    """The moves of ``CLEAR_BOOST_MOVES`` whose accuracy and priority the kernels cover, with no other effect (their
    damage is the formula's)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in CLEAR_BOOST_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m.get("callbacks") == ["onHit"]
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


def _on_hit_boost_columns() -> dict:
    """Per move index: ``drum``, ``take_heart``, ``no_retreat`` and ``soul`` [M] (Belly Drum, Take Heart, No Retreat,
    ``SOUL_MOVES`` of ``boost_moves()``), ``soul_percent`` [M] (the latter's cost), ``clear_smog`` [M]
    (``clear_boost_moves()``)."""
    t = tables.load()
    n = len(t.move_ids)
    cols = {"drum": np.zeros(n, bool), "take_heart": np.zeros(n, bool), "clear_smog": np.zeros(n, bool),
            "no_retreat": np.zeros(n, bool), "soul": np.zeros(n, bool), "soul_percent": np.zeros(n, np.int32)}
    for m in clear_boost_moves():
        cols["clear_smog"][t.move_index[m]] = True
    boosting = set(boost_moves())
    for m, col in ((("bellydrum", "drum"), ("takeheart", "take_heart")) + tuple((m, "no_retreat") for m in NO_RETREAT_MOVES)
                   + tuple((m, "soul") for m in SOUL_MOVES)):
        if m in boosting:
            cols[col][t.move_index[m]] = True
            cols["soul_percent"][t.move_index[m]] = SOUL_MOVES.get(m, 0)
    return cols


def _tidy_columns() -> dict:
    """Per move index: ``tidy`` [M], a Tidy Up of ``boost_moves()``."""
    t = tables.load()
    tidy = np.zeros(len(t.move_ids), bool)
    for m in set(TIDY_MOVES) & set(boost_moves()):
        tidy[t.move_index[m]] = True
    return {"tidy": tidy}


# Status moves aimed at their own side that ``tryMoveHit`` runs (no accuracy check, no hit loop, so none of its Update
# events): Heal Bell's ``onHit`` cures the status of every Pokémon of its user's side that is not fainted
# (``cureStatus``); the screens (``screen_moves()``).
HEAL_BELL_MOVES = ("healbell",)


def ally_side_moves() -> list[str]:
    """The moves of ``HEAL_BELL_MOVES`` whose accuracy and priority ``accuracy`` and ``order`` cover."""
    covered = set(accuracy.accuracy_moves()) & set(order.order_moves())
    return sorted(m for m in HEAL_BELL_MOVES if m in covered)


# Moves adding a screen to their user's side (``state.SCREENS``; target ``allySide``, their whole effect the side
# condition), by the screen: Reflect, Light Screen, and Aurora Veil, whose ``onTry`` fails without snow.
SCREEN_MOVES = {"reflect": "reflect", "lightscreen": "lightscreen", "auroraveil": "auroraveil"}
_SCREEN_CALLBACKS = ["condition.durationCallback", "condition.onAnyModifyDamage", "condition.onSideEnd",
                     "condition.onSideStart"]
SNOW_TRY_MOVES = ("auroraveil",)
# Damaging moves whose one callback, an ``onTryHit``, removes the target side's screens (``spreadMoveHit``'s own TryHit:
# after the immunity and the accuracy check, before a substitute stops the hit): Brick Break, Psychic Fangs.
SCREEN_BREAK_MOVES = ("brickbreak", "psychicfangs")


def screen_moves() -> list[str]:
    """Reflect, Light Screen and Aurora Veil (``SCREEN_MOVES``): ``tryMoveHit`` (no accuracy check, no hit loop, no
    ``Update``; they run with the foe fainted); Aurora Veil's ``onTry`` fails without snow; ``addSideCondition`` fails on
    the screen already up (the move fails), else sets it for ``SCREEN_TURNS`` turns. While up, a hit on the side (not a
    critical one; a fixed-damage move is not modified) has its damage ``modify``'d by 0.5 after the burn: Reflect's for a
    physical move, Light Screen's for a special one, Aurora Veil's for either unless that one's screen is up too. At the
    residual (``onSideResidualOrder`` 26, after the volatiles' ordered handlers: the same screen on both sides ties, a
    draw) each counts down and ends at 0. Every screen on the field is a handler of each hit's ``ModifyDamage`` event,
    all of them tied in its speed sort (k screens: k - 1 draws after the damage roll). Brick Break and Psychic Fangs
    (``SCREEN_BREAK_MOVES``) and Defog remove them."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in SCREEN_MOVES and m["id"] in placed
                  and m["target"] == "allySide" and m.get("sideCondition") == SCREEN_MOVES[m["id"]]
                  and sorted(m.get("callbacks") or []) == sorted(_SCREEN_CALLBACKS
                                                                  + (["onTry"] if m["id"] in SNOW_TRY_MOVES else []))
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


# Damaging moves whose one secondary (chance 100) adds a residual-damage volatile of their own: Salt Cure (``saltcure``:
# at each residual, order 13, ``floor(maxhp / 8)`` of its holder's HP, ``floor(maxhp / 4)`` for a Water or Steel type
# by its current types, at least 1; the secondary's ``addVolatile`` fails on a target holding it, fainted or behind
# a substitute; switching out and fainting end it). Its damage is the formula's (the callbacks are the volatile's).
SALT_CURE_MOVES = ("saltcure",)
_SALT_CURE_CALLBACKS = ["condition.onEnd", "condition.onResidual", "condition.onStart"]


def salt_cure_moves() -> list[str]:
    """The moves of ``SALT_CURE_MOVES`` that ``step`` runs whole (see there)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in SALT_CURE_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m["target"] == "normal"
                  and sorted(m.get("callbacks") or []) == _SALT_CURE_CALLBACKS
                  and (m.get("condition") or {}).get("onResidualOrder") == 13
                  and _volatile_secondary({**m, "callbacks": None}, m["id"]) == 100)


# Damaging moves whose one secondary (chance 100) traps the target: Spirit Shackle (its ``onHit`` adds the ``trapped``
# volatile, linked to a ``trapper`` one on its user: either leaving the field, by a switch or a faint, ends both;
# ``addVolatile`` fails on a target holding it, fainted, behind a substitute or a Ghost by its current types). A trapped
# Pokémon is offered no switch (``tryTrap``: unless a Ghost by its current types); a self-switch or a drag still moves it.
SHACKLE_MOVES = ("spiritshackle",)


def shackle_moves() -> list[str]:
    """The moves of ``SHACKLE_MOVES`` that ``step`` runs whole (see there)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in SHACKLE_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m["target"] == "normal"
                  and m.get("callbacks") == ["secondary.onHit"] and m.get("secondaries") == [{"chance": 100}]
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f not in ("secondary", "secondaries")))


# Damaging moves whose one effect besides the damage is ``self: {volatileStatus: 'glaiverush'}`` (Glaive Rush; its
# callbacks are the volatile's): after a hit (selfDrops: no draw) its user holds the volatile until its next move
# action's BeforeMove (priority 100: the first handler, a recharge's turn too), switching out or fainting; while held,
# the accuracy event of a move aimed at it gives ``true`` (no draw, a multi-hit move's later hits too) and its
# ``onSourceModifyDamage`` doubles the damage it takes (chained with a screen's halving in one modifier).
GLAIVE_MOVES = ("glaiverush",)
_GLAIVE_CALLBACKS = ["condition.onAccuracy", "condition.onBeforeMove", "condition.onSourceModifyDamage",
                     "condition.onStart"]


def glaive_moves() -> list[str]:
    """The moves of ``GLAIVE_MOVES`` that ``step`` runs whole (see there)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in GLAIVE_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m["target"] == "normal" and m["basePower"] > 0
                  and sorted(m.get("callbacks") or []) == _GLAIVE_CALLBACKS
                  and m.get("self") == {"volatileStatus": "glaiverush"}
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "self"))


def _volatile_secondary_columns() -> dict:
    """Per move index: ``salting`` [M] (``salt_cure_moves()``), ``shackling`` [M] (``shackle_moves()``), ``glaive`` [M]
    (``glaive_moves()``)."""
    t = tables.load()
    cols = {"salting": np.zeros(len(t.move_ids), bool), "shackling": np.zeros(len(t.move_ids), bool),
            "glaive": np.zeros(len(t.move_ids), bool)}
    for name, moves in (("salting", salt_cure_moves()), ("shackling", shackle_moves()), ("glaive", glaive_moves())):
        for m in moves:
            cols[name][t.move_index[m]] = True
    return cols


def _ally_side_columns() -> dict:
    """Per move index: ``heal_bell`` [M] (``ally_side_moves()``), ``screen`` [M] (the screen a move of
    ``screen_moves()`` sets: its ``state.SCREENS`` index + 1, 0: none), ``needs_snow`` and ``breaks_screens`` [M]
    (``SNOW_TRY_MOVES``, ``SCREEN_BREAK_MOVES``)."""
    t = tables.load()
    n = len(t.move_ids)
    cols = {"heal_bell": np.zeros(n, bool), "screen": np.zeros(n, np.int32), "needs_snow": np.zeros(n, bool),
            "breaks_screens": np.zeros(n, bool)}
    for m in ally_side_moves():
        cols["heal_bell"][t.move_index[m]] = True
    for m in screen_moves():
        cols["screen"][t.move_index[m]] = S.SCREENS.index(SCREEN_MOVES[m]) + 1
        cols["needs_snow"][t.move_index[m]] = m in SNOW_TRY_MOVES
    for m in SCREEN_BREAK_MOVES:
        cols["breaks_screens"][t.move_index[m]] = True
    return cols


# Data fields every move has; anything else on a status move is an effect of its own.
_PLAIN_FIELDS = {"accuracy", "basePower", "category", "critRatio", "flags", "id", "ignoreImmunity", "maxpp", "name",
                 "num", "pp", "priority", "target", "type", "secondaries", "secondary", "callbacks"}


def boost_moves() -> list[str]:
    """The moves of ``restricted_moves()`` with stat-stage changes: status moves whose whole effect is
    ``boosts`` on their user (Swords Dance, Shell Smash...), damaging moves whose only other effect is
    ``self: {boosts}`` (Close Combat, Draco Meteor...) or one secondary with ``boosts`` on the target or
    ``self: {boosts}``, with its chance (Flame Charge, Moonblast...), a non-Ghost's Curse (``CURSE_MOVES``),
    Tidy Up (``TIDY_MOVES``: its removal of substitutes and hazards too), Belly Drum and Take Heart
    (``ON_HIT_BOOSTS``: their conditions, HP cost and cure too), No Retreat (``NO_RETREAT_MOVES``: its failure and
    trapping volatile), Clangorous Soul and Fillet Away (``SOUL_MOVES``: their condition and HP cost).
    The format's sets hold no status move lowering the target's stages alone."""
    t = tables.load()
    covered, kernel = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"]
                  if m["id"] in covered and (m["category"] == "Status" or m["id"] in kernel or m["id"] in SPIN_MOVES)
                  and _boost_effect(m) is not None)


# The statuses whose mechanics ``step`` runs (a stage of its own each; a move inflicting another one is
# not in ``status_moves()``).
COVERED_STATUSES = ("brn", "par", "psn", "tox", "slp", "frz")


# Moves whose one callback, ``onModifyMove``, sets their accuracy by the weather (``_use_move``): Thunder, Hurricane and
# Bleakwind Storm never miss in rain (``RAIN_SURE_MOVES``: no draw), Thunder and Hurricane have 50 in sun
# (``SUN_HALF_MOVES``); Blizzard never misses in snow (``SNOW_SURE_MOVES``).
WEATHER_ACCURACY_MOVES = ("thunder", "hurricane", "blizzard", "bleakwindstorm")
RAIN_SURE_MOVES = ("thunder", "hurricane", "bleakwindstorm")
SUN_HALF_MOVES = ("thunder", "hurricane")
SNOW_SURE_MOVES = ("blizzard",)


# Damaging moves whose callbacks read only the terrain, which these battles never have (no terrain move runs, no
# ability), or Gravity (no Gravity move runs): Psyblade's power in Electric Terrain, Expanding Force's power and targets
# in Psychic Terrain, Grassy Glide's priority in Grassy Terrain, Grav Apple's power under Gravity. They run as their
# data say (Grav Apple's Defense drop: ``boost_moves()``).
FIELD_ONLY_MOVES = {"psyblade": ["onBasePower"],
                    "expandingforce": ["onBasePower", "onModifyMove"], "grassyglide": ["onModifyPriority"],
                    "gravapple": ["onBasePower"]}
# Damaging moves whose callbacks act only on their user's ally, which singles never has: Pollen Puff (its ``onTryMove``,
# ``onTryHit`` and ``onHit`` heal an ally instead of hitting it). Against the foe it is a plain hit.
ALLY_ONLY_MOVES = {"pollenpuff": ["onHit", "onTryHit", "onTryMove"]}
# Damaging moves whose one callback, an ``onTry``, fails them (null: no draw, PP spent) unless their user is one species:
# Hyperspace Fury (Hoopa-Unbound; its ``breaksProtect``: after the accuracy check the target's protect volatile ends,
# and with it the stall one; no ``protect`` flag, so Protect does not stop it; ``bypasssub``; its ``self`` -1 Defense).
SPECIES_TRY_MOVES = {"hyperspacefury": "hoopaunbound"}
# the moves whose callbacks change nothing in these battles or that ``step`` runs (``_weatherless`` drops them)
_IDLE_CALLBACKS = {**FIELD_ONLY_MOVES, **ALLY_ONLY_MOVES, **{m: ["onTry"] for m in SPECIES_TRY_MOVES}}


# Moves whose one callback is an ``onEffectiveness`` ``step`` runs (``_use_move``): Freeze-Dry, super
# effective on each Water type of the target (its current types).
WATER_SUPER_MOVES = ("freezedry",)


# Damaging moves whose one callback is an ``onMoveFail`` crash (``hasCrashDamage``): a miss or an immunity
# costs the user ``floor(baseMaxhp / 2)`` (High Jump Kick, Supercell Slam).
CRASH_MOVES = ("highjumpkick", "supercellslam")


def crash_moves() -> list[str]:
    """The moves of ``CRASH_MOVES`` with no other effect whose accuracy and priority the kernels cover
    (their damage is the formula's)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in CRASH_MOVES and m["id"] in placed
                  and m.get("callbacks") == ["onMoveFail"] and m.get("hasCrashDamage")
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


# Damaging moves whose one effect besides the damage is ``selfdestruct: "always"`` (Explosion): useMoveInner faints
# the user (``faint``: HP 0, queued) after its TryMove events and before the target checks and the hit steps, so the
# user faints whether the move hits, misses, is blocked or finds no target; the faint queue holds it before the target.
EXPLODE_MOVES = ("explosion",)


def explode_moves() -> list[str]:
    """The moves of ``EXPLODE_MOVES`` whose damage, accuracy and priority the kernels cover, with no other effect."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in EXPLODE_MOVES and m["id"] in placed
                  and m.get("selfdestruct") == "always" and not m.get("callbacks")
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "selfdestruct"))


def _weatherless(m: dict) -> dict:
    """``m`` as it runs here: a move of ``WEATHER_ACCURACY_MOVES`` or ``FIELD_ONLY_MOVES`` with no weather or
    terrain, of ``ALLY_ONLY_MOVES`` with no ally, or of ``WATER_SUPER_MOVES`` (its callback in the engine), without its
    callbacks."""
    if ((m["id"] in WEATHER_ACCURACY_MOVES and m.get("callbacks") == ["onModifyMove"])
            or (m["id"] in _IDLE_CALLBACKS and sorted(m.get("callbacks") or []) == _IDLE_CALLBACKS[m["id"]])
            or (m["id"] in WATER_SUPER_MOVES and m.get("callbacks") == ["onEffectiveness"])):
        return {**m, "callbacks": []}
    return m


def _status_effect(m: dict):
    """The major status a move inflicts as its whole effect besides its damage, as ``(status,
    chance)``: a status move whose whole effect is ``status`` on its target (chance 100, after its
    accuracy), or a damaging move whose only other effect is one secondary with ``status`` (and
    ``thawsTarget``); None otherwise."""
    m = _weatherless(m)
    if m["category"] == "Status":
        keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
        ok = m.get("target") == "normal" and m.get("status") and keys == {"status"}
        return (m["status"], 100) if ok else None
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("secondary", "secondaries", "thawsTarget")]
    secs = m.get("secondaries") or []
    if (others or (m.get("callbacks") and m["id"] not in SPIN_MOVES) or len(secs) != 1
            or set(secs[0]) != {"chance", "status"}):
        return None
    return secs[0]["status"], secs[0]["chance"]


# Damaging moves whose one secondary (a chance, no effect of its own) has an ``onHit`` that samples one of three major
# statuses (``this.sample``: random(3), drawn on a target up or fainted) and tries it on the target (``trySetStatus``,
# the user as its source): Tri Attack, Dire Claw.
SAMPLED_STATUS_MOVES = {"triattack": ("brn", "par", "frz"), "direclaw": ("psn", "par", "slp")}


def _sampled_status_effect(m: dict):
    """``(statuses, chance)`` of a move of ``SAMPLED_STATUS_MOVES`` as ``moves.js`` has it, or None."""
    secs = m.get("secondaries") or []
    if (m["id"] not in SAMPLED_STATUS_MOVES or m["category"] == "Status" or m.get("callbacks") != ["secondary.onHit"]
            or len(secs) != 1 or set(secs[0]) != {"chance"}
            or any(m.get(f) for f in _EFFECT_FIELDS if f not in ("secondary", "secondaries"))):
        return None
    return SAMPLED_STATUS_MOVES[m["id"]], secs[0]["chance"]


def sampled_status_moves() -> list[str]:
    """The moves of ``SAMPLED_STATUS_MOVES`` whose accuracy and priority the kernels cover (their damage is the
    formula's: the callback is their secondary's)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in placed and _sampled_status_effect(m) is not None
                  and all(x in COVERED_STATUSES for x in SAMPLED_STATUS_MOVES[m["id"]]))


def status_moves() -> list[str]:
    """The moves inflicting a major status of ``COVERED_STATUSES`` that ``step`` runs whole: status
    moves whose whole effect is ``status`` on the target (Will-O-Wisp, Thunder Wave, Toxic, Spore...;
    their type, status and powder immunities, the Sleep Clause), and damaging moves of
    ``damage.kernel_moves()`` whose only other effect is one status secondary with its chance
    (Flamethrower, Body Slam, Scald...)."""
    t = tables.load()
    covered, kernel = _kernel_covered()
    out = []
    for m in t.data["moves"]:
        if m["id"] not in covered or (m["category"] != "Status" and m["id"] not in kernel and m["id"] not in SPIN_MOVES):
            continue
        effect = _status_effect(m)
        if effect is not None and effect[0] in COVERED_STATUSES:
            out.append(m["id"])
    return sorted(out)


def _volatile_secondary(m: dict, volatile: str):
    """The chance of a damaging move whose only effect besides its damage is one secondary
    ``volatileStatus: volatile``, or None."""
    m = _weatherless(m)
    if m["category"] == "Status":
        return None
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("secondary", "secondaries")]
    secs = m.get("secondaries") or []
    if others or m.get("callbacks") or len(secs) != 1 or set(secs[0]) != {"chance", "volatileStatus"}:
        return None
    return secs[0]["chance"] if secs[0]["volatileStatus"] == volatile else None


def _flinch_effect(m: dict):
    """The flinch chance of a move whose only other effect is a flinch secondary (Iron Head, Air
    Slash, Rock Slide...), or None."""
    return _volatile_secondary(m, "flinch")


# Damaging moves whose one callback is Fake Out's ``onTry`` (``source.activeMoveActions > 1``: it fails
# unless this is its user's first move action since switching in): Fake Out (its flinch: ``flinch_moves()``),
# First Impression (no other effect: ``first_turn_moves()``).
FIRST_TURN_MOVES = ("fakeout", "firstimpression")


def first_turn_moves() -> list[str]:
    """The moves of ``FIRST_TURN_MOVES`` with no effect besides the damage and the ``onTry`` (First Impression)."""
    t = tables.load()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in FIRST_TURN_MOVES and _covered(m)
                  and m.get("callbacks") == ["onTry"] and not any(m.get(f) for f in _EFFECT_FIELDS))


def _then_flinch(m: dict, first: str):
    """``(value, its chance, flinch chance)`` of a damaging move whose only effect besides its damage is two
    secondaries, one with ``first`` (``status`` or ``boosts``: its value) then a flinch, a ``random(100)`` each (the
    first set before the second draw), or None."""
    if m["category"] == "Status":
        return None
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("secondary", "secondaries")]
    secs = m.get("secondaries") or []
    if others or m.get("callbacks") or len(secs) != 2 or set(secs[0]) != {"chance", first}:
        return None
    if set(secs[1]) != {"chance", "volatileStatus"} or secs[1]["volatileStatus"] != "flinch":
        return None
    return secs[0][first], secs[0]["chance"], secs[1]["chance"]


def _fang_effect(m: dict):
    """``(status, status chance, flinch chance)`` of the Fangs (Fire Fang, Ice Fang, Thunder Fang: ``_then_flinch``),
    or None."""
    return _then_flinch(m, "status")


def _arrow_effect(m: dict):
    """``(stages, their chance, flinch chance)`` of Triple Arrows (stages on the target, then a flinch:
    ``_then_flinch``), or None."""
    return _then_flinch(m, "boosts")


@functools.lru_cache(maxsize=1)
def _kernel_covered() -> tuple[frozenset, frozenset]:
    """The moves whose accuracy and priority the kernels cover, and those of them whose damage too (with
    ``WEATHER_ACCURACY_MOVES``, ``FIELD_ONLY_MOVES`` and ``ALLY_ONLY_MOVES``, whose accuracy, damage and priority only
    weather, terrain or an ally change)."""
    t = tables.load()
    weather, water = frozenset(WEATHER_ACCURACY_MOVES), frozenset(WATER_SUPER_MOVES)
    field = frozenset(m["id"] for m in t.data["moves"] if m["id"] in _IDLE_CALLBACKS
                      and sorted(m.get("callbacks") or []) == _IDLE_CALLBACKS[m["id"]])
    placed = (frozenset(accuracy.accuracy_moves()) | weather | field) & (frozenset(order.order_moves()) | field)
    return placed, placed & (frozenset(damage.kernel_moves()) | weather | water | field)


def _covered(m: dict) -> bool:
    """A damaging move whose damage, accuracy and priority the kernels cover (Fake Out's ``onTry``
    besides)."""
    placed, covered = _kernel_covered()
    plain_try = m["id"] in FIRST_TURN_MOVES and m.get("callbacks") == ["onTry"] and m.get("basePower")
    return (m["id"] in covered or (plain_try and m["id"] in placed))


def _first_turn_flinch(m: dict):
    """Fake Out's flinch chance (its one secondary, its ``onTry`` aside), or None."""
    if m["id"] not in FIRST_TURN_MOVES or m.get("callbacks") != ["onTry"]:
        return None
    return _flinch_effect({**m, "callbacks": []})


def flinch_moves() -> list[str]:
    """The damaging moves of ``damage.kernel_moves()`` whose only other effect is a flinch secondary
    with its chance, the Fangs (a status secondary, then a flinch one: a ``random(100)`` each) and Fake
    Out (``FIRST_TURN_MOVES``: its ``onTry`` fails after a first move action since switching in) and Triple Arrows
    (``_arrow_effect``: stages, then a flinch, a draw each; its stages in ``boost_moves()``)."""
    t = tables.load()
    return sorted(m["id"] for m in t.data["moves"] if _covered(m)
                  and (_flinch_effect(m) is not None or _first_turn_flinch(m) is not None or _arrow_effect(m) is not None
                       or (_fang_effect(m) is not None and _fang_effect(m)[0] in COVERED_STATUSES)))


def _confusion_effect(m: dict):
    """The confusion chance of a move whose only other effect is a confusion secondary (Dynamic Punch,
    Water Pulse, Strange Steam...; Alluring Voice's, 100, only on a target whose stages rose this turn), or None."""
    return 100 if _raised_confusion_effect(m) else _volatile_secondary(m, "confusion")


# Damaging moves whose one secondary (chance 100) confuses a target whose stages rose this turn (its ``onHit``:
# ``statsRaisedThisTurn``).
RAISED_CONFUSION_MOVES = ("alluringvoice",)


def _raised_confusion_effect(m: dict) -> bool:
    """Alluring Voice as ``moves.js`` has it: a damaging move whose one secondary, chance 100, has an ``onHit``
    (``addVolatile('confusion')`` where ``target.statsRaisedThisTurn``), nothing else."""
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("secondary", "secondaries")]
    return (m["id"] in RAISED_CONFUSION_MOVES and m["category"] != "Status" and not others
            and m.get("secondaries") == [{"chance": 100}] and m.get("callbacks") == ["secondary.onHit"])


def confusion_moves() -> list[str]:
    """The damaging moves of ``damage.kernel_moves()`` whose only other effect is a confusion
    secondary with its chance (the format's sets hold no status move confusing its target whose
    accuracy is covered: Hurricane's depends on the weather), and Alluring Voice (``RAISED_CONFUSION_MOVES``:
    its secondary's ``onHit`` confuses a target whose stages rose this turn; its damage is the data's)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if (_covered(m) and _confusion_effect(m) is not None)
                  or (m["id"] in placed and _raised_confusion_effect(m)))


def _hazard_effect(m: dict):
    """The index in ``HAZARDS`` of the entry hazard a status move sets on the foe's side as its whole
    effect (Stealth Rock, Spikes, Toxic Spikes, Sticky Web), or None."""
    keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
    if m["category"] != "Status" or m.get("target") != "foeSide" or keys != {"sideCondition"}:
        return None
    return HAZARDS.index(m["sideCondition"]) if m["sideCondition"] in HAZARDS else None


# Damaging moves laying an entry hazard on the foe's side after their hit (``onAfterHit``; into a substitute
# ``onAfterSubDamage``), their user up, as ``addSideCondition`` does (nothing at the most layers): Ceaseless Edge
# (Spikes), Stone Axe (Stealth Rock). Their empty secondary (``secondary: {}``, for Sheer Force) draws its
# random(100) and does nothing.
AFTER_HIT_HAZARD_MOVES = {"ceaselessedge": "spikes", "stoneaxe": "stealthrock"}


def after_hit_hazard_moves() -> list[str]:
    """The moves of ``AFTER_HIT_HAZARD_MOVES`` as ``moves.js`` has them whose accuracy and priority the kernels cover
    (their damage is the formula's)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in AFTER_HIT_HAZARD_MOVES and m["id"] in placed
                  and m["category"] != "Status" and sorted(m.get("callbacks") or []) == ["onAfterHit", "onAfterSubDamage"]
                  and m.get("secondaries") == [{}]
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f not in ("secondary", "secondaries")))


def _after_hit_hazard_columns() -> dict:
    """Per move index: ``after_lay`` [M, 4] (the hazard a move of ``after_hit_hazard_moves()`` lays, one-hot over
    ``HAZARDS``) and ``empty_secondary`` [M] (a restricted move's empty secondary, ``secondary: {}``: its
    random(100) with nothing after)."""
    t = tables.load()
    lay, empty = np.zeros((len(t.move_ids), len(HAZARDS)), bool), np.zeros(len(t.move_ids), bool)
    for m in after_hit_hazard_moves():
        lay[t.move_index[m], HAZARDS.index(AFTER_HIT_HAZARD_MOVES[m])] = True
    for m in _restricted_moves():                       # Diamond Storm's too
        empty[t.move_index[m]] = t.data["moves"][t.move_index[m] - 1].get("secondaries") == [{}]
    return {"after_lay": lay, "empty_secondary": empty}


# Moves removing entry hazards whose other effects ``step`` runs: Rapid Spin (its damage, its secondary's
# +1 Speed, then its ``onAfterHit`` clearing its user's side, the user up), Mortal Spin (the same ``onAfterHit`` after
# its secondary's poison: ``status_moves()``; its ``allAdjacentFoes`` target is the one foe) and Defog (-1 evasion to the
# target and both sides' hazards cleared, failing when neither happens; no screens or terrain here).
SPIN_MOVES = ("rapidspin", "mortalspin")
DEFOG_MOVES = ("defog",)


def removal_moves() -> list[str]:
    """The moves of ``SPIN_MOVES`` and ``DEFOG_MOVES`` that ``accuracy`` and ``order`` cover."""
    covered = set(accuracy.accuracy_moves()) & set(order.order_moves())
    return sorted(m for m in SPIN_MOVES + DEFOG_MOVES if m in covered)


def hazard_moves() -> list[str]:
    """The status moves setting an entry hazard of ``HAZARDS`` on the foe's side."""
    t = tables.load()
    covered = set(accuracy.accuracy_moves()) & set(order.order_moves())
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in covered and _hazard_effect(m) is not None)


# ---------------------------------------------------------------------------------------------
# HP moved besides the damage: recoil, drain, healing (``hp_moves()``)

# How a move moves its user's HP (``_hp_tables``' ``heal_kind``): a damaging move's ``drain`` (Math.round
# of the damage dealt's fraction), a status move's ``heal`` field (Math.round of the base max HP's
# fraction; fails at full HP), Roost (the same, then its ``roost`` volatile), the weather moves'
# ``onHit`` at no weather (``modify(maxhp, 0.5)``: floored; at full HP NOT_FAIL), Strength Sap, Pain Split.
HEAL_DRAIN, HEAL_FIELD, HEAL_ROOST, HEAL_MODIFY, HEAL_SAP, HEAL_SPLIT = 1, 2, 3, 4, 5, 6
# Status moves whose one callback heals (or moves HP) as ``step`` runs it, by id like ``SPIN_MOVES``.
WEATHER_HEAL_MOVES = ("synthesis", "moonlight", "morningsun", "shoreup")
ROOST_MOVES = ("roost",)
STRENGTH_SAP_MOVES = ("strengthsap",)
PAIN_SPLIT_MOVES = ("painsplit",)


def _strip_hp(m: dict) -> dict:
    """``m`` without its ``recoil`` and ``drain`` (what is left for the other stages' tables)."""
    return {k: v for k, v in m.items() if k not in ("recoil", "drain")}


def _hp_effect(m: dict):
    """``(recoil, drain, heal, heal_kind)`` of a move moving HP besides its damage (fractions as
    ``(num, den)`` or None; ``heal_kind`` one of ``HEAL_*`` or 0), or None."""
    keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
    calls, target = m.get("callbacks") or [], m.get("target")
    if m["category"] == "Status":
        if target == "self" and keys == {"heal"} and not calls:
            return None, None, tuple(m["heal"]), HEAL_FIELD
        if (m["id"] in ROOST_MOVES and keys == {"heal", "self", "condition"}
                and m["self"] == {"volatileStatus": "roost"}):
            return None, None, tuple(m["heal"]), HEAL_ROOST
        if not keys and calls == ["onHit"]:
            if m["id"] in WEATHER_HEAL_MOVES and target == "self":
                return None, None, (1, 2), HEAL_MODIFY
            if m["id"] in STRENGTH_SAP_MOVES and target == "normal":
                return None, None, None, HEAL_SAP
            if m["id"] in PAIN_SPLIT_MOVES and target == "normal":
                return None, None, None, HEAL_SPLIT
        return None
    if calls or not (m.get("recoil") or m.get("drain")):
        return None
    return (tuple(m["recoil"]) if m.get("recoil") else None, tuple(m["drain"]) if m.get("drain") else None, None,
            HEAL_DRAIN if m.get("drain") else 0)


def hp_moves() -> list[str]:
    """The moves moving HP besides (or instead of) damage that ``step`` runs whole: damaging moves of
    ``damage.kernel_moves()`` with ``recoil`` (Brave Bird, Double-Edge, Head Smash...) or ``drain``
    (Drain Punch, Giga Drain, Draining Kiss...), alone or with one status secondary (Flare Blitz, Volt
    Tackle, Matcha Gotcha); status moves healing their user (Recover, Slack Off, Soft-Boiled, Milk
    Drink: ``heal``; Roost and its ``roost`` volatile; Synthesis, Moonlight, Morning Sun, Shore Up at no
    weather), Strength Sap and Pain Split."""
    t = tables.load()
    placed, _ = _kernel_covered()
    out = []
    for m in t.data["moves"]:
        if _hp_effect(m) is None:
            continue
        if m["category"] == "Status":
            ok = m["id"] in placed
        else:
            rest = _strip_hp(m)
            plain = not any(rest.get(f) for f in _EFFECT_FIELDS)
            status = _status_effect(rest)
            ok = _covered(m) and (plain or (status is not None and status[0] in COVERED_STATUSES))
        if ok:
            out.append(m["id"])
    return sorted(out)


@functools.lru_cache(maxsize=1)
def _hp_tables() -> dict:
    """Per move index, for ``hp_moves()``: its recoil and its drain or heal as ``floor((base * mul + add) /
    div)`` (``recoil_*`` of the damage dealt, ``hp_*`` of the damage dealt or the user's max HP: Math.round
    of a fraction ``n / d`` is ``(2n, d, 2d)``, ``modify(maxhp, n / d)`` is ``(trunc(4096 n / d), 2047,
    4096)``; none: ``(0, 0, 1)``) [M] each, its ``heal_kind`` [M], and ``target_drop`` [M, 7], the stages
    a status move's ``onHit`` lowers on its target (Defog's evasion, Strength Sap's Attack, Parting Shot's Atk and SpA). Struggle's
    recoil is Math.round of its user's base max HP / 4."""
    t = tables.load()
    n = len(t.move_ids)
    cols = {name: np.zeros(n, np.int32) for name in ("recoil_mul", "recoil_add", "hp_mul", "hp_add", "heal_kind")}
    cols.update({name: np.ones(n, np.int32) for name in ("recoil_div", "hp_div")})
    rounded = lambda frac: (2 * frac[0], frac[1], 2 * frac[1])
    allowed = set(hp_moves())
    for i, m in enumerate(t.data["moves"], start=1):
        if m["id"] not in allowed:
            continue
        recoil, drain, heal, kind = _hp_effect(m)
        if recoil is not None:
            cols["recoil_mul"][i], cols["recoil_add"][i], cols["recoil_div"][i] = rounded(recoil)
        if drain is not None or kind in (HEAL_FIELD, HEAL_ROOST):
            cols["hp_mul"][i], cols["hp_add"][i], cols["hp_div"][i] = rounded(drain or heal)
        elif kind == HEAL_MODIFY:
            cols["hp_mul"][i], cols["hp_add"][i], cols["hp_div"][i] = 4096 * heal[0] // heal[1], 2047, 4096
        cols["heal_kind"][i] = kind
    i = t.move_index["struggle"]
    cols["recoil_mul"][i], cols["recoil_add"][i], cols["recoil_div"][i] = rounded((1, 4))
    # the stages a status move's onHit lowers on its target [M, 7]: Defog's evasion, Strength Sap's Attack
    drop = np.zeros((n, NUM_BOOSTS), np.int32)
    for m in removal_moves():
        if m in DEFOG_MOVES:
            drop[t.move_index[m], tables.BOOSTS.index("evasion")] = -1
    for m in allowed & set(STRENGTH_SAP_MOVES):
        drop[t.move_index[m], tables.BOOSTS.index("atk")] = -1
    for m in set(switch_moves()) & set(SWITCH_DROP_MOVES):     # Parting Shot's onHit
        drop[t.move_index[m], tables.BOOSTS.index("atk")] = -1
        drop[t.move_index[m], tables.BOOSTS.index("spa")] = -1
    return {**{k: cols[k] for k in ("recoil_mul", "recoil_add", "recoil_div", "hp_mul", "hp_add", "hp_div",
                                    "heal_kind")}, "target_drop": drop}


# Damaging moves whose power, type, category or success Showdown computes in code (``basePowerCallback``,
# ``onBasePower``, ``damageCallback``, ``onModifyType``, ``onTry``...), by the rule ``step`` runs for them
# in the restricted battles (no items, abilities, weather, terrain, screens or Dynamax):
POWER_PLAIN = 0       # code that finds nothing to act on: Knock Off (no item to boost for or to remove),
                      # Psychic Fangs and Brick Break (no screens to break), Ice Spinner (no terrain to end),
                      # Judgment (no plate: Normal), Weather Ball (no weather: Normal 50), Bug Bite (no berry
                      # to eat)
POWER_NO_ITEM = 1     # Acrobatics: doubled, its user holding no item
POWER_FACADE = 2      # doubled (``BasePower``'s chainModify(2)) under a status other than sleep; no burn halving
POWER_HEX = 3         # doubled against a target with a status
POWER_STORED = 4      # Stored Power, Power Trip: 20 + 20 per positive stage of its user
POWER_WEIGHT = 5      # Grass Knot, Low Kick: by the target's weight (Showdown's bands, in hectograms)
POWER_HEAVY = 6       # Heavy Slam, Heat Crash: by the ratio of the user's weight to the target's
POWER_HALF_HP = 7     # Super Fang, Ruination: damageCallback, half the target's HP (at least 1), no crit or roll
POWER_USER_HP = 8     # Eruption, Water Spout, Dragon Energy: 150 * hp / maxhp, floored, at least 1
POWER_FAIL = 9        # Poltergeist: its onTry fails, the target holding no item
POWER_SUCKER = 10     # Sucker Punch, Thunderclap: their onTry fails unless the target's queued action is a damaging
                      # move
POWER_PAYBACK = 12    # Payback: doubled when the target has moved this turn (not switched in, no move queued)
POWER_AVALANCHE = 13  # Avalanche: doubled when the target's move damaged its user this turn
POWER_LASH_OUT = 14   # Lash Out: doubled (its ``onBasePower``: chainModify(2)) when its user's stages fell this turn
POWER_RAGE_FIST = 15  # Rage Fist: min(350, 50 + 50 * timesAttacked) (its ``basePowerCallback``)
POWER_REVELATION = 16 # Revelation Dance's onModifyType: its user's first current type (the Tera type once
                      # Terastallized; a Stellar one: the first original type)
POWER_ENDEAVOR = 17  # Endeavor: its onTryImmunity (after Protect's TryHit, before the accuracy, no draw) fails unless
                      # its user has less HP than the target; damageCallback: the target's HP less the user's
POWER_SUPER_BOOST = 18 # Electro Drift, Collision Course: their onBasePower's chainModify([5461, 4096]) against a
                      # target their type is super effective on (``runEffectiveness`` > 0, its current types)
POWER_TANTRUM = 19    # Stomping Tantrum, Temper Flare: doubled when their user's move failed last turn
                      # (``moveLastTurnResult === false``: ``BattleState.move_failed_last``)
POWER_PHOTON = 20     # Photon Geyser: Physical when its user's Atk with stages beats its SpA (its ``onModifyMove``;
                      # no ability for its ``ignoreAbility`` to ignore)
POWER_FICKLE = 21     # Fickle Beam: its onBasePower's randomChance(3, 10) doubles it (drawn between the crit and the
                      # damage roll: ``damage.hit``'s ``fickle``)
POWER_TERA_BLAST = 11 # Tera Blast: its user's Tera type once Terastallized, and Physical when its Atk
                      # with stages beats its SpA (not Stellar: ``restricted_team`` keeps it from a
                      # Stellar Tera type)
POWER_RULES = {
    "knockoff": POWER_PLAIN, "psychicfangs": POWER_PLAIN, "icespinner": POWER_PLAIN, "judgment": POWER_PLAIN,
    "weatherball": POWER_PLAIN, "acrobatics": POWER_NO_ITEM, "facade": POWER_FACADE, "hex": POWER_HEX,
    "storedpower": POWER_STORED, "grassknot": POWER_WEIGHT, "lowkick": POWER_WEIGHT, "heavyslam": POWER_HEAVY,
    "heatcrash": POWER_HEAVY, "superfang": POWER_HALF_HP, "eruption": POWER_USER_HP, "waterspout": POWER_USER_HP,
    "poltergeist": POWER_FAIL, "suckerpunch": POWER_SUCKER, "terablast": POWER_TERA_BLAST,
    "payback": POWER_PAYBACK, "avalanche": POWER_AVALANCHE, "lashout": POWER_LASH_OUT, "ragefist": POWER_RAGE_FIST,
    "revelationdance": POWER_REVELATION, "brickbreak": POWER_PLAIN, "bugbite": POWER_PLAIN,
    "thunderclap": POWER_SUCKER, "endeavor": POWER_ENDEAVOR, "electrodrift": POWER_SUPER_BOOST,
    "collisioncourse": POWER_SUPER_BOOST, "ruination": POWER_HALF_HP, "powertrip": POWER_STORED,
    "dragonenergy": POWER_USER_HP, "stompingtantrum": POWER_TANTRUM, "temperflare": POWER_TANTRUM,
    "photongeyser": POWER_PHOTON, "ficklebeam": POWER_FICKLE,
}


def power_moves() -> list[str]:
    """The moves of ``POWER_RULES`` whose accuracy and priority ``accuracy`` and ``order`` cover (Tera
    Blast's and Weather Ball's ``onModifyMove`` change no accuracy here: ``accuracy.accuracy_moves``) and
    that have no other effect."""
    t = tables.load()
    covered = set(accuracy.accuracy_moves()) & set(order.order_moves())
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in POWER_RULES and m["id"] in covered
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


@functools.lru_cache(maxsize=1)
def _power_columns() -> dict:
    """Per move index: its ``POWER_RULES`` rule [M] (-1: none) and ``water_super`` [M], a move of
    ``WATER_SUPER_MOVES`` (Freeze-Dry's ``onEffectiveness``) that ``restricted_moves()`` holds, ``crash`` [M]
    (``crash_moves()``), ``explode`` [M] (``explode_moves()``), ``confuse_if_raised`` [M] (its confusion secondary
    only on a target whose stages rose this turn: ``RAISED_CONFUSION_MOVES``)."""
    t = tables.load()
    rule = np.full(len(t.move_ids), -1, np.int32)
    for m in power_moves():
        rule[t.move_index[m]] = POWER_RULES[m]
    water, crash = np.zeros(len(t.move_ids), bool), np.zeros(len(t.move_ids), bool)
    explode = np.zeros(len(t.move_ids), bool)
    for m in set(WATER_SUPER_MOVES) & set(_restricted_moves()):
        water[t.move_index[m]] = True
    for m in crash_moves():
        crash[t.move_index[m]] = True
    for m in explode_moves():
        explode[t.move_index[m]] = True
    raised_confusion = np.zeros(len(t.move_ids), bool)   # (here for want of a table of their own)
    for m in set(RAISED_CONFUSION_MOVES) & set(confusion_moves()):
        raised_confusion[t.move_index[m]] = True
    return {"power_rule": rule, "water_super": water, "crash": crash, "explode": explode,
            "confuse_if_raised": raised_confusion}


# Status moves whose ``selfSwitch`` comes after their one ``onHit`` lowering the target's stages (Parting
# Shot: -1 Atk and SpA; when neither stage moves it deletes its ``selfSwitch``), by id like ``SPIN_MOVES``.
SWITCH_DROP_MOVES = ("partingshot",)


def _switch_effect(m: dict) -> bool:
    """A move whose only effect besides its damage is ``selfSwitch: true`` (U-turn, Volt Switch, Flip
    Turn), or Parting Shot (``SWITCH_DROP_MOVES``)."""
    if m.get("selfSwitch") is not True:
        return False
    rest = {**m, "selfSwitch": None}
    if m["category"] == "Status":
        keys = {k for k, v in rest.items() if v} - _PLAIN_FIELDS
        return m["id"] in SWITCH_DROP_MOVES and not keys and m.get("callbacks") == ["onHit"] and m["target"] == "normal"
    return not any(rest.get(f) for f in _EFFECT_FIELDS) and not m.get("callbacks")


def switch_moves() -> list[str]:
    """The self-switch moves ``step`` runs whole: damaging moves of ``damage.kernel_moves()`` whose only
    other effect is ``selfSwitch`` (U-turn, Volt Switch, Flip Turn: their user switches out after a hit
    that dealt damage, its side choosing the Pokémon in a request in the middle of the turn) and Parting
    Shot (-1 Atk and SpA to its target, then the switch when a stage moved). Nothing switches when the
    side has no other Pokémon left (``canSwitch``). Not covered: Teleport (its ``onTry``), Shed Tail, Baton
    Pass, Chilly Reception, Revival Blessing."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if _switch_effect(m)
                  and (m["id"] in placed if m["category"] == "Status" else _covered(m)))


def _drag_effect(m: dict) -> bool:
    """A move whose only effect (besides its damage) is ``forceSwitch``, with no callback."""
    if m.get("forceSwitch") is not True or m.get("callbacks"):
        return False
    rest = {**m, "forceSwitch": None}
    return m["target"] == "normal" and not any(rest.get(f) for f in _EFFECT_FIELDS)


def drag_moves() -> list[str]:
    """The moves that force their target out, ``step`` runs whole: Roar and Whirlwind (status moves, no
    accuracy check, through a substitute and Protect) and the damaging moves of ``damage.kernel_moves()``
    whose only other effect is ``forceSwitch`` (Dragon Tail, Circle Throw: after a hit on the Pokémon, not
    its substitute). Where the target and the user are up and the target's side has another Pokémon left
    (``canSwitch``; else a status one fails), runAction drags one in after the move: Showdown's
    ``dragIn``, ``random(n)`` over the side's benched Pokémon in ``side.pokemon`` order
    (``BattleState.position``), its switch-in and runSwitch at once; the target's own move action, if
    still queued, is cancelled."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if _drag_effect(m)
                  and (m["id"] in placed if m["category"] == "Status" else _covered(m)))


@functools.lru_cache(maxsize=1)
def _switch_columns() -> dict:
    """Per move index: ``self_switch`` [M] (a move of ``switch_moves()``), ``switch_drop`` [M] (Parting
    Shot: it switches only when its drop moved a stage) and ``force_switch`` [M] (``drag_moves()``)."""
    t = tables.load()
    n = len(t.move_ids)
    self_switch, drop, force = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    for m in switch_moves():
        self_switch[t.move_index[m]] = True
        drop[t.move_index[m]] = m in SWITCH_DROP_MOVES
    for m in drag_moves():
        force[t.move_index[m]] = True
    return {"self_switch": self_switch, "switch_drop": drop, "force_switch": force}


# ---------------------------------------------------------------------------------------------
# Multi-hit moves (``multihit_moves()``)

# Multi-hit moves whose one callback is a ``basePowerCallback`` of ``k * move.hit`` (Triple Axel: 20, 40,
# 60), by the power per hit.
POWER_PER_HIT = {"tripleaxel": 20, "triplekick": 10}
MAX_HITS = 10          # Population Bomb's; the hit loop's static bound
# hitStepMoveHitLoop's Gen 5+ sample for a [2, 5] move: random(20) over seven 2s, seven 3s, three 4s, three 5s
SAMPLED_HITS = (2,) * 7 + (3,) * 7 + (4,) * 3 + (5,) * 3


def _multihit_effect(m: dict):
    """``(hits, sampled, multiaccuracy, power per hit, self boosts)`` of a damaging multi-hit move whose
    other effects ``step`` runs (``selfBoost``: Scale Shot; ``smartTarget``: Dragon Darts, which in singles
    has one target and is a plain two-hit move; ``willCrit``: Surging Strikes; Triple Axel's power per
    hit), or None. ``hits``: the fixed count (``sampled``: a [2, 5] move, drawn)."""
    if not m.get("multihit") or m["category"] == "Status":
        return None
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("multihit", "selfBoost", "smartTarget")]
    calls = m.get("callbacks") or []
    if others or (calls and calls != ["basePowerCallback"]) or (calls and m["id"] not in POWER_PER_HIT):
        return None
    boost = m.get("selfBoost")
    if boost is not None and set(boost) != {"boosts"}:
        return None
    hits = m["multihit"]
    if isinstance(hits, list) and list(hits) != [2, 5]:
        return None
    sampled = isinstance(hits, list)
    return (0 if sampled else int(hits), sampled, bool(m.get("multiaccuracy")), POWER_PER_HIT.get(m["id"], 0),
            boost["boosts"] if boost else None)


def multihit_moves() -> list[str]:
    """The damaging multi-hit moves ``step`` runs whole: Showdown's ``hitStepMoveHitLoop`` (a [2, 5] count
    drawn after the accuracy check, a crit and roll draw and an ``Update`` per hit, the loop stopping at
    the target's faint), Triple Axel and Population Bomb checking their accuracy again before each later
    hit (``multiaccuracy``: a miss ends the loop), Triple Axel's power per hit, Scale Shot's ``selfBoost``
    after the loop, Surging Strikes' critical hits; no other effect."""
    t = tables.load()
    placed = set(order.order_moves())
    acc, kernel = set(accuracy.accuracy_moves()), set(damage.kernel_moves())
    out = []
    for m in t.data["moves"]:
        e = _multihit_effect(m)
        if e is None or m["id"] not in placed:
            continue
        # the first hit's accuracy check is accuracy.hits'; a multiaccuracy move's later ones are the loop's
        acc_ok = m["id"] in acc or (e[2] and not set(m.get("callbacks") or []) & {"onModifyMove", "onModifyAccuracy",
                                                                                  "onAccuracy"})
        if acc_ok and (m["id"] in kernel or e[3] > 0):
            out.append(m["id"])
    return sorted(out)


def self_boost_moves() -> list[str]:
    """The single-hit damaging moves whose one effect besides the damage is ``selfBoost`` (Clanging Scales: -1
    Defense to its user after the hit loop, no draw, as Scale Shot's), the kernels covering their damage, accuracy
    and priority."""
    t = tables.load()
    _, covered = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in covered and m["category"] != "Status"
                  and set(m.get("selfBoost") or {}) == {"boosts"} and not m.get("callbacks")
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "selfBoost"))


@functools.lru_cache(maxsize=1)
def _multihit_columns() -> dict:
    """Per move index, for ``multihit_moves()``: ``hits`` [M] (1 for any other move; 0 for a sampled
    count), ``hits_sampled`` [M], ``multiacc`` [M], ``power_per_hit`` [M] (0: the move's power every hit),
    ``self_boost`` [M, 7] and ``has_self_boost`` [M] (Scale Shot's, and those of ``self_boost_moves()``)."""
    t = tables.load()
    n = len(t.move_ids)
    hits, per_hit = np.ones(n, np.int32), np.zeros(n, np.int32)
    sampled, multiacc, has_boost = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    boost = np.zeros((n, NUM_BOOSTS), np.int32)
    for name in multihit_moves():
        i = t.move_index[name]
        k, sampled[i], multiacc[i], per_hit[i], b = _multihit_effect(t.data["moves"][i - 1])
        hits[i] = k
        has_boost[i] = b is not None
        for stat, v in (b or {}).items():
            boost[i, tables.BOOSTS.index(stat)] = v
    for name in self_boost_moves():
        i = t.move_index[name]
        has_boost[i] = True
        for stat, v in t.data["moves"][i - 1]["selfBoost"]["boosts"].items():
            boost[i, tables.BOOSTS.index(stat)] = v
    return {"hits": hits, "hits_sampled": sampled, "multiacc": multiacc, "power_per_hit": per_hit,
            "self_boost": boost, "has_self_boost": has_boost}


# Status moves whose whole effect is Showdown's ``protect`` volatile behind a ``stall`` check
# (``stallingMove``), with no side effect on the attacker (Detect, Spiky Shield, King's Shield, Baneful Bunker,
# Silk Trap, Burning Bulwark and Obstruct are not in the format's sets).
PROTECT_MOVES = ("protect",)


def protect_moves() -> list[str]:
    """The protecting moves ``step`` runs whole (Protect): priority +4, ``onPrepareHit`` fails unless an
    action is still queued this turn (``queue.willAct``) and, with its user's ``stall`` volatile up, on
    ``randomChance(1, counter)``; a success adds the ``protect`` volatile (until the residual: the foe's
    moves with the ``protect`` flag are stopped at their ``TryHit`` step, before the type immunity and the
    accuracy, drawing nothing) and the ``stall`` volatile (counter 3, tripled by each success in a row, at
    most 729)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in PROTECT_MOVES and m["id"] in placed
                  and m.get("stallingMove") and m.get("volatileStatus") == "protect" and m["target"] == "self"
                  and sorted(m.get("callbacks") or []) == ["condition.onStart", "condition.onTryHit", "onHit",
                                                           "onPrepareHit"])


@functools.lru_cache(maxsize=1)
def _protect_columns() -> dict:
    """Per move index: ``stalling`` [M] (a move of ``protect_moves()``), ``protectable`` [M] (the
    ``protect`` flag: the ``protect`` volatile stops it), ``breaks_protect`` [M] (``breaksProtect``: Hyperspace Fury)
    and ``species_only`` [M] (the one species whose use of it ``SPECIES_TRY_MOVES``'s ``onTry`` lets through; 0:
    none)."""
    t = tables.load()
    n = len(t.move_ids)
    stalling = np.zeros(n, bool)
    for m in protect_moves():
        stalling[t.move_index[m]] = True
    protectable, breaks = np.zeros(n, bool), np.zeros(n, bool)
    for i, m in enumerate(t.data["moves"], start=1):
        protectable[i] = bool(m["flags"].get("protect"))
        breaks[i] = bool(m.get("breaksProtect"))
    only = np.zeros(n, np.int32)
    for m, species in SPECIES_TRY_MOVES.items():
        only[t.move_index[m]] = t.species_index.get(species, -1)
    return {"stalling": stalling, "protectable": protectable, "breaks_protect": breaks, "species_only": only}


# Status moves whose whole effect is Showdown's ``substitute`` volatile (its ``onTryHit``, ``onHit`` and
# condition), by id like ``SPIN_MOVES``.
SUBSTITUTE_MOVES = ("substitute",)


def substitute_moves() -> list[str]:
    """The substitute moves ``step`` runs whole (Substitute): it fails (``NOT_FAIL``, no Update) with a
    substitute up or at most a quarter of its user's max HP left, else makes one of ``floor(maxhp / 4)`` HP
    and costs its user that (``directDamage``). The substitute takes the foe's damaging moves without
    ``bypasssub`` (the damage, at most its HP; recoil and drain, rounded up, from it; no effect on the
    Pokémon behind it: no secondary status, stages, flinch or confusion, the draws all made; its user's own
    stages and switch still happen) and makes the foe's status moves without ``bypasssub`` fail after their
    accuracy check."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in SUBSTITUTE_MOVES and m["id"] in placed
                  and m.get("volatileStatus") == "substitute" and m["target"] == "self"
                  and sorted(m.get("callbacks") or []) == ["condition.onEnd", "condition.onStart",
                                                           "condition.onTryPrimaryHit", "onHit", "onTryHit"])


@functools.lru_cache(maxsize=1)
def _substitute_columns() -> dict:
    """Per move index: ``makes_sub`` [M] (a move of ``substitute_moves()``) and ``bypasssub`` [M] (the flag:
    a substitute does not stop it)."""
    t = tables.load()
    n = len(t.move_ids)
    makes, bypass = np.zeros(n, bool), np.zeros(n, bool)
    for m in substitute_moves():
        makes[t.move_index[m]] = True
    for i, m in enumerate(t.data["moves"], start=1):
        bypass[i] = bool(m["flags"].get("bypasssub"))
    return {"makes_sub": makes, "bypasssub": bypass}


# Status moves whose whole effect is a volatile on their target restricting what it may choose, by id like
# ``PROTECT_MOVES``: Taunt (``taunt``: its status moves disabled, and stopped at ``BeforeMove``).
TAUNT_MOVES = ("taunt",)
# Encore (``encore``: its target locked into its last move).
ENCORE_MOVES = ("encore",)
# Damaging moves whose one secondary (chance 100) adds a volatile disabling moves of the target: Throat Chop
# (its ``onHit`` adds ``throatchop``: sound moves, 2 turns) and Psychic Noise (``volatileStatus:
# 'healblock'``: moves with the ``heal`` flag, 2 turns for Psychic Noise's ``durationCallback``).
THROAT_CHOP_MOVES = ("throatchop",)
HEAL_BLOCK_MOVES = ("psychicnoise",)


def _taunt_effect(m: dict) -> bool:
    """Taunt as ``moves.js`` has it: its ``taunt`` volatile with its four callbacks, nothing else."""
    keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
    return (m["id"] in TAUNT_MOVES and m["category"] == "Status" and m["target"] == "normal"
            and keys == {"volatileStatus", "condition"} and m["volatileStatus"] == "taunt"
            and m["condition"] == {"duration": 3, "onBeforeMovePriority": 5, "onResidualOrder": 15}
            and sorted(m.get("callbacks") or []) == ["condition.onBeforeMove", "condition.onDisableMove",
                                                     "condition.onEnd", "condition.onStart"])


def _encore_effect(m: dict) -> bool:
    """Encore as ``moves.js`` has it: its ``encore`` volatile with its five callbacks, nothing else."""
    keys = {k for k, v in m.items() if v} - _PLAIN_FIELDS
    return (m["id"] in ENCORE_MOVES and m["category"] == "Status" and m["target"] == "normal"
            and keys == {"volatileStatus", "condition"} and m["volatileStatus"] == "encore"
            and m["condition"] == {"duration": 3, "noCopy": True, "onResidualOrder": 16}
            and sorted(m.get("callbacks") or []) == ["condition.onDisableMove", "condition.onEnd",
                                                     "condition.onOverrideAction", "condition.onResidual",
                                                     "condition.onStart"])


def _throat_chop_effect(m: dict) -> bool:
    """Throat Chop as ``moves.js`` has it: a damaging move whose one secondary's ``onHit`` adds its
    ``throatchop`` condition (four handlers and an ``onModifyMove`` that stops a sound move), nothing else."""
    others = [f for f in _EFFECT_FIELDS if m.get(f) and f not in ("secondary", "secondaries")]
    return (m["id"] in THROAT_CHOP_MOVES and m["category"] != "Status" and not others
            and m.get("secondaries") == [{"chance": 100}]
            and m.get("condition") == {"duration": 2, "onBeforeMovePriority": 6, "onResidualOrder": 22}
            and sorted(m.get("callbacks") or []) == ["condition.onBeforeMove", "condition.onDisableMove",
                                                     "condition.onEnd", "condition.onModifyMove",
                                                     "condition.onStart", "secondary.onHit"])


def lock_moves() -> list[str]:
    """The moves restricting their target's choices that ``step`` runs whole: Taunt (its ``taunt``
    volatile: 3 turns, 4 on a target whose move action ran this turn and that did not switch in this turn
    (``onStart``: ``activeTurns`` and not ``queue.willMove``); its target's status moves disabled in the
    requests (Struggle when none is left), and a status move chosen before it landed stopped at
    ``BeforeMove`` (priority 5: after sleep, freeze and flinch, before confusion and paralysis) with no
    PP spent; it fails on a target already taunted; its residual handler (order 15) counts it down) and
    Encore (its ``encore`` volatile on the target's ``lastMove``: it fails with none, one in no move slot
    (Struggle), one with the ``failencore`` flag (Encore) or out of PP, and on a target encored already; 3
    turns, 4 where the target's move action has run this turn (not ``queue.willMove``); every other move
    disabled in the requests; a move action chosen before it landed is turned into the encored move at
    ``runMove``'s ``OverrideAction``, before ``BeforeMove``, Struggle excepted; its residual handler (order
    16) counts it down and ends it when the encored move has no PP left), Throat Chop (a damaging move whose
    secondary, chance 100, adds the ``throatchop`` volatile to a target up and without it: its sound moves
    disabled and stopped at ``BeforeMove``, priority 6, for 2 turns; residual order 22) and Psychic Noise (a
    damaging sound move whose secondary adds ``healblock``: 2 turns, its moves with the ``heal`` flag
    disabled and stopped at ``BeforeMove``, priority 6; residual order 20; a heal-blocked target keeps its
    turns, ``onRestart``). A Pokémon holding both ``throatchop`` and ``healblock`` has two handlers of
    ``BeforeMove`` (priority 6) and of ``ModifyMove`` that tie: a draw at each."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in placed and (
        _taunt_effect(m) or _encore_effect(m) or _throat_chop_effect(m)
        or (m["id"] in HEAL_BLOCK_MOVES and _covered(m) and _volatile_secondary(m, "healblock") == 100)))


@functools.lru_cache(maxsize=1)
def _lock_columns() -> dict:
    """Per move index: ``taunting``, ``encoring``, ``chopping`` and ``blocking`` [M] (a Taunt, an Encore, a
    Throat Chop, a Psychic Noise of ``lock_moves()``), and the ``sound`` and ``heal`` flags [M] (what
    Throat Chop's and Heal Block's ``onBeforeMove`` stop)."""
    t = tables.load()
    n = len(t.move_ids)
    cols = {name: np.zeros(n, bool) for name in ("taunting", "encoring", "chopping", "blocking", "sound", "heal")}
    for m in lock_moves():
        for name, ids in (("taunting", TAUNT_MOVES), ("encoring", ENCORE_MOVES), ("chopping", THROAT_CHOP_MOVES),
                          ("blocking", HEAL_BLOCK_MOVES)):
            cols[name][t.move_index[m]] = m in ids
    for i, m in enumerate(t.data["moves"], start=1):
        cols["sound"][i], cols["heal"][i] = bool(m["flags"].get("sound")), bool(m["flags"].get("heal"))
    return cols


def _one_of(index, ids) -> jax.Array:
    """bool: ``index`` is one of the few constant move indices ``ids`` (a comparison each, where a flag column
    read at ``index`` would be a batch-indexed gather)."""
    out = jnp.zeros(jnp.shape(index), bool)
    for i in ids:
        out = out | (index == int(i))
    return out


@functools.lru_cache(maxsize=1)
def _fail_encore() -> np.ndarray:
    """bool [M]: the moves with the ``failencore`` flag (Encore, Struggle...): an Encore fails on them."""
    t = tables.load()
    out = np.zeros(len(t.move_ids), bool)
    for i, m in enumerate(t.data["moves"], start=1):
        out[i] = bool(m["flags"].get("failencore"))
    return out


# Status moves whose whole effect is Rest's: ``onTry`` (fails on a sleeping user or one at full HP) and ``onHit``
# (``setStatus('slp')`` on the user, then ``time = startTime = 3`` and a full heal), by id like ``SPIN_MOVES``.
REST_MOVES = ("rest",)
# Status moves whose whole effect is Sleep Talk's: ``sleepUsable``, ``onTry`` (fails unless its user is asleep) and
# ``onHit`` (``useMove`` of a random callable move of its user), by id.
SLEEP_TALK_MOVES = ("sleeptalk",)
# Status moves whose whole effect is Wish's slot condition, by id.
WISH_MOVES = ("wish",)
# Status moves whose whole effect is Leech Seed's ``leechseed`` volatile on the target (Grass types immune), by id.
LEECH_MOVES = ("leechseed",)
# Status moves whose whole effect is Haze's ``onHitField`` (every active's stages cleared), by id.
HAZE_MOVES = ("haze",)
# Status moves whose whole effect is Yawn's ``yawn`` volatile on the target, by id.
YAWN_MOVES = ("yawn",)


def sleep_moves() -> list[str]:
    """The moves of the sleep stage ``step`` runs whole: Rest (``REST_MOVES``: after the PP its ``onTry`` fails,
    drawing nothing and running no ``Update``, on a sleeping user or one at full HP; else ``setStatus('slp')`` on its
    user, overriding any other status, which the Sleep Clause Mod lets through (the source is an ally: the sleep does not
    count for the clause afterwards either, ``BattleState.self_sleep``), slp's ``onStart`` drawing its ``random(2, 5)``
    before Rest sets the turns to 3 (two turns asleep, awake on the third), then a heal to the max HP) and Sleep Talk
    (``SLEEP_TALK_MOVES``: usable asleep, failing awake, calling a random callable move of its user through
    ``useMove``, whose PP is not spent)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    rest = [m["id"] for m in t.data["moves"] if m["id"] in REST_MOVES and m["id"] in placed
            and m["target"] == "self" and sorted(m.get("callbacks") or []) == ["onHit", "onTry"]
            and not any(m.get(f) for f in _EFFECT_FIELDS)]
    talk = [m["id"] for m in t.data["moves"] if m["id"] in SLEEP_TALK_MOVES and m["id"] in placed
            and m["target"] == "self" and sorted(m.get("callbacks") or []) == ["onHit", "onTry"]
            and m.get("sleepUsable") and m.get("callsMove") and not any(m.get(f) for f in _EFFECT_FIELDS)]
    return sorted(rest + talk)


def wish_moves() -> list[str]:
    """The slot-condition moves ``step`` runs whole: Wish (``WISH_MOVES``: its ``wish`` slot condition on its user's side
    keeps half the user's max HP and the turn; it fails, no ``Update``, while one waits there; at the residual of a
    later turn (its handler of order 4, before the statuses') it heals whoever is in the slot, unless fainted or under
    Heal Block)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in WISH_MOVES and m["id"] in placed
                  and m.get("slotCondition") == "Wish" and m["target"] == "self"
                  and sorted(m.get("callbacks") or []) == ["condition.onEnd", "condition.onResidual", "condition.onStart"]
                  and m.get("condition") == {"onResidualOrder": 4} and not any(m.get(f) for f in _EFFECT_FIELDS))


def leech_moves() -> list[str]:
    """Leech Seed (``LEECH_MOVES``): its ``onTryImmunity`` (a Grass type by its current types, before the accuracy, no
    draw), its accuracy, then the ``leechseed`` volatile on the target (failing, no ``Update``, on one seeded already);
    the volatile's residual handler (order 8: after a wish's, before the statuses') takes ``floor(baseMaxhp / 8)`` (at
    least 1, at most its HP) from its holder and heals that to the Pokémon in the seeder's slot (not under Heal Block),
    doing nothing when that one is fainted; switching out, fainting and the holder's Rapid Spin remove it."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in LEECH_MOVES and m["id"] in placed
                  and m.get("volatileStatus") == "leechseed" and m["target"] == "normal"
                  and sorted(m.get("callbacks") or []) == ["condition.onResidual", "condition.onStart", "onTryImmunity"]
                  and m.get("condition") == {"onResidualOrder": 8}
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "volatileStatus"))


def haze_moves() -> list[str]:
    """Haze (``HAZE_MOVES``): target ``all``, so ``tryMoveHit`` (no accuracy check, no hit loop: none of its ``Update``
    events; it runs with the foe fainted), its ``onHitField`` clearing the stages of every active not fainted; it never
    fails."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in HAZE_MOVES and m["id"] in placed
                  and m["target"] == "all" and m.get("callbacks") == ["onHitField"]
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


# Moves setting the weather, by the weather (``state.WEATHERS``): their whole effect is ``weather`` (target ``all``).
WEATHER_MOVES = {"raindance": S.RAIN, "sunnyday": S.SUN, "snowscape": S.SNOW}
# The types of Weather Ball (``onModifyType``, its power doubled by ``onModifyMove``) by the weather.
WEATHER_BALL_TYPES = {S.RAIN: "Water", S.SUN: "Fire", S.SNOW: "Ice"}
# Moves whose callbacks read the weather as ``_use_move`` runs them (besides ``WEATHER_ACCURACY_MOVES`` and the moves
# setting it): Weather Ball (its type and power), Solar Beam (no charging turn in sun, ``onBasePower`` 0.5 in rain and
# snow), Synthesis, Moonlight and Morning Sun (``WEATHER_HEAL_MOVES``: 0.667 in sun, 0.25 in rain and snow), Hydro Steam
# (sun's ``onWeatherModifyDamage`` boosts it 1.5 instead of halving a Water move). Snow's ``onModifyDef``: an Ice
# type's Defense 1.5 (``modify``) as the defender's in the damage.
WEATHER_BALL_MOVES = ("weatherball",)
SOLAR_MOVES = ("solarbeam",)
SUN_BOOSTED_MOVES = ("hydrosteam",)


def weather_moves() -> list[str]:
    """Rain Dance, Sunny Day and Snowscape (``WEATHER_MOVES``): target ``all``, so ``tryMoveHit`` (no accuracy check, no hit
    loop: none of its ``Update`` events; it runs with the foe fainted); ``setWeather`` fails on the weather already up
    (the move fails), else sets it for ``WEATHER_TURNS`` turns and runs ``eachEvent('WeatherChange')`` (a speed sort of
    the actives: a draw on a tie). The weather's residual handler (``onFieldResidualOrder`` 1: the first) counts it
    down; at 0 it ends (``clearWeather``'s ``eachEvent('WeatherChange')``), else its ``eachEvent('Weather')`` and the
    ``Update`` after it sort the actives once each."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in WEATHER_MOVES and m["id"] in placed
                  and m["target"] == "all" and not m.get("callbacks") and m.get("weather")
                  and m["weather"].lower() == S.WEATHERS[WEATHER_MOVES[m["id"]]]
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


def _weather_columns() -> dict:
    """Per move index: ``sets_weather`` [M] (the weather a move of ``weather_moves()`` sets, 0: none), ``rain_sure``,
    ``sun_half``, ``snow_sure``, ``weather_ball``, ``solar``, ``weather_heal`` and ``sun_boosted`` [M] (bool: the move
    ids of ``RAIN_SURE_MOVES``, ``SUN_HALF_MOVES``, ``SNOW_SURE_MOVES``, ``WEATHER_BALL_MOVES``, ``SOLAR_MOVES``,
    ``WEATHER_HEAL_MOVES`` but Shore Up (sand's), ``SUN_BOOSTED_MOVES``)."""
    t = tables.load()
    n = len(t.move_ids)
    sets = np.zeros(n, np.int32)
    for m in weather_moves():
        sets[t.move_index[m]] = WEATHER_MOVES[m]
    flag = lambda ids: np.isin(np.arange(n), [t.move_index[m] for m in ids if m in t.move_index])
    return {"sets_weather": sets, "rain_sure": flag(RAIN_SURE_MOVES), "sun_half": flag(SUN_HALF_MOVES),
            "snow_sure": flag(SNOW_SURE_MOVES),
            "weather_ball": flag(WEATHER_BALL_MOVES), "solar": flag(SOLAR_MOVES),
            "weather_heal": flag([m for m in WEATHER_HEAL_MOVES if m != "shoreup"]),
            "sun_boosted": flag(SUN_BOOSTED_MOVES)}


# Moves swapping held items (Trick, Switcheroo): their ``onTryImmunity`` passes any target without Sticky Hold and
# their ``onHit`` fails where neither Pokémon holds an item, which in the restricted battles (no items, no
# abilities) is always.
ITEM_SWAP_MOVES = ("trick", "switcheroo")


def item_swap_moves() -> list[str]:
    """Trick and Switcheroo (``ITEM_SWAP_MOVES``) as they run with no items: the accuracy check (the protect flag,
    a substitute stopping them), then the move fails (no ``Update``)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in ITEM_SWAP_MOVES and m["id"] in placed
                  and m["category"] == "Status" and m["target"] == "normal"
                  and sorted(m.get("callbacks") or []) == ["onHit", "onTryImmunity"]
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


def yawn_moves() -> list[str]:
    """Yawn (``YAWN_MOVES``): its ``onTryHit`` fails on a target with a status (before the accuracy: none), then the
    ``yawn`` volatile (failing, no ``Update``, on a target yawning already), duration 2; its residual handler (order 23:
    after the statuses', before roost's; two tie on speed, the draw ordering them) ends it at the second residual:
    ``trySetStatus('slp')`` with the yawner as the source (the Sleep Clause Mod counts it; a status, a fainted
    holder: nothing), drawing the sleep turns."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in YAWN_MOVES and m["id"] in placed
                  and m.get("volatileStatus") == "yawn" and m["target"] == "normal"
                  and sorted(m.get("callbacks") or []) == ["condition.onEnd", "condition.onStart", "onTryHit"]
                  and m.get("condition") == {"duration": 2, "noCopy": True, "onResidualOrder": 23}
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "volatileStatus"))


@functools.lru_cache(maxsize=1)
def _talk_columns() -> dict:
    """Per move index, read for the chosen move before the tables' rows are gathered (those are the rows of the move
    that runs, Sleep Talk's called one): ``defrost`` [M] (it thaws its frozen user in BeforeMove), ``sleep_usable``
    [M] (a move of ``sleep_moves()`` in ``SLEEP_TALK_MOVES``: slp's BeforeMove lets it run), and ``callable`` [M] (Sleep
    Talk may call it: no ``nosleeptalk`` or ``charge`` flag, not Z or Max)."""
    t = tables.load()
    n = len(t.move_ids)
    defrost, usable, callable_ = np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, bool)
    talkers = set(sleep_moves()) & set(SLEEP_TALK_MOVES)
    for i, m in enumerate(t.data["moves"], start=1):
        defrost[i] = bool(m["flags"].get("defrost"))
        usable[i] = m["id"] in talkers
        callable_[i] = not (m["flags"].get("nosleeptalk") or m["flags"].get("charge") or m.get("isZ") or m.get("isMax"))
    return {"defrost": defrost, "sleep_usable": usable, "callable": callable_}


@functools.lru_cache(maxsize=1)
def _before_move_table() -> tables.MoveTable:
    """Per move index, what ``BeforeMove`` reads of the chosen move (before Sleep Talk's call picks the move
    that runs), as one row: ``defrost`` and ``sleep_usable`` (``_talk_columns``), ``status`` (Taunt stops a
    status move), ``sound`` (Throat Chop) and ``heal`` (Heal Block)."""
    talk, lock = _talk_columns(), _lock_columns()
    return tables.MoveTable({"defrost": talk["defrost"], "sleep_usable": talk["sleep_usable"],
                             "status": tables.load().move_category == tables.STATUS,
                             "sound": lock["sound"], "heal": lock["heal"]})


@functools.lru_cache(maxsize=1)
def _sleep_columns() -> dict:
    """Per move index: ``rest`` [M] (a move of ``sleep_moves()`` in ``REST_MOVES``), ``wish`` [M] (``wish_moves()``),
    ``leech`` [M] (``leech_moves()``), ``haze`` [M] (``haze_moves()``), ``yawn`` [M] (``yawn_moves()``)."""
    t = tables.load()
    rest, wish, leech, haze, yawn = (np.zeros(len(t.move_ids), bool) for _ in range(5))
    for m in set(sleep_moves()) & set(REST_MOVES):
        rest[t.move_index[m]] = True
    for m in wish_moves():
        wish[t.move_index[m]] = True
    for m in leech_moves():
        leech[t.move_index[m]] = True
    for m in haze_moves():
        haze[t.move_index[m]] = True
    for m in yawn_moves():
        yawn[t.move_index[m]] = True
    return {"rest": rest, "wish": wish, "leech": leech, "haze": haze, "yawn": yawn}


# Damaging moves whose ``self`` adds the ``lockedmove`` volatile: Outrage, Petal Dance.
LOCKED_MOVES = ("outrage", "petaldance")
# Damaging moves whose ``self`` adds the ``mustrecharge`` volatile: Giga Impact.
RECHARGE_MOVES = ("gigaimpact",)
# Two-turn moves (the ``charge`` flag) whose ``onTryMove`` charges on the first turn, with the stages it raises then
# (Meteor Beam: +1 Sp. Atk); Solar Beam's charge is skipped in sun and its power halved in rain, sand and snow,
# neither of which a battle without weather has.
CHARGE_MOVES = {"meteorbeam": {"spa": 1}, "solarbeam": {}}
CHARGE_CALLBACKS = {"meteorbeam": ["onTryMove"], "solarbeam": ["onBasePower", "onTryMove"]}


def charge_moves() -> list[str]:
    """The two-turn moves that ``step`` runs whole (with no weather): a damaging move placed by the accuracy and order
    kernels (its damage plain: Solar Beam's ``onBasePower`` reads only weather) whose only effect is its
    ``onTryMove``. The first use charges: ``onTryMove`` (after the PP and ``moveUsed``, before the target check, so
    also with the foe fainted; before Protect, the accuracy and the hit loop, none of which runs, nor their
    ``Update`` events) raises Meteor Beam's user's Sp. Atk by 1 and adds the ``twoturnmove`` volatile (duration 2: a
    handler of no order at the residual, ended at 0) and the move's own volatile. The next request offers that move
    alone (``getLockedMove``: no switch, no Terastallization) and it spends no PP; its ``onTryMove`` removes the
    move's volatile and the move runs (``twoturnmove`` stays until that turn's residual). A move action stopped in
    ``BeforeMove`` (sleep, freeze, flinch, confusion, full paralysis) runs ``MoveAborted``: both volatiles go."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in CHARGE_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m["target"] == "normal" and m["flags"].get("charge")
                  and sorted(m.get("callbacks") or []) == CHARGE_CALLBACKS[m["id"]]
                  and not any(m.get(f) for f in _EFFECT_FIELDS))


def recharge_moves() -> list[str]:
    """The moves after which their user must recharge that ``step`` runs whole: a damaging move of the damage kernel
    with the ``recharge`` flag whose only effect is ``self: {volatileStatus: 'mustrecharge'}``. A hit (the target,
    fainted by it or not, or its substitute; selfDrops) adds the volatile (duration 2: a handler of no order in that
    turn's residual). The next request offers the recharge alone (``move 1``: no switch, no Terastallization), a move
    action of priority 0 that no Sucker Punch reads as an attack; its ``BeforeMove`` (priority 11, before every other
    handler: sleep, freeze, flinch, confusion and paralysis neither count nor draw) removes the volatile and stops the
    action before its PP and ``moveUsed``."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in RECHARGE_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m["target"] == "normal" and not m.get("callbacks")
                  and m["flags"].get("recharge") and m.get("self") == {"volatileStatus": "mustrecharge"}
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "self"))


def locked_moves() -> list[str]:
    """The moves that lock their user in that ``step`` runs whole: a damaging move of the damage kernel whose only
    effect is ``self: {volatileStatus: 'lockedmove'}`` (target ``randomNormal``: the foe in singles, no draw). A hit
    (on the target or its substitute; selfDrops) adds the volatile: its ``onStart`` draws ``trueDuration``
    random(2, 4) and its duration is 2; on a later turn's hit ``onRestart`` sets the duration to 2 again while
    ``trueDuration`` >= 2. While held, the request offers the locked move alone (``trapped``: no switch, no
    Terastallization; its slot even with no PP left) and ``runMove`` spends no PP on it. Its ``onAfterMove`` (every
    move action that got past ``BeforeMove``) removes it at duration 1, and its ``onEnd`` then confuses the user
    (``addVolatile('confusion')``: random(2, 6), not on a confused or fainted Pokémon) where ``trueDuration`` <= 1.
    Its residual handler (no order: after the others) counts the duration down (ending it at 0, ``onEnd`` as above),
    else deletes it from a sleeping holder (no ``onEnd``) or counts ``trueDuration`` down. Not handled: the two
    actives' locks both ending in confusion at one residual while they tie on speed (the shuffle's order unread)."""
    t = tables.load()
    placed, _ = _kernel_covered()
    return sorted(m["id"] for m in t.data["moves"] if m["id"] in LOCKED_MOVES and m["id"] in placed
                  and m["category"] != "Status" and m["target"] == "randomNormal" and not m.get("callbacks")
                  and m.get("self") == {"volatileStatus": "lockedmove"}
                  and not any(m.get(f) for f in _EFFECT_FIELDS if f != "self"))


def restricted_moves() -> list[str]:
    """The moves ``step`` runs completely: damaging moves of ``damage.kernel_moves()`` whose accuracy
    and priority ``accuracy`` and ``order`` cover, with no effect besides the damage (no secondary
    effect, self effect, recoil, drain, multiple hits or switching; Gigaton Hammer's and Blood Moon's ``cantusetwice``
    is the request's: ``masks.disabled``), the stat-stage moves of
    ``boost_moves()``, the status moves of ``status_moves()``, the flinch moves of
    ``flinch_moves()``, the confusion moves of ``confusion_moves()``, the entry hazards of ``hazard_moves()``
    and their removal, ``removal_moves()``, the moves moving HP of ``hp_moves()``, the battle-dependent
    damaging moves of ``power_moves()``, the self-switch moves of ``switch_moves()``, the multi-hit moves of
    ``multihit_moves()``, the crash moves of ``crash_moves()``, Explosion (``explode_moves()``), Protect
    (``protect_moves()``), Substitute
    (``substitute_moves()``) and Taunt and Encore (``lock_moves()``: Taunt, Encore, Throat Chop, Psychic
    Noise), Rest and Sleep Talk (``sleep_moves()``), Haze (``haze_moves()``), Wish (``wish_moves()``), Leech Seed
    (``leech_moves()``), Yawn (``yawn_moves()``), Roar, Whirlwind, Dragon Tail and Circle Throw
    (``drag_moves()``), Heal Bell and Aurora Veil (``ally_side_moves()``), Tri Attack and Dire Claw
    (``sampled_status_moves()``), First Impression (``first_turn_moves()``), Clear Smog (``clear_boost_moves()``),
    Ceaseless Edge and Stone Axe (``after_hit_hazard_moves()``), Clanging Scales (``self_boost_moves()``), Outrage and
    Petal Dance (``locked_moves()``), Giga Impact (``recharge_moves()``), Meteor Beam and Solar Beam
    (``charge_moves()``), Salt Cure (``salt_cure_moves()``) and, with
    no items to swap, Trick and
    Switcheroo (``item_swap_moves()``) (Thunder,
    Hurricane, Blizzard and Freeze-Dry are among the status and confusion moves: ``WEATHER_ACCURACY_MOVES``,
    ``WATER_SUPER_MOVES``)."""
    return list(_restricted_moves())


@functools.lru_cache(maxsize=1)
def _restricted_moves() -> tuple[str, ...]:
    """``restricted_moves()``, computed once (the tests restrict thousands of teams)."""
    t = tables.load()
    _, covered = _kernel_covered()
    plain = {m["id"] for m in t.data["moves"]       # thawsTarget (Hydro Steam): the hit thaws the target in any move
             if m["id"] in covered and not any(m.get(f) for f in _EFFECT_FIELDS if f != "thawsTarget")}
    return tuple(sorted(plain | set(boost_moves()) | set(status_moves()) | set(flinch_moves()) | set(confusion_moves())
                        | set(hazard_moves()) | set(removal_moves()) | set(hp_moves()) | set(power_moves())
                        | set(switch_moves()) | set(multihit_moves()) | set(crash_moves()) | set(explode_moves())
                        | set(protect_moves()) | set(substitute_moves())
                        | set(lock_moves()) | set(sleep_moves()) | set(haze_moves()) | set(wish_moves())
                        | set(leech_moves()) | set(yawn_moves()) | set(item_swap_moves()) | set(drag_moves())
                        | set(ally_side_moves()) | set(sampled_status_moves()) | set(first_turn_moves())
                        | set(clear_boost_moves()) | set(after_hit_hazard_moves()) | set(self_boost_moves())
                        | set(locked_moves()) | set(recharge_moves()) | set(charge_moves())
                        | set(salt_cure_moves()) | set(shackle_moves()) | set(weather_moves()) | set(screen_moves())
                        | set(glaive_moves())))


@functools.lru_cache(maxsize=1)
def _status_tables():
    """Per move index: the status a status move inflicts [M] (0: none), its secondary's status [M] and
    chance [M], powder [M], defrost (thaws its frozen user) [M], thawsTarget [M], the chance of its flinch
    secondary [M] (0: none), whether that is a second secondary with a draw of its own (the Fangs) [M],
    Fake Out's first-turn ``onTry`` [M], the chance of a confusion secondary [M], the hazard it lays
    [M, 4] (one-hot over ``HAZARDS``), Rapid Spin [M] and Defog [M]; per type (index
    ``TYPE_NONE`` included) the statuses it is immune to [T+1, 7] and its powder immunity [T+1]."""
    t = tables.load()
    n = len(t.move_ids)
    primary, secondary, chance = (np.zeros(n, np.int32) for _ in range(3))
    powder, defrost, thaws = (np.zeros(n, bool) for _ in range(3))
    flinch, confuse = np.zeros(n, np.int32), np.zeros(n, np.int32)
    flinch_second, first_turn = np.zeros(n, bool), np.zeros(n, bool)
    allowed = set(status_moves()) | set(hp_moves())     # Flare Blitz...: a status secondary besides the recoil
    flinchers, confusers = set(flinch_moves()), set(confusion_moves())
    lay = np.zeros((n, len(HAZARDS)), bool)
    spin, defog = np.zeros(n, bool), np.zeros(n, bool)
    removers, layers = set(removal_moves()), set(hazard_moves())
    sampled, first_turners = set(sampled_status_moves()), set(first_turn_moves())
    for i, m in enumerate(t.data["moves"], start=1):
        if m["id"] in sampled:                   # its chance here, its statuses in ``_sampled_status_columns``
            chance[i] = _sampled_status_effect(m)[1]
        powder[i] = bool(m["flags"].get("powder"))
        defrost[i] = bool(m["flags"].get("defrost"))
        thaws[i] = bool(m.get("thawsTarget"))
        if m["id"] in confusers:
            confuse[i] = _confusion_effect(m)
        if m["id"] in flinchers:
            fang = _fang_effect(m)
            if fang is not None:                 # a status secondary, then a flinch one
                secondary[i], chance[i] = STATUSES.index(fang[0]), fang[1]
                flinch[i], flinch_second[i] = fang[2], True
            elif _arrow_effect(m) is not None:     # stages (``_boost_tables``), then a flinch with its own draw
                flinch[i], flinch_second[i] = _arrow_effect(m)[2], True
            elif m["id"] in FIRST_TURN_MOVES:
                flinch[i], first_turn[i] = _first_turn_flinch(m), True
            else:
                flinch[i] = _flinch_effect(m)
        first_turn[i] |= m["id"] in first_turners
        if m["id"] in layers:
            lay[i, _hazard_effect(m)] = True
        spin[i] = m["id"] in removers and m["id"] in SPIN_MOVES
        defog[i] = m["id"] in removers and m["id"] in DEFOG_MOVES
        effect = _status_effect(_strip_hp(m)) if m["id"] in allowed else None
        if effect is None:
            continue
        status, c = effect
        if m["category"] == "Status":
            primary[i] = STATUSES.index(status)
        else:
            secondary[i], chance[i] = STATUSES.index(status), c
    immune = np.zeros((tables.TYPE_NONE + 1, len(STATUSES)), bool)
    powder_immune = np.zeros(tables.TYPE_NONE + 1, bool)
    for name, what in t.data["typeImmunity"].items():
        k = t.type_index[name]
        for status in what:
            if status in STATUSES:
                immune[k, STATUSES.index(status)] = True
        powder_immune[k] = "powder" in what
    return (primary, secondary, chance, powder, defrost, thaws, flinch, flinch_second, first_turn, confuse, lay, spin,
            defog, immune, powder_immune)


@functools.lru_cache(maxsize=1)
def _boost_tables():
    """Per move index: primary stages [M, 7] (status moves, on the user), ``self`` stages [M, 7] and
    whether the move has them, the secondary's stages on the target and on the user [M, 7], its chance
    and whether it has one."""
    t = tables.load()
    n = len(t.move_ids)
    prim, selfb, sec, sec_self = (np.zeros((n, NUM_BOOSTS), np.int32) for _ in range(4))
    has_self, has_sec = np.zeros(n, bool), np.zeros(n, bool)
    chance, self_chance = np.zeros(n, np.int32), np.full(n, 100, np.int32)
    allowed = set(boost_moves())
    for i, m in enumerate(t.data["moves"], start=1):
        if m["id"] not in allowed:
            continue
        p, s_, self_chance[i], b, bs, c = _boost_effect(m)
        for dst, src in ((prim, p), (selfb, s_), (sec, b), (sec_self, bs)):
            for k, v in (src or {}).items():
                dst[i, tables.BOOSTS.index(k)] = v
        has_self[i] = s_ is not None
        has_sec[i] = b is not None or bs is not None
        chance[i] = c
    return prim, selfb, has_self, sec, sec_self, chance, has_sec, self_chance


def _sampled_status_columns() -> dict:
    """Per move index: ``sec_sample`` [M] (a move of ``sampled_status_moves()``) and ``sec_choices`` [M, 3] (the
    statuses its secondary samples from)."""
    t = tables.load()
    sample, choices = np.zeros(len(t.move_ids), bool), np.zeros((len(t.move_ids), 3), np.int32)
    for m in sampled_status_moves():
        i = t.move_index[m]
        sample[i] = True
        choices[i] = [STATUSES.index(x) for x in SAMPLED_STATUS_MOVES[m]]
    return {"sec_sample": sample, "sec_choices": choices}


@functools.lru_cache(maxsize=1)
def _status_table() -> tables.MoveTable:
    """The per-move columns of ``_status_tables``, ``_hp_tables``, ``_power_columns``, ``_switch_columns`` and
    ``_multihit_columns`` as one ``tables.MoveTable``."""
    names = ("inflict", "sec_status", "sec_chance", "powder", "defrost", "thaws_target", "flinch_chance",
             "flinch_second", "first_turn", "confuse_chance", "lay", "spin", "defog")
    return tables.MoveTable({**dict(zip(names, _status_tables()[:13])), **_hp_tables(), **_power_columns(),
                             **_switch_columns(), **_multihit_columns(), **_protect_columns(),
                             **_substitute_columns(), **_tidy_columns(), **_on_hit_boost_columns(), **_ally_side_columns(),
                             **_lock_columns(), **_sleep_columns(), **_sampled_status_columns(),
                             **_after_hit_hazard_columns(), **_volatile_secondary_columns(), **_weather_columns()})


@functools.lru_cache(maxsize=1)
def _boost_table() -> tables.MoveTable:
    """``_boost_tables`` as one ``tables.MoveTable`` (one row gather per move use)."""
    names = ("prim", "self", "has_self", "sec", "sec_self", "chance", "has_sec", "self_chance")
    return tables.MoveTable(dict(zip(names, _boost_tables())))


def restricted_species_ok(species_id: str) -> bool:
    """Whether a species may play in the restricted battles (no forme change on Terastallizing or at
    the start)."""
    return not species_id.startswith(EXCLUDED_SPECIES_PREFIXES)


# Moves given to a Pokémon with fewer than four restricted moves, after those of its own types.
_FILLER_MOVES = ("hypervoice", "quickattack", "earthquake", "surf")


def restricted_team(rows: list, max_moves: int = 4) -> list:
    """A pool team (``pool.json`` compact rows) restricted to what ``step`` covers, deterministically:
    no ability (Showdown's "No Ability") or item; its moves filtered to ``restricted_moves()``, then
    completed up to four with the strongest restricted moves of its own types and ``_FILLER_MOVES``;
    then cut to ``max_moves`` (fewer moves: Struggle sooner).
    Tera Blast is left out of a Pokémon whose Tera type is Stellar, Curse out of one that is a Ghost or
    Terastallizes into one.
    Raises ValueError for a species ``restricted_species_ok`` refuses."""
    t = tables.load()
    restricted = _restricted_moves()
    out = []
    for species, level, gender, _item, _ability, moves, tera, evs, ivs in rows:
        if not restricted_species_ok(species):
            raise ValueError(f"{species} changes forme on Terastallizing or at the start: not covered yet")
        types = {int(x) for x in t.species_types[t.species_index[species]]}
        # a Stellar Tera Blast (100 power, Stellar type, -1 Atk and SpA) and a Ghost's Curse are not covered
        ghost = t.type_index["Ghost"] in types or tera == "Ghost"
        allowed = [m for m in restricted
                   if (tera != "Stellar" or m != "terablast") and (not ghost or m not in CURSE_MOVES)]
        kept = [m for m in moves if m in allowed]
        own = sorted((m for m in allowed if int(t.move_type[t.move_index[m]]) in types),
                     key=lambda m: (-int(t.move_power[t.move_index[m]]), m))
        for m in own + list(_FILLER_MOVES):
            if len(kept) >= 4:
                break
            if m not in kept:
                kept.append(m)
        out.append([species, level, gender, "", "noability", kept[:max_moves], tera, evs, ivs])
    return out


# ---------------------------------------------------------------------------------------------
# gathers and scatters over the side axis (side: int [B]) and the team axis


def _side(x, side):
    """``x[b, side[b], ...]`` for ``x`` ``[B, 2, ...]``."""
    return S.select(x, side)


def _set_side(x, side, value, when):
    """``x`` with ``x[b, side[b]] = value[b]`` where ``when[b]``."""
    return _set_side_n(x, side, value, when, 2)


def _mon(x, side, slot):
    """``x[b, side[b], slot[b], ...]`` for a per-Pokémon field ``[B, 2, 6, ...]``. The CPU form reads
    the cell with one gather over the 12 Pokémon; the accelerator form selects the side's row, then
    the slot (6 selects rather than 11)."""
    if accelerator_form():
        return _side(_side(x, side), slot)
    side, slot = jnp.asarray(side), jnp.asarray(slot)
    flat = x.reshape(x.shape[:side.ndim] + (2 * TEAM_SIZE,) + x.shape[side.ndim + 2:])
    return S.select(flat, side * TEAM_SIZE + slot)


def _set_mon(x, side, slot, value, when):
    """``x`` with ``x[b, side[b], slot[b]] = value[b]`` where ``when[b]``, for a per-Pokémon field
    ``[B, 2, 6, ...]``: one select on a one-hot of the (side, slot) cell (no read of the row)."""
    side, slot, when = jnp.asarray(side), jnp.asarray(slot), jnp.asarray(when)
    hit = ((jnp.arange(2) == side[..., None])[..., :, None] & (jnp.arange(TEAM_SIZE) == slot[..., None])[..., None, :]
           & when[..., None, None])
    hit = hit.reshape(hit.shape + (1,) * (x.ndim - hit.ndim))
    value = jnp.broadcast_to(jnp.asarray(value, x.dtype), side.shape + x.shape[side.ndim + 2:])
    return jnp.where(hit, jnp.expand_dims(value, (side.ndim, side.ndim + 1)), x)


def _set_side_n(x, index, value, when, n):
    """``x`` with ``x[b, index[b]] = value[b]`` where ``when[b]``, for an axis of ``n`` after the
    batch axis: a one-hot select, no scatter."""
    hit = (jnp.arange(n) == index[..., None]) & when[..., None]
    hit = hit.reshape(hit.shape + (1,) * (x.ndim - hit.ndim))
    value = jnp.broadcast_to(jnp.asarray(value, x.dtype), index.shape + x.shape[index.ndim + 1:])
    return jnp.where(hit, jnp.expand_dims(value, index.ndim), x)


@struct.dataclass
class _Turn(BattleState):
    """The state inside ``step``. Most draws of a turn are speed-tie sorts whose outcome nothing here
    reads: they are only counted (``skipped`` int32[B]) and the PRNG jumps past all of them at once
    (``prng.skip``, a few masked 64-bit steps) before the next draw whose value is read
    (``_drawing``), rather than one masked 64-bit step per draw. ``bound``: a static bound of
    ``skipped`` (the draws counted since the last jump) that sets the jump's width. ``kept``: the
    fields ``_keep`` made and nothing wrote since (it skips them). ``webbed`` bool[B, 2]: the active's
    cached ``Pokemon.speed`` is from before a Sticky Web drop on switching in (until the next refresh:
    before a move, at the residual, at its side's next switch-in). ``roosted`` bool[B, 2]: the active has
    Roost's ``roost`` volatile (its Flying type gone until the residual ends it). ``stalled`` bool[B, 2]: a
    Protect added or restarted the active's ``stall`` volatile this turn (its duration of 2 outlasts this
    residual)."""
    skipped: jnp.ndarray
    webbed: jnp.ndarray
    roosted: jnp.ndarray
    stalled: jnp.ndarray
    bound: int = struct.field(pytree_node=False, default=0)
    kept: frozenset = struct.field(pytree_node=False, default=frozenset())


def _replace(self: _Turn, **updates) -> _Turn:
    """``replace``, which also drops the fields written from ``kept``."""
    return dataclasses.replace(self, **{"kept": self.kept - updates.keys(), **updates})


_Turn.replace = _replace   # after struct.dataclass, which sets its own


def _skip_draw(st: _Turn, when) -> _Turn:
    """A draw (any range) where ``when``, whose value is not read."""
    return st.replace(skipped=st.skipped + jnp.asarray(when, jnp.int32), bound=st.bound + 1)


def _drawing(st: _Turn) -> _Turn:
    """``st`` with the PRNG advanced past the counted draws: call it before reading ``st.rng``."""
    if st.bound == 0:
        return st
    return _keep(st.replace(rng=prng.skip(st.rng, st.skipped, st.bound), skipped=jnp.zeros_like(st.skipped), bound=0))


# The fields of the step's state that it writes (the others are the teams' fixed data).
_CHANGING = ("hp", "status", "status_count", "pp", "terastallized", "stellar", "times_attacked", "position", "active",
             "boosts",
             "can_tera",
             "switch_flag", "flinch", "confusion", "moved", "faint_speed", "rng", "turn", "request", "winner", "skipped",
             "hazards", "hazard_order", "webbed", "roosted", "queued", "mid_turn", "protect", "stall", "stalled", "sub_hp", "taunt", "last_move",
             "encore", "encore_slot", "throat_chop", "heal_block", "locked", "locked_turns", "locked_slot", "recharge",
             "charge", "charged", "charge_slot", "no_retreat", "salt_cure", "move_failed", "move_failed_last", "shackled", "glaive",
             "self_sleep", "wish_hp", "wish_turn", "seeded", "yawn", "volatile_order", "weather", "weather_turns",
             "screens")


def _per_action(k, first, second):
    """``first`` in the turn's first move action, ``second`` in the second: ``k`` is the action's index,
    a Python int where the two actions are unrolled, traced where they run as one loop."""
    if isinstance(k, int):
        return first if k == 0 else second
    return jnp.where(k == 0, first, second)


def _keep(tree):
    """``tree`` as is, computed once. XLA:CPU copies an elementwise producer into every fusion that
    reads it, and evaluates it there per output element (a [B] mask written into a [B, 2, 6] field:
    12 times per battle): the turn's long chains of masks and draws were recomputed hundreds of
    times. A reduction is where its fusion stops, so each array passes through one (a sum with
    zeros; ``jax.lax.optimization_barrier`` does not stop XLA:CPU's fusion). The TPU gains too:
    1.53 M -> 2.28 M decisions/s at 4,096 battles, 1.09 M -> 1.86 M at 65,536
    (``benchmarks.pokemon_gen9``, TPU v5e)."""

    def keep(x):
        if isinstance(x, _Turn):   # the fields a step writes, written since the last _keep
            return x.replace(**{k: keep(getattr(x, k)) for k in _CHANGING if k not in x.kept}, kept=frozenset(_CHANGING))
        x = jnp.asarray(x)
        pair = jnp.stack([x, jnp.zeros_like(x)])
        return pair.any(0) if x.dtype == bool else pair.sum(0, dtype=x.dtype)

    return jax.tree.map(keep, tree, is_leaf=lambda x: isinstance(x, _Turn))


def _speeds(st: BattleState):
    """int32[B, 2]: each active's speed as Showdown's ``Pokemon.speed`` holds it (a Sticky Web drop not
    refreshed yet, ``_Turn.webbed``, is not in it; a fainted one's is its speed stat: fainting's
    ``clearVolatile`` resets it through ``setSpecies``)."""
    spe = st.active_of(st.stats[..., 4])                       # the speed stat alone, not the row of five
    stage = st.boosts[..., 4]
    if isinstance(st, _Turn):
        stage = jnp.where(st.webbed, jnp.minimum(stage + 1, 6), stage)
    return order.action_speed(spe, stage, (st.active_of(st.status) == PAR) & (st.active_of(st.hp) > 0))


def _up(st: BattleState):
    """bool[B]: both actives are on the field and not fainted (eachEvent sorts two Pokémon)."""
    return jnp.all(st.active_of(st.hp) > 0, axis=-1)


def _tie_draw(st: _Turn, when, speed=None):
    """One speed-sort draw of the two actives where they tie on speed (and ``when``); its outcome
    changes nothing but the PRNG, so it is only counted (``_skip_draw``). ``speed``: the speeds
    Showdown has cached in ``Pokemon.speed`` (it refreshes them only at the commit, before a queued
    move, at the residual and for a Pokémon switching in), by default the current ones."""
    s = _speeds(st) if speed is None else speed
    return _skip_draw(st, when & (s[..., 0] == s[..., 1]))


def _each_event(st: BattleState, when, speed=None, up=None):
    """Showdown's ``eachEvent``: a draw where both actives are up (``up``: ``_up(st)`` when given) and
    tie on speed."""
    return _tie_draw(st, when & (_up(st) if up is None else up), speed)


def _immune_to(types, tera, status):
    """bool[B]: a Pokémon of original ``types`` [B, 2] and ``tera`` (TYPE_NONE when not
    Terastallized) is immune to ``status`` [B] by its current types (``runStatusImmunity``; a Stellar
    Tera keeps the original types; tox is checked as psn)."""
    *_, immune, _ = _status_tables()
    bits = (immune * (1 << np.arange(immune.shape[1]))).sum(-1)    # per type, a bit per status
    status = jnp.where(status == TOX, PSN, status)
    first, second = damage.current_types(types, tera)
    either = tables.small_lookup(bits, first) | tables.small_lookup(bits, second)
    return ((either >> status) & 1) == 1


def _tera(st: BattleState, side, slot):
    return jnp.where(_mon(st.terastallized, side, slot), _mon(st.tera_type, side, slot), tables.TYPE_NONE)


def _try_status(st: BattleState, side, slot, status, when):
    """``Pokemon.trySetStatus(status)`` on ``side``'s Pokémon ``slot`` where ``when``: it fails on a
    fainted Pokémon, one with a status already, one immune by its types, and for slp under the Sleep
    Clause (another Pokémon of its side asleep, not fainted); slp's ``onStart`` draws its turns
    ``random(2, 5)``, tox starts its stage at 0. Returns the state and where the status was set."""
    target_status = _mon(st.status, side, slot)
    ok = when & (status != 0) & (_mon(st.hp, side, slot) > 0) & (target_status == 0)
    ok = ok & ~_immune_to(_mon(st.types, side, slot), _tera(st, side, slot), status)
    ok = ok & ~((status == FRZ) & (st.weather == S.SUN))      # sun's onImmunity: no freezing
    # the Sleep Clause Mod counts the side's sleepers up whose sleep a foe caused (not Rest's: ``self_sleep``)
    asleep = (_side(st.status, side) == SLP) & (_side(st.hp, side) > 0) & ~_side(st.self_sleep, side)
    ok = ok & ~((status == SLP) & asleep.any(-1))
    st = _drawing(st)
    rng, turns = prng.random_range(st.rng, 2, 5, when=ok & (status == SLP))
    count = jnp.where(status == SLP, turns, 0)
    return _keep((st.replace(rng=rng, status=_set_mon(st.status, side, slot, status, ok),
                             status_count=_set_mon(st.status_count, side, slot, count, ok),
                             self_sleep=_set_mon(st.self_sleep, side, slot, False, ok)), ok))


def _cure(st: BattleState, side, slot, when):
    """``cureStatus`` (no draw) where ``when``."""
    return st.replace(status=_set_mon(st.status, side, slot, 0, when))


# ---------------------------------------------------------------------------------------------


def _start(st: BattleState, on):
    """``Battle.start``: the leads switch in; on a speed tie, inserting the second lead's runSwitch, its
    speed sort and the Update after it draw once each."""
    speed = _speeds(st)
    for _ in range(3):
        st = _tie_draw(st, on, speed)
    return st.replace(request=jnp.where(on, REQUEST_MOVE, st.request), turn=jnp.where(on, 1, st.turn))


def _lay(layers, order, add):
    """Per side ``[..., 4]`` hazard ``layers`` and ``order`` (1-based rank in the order they were set, 0:
    absent) with a layer of the hazards ``add`` (bool one-hot) where it is below its most; a new
    hazard takes the last rank (``addSideCondition``)."""
    more = add & (layers < jnp.asarray(HAZARD_LAYERS, jnp.int32))
    new = more & (layers == 0)
    rank = jnp.sum(layers > 0, axis=-1, keepdims=True) + 1
    return layers + more.astype(jnp.int32), jnp.where(new, rank, order)


def _remove(layers, order, gone):
    """``removeSideCondition`` of the hazards ``gone`` (bool ``[..., 4]``): their layers to 0, the
    ranks after theirs move up."""
    gone = gone & (layers > 0)
    below = jnp.sum(gone[..., None, :] & (order[..., None, :] < order[..., :, None]), axis=-1)
    return jnp.where(gone, 0, layers), jnp.where(gone, 0, order - below)


def _entry_hazards(st: BattleState, side, when):
    """The ``onSwitchIn`` handlers of the entry hazards on ``side`` for its active where ``when``
    (runSwitch's ``SwitchIn`` field event, after the status's handler; no draw), in the order the
    hazards were set (``effectOrder``), each followed by ``faintMessages``: a Pokémon fainted by one
    runs none of the later ones. Stealth Rock ``maxhp * 2 ** typeMod / 8`` (Rock against its current
    types: a Tera type counts); for a grounded Pokémon (not Flying by its current types; no abilities
    or items here) Spikes ``[0, 3, 4, 6][layers] * maxhp / 24`` (each at least 1, floored), Toxic Spikes
    (a Poison type removes them; else psn, tox at 2 layers, through ``trySetStatus``: a Steel type is
    immune) and Sticky Web (-1 Speed; fainting clears it anyway)."""
    t = tables.load()
    k = _side(st.active, side)
    layers, order = _side(st.hazards, side), _side(st.hazard_order, side)      # [B, 4]
    first, second = _keep(damage.current_types(_mon(st.types, side, k), _tera(st, side, k)))
    has = lambda name: (first == t.type_index[name]) | (second == t.type_index[name])
    grounded = ~has("Flying")
    chart = np.asarray(t.type_chart)[t.type_index["Rock"]]
    mod = np.where(chart == 1, 1, np.where(chart == 2, -1, 0))
    type_mod = tables.small_lookup(mod, first) + tables.small_lookup(mod, second)
    max_hp, hp = _mon(st.max_hp, side, k), _mon(st.hp, side, k)
    rock = jnp.maximum(max_hp * (1 << jnp.maximum(type_mod, 0)) // (8 << jnp.maximum(-type_mod, 0)), 1)
    rock = jnp.where(layers[..., 0] > 0, rock, 0)
    spikes = jnp.maximum(tables.small_lookup(np.array([0, 3, 4, 6]), layers[..., 1]) * max_hp // 24, 1)
    spikes = jnp.where(grounded & (layers[..., 1] > 0), spikes, 0)
    # Toxic Spikes run where the damage of the hazards set before them left the Pokémon up
    before = jnp.where(order[..., 0] < order[..., 2], rock, 0) + jnp.where(order[..., 1] < order[..., 2], spikes, 0)
    toxic = when & grounded & (layers[..., 2] > 0) & (hp - before > 0)
    # and Sticky Web likewise (its drop marks ``statsLoweredThisTurn`` even when a later hazard faints the Pokémon)
    before = jnp.where(order[..., 0] < order[..., 3], rock, 0) + jnp.where(order[..., 1] < order[..., 3], spikes, 0)
    web_up = hp - before > 0
    after = jnp.maximum(hp - rock - spikes, 0)
    toxic, after, grounded, web_up = _keep((toxic, after, grounded, web_up))
    st = st.replace(hp=_set_mon(st.hp, side, k, after, when))
    absorb = toxic & has("Poison")
    layers, order = _remove(layers, order, (jnp.arange(len(HAZARDS)) == 2) & absorb[..., None])
    st = st.replace(hazards=_set_side(st.hazards, side, layers, absorb),
                    hazard_order=_set_side(st.hazard_order, side, order, absorb))
    # trySetStatus on the Pokémon as it was then (up; Poison types absorbed them, Steel ones are immune):
    # it fails on a status already; no draw for psn or tox (tox's stage starts at 0). A status set
    # before a later hazard's KO stays
    poison = toxic & ~absorb & ~has("Steel") & (_mon(st.status, side, k) == 0)
    status = jnp.where(_side(st.hazards, side)[..., 2] >= 2, TOX, PSN)
    st = st.replace(status=_set_mon(st.status, side, k, status, poison),
                    status_count=_set_mon(st.status_count, side, k, 0, poison))
    web = when & grounded & (_side(st.hazards, side)[..., 3] > 0) & web_up
    lowered, moved = _boost(_side(st.boosts, side), jnp.asarray([0, 0, 0, 0, -1, 0, 0], jnp.int32), web)
    st = _mark_boost(st, side, _side(st.boosts, side), lowered)
    # (the stage kept only on a Pokémon still up: fainting clears it) the cached speed (``Pokemon.speed``) keeps the
    # speed from before the drop until a refresh
    up = after > 0
    return _keep(st.replace(boosts=_set_side(st.boosts, side, lowered, web & up),
                            webbed=_set_side(st.webbed, side, True, moved & up)))


def _clear_volatiles(st: BattleState, side, k, down) -> BattleState:
    """Fainting's ``clearVolatile`` on ``side``'s active (team slot ``k``) where ``down``: no longer Terastallized, its
    stages, last move and volatiles gone (confusion, stall, substitute, taunt, encore, throatchop, healblock,
    protect, lockedmove, mustrecharge, twoturnmove and the charging move's, noretreat, saltcure, trapped and the foe's trapped
    linked to it; the leechseed and yawn volatiles at the
    step's end, ``_step``)."""
    return st.replace(terastallized=_set_mon(st.terastallized, side, k, False, down),
                      boosts=_set_side(st.boosts, side, jnp.zeros_like(st.boosts[..., 0, :]), down),
                      confusion=_set_side(st.confusion, side, 0, down), stall=_set_side(st.stall, side, 0, down),
                      sub_hp=_set_side(st.sub_hp, side, 0, down), taunt=_set_side(st.taunt, side, 0, down),
                      last_move=_set_side(st.last_move, side, -1, down), encore=_set_side(st.encore, side, 0, down),
                      throat_chop=_set_side(st.throat_chop, side, 0, down),
                      heal_block=_set_side(st.heal_block, side, 0, down), protect=_set_side(st.protect, side, False, down),
                      locked=_set_side(st.locked, side, 0, down), recharge=_set_side(st.recharge, side, False, down),
                      charge=_set_side(st.charge, side, 0, down), charged=_set_side(st.charged, side, False, down),
                      no_retreat=_set_side(st.no_retreat, side, False, down),
                      # the trapped volatile, and the one its trapper volatile links on the foe
                      shackled=_set_side(_set_side(st.shackled, side, False, down), 1 - side, False, down),
                      salt_cure=_set_side(st.salt_cure, side, False, down), glaive=_set_side(st.glaive, side, False, down))


def _entry_faints(st: BattleState, side, when):
    """The ``faintMessages`` after an entry hazard's handler for ``side``'s active where ``when``:
    fainted, it loses its Tera state and stages, and its cached speed becomes its speed stat
    (``clearVolatile``'s ``setSpecies``), which the residual sorts its status's handler by. Returns the
    state and where its side is out."""
    k = _side(st.active, side)
    down = when & (_mon(st.hp, side, k) == 0)
    st = st.replace(faint_speed=_set_side(st.faint_speed, side, _mon(st.stats[..., 4], side, k), down),
                    terastallized=_set_mon(st.terastallized, side, k, False, down),
                    boosts=_set_side(st.boosts, side, jnp.zeros_like(st.boosts[..., 0, :]), down))
    return st, down & (_left(st, side) == 0)


def _switch_in(st: BattleState, side, slot, on, voluntary, draws=None, insert=None, hazards=None, also=None,
               dragged=None):
    """``switchIn`` of team ``slot`` for ``side`` and the runSwitch after it, with their draws (only
    where ``draws``, by default ``on``; ``insert``: first the draw of inserting its runSwitch next to
    another one of the same speed). ``dragged`` (a forced switch, ``dragIn``: ``(where, speeds)``):
    there the runSwitch runs inside the move's action, with no Update of its own after the switch or
    the runSwitch, its speed sort by ``speeds``, the speeds Showdown has cached (the Pokémon dragged in
    was not refreshed: its speed stat). The runSwitch runs the entry hazards of ``side`` where ``hazards``
    (by default ``on``) and, where ``also``, those of the other side (a double forced switch's one
    runSwitch for both: the faster Pokémon's handlers first), then faintMessages and checkWin: a
    side out ends the battle (both out: the side of the Pokémon fainted last wins)."""
    draws = on if draws is None else draws
    hazards = on if hazards is None else hazards
    drag, drag_speed = (jnp.zeros_like(on), None) if dragged is None else dragged
    updates = draws & ~drag
    joint = also is not None
    also = jnp.zeros_like(on) if also is None else also
    # BeforeSwitchOut of a Pokémon still up is followed by an Update
    st = _each_event(st, draws & voluntary)
    # switchIn swaps the two Pokémon's places in side.pokemon: the active's (0) goes to the one coming in
    old = _side(st.active, side)
    position = _set_mon(st.position, side, old, _mon(st.position, side, slot), on)
    st = st.replace(position=_set_mon(position, side, slot, 0, on))
    active = _set_side(st.active, side, slot, on)
    boosts = _set_side(st.boosts, side, jnp.zeros_like(st.boosts[..., 0, :]), on)
    st = st.replace(active=active, boosts=boosts, switch_flag=_set_side(st.switch_flag, side, False, on),
                    confusion=_set_side(st.confusion, side, 0, on), moved=_set_side(st.moved, side, False, on),
                    protect=_set_side(st.protect, side, False, on), stall=_set_side(st.stall, side, 0, on),
                    sub_hp=_set_side(st.sub_hp, side, 0, on), taunt=_set_side(st.taunt, side, 0, on),
                    last_move=_set_side(st.last_move, side, -1, on), encore=_set_side(st.encore, side, 0, on),
                    throat_chop=_set_side(st.throat_chop, side, 0, on), heal_block=_set_side(st.heal_block, side, 0, on),
                    locked=_set_side(st.locked, side, 0, on), recharge=_set_side(st.recharge, side, False, on),
                    charge=_set_side(st.charge, side, 0, on), charged=_set_side(st.charged, side, False, on),
                    no_retreat=_set_side(st.no_retreat, side, False, on), salt_cure=_set_side(st.salt_cure, side, False, on),
                    glaive=_set_side(st.glaive, side, False, on),
                    move_failed=_set_side(st.move_failed, side, False, on),
                    move_failed_last=_set_side(st.move_failed_last, side, False, on),
                    # (the Pokémon that left took its volatiles: its trapped one, and its trapper's link on the foe)
                    shackled=_set_side(_set_side(st.shackled, side, False, on), 1 - side, False, on),
                    seeded=_set_side(st.seeded, side, False, on), yawn=_set_side(st.yawn, side, 0, on),
                    raised=_set_side(st.raised, side, False, on), lowered=_set_side(st.lowered, side, False, on),
                    # (set only on a Pokémon that acted this turn: one dragged out after its move)
                    roosted=_set_side(st.roosted, side, False, on), flinch=_set_side(st.flinch, side, False, on))
    # inserting its runSwitch refreshes the cached speed of the Pokémon switching in
    st = st.replace(webbed=_set_side(st.webbed, side, False, on))
    speed, up = _speeds(st), _up(st)              # the draws below change nothing else
    if insert is not None:
        st = _tie_draw(st, insert, speed)
    st = _each_event(st, updates, speed, up)      # the Update after the switch action
    if drag_speed is not None:
        speed = jnp.where(drag[..., None], drag_speed, speed)
    # runSwitch's speed sort of all actives; the SwitchIn handlers of two Pokémon run in its order (a
    # tie: the draw's, read only for ``also``, the double forced switch)
    if joint:
        st = _drawing(st)
        tie = draws & (speed[..., 0] == speed[..., 1])
        rng, r = prng.random_range(st.rng, 0, 2, when=tie)
        st = st.replace(rng=rng)
        faster = jnp.where(also, jnp.where(tie, r, (speed[..., 1] > speed[..., 0]).astype(jnp.int32)), side)
        slower = 1 - faster
        # the entry hazards, each Pokémon's followed by faintMessages: a side out ends the battle there
        fast_on, slow_on = jnp.where(faster == side, hazards, also), jnp.where(slower == side, hazards, also)
        st = _entry_hazards(_tox_restart(st, faster, fast_on), faster, fast_on)
        st, out_fast = _entry_faints(st, faster, fast_on)
        st = _entry_hazards(_tox_restart(st, slower, slow_on & ~out_fast), slower, slow_on & ~out_fast)
        st, out_slow = _entry_faints(st, slower, slow_on & ~out_fast)
        won = jnp.where(out_slow, faster, slower)     # the foe of the side out
        ended = out_fast | out_slow
    else:
        st = _tie_draw(st, draws, speed)
        st = _entry_hazards(_tox_restart(st, side, hazards), side, hazards)
        st, ended = _entry_faints(st, side, hazards)
        won = 1 - side
    st = st.replace(winner=jnp.where(ended, won, st.winner), request=jnp.where(ended, REQUEST_ENDED, st.request))
    up = up & _up(st)
    return _keep(_each_event(st, updates & ~ended, speed, up))   # the Update after runSwitch


def _has_type(types, name: str):
    """bool: one of ``types`` (``damage.current_types``'s pair) is the type ``name``."""
    k = tables.load().type_index[name]
    return (types[0] == k) | (types[1] == k)


def _tox_restart(st: BattleState, side, when) -> BattleState:
    """tox's onSwitchIn (a SwitchIn handler of runSwitch, beside the entry hazards' of the same Pokémon): the stage of
    ``side``'s active starts again at 0 where ``when`` (a battle a faster Pokémon's hazards ended runs none)."""
    k = _side(st.active, side)
    return st.replace(status_count=_set_mon(st.status_count, side, k, 0, when & (_mon(st.status, side, k) == TOX)))


def _struggling(st: BattleState):
    """bool[B, 2]: the active has no move it may choose, with PP left and not disabled (``masks.usable``):
    its move action is Struggle (not while locked into a move, recharging or charging: ``masks.legal_mask``)."""
    return ~masks.usable(st).any(-1) & (st.locked == 0) & ~st.recharge & (st.charge == 0)


def _left(st: BattleState, side):
    """int32[B]: the Pokémon of ``side`` not fainted."""
    alive = (jnp.arange(TEAM_SIZE) < _side(st.team_size, side)[..., None]) & (_side(st.hp, side) > 0)
    return jnp.sum(alive, axis=-1)


def _boost(boosts, delta, when):
    """``Battle.boost`` of stages ``[..., 7]`` by ``delta``: each stage clamped to -6…+6 (a stage
    already at its limit does not move). Returns the stages and whether any moved."""
    new = jnp.clip(boosts + delta, -6, 6)
    new = jnp.where(delta != 0, new, boosts)
    moved = when & (new != boosts).any(-1)
    return jnp.where(when[..., None], new, boosts), moved


def _mark_boost(st, side, before, after):
    """``Battle.boost``'s marks on ``side``'s active of a boost that took its stages from ``before`` to ``after``:
    ``statsRaisedThisTurn`` where a stage went up, ``statsLoweredThisTurn`` where one went down (a stage at its
    limit does not move, nor mark)."""
    mine = jnp.arange(2) == jnp.asarray(side)[..., None]                               # [B, 2]
    return st.replace(raised=st.raised | (mine & (after > before).any(-1)[..., None]),
                      lowered=st.lowered | (mine & (after < before).any(-1)[..., None]))


def _fraction(value, mul, add, div):
    """``floor((value * mul + add) / div)`` of non-negative integers (``_hp_tables``)."""
    return jax.lax.div(value * mul + add, div)


def _unroosted(types, roosted):
    """Original types ``[B, 2]`` with the ``roost`` volatile's ``onType`` where ``roosted``: Flying removed
    (``TYPE_NONE`` in its place), a pure Flying type left with none is Normal (``getTypes``). A
    Terastallized Pokémon never has the volatile."""
    t = tables.load()
    drop = roosted[..., None] & (types == t.type_index["Flying"])
    return jnp.where(drop, jnp.where(types[..., 1:] == tables.TYPE_NONE, t.type_index["Normal"], tables.TYPE_NONE), types)


def _hp_move(st: _Turn, side, me, foe, them, x, lands, dealt, lost, hp, max_hp, theirs, their_max, their_atk, stages,
             tera, subbed, weather):
    """A damaging move's drain where it ``dealt`` damage (spreadDamage: Math.round of the damage ``lost``'s
    fraction healed to its user, nothing at full HP), or a status move of ``hp_moves()`` where it
    ``lands`` (runMoveEffects, its ``onHit``), by ``heal_kind``:
    ``heal`` (and Roost) fails at full HP (the move fails: no Update), else heals Math.round of the
    base max HP's fraction; Roost then adds its ``roost`` volatile (``self``, no draw; its ``onStart``
    fails on a Terastallized user); the weather moves heal ``modify(maxhp, 1/2)`` and at full HP fail
    with NOT_FAIL (the hit's Updates still run; Synthesis, Moonlight and Morning Sun ``modify(maxhp, 0.667)`` in
    sun, ``modify(maxhp, 0.25)`` in rain and snow: ``weather``); Strength Sap fails at -6 Attack, else lowers the
    target's Attack by 1 and heals its user by the target's Attack before (its stat and stage); Pain
    Split sets both HPs to their mean, floored (at least 1, at most each one's max HP), target first.
    ``hp``, ``max_hp``: the user's; ``theirs``, ``their_max``, ``their_atk``, ``stages``: the target's HP,
    max HP, Attack stat and stages; ``tera``: the user's Tera type (``TYPE_NONE``: none). Returns the state,
    where the move succeeded, and where Strength Sap lowers the target's Attack (with Defog's ``_boost``)."""
    kind = x.heal_kind
    full = hp >= max_hp
    field = lands & ((kind == HEAL_FIELD) | (kind == HEAL_ROOST)) & ~full
    modify = lands & (kind == HEAL_MODIFY)
    drain = dealt & (kind == HEAL_DRAIN)
    weak = x.weather_heal & ((weather == S.RAIN) | (weather == S.SNOW))
    mul = jnp.where(x.weather_heal & (weather == S.SUN), 2732, jnp.where(weak, 1024, x.hp_mul))
    amount = _fraction(jnp.where(drain, lost, max_hp), mul, x.hp_add, x.hp_div)
    # from a substitute's damage Math.ceil of the fraction (hp_mul / 2 over hp_div / 2 for a drain)
    ceil = _fraction(lost, x.hp_mul // 2, x.hp_div // 2 - 1, jnp.maximum(x.hp_div // 2, 1))
    amount = jnp.where(drain & subbed, ceil, amount)
    # Strength Sap: the target's Attack with its stage (its -1 is Defog's ``_boost`` in ``_use_move``)
    sap = lands & (kind == HEAL_SAP) & (stages[..., 0] > -6)
    stage = stages[..., 0]                                    # getStat: floor(stat * (2 + b) / 2) or stat * 2 / (2 - b)
    attack = jax.lax.div(their_atk * (2 + jnp.maximum(stage, 0)), 2 - jnp.minimum(stage, 0))
    amount = jnp.where(sap, attack, amount)
    # Battle.heal: nothing at full HP; at most up to the max HP (the user is up; no amount is 0 below
    # full HP: a max HP of 1 is always full)
    healed = (drain | field | modify | sap) & ~full
    roost = field & (kind == HEAL_ROOST) & (tera == tables.TYPE_NONE)
    # Pain Split: the mean of the two HPs
    split = lands & (kind == HEAL_SPLIT)
    mean = (theirs + hp) >> 1                                  # at least 1 (``|| 1``): both are up
    mine = jnp.minimum(jnp.where(split, mean, hp + amount), max_hp)
    st = st.replace(hp=_set_mon(_set_mon(st.hp, foe, them, jnp.minimum(mean, their_max), split), side, me, mine,
                                healed | split),
                    roosted=_set_side(st.roosted, side, True, roost))
    return _keep((st, field | modify | sap | split, sap))


def _weight(st: BattleState, side, k):
    """int32[B]: ``getWeight()`` of ``side``'s Pokémon ``k`` (its species' hectograms, at least 1; nothing
    here modifies it). Looked up for the two Pokémon a move reads, not the batch's every Pokémon: on the TPU
    v5e the species -> weight gather of a whole [B, 2, 6] team took 18 % of a turn."""
    return jnp.maximum(tables.take_rows(tables.load().weight_hg, _mon(st.species, side, k)), 1)


def _power(st: _Turn, side, me, foe, them, rule, base, tera_blast, foe_moved, hit_by_foe, type_mod):
    """The base power, Physical category and fixed damage of ``POWER_RULES``'s moves (``rule``; -1:
    none, the data's ``base`` power), read at the hit; ``foe_moved``: the foe's move action ran earlier
    this turn (Payback), ``hit_by_foe``: it damaged this user (Avalanche), ``type_mod``: the move's effectiveness on
    the target. Returns ``(power, physical, fixed, user stats)``."""
    stats, stages = _mon(st.stats, side, me), _side(st.boosts, side)
    user_status, foe_status = _mon(st.status, side, me), _mon(st.status, foe, them)
    w_me, w_them = _weight(st, side, me), _weight(st, foe, them)
    bands = sum((w_them >= w).astype(jnp.int32) for w in (100, 250, 500, 1000, 2000))
    ratio = sum((w_me >= k * w_them).astype(jnp.int32) for k in (2, 3, 4, 5))
    doubled = ((rule == POWER_NO_ITEM) | ((rule == POWER_FACADE) & (user_status != 0) & (user_status != SLP))
               | ((rule == POWER_HEX) & (foe_status != 0)) | ((rule == POWER_PAYBACK) & foe_moved)
               | ((rule == POWER_AVALANCHE) & hit_by_foe) | ((rule == POWER_LASH_OUT) & _side(st.lowered, side))
               | ((rule == POWER_TANTRUM) & _side(st.move_failed_last, side)))
    power = jnp.where(doubled, 2 * base, base)
    power = jnp.where(rule == POWER_STORED, base + 20 * jnp.maximum(stages, 0).sum(-1), power)
    power = jnp.where(rule == POWER_WEIGHT, 20 + 20 * bands, power)
    power = jnp.where(rule == POWER_HEAVY, 40 + 20 * ratio, power)
    power = jnp.where(rule == POWER_RAGE_FIST, jnp.minimum(350, 50 + 50 * _mon(st.times_attacked, side, me)), power)
    hp = _mon(st.hp, side, me)
    power = jnp.where(rule == POWER_USER_HP, jnp.maximum(base * hp // jnp.maximum(_mon(st.max_hp, side, me), 1), 1),
                      power)
    # the BasePower event's modify: trunc((trunc(power * 5461) + 2047) / 4096)
    power = jnp.where((rule == POWER_SUPER_BOOST) & (type_mod > 0), (power * 5461 + 2047) // 4096, power)
    fixed = jnp.where(rule == POWER_HALF_HP, jnp.maximum(_mon(st.hp, foe, them) // 2, 1), 0)
    fixed = jnp.where(rule == POWER_ENDEAVOR, _mon(st.hp, foe, them) - hp, fixed)
    # Tera Blast's and Photon Geyser's onModifyMove: Physical when getStat('atk') > getStat('spa') with stages, no
    # modifiers
    physical = (tera_blast | (rule == POWER_PHOTON)) & (damage.boosted_stat(stats[..., 0], stages[..., 0])
                                                        > damage.boosted_stat(stats[..., 2], stages[..., 2]))
    return _keep((power, physical, fixed, stats))


def _hit_threshold(accuracy_, acc_stage, eva_stage):
    """A ``multiaccuracy`` move's later hits: ``randomChance(accuracy, 100)`` with the accuracy scaled by
    the user's accuracy stage, then the target's evasion stage, each by ``[1, 4/3, 5/3, 2, 7/3, 8/3, 3]``
    (multiplied or divided, in floating point): ``random(100) < a`` is ``random(100) < ceil(a)``, here
    ``ceil(accuracy * n / d)`` of the exact fractions (the floats differ from them only above 100 for the
    format's accuracies: ``test_l3_multihit``)."""
    a, e = jnp.clip(acc_stage, -6, 6), jnp.clip(eva_stage, -6, 6)
    num = jnp.where(a > 0, 3 + a, 3) * jnp.where(e < 0, 3 - e, 3)
    den = jnp.where(a < 0, 3 - a, 3) * jnp.where(e > 0, 3 + e, 3)
    return (accuracy_ * num + den - 1) // den


def _later_hits(st: _Turn, foe, them, m, x, move, count, multi, sub_left, cache, args: dict, power, eff, acc_stage,
                eva_stage, sort_draws):
    """Hits 2 to ``count`` of a multi-hit move where ``multi`` (its first hit dealt damage), as
    ``hitStepMoveHitLoop`` runs them: each one (``multiaccuracy``: its accuracy check first, a miss ending
    the loop) draws its crit (``randomChance(1, 24)``, none for ``willCrit``) and roll ``random(16)``, then its
    ``ModifyDamage`` sort's ``sort_draws`` (the screens on the field), deals its damage and runs an ``Update`` (a draw
    on a speed tie); the loop stops with the target at 0
    HP. While the target's substitute stands (``sub_left``: its HP after the first hit, 0: none) a hit goes
    to it (its ``onTryPrimaryHit``: the same draws, at most its HP, breaking it at 0) and the next ones to the
    Pokémon. The hits' draws are a fixed pattern, so they are computed at once over a hit axis of
    ``MAX_HITS - 1``: each hit's PRNG state by a jump from the first one, its damage by one ``damage.damage``
    vectorised over the axis (``row``, ``eff``: the first hit's gathers), then which hits happened from the
    running HP and accuracy checks, and one jump past all the draws made. ``args``: the first hit's
    arguments of ``damage.damage`` (the Stellar mask from before the move: ``move.stellarBoosted``);
    ``power``: its base power (Triple Axel's later ones are ``power_per_hit * hit``). Returns the state, the
    later hits that landed [B], whether the last of them went to the substitute [B] and whether a later hit's
    accuracy check failed [B]."""
    st = _drawing(st)
    h = jnp.arange(2, MAX_HITS + 1)                                               # [H]: hits 2..MAX_HITS
    ratio = jnp.clip(m.crit_ratio, 0, 4)
    crit_draw = (ratio > 0) & ~m.will_crit
    acc_draw = x.multiacc & (m.accuracy != 0) & ~_side(st.glaive, foe)          # glaiverush: no check
    tie = cache[..., 0] == cache[..., 1]
    # each later hit's draws: accuracy, crit, roll, its ModifyDamage sort's, its Update's speed tie (the state is
    # past the first's): the next outputs of the PRNG at once (one jump per output), each hit's from static strided
    # slices of them, one per number of draws a hit and offset (no gather)
    per = acc_draw.astype(jnp.int32) + crit_draw.astype(jnp.int32) + 1 + sort_draws + tie.astype(jnp.int32)
    most_per = 4 + damage.MAX_SORT_DRAWS
    most = (MAX_HITS - 1) * most_per + 1
    out, low = _keep(prng.jump_words(st.rng, most))                             # [B, most]: after 1..most draws
    wide = lambda v: jnp.broadcast_to(v[..., None], per.shape + (MAX_HITS - 1,))
    u_acc = u_crit = u_roll = jnp.zeros(wide(per).shape, jnp.uint32)
    roll_at = acc_draw.astype(jnp.int32) + crit_draw.astype(jnp.int32)          # the roll's offset in a hit's draws
    for step_ in range(1, most_per + 1):
        pick = lambda off: jax.lax.slice_in_dim(out, off, off + step_ * (MAX_HITS - 2) + 1, step_, axis=-1)
        this = wide(per == step_)
        u_acc = jnp.where(this, pick(0), u_acc)
        for off in range(min(3, step_)):
            if off < 2:                                                          # the crit's offset: after the accuracy
                u_crit = jnp.where(this & wide(acc_draw.astype(jnp.int32) == off), pick(off), u_crit)
            u_roll = jnp.where(this & wide(roll_at == off), pick(off), u_roll)
    u_acc, u_crit, u_roll = _keep((u_acc, u_crit, u_roll))
    ok = ~wide(acc_draw) | (prng.scale(u_acc, 100) < wide(_hit_threshold(m.accuracy, acc_stage, eva_stage)))
    crit = wide(m.will_crit) | (wide(crit_draw) & (prng.scale(u_crit, wide(damage.crit_denominator(ratio))) < 1))
    roll = prng.scale(u_roll, 16)
    powers = jnp.where(wide(x.power_per_hit > 0), x.power_per_hit[..., None] * h, wide(power))
    crit, roll, powers, ok, args = _keep((crit, roll, powers, ok, args))
    one = lambda c_, r_, p_: damage.damage(move, **args, crit=c_, roll=r_, power=p_, row=m, eff=eff).damage
    dmg = _keep(jax.vmap(one, in_axes=-1, out_axes=-1)(crit, roll, powers))      # [B, H]
    # the substitute's HP before each hit (every hit before it broke went to it), the hits into the Pokémon
    sub_before = jnp.maximum(sub_left[..., None] - (jnp.cumsum(dmg, axis=-1) - dmg), 0)
    to_sub = sub_before > 0
    to_mon = jnp.where(to_sub, 0, dmg)
    hp = _mon(st.hp, foe, them)
    before = hp[..., None] - (jnp.cumsum(to_mon, axis=-1) - to_mon)               # the HP before each hit
    reach = wide(multi) & (h <= count[..., None]) & (before > 0)                  # the loop gets to the hit
    landed = jnp.cumprod((reach & ok).astype(jnp.int32), axis=-1) == 1
    tried = reach & jnp.concatenate([wide(multi)[..., :1], landed[..., :-1]], axis=-1)
    landed, tried = _keep((landed, tried))
    missed = (tried & ~ok).any(-1)
    draws = landed.sum(-1) * per + missed.astype(jnp.int32)
    total = jnp.sum(jnp.where(landed, to_mon, 0), axis=-1)
    taken = jnp.sum(jnp.where(landed & to_sub, jnp.minimum(dmg, sub_before), 0), axis=-1)
    at_draws = jnp.arange(1, most + 1) == draws[..., None]
    after = jnp.stack([jnp.sum(jnp.where(at_draws, w, 0), axis=-1, dtype=jnp.uint32) for w in (out, low)], axis=-1)
    st = st.replace(rng=jnp.where((draws > 0)[..., None], after, st.rng),
                    hp=_set_mon(st.hp, foe, them, jnp.maximum(hp - total, 0), multi),
                    sub_hp=_set_side(st.sub_hp, foe, sub_left - taken, multi & (sub_left > 0)))
    later = landed.sum(-1)                                   # the landed hits are the first ones (a prefix)
    last_to_sub = (landed & to_sub & (h == later[..., None] + 1)).any(-1)
    return _keep((st, later, last_to_sub, missed))


def _drag_in(st: BattleState, side, on, cache):
    """runAction's ``dragIn`` for ``side`` (its forceSwitchFlag) after a move action: ``random(n)`` over the
    ``n`` Pokémon of ``side.pokemon`` after the active that have not fainted, in that order
    (``BattleState.position``; ``prng.sample``, a draw even when ``n`` is 1), then ``switchIn`` of that one with
    its runSwitch at once (no BeforeSwitchOut, no Update of its own; its entry hazards, faintMessages). Returns
    the state and the speeds Showdown has cached after it (the Pokémon dragged in: its speed stat)."""
    benched = _side(masks.benched(st), side)
    place = _side(st.position, side)                                    # [B, 6]
    # each benched Pokémon's rank among the benched in side.pokemon order
    rank = jnp.sum(benched[..., None, :] & (place[..., None, :] < place[..., :, None]), axis=-1)
    st = _drawing(st)
    rng, r = prng.random_int(st.rng, jnp.maximum(jnp.sum(benched, axis=-1), 1), when=on)
    st = st.replace(rng=rng)
    slot = jnp.argmax(benched & (rank == r[..., None]), axis=-1).astype(jnp.int32)
    spe = _mon(st.stats[..., 4], side, slot)
    drag_speed = jnp.where(jnp.arange(2) == side[..., None], spe[..., None], cache)
    st = _switch_in(st, side, slot, on, jnp.zeros_like(on), dragged=(on, drag_speed))
    return st, jnp.where(on[..., None], drag_speed, cache)


def _use_move(st: BattleState, side, slot, on, foe_attacks, foe_moved, hit_by_foe, will_act, struggling, foe_fresh):
    """``side``'s active uses its move ``slot`` (Struggle when no move has PP) on the foe: its status
    first (``BeforeMove``: sleep's turns, the thaw draw, full paralysis), then PP, type and powder
    immunity, accuracy, crit and roll, HP, stat stages, statuses and their secondaries, thawing,
    Struggle's recoil, fainting and the end of the battle, with the draws between. ``foe_attacks``: the
    foe's action still queued this turn is a damaging move (Sucker Punch's ``onTry``); ``foe_moved``: the
    foe's move action ran earlier this turn (Payback); ``hit_by_foe``: and damaged this user (Avalanche);
    ``will_act``: an action is still queued after this one (Protect's ``queue.willAct()``; in singles the
    foe's move action: ``queue.willMove(target)``); ``struggling`` bool[B, 2]: each side's move action is
    Struggle (chosen so at the decision: a Taunt landing before it moves changes no choice);
    ``foe_fresh``: the foe switched in this turn (its ``activeTurns`` is 0)."""
    t = tables.load()
    # the speeds every eachEvent of this move sorts by: Showdown refreshed them before the move
    # (the commit or the Gen 8 re-sort) and not again until the move's action is over
    st = st.replace(webbed=st.webbed & ~on[..., None])       # the re-sort before a move: updateSpeed
    cache = _speeds(st)
    foe = 1 - side
    me, them = _side(st.active, side), _side(st.active, foe)
    on = on & (_mon(st.hp, side, me) > 0)                     # a fainted Pokémon's move does not run
    struggle = _side(struggling, side)
    # Encore's OverrideAction (runMove, before BeforeMove; not for Struggle): the encored move instead of the
    # one chosen before it landed
    slot = jnp.where((_side(st.encore, side) > 0) & ~struggle, _side(st.encore_slot, side), slot)
    # a lockedmove holder's choice is its locked move (``chooseMove``), which spends no PP
    locked = _side(st.locked, side) > 0
    slot = jnp.where(locked, _side(st.locked_slot, side), slot)
    # a twoturnmove holder's too (its onLockMove: the charging move), which spends no PP either
    charging = _side(st.charge, side) > 0
    slot = jnp.where(charging, _side(st.charge_slot, side), slot)
    moves = _mon(st.moves, side, me)
    chosen = S.select(moves, slot)
    chosen = jnp.where(struggle, t.move_index["struggle"], chosen)
    # the columns BeforeMove and Sleep Talk read of the chosen move (the tables' rows are those of the move that
    # runs: Sleep Talk's called move)
    talk_cols = _talk_columns()
    chosen_row = _before_move_table().at(chosen)
    defrost, usable_asleep = chosen_row.defrost, chosen_row.sleep_usable
    # runMove counts the move action (activeMoveActions) before BeforeMove; Fake Out's onTry fails
    # after a first one
    was_moved = _side(st.moved, side)
    st = st.replace(moved=_set_side(st.moved, side, True, on))
    # glaiverush's BeforeMove (priority 100, the first): its volatile removed
    st = st.replace(glaive=_set_side(st.glaive, side, False, on))
    # mustrecharge's BeforeMove (priority 11, next): the recharge, its volatile removed, no other BeforeMove
    # handler runs (nothing counted or drawn)
    recharges = on & _side(st.recharge, side)
    st = st.replace(recharge=_set_side(st.recharge, side, False, recharges))
    on = on & ~recharges

    # BeforeMove (before the PP), its handlers by priority: slp and frz (10), flinch (8), confusion (3),
    # par (1), the first one returning false ending it. Sleep counts its turns down and wakes at 0; a
    # frozen user thaws with a defrost move (at its ModifyMove, no draw) or a random(5) of 0; a flinched
    # one (a flinch secondary earlier this turn) cannot move; a confused one counts its turns down (at 0
    # the volatile ends, no draw), else hits itself on a random(100) below 33 (randomChance(33, 100)):
    # getConfusionDamage, 40 base power typeless, its own Atk and Def with their stages, no crit, no
    # burn, the damage roll random(16), at least 1; a paralysed one is fully paralysed on a random(4)
    # of 0. A Pokémon that cannot move spends no PP.
    status, count = _mon(st.status, side, me), _mon(st.status_count, side, me)
    asleep, frozen, paralysed = on & (status == SLP), on & (status == FRZ), on & (status == PAR)
    flinched = on & _side(st.flinch, side)
    wakes = asleep & (count <= 1)
    # throatchop and healblock: two BeforeMove handlers of priority 6 that tie (their sort's draw comes first)
    chop, block = _side(st.throat_chop, side) > 0, _side(st.heal_block, side) > 0
    st = _skip_draw(st, on & chop & block)
    st = _drawing(st)
    rng, thaw = prng.random_int(st.rng, 5, when=frozen & ~defrost)
    thaws = frozen & (defrost | (thaw == 0))
    # Taunt's (priority 5, after flinch's): a status move chosen before the taunt landed ("cant")
    taunted = on & (_side(st.taunt, side) > 0) & chosen_row.status & ~struggle
    # Throat Chop's and Heal Block's (priority 6): a sound move, a move with the heal flag
    taunted = taunted | (on & ((chop & chosen_row.sound) | (block & chosen_row.heal)) & ~struggle)
    held = (asleep & ~wakes & ~usable_asleep) | (frozen & ~thaws) | flinched | taunted   # Sleep Talk: sleepUsable
    time = _side(st.confusion, side)
    confused = on & ~held & (time > 0)
    rolls = confused & (time > 1)
    rng, r = prng.random_int(rng, 100, when=rolls)
    self_hit = rolls & (r < 33)
    rng, roll = prng.random_int(rng, 16, when=self_hit)
    stats, stages, user_hp = _mon(st.stats, side, me), _side(st.boosts, side), _mon(st.hp, side, me)
    attack = damage.boosted_stat(stats[..., 0], stages[..., 0])
    defense = damage.boosted_stat(stats[..., 1], stages[..., 1])
    lvl = (2 * _mon(st.level, side, me) // 5 + 2).astype(attack.dtype)
    base = (lvl * 40 * attack // jnp.maximum(defense, 1) // 50 + 2) & 0xFFFF
    hurt = jnp.maximum(base * (100 - roll).astype(base.dtype) // 100, 1).astype(jnp.int32)
    rng, para = prng.random_int(rng, 4, when=paralysed & ~flinched & ~taunted & ~self_hit)
    cant = held | self_hit | (paralysed & (para == 0))
    st = st.replace(rng=rng, status_count=_set_mon(st.status_count, side, me, count - 1, asleep),
                    confusion=_set_side(st.confusion, side, time - 1, confused),
                    hp=_set_mon(st.hp, side, me, jnp.maximum(user_hp - hurt, 0), self_hit))
    st = _cure(st, side, me, wakes | thaws)
    # the action's faintMessages: the user fainted by its own confusion; its side out: the foe wins
    ko = self_hit & (_mon(st.hp, side, me) == 0)
    lost = ko & (_left(st, side) == 0)
    st = _clear_volatiles(st, side, me, ko)
    st = st.replace(faint_speed=_set_side(st.faint_speed, side, stats[..., 4], ko),
                    winner=jnp.where(lost, foe, st.winner), request=jnp.where(lost, REQUEST_ENDED, st.request))
    acting = (on & ~lost) | recharges                         # the action's Update follows (a recharge's too)
    # MoveAborted: twoturnmove's handler removes it (its onEnd the charging move's volatile)
    aborted = on & cant
    st = st.replace(charge=_set_side(st.charge, side, 0, aborted), charged=_set_side(st.charged, side, False, aborted))
    # the move's result (``moveThisTurnResult``) afresh where the action runs: false where BeforeMove stopped it (a
    # recharge's BeforeMove gives null); set below where a later step fails it
    st = st.replace(move_failed=_set_side(st.move_failed, side, aborted, on | recharges))
    on = on & ~cant
    ran = on                                                   # runMove goes on to AfterMove
    st, on, acting = _keep((st, on, acting))

    pp = _mon(st.pp, side, me)
    pay = on & ~struggle & ~locked & ~charging                 # Struggle and a locked move cost no PP
    pp = jnp.where((jnp.arange(4) == slot[..., None]) & pay[..., None], pp - 1, pp)
    st = st.replace(pp=_set_mon(st.pp, side, me, pp, pay),
                    last_move=_set_side(st.last_move, side, jnp.where(struggle, 4, slot), on))   # moveUsed
    # useMoveInner's ModifyMove event: throatchop's and healblock's handlers tie
    st = _skip_draw(st, on & chop & block)
    # Sleep Talk: its onTry fails unless its user is asleep (one that woke in BeforeMove is not), then its onHit samples
    # one of the user's moves that may be called (random(n) over them in slot order, PP or not; none: it fails), and
    # useMove runs it: the rows below are the called move's, its PP is not spent
    talk = on & usable_asleep
    callable_ = (moves != 0) & ~_one_of(moves, np.flatnonzero(~talk_cols["callable"][1:]) + 1)     # [B, 4]
    n_callable = callable_.sum(-1)
    calls = talk & (_mon(st.status, side, me) == SLP) & (n_callable > 0)
    st = _drawing(st)
    rng, pick = prng.random_int(st.rng, jnp.maximum(n_callable, 1), when=calls)
    rank = jnp.cumsum(callable_.astype(jnp.int32), axis=-1) - 1
    called = jnp.sum(jnp.where(callable_ & (rank == pick[..., None]), moves, 0), axis=-1)
    move = jnp.where(calls, called, chosen)
    st = st.replace(move_failed=_set_side(st.move_failed, side, True, talk & ~calls))   # Sleep Talk's onTry, onHit
    on = on & (~talk | calls)
    st, move, on, calls = _keep((st.replace(rng=rng), move, on, calls))
    # the move's rows of the tables, one gather each
    m, b, x = tables.move_table().at(move), _boost_table().at(move), _status_table().at(move)
    prim, selfb, has_self, sec, sec_self, chance, has_sec = (b.prim, b.self, b.has_self, b.sec, b.sec_self,
                                                             b.chance, b.has_sec)
    inflict, sec_status, sec_chance = x.inflict, x.sec_status, x.sec_chance
    powder, thaws_target, flinch_chance = x.powder, x.thaws_target, x.flinch_chance
    flinch_second, first_turn, confuse_chance = x.flinch_second, x.first_turn, x.confuse_chance
    self_move = m.self_status
    rule = x.power_rule
    move_slot = jnp.argmax(moves == move[..., None], axis=-1).astype(jnp.int32)   # the running move's slot (locks)
    too_late = on & first_turn & was_moved
    lay = x.lay
    # an entry hazard: the foe's side; Haze, the weather moves: the field; Heal Bell, the screens: the user's side
    side_move = lay.any(-1) | x.haze | x.heal_bell | (x.screen != 0) | (x.sets_weather != 0)
    rain, sun, snow = st.weather == S.RAIN, st.weather == S.SUN, st.weather == S.SNOW
    # the called move's useMoveInner: its ModifyMove event (throatchop's and healblock's handlers tie), whose
    # Throat Chop and Heal Block handlers stop a sound move, a move with the heal flag (nothing drawn; Sleep
    # Talk's own Updates still run)
    st = _skip_draw(st, calls & chop & block)
    # (Sleep Talk's result is the called move's: useMove's, which sets it last)
    stopped = calls & ((chop & x.sound) | (block & x.heal))
    st = st.replace(move_failed=_set_side(st.move_failed, side, True, stopped))
    on = on & ~stopped
    # a two-turn move's onTryMove (before the target checks: a fainted foe too): its volatile there, removed, the
    # move runs; else the charge (Meteor Beam's +1 Sp. Atk, twoturnmove and the move's volatile) and nothing more
    two_turn = on & _one_of(move, [t.move_index[k] for k in charge_moves()])
    fires = two_turn & (_side(st.charged, side) | (x.solar & sun))          # Solar Beam: no charging turn in sun
    charges = two_turn & ~fires
    before = _side(st.boosts, side)
    delta = sum(jnp.where((move == t.move_index[k])[..., None],
                          jnp.asarray([CHARGE_MOVES[k].get(b, 0) for b in tables.BOOSTS], jnp.int32), 0)
                for k in charge_moves() if CHARGE_MOVES[k])
    raised, _ = _boost(before, delta, charges)
    st = _mark_boost(st, side, before, raised)
    st = st.replace(boosts=_set_side(st.boosts, side, raised, charges),
                    charge=_set_side(st.charge, side, 2, charges),
                    charged=_set_side(st.charged, side, charges, two_turn),
                    charge_slot=_set_side(st.charge_slot, side, move_slot, charges))
    on = on & ~charges
    # a foe fainted earlier in the turn (by Struggle's recoil, entry hazards): the move fails with no
    # target, no draw (a move targeting its user or the foe's side still runs); Fake Out's,
    # Poltergeist's and Sucker Punch's onTry fail before the hit steps (no draw)
    tried = (too_late | (rule == POWER_FAIL) | ((rule == POWER_SUCKER) & ~foe_attacks)
             | ((x.species_only != 0) & (_mon(st.species, side, me) != x.species_only)))
    # Explosion's faint (after TryMove, before the target checks): its user at 0 HP, still active until the
    # faintMessages that follow (the hit loop's, or runMove's where no hit loop runs)
    explodes = on & ~tried & x.explode
    st = st.replace(hp=_set_mon(st.hp, side, me, 0, explodes))
    aimed = on
    on = on & ((_mon(st.hp, foe, them) > 0) | self_move | side_move) & ~tried
    st = st.replace(move_failed=_set_side(st.move_failed, side, True, aimed & ~on))   # an onTry, no target: false
    # Protect's onPrepareHit (after the PP, before the hit steps): it fails unless an action is still
    # queued (``queue.willAct``), else runs StallMove: with the stall volatile up, ``randomChance(1,
    # counter)``, a failure deleting the volatile. A success adds the protect volatile and the stall one
    # (counter 3) or restarts it (counter tripled up to 729, duration 2 again); the hit's Updates run
    stall = _side(st.stall, side)
    stalling = on & x.stalling
    rolls = stalling & will_act & (stall > 0)
    st = _drawing(st)
    rng, r = prng.random_int(st.rng, jnp.maximum(stall, 1), when=rolls)
    guarded = stalling & will_act & (~rolls | (r == 0))
    counter = jnp.where(stall == 0, 3, jnp.where(stall < 729, stall * 3, stall))
    st = st.replace(rng=rng, stall=_set_side(st.stall, side, jnp.where(guarded, counter, 0), guarded | (rolls & (r != 0))),
                    protect=_set_side(st.protect, side, True, guarded), stalled=_set_side(st.stalled, side, True, guarded))
    # the foe's protect volatile (its onTryHit, the TryHit step: before the type immunity and the
    # accuracy, no draw) stops a move with the ``protect`` flag aimed at it
    blocked = on & x.protectable & ~self_move & ~side_move & _side(st.protect, foe)
    # Substitute's onTryHit (the TryHit step, no draw): NOT_FAIL with a substitute up, or at most a quarter
    # of its user's max HP left (``hp <= maxhp / 4``), or a max HP of 1
    my_sub, foe_sub = _side(st.sub_hp, side), _side(st.sub_hp, foe)
    user_max = _mon(st.max_hp, side, me)
    weak = (my_sub > 0) | (4 * _mon(st.hp, side, me) <= user_max) | (user_max == 1)
    # a failed Protect (its onPrepareHit) fails the move, as does Substitute's failure (its own onTryHit's NOT_FAIL, read by
    # spreadMoveHit's TryHit as a failure); the foe's Protect blocking it (the TryHit step's NOT_FAIL) gives null
    st = st.replace(move_failed=_set_side(st.move_failed, side, True, (stalling & ~guarded) | (on & x.makes_sub & weak)))
    on = on & ~(stalling & ~guarded) & ~blocked & ~(x.makes_sub & weak)

    a_types, d_types = _mon(st.types, side, me), _unroosted(_mon(st.types, foe, them), _side(st.roosted, foe))
    a_tera, d_tera = _tera(st, side, me), _tera(st, foe, them)
    # Tera Blast's onModifyType: its Terastallized user's Tera type
    tera_blast = (rule == POWER_TERA_BLAST) & (a_tera != tables.TYPE_NONE)
    first_type = damage.current_types(a_types, a_tera)[0]
    # Weather Ball's onModifyType: the weather's type
    ball = x.weather_ball & (st.weather != S.WEATHER_NONE)
    ball_type = tables.small_lookup(np.asarray([0] + [t.type_index[WEATHER_BALL_TYPES[w]]
                                                      for w in range(1, len(S.WEATHERS))], np.int32), st.weather)
    move_type = jnp.where(struggle, tables.TYPE_NONE,                                          # Struggle: "???"
                          jnp.where(tera_blast, a_tera, jnp.where(rule == POWER_REVELATION, first_type,
                                                                  jnp.where(ball, ball_type, m.type))))
    eff = damage.effectiveness(move_type, d_types, d_tera)   # (immune, type_mod), for the later hits too
    # Freeze-Dry's onEffectiveness: each Water type of the target's current ones counts as weak (+1, not -1)
    foe_types = damage.current_types(d_types, d_tera)     # the target's current types (Tera, Roost), for the checks below
    water = sum((k == t.type_index["Water"]).astype(jnp.int32) for k in foe_types)
    eff = (eff[0], jnp.where(x.water_super, jnp.clip(eff[1] + 2 * water, -6, 6), eff[1]))
    immune = eff[0] & ~m.ignore_immunity
    # powder moves: Grass types are immune (hitStepTryImmunity, before the accuracy check)
    powder_immune = _status_tables()[-1]
    grass = jnp.any(jnp.stack([tables.small_lookup(powder_immune, k) for k in foe_types]), axis=0)
    immune = immune | (powder & ~self_move & grass)
    # Leech Seed's onTryImmunity: a Grass type (its current types) is immune, before the accuracy
    grass_type = _has_type(foe_types, "Grass")
    immune = immune | (x.leech & grass_type)
    # Endeavor's onTryImmunity: its user must have less HP than the target
    immune = immune | ((rule == POWER_ENDEAVOR) & (_mon(st.hp, side, me) >= _mon(st.hp, foe, them)))
    a_boosts, d_boosts = _side(st.boosts, side), _side(st.boosts, foe)
    # the onModifyMove of Thunder, Hurricane, Bleakwind Storm (no accuracy check in rain; the first two 50 in sun) and
    # Blizzard (none in snow); then the target's glaiverush volatile: its onAccuracy, true
    foe_glaive = _side(st.glaive, foe)
    sure = jnp.where((x.rain_sure & rain) | (x.snow_sure & snow) | foe_glaive, 0,
                     jnp.where(x.sun_half & sun, 50, -1))
    rng, hit = accuracy.hits(st.rng, move, a_boosts[..., 5], d_boosts[..., 6], a_types, a_tera, sure)
    rng = jnp.where((on & ~immune)[..., None], rng, st.rng)
    lands = on & ~immune & hit
    st = st.replace(move_failed=_set_side(st.move_failed, side, True, on & ~lands))     # immune or missed: false
    # Brick Break's and Psychic Fangs' own onTryHit (spreadMoveHit: after the accuracy, before a substitute's
    # TryPrimaryHit): the target side's screens removed
    st = st.replace(screens=_set_side(st.screens, foe, jnp.zeros_like(st.screens[..., 0, :]), lands & x.breaks_screens))
    # hitStepBreakProtect (after the accuracy): a breaksProtect move ends the target's protect volatile, and with it
    # the stall one
    broke = lands & x.breaks_protect & _side(st.protect, foe)
    st = st.replace(protect=_set_side(st.protect, foe, False, broke), stall=_set_side(st.stall, foe, 0, broke))
    # onMoveFail: missed, immune or protected against (a target there)
    crash = (on | blocked) & x.crash & ~lands
    # the foe's substitute (its onTryPrimaryHit, after the accuracy): a status move aimed at it without
    # ``bypasssub`` fails (getDamage gives nothing; its hit loop still runs its two Updates), a damaging one
    # hits it instead (below)
    behind = (foe_sub > 0) & ~x.bypasssub & ~self_move & ~side_move
    # (Yawn's own onTryHit, before the substitute's: it fails on a target with a status, no Update)
    stopped_by_sub = lands & behind & (m.category == tables.STATUS) & ~(x.yawn & (_mon(st.status, foe, them) != 0))
    lands = lands & ~stopped_by_sub
    # the hit loop's count (hitStepMoveHitLoop, after the accuracy check): a [2, 5] move samples it
    rng, pick = prng.random_int(rng, len(SAMPLED_HITS), when=lands & x.hits_sampled)
    count = jnp.where(x.hits_sampled, tables.small_lookup(np.asarray(SAMPLED_HITS), pick), x.hits)
    rng, lands, count, crash = _keep((rng, lands, count, crash))
    d_stats = _mon(st.stats, foe, them)
    power, physical, fixed, a_stats = _power(st, side, me, foe, them, rule, m.power, tera_blast, foe_moved, hit_by_foe,
                                             eff[1])
    # Weather Ball's onModifyMove doubles its power in weather; Solar Beam's onBasePower halves it (modify) in rain, snow
    power = jnp.where(ball, 2 * power, jnp.where(x.solar & (rain | snow), (power * 2048 + 2047) // 4096, power))
    # snow's onModifyDef: the target's Defense if an Ice type (current types; ModifyDef, not Body Press's user's: its
    # attack runs ModifyAtk)
    ice_def = snow & _has_type(foe_types, "Ice")
    # a screen on the target's side (onAnyModifyDamage, not on a critical hit): Reflect for a physical move, Light
    # Screen for a special one, Aurora Veil for either (one halving even with both up)
    screens = _side(st.screens, foe) > 0
    is_physical = physical | (m.category == tables.PHYSICAL)
    screened = ((is_physical & screens[..., 0]) | (~is_physical & (m.category == tables.SPECIAL) & screens[..., 1])
                | screens[..., 2])
    # every screen on the field (both sides) is a handler of each hit's ModifyDamage event, all tied in its speed sort
    sort_draws = jnp.maximum((st.screens > 0).sum((-2, -1), dtype=jnp.int32) - 1, 0)
    # the weather's onWeatherModifyDamage: rain 1.5 on Water, 0.5 on Fire; sun the other way round, and 1.5 on Hydro
    # Steam
    water, fire = move_type == t.type_index["Water"], move_type == t.type_index["Fire"]
    weather_mod = jnp.where((sun & x.sun_boosted) | (rain & water) | (sun & fire), 6144,
                            jnp.where((rain & fire) | (sun & water), 2048, 4096))
    user_status = _mon(st.status, side, me)
    burned, stellar = (user_status == BRN) & (rule != POWER_FACADE), _mon(st.stellar, side, me)
    rng2, dmg, _ = damage.hit(rng, move, _mon(st.level, side, me), a_stats, a_boosts[..., :5],
                              a_types, a_tera, burned, d_stats,
                              d_boosts[..., :5], d_types, d_tera, stellar, typeless=struggle,
                              power=power, move_type=move_type, physical=physical, fixed=fixed, eff=eff,
                              fickle=rule == POWER_FICKLE, weather_mod=weather_mod, ice_def=ice_def, screened=screened,
                              sort_draws=sort_draws, double_damage=foe_glaive)
    rng = jnp.where(lands[..., None], rng2, rng)
    rng, dmg = _keep((rng, dmg))
    st = st.replace(rng=rng, stellar=_set_mon(st.stellar, side, me, dmg.stellar, lands))
    struck = lands & (dmg.kind == damage.KIND_DAMAGE)
    # a damaging move into the foe's substitute (``HIT_SUBSTITUTE``): the damage (at most its HP) goes to
    # it, breaking it at 0; its recoil and drain come from that damage, right then; the Pokémon behind it
    # gets none of the move's effects (its secondaries still draw), its user's own stages and switch happen
    subbed = struck & behind
    dealt = struck & ~subbed
    sub_damage = jnp.minimum(dmg.damage, foe_sub)
    hp = _mon(st.hp, foe, them)
    lost = jnp.where(subbed, sub_damage, jnp.minimum(dmg.damage, hp))   # Pokemon.damage: at most the HP it had
    st = st.replace(hp=_set_mon(st.hp, foe, them, jnp.maximum(hp - dmg.damage, 0), dealt),
                    sub_hp=_set_side(st.sub_hp, foe, foe_sub - sub_damage, subbed))
    # Substitute: the volatile (floor(maxhp / 4) HP), then its onHit's directDamage of as much
    made = lands & x.makes_sub
    cost = jnp.maximum(user_max // 4, 1)
    st = st.replace(sub_hp=_set_side(st.sub_hp, side, user_max // 4, made),
                    hp=_set_mon(st.hp, side, me, _mon(st.hp, side, me) - cost, made))
    # drain (spreadDamage, before the move's effects and secondaries; from a substitute's damage
    # Math.ceil) and the healing status moves
    max_hp = _mon(st.max_hp, side, me)
    st, healed, sap = _hp_move(st, side, me, foe, them, x, lands, struck, lost, user_hp, max_hp, hp, _mon(st.max_hp, foe, them),
                          d_stats[..., 0], d_boosts, a_tera, subbed, st.weather)
    # Clear Smog's onHit: the target's stages cleared (not behind a substitute; fainted by the hit too)
    st = st.replace(boosts=_set_side(st.boosts, foe, jnp.zeros_like(_side(st.boosts, foe)), dealt & x.clear_smog))

    # Rest: its onTry (after the PP, no draw) fails on a sleeping user or one at full HP, the move failing before its
    # Updates; its onHit's setStatus('slp') replaces any other status (the Sleep Clause Mod lets a self-inflicted sleep
    # through), slp's onStart draws random(2, 5), then Rest sets the turns to 3 and heals to the max HP
    rests = (lands & x.rest & (_mon(st.status, side, me) != SLP) & (_mon(st.hp, side, me) < max_hp)
             & (_mon(st.hp, side, me) > 0))
    st = _drawing(st)
    rng, _ = prng.random_range(st.rng, 2, 5, when=rests)
    st = st.replace(rng=rng, status=_set_mon(st.status, side, me, SLP, rests),
                    status_count=_set_mon(st.status_count, side, me, 3, rests),
                    self_sleep=_set_mon(st.self_sleep, side, me, True, rests),
                    hp=_set_mon(st.hp, side, me, max_hp, rests))
    # Wish: addSlotCondition fails while a wish waits in the slot (the move fails, no Update); else its onStart keeps
    # half its user's max HP and the turn, (turn - 1) mod 256
    wishes = lands & x.wish & (_side(st.wish_hp, side) == 0)
    st = st.replace(wish_hp=_set_side(st.wish_hp, side, max_hp, wishes),
                    wish_turn=_set_side(st.wish_turn, side, (st.turn - 1) % 256, wishes))
    # Leech Seed: addVolatile fails on a target seeded already (the move fails, no Update)
    seeds = lands & x.leech & ~_side(st.seeded, foe) & (_mon(st.hp, foe, them) > 0)
    st = st.replace(seeded=_set_side(st.seeded, foe, True, seeds))
    # Yawn: its onTryHit fails on a target with a status, addVolatile on one yawning already (no Update)
    yawns = (lands & x.yawn & (_mon(st.status, foe, them) == 0) & (_side(st.yawn, foe) == 0)
             & (_mon(st.hp, foe, them) > 0))
    st = st.replace(yawn=_set_side(st.yawn, foe, 2, yawns))
    st = _keep(st)
    # a status move's boosts on its user, or its status on the target; when no stage moves or the
    # status is not set the move fails and its hit loop ends before its Updates
    # (Belly Drum's onHit first: its conditions, then its HP)
    user_now = _mon(st.hp, side, me)
    drums = lands & x.drum & (user_now * 2 > max_hp) & (_side(st.boosts, side)[..., 0] < 6) & (max_hp != 1)
    st = st.replace(hp=_set_mon(st.hp, side, me, user_now - max_hp // 2, drums))
    # No Retreat's onTry: it fails on a user holding its volatile (no stage, no Update); else the stages and the
    # volatile, which makes it succeed
    retreats = lands & x.no_retreat & ~_side(st.no_retreat, side)
    # Clangorous Soul's and Fillet Away's onTry (its user above its percentage of its max HP, the product exact in
    # integers), their boosts, then their onHit's HP cost where a stage moved
    souls = lands & x.soul & (100 * user_now > x.soul_percent * max_hp) & (max_hp != 1)
    mine, raised = _boost(_side(st.boosts, side), prim, lands & (prim != 0).any(-1) & (~x.drum | drums)
                          & (~x.no_retreat | retreats) & (~x.soul | souls))
    st = _mark_boost(st, side, _side(st.boosts, side), mine)
    st = st.replace(boosts=_set_side(st.boosts, side, mine, raised),
                    no_retreat=_set_side(st.no_retreat, side, True, retreats),
                    hp=_set_mon(st.hp, side, me, user_now - x.soul_percent * max_hp // 100, raised & x.soul))
    # Take Heart's cureStatus after its stages: it succeeds where either happened
    hearted = lands & x.take_heart & (_mon(st.status, side, me) != 0)
    st = st.replace(status=_set_mon(st.status, side, me, 0, hearted))
    # a status move's ``self`` stages (a non-Ghost's Curse): its selfDrops, random(100) drawn, then the stages;
    # the move does not fail when none moves (``moveData.self``), so its Updates run
    cursing = lands & has_self & (m.category == tables.STATUS)
    st = _drawing(_skip_draw(st, cursing))
    before = _side(st.boosts, side)
    mine, _ = _boost(before, selfb, cursing)
    st = _mark_boost(st, side, before, mine)
    st = st.replace(boosts=_set_side(st.boosts, side, mine, cursing))
    st, inflicted = _try_status(st, foe, them, inflict, lands & (inflict != 0))
    # Taunt's addVolatile: fails on a target taunted already; its onStart: a duration of 3, one more where
    # the target's move action has run this turn (not ``queue.willMove``) and it did not switch in this turn
    taunts = lands & x.taunting & (_side(st.taunt, foe) == 0)
    st = st.replace(taunt=_set_side(st.taunt, foe, jnp.where(will_act | foe_fresh, 3, 4), taunts))
    # Encore's addVolatile: fails on a target encored already; its onStart fails without a lastMove in a
    # move slot, on a ``failencore`` move and on one out of PP; a duration of 3, one more where the target's
    # move action has run this turn
    last = _side(st.last_move, foe)
    known = (last >= 0) & (last < 4)
    kept = jnp.clip(last, 0, 3)
    their_move = S.select(_mon(st.moves, foe, them), kept)
    their_pp = S.select(_mon(st.pp, foe, them), kept)
    encores = (lands & x.encoring & (_side(st.encore, foe) == 0) & known & (their_pp > 0)
               & ~_one_of(their_move, np.flatnonzero(_fail_encore())))
    st = st.replace(encore=_set_side(st.encore, foe, jnp.where(will_act, 3, 4), encores),
                    encore_slot=_set_side(st.encore_slot, foe, kept, encores))
    # Defog's onHit: -1 evasion to the target (up: the move needs it), both sides' hazards cleared;
    # it fails when neither happens
    fog = lands & x.defog
    parting = lands & x.switch_drop                           # Parting Shot's onHit: -1 Atk and SpA
    # (Defog's onHit lowers no evasion behind a substitute, which its ``bypasssub`` reaches)
    evasion, lowered = _boost(_side(st.boosts, foe), x.target_drop, (fog & (foe_sub == 0)) | sap | parting)
    st = _mark_boost(st, foe, _side(st.boosts, foe), evasion)
    cleared = fog & (st.hazards > 0).any((-2, -1))
    none = jnp.zeros_like(st.hazards)
    # (and the target side's screens, which make no success)
    st = st.replace(screens=_set_side(st.screens, foe, jnp.zeros_like(st.screens[..., 0, :]), fog))
    st = st.replace(boosts=_set_side(st.boosts, foe, evasion, lowered),   # lowered: only where it moved
                    hazards=jnp.where(fog[..., None, None], none, st.hazards),
                    hazard_order=jnp.where(fog[..., None, None], none, st.hazard_order))
    # Heal Bell's onHit: cureStatus of each Pokémon of the user's side not fainted (no draw; tryMoveHit runs no Update;
    # its success, a status cured, is the move's result)
    rings = lands & x.heal_bell
    cured = rings[..., None] & (_side(st.hp, side) > 0)
    bell = (cured & (_side(st.status, side) != 0)).any(-1)   # its onHit's result: a status cured
    st = st.replace(status=_set_side(st.status, side, jnp.where(cured, 0, _side(st.status, side)), rings))
    # Tidy Up's onHit: both actives' substitutes, then both sides' hazards removed (its stages ran above as
    # ``prim``); it succeeds where it removed one or a stage moved
    tidies = lands & x.tidy
    tidied = tidies & ((st.sub_hp > 0).any(-1) | (st.hazards > 0).any((-2, -1)))
    st = st.replace(sub_hp=jnp.where(tidies[..., None], 0, st.sub_hp),
                    hazards=jnp.where(tidies[..., None, None], none, st.hazards),
                    hazard_order=jnp.where(tidies[..., None, None], none, st.hazard_order))
    # Parting Shot never fails (its onHit returns nothing): both Updates run
    # a forced switch's didSomething: ``canSwitch`` of the target's side (the switch itself comes after the move)
    forcing = lands & x.force_switch & (_left(st, foe) > 1)
    succeeded = (raised | hearted | cursing | inflicted | (lowered & fog) | cleared | tidied | healed | parting | guarded | made | stopped_by_sub
                 | taunts | encores | rests | wishes | seeds | yawns | retreats | (forcing & (m.category == tables.STATUS)))
    # Haze's onHitField (tryMoveHit: no Update): every active's stages cleared (a fainted one's are already)
    st = st.replace(boosts=jnp.where((lands & x.haze)[..., None, None], 0, st.boosts))
    # the weather moves' setWeather (tryMoveHit: no Update): it fails on the weather already up; else the weather for
    # WEATHER_TURNS turns, then eachEvent('WeatherChange')
    weathered = lands & (x.sets_weather != 0) & (st.weather != x.sets_weather)
    st = st.replace(weather=jnp.where(weathered, x.sets_weather, st.weather),
                    weather_turns=jnp.where(weathered, S.WEATHER_TURNS, st.weather_turns))
    st = _each_event(st, weathered, cache)
    # a screen (tryMoveHit: no Update; Aurora Veil's onTry fails without snow): addSideCondition fails on it already up
    kind = jnp.arange(1, len(S.SCREENS) + 1) == x.screen[..., None]
    mine = _side(st.screens, side)
    screening = lands & (x.screen != 0) & (~x.needs_snow | snow) & ~(kind & (mine > 0)).any(-1)
    st = st.replace(screens=_set_side(st.screens, side, jnp.where(kind, S.SCREEN_TURNS, mine), screening))
    # an entry hazard (``tryMoveHit``: no accuracy check, no hit loop, so none of its Updates) adds a
    # layer to the foe's side; at its most layers ``addSideCondition`` fails, changing nothing
    layers, order_ = _lay(_side(st.hazards, foe), _side(st.hazard_order, foe), lay)
    layered = lands & lay.any(-1) & (layers != _side(st.hazards, foe)).any(-1)
    st = st.replace(hazards=_set_side(st.hazards, foe, layers, lands & side_move),
                    hazard_order=_set_side(st.hazard_order, foe, order_, lands & side_move))
    # the move's result: a damaging move fails where it dealt nothing (no damage kind); a status move where its effect
    # failed (Haze never does; an entry hazard where no layer was added; Heal Bell where no status was cured; one the
    # foe's substitute stopped does not fail)
    status_move = m.category == tables.STATUS
    done = succeeded | (lands & x.haze) | layered | bell | weathered | screening
    st = st.replace(move_failed=_set_side(st.move_failed, side, True,
                                          lands & jnp.where(status_move, ~done, dmg.kind != damage.KIND_DAMAGE)))
    up = _up(st)
    st = _each_event(st, succeeded, cache, up)                 # the Update after the hit
    st = _each_event(st, succeeded, cache, up)                 # the Update after the hit loop
    # a hit's selfDrops, then its secondary: each one random(100), drawn even when certain or when the
    # target fainted (a fainted Pokémon's stages do not move, nor does its status; the foe has not left
    # the field yet)
    st = _drawing(st)
    rng, self_roll = prng.random_int(st.rng, 100, when=struck & has_self)
    # Outrage's ``self``: the lockedmove volatile (its onStart's trueDuration draw; onRestart: the duration 2 again
    # while trueDuration >= 2), on the move's slot (Sleep Talk's called move: the user's own)
    locking = struck & _one_of(move, [t.move_index[k] for k in locked_moves()])
    starts = locking & (_side(st.locked, side) == 0)
    rng, true_turns = prng.random_range(rng, 2, 4, when=starts)
    restarts = locking & ~starts & (_side(st.locked_turns, side) >= 2)
    # Giga Impact's ``self``: the mustrecharge volatile (no draw)
    must = struck & _one_of(move, [t.move_index[k] for k in recharge_moves()])
    st = st.replace(rng=rng, locked=_set_side(st.locked, side, 2, starts | restarts),
                    locked_turns=_set_side(st.locked_turns, side, true_turns, starts),
                    locked_slot=_set_side(st.locked_slot, side, move_slot, starts),
                    recharge=_set_side(st.recharge, side, True, must),
                    glaive=_set_side(st.glaive, side, True, struck & x.glaive))      # Glaive Rush's self
    before = _side(st.boosts, side)
    mine, _ = _boost(before, selfb, struck & has_self & (self_roll < b.self_chance))
    st = _mark_boost(st, side, before, mine)
    has_status_sec, has_flinch = (sec_status != 0) | x.sec_sample, flinch_chance > 0
    rng, roll = _keep(prng.random_int(st.rng, 100, when=struck & (has_sec | has_status_sec | has_flinch
                                                                   | (confuse_chance > 0) | x.chopping | x.blocking
                                                                   | x.salting | x.shackling
                                                                   | x.empty_secondary)))
    lucky = struck & has_sec & (roll < chance)
    theirs, _ = _boost(_side(st.boosts, foe), sec, lucky & dealt & (_mon(st.hp, foe, them) > 0))
    st = _mark_boost(st, foe, _side(st.boosts, foe), theirs)
    before = mine
    mine, _ = _boost(mine, sec_self, lucky)
    st = _mark_boost(st, side, before, mine)
    st = st.replace(rng=rng, boosts=_set_side(_set_side(st.boosts, side, mine, struck), foe, theirs, dealt))
    # Tri Attack's and Dire Claw's secondary onHit: ``sample`` (random(3)) of its three statuses, drawn on a fainted
    # target too (trySetStatus then fails)
    status_sec = dealt & has_status_sec & (roll < sec_chance)
    st = _drawing(st)
    rng, pick = prng.random_int(st.rng, 3, when=status_sec & x.sec_sample)
    sampled = jnp.where(pick == 0, x.sec_choices[..., 0], jnp.where(pick == 1, x.sec_choices[..., 1], x.sec_choices[..., 2]))
    st = st.replace(rng=rng)
    st, _ = _try_status(st, foe, them, jnp.where(x.sec_sample, sampled, sec_status), status_sec)
    # a flinch secondary: addVolatile('flinch'), not on a fainted target (no draw); the Fangs' is their
    # second secondary, with a random(100) of its own after the status one's effect
    st = _drawing(st)
    rng, second = prng.random_int(st.rng, 100, when=struck & flinch_second)
    flinch_roll = jnp.where(flinch_second, second, roll)
    flinches = dealt & has_flinch & (flinch_roll < flinch_chance) & (_mon(st.hp, foe, them) > 0)
    # a confusion secondary: addVolatile('confusion') fails on a fainted or confused target (no draw),
    # else its onStart draws the turns random(2, 6)
    # (Alluring Voice's ``onHit``: only on a target whose stages rose this turn)
    confuses = (dealt & (confuse_chance > 0) & (roll < confuse_chance) & (_mon(st.hp, foe, them) > 0)
                & (_side(st.confusion, foe) == 0) & (~x.confuse_if_raised | _side(st.raised, foe)))
    rng, turns = prng.random_range(rng, 2, 6, when=confuses)
    st = st.replace(rng=rng, flinch=_set_side(st.flinch, foe, True, flinches),
                    confusion=_set_side(st.confusion, foe, turns, confuses))
    # Throat Chop's secondary onHit and Psychic Noise's healblock (chance 100: the roll always passes):
    # addVolatile on a target up, failing (or, for healblock, ``onRestart`` changing nothing) on one that has it
    target_up = dealt & (_mon(st.hp, foe, them) > 0)
    chops = target_up & x.chopping & (_side(st.throat_chop, foe) == 0)
    blocks = target_up & x.blocking & (_side(st.heal_block, foe) == 0)
    st = st.replace(throat_chop=_set_side(st.throat_chop, foe, 2, chops), heal_block=_set_side(st.heal_block, foe, 2, blocks))
    # Salt Cure's (chance 100): the saltcure volatile on a target up without it
    salts = target_up & x.salting & ~_side(st.salt_cure, foe)
    st = st.replace(salt_cure=_set_side(st.salt_cure, foe, True, salts))
    # Spirit Shackle's (chance 100): the trapped volatile on a target up, without it and not a Ghost (its current types)
    shackles = target_up & x.shackling & ~_side(st.shackled, foe) & ~_has_type(foe_types, "Ghost")
    st = st.replace(shackled=_set_side(st.shackled, foe, True, shackles))
    # Rapid Spin's onAfterHit (after the secondaries and DamagingHit: nothing between reads the
    # hazards), its user up: its own side's hazards removed
    spun = struck & x.spin & (_mon(st.hp, side, me) > 0)
    st = st.replace(seeded=_set_side(st.seeded, side, False, spun),       # and its user's leechseed volatile
                    hazards=_set_side(st.hazards, side, jnp.zeros_like(st.hazards[..., 0, :]), spun),
                    hazard_order=_set_side(st.hazard_order, side, jnp.zeros_like(st.hazards[..., 0, :]), spun))
    # Ceaseless Edge's and Stone Axe's onAfterHit (onAfterSubDamage into a substitute: the same layer, no draw
    # between), their user up: a layer of their hazard on the foe's side
    laid = struck & x.after_lay.any(-1) & (_mon(st.hp, side, me) > 0)
    layers, order_ = _lay(_side(st.hazards, foe), _side(st.hazard_order, foe), x.after_lay)
    st = st.replace(hazards=_set_side(st.hazards, foe, layers, laid), hazard_order=_set_side(st.hazard_order, foe, order_, laid))
    # DamagingHit: a damaging Fire move thaws its frozen target
    fire = dealt & (move_type == t.type_index["Fire"]) & (_mon(st.status, foe, them) == FRZ) & (_mon(st.hp, foe, them) > 0)
    st = _cure(st, foe, them, fire)
    st = _keep(st)

    st = _tie_draw(st, struck, cache)                          # the Update after the hit (not fainted yet)
    # a multi-hit move's later hits (before the loop's faintMessages), into the substitute while it stands
    st, later, last_to_sub, missed = _later_hits(st, foe, them, m, x, move, count, struck & (count > 1),
                                         jnp.where(subbed, _side(st.sub_hp, foe), 0), cache,
                     dict(level=_mon(st.level, side, me), atk_stats=a_stats, atk_boosts=a_boosts[..., :5],
                          atk_types=a_types, atk_tera=a_tera, atk_burned=burned, def_stats=d_stats,
                          def_boosts=d_boosts[..., :5], def_types=d_types, def_tera=d_tera, atk_stellar=stellar,
                          typeless=struggle, move_type=move_type, physical=physical, fixed=fixed,
                          weather_mod=weather_mod, ice_def=ice_def, screened=screened,
                          double_damage=foe_glaive),
                     power, eff, a_boosts[..., 5], d_boosts[..., 6], sort_draws)
    # the hit loop's faintMessages: the target faints (a fainted Pokémon is no longer Terastallized and
    # loses its stages)
    fainted = struck & (_mon(st.hp, foe, them) == 0)       # (a multi-hit move's later hits past a substitute)
    st = _clear_volatiles(st, foe, them, fainted)
    st = st.replace(faint_speed=_set_side(st.faint_speed, foe, d_stats[..., 4], fainted))
    st, fainted = _keep((st, fainted))
    # the recoil (applyRecoilDamage, after the hit loop's faintMessages): Math.round of the damage
    # dealt's fraction, at least 1; Struggle's Math.round(base max HP / 4), at least 1, as direct damage
    recoil = struck & (x.recoil_mul > 0)
    mine = _mon(st.hp, side, me)
    cost = jnp.maximum(_fraction(jnp.where(struggle, max_hp, lost), x.recoil_mul, x.recoil_add, x.recoil_div), 1)
    st = st.replace(hp=_set_mon(st.hp, side, me, jnp.maximum(mine - cost, 0), recoil))
    # the hit loop's timesAttacked: every hit counts (``hit - 1``) where the loop's last target list holds the Pokémon:
    # its last hit reached it (a hit into the substitute leaves no target), or a later hit's accuracy check failed
    # (that iteration copied the targets afresh before it; a substitute's hit counts 0, a number, so all count)
    reached = missed | jnp.where(later > 0, ~last_to_sub, dealt)
    attacked = _mon(st.times_attacked, foe, them) + 1 + later
    st = st.replace(times_attacked=_set_mon(st.times_attacked, foe, them, attacked, struck & reached))
    # the Update after the hit loop (the user not fainted yet; a recoil from a substitute's damage came
    # before the hit loop's faintMessages, which made its user faint)
    st = _tie_draw(st, struck & ~fainted & ~explodes & ~(subbed & recoil & (_mon(st.hp, side, me) == 0)), cache)
    # AfterMoveSecondary: thawsTarget (Scald...) thaws the frozen target
    thawed = dealt & thaws_target & (_mon(st.status, foe, them) == FRZ) & (_mon(st.hp, foe, them) > 0)
    st = _cure(st, foe, them, thawed)
    # useMoveInner's selfBoost after the hit loop (Scale Shot), the move a success (a target or its
    # substitute hit), unless the loop's faintMessages ended the battle
    boosting = struck & x.has_self_boost & ~(fainted & (_left(st, foe) == 0))
    mine, _ = _boost(_side(st.boosts, side), x.self_boost, boosting)
    st = _mark_boost(st, side, _side(st.boosts, side), mine)
    st = st.replace(boosts=_set_side(st.boosts, side, mine, boosting))
    # useMoveInner's MoveFail: High Jump Kick's crash, floor(base max HP / 2) (at least 1) to its user
    mine = _mon(st.hp, side, me)
    st = st.replace(hp=_set_mon(st.hp, side, me, jnp.maximum(mine - jnp.maximum(max_hp // 2, 1), 0), crash))
    recoil = recoil | crash
    # Sleep Talk's hit's Update after the called move (a target it fainted is out; its user at 0 HP faints only at
    # Sleep Talk's faintMessages, after it), then its hit loop's Update (below, with the user's faint)
    st = _tie_draw(st, calls & (_mon(st.hp, foe, them) > 0) & ~explodes, cache)   # (an Explosion's user fainted in it)
    # runMove's AfterMove: the lockedmove volatile's handler removes it at duration 1, its onEnd confusing the user
    # (up, not confused) where trueDuration <= 1
    st = _lock_end(st, side, ran & (_side(st.locked, side) == 1))
    # runMove's faintMessages and checkWin (Sleep Talk's hit loop's for a called move): the user fainted by recoil; both
    # sides out: the user's wins
    # Explosion's user: its faint queued before the target's, so both sides out: the target's wins
    down = (recoil & (_mon(st.hp, side, me) == 0)) | explodes
    st = _clear_volatiles(st, side, me, down)
    st = st.replace(faint_speed=_set_side(st.faint_speed, side, stats[..., 4], down))
    foe_out, my_out = fainted & (_left(st, foe) == 0), down & (_left(st, side) == 0)
    won = foe_out | my_out
    st = st.replace(winner=jnp.where(won, jnp.where(foe_out & ~(my_out & explodes), side, foe), st.winner),
                    request=jnp.where(won, REQUEST_ENDED, st.request))
    # selfSwitch (moveHit): a hit that dealt damage, or Parting Shot's drop that moved a stage, sets its
    # user's switchFlag (its user up); runAction then asks for the switch where the side has another
    # Pokémon left (``canSwitch``), else clears it
    switches = x.self_switch & (struck | (parting & lowered)) & (_mon(st.hp, side, me) > 0) & ~won
    switches = switches & (_left(st, side) > 1)
    # forceSwitch (spreadMoveHit, after the secondaries): a status move that reached its target, a damaging one
    # that hit the Pokémon (not its substitute), the target and the user up: the target's forceSwitchFlag
    drags = forcing & ((m.category == tables.STATUS) | dealt) & (_mon(st.hp, foe, them) > 0)
    drags = drags & (_mon(st.hp, side, me) > 0) & ~won
    st = _each_event(st, calls, cache)                         # Sleep Talk's hit loop's Update
    # the Update after the move action; a forced switch's comes after its dragIn, which ``_turn`` runs once the
    # move actions are over (the other one, if still queued, was cancelled with the Pokémon dragged out)
    return _keep((_each_event(st, acting & ~won & ~drags, cache), switches, drags, cache))


def _lock_end(st: _Turn, side, ends) -> _Turn:
    """The ``lockedmove`` volatile of ``side``'s active removed where ``ends``, and its ``onEnd``: where its
    ``trueDuration`` is 1 or less, ``addVolatile('confusion')`` (failing on a fainted or confused Pokémon; else the
    turns drawn, random(2, 6))."""
    me = _side(st.active, side)
    confuses = ends & (_side(st.locked_turns, side) <= 1) & (_mon(st.hp, side, me) > 0) & (_side(st.confusion, side) == 0)
    st = _drawing(st)
    rng, turns = prng.random_range(st.rng, 2, 6, when=confuses)
    return _keep(st.replace(rng=rng, locked=_set_side(st.locked, side, 0, ends),
                            confusion=_set_side(st.confusion, side, turns, confuses)))


_RESIDUAL_ORDER = np.zeros(len(STATUSES), np.int32)
_RESIDUAL_ORDER[[BRN, PSN, TOX]] = (10, 9, 9)                 # onResidualOrder of brn, psn, tox


def _residual_damage(st: BattleState, side, when):
    """One status's residual handler on ``side``'s active where ``when``: brn 1/16, psn 1/8, tox
    stage/16 of the base max HP (each at least 1; tox's stage rises first, up to 15), then
    faintMessages: a Pokémon at 0 HP faints, and its side out ends the battle (the foe wins)."""
    k = _side(st.active, side)
    status, max_hp, count = _mon(st.status, side, k), _mon(st.max_hp, side, k), _mon(st.status_count, side, k)
    stage = jnp.where(status == TOX, jnp.minimum(count + 1, 15), count)
    sixteenth = jnp.maximum(max_hp // 16, 1)
    cost = jnp.where(status == BRN, sixteenth, jnp.where(status == PSN, jnp.maximum(max_hp // 8, 1), sixteenth * stage))
    hp = jnp.maximum(_mon(st.hp, side, k) - cost, 0)
    st = st.replace(hp=_set_mon(st.hp, side, k, hp, when), status_count=_set_mon(st.status_count, side, k, stage, when))
    down = when & (hp == 0)
    st = _clear_volatiles(st, side, k, down)
    out = down & (_left(st, side) == 0)
    return _keep(st.replace(winner=jnp.where(out, 1 - side, st.winner), request=jnp.where(out, REQUEST_ENDED, st.request)))


def _salt_damage(st: BattleState, go, first):
    """The saltcure volatiles' residual handlers where ``go`` bool[B, 2], ``first``'s side first: ``floor(maxhp / 4)``
    HP for a Water or Steel type by its current types, else ``floor(maxhp / 8)``, at least 1; each followed by
    faintMessages (its side out ends the battle, and the other handler does not run). Both sides at once: a handler
    touches only its holder."""
    t = tables.load()
    hardy = sum((x == t.type_index[name]).astype(jnp.int32) for x in masks.active_types(st)
                for name in ("Water", "Steel")) > 0
    max_hp, hp = st.active_of(st.max_hp), st.active_of(st.hp)
    left = hp - jnp.maximum(jnp.where(hardy, max_hp // 4, max_hp // 8), 1)
    new_hp = jnp.maximum(left, 0)
    alive = ((jnp.arange(TEAM_SIZE) < st.team_size[..., None]) & (st.hp > 0)).sum(-1)       # [B, 2]
    out = go & (new_hp == 0) & (alive == 1)
    leads = jnp.arange(2) == first[..., None]
    runs = go & (leads | ~(out & leads).any(-1, keepdims=True))         # the first's side out: the second's skipped
    down = runs & (new_hp == 0)
    runs, down, new_hp, out = _keep((runs, down, new_hp, out))     # read by every field's select below
    active = jnp.arange(TEAM_SIZE) == st.active[..., None]
    st = st.replace(hp=jnp.where(runs[..., None] & active, new_hp[..., None], st.hp),
                    faint_speed=jnp.where(down, st.active_of(st.stats)[..., 4], st.faint_speed))
    for side in range(2):
        st = _clear_volatiles(st, jnp.full(first.shape, side, jnp.int32), st.active[..., side], down[..., side])
    ended = (runs & out).any(-1)
    loser = jnp.where((runs & out & leads).any(-1), first, 1 - first)
    return _keep(st.replace(winner=jnp.where(ended, 1 - loser, st.winner),
                            request=jnp.where(ended, REQUEST_ENDED, st.request)))


# The active's volatiles that ``fieldEvent('Residual')`` lists (a residual handler or a ``duration``), in
# ``BattleState.volatile_order``'s order, and their handlers' ``onResidualOrder`` (None: no order, sorted last).
LISTED_VOLATILES = S.LISTED_VOLATILES
LISTED_ORDERS = (None, None, None, 15, 16, 22, 20, 25, 8, 23, None, None, None, 13)


def _volatiles_present(st: _Turn):
    """bool[B, 2, 14]: the ``LISTED_VOLATILES`` each active holds; none on a fainted one (fainting's
    ``clearVolatile``; some fields keep their value there until the step's end)."""
    up = st.active_of(st.hp) > 0
    present = jnp.stack([st.flinch, st.protect, st.stall > 0, st.taunt > 0, st.encore > 0, st.throat_chop > 0,
                         st.heal_block > 0, st.roosted, st.seeded, st.yawn > 0, st.locked > 0, st.recharge,
                         st.charge > 0, st.salt_cure], axis=-1)
    return present & up[..., None]


def _stamp_volatiles(st: _Turn, before) -> _Turn:
    """``volatile_order`` after an action that found ``before`` (``_volatiles_present``): a volatile added since
    goes after those the active still holds (a JavaScript object's keys keep their insertion order; ``addVolatile``
    on one held restarts it in place), two added by one action in ``LISTED_VOLATILES`` order (Protect: protect,
    then stall); one gone reads 0. One action adds at most Protect's pair to one Pokémon, so this order is the
    order Showdown added them in."""
    present = _volatiles_present(st)
    kept = jnp.where(present & before, st.volatile_order, 0)
    new = present & ~before
    order = jnp.where(new, kept.max(-1, keepdims=True) + jnp.cumsum(new, axis=-1, dtype=jnp.int32), kept)
    return st.replace(volatile_order=order)


# The residual handlers whose positions decide the ties the engine reads, by ``speedSort``'s passes (their orders
# rising): the slot's wish (4), LISTED_VOLATILES' leechseed (8), the status (psn, tox 9; brn 10), taunt 15, encore 16,
# healblock 20, throatchop 22, yawn 23 (roost's 25 and the volatiles of no order come after the last tie read).
_TRACKED = ("wish", "leechseed", "status", "saltcure", "taunt", "encore", "healblock", "throatchop", "yawn")


def _later_first(status_order, present, volatile_order, wishing):
    """bool[B, 4]: where both sides' handlers of a kind tie (the same order and speed), whether p2's stands before
    p1's when ``speedSort``'s pass for them comes, for the leechseed, status, yawn and saltcure handlers. ``status_order``
    int32[B, 2] (0: no status handler), ``present``/``volatile_order`` [B, 2, 10] (``_volatiles_present``,
    ``BattleState.volatile_order``), ``wishing`` bool[B, 2].

    The list as collected: p1's handlers, then p2's; a side's in this order: its active's status, its listed
    volatiles in the order they were added, its slot's wish. ``speedSort`` is a selection sort: each pass swaps the
    handlers of the lowest key into the head of the unsorted part (``head``, ``head + 1``: the one standing earlier
    first), moving what stood there into their places, then shuffles a tie of two with one draw (``random(head,
    head + 2)``: 0 keeps the earlier first). With the speeds equal, every kind both sides hold is one pass of a tie;
    so this replays those passes on the tracked handlers' positions. (Where the speeds differ nothing ties and the
    faster side's handler goes first.)"""
    status_listed = status_order > 0
    count = present.sum(-1, dtype=jnp.int32)                                            # [B, 2]
    earlier = (volatile_order[..., None, :] < volatile_order[..., :, None]) & present[..., None, :]
    place = status_listed[..., None] + earlier.sum(-1, dtype=jnp.int32)                 # [B, 2, 10] within the side
    start = jnp.stack([jnp.zeros_like(count[..., 0]), status_listed[..., 0] + count[..., 0] + wishing[..., 0]], axis=-1)
    volatile = {name: k for k, name in enumerate(LISTED_VOLATILES)}
    held = {"status": status_listed, "wish": wishing, **{n: present[..., volatile[n]] for n in volatile}}
    within = {"status": jnp.zeros_like(count), "wish": status_listed + count, **{n: place[..., volatile[n]] for n in volatile}}
    beyond = 2 * (len(LISTED_VOLATILES) + 2)                                             # past the list's end
    position = jnp.stack([jnp.where(held[n][..., s], start[..., s] + within[n][..., s], beyond)
                          for s in range(2) for n in _TRACKED], axis=-1)                 # [B, 2T]: p1's, then p2's
    size = len(_TRACKED)
    head = jnp.zeros_like(count[..., 0])
    read = {}
    for h, name in enumerate(_TRACKED):
        holds = held[name]
        at = (position[..., h], position[..., size + h])                                # at the pass's start
        both = holds[..., 0] & holds[..., 1]
        tie = both & (status_order[..., 0] == status_order[..., 1]) if name == "status" else both
        read[name] = tie & (at[1] < at[0])
        if name == "yawn":
            break
        for side in range(2):
            # a tie's two: the earlier first; two statuses of different orders (psn or tox 9, brn 10): two passes
            # one after the other, the same swaps as one pass of those targets
            later = at[side] > at[1 - side]
            if name == "status":
                later = jnp.where(tie, later, status_order[..., side] > status_order[..., 1 - side])
            column = np.arange(2 * size) == side * size + h
            target = (head + (both & later))[..., None]
            go = holds[..., side][..., None]
            now = position[..., side * size + h][..., None]
            position = jnp.where(go & column, target, jnp.where(go & (position == target), now, position))
        position, head = _keep((position, head + holds.sum(-1, dtype=jnp.int32)))
    return jnp.stack([read["leechseed"], read["status"], read["yawn"], read["saltcure"]], axis=-1)


def _residual(st: BattleState, on):
    """The residual action's ``fieldEvent('Residual')``: the status handlers of the actives, sorted by
    their order (psn and tox 9, brn 10), then speed (``updateSpeed`` refreshed it; an active fainted
    this turn still has its status, its handler is sorted by its speed stat, what fainting's
    ``clearVolatile`` left in ``Pokemon.speed``, and then skipped), a tie drawn once; then the ``roost``
    volatiles' handlers (order 25: a tie of two drawn once, nothing else); each status's damage and
    faints before the next (a battle that ends stops there); then the ``saltcure`` handlers (order 13); last the
    ``lockedmove`` handlers (no order). The weather's handler runs before all of them (``weather_moves()``)."""
    order_of = tables.small_lookup(_RESIDUAL_ORDER, st.active_of(st.status))                # [B, 2]
    up = st.active_of(st.hp) > 0
    sorted_ = on[..., None] & (order_of > 0)
    has = sorted_ & up
    speed = jnp.where(up, _speeds(st), st.faint_speed)
    both = sorted_.all(-1)
    tie = both & (order_of[..., 0] == order_of[..., 1]) & (speed[..., 0] == speed[..., 1])
    # the wish slot conditions' handlers (order 4: before the statuses'; a fainted holder's too): two tie on speed (a
    # draw); at the residual of a later turn than the wish's each ends, healing the slot's active unless fainted (or
    # under Heal Block)
    wishing = on[..., None] & (st.wish_hp > 0)
    st = _skip_draw(st, wishing.all(-1) & (speed[..., 0] == speed[..., 1]))
    due = wishing & (((st.turn - 1) % 256)[..., None] > st.wish_turn)
    hp, max_hp = st.active_of(st.hp), st.active_of(st.max_hp)
    healed = jnp.minimum(hp + jnp.maximum(st.wish_hp // 2, 1), max_hp)
    heals = due & (hp > 0) & (st.heal_block == 0)       # healblock's onTryHeal stops the heal (its order 20 comes later)
    for s in range(2):
        side = jnp.full(on.shape, s, jnp.int32)
        st = st.replace(hp=_set_mon(st.hp, side, st.active[..., s], healed[..., s], heals[..., s]))
    st = st.replace(wish_hp=jnp.where(due, 0, st.wish_hp), wish_turn=jnp.where(due, -1, st.wish_turn))
    # the leechseed volatiles' handlers (order 8), then the statuses': two tie on speed, the draw deciding (with
    # where the sort's earlier passes left the two: _later_first)
    leeching = on[..., None] & st.seeded & up
    leech_tie = leeching.all(-1) & (speed[..., 0] == speed[..., 1])
    st = _drawing(st)
    rng, leech_swap = prng.random_range(st.rng, 0, 2, when=leech_tie)
    rng, swap = prng.random_range(rng, 0, 2, when=tie)
    # the saltcure volatiles' handlers (order 13: after the statuses'), as the leechseed ones
    salting = on[..., None] & st.salt_cure & up
    salt_tie = salting.all(-1) & (speed[..., 0] == speed[..., 1])
    rng, salt_swap = prng.random_range(rng, 0, 2, when=salt_tie)
    st = st.replace(rng=rng)
    # the taunt (onResidualOrder 15), encore (16), healblock (20) and throatchop (22) volatiles' handlers: both
    # actives holding one (up) and tied on speed, a draw of the same sort, its value unread
    for turns in (st.taunt, st.encore, st.heal_block, st.throat_chop):
        st = _skip_draw(st, on & ((turns > 0) & up).all(-1) & (speed[..., 0] == speed[..., 1]))
    # the yawn volatiles' handlers (order 23, by their duration), as the leechseed ones
    yawning = on[..., None] & (st.yawn > 0) & up
    yawn_tie = yawning.all(-1) & (speed[..., 0] == speed[..., 1])
    st = _drawing(st)
    rng, yawn_swap = prng.random_range(st.rng, 0, 2, when=yawn_tie)
    st = st.replace(rng=rng)
    # the roost volatiles' handlers (onResidualOrder 25: after the statuses'; the duration ends them):
    # both actives roosted (up: fainting clears it) and tied on speed, a draw of the same sort
    roosts = on & (st.roosted & up).all(-1)
    st = _skip_draw(st, roosts & (speed[..., 0] == speed[..., 1]))
    # the screens' handlers (onSideResidualOrder 26, a sub-order per screen, no speed: a side's): the same screen on
    # both sides ties, a draw of the same sort
    for k in range(len(S.SCREENS)):
        st = _skip_draw(st, on & (st.screens[..., k] > 0).all(-1))
    # the handlers of no order (the volatiles' durations: flinch, protect, stall, lockedmove, mustrecharge,
    # twoturnmove) after those: a Pokémon's own tie with each other, and with the other active's where they tie on
    # speed; a group of k draws k - 1 times (the shuffle)
    count = jnp.where(up, st.flinch.astype(jnp.int32) + st.protect + (st.stall > 0) + (st.locked > 0) + st.recharge
                      + (st.charge > 0), 0)
    tied = jnp.maximum(count.sum(-1) - 1, 0)
    apart = jnp.maximum(count - 1, 0).sum(-1)
    draws = jnp.where(speed[..., 0] == speed[..., 1], tied, apart)
    st = st.replace(skipped=st.skipped + jnp.where(on, draws, 0), bound=st.bound + 5)
    # the sort over, the weather's handler runs first (onFieldResidualOrder 1, collected first: it moves no other
    # handler): its duration counted down; at 0 it ends (clearWeather's eachEvent('WeatherChange')), else its
    # onFieldResidual's eachEvent('Weather') and the Update after it (Gen 7+), each a speed sort of the actives up
    weathers = on & (st.weather != S.WEATHER_NONE)
    left = st.weather_turns - 1
    up_both = _up(st)
    st = _each_event(st, weathers, speed, up_both)
    st = _each_event(st, weathers & (left > 0), speed, up_both)
    st = st.replace(weather=jnp.where(weathers & (left == 0), S.WEATHER_NONE, st.weather),
                    weather_turns=jnp.where(weathers, left, st.weather_turns))
    later = (order_of[..., 1] < order_of[..., 0]) | ((order_of[..., 1] == order_of[..., 0]) & (speed[..., 1] > speed[..., 0]))
    read = _later_first(jnp.where(sorted_, order_of, 0), _volatiles_present(st), st.volatile_order, wishing)
    read = read.astype(swap.dtype)
    first = jnp.where(tie, swap ^ read[..., 1], later.astype(jnp.int32))
    first = jnp.where(both, first, jnp.where(sorted_[..., 0], 0, 1)).astype(jnp.int32)
    leech_first = jnp.where(leech_tie, leech_swap ^ read[..., 0], (speed[..., 1] > speed[..., 0]).astype(jnp.int32))
    leech_first = jnp.where(leeching.all(-1), leech_first, jnp.where(leeching[..., 0], 0, 1)).astype(jnp.int32)
    st, first, has, leech_first, read = _keep((st, first, has, leech_first, read))
    for k in range(2):
        s = leech_first if k == 0 else 1 - leech_first
        st = _leech(st, s, _side(leeching, s) & (st.request != REQUEST_ENDED))
    for k in range(2):
        s = first if k == 0 else 1 - first
        up_now = _mon(st.hp, s, _side(st.active, s)) > 0            # not fainted by a leech handler
        st = _residual_damage(st, s, _side(has, s) & up_now & (st.request != REQUEST_ENDED))
    salt_first = jnp.where(salt_tie, salt_swap ^ read[..., 3], (speed[..., 1] > speed[..., 0]).astype(jnp.int32))
    salt_first = jnp.where(salting.all(-1), salt_first, jnp.where(salting[..., 0], 0, 1)).astype(jnp.int32)
    up_now = st.active_of(st.hp) > 0                                   # not fainted by its status
    st = _salt_damage(st, salting & up_now & (st.request != REQUEST_ENDED)[..., None], salt_first)
    yawn_first = jnp.where(yawn_tie, yawn_swap ^ read[..., 2], (speed[..., 1] > speed[..., 0]).astype(jnp.int32))
    yawn_first = jnp.where(yawning.all(-1), yawn_first, jnp.where(yawning[..., 0], 0, 1)).astype(jnp.int32)
    st, yawn_first = _keep((st, yawn_first))
    for k in range(2):
        s = yawn_first if k == 0 else 1 - yawn_first
        a = _side(st.active, s)
        go = _side(yawning, s) & (_mon(st.hp, s, a) > 0) & (st.request != REQUEST_ENDED)
        left = _side(st.yawn, s) - 1
        st = st.replace(yawn=_set_side(st.yawn, s, left, go))
        # its end: trySetStatus('slp') from the yawner (setStatus of the status it has: fails), the Sleep Clause
        st, _ = _try_status(st, s, a, jnp.full_like(s, SLP), go & (left == 0))
    # the screens' handlers: each counted down, gone at 0 (unless the battle ended before them)
    counting = (on & (st.request != REQUEST_ENDED))[..., None, None] & (st.screens > 0)
    st = st.replace(screens=jnp.where(counting, st.screens - 1, st.screens))
    # the lockedmove volatiles' handlers (no order: after the screens'; nothing they do ends the battle), the faster
    # active's first: the duration counted down, at 0 its end (onEnd: ``_lock_end``'s confusion, a draw each); else a
    # sleeping holder loses it (no onEnd), another counts trueDuration down. Both sides at once: [B, 2]
    go = (on & (st.request != REQUEST_ENDED))[..., None] & (st.locked > 0) & (st.active_of(st.hp) > 0)
    left = st.locked - 1
    asleep = st.active_of(st.status) == SLP
    confuses = go & (left == 0) & (st.locked_turns <= 1) & (st.confusion == 0)
    faster = (speed[..., 1] > speed[..., 0]).astype(jnp.int32)
    st = _drawing(st)
    rng, first = prng.random_range(st.rng, 2, 6, when=S.select(confuses, faster))
    rng, second = prng.random_range(rng, 2, 6, when=S.select(confuses, 1 - faster))
    turns = jnp.where(jnp.arange(2) == faster[..., None], first[..., None], second[..., None])
    # the twoturnmove volatiles' durations (no order, no draw): counted down, at 0 ended with the charging move's
    go_charge = (on & (st.request != REQUEST_ENDED))[..., None] & (st.charge > 0) & (st.active_of(st.hp) > 0)
    ends = go_charge & (st.charge == 1)
    st = st.replace(charge=jnp.where(go_charge, st.charge - 1, st.charge), charged=st.charged & ~ends)
    return st.replace(rng=rng, confusion=jnp.where(confuses, turns, st.confusion),
                      locked=jnp.where(go, jnp.where((left == 0) | asleep, 0, left), st.locked),
                      locked_turns=jnp.where(go & (left > 0) & ~asleep, st.locked_turns - 1, st.locked_turns))


def _next_turn(st: BattleState, when):
    """``nextTurn`` where ``when``: each active's ``DisableMove`` event, the handlers of its taunt, encore,
    throatchop and healblock volatiles tying (no order or priority, the same speed): k of them draw k - 1
    times; its stages' marks of the turn cleared; its move's result of the turn becomes last turn's."""
    k = sum((v > 0).astype(jnp.int32) for v in (st.taunt, st.encore, st.throat_chop, st.heal_block))
    # and each active's statsRaisedThisTurn and statsLoweredThisTurn cleared
    return st.replace(skipped=st.skipped + jnp.where(when, jnp.maximum(k - 1, 0).sum(-1), 0), bound=st.bound + 6,
                      raised=st.raised & ~when[..., None], lowered=st.lowered & ~when[..., None],
                      move_failed_last=jnp.where(when[..., None], st.move_failed, st.move_failed_last),
                      move_failed=st.move_failed & ~when[..., None])


def _leech(st: BattleState, side, when):
    """The ``leechseed`` volatile's residual handler on ``side``'s active where ``when`` (its holder up): nothing when
    the Pokémon in the seeder's slot (the foe's active) is fainted; else ``floor(baseMaxhp / 8)`` (at least 1) of damage
    to the holder, at most its HP, healed to the foe (up to its max HP; not under Heal Block), then faintMessages: the
    holder at 0 HP faints, its side out ends the battle (the foe wins)."""
    k, f = _side(st.active, side), _side(st.active, 1 - side)
    hp, foe_hp = _mon(st.hp, side, k), _mon(st.hp, 1 - side, f)
    go = when & (hp > 0) & (foe_hp > 0)
    drained = jnp.minimum(jnp.maximum(_mon(st.max_hp, side, k) // 8, 1), hp)
    healed = jnp.minimum(foe_hp + drained, _mon(st.max_hp, 1 - side, f))
    heals = go & (_side(st.heal_block, 1 - side) == 0)       # healblock's onTryHeal (its order 20 comes later)
    st = st.replace(hp=_set_mon(_set_mon(st.hp, side, k, hp - drained, go), 1 - side, f, healed, heals))
    down = go & (hp - drained == 0)
    st = _clear_volatiles(st, side, k, down)
    st = st.replace(seeded=_set_side(st.seeded, side, False, down),
                    faint_speed=_set_side(st.faint_speed, side, _mon(st.stats[..., 4], side, k), down))
    out = down & (_left(st, side) == 0)
    return _keep(st.replace(winner=jnp.where(out, 1 - side, st.winner), request=jnp.where(out, REQUEST_ENDED, st.request)))


def _turn(st: BattleState, actions, on, resume):
    """A whole turn of a move request (``on``), or the rest of a turn after a self-switch's switch-in
    (``resume``: the move action still queued, ``BattleState.queued``, then the residual). A self-switch
    stops it at its move action (a mid-turn ``REQUEST_SWITCH`` of its side, ``mid_turn``)."""
    act = jnp.asarray(actions, jnp.int32)
    switching = on[..., None] & (act >= ACTION_SWITCH_BASE)                     # [B, 2]
    moving = on[..., None] & ~switching
    tera = moving & (act >= ACTION_TERA_BASE)
    slot = jnp.where(switching, 0, act % ACTION_TERA_BASE)
    move = S.select(st.active_of(st.moves), slot)
    struggling = _keep(_struggling(st))                                         # as chosen, at the decision
    move = jnp.where(struggling, tables.load().move_index["struggle"], move)
    row = tables.move_table().at(move)                                          # both moves' rows, one gather
    # the recharge (mustrecharge's locked move, in no slot): priority 0, no attack for Sucker Punch to read
    recharging = st.recharge
    priority = jnp.where(recharging, 0, row.priority)
    attacks = (row.category != tables.STATUS) & ~recharging
    speed = _speeds(st)
    same_speed = speed[..., 0] == speed[..., 1]
    move_tie = moving.all(-1) & (priority[..., 0] == priority[..., 1]) & same_speed

    # the commit's queue sort: two switches, two Terastallizations, two moves that tie
    st = _drawing(st)
    rng, first_switch = prng.random_range(st.rng, 0, 2, when=switching.all(-1) & same_speed)
    rng, _ = prng.random_range(rng, 0, 2, when=tera.all(-1) & same_speed)
    rng, swap = prng.random_range(rng, 0, 2, when=move_tie)
    st = st.replace(rng=rng)
    # beforeTurn: its eachEvent, the Update, then a re-sort if a move comes next
    up = _up(st)
    st = _each_event(st, on, speed, up)
    st = _each_event(st, on, speed, up)
    next_is_move = on & ~switching.any(-1) & ~tera.any(-1)
    st = _drawing(st)
    rng, r = prng.random_range(st.rng, 0, 2, when=move_tie & next_is_move)
    st = st.replace(rng=rng)
    swap = swap ^ jnp.where(move_tie & next_is_move, r, 0)

    # switches, in the sorted order
    faster = jnp.where(same_speed, first_switch, (speed[..., 1] > speed[..., 0]).astype(jnp.int32))
    first = jnp.where(switching.all(-1), faster, jnp.where(switching[..., 0], 0, 1)).astype(jnp.int32)
    st, first, swap = _keep((st, first, swap))

    def switch_action(k, st):
        s = jnp.where(k == 0, first, 1 - first)
        go = _side(switching, s) & (st.request != REQUEST_ENDED)   # the first switch-in's hazards may end it
        return _switch_in(st, s, _side(act, s) - ACTION_SWITCH_BASE, go, jnp.ones_like(go))

    if accelerator_form():
        for k in range(2):
            st = switch_action(k, st)
    else:
        # XLA:CPU: one copy of the switch-in for the two switch actions (as for the move actions below)
        settled = lambda c: _keep(_drawing(c))
        st = jax.lax.fori_loop(0, 2, lambda k, c: settled(switch_action(k, c)), settled(st))
    # Terastallizations (which one first changes nothing but the draws' count); the speeds after the
    # switches are those the moves are sorted by (a Terastallization changes no speed)
    speed, up = _speeds(st), _up(st)
    for s in range(2):
        side = jnp.full(on.shape, s, jnp.int32)
        go = tera[..., s]
        k = st.active[..., s]
        st = st.replace(terastallized=_set_mon(st.terastallized, side, k, True, go),
                        can_tera=st.can_tera & ~((jnp.arange(2) == s) & go[..., None]))
        st = _each_event(st, go, speed, up)
        last = go & ((s == 1) | ~tera[..., 1])
        st = _drawing(st)
        rng, r = prng.random_range(st.rng, 0, 2, when=move_tie & last)
        st = st.replace(rng=rng)
        swap = swap ^ jnp.where(move_tie & last, r, 0)
        st, swap = _keep((st, swap))

    # moves: priority, speed (the speeds after the switches; a side that switched does not move), the
    # ties' draws
    later = (priority[..., 1] > priority[..., 0]) | ((priority[..., 1] == priority[..., 0]) & (speed[..., 1] > speed[..., 0]))
    mover = jnp.where(move_tie, swap, later.astype(jnp.int32))
    mover = jnp.where(moving[..., 0] & moving[..., 1], mover, jnp.where(moving[..., 0], 0, 1)).astype(jnp.int32)
    mover = _keep(mover)
    second = 1 - mover
    # a turn resumed after a self-switch's switch-in: the move action still queued (``queued``), if any
    waiting = resume[..., None] & (st.queued >= 0)                              # [B, 2]
    second = jnp.where(resume, jnp.where(waiting[..., 1], 1, 0), second).astype(jnp.int32)
    slot = jnp.where(resume[..., None], jnp.maximum(st.queued, 0), slot)
    later_moving = moving | waiting                              # the second move action's side
    before = _mon(st.hp, second, _side(st.active, second))      # the second mover's HP before the first move

    def move_action(k, carry):
        """The turn's first (``k`` 0) or second (1) move action."""
        st, stopped, queued, dragged, drag_side, drag_speed = carry
        held = _volatiles_present(st)
        pick = functools.partial(_per_action, k)
        s = pick(mover, second)
        no = jnp.zeros_like(on)
        # Sucker Punch's onTry: the foe's move action is still queued (it moves second) and damaging;
        # Payback: the foe's move action ran first (no switch: a newly switched target does not count,
        # nor the Pokémon a self-switch brought in); Avalanche: and its hit damaged this Pokémon (nothing
        # else of that action lowers its HP)
        foe_attacks = pick(_side(moving & attacks, 1 - s), no)
        foe_moved = pick(no, _side(moving, mover) & ~resume)
        hit_by_foe = pick(no, foe_moved & (_mon(st.hp, s, _side(st.active, s)) < before))
        # (a Pokémon dragged out by the first move action: switchIn's cancelAction took its move action)
        go = _side(pick(moving, later_moving), s) & (st.request != REQUEST_ENDED) & ~stopped & ~dragged
        will_act = pick(_side(moving, 1 - s), no)      # the foe's move action queued
        # the foe switched in this turn: by its switch action (the first mover's foe), or by the self-switch
        # a resumed turn answers (the queued mover's foe)
        foe_fresh = pick(_side(switching, 1 - s), resume)
        st, switches, drags, cache = _use_move(st, s, _side(slot, s), go, foe_attacks, foe_moved, hit_by_foe, will_act,
                                               struggling, foe_fresh)
        # a self-switch: runAction's switch request in the middle of the turn, the rest of the queue
        # (the other side's move action if it has not run, its Pokémon up; the residual) waiting for it
        switches = switches & (st.request != REQUEST_ENDED)
        rest = (jnp.arange(2) == second[..., None]) & _side(moving, second)[..., None]
        rest = rest & (st.active_of(st.hp) > 0)
        queued = pick(jnp.where(on[..., None], jnp.where(switches[..., None] & rest, slot, -1), queued),
                      jnp.where(switches[..., None], -1, queued))
        st = st.replace(switch_flag=jnp.where(switches[..., None], jnp.arange(2) == s[..., None], st.switch_flag))
        drag_side = jnp.where(drags, 1 - s, drag_side)
        drag_speed = jnp.where(drags[..., None], cache, drag_speed)
        return _stamp_volatiles(st, held), stopped | switches, queued, dragged | drags, drag_side, drag_speed

    carry = (st, jnp.zeros_like(on), st.queued, jnp.zeros_like(on), jnp.zeros_like(mover), jnp.zeros_like(speed))
    if accelerator_form():
        # unrolled: on the TPU v5e the looped form ran the turn at 531 K decisions/s against 945 K
        # (``benchmarks.pokemon_gen9 --batch 4096``)
        for k in range(2):
            carry = _keep(move_action(k, carry))
    else:
        # XLA:CPU: one copy of the move pipeline (``_use_move`` is ~45 % of the lowered turn): the compiled
        # step 28 % smaller, the env's compile 15 % shorter (41 s against 48 s) and its speed as before or
        # better. The loop's carry has one structure: no draws left counted (``_drawing``), every field kept.
        settled = lambda c: _keep((_drawing(c[0]),) + tuple(c[1:]))
        carry = jax.lax.fori_loop(0, 2, lambda k, c: settled(move_action(k, c)), settled(carry))
    st, stopped, queued, dragged, drag_side, drag_speed = carry
    # runAction's dragIn after the move action that forced its target out (out of the loop: one copy of the
    # switch-in in the program), then that action's Update; the volatiles of the Pokémon dragged out are gone
    st, drag_speed = _drag_in(st, drag_side, dragged, drag_speed)
    st = _each_event(st, dragged & (st.request != REQUEST_ENDED), drag_speed)
    st = _stamp_volatiles(st, _volatiles_present(st))
    going = on | resume
    st = st.replace(queued=jnp.where(going[..., None] & ~stopped[..., None], -1, queued),
                    mid_turn=jnp.where(going, stopped, st.mid_turn),
                    request=jnp.where(stopped, REQUEST_SWITCH, st.request))

    # the residual: status damage, then the Update after it; checkFainted (a fainted Pokémon's status
    # becomes fnt: none here); then the faint request or the next turn. The flinch volatile's handler
    # (no order: after the statuses', no tie) ends it by its duration; a battle that ended before it
    # keeps it on a Pokémon still up (fainting clears the volatiles)
    on = going & ~stopped
    st = st.replace(webbed=st.webbed & ~on[..., None])       # the residual's updateSpeed
    st = _residual(st, on & (st.request != REQUEST_ENDED))
    live = on & (st.request != REQUEST_ENDED)
    up = st.active_of(st.hp) > 0
    # Encore's residual handler: its duration, then the end of an encore whose move has no PP left
    encored_pp = S.select(st.active_of(st.pp), st.encore_slot)
    st = st.replace(flinch=jnp.where(on[..., None], st.flinch & ~live[..., None] & up, st.flinch),
                    protect=jnp.where(on[..., None], st.protect & ~live[..., None] & up, st.protect),
                    stall=jnp.where(on[..., None] & (live[..., None] & ~st.stalled | ~up), 0, st.stall),
                    taunt=jnp.where(on[..., None] & live[..., None] & up, jnp.maximum(st.taunt - 1, 0), st.taunt),
                    throat_chop=jnp.where(on[..., None] & live[..., None] & up, jnp.maximum(st.throat_chop - 1, 0),
                                          st.throat_chop),
                    heal_block=jnp.where(on[..., None] & live[..., None] & up, jnp.maximum(st.heal_block - 1, 0),
                                         st.heal_block),
                    encore=jnp.where(on[..., None] & live[..., None] & up,
                                     jnp.where(encored_pp > 0, jnp.maximum(st.encore - 1, 0), 0), st.encore),
                    stalled=st.stalled & ~on[..., None])
    st = _each_event(st, live)
    st = st.replace(status=jnp.where(live[..., None, None] & (st.hp == 0), 0, st.status))
    down = live[..., None] & (st.active_of(st.hp) == 0)                          # [B, 2]
    fainted = down.any(-1)
    st = _next_turn(st, live & ~fainted)
    return st.replace(switch_flag=jnp.where(live[..., None], down, st.switch_flag),
                      request=jnp.where(live, jnp.where(fainted, REQUEST_SWITCH, REQUEST_MOVE), st.request),
                      turn=jnp.where(live & ~fainted, st.turn + 1, st.turn))


def _forced_switch(st: BattleState, actions, on, mid):
    """The switch-ins after faints (Showdown's ``instaswitch`` actions), then the end of the turn (not
    where ``mid``: a self-switch's switch-in in the middle of the turn, whose rest ``_turn`` runs). Two
    switches (both actives fainted) are sorted by the fainted Pokémon's speeds (a draw on a tie); the
    first one draws nothing (no Update before the next instaswitch; its runSwitch waits in the queue),
    the second one's runSwitch is inserted next to it (a draw when the two new actives tie), then the
    Update, one runSwitch for both (its sort) and the Update after it."""
    act = jnp.asarray(actions, jnp.int32)
    flag = st.switch_flag & on[..., None]
    both = flag.all(-1)
    speed = _speeds(st)
    tie = speed[..., 0] == speed[..., 1]
    st = _drawing(st)
    rng, r = prng.random_range(st.rng, 0, 2, when=both & tie)
    st = st.replace(rng=rng)
    first = jnp.where(both, jnp.where(tie, r, (speed[..., 1] > speed[..., 0]).astype(jnp.int32)),
                      jnp.where(flag[..., 0], 0, 1)).astype(jnp.int32)
    st, first = _keep((st, first))
    quiet = jnp.zeros_like(on)
    go = flag.any(-1)
    st = _switch_in(st, first, _side(act, first) - ACTION_SWITCH_BASE, go, quiet, draws=go & ~both, hazards=go & ~both)
    st = _switch_in(st, 1 - first, _side(act, 1 - first) - ACTION_SWITCH_BASE, both, quiet, insert=both, also=both)
    # a Pokémon fainted by entry hazards: checkFainted (the queue is empty) and a new switch request of
    # the same turn
    live = on & ~mid & (st.request != REQUEST_ENDED)
    down = live[..., None] & (st.active_of(st.hp) == 0)                          # [B, 2]
    fainted = down.any(-1)
    st = st.replace(status=jnp.where(live[..., None, None] & (st.hp == 0), 0, st.status))
    st = _next_turn(st, live & ~fainted)
    return st.replace(switch_flag=jnp.where(live[..., None], down, st.switch_flag),
                      request=jnp.where(live, jnp.where(fainted, REQUEST_SWITCH, REQUEST_MOVE), st.request),
                      turn=jnp.where(live & ~fainted, st.turn + 1, st.turn))


def step(state: BattleState, actions) -> BattleState:
    """One decision of each battle of the batch: ``actions`` int32 ``[B, 2]`` (``masks`` numbering;
    legal ones, e.g. through ``masks.legal_or_first``; ignored where a side does not act). Returns
    the state at the next decision (see the module docstring for what is covered)."""
    return _step(state, actions, with_turn=True)


def needs_turn(state: BattleState) -> jax.Array:
    """bool ``[B]``: the battles whose next decision runs (part of) a turn: a move request, or a
    self-switch's switch request in the middle of a turn (its rest follows the switch-in). For the
    others (a battle to start, switch-ins after faints, an ended battle) ``switch_step`` gives what
    ``step`` gives."""
    return (state.request == REQUEST_MOVE) | ((state.request == REQUEST_SWITCH) & state.mid_turn)


def switch_step(state: BattleState, actions) -> BattleState:
    """``step`` without the turn: exact for the battles that do not ``needs_turn`` (for the others
    its result is no state of the battle; callers keep them out). A program a fraction of ``step``'s size, for a batch
    none of whose battles needs a turn (the RL env's decisions after the joint one: a lone
    replacement, a new battle's start)."""
    return _step(state, actions, with_turn=False)


def _step(state: BattleState, actions, with_turn: bool) -> BattleState:
    request = state.request
    st = _Turn(**{f.name: getattr(state, f.name) for f in dataclasses.fields(BattleState)},
               skipped=jnp.zeros_like(request), webbed=jnp.zeros_like(state.switch_flag),
               roosted=jnp.zeros_like(state.switch_flag), stalled=jnp.zeros_like(state.switch_flag))
    st = _start(st, request == REQUEST_START)
    # a switch request: the switch-ins after faints, or a self-switch's in the middle of a turn, whose
    # rest (the move action still queued, the residual) ``_turn`` then runs
    mid = (request == REQUEST_SWITCH) & state.mid_turn
    st = _forced_switch(st, actions, request == REQUEST_SWITCH, mid)
    if with_turn:
        st = _turn(st, actions, request == REQUEST_MOVE, mid & (st.request != REQUEST_ENDED))
    mid_turn = st.mid_turn & (st.request == REQUEST_SWITCH)     # a battle that ended keeps no queue
    # fainting clears the leechseed volatile (whatever fainted the Pokémon; nothing reads it on a fainted one before)
    st = st.replace(seeded=st.seeded & (st.active_of(st.hp) > 0), yawn=jnp.where(st.active_of(st.hp) > 0, st.yawn, 0))
    st = st.replace(mid_turn=mid_turn, queued=jnp.where(mid_turn[..., None], st.queued, -1),
                    volatile_order=jnp.where(_volatiles_present(st), st.volatile_order, 0))
    st = _drawing(st)
    return BattleState(**{f.name: getattr(st, f.name) for f in dataclasses.fields(BattleState)})


__all__ = ["step", "switch_step", "needs_turn", "restricted_moves", "switch_moves", "hp_moves", "status_moves", "boost_moves", "flinch_moves", "confusion_moves", "FIRST_TURN_MOVES", "COVERED_STATUSES", "restricted_team", "restricted_species_ok", "EXCLUDED_SPECIES_PREFIXES", "sleep_moves", "wish_moves", "leech_moves", "haze_moves", "yawn_moves"]
