import sys, time, torch, torch.nn.functional as F
B, H, D, T, L = 64, 6, 64, 400, 8
def best(fn, n=10):
    fn(); b = 1e9
    for _ in range(n):
        t = time.perf_counter(); fn(); b = min(b, time.perf_counter() - t)
    return b
for dtype in (torch.float32, torch.bfloat16):
    K = torch.randn(L, B, H, 1536, D, dtype=dtype); V = torch.randn(L, B, H, 1536, D, dtype=dtype)
    q = torch.randn(B, H, 1, D, dtype=dtype)
    by = 2 * L * B * H * T * D * K.element_size()
    def sdpa():
        for l in range(L): F.scaled_dot_product_attention(q, K[l, :, :, :T], V[l, :, :, :T])
    def bmm():
        for l in range(L):
            k, v = K[l, :, :, :T], V[l, :, :, :T]
            s = torch.matmul(q, k.transpose(-1, -2)) * D ** -0.5
            torch.matmul(torch.softmax(s, -1), v)
    def bmm32():  # bf16 storage, fp32 softmax
        for l in range(L):
            k, v = K[l, :, :, :T], V[l, :, :, :T]
            s = torch.matmul(q, k.transpose(-1, -2)).float() * D ** -0.5
            torch.matmul(torch.softmax(s, -1).to(dtype), v)
    def summ():
        for l in range(L): K[l, :, :, :T].sum(); V[l, :, :, :T].sum()
    for name, fn in (("sdpa", sdpa), ("bmm", bmm), ("bmm32", bmm32), ("sum", summ)):
        t = best(fn)
        print(f"{dtype} {name}: {t*1e3:.1f} ms {by/t/1e9:.1f} GB/s")
