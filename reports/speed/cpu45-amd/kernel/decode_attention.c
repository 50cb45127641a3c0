/* Attention of a few new queries a row over that row's cached keys and values, for sampling on a CPU.

   A probe of issue 45, not shipped: bench_kernel.py beside it builds it with the machine's C compiler (-O3
   -march=native -fopenmp) and times it against torch's attention (docs/speed.md, "A decode attention in C"). Why it
   was tried: torch's CPU attention reads a decode step's cache well below the memory's speed (one query a row is its
   worst case, and bf16 keys its slowest), while this loop reads each row's keys and values once, at that row's own
   length, and nothing past it.

   Exact and independent of the pass: every query's scores, softmax and weighted sum are computed in the same order
   whatever the number of queries a pass feeds a row, so one token a pass and several give the same bits.

   q    [B, H, T, D] float32, contiguous
   k, v [B, H, room, D] float32 or bfloat16 (uint16 bits), the keys' and values' rows contiguous (D apart);
        kb, kh: the element strides of a batch row and a head (the same for v)
   out  [B, H, T, D] float32, contiguous
   lengths[b]: the row's keys cached before this pass; counts[b]: its real queries (<= T). Query t of row b sees
   keys 0 .. lengths[b] + t (its own included, written before this call); queries t >= counts[b] get zeros. */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LANES 16

static inline float from_bf16(uint16_t x) {
    union { uint32_t u; float f; } c;
    c.u = (uint32_t)x << 16;
    return c.f;
}

/* A dot product in a fixed order: LANES partial sums over d, then their sum as a fixed tree. */
static inline float dot(const float *a, const float *b, int D) {
    float acc[LANES] = {0};
    int d = 0;
    for (; d + LANES <= D; d += LANES)
        for (int l = 0; l < LANES; l++) acc[l] += a[d + l] * b[d + l];
    for (int l = 0; d + l < D; l++) acc[l] += a[d + l] * b[d + l];
    for (int w = LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) acc[l] += acc[l + w];
    return acc[0];
}

#define DEFINE_ATTEND(NAME, KV, LOAD)                                                                                  \
    int NAME(const float *q, const KV *k, const KV *v, float *out, const int64_t *lengths, const int64_t *counts,     \
             int B, int H, int T, int D, int64_t kb, int64_t kh, float scale, int threads) {                          \
        int failed = 0;                                                                                                \
        _Pragma("omp parallel num_threads(threads)") {                                                                 \
            size_t room = 0;                                                                                           \
            float *scores = NULL;                                                                                      \
            float *row = (float *)malloc(sizeof(float) * (size_t)D);                                                   \
            if (row == NULL) failed = 1;                                                                               \
            _Pragma("omp for schedule(dynamic, 1)") for (int bh = 0; bh < B * H; bh++) {                              \
                if (failed) continue;                                                                                  \
                int b = bh / H, h = bh % H;                                                                            \
                int n = (int)counts[b], before = (int)lengths[b], keys = before + n;                                  \
                const float *qs = q + (size_t)bh * T * D;                                                              \
                float *os = out + (size_t)bh * T * D;                                                                  \
                memset(os, 0, sizeof(float) * (size_t)T * D);                                                          \
                if (n <= 0) continue;                                                                                  \
                if ((size_t)n * keys > room) {                                                                         \
                    free(scores);                                                                                      \
                    room = (size_t)n * keys * 2;                                                                       \
                    scores = (float *)malloc(sizeof(float) * room);                                                    \
                    if (scores == NULL) { failed = 1; room = 0; continue; }                                           \
                }                                                                                                      \
                const KV *ks = k + b * kb + h * kh, *vs = v + b * kb + h * kh;                                        \
                for (int j = 0; j < keys; j++) { /* scores: each key read once, for every query that sees it */       \
                    const KV *kj = ks + (size_t)j * D;                                                                 \
                    for (int d = 0; d < D; d++) row[d] = LOAD(kj[d]);                                                 \
                    for (int t = j > before ? j - before : 0; t < n; t++)                                              \
                        scores[(size_t)t * keys + j] = dot(qs + (size_t)t * D, row, D) * scale;                       \
                }                                                                                                      \
                for (int t = 0; t < n; t++) { /* softmax over the keys query t sees */                                \
                    float *s = scores + (size_t)t * keys;                                                              \
                    int seen = before + t + 1;                                                                         \
                    float top = s[0], total = 0.0f;                                                                    \
                    for (int j = 1; j < seen; j++) top = s[j] > top ? s[j] : top;                                     \
                    for (int j = 0; j < seen; j++) { s[j] = expf(s[j] - top); total += s[j]; }                      \
                    float inv = 1.0f / total;                                                                          \
                    for (int j = 0; j < seen; j++) s[j] *= inv;                                                       \
                }                                                                                                      \
                for (int j = 0; j < keys; j++) { /* values: each read once, added to every query that sees it */     \
                    const KV *vj = vs + (size_t)j * D;                                                                 \
                    for (int d = 0; d < D; d++) row[d] = LOAD(vj[d]);                                                 \
                    for (int t = j > before ? j - before : 0; t < n; t++) {                                            \
                        float p = scores[(size_t)t * keys + j];                                                        \
                        float *o = os + (size_t)t * D;                                                                 \
                        for (int d = 0; d < D; d++) o[d] += p * row[d];                                               \
                    }                                                                                                  \
                }                                                                                                      \
            }                                                                                                          \
            free(scores);                                                                                              \
            free(row);                                                                                                 \
        }                                                                                                              \
        return failed;                                                                                                 \
    }

#define SAME(x) (x)
DEFINE_ATTEND(attend_float32, float, SAME)
DEFINE_ATTEND(attend_bfloat16, uint16_t, from_bf16)
