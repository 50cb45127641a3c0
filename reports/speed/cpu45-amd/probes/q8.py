import sys, time, torch
from gamegrammar.model import GameGPT, preset
name, B, ctx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.manual_seed(0)
m = GameGPT(preset(name, vocab_size=252, tick_id=5, dropout=0.0)).eval()
def mk(model, b, dtype=torch.float32):
    cache = model.new_cache(b, 1536); cache.k.normal_(); cache.v.normal_()
    return cache
tok = torch.randint(0, 252, (B, 1))
@torch.no_grad()
def t(model, cache, n=20):
    for _ in range(3): cache.pos = ctx; model(tok, cache=cache)
    s = time.perf_counter()
    for _ in range(n): cache.pos = ctx; model(tok, cache=cache)
    return (time.perf_counter() - s) / n
a = t(m, mk(m, B))
q = torch.ao.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)
b = t(q, mk(m, B))
print(f"{name} B={B} ctx={ctx}: fp32 {a*1e3:.1f} ms, int8 dynamic linear {b*1e3:.1f} ms, x{a/b:.2f}")
