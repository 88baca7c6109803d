'use strict';
// pokejax's bridge to Pokemon Showdown: many battles in one long-lived node process.
//
// Protocol: one JSON object per line on stdin, one JSON reply per line on stdout.
// Every request carries a "cmd"; every reply carries "ok" (and "error" when ok is false).
// Battles are addressed by an integer id chosen by the bridge.
//
// Commands
//   start     {format, seed, p1: {team?, seed?}, p2: {...}, trace?} -> {id, log, requests, state}
//   choose    {id, p1?, p2?}  choices are strings ("move 1", "switch 3") or
//             {"move": i} (0-based move slot) / {"switch": k} (0-based ORIGINAL team index)
//             -> {log, requests, state, draws?}
//   destroy   {id}
//   prng      {seed, calls: [[name, ...args]]} -> {results, seed}
//   generate  {format, seed} -> {packed, sets}
//   damage    {p1: set, p2: set, attacker: 0|1, move, seed, setup?} -> {damage, seed, crit}
//   speed     {battles, turns?, format, seed} random-play benchmark -> {turns, seconds}
//   speed_stream {battles, format, seed} the same through Showdown's own battle streams: its
//             test Runner with two RandomPlayerAI players (the protocol text, requests as JSON,
//             choices parsed back) -> {turns, seconds}
//   scan      {format, teams: [p1, p2], script: [[a1, a2], ...], seeds: [[4 words], ...], patterns,
//             limit?} -> {matches: [[seed index, ...] per pattern]}  plays a scripted battle at each
//             battle seed (actions 0-3 move slot, 4+k switch to team index k; an action that is not
//             legal there becomes the first legal one) and reports which seeds' protocol logs match
//             each regular expression (up to ``limit`` seeds per pattern)
//
// Team slots: side.pokemon is reordered by Showdown on every switch; the bridge tags each
// Pokemon with its original team index so that callers can speak in fixed team slots.

const path = require('path');
const readline = require('readline');
const PS = require(path.join(__dirname, 'node_modules', 'pokemon-showdown'));
const {Battle, PRNG, Teams, Dex} = PS;

const battles = new Map();
let nextId = 1;

// ---------------------------------------------------------------------------------------------
// Draw tracing: wrap PRNG.prototype.random once; battles opt in by setting prng._trace = [].
const rawRandom = PRNG.prototype.random;
PRNG.prototype.random = function (from, to) {
  const result = rawRandom.call(this, from, to);
  if (this._trace) {
    let site = '';
    if (this._traceSites) {
      site = new Error().stack.split('\n').slice(2, 8).map(s => s.trim().replace(/^at /, '').split(' (')[0])
        .filter(s => !/^PRNG\.|^Battle\.(random|randomChance|sample)$/.test(s)).slice(0, 3).join('<');
    }
    this._trace.push([from === undefined ? null : from, to === undefined ? null : to, result, site]);
  }
  return result;
};

// ---------------------------------------------------------------------------------------------
function pokemonRef(pokemon) {
  if (!pokemon || !pokemon.side) return null;
  return [pokemon.side.n, pokemon._origIndex];
}

function plainValue(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof PS.Pokemon) return pokemonRef(v);
  if (Array.isArray(v)) return v.map(plainValue);
  if (typeof v === 'object' && v.effectType) return v.id || v.name || null;  // an effect/move
  if (typeof v === 'object' && v.id !== undefined && typeof v.id === 'string') return v.id;
  return undefined;  // other objects are left out
}

const SKIP_STATE_KEYS = new Set(['id', 'name', 'target', 'effectOrder', 'sourceSlot', 'sourceEffect', 'linkedStatus']);

function effectState(state) {
  const out = {};
  for (const key of Object.keys(state)) {
    if (SKIP_STATE_KEYS.has(key)) continue;
    const v = plainValue(state[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function moveSlotsOf(slots) {
  return slots.map(s => ({id: s.id, pp: s.pp, maxpp: s.maxpp, disabled: !!s.disabled, virtual: !!s.virtual}));
}

function pokemonSnapshot(p) {
  const volatiles = {};
  for (const id of Object.keys(p.volatiles)) volatiles[id] = effectState(p.volatiles[id]);
  return {
    species: p.species.id,
    base_species: p.baseSpecies.id,
    level: p.level,
    hp: p.hp,
    maxhp: p.maxhp,
    status: p.status || '',
    status_state: p.status ? effectState(p.statusState) : {},
    fainted: !!p.fainted,
    active: !!p.isActive,
    position: p.position,
    types: p.getTypes(),
    boosts: Object.assign({}, p.boosts),
    stored_stats: Object.assign({}, p.storedStats),
    base_stored_stats: Object.assign({}, p.baseStoredStats),
    modified_stats: Object.assign({}, p.modifiedStats),
    speed: p.speed,
    volatiles,
    move_slots: moveSlotsOf(p.moveSlots),
    base_move_slots: moveSlotsOf(p.baseMoveSlots),
    last_move: p.lastMove ? p.lastMove.id : null,
    transformed: !!p.transformed,
    sub_fainted: !!p.subFainted,
  };
}

function sideSnapshot(side) {
  const team = [];
  for (const p of side.pokemon) team[p._origIndex] = pokemonSnapshot(p);
  const active = side.active[0];
  return {
    team,
    active: active ? active._origIndex : null,
    order: side.pokemon.map(p => p._origIndex),
    pokemon_left: side.pokemonLeft,
    last_selected_move: side.lastSelectedMove || '',
    last_selected_move_slot: side.lastSelectedMoveSlot,
    last_move: side.lastMove ? side.lastMove.id : null,
    last_enemy_move: side.lastEnemyMove ? side.lastEnemyMove.id : null,
    last_enemy_selected_move: side.lastEnemySelectedMove || '',
    fainted_this_turn: !!side.faintedThisTurn,
    fainted_last_turn: !!side.faintedLastTurn,
    request_state: side.requestState || '',
  };
}

function battleSnapshot(battle) {
  return {
    turn: battle.turn,
    ended: !!battle.ended,
    winner: battle.winner || '',
    request_state: battle.requestState || '',
    last_damage: battle.lastDamage,
    seed: battle.prng.getSeed(),
    sides: battle.sides.map(sideSnapshot),
  };
}

// The legal choices of one side, in the caller's vocabulary: move slot indices and original
// team indices to switch to (plus the raw request for reference).
function legalChoices(side) {
  const req = side.activeRequest;
  if (!req || req.wait || side.battle.ended) return {kind: 'wait', moves: [], switches: [], forced_move: null};
  const switches = [];
  const trapped = !!(req.active && req.active[0] && req.active[0].trapped);
  if (!trapped) {
    side.pokemon.forEach((p, pos) => {
      if (pos >= side.active.length && !p.fainted) switches.push(p._origIndex);
    });
  }
  if (req.forceSwitch) return {kind: 'switch', moves: [], switches, forced_move: null};
  const moves = [];
  let forced = null;
  const activeReq = req.active[0];
  const lockedIds = new Set(['fight', 'struggle', 'recharge']);
  if (activeReq.moves.length === 1 && (lockedIds.has(activeReq.moves[0].id) || activeReq.moves[0].pp === undefined)) {
    forced = activeReq.moves[0].id;
    moves.push(0);
  } else {
    activeReq.moves.forEach((m, i) => { if (!m.disabled) moves.push(i); });
  }
  return {kind: 'move', moves, switches, forced_move: forced, trapped};
}

function toChoiceString(side, choice) {
  if (choice === null || choice === undefined) return null;
  if (typeof choice === 'string') return choice;
  if (choice.move !== undefined) return `move ${choice.move + 1}`;
  if (choice.switch !== undefined) {
    const pos = side.pokemon.findIndex(p => p._origIndex === choice.switch);
    if (pos < 0) throw new Error(`no team member ${choice.switch}`);
    return `switch ${pos + 1}`;
  }
  throw new Error(`bad choice ${JSON.stringify(choice)}`);
}

function takeLog(entry) {
  const log = entry.battle.log.slice(entry.logPos).filter(l => !l.startsWith('|t:|'));
  entry.logPos = entry.battle.log.length;
  return log;
}

function takeDraws(entry) {
  if (!entry.battle.prng._trace) return undefined;
  const draws = entry.battle.prng._trace;
  entry.battle.prng._trace = [];
  return draws;
}

function battleReply(entry) {
  const battle = entry.battle;
  return {
    id: entry.id,
    log: takeLog(entry),
    choices: battle.sides.map(legalChoices),
    state: battleSnapshot(battle),
    draws: takeDraws(entry),
  };
}

// ---------------------------------------------------------------------------------------------
function teamOption(spec) {
  const opt = {name: spec.name || 'P'};
  if (spec.team !== undefined && spec.team !== null) opt.team = spec.team;
  if (spec.seed !== undefined && spec.seed !== null) opt.seed = spec.seed;
  return opt;
}

function cmdStart(msg) {
  const battle = new Battle({formatid: msg.format || 'gen1randombattle', seed: msg.seed});
  const entry = {id: nextId++, battle, logPos: 0};
  if (msg.trace) {
    battle.prng._trace = [];
    battle.prng._traceSites = msg.trace === 'sites';
  }
  // Tag original team indices as each side is built (setPlayer creates the Pokemon).
  const p1 = teamOption(Object.assign({name: 'P1'}, msg.p1 || {}));
  const p2 = teamOption(Object.assign({name: 'P2'}, msg.p2 || {}));
  battle.setPlayer('p1', p1);
  battle.sides[0].pokemon.forEach((p, i) => { p._origIndex = i; });
  battle.setPlayer('p2', p2);
  battle.sides[1].pokemon.forEach((p, i) => { p._origIndex = i; });
  battles.set(entry.id, entry);
  const reply = battleReply(entry);
  reply.teams = battle.sides.map(side => Teams.pack(side.pokemon.map(p => p.set)));
  return reply;
}

function cmdChoose(msg) {
  const entry = battles.get(msg.id);
  if (!entry) throw new Error(`no battle ${msg.id}`);
  const battle = entry.battle;
  if (battle.ended) throw new Error('battle has ended');
  const inputs = [msg.p1, msg.p2];
  for (let i = 0; i < 2; i++) {
    const side = battle.sides[i];
    if (!side.activeRequest || side.activeRequest.wait) continue;
    const choice = toChoiceString(side, inputs[i]);
    if (choice === null) {
      side.autoChoose();
    } else if (!side.choose(choice)) {
      throw new Error(`invalid choice for ${side.id}: ${choice}: ${side.choice.error}`);
    }
  }
  if (!battle.allChoicesDone()) throw new Error('choices incomplete');
  battle.commitChoices();
  return battleReply(entry);
}

function cmdDestroy(msg) {
  const entry = battles.get(msg.id);
  if (entry) {
    entry.battle.destroy();
    battles.delete(msg.id);
  }
  return {};
}

function cmdPrng(msg) {
  const prng = new PRNG(msg.seed);
  const results = [];
  for (const [name, ...args] of msg.calls) {
    if (name === 'next') results.push(prng.rng.next());
    else if (name === 'random') results.push(prng.random(...args));
    else if (name === 'randomChance') results.push(prng.randomChance(...args));
    else if (name === 'sample') results.push(prng.sample(args[0]));
    else if (name === 'shuffle') { const arr = args[0].slice(); prng.shuffle(arr, args[1], args[2]); results.push(arr); }
    else throw new Error(`unknown prng call ${name}`);
  }
  return {results, seed: prng.getSeed()};
}

function cmdGenerate(msg) {
  const team = Teams.generate(msg.format || 'gen1randombattle', {seed: msg.seed});
  return {packed: Teams.pack(team), sets: team};
}

// Damage of one move between two custom Pokemon, with the battle PRNG at a given seed.
// setup: {boosts: [{...},{...}], status: ['', 'brn'], volatiles: [[...], [...]], hp: [..]}.
function cmdDamage(msg) {
  // gen1randombattle, not gen1customgame: custom games swap the cartridge truncation for Math.trunc
  const battle = new Battle({formatid: msg.format || 'gen1randombattle', seed: [0, 0, 0, 1]});
  battle.setPlayer('p1', {name: 'P1', team: [msg.p1]});
  battle.setPlayer('p2', {name: 'P2', team: [msg.p2]});
  const mons = [battle.sides[0].active[0], battle.sides[1].active[0]];
  const setup = msg.setup || {};
  for (let i = 0; i < 2; i++) {
    const p = mons[i];
    if (setup.status && setup.status[i]) {
      p.status = setup.status[i];
      p.statusState = battle.initEffectState({id: p.status, target: p});
      if (p.status === 'par') p.modifyStat('spe', 0.25);
      if (p.status === 'brn') p.modifyStat('atk', 0.5);
    }
    if (setup.boosts && setup.boosts[i]) p.boostBy(setup.boosts[i]);
    if (setup.volatiles && setup.volatiles[i]) for (const v of setup.volatiles[i]) p.volatiles[v] = battle.initEffectState({id: v, target: p});
    if (setup.types && setup.types[i]) p.setType(setup.types[i]);
  }
  battle.prng = new PRNG(msg.seed);
  battle.prng._trace = [];
  const attacker = mons[msg.attacker || 0];
  const defender = mons[1 - (msg.attacker || 0)];
  const move = battle.dex.getActiveMove(msg.move);
  const damage = battle.actions.getDamage(attacker, defender, move, true);
  const crit = !!(defender.getMoveHitData(move).crit);
  // how Showdown rates the hit: immunity and the summed type effectiveness (+1 per doubling)
  const immune = !defender.runImmunity(move.type);
  const effectiveness = defender.runEffectiveness(move);
  const draws = battle.prng._trace;
  const seed = battle.prng.getSeed();
  battle.destroy();
  return {damage: damage === undefined ? null : damage, crit, seed, draws, immune, effectiveness,
    stats: mons.map(p => ({stored: p.storedStats, modified: p.modifiedStats, maxhp: p.maxhp}))};
}

// A seed of four 16-bit words drawn from a benchmark's own generator.
const drawSeed = prng => [prng.random(65536), prng.random(65536), prng.random(65536), prng.random(65536)];

// Random-play speed of Showdown itself: battles with uniformly random legal choices.
function cmdSpeed(msg) {
  const prng = new PRNG(msg.seed || [1, 2, 3, 4]);
  let turns = 0;
  const t0 = process.hrtime.bigint();
  for (let b = 0; b < msg.battles; b++) {
    const battle = new Battle({formatid: msg.format || 'gen1randombattle', seed: drawSeed(prng)});
    battle.setPlayer('p1', {name: 'P1', seed: drawSeed(prng)});
    battle.setPlayer('p2', {name: 'P2', seed: drawSeed(prng)});
    while (!battle.ended) {
      for (const side of battle.sides) {
        const c = legalChoices(side);
        if (c.kind === 'wait') continue;
        const options = c.moves.map(m => `move ${m + 1}`).concat(c.switches.map(k => {
          const pos = side.pokemon.findIndex(p => p._origIndex === k);
          return `switch ${pos + 1}`;
        }));
        side.choose(options[prng.random(options.length)]);
      }
      battle.commitChoices();
      turns++;
    }
    battle.destroy();
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return {turns, seconds};
}

// The same benchmark driven the way Showdown's own tools and most RL wrappers drive it: battle
// streams (protocol text out, JSON requests, choice strings in), here Showdown's test Runner with its
// RandomPlayerAI on both sides, all in this process. A turn is one commitChoices, as above.
async function cmdSpeedStream(msg) {
  const {Runner} = require(path.join(__dirname, 'node_modules', 'pokemon-showdown', 'dist', 'sim', 'tools',
    'runner'));
  const prng = new PRNG(msg.seed || [1, 2, 3, 4]);
  let turns = 0;
  const commit = Battle.prototype.commitChoices;
  Battle.prototype.commitChoices = function (...args) { turns++; return commit.apply(this, args); };
  const t0 = process.hrtime.bigint();
  try {
    for (let b = 0; b < msg.battles; b++) {
      await new Runner({format: msg.format || 'gen1randombattle', prng: drawSeed(prng)}).run();
    }
  } finally {
    Battle.prototype.commitChoices = commit;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  return {turns, seconds};
}

// Scripted battles at many seeds, Showdown only: which seeds make each protocol pattern happen.
// The fallback for an illegal scripted action (the first legal one) is parity.py's scripted policies'.
function cmdScan(msg) {
  const patterns = msg.patterns.map(p => new RegExp(p, 'm'));
  const limit = msg.limit || 1;
  const matches = patterns.map(() => []);
  for (let n = 0; n < msg.seeds.length; n++) {
    if (matches.every(m => m.length >= limit)) break;
    const battle = new Battle({formatid: msg.format || 'gen1randombattle', seed: msg.seeds[n]});
    battle.setPlayer('p1', {name: 'P1', team: msg.teams[0]});
    battle.setPlayer('p2', {name: 'P2', team: msg.teams[1]});
    for (const step of msg.script) {
      if (battle.ended) break;
      battle.sides.forEach((side, i) => {
        const c = legalChoices(side);
        if (c.kind === 'wait') return;
        const legal = c.moves.concat(c.switches.map(k => 4 + k));
        if (!legal.length) { side.autoChoose(); return; }
        const action = legal.includes(step[i]) ? step[i] : legal[0];
        side.choose(toChoiceString(side, action < 4 ? {move: action} : {switch: action - 4}));
      });
      battle.commitChoices();
    }
    const log = battle.log.filter(l => !l.startsWith('|t:|')).join('\n');
    patterns.forEach((re, k) => { if (matches[k].length < limit && re.test(log)) matches[k].push(n); });
    battle.destroy();
  }
  return {matches};
}

// _origIndex for battles made outside cmdStart (speed benchmark)
const origSetPlayer = Battle.prototype.setPlayer;
Battle.prototype.setPlayer = function (slot, options) {
  const r = origSetPlayer.call(this, slot, options);
  const side = this.sides[slot === 'p1' ? 0 : 1];
  if (side) side.pokemon.forEach((p, i) => { if (p._origIndex === undefined) p._origIndex = i; });
  return r;
};

const COMMANDS = {start: cmdStart, choose: cmdChoose, destroy: cmdDestroy, prng: cmdPrng,
  generate: cmdGenerate, damage: cmdDamage, speed: cmdSpeed, speed_stream: cmdSpeedStream, scan: cmdScan,
  ping: () => ({version: require(path.join(__dirname, 'node_modules', 'pokemon-showdown', 'package.json')).version})};

const rl = readline.createInterface({input: process.stdin, terminal: false});
const failed = err => ({ok: false, error: String(err && err.stack || err)});
const send = reply => process.stdout.write(JSON.stringify(reply) + '\n');
rl.on('line', line => {
  if (!line.trim()) return;
  let result;
  try {
    const msg = JSON.parse(line);
    const fn = COMMANDS[msg.cmd];
    if (!fn) throw new Error(`unknown command ${msg.cmd}`);
    result = fn(msg);
  } catch (err) {
    send(failed(err));
    return;
  }
  // the caller waits for each reply before its next request, so an asynchronous command
  // (speed_stream) is answered in order too
  if (result && typeof result.then === 'function') {
    result.then(r => send(Object.assign({ok: true}, r)), err => send(failed(err)));
  } else {
    send(Object.assign({ok: true}, result));
  }
});
