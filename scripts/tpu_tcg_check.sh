#!/usr/bin/env bash
# TCGPocketA1-v0 on an accelerator: the bench's loop step (env steps/s and compile time) at batches
# 4,096, 16,384 and 65,536 in the accelerator form (`paritygym.backend`, the default off the CPU:
# tcgjax.game.indexing's one-hot selects, sub-batches on the whole batch under a mask). From the
# repo root on the TPU machine, after `. .tpu/setup.sh`:
#
#   bash scripts/tpu_tcg_check.sh
#   FORMS="cpu accelerator" BATCHES=4096 bash scripts/tpu_tcg_check.sh   # A/B at one batch
#
# FORMS=cpu runs the CPU form (gathered chunks, plain gathers and scatters) on the chip: the
# program measured before the accelerator form. Each batch compiles its own program (minutes on
# the TPU); results print as they come, and the bench's JSON goes under runs/bench.
set -uo pipefail
export PYTHONUNBUFFERED=1
for form in ${FORMS:-accelerator}; do
  for batch in ${BATCHES:-4096 16384 65536}; do
    echo "== TCGPocketA1-v0 form=$form batch=$batch"
    python3 -c "import sys
from paritygym.backend import forced_form
from paritygym.cli import main
with forced_form(sys.argv[1]):
    sys.exit(main(sys.argv[2:]))" "$form" bench TCGPocketA1-v0 --batch "$batch" --modes loop --min-seconds 5 --no-plot 2>&1 \
      | grep -E "steps/s|compile|Error" | grep -v "^system"
  done
done
