#!/bin/bash
# issue 45 must-show 2 for evaluate: models/snake, 1000 samples, the code of 08f0b08 (the "today", a clone at
# /tmp/old45) against this commit's, with its default rules draft and with --draft none, back to back, one at a time
set -u
OUT=${OUT:-/tmp/m45p}; M=/work/main/models/snake; PY=/work/main/.venv/bin/python
mkdir -p $OUT
OLD="env PYTHONPATH=/tmp/old45 $PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
NEW="$PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
run() { name=$1; shift; stamp "start $name"; ( cd /tmp && /usr/bin/time -f "$name wall %e s user %U sys %S" bash -c "$*" ) > $OUT/$name.log 2>&1; tail -1 $OUT/$name.log; stamp "end $name"; }
run eval-old "$OLD evaluate --ckpt $M --num 1000 --out $OUT/eval-old --quiet"
run eval-new "$NEW evaluate --ckpt $M --num 1000 --out $OUT/eval-new --quiet"
# run eval-new-nodraft "$NEW evaluate --ckpt $M --num 1000 --draft none --out $OUT/eval-new-nodraft --quiet"
# the draft against one token a pass, in bf16 and in float32 (identical samples there)
stamp "start bench_draft"; ( cd /work/main && $PY -m benchmarks.bench_draft --json $OUT/bench_draft.json ) > $OUT/bench_draft.txt 2>&1; stamp "end bench_draft"
stamp "start bench_draft fp32"; ( cd /work/main && $PY -m benchmarks.bench_draft --num 64 --batch-size 64 --dtype float32 --json $OUT/bench_draft_fp32.json ) > $OUT/bench_draft_fp32.txt 2>&1; stamp "end bench_draft fp32"
