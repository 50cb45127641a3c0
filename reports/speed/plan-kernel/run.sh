#!/bin/bash
# The planner's moves/s, the code before its branches went through our kernel (cf1c201, from a clone) and this code,
# back to back, float32 and bfloat16, each alone under the CPU lock. Usage: bash reports/speed/plan-kernel/run.sh [GAMES TICKS]
set -e
here=$(cd "$(dirname "$0")/../../.." && pwd)
games=${1:-50}; ticks=${2:-8}
old=/tmp/plan-kernel-old
[ -d $old ] || { git clone -q "$here" $old && git -C $old checkout -q cf1c201 && ln -s "$here/models" $old/models; }
for dtype in float32 bfloat16; do
  for tree in $old "$here"; do
    echo "== $(git -C $tree log --oneline -1 | cut -c1-60)"
    (cd $tree && flock /tmp/gg-cpu.lock env PYTHONPATH=$tree "$here/.venv/bin/python" "$here/reports/speed/plan-kernel/plan_probe.py" $dtype $games $ticks)
  done
done
