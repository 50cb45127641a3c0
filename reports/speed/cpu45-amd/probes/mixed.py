import sys, time, torch, torch.nn as nn
from gamegrammar.model import GameGPT, preset
name, B, ctx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.manual_seed(0)
m = GameGPT(preset(name, vocab_size=252, tick_id=5, dropout=0.0)).eval()
def mk(model, b):
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
class L16(nn.Module):
    def __init__(self, lin):
        super().__init__(); self.w = lin.weight.detach().bfloat16(); self.b = None if lin.bias is None else lin.bias.detach().bfloat16()
    def forward(self, x):
        return nn.functional.linear(x.bfloat16(), self.w, self.b).float()
for blk in m.blocks:
    blk.attn.qkv, blk.attn.proj, blk.mlp.fc, blk.mlp.proj = L16(blk.attn.qkv), L16(blk.attn.proj), L16(blk.mlp.fc), L16(blk.mlp.proj)
b = t(m, mk(m, B))
print(f"{name} B={B} ctx={ctx}: fp32 {a*1e3:.1f} ms, bf16 linears + fp32 cache {b*1e3:.1f} ms, x{a/b:.2f}")
