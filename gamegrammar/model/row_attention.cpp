// Attention of a few new queries a row over a KV cache whose rows sit at their own lengths: the decode step of the
// sampler, of `play` and of the speculative sampler; and of a planner's branches, each group of which shares one game's
// history (gpt.BranchCache). gamegrammar/model/kernels.py builds and calls it.
//
// Why our own: torch's CPU attention runs these shapes (1-17 queries a row, head size 32 or 48, a few hundred keys)
// far below what the machine can do, in bfloat16 most of all (docs/speed.md). Here the queries of one (row, head) are
// the 16 lanes of a vector, so a key costs one broadcast multiply-add per head dimension and no horizontal sum, and
// each key and value is read once for all the row's queries (flash attention's online softmax over tiles of keys).
//
// Within a path a query's output does not depend on what else its pass holds (which lane it takes, how many rows):
// every lane does the same operations on its own numbers, the tiles always start at key 0, and a key a query may not
// see adds exact zeros. A row's lone query takes another path (the head dimensions in the lanes), which sums in
// another order: the same to rounding.
//
// Written with GCC's vector extensions: the compiler lowers a 16-float vector to what -march=native has (one AVX-512
// register, two AVX2 ones, NEON quads), so the one source serves every CPU it is compiled on.

#include <cstdint>
#include <cstring>
#include <omp.h>

typedef float v16 __attribute__((vector_size(64)));
typedef int32_t vi16 __attribute__((vector_size(64)));
typedef float v8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(32)));

namespace {

constexpr int TILE = 64;   // keys per tile of the online softmax
constexpr int DMAX = 256;  // head sizes up to this
constexpr int CHUNK = 16;  // head dimensions accumulated in registers at a time

inline float from_bf16(uint16_t x) {
    uint32_t u = uint32_t(x) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline uint16_t to_bf16(float f) {  // round to nearest even, as torch does
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

inline float load(const float* p) { return *p; }
inline float load(const uint16_t* p) { return from_bf16(*p); }
inline void store(float* p, float x) { *p = x; }
inline void store(uint16_t* p, float x) { *p = to_bf16(x); }

template <typename V>
inline V splat(float x) { return V{} + x; }

// e^x for x <= 0 (x - max of a softmax), relative error about 1e-7; exp(0) is exactly 1.
template <typename V, typename VI>
inline V vexp(V x) {
    x = x < -87.0f ? splat<V>(-87.0f) : x;
    V t = x * 1.44269504088896341f;
    const V shifter = splat<V>(12582912.0f);  // 1.5 * 2^23: adding and subtracting it rounds to an integer
    V n = (t + shifter) - shifter;
    V f = (t - n) * 0.693147180559945309f;  // |f| <= ln 2 / 2
    V p = splat<V>(1.0f / 5040.0f);
    p = p * f + 1.0f / 720.0f;
    p = p * f + 1.0f / 120.0f;
    p = p * f + 1.0f / 24.0f;
    p = p * f + 1.0f / 6.0f;
    p = p * f + 0.5f;
    p = p * f + 1.0f;
    p = p * f + 1.0f;
    VI bits = (__builtin_convertvector(n, VI) + 127) << 23;
    V scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

// Keys and values of a tile as float32: the cache itself where it is float32, else converted once for all queries.
template <typename KV>
inline const float* as_float(const KV* x, long count, float* scratch) {
    if constexpr (sizeof(KV) == 4) {
        return reinterpret_cast<const float*>(x);
    } else {
        for (long i = 0; i < count; ++i) scratch[i] = load(x + i);
        return scratch;
    }
}

// The online softmax of W queries in the W lanes of a vector (scaled, transposed: Qt[d] holds dimension d of every
// lane's query) over keys and values k[j * D + d], v[j * D + d] for j < keys, carried on from the state (m, l, acc):
// lane t sees keys j < first_new + t + 1 past first_new (first_new >= keys: every lane sees every key).
template <typename V, typename VI, typename KV>
void lanes_over_keys(const V* Qt, int D, const KV* k, const KV* v, int keys, int first_new, V& m, V& l, V* acc) {
    alignas(64) V S[TILE + 4];
    alignas(64) float kf[TILE * DMAX];
    alignas(64) float vf[TILE * DMAX];
    V lane;
    for (int t = 0; t < int(sizeof(V) / sizeof(float)); ++t) lane[t] = float(t);
    const V minus_inf = splat<V>(-__builtin_inff());
    for (int j0 = 0; j0 < keys; j0 += TILE) {
        const int n = keys - j0 < TILE ? keys - j0 : TILE;
        const float* kt = as_float(k + long(j0) * D, long(n) * D, kf);
        const float* vt = as_float(v + long(j0) * D, long(n) * D, vf);
        alignas(64) float tail[4 * DMAX];  // the last keys of a tile padded to 4 with zeros
        for (int jj = 0; jj < n; jj += 4) {
            const float* k0 = kt + jj * D;
            if (jj + 4 > n) {  // every key through the same code, so its score does not depend on the tile's size
                std::memset(tail, 0, sizeof(float) * 4 * D);
                std::memcpy(tail, k0, sizeof(float) * (n - jj) * D);
                k0 = tail;
            }
            const float *k1 = k0 + D, *k2 = k1 + D, *k3 = k2 + D;
            V s0{}, s1{}, s2{}, s3{};
            for (int d = 0; d < D; ++d) {
                const V qd = Qt[d];
                s0 += qd * k0[d];
                s1 += qd * k1[d];
                s2 += qd * k2[d];
                s3 += qd * k3[d];
            }
            S[jj] = s0;
            S[jj + 1] = s1;
            S[jj + 2] = s2;
            S[jj + 3] = s3;
        }
        V top = minus_inf;
        int jj;
        for (jj = 0; jj < n; ++jj) {
            const int j = j0 + jj;
            if (j >= first_new) S[jj] = lane >= splat<V>(float(j - first_new)) ? S[jj] : minus_inf;
            top = S[jj] > top ? S[jj] : top;
        }
        const V m_new = top > m ? top : m;
        const V keep = vexp<V, VI>(m - m_new);  // -inf - finite on the first tile: a tiny factor on zeros
        l *= keep;
        for (int d = 0; d < D; ++d) acc[d] *= keep;
        for (jj = 0; jj < n; ++jj) {
            const V p = S[jj] == minus_inf ? V{} : vexp<V, VI>(S[jj] - m_new);
            S[jj] = p;
            l += p;
        }
        for (int c = 0; c < D; c += CHUNK) {
            const int w = D - c < CHUNK ? D - c : CHUNK;
            if (w == CHUNK) {
                V a[CHUNK];
                for (int d = 0; d < CHUNK; ++d) a[d] = acc[c + d];
                for (jj = 0; jj < n; ++jj) {
                    const V p = S[jj];
                    const float* vj = vt + jj * D + c;
                    for (int d = 0; d < CHUNK; ++d) a[d] += p * vj[d];
                }
                for (int d = 0; d < CHUNK; ++d) acc[c + d] = a[d];
            } else {
                for (jj = 0; jj < n; ++jj)
                    for (int d = 0; d < w; ++d) acc[c + d] += S[jj] * vt[jj * D + c + d];
            }
        }
        m = m_new;
    }
}

// Several queries of one (row, head), W of them a block in the W lanes of a vector: queries q[t * q_step + d] for
// t < nq, keys and values k[j * D + d] for j < L0 + nq, query t seeing keys j <= L0 + t; output y[t * y_step + d].
template <typename V, typename VI, int W, typename KV, typename Q>
void attend_lanes(const Q* q, long q_step, int nq, const KV* k, const KV* v, int L0, int D, float scale, Q* y, long y_step) {
    alignas(64) V Qt[DMAX];
    alignas(64) V acc[DMAX];
    for (int t0 = 0; t0 < nq; t0 += W) {
        const int nb = nq - t0 < W ? nq - t0 : W;
        for (int d = 0; d < D; ++d) {
            V col{};
            for (int t = 0; t < nb; ++t) col[t] = load(q + (t0 + t) * q_step + d) * scale;
            Qt[d] = col;
            acc[d] = V{};
        }
        V m = splat<V>(-__builtin_inff()), l{};
        lanes_over_keys<V, VI, KV>(Qt, D, k, v, L0 + t0 + nb, L0 + t0, m, l, acc);
        for (int t = 0; t < nb; ++t) {
            const float inv = 1.0f / l[t];
            for (int d = 0; d < D; ++d) store(y + (t0 + t) * y_step + d, acc[d][t] * inv);
        }
    }
}

inline float hsum(v16 a) {
    v8 b = __builtin_shufflevector(a, a, 0, 1, 2, 3, 4, 5, 6, 7) + __builtin_shufflevector(a, a, 8, 9, 10, 11, 12, 13, 14, 15);
    float s = 0.0f;
    for (int i = 0; i < 8; ++i) s += b[i];
    return s;
}

// The sums of 16 vectors at once, lane i holding the sum of a[i]: a tree of shuffles, each level halving the vectors
// and the partial sums each lane holds (15 pairings, where summing each vector alone takes 16 reductions).
inline v16 hsum16(const v16* a) {
    v16 z[8], u[4], w[2];
    for (int i = 0; i < 8; ++i)
        z[i] = __builtin_shufflevector(a[2 * i], a[2 * i + 1], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23) +
               __builtin_shufflevector(a[2 * i], a[2 * i + 1], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    for (int i = 0; i < 4; ++i)
        u[i] = __builtin_shufflevector(z[2 * i], z[2 * i + 1], 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27) +
               __builtin_shufflevector(z[2 * i], z[2 * i + 1], 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    for (int i = 0; i < 2; ++i)
        w[i] = __builtin_shufflevector(u[2 * i], u[2 * i + 1], 0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29) +
               __builtin_shufflevector(u[2 * i], u[2 * i + 1], 2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23, 26, 27, 30, 31);
    return __builtin_shufflevector(w[0], w[1], 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30) +
           __builtin_shufflevector(w[0], w[1], 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
}

inline v16 chunk(const float* p) {
    v16 x;
    std::memcpy(&x, p, sizeof x);
    return x;
}

inline v16 chunk(const uint16_t* p) {
    typedef uint16_t u16x16 __attribute__((vector_size(32)));
    u16x16 h;
    std::memcpy(&h, p, sizeof h);
    vi16 bits = __builtin_convertvector(h, vi16) << 16;
    v16 x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
}

// One query, the head dimensions in the lanes (qc: its nc chunks of 16, scaled), over keys j < n in tiles of 16 for
// the softmax, carried on from the state (m, l, acc).
template <typename KV>
void one_over_keys(const v16* qc, int nc, const KV* k, const KV* v, int n, int D, float& m, float& l, v16* acc) {
    const v16 minus_inf = splat<v16>(-__builtin_inff());
    for (int j0 = 0; j0 < n; j0 += 16) {
        const int nt = n - j0 < 16 ? n - j0 : 16;
        v16 a[16];
        for (int jj = 0; jj < 16; ++jj) {  // a key past the tile's end repeats its last one: its score is dropped
            const KV* kj = k + long(j0 + (jj < nt ? jj : nt - 1)) * D;
            v16 x = qc[0] * chunk(kj);
            for (int c = 1; c < nc; ++c) x += qc[c] * chunk(kj + c * 16);
            a[jj] = x;
        }
        v16 s = hsum16(a);  // lane jj: key j0 + jj's score
        for (int jj = nt; jj < 16; ++jj) s[jj] = -__builtin_inff();
        float top = s[0];
        for (int jj = 1; jj < nt; ++jj) top = s[jj] > top ? s[jj] : top;
        const float m_new = top > m ? top : m;
        const float keep = vexp<v16, vi16>(splat<v16>(m - m_new))[0];
        const v16 p = s == minus_inf ? v16{} : vexp<v16, vi16>(s - m_new);
        l = l * keep + hsum(p);
        for (int c = 0; c < nc; ++c) acc[c] *= keep;
        for (int jj = 0; jj < nt; ++jj) {
            const KV* vj = v + long(j0 + jj) * D;
            const float pj = p[jj];
            for (int c = 0; c < nc; ++c) acc[c] += pj * chunk(vj + c * 16);
        }
        m = m_new;
    }
}

// One query of one (row, head), the head dimensions in the lanes (D a multiple of 16): what a plain decoding step
// asks, where queries in lanes would leave all but one idle. Keys j < n.
template <typename KV, typename Q>
void attend_one(const Q* q, int n, const KV* k, const KV* v, int D, float scale, Q* y) {
    constexpr int NC = DMAX / 16;
    const int nc = D / 16;
    v16 qc[NC], acc[NC];
    for (int c = 0; c < nc; ++c) {
        v16 x;
        for (int i = 0; i < 16; ++i) x[i] = load(q + c * 16 + i) * scale;
        qc[c] = x;
        acc[c] = v16{};
    }
    float m = -__builtin_inff(), l = 0.0f;
    one_over_keys<KV>(qc, nc, k, v, n, D, m, l, acc);
    const float inv = 1.0f / l;
    for (int c = 0; c < nc; ++c)
        for (int i = 0; i < 16; ++i) store(y + c * 16 + i, acc[c][i] * inv);
}

// A row's queries in blocks of 16, the last block by the path that fits its size: one query alone, up to 8 in the
// lanes of a half-width vector, more in the full width (a drafted pass feeds up to 17: 16 and then 1).
template <typename KV, typename Q>
void attend(const Q* q, long q_step, int nq, const KV* k, const KV* v, int L0, int D, float scale, Q* y, long y_step) {
    for (int t0 = 0; t0 < nq; t0 += 16) {
        const int nb = nq - t0 < 16 ? nq - t0 : 16;
        const Q* qb = q + t0 * q_step;
        Q* yb = y + t0 * y_step;
        if (nb == 1 && D % 16 == 0)
            attend_one<KV, Q>(qb, L0 + t0 + 1, k, v, D, scale, yb);
        else if (nb <= 8)
            attend_lanes<v8, vi8, 8, KV, Q>(qb, q_step, nb, k, v, L0 + t0, D, scale, yb, y_step);
        else
            attend_lanes<v16, vi16, 16, KV, Q>(qb, q_step, nb, k, v, L0 + t0, D, scale, yb, y_step);
    }
}

template <typename KV, typename Q>
void run(const Q* q, const long* q_strides, const KV* k, const KV* v, const long* kv_strides, const int64_t* lengths,
         const int64_t* counts, int B, int H, int D, Q* y, const long* y_strides, int threads) {
    const float scale = 1.0f / __builtin_sqrtf(float(D));
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
    for (long task = 0; task < long(B) * H; ++task) {
        const int b = int(task / H), h = int(task % H);
        const int nq = int(counts[b]);
        if (nq <= 0) continue;
        const long kv_at = b * kv_strides[0] + h * kv_strides[1];
        attend<KV, Q>(q + b * q_strides[0] + h * q_strides[1], q_strides[2], nq, k + kv_at, v + kv_at, int(lengths[b]), D,
                      scale, y + b * y_strides[0] + h * y_strides[1], y_strides[2]);
    }
}

// A block of up to W of a group's queries (gpt.BranchCache: a planner's branches of one game): one read of the group's
// prefix for all of them in the lanes, then each query alone over its own branch's keys. Query i of group g is branch
// g * n + i / T's query i % T, which sees every prefix key and its own keys j <= own0 + i % T. D a multiple of 16.
template <typename V, typename VI, typename KV, typename Q>
void branch_block(const Q* q, const long* q_strides, int T, int i0, int nb, const KV* pk, const KV* pv, int plen, int g, int h,
                  int n, const KV* ok, const KV* ov, const long* o_strides, int own0, const int64_t* live, int D, float scale, Q* y,
                  const long* y_strides) {
    alignas(64) V Qt[DMAX];
    alignas(64) V acc[DMAX];
    for (int d = 0; d < D; ++d) {
        V col{};
        for (int t = 0; t < nb; ++t) {
            const long b = long(g) * n + (i0 + t) / T, tt = (i0 + t) % T;
            col[t] = load(q + b * q_strides[0] + h * q_strides[1] + tt * q_strides[2] + d) * scale;
        }
        Qt[d] = col;
        acc[d] = V{};
    }
    V m = splat<V>(-__builtin_inff()), l{};
    lanes_over_keys<V, VI, KV>(Qt, D, pk, pv, plen, plen, m, l, acc);
    constexpr int NC = DMAX / 16;
    const int nc = D / 16;
    for (int t = 0; t < nb; ++t) {
        const long b = long(g) * n + (i0 + t) / T, tt = (i0 + t) % T;
        if (!live[b]) continue;
        v16 qc[NC], a[NC];
        for (int c = 0; c < nc; ++c)
            for (int i = 0; i < 16; ++i) {
                qc[c][i] = Qt[c * 16 + i][t];
                a[c][i] = acc[c * 16 + i][t];
            }
        float mt = m[t], lt = l[t];
        const long at = b * o_strides[0] + h * o_strides[1];
        one_over_keys<KV>(qc, nc, ok + at, ov + at, own0 + int(tt) + 1, D, mt, lt, a);
        const float inv = 1.0f / lt;
        Q* out = y + b * y_strides[0] + h * y_strides[1] + tt * y_strides[2];
        for (int c = 0; c < nc; ++c)
            for (int i = 0; i < 16; ++i) store(out + c * 16 + i, a[c][i] * inv);
    }
}

template <typename KV, typename Q>
void run_branches(const Q* q, const long* q_strides, int T, const KV* pk, const KV* pv, const long* p_strides, const int64_t* plen,
                  int n, const KV* ok, const KV* ov, const long* o_strides, int own0, const int64_t* live, int G, int H, int D, Q* y,
                  const long* y_strides, int threads) {
    const float scale = 1.0f / __builtin_sqrtf(float(D));
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (long task = 0; task < long(G) * H; ++task) {
        const int g = int(task / H), h = int(task % H);
        bool any = false;
        for (int i = 0; i < n; ++i) any = any || live[long(g) * n + i];
        if (!any) continue;
        const long at = g * p_strides[0] + h * p_strides[1];
        for (int i0 = 0; i0 < n * T; i0 += 16) {
            const int nb = n * T - i0 < 16 ? n * T - i0 : 16;
            if (nb <= 8)
                branch_block<v8, vi8, KV, Q>(q, q_strides, T, i0, nb, pk + at, pv + at, int(plen[g]), g, h, n, ok, ov, o_strides,
                                             own0, live, D, scale, y, y_strides);
            else
                branch_block<v16, vi16, KV, Q>(q, q_strides, T, i0, nb, pk + at, pv + at, int(plen[g]), g, h, n, ok, ov, o_strides,
                                               own0, live, D, scale, y, y_strides);
        }
    }
}

}  // namespace

extern "C" {

// q [B, H, T, D] with strides q_strides (b, h, t; d contiguous); k, v one layer of the cache [rows >= B, H, room, D]
// with strides kv_strides (b, h; a token's D values contiguous, tokens D apart); row b's query t < counts[b] sees keys
// 0 .. lengths[b] + t; y [B, H, T, D] with strides y_strides (b, h, t). bf16: 1 when q, k, v and y are bfloat16.
// Queries past counts[b] are not written. Returns 0, or -1 for a head size it does not take.
int row_attention(const void* q, const long* q_strides, const void* k, const void* v, const long* kv_strides,
                  const int64_t* lengths, const int64_t* counts, int B, int H, int D, void* y, const long* y_strides,
                  int bf16, int threads) {
    if (D < 1 || D > DMAX) return -1;
    if (bf16)
        run<uint16_t, uint16_t>(static_cast<const uint16_t*>(q), q_strides, static_cast<const uint16_t*>(k),
                                static_cast<const uint16_t*>(v), kv_strides, lengths, counts, B, H, D,
                                static_cast<uint16_t*>(y), y_strides, threads);
    else
        run<float, float>(static_cast<const float*>(q), q_strides, static_cast<const float*>(k),
                          static_cast<const float*>(v), kv_strides, lengths, counts, B, H, D, static_cast<float*>(y),
                          y_strides, threads);
    return 0;
}

// The branches' attention (gpt.BranchCache.attend): q [G * n, H, T, D] (strides b, h, t); the groups' prefixes pk, pv
// [>= G, H, room, D] (strides g, h; tokens D apart), plen[g] keys each; the branches' own keys ok, ov [>= G * n, H, room, D]
// (strides b, h), query t of every branch seeing own keys 0 .. own0 + t; y [G * n, H, T, D] (strides b, h, t), written
// only for branches with live[b] != 0. Returns 0, or -1 for a head size it does not take (a multiple of 16 up to DMAX).
int branch_attention(const void* q, const long* q_strides, int T, const void* pk, const void* pv, const long* p_strides,
                     const int64_t* plen, int n, const void* ok, const void* ov, const long* o_strides, int own0,
                     const int64_t* live, int G, int H, int D, void* y, const long* y_strides, int bf16, int threads) {
    if (D < 16 || D > DMAX || D % 16) return -1;
    if (bf16)
        run_branches<uint16_t, uint16_t>(static_cast<const uint16_t*>(q), q_strides, T, static_cast<const uint16_t*>(pk),
                                         static_cast<const uint16_t*>(pv), p_strides, plen, n, static_cast<const uint16_t*>(ok),
                                         static_cast<const uint16_t*>(ov), o_strides, own0, live, G, H, D,
                                         static_cast<uint16_t*>(y), y_strides, threads);
    else
        run_branches<float, float>(static_cast<const float*>(q), q_strides, T, static_cast<const float*>(pk),
                                   static_cast<const float*>(pv), p_strides, plen, n, static_cast<const float*>(ok),
                                   static_cast<const float*>(ov), o_strides, own0, live, G, H, D, static_cast<float*>(y),
                                   y_strides, threads);
    return 0;
}

}
