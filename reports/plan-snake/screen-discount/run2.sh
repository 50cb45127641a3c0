#!/bin/bash
# planner screen on the rules, held-out episodes (seed 1), 100 games each: the discount
cd /work/main && source .venv/bin/activate
out=/tmp/w/screen
run() { name=$1; seed=$2; games=$3; shift 3; [ -f $out/$name/report.json ] && return; /usr/bin/time -f "$name %e s" -a -o $out/times.txt gamegrammar play --ckpt models/snake --games $games --seed $seed --batch-size 50 --agents planner --planner lookahead --simulator rules --rollout-policy heuristic --quiet --out $out/$name "$@" > $out/$name.log 2>&1; }
run d06 1 100 --rollouts 2 --horizon 8 --discount 0.6 --leaf-weight 0.05
run d05 1 100 --rollouts 2 --horizon 8 --discount 0.5 --leaf-weight 0.05
run d09 1 100 --rollouts 2 --horizon 8 --discount 0.9 --leaf-weight 0.05
run d07l02 1 100 --rollouts 2 --horizon 8 --discount 0.7 --leaf-weight 0.2
run d07-s0 0 200 --rollouts 2 --horizon 8 --discount 0.7 --leaf-weight 0.05
