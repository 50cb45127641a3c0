# models/snake sampled from BOS at several batch sizes: python bsz.py DTYPE NUM BATCH... (run from the repository root with its .venv)
import sys, time, torch
from gamegrammar.training.checkpoint import load_checkpoint
from gamegrammar.model.precision import choose_precision, for_generation
from gamegrammar.model.sampling import generate, SamplingConfig, SamplingStats
torch.set_num_threads(2)
L = load_checkpoint("models/snake", map_location=torch.device("cpu"))
dtype = sys.argv[1]; num = int(sys.argv[2])
prec = choose_precision(dtype, L.model)
m = for_generation(L.model, prec)
for b in map(int, sys.argv[3:]):
    st = SamplingStats()
    cfg = SamplingConfig(1.0, None, None, 2304, b, 0)
    t = time.perf_counter()
    out = generate(m, [[L.tokenizer.bos_id]] * num, L.tokenizer.eos_id, cfg, st)
    dt = time.perf_counter() - t
    print(f"{prec.name} batch {b}: {st.generated_tokens} tokens {dt:.1f} s {st.generated_tokens/dt:.0f} tok/s", flush=True)
