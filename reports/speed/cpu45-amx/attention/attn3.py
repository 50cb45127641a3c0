# a torch.compile'd decode attention against SDPA (run from the repository root with its .venv)
import time, torch, torch.nn.functional as F, math
torch.set_num_threads(2)
B,H,L,D,ctx,NL=64,8,1536,48,712,8
dt=torch.bfloat16
K=torch.randn(NL,B,H,L,D,dtype=dt); V=torch.randn(NL,B,H,L,D,dtype=dt); q=torch.randn(B,H,1,D,dtype=dt)
by=NL*2*B*H*ctx*D*2
def attn(q,k,v):
    s=(q.float()*k.float()).sum(-1, keepdim=True)*(1/math.sqrt(D))   # [B,H,ctx,1]
    w=torch.softmax(s, dim=2)
    return (w*v.float()).sum(2, keepdim=True).to(q.dtype)
t=time.perf_counter(); c=torch.compile(attn, dynamic=True); c(q,K[0,:,:,:ctx],V[0,:,:,:ctx]); print("compile", time.perf_counter()-t)
ref=F.scaled_dot_product_attention(q,K[0,:,:,:ctx],V[0,:,:,:ctx]); print("err", (c(q,K[0,:,:,:ctx],V[0,:,:,:ctx])-ref).abs().max().item())
def step(f):
    for l in range(NL): f(q,K[l,:,:,:ctx],V[l,:,:,:ctx])
for name,f in [("sdpa",F.scaled_dot_product_attention),("compiled",c)]:
    step(f); t=time.perf_counter(); n=10
    for _ in range(n): step(f)
    s=(time.perf_counter()-t)/n; print(f"{name} 8 layers: {s*1e3:.1f} ms {by/s/1e9:.1f} GB/s")
for cx in (100, 400, 1500):
    step2=lambda f: [f(q,K[l,:,:,:cx],V[l,:,:,:cx]) for l in range(NL)]
    for name,f in [("sdpa",F.scaled_dot_product_attention),("compiled",c)]:
        step2(f); t=time.perf_counter(); n=10
        for _ in range(n): step2(f)
        s=(time.perf_counter()-t)/n; print(f"ctx {cx} {name}: {s*1e3:.1f} ms {NL*2*B*H*cx*D*2/s/1e9:.1f} GB/s")
