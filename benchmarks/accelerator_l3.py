"""L3 parity on a machine without the references (a TPU host has no node): battles and games played
on the CPU by the real references are recorded (``scripts/record_accelerator_l3.py``) and replayed by
the batched JAX engines in a chosen step form (``scripts/accelerator_l3.py``), every recorded
decision compared with ``paritygym.verify.compare_trajectories``.

A recording file is gzipped JSON: ``{"meta": {...}, "episodes": [...]}``; an episode holds what the
JAX side needs to start it (Pokémon: battle seed and packed teams; TCG: seed and decks), both
players' actions per decision and the reference's record at the start and after every decision,
stored field by field with time as the leading axis (consecutive records differ little, so gzip
shrinks them well).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import json
import pathlib
import time
from typing import Any, Callable, Iterator, Sequence

import numpy as np

DATA = pathlib.Path(__file__).resolve().parent / "data" / "accelerator_l3"
POKEMON_FILE = DATA / "pokemon.json.gz"
GEN9_FILE = DATA / "pokemon_gen9.json.gz"
# decisions per recorded Gen 9 battle at most (Roar and Whirlwind lengthen battles: most end within it)
GEN9_MAX_DECISIONS = 200
TCG_FILE = DATA / "tcg.json.gz"
FORMS = ("auto", "cpu", "accelerator")
Records = list[dict[str, np.ndarray]]


# -- files -------------------------------------------------------------------------------------

def stack_records(records: Sequence[dict[str, Any]]) -> dict[str, list]:
    """Records (one per step) as JSON-ready lists, one per field, time first."""
    return {k: np.stack([np.asarray(r[k]) for r in records]).tolist() for k in records[0]}


def unstack_records(fields: dict[str, list]) -> Records:
    """``stack_records``'s inverse (bools come back as bools, integers as int64)."""
    arrays = {k: np.asarray(v) for k, v in fields.items()}
    length = len(next(iter(arrays.values())))
    return [{k: v[t] for k, v in arrays.items()} for t in range(length)]


def write(path: pathlib.Path, meta: dict[str, Any], episodes: list[dict[str, Any]]) -> int:
    """Writes a recording file; returns its size in bytes. ``mtime=0``: the same recording gives
    the same bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"meta": meta, "episodes": episodes}, separators=(",", ":"))
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as out:
        out.write(text.encode())
    return path.stat().st_size


def read(path: pathlib.Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(meta, episodes) of a recording file."""
    with gzip.open(path, "rt") as f:
        data = json.load(f)
    return data["meta"], data["episodes"]


def pokemon_episode(recording) -> dict[str, Any]:
    """A ``pokejax.parity.BattleRecording`` as a file episode."""
    return {"battle_seed": recording.battle_seed, "teams": recording.teams, "actions": recording.actions,
            "records": stack_records(recording.records)}


def load_pokemon(path: pathlib.Path = POKEMON_FILE, count: int | None = None) -> list:
    """The recorded battles (the first ``count``) as ``pokejax.parity.BattleRecording``."""
    from pokejax.parity import BattleRecording
    _, episodes = read(path)
    return [BattleRecording(e["battle_seed"], e["teams"], e["actions"], unstack_records(e["records"]))
            for e in episodes[:count]]


def gen9_episode(rows: list[list], seed: list[int], actions: list[list[int]], snapshots: list[dict]) -> dict[str, Any]:
    """A Gen 9 battle as a file episode: both teams' restricted pool rows, the Showdown seed, both
    players' actions per decision (-1: the side did not act) and Showdown's states after the start and
    each decision (``Gen9Bridge.play``) as ``pokejax.gen9.parity.showdown_record``s."""
    from pokejax.gen9.parity import showdown_record
    return {"teams": rows, "seed": seed, "actions": actions, "records": [showdown_record(s) for s in snapshots]}


def load_gen9(path: pathlib.Path = GEN9_FILE, count: int | None = None) -> list[dict[str, Any]]:
    """The recorded Gen 9 battles (the first ``count``), as file episodes."""
    return read(path)[1][:count]


def tcg_episode(trajectory) -> dict[str, Any]:
    """A ``tcgjax.verify.Trajectory`` as a file episode (its records: ``reference_records``)."""
    from tcgjax.verify import reference_records
    return {"seed": trajectory.seed, "max_turns": trajectory.max_turns,
            "decks": [{"cards": list(d.cards), "energy_types": list(d.energy_types)} for d in trajectory.decks],
            "actions": trajectory.actions, "records": stack_records(reference_records(trajectory))}


def load_tcg(path: pathlib.Path = TCG_FILE, count: int | None = None) -> list:
    """The recorded games (the first ``count``) as ``tcgjax.verify.Trajectory``."""
    from tcgjax.decks import Deck
    from tcgjax.verify import Trajectory
    _, episodes = read(path)
    games = []
    for e in episodes[:count]:
        records = unstack_records(e["records"])
        decks = tuple(Deck(tuple(d["cards"]), tuple(d["energy_types"])) for d in e["decks"])
        games.append(Trajectory(decks, int(e["seed"]), list(e["actions"]), [r["legal_mask"] for r in records],
                                [{k: v for k, v in r.items() if k != "legal_mask"} for r in records], int(e["max_turns"])))
    return games


# -- replay ------------------------------------------------------------------------------------

@dataclasses.dataclass
class Mismatch:
    """The first recorded value the JAX replay does not reproduce."""

    episode: int
    step: int
    field: str
    index: tuple[int, ...] | None
    ours: Any
    reference: Any

    def __str__(self) -> str:
        where = f"{self.field}{list(self.index) if self.index else ''}"
        return f"episode {self.episode}, step {self.step}: {where}: ours={self.ours!r} reference={self.reference!r}"


@dataclasses.dataclass
class Report:
    """One env's replay: where it ran, how much it compared, the first mismatch (None: identical)."""

    env: str
    backend: str
    form: str
    episodes: int
    decisions: int
    mismatch: Mismatch | None
    compile_s: float
    run_s: float
    ours: list[Records] = dataclasses.field(repr=False, default_factory=list)

    @property
    def identical(self) -> bool:
        return self.mismatch is None

    def __str__(self) -> str:
        verdict = "identical" if self.identical else f"MISMATCH {self.mismatch}"
        return (f"{self.env}: backend {self.backend}, form {self.form}, {self.episodes} episodes, "
                f"{self.decisions} decisions compared: {verdict} (compile {self.compile_s:.1f} s, run {self.run_s:.1f} s)")


def first_mismatch(ours: Sequence[Records], reference: Sequence[Records]) -> Mismatch | None:
    """The first episode (then step) whose JAX records differ from the recorded ones, exactly, every
    field (``compare_trajectories``); a length difference counts as a mismatch too."""
    from paritygym.verify import compare_trajectories
    for e, (a, b) in enumerate(zip(ours, reference, strict=True)):
        result = compare_trajectories(a, b)
        if result.first_divergence is not None:
            d = result.first_divergence
            return Mismatch(e, d.step, d.field, d.index, d.ours, d.reference)
        if not result.matched:
            return Mismatch(e, result.steps, "length", None, len(a), len(b))
    return None


@contextlib.contextmanager
def step_form(form: str) -> Iterator[str]:
    """Trace in ``form`` (``auto``: the backend's default); yields the form that applies. Forcing
    clears JAX's caches before and after: traces are cached by function and keep the form they were
    made in, so neither this replay nor later code may reuse a trace of the other form."""
    import jax

    from paritygym import backend
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    if form == "auto":
        yield backend.step_form()
        return
    jax.clear_caches()
    try:
        with backend.forced_form(form):
            yield form
    finally:
        jax.clear_caches()


def _timed(replay: Callable[[list], list[Records]], episodes: list, shorten: Callable[[Any], Any]
           ) -> tuple[list[Records], float, float]:
    """(records, compile s, run s): a first replay of the same batch one decision long compiles the
    programs (or loads them from JAX's cache), then the full replay runs."""
    start = time.perf_counter()
    replay([shorten(e) for e in episodes])
    compiled = time.perf_counter()
    ours = replay(episodes)
    return ours, compiled - start, time.perf_counter() - compiled


def replay_pokemon(recordings: list, form: str = "auto") -> Report:
    """The recorded battles replayed as one batch through ``pokejax.parity.batched_engine`` (the RL
    env's batched move and switch turns) traced in ``form``, and compared with the recordings."""
    import jax

    from pokejax import parity
    with step_form(form) as applied:
        engine = parity.batched_engine()
        ours, compile_s, run_s = _timed(
            lambda recs: parity.replay_records(recs, engine), recordings,
            lambda r: dataclasses.replace(r, actions=r.actions[:1], records=r.records[:2]))
    return Report("PokemonGen1Random-v0", jax.default_backend(), applied, len(recordings),
                  sum(len(r.actions) for r in recordings), first_mismatch(ours, [r.records for r in recordings]),
                  compile_s, run_s, ours)


def _gen9_records(episodes: list[dict[str, Any]]) -> list[list[dict]]:
    """Each battle's ``ours_record``s after the start and each of its recorded decisions, all the
    battles stepped as one batch by ``turn.step`` (a side that did not act, or a battle already over, gets
    action 0, which the engine ignores)."""
    import jax
    import jax.numpy as jnp

    from pokejax import prng
    from pokejax.gen9 import masks, pool, turn
    from pokejax.gen9 import state as S
    from pokejax.gen9.parity import ours_record
    n = len(episodes)
    team_pool = pool.pack({"teams": [row for e in episodes for row in e["teams"]]})
    st = S.from_pool(team_pool, jnp.arange(0, 2 * n, 2, dtype=jnp.int32), jnp.arange(1, 2 * n, 2, dtype=jnp.int32),
                     jnp.stack([prng.seed_from_words(e["seed"]) for e in episodes]))
    step, legal_mask = jax.jit(turn.step), jax.jit(masks.legal_mask)
    st = step(st, jnp.zeros((n, 2), jnp.int32))
    ours: list[list[dict]] = [[] for _ in episodes]

    def keep(st, d):
        host, legal = jax.device_get(st), np.asarray(legal_mask(st))
        for i, e in enumerate(episodes):
            if d <= len(e["actions"]):
                ours[i].append(ours_record(host, i, legal))
    keep(st, 0)
    for d in range(max(len(e["actions"]) for e in episodes)):
        actions = [[max(a, 0) for a in e["actions"][d]] if d < len(e["actions"]) else [0, 0] for e in episodes]
        st = step(st, jnp.asarray(actions, jnp.int32))
        keep(st, d + 1)
    return ours


def first_gen9_mismatch(ours: list[list[dict]], reference: list[list[dict]]) -> Mismatch | None:
    """The first battle (then decision) whose record differs from the recorded one (its first differing field)."""
    from pokejax.gen9.parity import differences
    for e, (a, b) in enumerate(zip(ours, reference, strict=True)):
        for n, (x, y) in enumerate(zip(a, b)):
            diff = differences(x, y)
            if diff:
                field, (mine, theirs) = next(iter(diff.items()))
                return Mismatch(e, n, field, None, mine, theirs)
        if len(a) != len(b):
            return Mismatch(e, min(len(a), len(b)), "length", None, len(a), len(b))
    return None


def replay_gen9(episodes: list[dict[str, Any]], form: str = "auto") -> Report:
    """The recorded Gen 9 battles replayed as one batch through ``turn.step`` (the engine of
    ``PokemonGen9Random-v0``) traced in ``form``, every record compared with Showdown's."""
    import jax
    with step_form(form) as applied:
        ours, compile_s, run_s = _timed(_gen9_records, episodes, lambda e: {**e, "actions": e["actions"][:1]})
    return Report("PokemonGen9Random-v0", jax.default_backend(), applied, len(episodes),
                  sum(len(e["actions"]) for e in episodes), first_gen9_mismatch(ours, [e["records"] for e in episodes]),
                  compile_s, run_s, ours)


def replay_tcg(games: list, form: str = "auto", chunk: int = 64) -> Report:
    """The recorded games replayed as one batch through ``tcgjax.verify.jax_records`` with the env's
    batched step (``step_batch``, ``chunk`` decisions per scanned call) traced in ``form``, and
    compared with the recordings."""
    import jax

    from tcgjax.verify import JaxBatchRunner, jax_records, reference_records
    max_turns = {g.max_turns for g in games}
    if len(max_turns) != 1:
        raise ValueError(f"the games of one batch must share max_turns, got {sorted(max_turns)}")
    with step_form(form) as applied:
        runner = JaxBatchRunner(batch=len(games), chunk=chunk, max_turns=max_turns.pop(), batched=True)
        ours, compile_s, run_s = _timed(
            lambda gs: jax_records(gs, runner), games,
            lambda g: dataclasses.replace(g, actions=g.actions[:1], masks=g.masks[:2], states=g.states[:2]))
    return Report("TCGPocketA1-v0", jax.default_backend(), applied, len(games), sum(g.num_steps for g in games),
                  first_mismatch(ours, [reference_records(g) for g in games]), compile_s, run_s, ours)
