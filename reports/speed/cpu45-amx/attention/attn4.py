# SDPA from a sliced or contiguous cache, bf16 and float32 (run from the repository root with its .venv)
import time, torch, torch.nn.functional as F
torch.set_num_threads(2)
B,H,L,D,ctx,NL=64,8,1536,48,712,8
def run(name, K, V, q, by):
    def step():
        for l in range(NL): F.scaled_dot_product_attention(q,K[l],V[l])
    step(); t=time.perf_counter(); n=10
    for _ in range(n): step()
    s=(time.perf_counter()-t)/n; print(f"{name}: {s*1e3:.1f} ms {by/s/1e9:.1f} GB/s", flush=True)
for dt in (torch.bfloat16, torch.float32):
    q=torch.randn(B,H,1,D,dtype=dt)
    by=NL*2*B*H*ctx*D*q.element_size()
    K=torch.randn(NL,B,H,L,D,dtype=dt); V=torch.randn_like(K)
    run(f"{dt} sliced", K[:,:,:,:ctx], V[:,:,:,:ctx], q, by)
    del K, V
    K=torch.randn(NL,B,H,ctx,D,dtype=dt); V=torch.randn_like(K)
    run(f"{dt} contiguous", K, V, q, by)
    del K, V
