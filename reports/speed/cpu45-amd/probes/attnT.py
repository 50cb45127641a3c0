import time, torch, torch.nn.functional as F
B, H, D, L, NL = 64, 6, 64, 400, 8
def best(fn, n=8):
    fn(); b = 1e9
    for _ in range(n):
        t = time.perf_counter(); fn(); b = min(b, time.perf_counter() - t)
    return b
for dtype in (torch.float32, torch.bfloat16):
    K = torch.randn(NL, B, H, 1536, D, dtype=dtype); V = torch.randn(NL, B, H, 1536, D, dtype=dtype)
    for T in (1, 5):
        q = torch.randn(B, H, T, D, dtype=dtype)
        pos = torch.full((B,), L - T)[:, None] + torch.arange(T)  # each row's query positions
        mask = torch.arange(L) <= pos[:, None, :, None]  # [B,1,T,L]
        fmask = torch.zeros(B, 1, T, L, dtype=dtype).masked_fill(~mask, float("-inf"))
        by = 2 * NL * B * H * L * D * K.element_size()
        def sdpa_bool():
            for l in range(NL): F.scaled_dot_product_attention(q, K[l, :, :, :L], V[l, :, :, :L], attn_mask=mask)
        def sdpa_float():
            for l in range(NL): F.scaled_dot_product_attention(q, K[l, :, :, :L], V[l, :, :, :L], attn_mask=fmask)
        def sdpa_none():
            for l in range(NL): F.scaled_dot_product_attention(q, K[l, :, :, :L], V[l, :, :, :L])
        def manual():
            for l in range(NL):
                s = torch.matmul(q, K[l, :, :, :L].transpose(-1, -2)) * D ** -0.5 + fmask
                torch.matmul(torch.softmax(s, -1), V[l, :, :, :L])
        for name, fn in (("sdpa bool mask", sdpa_bool), ("sdpa float mask", sdpa_float), ("sdpa no mask", sdpa_none), ("matmul-softmax-matmul", manual)):
            t = best(fn)
            print(f"{str(dtype)[6:]:9} T={T} {name:22}: {t*1e3:6.1f} ms {by/t/1e9:5.1f} GB/s")
