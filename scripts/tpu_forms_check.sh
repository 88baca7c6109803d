#!/usr/bin/env bash
# The two forms of a game engine's step (`paritygym.backend`: the CPU form, and the accelerator form
# with one-hot selects and whole-batch masks) side by side on an accelerator: the bench's loop step
# (env steps/s and compile time) per env, form and batch. From the repo root on the TPU machine,
# after `. .tpu/setup.sh`:
#
#   bash scripts/tpu_forms_check.sh                                   # both envs, both forms, 4,096
#   ENVS=TCGPocketA1-v0 FORMS=accelerator BATCHES="4096 16384 65536" bash scripts/tpu_forms_check.sh
#
# Each form is forced whatever PARITYGYM_STEP_FORM says. Each (env, form, batch) compiles its own
# program (1.5-3 minutes each on the TPU v5e); results print as they come, the bench's JSON goes
# under runs/bench.
set -uo pipefail
export PYTHONUNBUFFERED=1
for env_id in ${ENVS:-PokemonGen1Random-v0 TCGPocketA1-v0}; do
  for form in ${FORMS:-accelerator cpu}; do
    for batch in ${BATCHES:-4096}; do
      echo "== $env_id form=$form batch=$batch"
      python3 -c "import sys
from paritygym.backend import forced_form
from paritygym.cli import main
with forced_form(sys.argv[1]):
    sys.exit(main(sys.argv[2:]))" "$form" bench "$env_id" --batch "$batch" --modes loop --min-seconds 5 --no-plot 2>&1 \
        | grep -E "steps/s|compile|Error" | grep -v "^system"
    done
  done
done
