#!/bin/bash
# issue 45 on the AMD EPYC host, after --dtype auto learned to time the command's own pass in three formats: the
# drafted sampler against one token a pass with its bound (what evaluate runs), play of 1000 games as auto now picks,
# the sampling roofline, and where a pass's time goes; one at a time, nothing else running
set -u
cd /work/main; OUT=reports/speed/cpu45-amd/run2; PY=.venv/bin/python; mkdir -p $OUT
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
stamp "start bench_draft"; $PY -m benchmarks.bench_draft --json $OUT/bench_draft.json > $OUT/bench_draft.txt 2>&1; stamp "end bench_draft"
stamp "start play-new-auto"; ( cd /tmp && /usr/bin/time -f "play-new-auto wall %e s user %U sys %S" /work/main/.venv/bin/gamegrammar play --ckpt /work/main/models/snake --games 1000 --agents model --out /work/main/$OUT/play-new-auto --quiet ) > $OUT/play-new-auto.log 2>&1; tail -1 $OUT/play-new-auto.log; stamp "end play-new-auto"
stamp "start bench_sampling"; $PY -m benchmarks.bench_sampling --scaling-batches 64 --json $OUT/bench_sampling.json > $OUT/bench_sampling.txt 2>&1; stamp "end bench_sampling"
stamp "start probes"; bash reports/speed/cpu45-amd/probes/run.sh > reports/speed/cpu45-amd/probes/run.txt 2>&1; stamp "end probes"
