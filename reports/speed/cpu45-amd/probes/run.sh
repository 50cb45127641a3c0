#!/bin/bash
# Where a decode pass's time goes on this host, and what was tried against it (issue 45, must-show 1); run from the
# repository root, nothing else running: bash reports/speed/cpu45-amd/probes/run.sh > reports/speed/cpu45-amd/probes/run.txt 2>&1
set -u
D=reports/speed/cpu45-amd/probes; PY=.venv/bin/python
grep -o "avx512[a-z_0-9]*\|amx[a-z_0-9]*" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
echo "== one decode pass (batch, context, dtype): its time, torch's attention alone, a profile"
$PY $D/prof.py gg-gpu 64 300 float32 | head -16
$PY $D/prof.py gg-gpu 64 300 bfloat16 | head -3
echo "== 8 layers of decode attention, batch 64, 6 heads of 64, 400 cached tokens: SDPA, matmul-softmax-matmul, and a plain sum of the same bytes"
$PY $D/attn.py
echo "== tried: bf16 weights for the matmuls with the KV cache and attention in float32"
$PY $D/mixed.py gg-gpu 64 300; $PY $D/mixed.py gg-cpu 256 400
echo "== tried: int8 weights (torch's dynamic quantization of the Linear layers)"
$PY $D/q8.py gg-gpu 64 300 2>&1 | grep int8; $PY $D/q8.py gg-cpu 256 400 2>&1 | grep int8
echo "== tried: two half-batches on two threads of one thread each (one's matmuls overlapping the other's memory reads)"
$PY $D/par.py gg-gpu 64 300; $PY $D/par.py gg-cpu 256 400; $PY $D/par.py gg-cpu 64 400
echo "== attention of 1 and 5 queries a row (a drafted pass feeds about 5), float32 and bf16, masked as the samplers mask"
$PY $D/attnT.py
echo "== the drafted sampler (evaluate's) on models/snake, 256 samples at batch 256, in each format, profiled"
for f in bfloat16 mixed float32; do $PY $D/profdraft.py $f 256 256 2>&1 | grep -v "^USDT" | sed -n 2,12p; done
