import sys, time, threading, torch
from gamegrammar.model import GameGPT, preset
name, B, ctx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.manual_seed(0)
m = GameGPT(preset(name, vocab_size=252, tick_id=5, dropout=0.0)).eval()
def mk(b):
    cache = m.new_cache(b, 1536); cache.k.normal_(); cache.v.normal_()
    return cache
tok = torch.randint(0, 252, (B, 1))
@torch.no_grad()
def run(cache, t, n):
    for _ in range(n):
        cache.pos = ctx; m(t, cache=cache)
n = 20
torch.set_num_threads(2)
c = mk(B); run(c, tok, 2)
t0 = time.perf_counter(); run(c, tok, n); a = (time.perf_counter() - t0) / n
torch.set_num_threads(1)
c1, c2 = mk(B // 2), mk(B // 2); run(c1, tok[:B//2], 2)
t0 = time.perf_counter()
th = [threading.Thread(target=run, args=(cc, tok[:B//2], n)) for cc in (c1, c2)]
[x.start() for x in th]; [x.join() for x in th]
b = (time.perf_counter() - t0) / n
print(f"{name} B={B} ctx={ctx}: 2 threads one batch {a*1e3:.1f} ms/step; two half-batches on two python threads {b*1e3:.1f} ms/step; x{a/b:.2f}")
