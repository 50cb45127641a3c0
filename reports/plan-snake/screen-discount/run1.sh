#!/bin/bash
# planner screen on the rules, held-out episodes (seed 1), 100 games each
cd /work/main && source .venv/bin/activate
out=/tmp/w/screen
run() { name=$1; shift; [ -f $out/$name/report.json ] && return; /usr/bin/time -f "$name %e s" -a -o $out/times.txt gamegrammar play --ckpt models/snake --games 100 --seed 1 --batch-size 50 --agents planner --planner lookahead --simulator rules --rollout-policy heuristic --quiet --out $out/$name "$@" > $out/$name.log 2>&1; }
[ -f $out/base/report.json ] || gamegrammar play --ckpt models/snake --games 100 --seed 1 --temperature 0 --agents greedy --quiet --out $out/greedy > $out/greedy.log 2>&1
run base --rollouts 2 --horizon 8 --discount 0.8 --leaf-weight 0.05
run d07 --rollouts 2 --horizon 8 --discount 0.7 --leaf-weight 0.05
run d09 --rollouts 2 --horizon 8 --discount 0.9 --leaf-weight 0.05
run l02 --rollouts 2 --horizon 8 --discount 0.8 --leaf-weight 0.2
run l0 --rollouts 2 --horizon 8 --discount 0.8 --leaf-weight 0
run dc30 --rollouts 2 --horizon 8 --discount 0.8 --leaf-weight 0.05 --death-cost 30
run k1 --rollouts 1 --horizon 8 --discount 0.8 --leaf-weight 0.05
run k3 --rollouts 3 --horizon 8 --discount 0.8 --leaf-weight 0.05
run h12 --rollouts 2 --horizon 12 --discount 0.8 --leaf-weight 0.05
