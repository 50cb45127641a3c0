#!/bin/bash
# issue 45 must-show 2 for play: models/snake, 1000 games, the code of 08f0b08 (a clone at /tmp/old45) against this
# commit's (attention by runs now serves play's cache too), back to back, one at a time
set -u
OUT=${OUT:-/tmp/m45pp}; M=/work/main/models/snake; PY=/work/main/.venv/bin/python
mkdir -p $OUT
OLD="env PYTHONPATH=/tmp/old45 $PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
NEW="$PY -c 'import sys; from gamegrammar.cli import main; sys.exit(main())'"
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 ) $*"; }
run() { name=$1; shift; stamp "start $name"; ( cd /tmp && /usr/bin/time -f "$name wall %e s user %U sys %S" bash -c "$*" ) > $OUT/$name.log 2>&1; tail -1 $OUT/$name.log; stamp "end $name"; }
run play-old "$OLD play --ckpt $M --games 1000 --agents model --out $OUT/play-old --quiet"
run play-new "$NEW play --ckpt $M --games 1000 --agents model --out $OUT/play-new --quiet"
