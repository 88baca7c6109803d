"""The real reference: Pokémon Showdown 0.11.11 under node, driven through ``showdown/bridge.js``.

``ensure_showdown()`` installs the pinned package (``npm ci``) the first time it is needed;
``ShowdownBridge`` keeps one node process alive and speaks JSON lines with it.  Nothing here is
imported by the engine: only tests, benchmarks and the verification harness use it.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import json
import os
import pathlib
import select
import shutil
import subprocess
import threading
from typing import Any, Sequence

from paritygym.references import MissingReference, require_program

SHOWDOWN_DIR = pathlib.Path(__file__).resolve().parent / "showdown"
SHOWDOWN_VERSION = "0.11.11"
_install_lock = threading.Lock()


class ShowdownError(RuntimeError):
    """The bridge reported an error, died, or timed out."""


class ShowdownMissing(ShowdownError, MissingReference):
    """node or npm, which run and install Pokémon Showdown, is not installed."""


def _require(program: str, purpose: str) -> str:
    try:
        return require_program(program, purpose)
    except MissingReference as exc:
        raise ShowdownMissing(str(exc)) from None


def showdown_dir() -> pathlib.Path:
    """Where Showdown is installed and run from: ``pokejax/showdown`` when it already holds the
    install or is writable (a source tree, a virtualenv); otherwise, e.g. for a read-only system-wide
    install of the wheel, a copy of its three files in the user cache (``$PARITYGYM_CACHE``, else
    ``~/.cache/paritygym``), folder ``showdown-<version>``."""
    if (SHOWDOWN_DIR / "node_modules").exists() or os.access(SHOWDOWN_DIR, os.W_OK):
        return SHOWDOWN_DIR
    cache = os.environ.get("PARITYGYM_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "paritygym")
    target = pathlib.Path(cache) / f"showdown-{SHOWDOWN_VERSION}"
    target.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json", "bridge.js"):
        source, copy = SHOWDOWN_DIR / name, target / name
        if not copy.exists() or copy.read_bytes() != source.read_bytes():
            shutil.copyfile(source, copy)
    return target


def ensure_showdown() -> pathlib.Path:
    """Install ``pokemon-showdown`` into ``node_modules`` of ``showdown_dir()`` if it is missing.

    Uses ``npm ci`` against the committed lockfile (no optional dependencies, no install scripts:
    the simulator needs neither).  Returns the package directory.
    """
    base = showdown_dir()
    package_dir = base / "node_modules" / "pokemon-showdown"
    with _install_lock:
        marker = package_dir / "package.json"
        if marker.exists() and json.loads(marker.read_text())["version"] == SHOWDOWN_VERSION:
            return package_dir
        npm = _require("npm", f"installing Pokémon Showdown {SHOWDOWN_VERSION}, the reference of PokemonGen1Random-v0")
        result = subprocess.run(
            [npm, "ci", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=base, capture_output=True, text=True,
        )
        if result.returncode != 0 or not marker.exists():
            raise ShowdownError(f"npm ci failed in {base}:\n{result.stdout}\n{result.stderr}")
    return package_dir


Seed = Sequence[int]
Choice = str | dict[str, int] | None


class ShowdownBridge:
    """One long-lived node process running many Showdown battles.

    Use as a context manager, or call ``close()``.  Every call raises ``ShowdownError`` on a
    bridge-side error or when no reply arrives within ``timeout`` seconds.
    """

    def __init__(self, timeout: float = 60.0):
        base = ensure_showdown().parent.parent  # showdown_dir()
        node = _require("node", "running Pokémon Showdown, the reference of PokemonGen1Random-v0")
        self.timeout = timeout
        self._proc = subprocess.Popen(
            [node, str(base / "bridge.js")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=base, text=True, bufsize=1,
        )
        self._buffer = ""
        atexit.register(self.close)

    # -- process plumbing -----------------------------------------------------------------------
    def call(self, cmd: str, **fields: Any) -> dict[str, Any]:
        self.send([{"cmd": cmd, **fields}])
        return self.receive(1)[0]

    def send(self, requests: list[dict[str, Any]]) -> None:
        """Writes commands without reading their replies (node answers in order; see ``receive``).
        Keep a batch small enough (~128 commands) that its lines fit the stdin pipe's buffer: node
        writes replies synchronously and reads no more input while nobody reads its output."""
        if self._proc is None or self._proc.poll() is not None:
            raise ShowdownError("the Showdown bridge is not running")
        self._proc.stdin.write("".join(json.dumps(r) + "\n" for r in requests))
        self._proc.stdin.flush()

    def receive(self, count: int) -> list[dict[str, Any]]:
        """The replies to the next ``count`` commands sent, in order."""
        replies = []
        for _ in range(count):
            reply = json.loads(self._read_line())
            if not reply.pop("ok"):
                raise ShowdownError(reply.get("error", "unknown bridge error"))
            replies.append(reply)
        return replies

    def _read_line(self) -> str:
        fd = self._proc.stdout.fileno()
        while "\n" not in self._buffer:
            ready, _, _ = select.select([fd], [], [], self.timeout)
            if not ready:
                self.close()
                raise ShowdownError(f"no reply from the Showdown bridge within {self.timeout} s")
            chunk = os.read(fd, 1 << 20).decode()
            if not chunk:
                err = self._proc.stderr.read() if self._proc.stderr else ""
                self.close()
                raise ShowdownError(f"the Showdown bridge exited:\n{err}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split("\n", 1)
        return line

    def close(self) -> None:
        proc, self._proc = getattr(self, "_proc", None), None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=5)
        except Exception:
            proc.kill()
            proc.wait()

    def __enter__(self) -> "ShowdownBridge":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- commands ----------------------------------------------------------------------------------
    def start(self, seed: Seed, p1_team: str | None = None, p2_team: str | None = None,
              p1_seed: Seed | None = None, p2_seed: Seed | None = None,
              format: str = "gen1randombattle", trace: bool | str = False) -> dict[str, Any]:
        """Start a battle. Teams are packed Showdown teams, or None to let Showdown generate
        them from the *player* seeds (the battle seed never seeds teams)."""
        return self.call("start", format=format, seed=list(seed), trace=trace,
                         p1={"team": p1_team, "seed": None if p1_seed is None else list(p1_seed)},
                         p2={"team": p2_team, "seed": None if p2_seed is None else list(p2_seed)})

    def choose(self, battle_id: int, p1: Choice, p2: Choice) -> dict[str, Any]:
        """Both players' choices for the pending request (None = Showdown's autoChoose)."""
        return self.call("choose", id=battle_id, p1=p1, p2=p2)

    def destroy(self, battle_id: int) -> None:
        self.call("destroy", id=battle_id)

    def prng(self, seed: Seed, calls: list[list[Any]]) -> dict[str, Any]:
        return self.call("prng", seed=list(seed), calls=calls)

    def generate_team(self, seed: Seed, format: str = "gen1randombattle") -> dict[str, Any]:
        return self.call("generate", format=format, seed=list(seed))

    def damage(self, attacker_set: dict, defender_set: dict, move: str, seed: Seed,
               setup: dict | None = None) -> dict[str, Any]:
        return self.call("damage", p1=attacker_set, p2=defender_set, attacker=0, move=move,
                         seed=list(seed), setup=setup or {})

    def scan(self, teams: Sequence[str], script: Sequence[Sequence[int]], seeds: Sequence[Seed],
             patterns: Sequence[str], limit: int = 1, format: str = "gen1randombattle") -> list[list[int]]:
        """Play a scripted battle (actions 0-3 move slot, 4+k switch to team index k; an illegal
        action becomes the first legal one) at each battle seed in Showdown alone, and return, per
        regular expression, the indices of the first ``limit`` seeds whose protocol log matches it."""
        reply = self.call("scan", format=format, teams=list(teams), script=[list(map(int, s)) for s in script],
                          seeds=[list(map(int, s)) for s in seeds], patterns=list(patterns), limit=limit)
        return reply["matches"]

    def speed(self, battles: int, seed: Seed = (1, 2, 3, 4), format: str = "gen1randombattle",
              driver: str = "engine") -> dict[str, Any]:
        """Random-play battles inside Showdown: ``{"turns", "seconds"}``. ``driver``: "engine" (the
        battle called directly, uniformly random legal choices) or "stream" (Showdown's battle
        streams and its RandomPlayerAI, as its own test runner drives a battle)."""
        if driver not in ("engine", "stream"):
            raise ValueError(f"driver must be 'engine' or 'stream', got {driver!r}")
        return self.call("speed" if driver == "engine" else "speed_stream", battles=battles, seed=list(seed),
                         format=format)


# =============================================================================================
# `paritygym bench PokemonGen1Random-v0 --reference`: Showdown's own random-play speed
# =============================================================================================
#
# Each node process runs whole gen1randombattle battles inside Showdown (``bridge.js``'s ``speed``
# command: random teams, both players choosing uniformly among the legal choices, one
# ``commitChoices`` per decision), so the figure is Showdown's engine speed without any
# process-boundary cost. A "turn" is one decision of both players (a move turn or a replacement
# after a faint), the same unit as one step of the JAX env.

AVERAGE_TURNS_PER_BATTLE = 60   # measured on random play; sizes the work, not the result
WARMUP_BATTLES = 20             # lets V8 optimise the battle code before the timed run


def _turns_per_second(battles: int, seed: int, driver: str = "engine") -> tuple[int, float]:
    with ShowdownBridge(timeout=600.0) as bridge:
        bridge.speed(WARMUP_BATTLES, seed=(seed, 1, 2, 3), driver=driver)
        reply = bridge.speed(battles, seed=(seed, 4, 5, 6), driver=driver)
    return int(reply["turns"]), float(reply["seconds"])


def reference_bench(batch_size: int, num_steps: int, num_procs: int, driver: str = "engine") -> float:
    """Showdown random-play turns/s over ``num_procs`` node processes run side by side.

    The reference has no batch: about ``batch_size * num_steps`` turns (at least 6,000, at most
    60,000) are split over the processes. Each process times only its own battles; the result is
    the total turns over the slowest process's time. ``driver`` (``ShowdownBridge.speed``):
    "engine", the battle called directly (the fastest Showdown can go: what ``paritygym bench
    --reference`` compares with), or "stream", Showdown's battle streams and RandomPlayerAI."""
    if num_procs < 1:
        raise ValueError(f"num_procs must be >= 1, got {num_procs}")
    total_turns = min(max(batch_size * num_steps, 6_000), 60_000)
    battles = max(1, total_turns // AVERAGE_TURNS_PER_BATTLE // num_procs)
    # threads suffice: each waits on its own node process
    with concurrent.futures.ThreadPoolExecutor(num_procs) as pool:
        results = list(pool.map(lambda k: _turns_per_second(battles, 100 + k, driver), range(num_procs)))
    return sum(t for t, _ in results) / max(s for _, s in results)


# =============================================================================================
# Records: Showdown's state snapshot and pokejax's state in the same numeric format (L3)
# =============================================================================================

import numpy as np  # noqa: E402

STATUS_CODES = {"": 0, "slp": 1, "psn": 2, "brn": 3, "frz": 4, "par": 5, "tox": 6, "fnt": 0}
STAT_ORDER = ("atk", "def", "spa", "spd", "spe")
BOOST_ORDER = STAT_ORDER + ("accuracy", "evasion")
REQUEST_CODES = {"move": 0, "switch": 1}

# Volatile columns compared every step: (name, reader of a Showdown volatiles dict).
VOLATILE_COLUMNS = (
    "confusion", "flinch", "must_recharge", "locked_move", "locked_time", "locked_accuracy", "rage",
    "rage_accuracy", "two_turn_move", "invulnerable", "trap_lock_move", "trap_lock_duration", "trap_lock_total",
    "trap_lock_damage", "trapped", "fake_trapped", "bide_time", "bide_damage", "disable_move", "disable_slot",
    "disable_time", "sub_hp", "leech_seed", "reflect", "light_screen", "mist", "focus_energy", "minimize",
    "defense_curl", "has_toxic_counter", "toxic_counter",
)


def choice_actions(choices: dict) -> list[int]:
    """A side's choices in a bridge reply as pokejax actions: move slots 0-3, then 4 + team slot."""
    return list(choices["moves"]) + [4 + k for k in choices["switches"]]


def _move_index(move_id) -> int:
    from pokejax.data import tables
    if not move_id:
        return 0
    return tables.load().move_by_id.get(move_id, -1)


def _volatile_row(vol: dict) -> list[int]:
    g = lambda name, key, default=0: (vol[name].get(key, default) if name in vol else 0)
    has = lambda name: int(name in vol)
    return [
        g("confusion", "time"), g("flinch", "duration"), has("mustrecharge"),
        _move_index(vol["lockedmove"]["move"]) if "lockedmove" in vol else 0, g("lockedmove", "time"),
        g("lockedmove", "accuracy"), has("rage"), g("rage", "accuracy"),
        _move_index(vol["twoturnmove"]["move"]) if "twoturnmove" in vol else 0, has("invulnerability"),
        _move_index(vol["partialtrappinglock"]["move"]) if "partialtrappinglock" in vol else 0,
        g("partialtrappinglock", "duration"), g("partialtrappinglock", "totalDuration"),
        g("partialtrappinglock", "damage"), g("partiallytrapped", "duration"), g("fakepartiallytrapped", "duration"),
        g("bide", "time"), g("bide", "damage"),
        _move_index(vol["disable"]["move"]) if "disable" in vol else 0, g("disable", "slotIndex"), g("disable", "time"),
        g("substitute", "hp"), has("leechseed"), has("reflect"), has("lightscreen"), has("mist"), has("focusenergy"),
        has("minimize"), has("defensecurl"), has("residualdmg"), g("residualdmg", "counter"),
    ]


def showdown_record(reply: dict) -> dict[str, np.ndarray]:
    """A bridge reply (state + legal choices) as a record of numeric arrays."""
    from pokejax.data import tables
    t = tables.load()
    state = reply["state"]
    n_sides = 2
    rec: dict[str, list] = {k: [] for k in (
        "hp", "status", "sleep_turns", "fainted", "base_pp", "active", "last_selected_move", "last_selected_slot",
        "side_last_move", "last_enemy_move", "last_enemy_selected_move", "pokemon_left", "species", "types",
        "boosts", "stored", "modified", "speed", "moves", "pp", "last_move", "transformed", "volatiles", "legal")}
    for s in range(n_sides):
        side = state["sides"][s]
        team = side["team"] + [None] * (6 - len(side["team"]))
        rec["hp"].append([m["hp"] if m else 0 for m in team])
        rec["status"].append([STATUS_CODES[m["status"]] if m and not m["fainted"] else 0 for m in team])
        rec["sleep_turns"].append([m["status_state"].get("time", 0) if m and m["status"] == "slp" and not m["fainted"]
                                   else 0 for m in team])
        rec["fainted"].append([bool(m["fainted"]) if m else True for m in team])
        rec["base_pp"].append([[ms["pp"] for ms in m["base_move_slots"]] + [0] * (4 - len(m["base_move_slots"]))
                               if m else [0] * 4 for m in team])
        a = team[side["active"]]
        rec["active"].append(side["active"])
        rec["last_selected_move"].append(_move_index(side["last_selected_move"]))
        rec["last_selected_slot"].append(side["last_selected_move_slot"])
        rec["side_last_move"].append(_move_index(side["last_move"]))
        rec["last_enemy_move"].append(_move_index(side["last_enemy_move"]))
        rec["last_enemy_selected_move"].append(_move_index(side["last_enemy_selected_move"]))
        rec["pokemon_left"].append(side["pokemon_left"])
        rec["species"].append(t.species_by_id[a["species"]])
        types = [t.type_names.index(x) for x in a["types"]] + [tables.TYPE_NONE] * (2 - len(a["types"]))
        rec["types"].append(types)
        rec["boosts"].append([a["boosts"][k] for k in BOOST_ORDER])
        rec["stored"].append([a["stored_stats"][k] for k in STAT_ORDER])
        rec["modified"].append([a["modified_stats"][k] for k in STAT_ORDER])
        rec["speed"].append(a["speed"])
        slots = a["move_slots"]
        rec["moves"].append([_move_index(ms["id"]) for ms in slots] + [0] * (4 - len(slots)))
        rec["pp"].append([ms["pp"] for ms in slots] + [0] * (4 - len(slots)))
        rec["last_move"].append(_move_index(a["last_move"]))
        rec["transformed"].append(bool(a["transformed"]))
        rec["volatiles"].append(_volatile_row(a["volatiles"]))
        legal = [False] * 10
        for action in choice_actions(reply["choices"][s]):
            legal[action] = True
        rec["legal"].append(legal)
    out = {k: np.asarray(v) for k, v in rec.items()}
    out["turn"] = np.asarray(state["turn"])
    out["request"] = np.asarray(2 if state["ended"] else REQUEST_CODES.get(state["request_state"], -1))
    # Showdown names the winning player; an ended battle without a winner is a tie
    out["winner"] = np.asarray({"P1": 0, "P2": 1}.get(state["winner"], 2) if state["ended"] else -1)
    out["last_damage"] = np.asarray(state["last_damage"])
    out["rng"] = np.asarray([int(x) for x in state["seed"].split(",")])
    return out


def engine_arrays(st) -> dict:
    """The JAX arrays behind ``engine_record`` (jit this; it also works under vmap)."""
    import jax.numpy as jnp
    from pokejax.game import engine
    team = engine.synced_team(st)
    act, side = st.active, st.side
    vol = jnp.stack([getattr(act, name).astype(jnp.int32) for name in VOLATILE_COLUMNS], axis=-1)
    legal = jnp.stack([engine.legal_actions(st, i) for i in (0, 1)])
    hi, lo = st.rng[0], st.rng[1]
    rng = jnp.stack([hi >> 16, hi & 0xFFFF, lo >> 16, lo & 0xFFFF]).astype(jnp.int32)
    return {
        "hp": team.hp, "status": jnp.where(team.fainted, 0, team.status),
        "sleep_turns": jnp.where((team.status == 1) & ~team.fainted, team.sleep_turns, 0),
        "fainted": team.fainted, "base_pp": jnp.where(team.moves != 0, team.pp, 0), "active": act.slot,
        "last_selected_move": side.last_selected_move, "last_selected_slot": side.last_selected_slot,
        "side_last_move": side.last_move, "last_enemy_move": side.last_enemy_move,
        "last_enemy_selected_move": side.last_enemy_selected_move, "pokemon_left": side.pokemon_left,
        "species": act.species, "types": act.types, "boosts": act.boosts, "stored": act.stored,
        "modified": act.modified, "speed": act.speed, "moves": act.moves,
        "pp": jnp.where(act.moves != 0, act.pp, 0), "last_move": act.last_move,
        "transformed": act.transformed, "volatiles": vol, "legal": legal,
        "turn": st.turn, "request": st.request, "winner": st.winner, "last_damage": st.last_damage, "rng": rng,
    }


def engine_record(st) -> dict[str, np.ndarray]:
    """pokejax's BattleState (one battle) as a record in the same format as ``showdown_record``."""
    return {k: np.asarray(v) for k, v in engine_arrays(st).items()}
