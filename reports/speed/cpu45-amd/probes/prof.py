import sys, time, torch, torch.nn.functional as F
from gamegrammar.model import GameGPT, preset
name, B, ctx, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), getattr(torch, sys.argv[4])
torch.manual_seed(0)
m = GameGPT(preset(name, vocab_size=252, tick_id=5, dropout=0.0)).eval().to(dtype)
c = m.config
cache = m.new_cache(B, 1536)
with torch.no_grad():
    x = torch.randint(0, 252, (B, ctx))
    m(x, cache=cache)
    tok = torch.randint(0, 252, (B, 1))
    def step():
        cache.pos = ctx
        m(tok, cache=cache)
    for _ in range(3): step()
    t = time.perf_counter(); n = 20
    for _ in range(n): step()
    st = (time.perf_counter() - t) / n
    H, D = c.n_head, c.n_embd // c.n_head
    q = torch.randn(B, H, 1, D, dtype=dtype)
    k, v = cache.k[0, :, :, :ctx+1], cache.v[0, :, :, :ctx+1]
    for _ in range(3): F.scaled_dot_product_attention(q, k, v)
    t = time.perf_counter()
    for _ in range(n): F.scaled_dot_product_attention(q, k, v)
    at = (time.perf_counter() - t) / n * c.n_layer
    kvb = 2 * c.n_layer * B * (ctx + 1) * c.n_embd * k.element_size()
    print(f"{name} B={B} ctx={ctx} {dtype}: step {st*1e3:.1f} ms, sdpa {at*1e3:.1f} ms ({kvb/at/1e9:.1f} GB/s), kv {kvb/1e6:.0f} MB, rest {(st-at)*1e3:.1f} ms")
    with torch.profiler.profile() as prof:
        for _ in range(5): step()
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
