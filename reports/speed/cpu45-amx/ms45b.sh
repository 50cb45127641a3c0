#!/bin/bash
OUT=/tmp/m45; PY=/work/main/.venv/bin/python
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
cd /work/main
stamp start bench_sampling
/usr/bin/time -f "bench wall %e" $PY -m benchmarks.bench_sampling --scaling-batches 1,64,256 --json $OUT/bench_sampling.json > $OUT/bench_sampling.txt 2>&1
stamp end bench_sampling
stamp start play-new-fp32
/usr/bin/time -f "play-new-fp32 wall %e s" .venv/bin/gamegrammar play --ckpt models/snake --games 1000 --agents model --dtype float32 --out $OUT/play-new-fp32 --quiet > $OUT/play-new-fp32.log 2>&1
tail -1 $OUT/play-new-fp32.log
stamp end play-new-fp32
