"""The built-in envs. One `register` call per id; entry points are imported only when made."""

from paritygym.registry import register

register(
    "Pong-v0",
    "pongjax.env:Pong",
    reference="C implementation of PufferLib 3.0 Pong rules (pongjax/csrc/pong.c), compiled -O3",
    parity="L1-L3 exact (bit-identical float32) vs the C reference; see docs/envs/pong.md",
    docs="docs/envs/pong.md",
    reference_bench="pongjax.reference:bench_reference",
    verify="pongjax.verify:verify",
    render="pongjax.render:render_state",
)

register(
    "GameBoy-v0",
    "emurust.env:GameBoyEnv",
    kind="native",
    vector_entry_point="emurust.env:GameBoyVectorEnv",
    reference="PyBoy 2.8.1 (pip; DMG mode, sound off, same boot ROM), run side by side in the tests",
    parity="frame-exact vs PyBoy (screen every frame; cycles, registers, RAM at frame boundaries) on Blargg ROMs, "
    "timing probes and our games; all Blargg ROMs pass; see docs/envs/gameboy.md",
    docs="docs/envs/gameboy.md",
    reference_bench="emurust.reference:reference_bench",
    verify="emurust.verify:verify",
    verify_l4="emurust.l4:verify_l4",
)

register(
    "HalfCheetah-v0",
    "cheetahjax.env:HalfCheetah",
    reference="MuJoCo 4.0.0 C engine running Gymnasium's HalfCheetah-v5 (half_cheetah.xml, frame_skip 5)",
    parity="one step vs MuJoCo <=1e-10 (float64) / <=1e-3 (float32); L3 rollouts measured; see docs/envs/halfcheetah.md",
    docs="docs/envs/halfcheetah.md",
    reference_bench="cheetahjax.reference:reference_bench",
    verify="cheetahjax.verify:verify",
    render="cheetahjax.render:render_state",
)

register(
    "TCGPocketA1-v0",
    "tcgjax.env:TCGPocketA1",
    reference="tcgjax.reference: our readable Python engine of docs/tcg/rules.md (Genetic Apex A1 + Promo-A 001-007)",
    parity="L1 per rule and per card effect kind, L2 interactions, L3 112 random games (1,024 slow): full state and "
    "legal mask identical after every action; see docs/envs/tcg.md",
    docs="docs/envs/tcg.md",
    reference_bench="tcgjax.reference.env:bench_reference",
    verify="tcgjax.verify:verify",
    verify_l4="tcgjax.l4:verify_l4",
    render="tcgjax.render:render_state",
)

register(
    "PokemonGen1Random-v0",
    "pokejax.env:PokemonGen1RandomEnv",
    reference="Pokémon Showdown 0.11.11 (npm, pinned), format gen1randombattle, driven by a node bridge in the tests",
    parity="L3 turn-for-turn identical (full state + PRNG state after every decision) on 100 random battles "
    "(1,000 slow); see docs/envs/pokemon.md",
    docs="docs/envs/pokemon.md",
    reference_bench="pokejax.reference:reference_bench",
    verify="pokejax.verify:verify",
    verify_l4="pokejax.l4:verify_l4",
)

register(
    "PokemonGen1RandomPool-v0",
    "pokejax.env:PokemonGen1RandomEnv",
    reference="Pokémon Showdown 0.11.11 (npm, pinned), format gen1randombattle, driven by a node bridge in the tests",
    parity="PokemonGen1Random-v0 with new battles' teams drawn from a pool of 4,096 Showdown random teams "
    "generated once (each identical to Showdown's generator for its seed; pool battles L3-checked); "
    "see docs/envs/pokemon.md",
    docs="docs/envs/pokemon.md",
    reference_bench="pokejax.reference:reference_bench",
    default_kwargs={"team_pool_size": 4096},
)

register(
    "PokemonGen9Random-v0",
    "pokejax.gen9.env:PokemonGen9RandomEnv",
    reference="Pokémon Showdown 0.11.11 (npm, pinned), format gen9randombattle, driven by a node bridge in the tests",
    parity="PARTIAL COVERAGE: battles between Showdown's own gen9randombattle teams restricted to the mechanics the "
    "engine covers (no abilities or items yet), each L3 turn-for-turn identical to Showdown (full state + PRNG after "
    "every decision); coverage table in docs/envs/pokemon-gen9.md",
    docs="docs/envs/pokemon-gen9.md",
)

register(
    "Climb-v0",
    "climbjax.env:Climb",
    reference="MuJoCo 4.0.0 C engine running climbjax/data/course.xml (8 mj_step per 30 Hz agent step)",
    parity="one step vs MuJoCo <=1e-12 (float64) from injected states; L3 divergence horizons measured; "
    "see docs/envs/climb.md",
    docs="docs/envs/climb.md",
    reference_bench="climbjax.reference:reference_bench",
    verify="climbjax.verify:verify",
    render="climbjax.render:render_state",
)
