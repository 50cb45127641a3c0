# SDPA over 8 layers of a batch-64 cache against a 1 GB sum: the memory rate (run from the repository root with its .venv)
import time, torch, torch.nn.functional as F, math
torch.set_num_threads(2)
B,H,L,D,ctx,NL=64,8,1536,48,712,8
dt=torch.bfloat16
K=torch.randn(NL,B,H,L,D,dtype=dt); V=torch.randn(NL,B,H,L,D,dtype=dt); q=torch.randn(B,H,1,D,dtype=dt)
by=NL*2*B*H*ctx*D*2
def step():
    for l in range(NL): F.scaled_dot_product_attention(q,K[l,:,:,:ctx],V[l,:,:,:ctx])
step(); t=time.perf_counter(); n=10
for _ in range(n): step()
s=(time.perf_counter()-t)/n; print(f"sdpa 8 layers: {s*1e3:.1f} ms {by/s/1e9:.1f} GB/s")
X=torch.randn(1<<28)  # 1 GB fp32
X.sum(); t=time.perf_counter(); 
for _ in range(5): X.sum()
s=(time.perf_counter()-t)/5; print(f"sum 1GB: {4*(1<<28)/s/1e9:.1f} GB/s")
def step2():
    for l in range(NL):
        k=K[l,:,:,:ctx]; v=V[l,:,:,:ctx]
        s_=torch.matmul(q, k.transpose(-1,-2)); w=torch.softmax(s_,-1); w@v
step2(); t=time.perf_counter()
for _ in range(n): step2()
s=(time.perf_counter()-t)/n; print(f"manual bf16 8 layers: {s*1e3:.1f} ms {by/s/1e9:.1f} GB/s")
