"""pokejax Gen 9 (``gen9randombattle``), in progress: no env yet.

Stage 0 (data: ``data/generate.py``, ``data/tables.py``, the team pool ``pool.py``) and the start of
stage 1 (``damage.py``, ``accuracy.py``, ``order.py``, the battle state ``state.py`` and the legal mask
``masks.py``), each checked against Showdown by ``tests/pokemon/gen9``.
The plan and the coverage are on docs/envs/pokemon-gen9.md. Nothing here changes the Gen 1 engine.
"""
