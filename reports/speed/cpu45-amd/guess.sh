#!/bin/bash
cd /work/main; for t in 2 1 0; do .venv/bin/python reports/speed/cpu45-amd/probes/guess.py bfloat16 $t 512; done
