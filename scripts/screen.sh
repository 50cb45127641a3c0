#!/usr/bin/env bash
# Screens grammar designs at an equal budget: for each seed, for each design, train CONFIG on the design's corpus
# for STEPS steps (equal steps = equal tokens = equal compute), then evaluate NUM samples and the teacher-forced check,
# and (ANALYZE=1) read the rules' emergence on held-out episodes (analyze --tiers 2: self-collision, spawn mass).
# TRAIN_ARGS (words) go to every `train fit`: a training lever screened on the designs (--model.chance_weight 10).
# A rerun skips every run whose report exists, so a killed screen goes on where it stopped.
#   scripts/screen.sh NAME CONFIG STEPS NUM "SEEDS" DESIGN=CORPUS [DESIGN=CORPUS ...]
# Reports go to reports/screen-NAME/DESIGN-SEED, runs to runs/screen-NAME/DESIGN-SEED; a table over seeds ends it
# (scripts/screen_summary.py). Two screens may run at once on disjoint seeds (OMP_NUM_THREADS=1 each on 2 cores).
set -euo pipefail
GG=${GG:-.venv/bin/gamegrammar}
PY=${PY:-.venv/bin/python}
ANALYZE=${ANALYZE:-0}
read -r -a train_args <<< "${TRAIN_ARGS:-}"
name=$1 config=$2 steps=$3 num=$4 seeds=$5
shift 5
for seed in $seeds; do
  for pair in "$@"; do
    design=${pair%%=*} corpus=${pair#*=}
    run=runs/screen-$name/$design-$seed report=reports/screen-$name/$design-$seed
    if [ ! -f "$report/report.json" ]; then
      rm -rf "$run" "$report"
      "$GG" train fit --config "$config" --data.path "$corpus" --run_dir "$run" --seed_everything "$seed" \
        --trainer.max_steps "$steps" --trainer.max_time null --trainer.val_check_interval "$steps" \
        --trainer.enable_progress_bar false ${train_args[@]+"${train_args[@]}"}
      "$GG" evaluate --ckpt "$run/checkpoints/last.ckpt" --corpus "$corpus" --num "$num" --temperature 1.0 --out "$report"
    fi
    if [ "$ANALYZE" = 1 ] && [ ! -f "$report/analysis/analysis.json" ]; then
      "$GG" analyze --ckpt "$run/checkpoints/last.ckpt" --corpus "$corpus" --tiers 2 --out "$report/analysis"
    fi
  done
done
"$PY" "$(dirname "$0")/screen_summary.py" reports/screen-"$name"
