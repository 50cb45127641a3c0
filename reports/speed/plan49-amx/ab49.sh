#!/bin/bash
# planner before (a clone of an earlier commit, $OLD) / after (working tree), back to back
cd /work/main; OLD=${OLD:-/tmp/old49}
stamp() { echo "== $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg) calib $( { /usr/bin/time -f %e python3 -c 'sum(i*i for i in range(20_000_000))'; } 2>&1 )"; }
for dt in bfloat16 float32; do
  stamp; echo -n "before "; PYTHONPATH=$OLD .venv/bin/python /tmp/s/plan49.py $dt "$@"
  stamp; echo -n "after  "; .venv/bin/python /tmp/s/plan49.py $dt "$@"
done
stamp
