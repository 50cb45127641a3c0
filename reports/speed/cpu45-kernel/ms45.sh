#!/bin/bash
# issue 45 must-shows on the AMD EPYC host (2 cores, AVX-512 with avx512_bf16, no AMX), with our own decoding attention
# (4a653be; run2 at a38efc5): models/snake, evaluate 1000 samples, the code of 08f0b08 (the "today", a clone at /tmp/old45) and
# this commit's (--dtype auto), back to back, one at a time; the roofline benchmark; then play 1000 games, new and old.
set -u
OUT=${OUT:-/work/main/reports/speed/cpu45-kernel/run1}; M=/work/main/models/snake; PY=/work/main/.venv/bin/python
mkdir -p $OUT
OLD="env PYTHONPATH=/tmp/old45 $PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
NEW="$PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
run() { name=$1; shift; stamp "start $name"; ( cd /tmp && /usr/bin/time -f "$name wall %e s user %U sys %S" bash -c "$*" ) > $OUT/$name.log 2>&1; tail -1 $OUT/$name.log; stamp "end $name"; }
STEPS=${*:-eval-old eval-new bench-sampling play-new play-old}  # run1: all five (play-old stopped, see README); run2: eval-old eval-new bench-attention; run3: play-new play-old
for step in $STEPS; do case $step in
  eval-old) run eval-old "$OLD evaluate --ckpt $M --num 1000 --out $OUT/eval-old --quiet" ;;
  eval-new) run eval-new "$NEW evaluate --ckpt $M --num 1000 --out $OUT/eval-new --quiet" ;;
  bench-sampling) run bench-sampling "cd /work/main && $PY -m benchmarks.bench_sampling --scaling-batches 64 --json $OUT/bench_sampling.json" ;;
  bench-attention) run bench-attention "cd /work/main && $PY -m benchmarks.bench_attention --json $OUT/bench_attention.json" ;;
  play-new) run play-new "$NEW play --ckpt $M --games 1000 --agents model --out $OUT/play-new --quiet" ;;
  play-old) run play-old "$OLD play --ckpt $M --games 1000 --agents model --out $OUT/play-old --quiet" ;;
esac; done
