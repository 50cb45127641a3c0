"""A pass of a model (64 rows over 384 cached tokens, fed 1, 2 or 5 tokens a row; the cache at one position, or rows at
their own lengths as the samplers keep them) in bfloat16 and mixed against float32. Usage: formats.py CKPT"""
import time, torch, sys
from gamegrammar.training.checkpoint import load_checkpoint
import gamegrammar.model.precision as P
L = load_checkpoint(sys.argv[1], map_location=torch.device('cpu'))
def best(model, rows, tokens, context, lengths):
    cache = model.new_cache(rows, context + tokens); cache.k.zero_(); cache.v.zero_()
    fed = torch.full((rows, tokens), 1, dtype=torch.long)
    b = 1e9
    with torch.no_grad():
        for c in range(4):
            cache.pos = context
            if lengths: cache.lengths = torch.full((rows,), context)
            t = time.perf_counter(); model(fed, cache=cache); e = time.perf_counter() - t
            if c: b = min(b, e)
    return b
for lengths in (False, True):
    for tokens in (1, 2, 5):
        ts = {n: best(P.for_generation(L.model, P.Precision(d, 'x', m)), 64, tokens, 384, lengths) for n, (d, m) in P.FORMATS.items()}
        print('lengths' if lengths else 'pos    ', tokens, {n: round(ts['float32'] / t, 2) for n, t in ts.items()}, f"fp32 {ts['float32']*1e3:.0f} ms")
