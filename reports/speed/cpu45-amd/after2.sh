#!/bin/bash
# bench_draft again, its format chosen as evaluate chooses (a drafted pass: 4 tokens a row), and in float32
set -u
cd /work/main; OUT=reports/speed/cpu45-amd/run2; PY=.venv/bin/python
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
stamp "start bench_draft"; $PY -m benchmarks.bench_draft --json $OUT/bench_draft.json > $OUT/bench_draft.txt 2>&1; stamp "end bench_draft"
stamp "start bench_draft fp32"; $PY -m benchmarks.bench_draft --dtype float32 --json $OUT/bench_draft_fp32.json > $OUT/bench_draft_fp32.txt 2>&1; stamp "end bench_draft fp32"
