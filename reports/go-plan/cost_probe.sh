#!/bin/bash
# The Go planner's cost per move: `bash reports/go-plan/cost_probe.sh [SIMULATOR] [MOVES]`: the planner (C 8, K 4, H 8)
# plays both colours of one game through GTP for MOVES genmoves from the empty board; its engine prints the search's
# cost at quit (stderr), and the wall time of the whole session is printed beside it.
simulator=${1:-model}; moves=${2:-40}
{ printf 'boardsize 9\nclear_board\nkomi 7.5\n'; for ((i = 0; i < moves / 2; i++)); do printf 'genmove b\ngenmove w\n'; done; printf 'quit\n'; } > /tmp/go-plan-probe.gtp
start=$(date +%s.%N)
gamegrammar gtp --ckpt models/go --device cpu --planner lookahead --simulator "$simulator" --candidates 8 --rollouts 4 --horizon 8 \
    < /tmp/go-plan-probe.gtp 2>&1 >/dev/null | grep "planner's cost"
echo "wall: $(echo "$(date +%s.%N) - $start" | bc) s for $moves genmoves (start-up included)"
