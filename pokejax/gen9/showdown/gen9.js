'use strict';
// pokejax Gen 9's bridge to Pokemon Showdown (the package pinned in pokejax/showdown), one long-lived
// node process speaking JSON lines like pokejax/showdown/bridge.js: one request a line on stdin
// ({"cmd": ...}), one reply a line on stdout ({"ok": true, ...} or {"ok": false, "error": ...}).
//
// The package folder comes from the environment (POKEJAX_SHOWDOWN_PACKAGE, set by pokejax.gen9.reference).
//
// Commands
//   ping      -> {version}
//   teams     {format, seeds: [[4 words], ...]} -> {teams: [{sets, stats}]}: each team from Showdown's own
//             generator at that seed, and the stats Showdown gives its Pokemon in a battle
//             ({maxhp, atk, def, spa, spd, spe} from Pokemon.maxhp / storedStats)
//   damage    {cases: [{attacker, defender, move, crit, roll, boosts: [{}, {}], status: ['', ''],
//             tera: [type | null, type | null], stellar?: [[types], [types]]}]}
//             -> {results: [{damage, draws, typeMod, crit, seed, stellar}]}:
//             BattleActions.getDamage of the attacker's move on the defender (stellar: the types each
//             side has already used its Stellar boost for; the attacker's list after comes back), in a battle of the two
//             sets, with the crit forced (the move's willCrit) and the damage roll forced (the one draw
//             the randomizer makes, random(16), answered with `roll`); damage is null for undefined,
//             false for an immunity. With `rng` (a seed) instead, nothing is forced: the battle's PRNG
//             starts at that seed and makes the crit and roll draws itself (the seed after is returned)
//   accuracy  {cases: [{attacker, defender, move, boosts: [{}, {}], tera: [..], rng}]}
//             -> {results: [{hit, draws, seed}]}: BattleActions.hitStepAccuracy of the attacker's move on
//             the defender, the battle's PRNG starting at `rng` (its draws and the seed after returned)
//   order     {cases: [{sets: [set, set], moves: [id, id], boosts: [{}, {}], status: ['', ''], seed}]}
//             -> {results: [{first, draws, seed, speeds, priorities}]}: which side Showdown's queue runs
//             first (0 or 1) when both choose those moves, the PRNG draws of the sort and the seed after,
//             each side's getActionSpeed(), and the queued actions' [side, priority]
//   battle    {cases: [{teams: [[set x6], [set x6]], seed}]} -> {results: [{created, started}]}: a
//             gen9randombattle Battle of the two teams at that seed, seen twice: `created` just before
//             Battle.start runs (both players set), `started` at its first request; each {seed, turn,
//             requestState, sides: [{pokemonLeft, active, pokemon: [{species, level, types, maxhp, hp,
//             stats, status, moves, pp, maxpp, ability, item, teraType, canTerastallize,
//             terastallized, stellar, fainted, boosts, slot}]}]} (side.pokemon in its current order;
//             `slot` is the Pokemon's place in the team as given, `active` the slot of side.active[0])
//   play      {cases: [{teams, seed, actions: [[a1, a2], ...], trace?}]} -> {results: [{states, error}]}: a
//             battle of the two teams at the seed, played with pokejax's action numbers (0-3 move, 4-7
//             move + terastallize, 8-13 switch to team slot k; -1: the side does not act); `states` after
//             the start and after each decision: {seed, turn, request ('move' | 'switch' | 'ended'),
//             winner (0, 1, 2 tie, null), midTurn (the residual still queued: a self-switch's request in
//             the middle of the turn), weather ([field.weather, its duration left]: ['', 0] for none), sides: [{active, pokemonLeft, speed (the active's cached
//             Pokemon.speed), switchFlag, queued (the move slot of the side's move action still queued, its
//             Pokémon not fainted; 0 for Struggle; -1: none), flinch, confusion (its turns left, 0: none), moved (activeMoveActions > 0), hazards (layers of Stealth Rock, Spikes, Toxic Spikes,
//             Sticky Web), screens (the turns left of Reflect, Light Screen, Aurora Veil; 0: none), hazardOrder (each one's
//             rank, 1-4, in the order they were set, 0: absent), protect, stall (its counter), taunt (the
//             taunt volatile's duration, 0: none), lastMove (the slot of the active's lastMove, 4: in no
//             slot, -1: none), encore (the encore volatile's duration, 0: none), encoreSlot (the slot of its
//             move, -1: none), locked (the lockedmove volatile's [duration, trueDuration, slot of its move], [0, 0,
//             -1]: none), recharge (the mustrecharge volatile), charge (the twoturnmove volatile's [duration, whether
//             the charging move's own volatile is held, slot of that move], [0, false, -1]: none), throatChop, healBlock (those volatiles' durations, 0: none), volatileOrder (the ids of
//             the active's volatiles in LISTED, in the order of its volatiles' keys: the order they were added), legal (the move actions 0-3 the side's request offers:
//             requestMoves), switches (the team slots it offers to switch to: requestSwitches), noRetreat, saltCure, shackled (the
//             noretreat, saltcure and trapped volatiles), failed (an active not fainted: [moveLastTurnResult === false,
//             moveThisTurnResult === false]), boosts,
//             canTerastallize, pokemon (team order): [{hp, status, fainted, pp, statusCount (tox's stage,
//             slp's time, else 0), selfSleep (asleep by its own move, Rest: the Sleep Clause Mod
//             lets it through), terastallized, stellar, timesAttacked, position, species}]}]}; `error`: a choice Showdown refused (play stops there). With `trace`, every
//             PRNG draw with its callers (`draws`, `marks`: the draw count at each state) and the log
//   choices   {cases: [{teams, seed, sides: [edit, edit], request: 'move' | 'switch'}]}
//             -> {results: [{accepted: [[14 bools], [14 bools]], request}]}: a started battle with
//             each side edited ({active: slot to switch in, faint: [slots], pp: [[move slot, pp]] of
//             the active, terastallized: bool, canTerastallize: bool, faintActive: bool}), then for each
//             side whether Side.choose accepts each of pokejax's 14 actions ('move N', 'move N
//             terastallize', 'switch P' for the position P of team slot k); request 'switch' makes a
//             forced-switch request for the sides whose active fainted
//   speedsort {cases: [{handlers: [{id, order, priority, speed, subOrder}], seed}]} -> {results: [{ids, draws}]}:
//             Battle.speedSort (the sort of fieldEvent's handlers, comparePriority) of those handler records, the
//             battle's PRNG starting at `seed`: the ids in the sorted order and the draws [m, n, result] it made
//   speed     {battles, seed, format?} -> {decisions, battles, seconds, fallbacks}: Showdown's own speed on
//             whole random battles (its team generator, no restriction), both players choosing uniformly
//             among the legal choices their request offers (moves, moves + terastallize, switches), as a
//             client reads them; one commitChoices per decision. `fallbacks`: choices Showdown refused
//             (replaced by its autoChoose); `seconds` include the team generation

const path = require('path');
const readline = require('readline');
const PACKAGE = process.env.POKEJAX_SHOWDOWN_PACKAGE ||
  path.join(__dirname, '..', '..', 'showdown', 'node_modules', 'pokemon-showdown');
const PS = require(PACKAGE);
const {Battle, Teams, PRNG} = PS;

function cmdTeams(msg) {
  const format = msg.format || 'gen9randombattle';
  const teams = msg.seeds.map(seed => {
    const sets = Teams.generate(format, {seed});
    const battle = new Battle({formatid: format, seed: [0, 0, 0, 1]});
    battle.setPlayer('p1', {name: 'P1', team: sets});
    const stats = battle.sides[0].pokemon.map(p => Object.assign({maxhp: p.maxhp}, p.storedStats));
    battle.destroy();
    return {sets, stats};
  });
  return {teams};
}

// A battle of two one-Pokemon teams, with statuses, boosts and Terastallization applied as given.
function duel(sets, setup) {
  const battle = new Battle({formatid: setup.format || 'gen9randombattle', seed: setup.seed || [0, 0, 0, 1]});
  battle.setPlayer('p1', {name: 'P1', team: [sets[0]]});
  battle.setPlayer('p2', {name: 'P2', team: [sets[1]]});
  const mons = [battle.sides[0].active[0], battle.sides[1].active[0]];
  for (let i = 0; i < 2; i++) {
    const p = mons[i];
    if (setup.status && setup.status[i]) p.setStatus(setup.status[i], p, null, true);
    if (setup.boosts && setup.boosts[i]) p.boostBy(setup.boosts[i]);
    if (setup.tera && setup.tera[i]) {
      p.teraType = setup.tera[i];
      battle.actions.terastallize(p);
    }
    if (setup.stellar && setup.stellar[i]) p.stellarBoostedTypes = setup.stellar[i].slice();
  }
  return {battle, mons};
}

function cmdDamage(msg) {
  const results = msg.cases.map(c => {
    const {battle, mons} = duel([c.attacker, c.defender], c);
    const [attacker, defender] = mons;
    const move = battle.dex.getActiveMove(c.move);
    const draws = [];
    if (c.rng) {
      // the battle's own PRNG at this seed: the crit and roll draws as Showdown makes them
      battle.prng = new PRNG(c.rng);
      const raw = battle.prng.random.bind(battle.prng);
      battle.prng.random = (m, n) => {
        const r = raw(m, n);
        draws.push([m === undefined ? null : m, n === undefined ? null : n, r]);
        return r;
      };
    } else {
      move.willCrit = !!c.crit;
      battle.random = (m, n) => {
        draws.push([m === undefined ? null : m, n === undefined ? null : n]);
        if (m !== 16 || n !== undefined) throw new Error(`unexpected draw random(${m}, ${n}) in getDamage`);
        return c.roll;
      };
    }
    const damage = battle.actions.getDamage(attacker, defender, move, true);
    const hit = defender.getMoveHitData(move);
    const seed = battle.prng.getSeed();
    battle.destroy();
    return {damage: damage === undefined ? null : damage, draws, typeMod: hit.typeMod === undefined ? null : hit.typeMod,
      crit: !!hit.crit, seed, stellar: attacker.stellarBoostedTypes.slice()};
  });
  return {results};
}

function cmdAccuracy(msg) {
  const results = msg.cases.map(c => {
    const {battle, mons} = duel([c.attacker, c.defender], c);
    const [attacker, defender] = mons;
    battle.prng = new PRNG(c.rng);
    const draws = [];
    const raw = battle.prng.random.bind(battle.prng);
    battle.prng.random = (m, n) => { const r = raw(m, n); draws.push([m === undefined ? null : m, n === undefined ? null : n, r]); return r; };
    const move = battle.dex.getActiveMove(c.move);
    const [hit] = battle.actions.hitStepAccuracy([defender], attacker, move);
    const result = {hit: !!hit, draws, seed: battle.prng.getSeed()};
    battle.destroy();
    return result;
  });
  return {results};
}

function cmdOrder(msg) {
  const results = msg.cases.map(c => {
    const {battle, mons} = duel(c.sets, Object.assign({}, c, {seed: c.seed}));
    battle.prng = new PRNG(c.seed);
    const draws = [];
    const raw = battle.prng.random.bind(battle.prng);
    battle.prng.random = (m, n) => { const r = raw(m, n); draws.push([m === undefined ? null : m, n === undefined ? null : n, r]); return r; };
    // the queue as Showdown builds it for one turn: each side's move action, then sorted
    for (let i = 0; i < 2; i++) {
      battle.queue.addChoice({choice: 'move', pokemon: mons[i], moveid: c.moves[i], targetLoc: 1});
    }
    battle.queue.sort();
    const result = {first: battle.queue.list[0].pokemon.side.n, draws, seed: battle.prng.getSeed(),
      speeds: mons.map(p => p.getActionSpeed()), priorities: battle.queue.list.map(a => [a.pokemon.side.n, a.priority])};
    battle.destroy();
    return result;
  });
  return {results};
}


function cmdSpeedSort(msg) {
  const battle = new Battle({formatid: 'gen9randombattle', seed: [0, 0, 0, 1]});
  const results = msg.cases.map(c => {
    battle.prng = new PRNG(c.seed);
    const draws = [];
    const raw = battle.prng.random.bind(battle.prng);
    battle.prng.random = (m, n) => { const r = raw(m, n); draws.push([m === undefined ? null : m, n === undefined ? null : n, r]); return r; };
    // comparePriority reads `order || 2**32`: a handler of no order is sent with order null
    const list = c.handlers.map(h => Object.assign({}, h, {order: h.order === null ? false : h.order}));
    battle.speedSort(list);
    return {ids: list.map(h => h.id), draws};
  });
  battle.destroy();
  return {results};
}

function snapPokemon(p) {
  return {species: p.species.id, level: p.level, types: p.types.slice(), maxhp: p.maxhp, hp: p.hp,
    stats: Object.assign({}, p.storedStats), status: p.status, moves: p.moveSlots.map(m => m.id),
    pp: p.moveSlots.map(m => m.pp), maxpp: p.moveSlots.map(m => m.maxpp), ability: p.ability, item: p.item,
    teraType: p.teraType, canTerastallize: p.canTerastallize || null, terastallized: p.terastallized || null,
    stellar: p.stellarBoostedTypes.slice(), fainted: !!p.fainted, boosts: Object.assign({}, p.boosts), slot: p.m.slot};
}

function snapBattle(battle) {
  return {seed: battle.prng.getSeed(), turn: battle.turn, requestState: battle.requestState,
    sides: battle.sides.map(side => ({pokemonLeft: side.pokemonLeft,
      active: side.active[0] ? side.active[0].m.slot : null, pokemon: side.pokemon.map(snapPokemon)}))};
}

// A battle of two teams at a seed; `created` is its snapshot just before Battle.start.
function teamBattle(c) {
  const battle = new Battle({formatid: c.format || 'gen9randombattle', seed: c.seed});
  let created = null;
  const start = battle.start.bind(battle);
  battle.start = () => {
    // the team slot of each Pokemon, kept through Showdown's reordering of side.pokemon on switches
    for (const side of battle.sides) side.pokemon.forEach((p, k) => { p.m.slot = k; });
    created = snapBattle(battle);
    start();
  };
  for (let i = 0; i < 2; i++) battle.setPlayer(`p${i + 1}`, {name: `P${i + 1}`, team: c.teams[i]});
  return {battle, created};
}

function cmdBattle(msg) {
  const results = msg.cases.map(c => {
    const {battle, created} = teamBattle(c);
    const result = {created, started: snapBattle(battle)};
    battle.destroy();
    return result;
  });
  return {results};
}

function cmdChoices(msg) {
  const results = msg.cases.map(c => {
    const {battle} = teamBattle(c);
    battle.sides.forEach((side, i) => {
      const edit = c.sides[i] || {};
      const bySlot = k => side.pokemon.find(p => p.m.slot === k);
      if (edit.active !== undefined && edit.active !== side.active[0].m.slot) {
        battle.actions.switchIn(bySlot(edit.active), 0);
      }
      for (const k of edit.faint || []) {
        const p = bySlot(k);
        p.hp = 0; p.fainted = true; side.pokemonLeft--;
      }
      const active = side.active[0];
      for (const [m, pp] of edit.pp || []) active.moveSlots[m].pp = pp;
      if (edit.terastallized) battle.actions.terastallize(active);
      if (edit.canTerastallize === false) side.pokemon.forEach(p => { p.canTerastallize = null; });
      if (edit.faintActive) { active.hp = 0; active.fainted = true; side.pokemonLeft--; active.switchFlag = true; }
    });
    battle.makeRequest(c.request || 'move');
    const accepted = battle.sides.map(side => {
      const position = k => side.pokemon.findIndex(p => p.m.slot === k) + 1;
      const texts = [1, 2, 3, 4].map(n => `move ${n}`).concat([1, 2, 3, 4].map(n => `move ${n} terastallize`),
        [0, 1, 2, 3, 4, 5].map(k => position(k) > 0 ? `switch ${position(k)}` : null));
      return texts.map(text => {
        if (text === null) return false;
        side.clearChoice();
        const ok = !!side.choose(text);
        side.clearChoice();
        return ok;
      });
    });
    const result = {accepted, request: battle.requestState};
    battle.destroy();
    return result;
  });
  return {results};
}

// A whole battle of two given teams at a seed, played with pokejax action numbers (see cmdPlay).
function playChoice(side, action) {
  // a request offering one move that nothing disables (a locked move, lockedmove) names it ``move 1``
  const req = side.activeRequest;
  const offered = req && req.active && !req.forceSwitch ? req.active[0].moves : [];
  if (action < 4 && offered.length === 1 && offered[0].disabled === undefined) return 'move 1';
  if (action < 4) return `move ${action + 1}`;
  if (action < 8) return `move ${action - 3} terastallize`;
  const position = side.pokemon.findIndex(p => p.m.slot === action - 8) + 1;
  return `switch ${position}`;
}

// The entry hazards of pokejax's BattleState.hazards, in its order (layers; 1 for one-layer hazards).
const HAZARDS = ['stealthrock', 'spikes', 'toxicspikes', 'stickyweb'];
// The screens of pokejax's BattleState.screens, in its order (their turns left).
const SCREENS = ['reflect', 'lightscreen', 'auroraveil'];
// the volatiles the residual lists that a decision's state can hold (roost's ends within its turn)
const LISTED = ['flinch', 'protect', 'stall', 'taunt', 'encore', 'throatchop', 'healblock', 'leechseed', 'yawn',
  'lockedmove', 'mustrecharge', 'twoturnmove', 'saltcure'];
// the two-turn moves pokejax runs (their own volatile marks a charged move)
const CHARGE = ['meteorbeam', 'solarbeam'];

// The active's twoturnmove volatile: [its duration, whether a charging move's own volatile is held, that move's slot].
function chargeOf(active) {
  const two = active && active.volatiles['twoturnmove'];
  const charged = active ? CHARGE.find(id => active.volatiles[id]) : undefined;
  const move = two ? two.move : charged;
  return [two ? two.duration : 0, !!charged, move ? slotOf(active, move) : -1];
}

// The move slot (0-3) of a move of the Pokemon, 4 for one in no slot (Struggle).
function slotOf(pokemon, id) {
  const k = pokemon.moveSlots.findIndex(m => m.id === id);
  return k < 0 ? 4 : k;
}

// The move actions (pokejax's 0-3) the side's request offers: the slots of the moves not disabled (Struggle,
// offered alone when none is left, and a locked move are one slot each); none when the side does not choose
// a move.
function requestMoves(battle, side) {
  const req = side.activeRequest;
  const none = [false, false, false, false];
  if (battle.ended || !req || req.wait || req.forceSwitch || !req.active) return none;
  const active = side.active[0];
  const moves = req.active[0].moves;
  if (moves.length === 1 && (moves[0].id === 'struggle' || moves[0].disabled === undefined)) {
    const k = Math.max(active.moveSlots.findIndex(m => m.id === moves[0].id), 0);
    return none.map((_, i) => i === k);
  }
  return none.map((_, i) => i < moves.length && !moves[i].disabled);
}

// The switches (team slots 0-5) the side's request offers: none while it waits or is trapped (a locked move, the
// noretreat volatile), else its Pokemon not fainted and not active.
function requestSwitches(battle, side) {
  const req = side.activeRequest;
  const none = [false, false, false, false, false, false];
  if (battle.ended || !req || req.wait) return none;
  if (req.forceSwitch ? !req.forceSwitch[0] : (!req.active || req.active[0].trapped)) return none;
  return none.map((_, k) => {
    const p = side.pokemon.find(q => q.m.slot === k);
    return !!p && !p.fainted && !p.isActive;
  });
}

function snapPlay(battle) {
  const winner = !battle.ended ? null : battle.winner === 'P1' ? 0 : battle.winner === 'P2' ? 1 : 2;
  return {seed: battle.prng.getSeed(), turn: battle.turn, request: battle.ended ? 'ended' : battle.requestState,
    midTurn: !battle.ended && battle.queue.list.some(a => a.choice === 'residual'),
    weather: [battle.field.weather, battle.field.weather ? battle.field.weatherState.duration : 0],
    winner, sides: battle.sides.map(side => {
      const bySlot = [...side.pokemon].sort((a, b) => a.m.slot - b.m.slot);
      const active = side.active[0];
      return {active: active ? active.m.slot : null, pokemonLeft: side.pokemonLeft, speed: active ? active.speed : null,
        switchFlag: !!(active && active.switchFlag),
        queued: battle.queue.list.filter(a => !battle.ended && a.choice === 'move' && a.pokemon.side === side && !a.pokemon.fainted)
          .map(a => Math.max(a.pokemon.moveSlots.findIndex(m => m.id === a.moveid), 0)).concat([-1])[0], flinch: !!(active && active.volatiles['flinch']), confusion: active && active.volatiles['confusion'] ? active.volatiles['confusion'].time : 0,
        hazards: HAZARDS.map(id => side.sideConditions[id] ? (side.sideConditions[id].layers || 1) : 0),
        hazardOrder: HAZARDS.map(id => Object.keys(side.sideConditions).filter(c => HAZARDS.includes(c)).indexOf(id) + 1),
        protect: !!(active && active.volatiles['protect']), seeded: !!(active && active.volatiles['leechseed']),
        yawn: active && active.volatiles['yawn'] ? active.volatiles['yawn'].duration : 0,
        raised: !!(active && active.statsRaisedThisTurn), lowered: !!(active && active.statsLoweredThisTurn),
        stall: active && active.volatiles['stall'] ? active.volatiles['stall'].counter : 0,
        sub: active && active.volatiles['substitute'] ? active.volatiles['substitute'].hp : 0,
        taunt: active && active.volatiles['taunt'] ? active.volatiles['taunt'].duration : 0,
        lastMove: active && active.lastMove ? slotOf(active, active.lastMove.id) : -1,
        encore: active && active.volatiles['encore'] ? active.volatiles['encore'].duration : 0,
        throatChop: active && active.volatiles['throatchop'] ? active.volatiles['throatchop'].duration : 0,
        healBlock: active && active.volatiles['healblock'] ? active.volatiles['healblock'].duration : 0,
        volatileOrder: active ? Object.keys(active.volatiles).filter(id => LISTED.includes(id)) : [],
        encoreSlot: active && active.volatiles['encore'] ? slotOf(active, active.volatiles['encore'].move) : -1,
        locked: active && active.volatiles['lockedmove'] ? [active.volatiles['lockedmove'].duration,
          active.volatiles['lockedmove'].trueDuration, slotOf(active, active.volatiles['lockedmove'].move)] : [0, 0, -1],
        recharge: !!(active && active.volatiles['mustrecharge']),
        charge: chargeOf(active),
        legal: requestMoves(battle, side), switches: requestSwitches(battle, side),
        noRetreat: !!(active && active.volatiles['noretreat']),
        saltCure: !!(active && active.volatiles['saltcure']), shackled: !!(active && active.volatiles['trapped']),
        glaive: !!(active && !active.fainted && active.volatiles['glaiverush']),
        failed: active && !active.fainted ? [active.moveLastTurnResult === false, active.moveThisTurnResult === false]
          : [false, false],
        screens: SCREENS.map(id => side.sideConditions[id] ? side.sideConditions[id].duration : 0),
        wishHp: side.slotConditions[0].wish ? side.slotConditions[0].wish.hp * 2 : 0,
        wishTurn: side.slotConditions[0].wish ? side.slotConditions[0].wish.startingTurn : -1,
        moved: !!(active && active.activeMoveActions > 0), boosts: active ? Object.assign({}, active.boosts) : null,
        canTerastallize: bySlot.some(p => p.canTerastallize),
        pokemon: bySlot.map(p => ({hp: p.hp, status: p.status, fainted: !!p.fainted, pp: p.moveSlots.map(m => m.pp),
          statusCount: p.status === 'tox' ? p.statusState.stage : p.status === 'slp' ? p.statusState.time : 0,
          selfSleep: p.status === 'slp' && !!p.statusState.source && p.statusState.source.isAlly(p),
          terastallized: p.terastallized || null, stellar: p.stellarBoostedTypes.slice(), timesAttacked: p.timesAttacked,
          position: p.position, species: p.species.id}))};
    })};
}

function cmdPlay(msg) {
  const results = msg.cases.map(c => {
    const draws = [];
    const battle = new Battle({formatid: c.format || 'gen9randombattle', seed: c.seed});
    if (c.trace) {
      const raw = battle.prng.random.bind(battle.prng);
      battle.prng.random = (m, n) => {
        const r = raw(m, n);
        const frames = new Error().stack.split('\n').slice(2, 9).map(l => (l.trim().split(' ')[1] || '?').replace(/^(Battle|BattleActions|BattleQueue|PRNG|Pokemon|Side)\./, ''));
        draws.push([m === undefined ? null : m, n === undefined ? null : n, r, frames.join('<')]);
        return r;
      };
    }
    const start = battle.start.bind(battle);
    battle.start = () => {
      for (const side of battle.sides) side.pokemon.forEach((p, k) => { p.m.slot = k; });
      start();
    };
    for (let i = 0; i < 2; i++) battle.setPlayer(`p${i + 1}`, {name: `P${i + 1}`, team: c.teams[i]});
    const states = [snapPlay(battle)];
    const marks = [draws.length];
    let error = null;
    for (const pair of c.actions) {
      if (battle.ended) break;
      const texts = battle.sides.map((side, i) => (pair[i] >= 0 && side.requestState !== 'wait') ? playChoice(side, pair[i]) : null);
      battle.sides.forEach((side, i) => {
        if (!error && texts[i] !== null && !side.choose(texts[i])) error = `side ${i} refused ${texts[i]}: ${side.choice.error}`;
      });
      if (!error && !battle.allChoicesDone()) error = `choices ${JSON.stringify(texts)} leave the decision open`;
      if (error) break;   // the states differ already: what came before says where
      battle.commitChoices();
      states.push(snapPlay(battle));
      marks.push(draws.length);
    }
    const result = {states, error};
    if (c.trace) { result.draws = draws; result.marks = marks; result.log = battle.log; }
    battle.destroy();
    return result;
  });
  return {results};
}

// Showdown's own random-play speed (the `speed` command above). The choices come from each side's
// request as a client would read them, not from trying every choice text (which costs Showdown
// more than the decision itself).
function requestChoices(side) {
  const req = side.activeRequest;
  if (!req || req.wait) return [];
  const switches = [];
  req.side.pokemon.forEach((p, i) => { if (!p.active && !p.condition.endsWith(' fnt')) switches.push(`switch ${i + 1}`); });
  if (req.forceSwitch) return switches;
  const active = req.active[0];
  const options = [];
  active.moves.forEach((m, i) => {
    if (m.disabled) return;
    options.push(`move ${i + 1}`);
    if (active.canTerastallize) options.push(`move ${i + 1} terastallize`);
  });
  if (!options.length) options.push('move 1');
  return (active.trapped || active.maybeTrapped) ? options : options.concat(switches);
}

function cmdSpeed(msg) {
  const prng = new PRNG(msg.seed || [1, 2, 3, 4]);
  const word = () => prng.random(65536);
  let decisions = 0, fallbacks = 0;
  const t0 = process.hrtime.bigint();
  for (let b = 0; b < msg.battles; b++) {
    const battle = new Battle({formatid: msg.format || 'gen9randombattle', seed: [word(), word(), word(), word()]});
    // a player's seed seeds its team (without one Showdown's generator draws from Math.random)
    battle.setPlayer('p1', {name: 'P1', seed: [word(), word(), word(), word()]});
    battle.setPlayer('p2', {name: 'P2', seed: [word(), word(), word(), word()]});
    while (!battle.ended) {
      for (const side of battle.sides) {
        const options = requestChoices(side);
        if (!options.length) continue;
        if (!side.choose(options[prng.random(options.length)])) { side.clearChoice(); side.autoChoose(); fallbacks++; }
      }
      if (!battle.allChoicesDone()) { battle.sides.forEach(side => { if (!side.isChoiceDone()) side.autoChoose(); }); fallbacks++; }
      battle.commitChoices();
      decisions++;
    }
    battle.destroy();
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return {decisions, battles: msg.battles, seconds, fallbacks};
}

const COMMANDS = {teams: cmdTeams, damage: cmdDamage, accuracy: cmdAccuracy, order: cmdOrder, battle: cmdBattle,
  choices: cmdChoices, play: cmdPlay, speed: cmdSpeed, speedsort: cmdSpeedSort,
  ping: () => ({version: require(path.join(PACKAGE, 'package.json')).version})};

const rl = readline.createInterface({input: process.stdin, terminal: false});
const send = reply => process.stdout.write(JSON.stringify(reply) + '\n');
rl.on('line', line => {
  if (!line.trim()) return;
  try {
    const msg = JSON.parse(line);
    const fn = COMMANDS[msg.cmd];
    if (!fn) throw new Error(`unknown command ${msg.cmd}`);
    send(Object.assign({ok: true}, fn(msg)));
  } catch (err) {
    send({ok: false, error: String(err && err.stack || err)});
  }
});
