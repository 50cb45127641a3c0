#!/bin/bash
# issue 45 must-show 2 on the AMD EPYC host (2 cores, AVX-512 with avx512_bf16, no AMX): models/snake, evaluate 1000
# samples and play 1000 games, the code of 08f0b08 (the "today", a clone at /tmp/old45) against this commit's
# (--dtype auto: float32 here), back to back, one at a time; then this commit's evaluate in bf16 (what auto took here
# before 529cea0)
set -u
OUT=${OUT:-/work/main/reports/speed/cpu45-amd/run1}; M=/work/main/models/snake; PY=/work/main/.venv/bin/python
mkdir -p $OUT
OLD="env PYTHONPATH=/tmp/old45 $PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
NEW="$PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
run() { name=$1; shift; stamp "start $name"; ( cd /tmp && /usr/bin/time -f "$name wall %e s user %U sys %S" bash -c "$*" ) > $OUT/$name.log 2>&1; tail -1 $OUT/$name.log; stamp "end $name"; }
run eval-old "$OLD evaluate --ckpt $M --num 1000 --out $OUT/eval-old --quiet"
run eval-new "$NEW evaluate --ckpt $M --num 1000 --out $OUT/eval-new --quiet"
run play-old "$OLD play --ckpt $M --games 1000 --agents model --out $OUT/play-old --quiet"
run play-new "$NEW play --ckpt $M --games 1000 --agents model --out $OUT/play-new --quiet"
run eval-new-bf16 "$NEW evaluate --ckpt $M --num 1000 --dtype bfloat16 --out $OUT/eval-new-bf16 --quiet"
