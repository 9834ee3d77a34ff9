// token_logprob_forward.cu: the fused token log-prob forward.
//
// logits is (n, v) row-major float32, targets (n) int32; per row i it writes
//
//	lse[i]  = log sum_j exp(z[i,j])
//	logp[i] = z[i,y[i]] - lse[i]
//	ent[i]  = -sum_j p[i,j] log p[i,j]      (only when ent != NULL)
//
// with the CPU reference's rules for rows that are not a distribution
// (kernels.TokenLogProbRef): a NaN logit makes all three NaN; a +Inf logit
// gives lse = +Inf and NaN logp, ent; an all -Inf row gives lse = -Inf and
// NaN logp, ent. The Go bindings check targets and shapes before a launch.
//
// Versions (llm.c dev/cuda style, plain to fast; the Go tests check both
// against the CPU reference, the benchmarks time both):
//
//	1  one thread per row, two passes (max, then sum of exponentials) in
//	   double: the reference loop moved to the device. Kept as the readable
//	   baseline and as the benchmark's measure of what version 2 buys.
//	2  one block per row, float4 loads, a single online pass: each thread
//	   keeps (m, s, t) = (max so far, sum e^(z-m), sum e^(z-m)(z-m)) and
//	   rescales them when its max grows; warps and then the block merge
//	   their states. The row is read from memory once. The one to use.
#include "common.cuh"
#include <float.h>

// ---------------------------------------------------------------------------
// version 1: one thread per row

extern "C" __global__ void token_logprob_forward_kernel1(
    const float* logits, const int* targets, float* logp, float* lse, float* ent,
    long long n, long long v) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* row = logits + i * v;
    double m = -INFINITY;
    for (long long j = 0; j < v; j++) {
        float z = row[j];
        if (z != z) {
            logp[i] = lse[i] = NAN;
            if (ent) ent[i] = NAN;
            return;
        }
        m = fmax(m, (double)z);
    }
    if (isinf(m)) {
        logp[i] = NAN;
        lse[i] = (float)m;
        if (ent) ent[i] = NAN;
        return;
    }
    double s = 0;
    for (long long j = 0; j < v; j++) s += exp((double)row[j] - m);
    double l = m + log(s);
    if (ent) {
        double h = 0;
        for (long long j = 0; j < v; j++) {
            double lp = (double)row[j] - l;
            double p = exp(lp);
            if (p > 0) h -= p * lp;
        }
        ent[i] = (float)h;
    }
    lse[i] = (float)l;
    int y = targets[i];  // the bindings check targets; a bad one gives NaN, not a stray read
    logp[i] = (y >= 0 && y < v) ? (float)((double)row[y] - l) : NAN;
}

// ---------------------------------------------------------------------------
// version 2: one block per row, one online pass

// LseState is a partial online logsumexp over some of a row's logits:
// m = max so far (starts at -FLT_MAX, so it is finite unless a +Inf was
// seen), s = sum e^(z-m), t = sum e^(z-m)(z-m), nan = a NaN was seen.
struct LseState {
    float m, s, t;
    int nan;
};

// lse_shift moves a state from shift a.m to shift m >= a.m: every term
// e^(z-a.m) becomes e^(z-m) = e^(z-a.m) e^d with d = a.m - m, and
// (z-m) = (z-a.m) + d, so s' = e^d s and t' = e^d (t + d s).
__device__ __forceinline__ void lse_shift(LseState& a, float m) {
    float d = fmaxf(a.m - m, LP_EXP_LO);  // Inf - Inf = NaN becomes LP_EXP_LO: a +Inf row is decided by m alone
    float e = expf(d);
    a.t = e * (a.t + d * a.s);
    a.s = e * a.s;
    a.m = m;
}

// lse_add adds one logit already known not to raise the max.
__device__ __forceinline__ void lse_add(LseState& a, float z) {
    float d = fmaxf(z - a.m, LP_EXP_LO);  // -Inf and NaN logits add 0 (NaN is flagged)
    float e = expf(d);
    a.s += e;
    a.t = fmaf(e, d, a.t);
}

__device__ __forceinline__ void lse_push1(LseState& a, float z) {
    a.nan |= (z != z);
    if (z > a.m) lse_shift(a, z);
    lse_add(a, z);
}

__device__ __forceinline__ void lse_push4(LseState& a, float4 q) {
    a.nan |= (q.x != q.x) | (q.y != q.y) | (q.z != q.z) | (q.w != q.w);
    float mx = fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w));  // fmaxf skips NaN
    if (mx > a.m) lse_shift(a, mx);  // one rescale per four logits
    lse_add(a, q.x);
    lse_add(a, q.y);
    lse_add(a, q.z);
    lse_add(a, q.w);
}

__device__ __forceinline__ LseState lse_merge(LseState a, LseState b) {
    float m = fmaxf(a.m, b.m);
    lse_shift(a, m);
    lse_shift(b, m);
    a.s += b.s;
    a.t += b.t;
    a.nan |= b.nan;
    return a;
}

__device__ __forceinline__ LseState lse_warp_merge(LseState a) {
    for (int o = 16; o > 0; o >>= 1) {
        LseState b;
        b.m = __shfl_xor_sync(0xffffffffu, a.m, o);
        b.s = __shfl_xor_sync(0xffffffffu, a.s, o);
        b.t = __shfl_xor_sync(0xffffffffu, a.t, o);
        b.nan = __shfl_xor_sync(0xffffffffu, a.nan, o);
        a = lse_merge(a, b);
    }
    return a;
}

// Launch: grid (n), block a multiple of 32 up to 1024, no dynamic shared
// memory. A row starts at any 4-byte boundary (v need not be a multiple of
// 4): the first `head` logits up to a 16-byte boundary are read one by one,
// then float4s, then the tail.
extern "C" __global__ void token_logprob_forward_kernel2(
    const float* __restrict__ logits, const int* __restrict__ targets,
    float* __restrict__ logp, float* __restrict__ lse, float* __restrict__ ent,
    long long n, long long v) {
    __shared__ LseState part[32];
    long long i = blockIdx.x;
    if (i >= n) return;
    const float* row = logits + i * v;
    int tid = threadIdx.x, bs = blockDim.x;

    long long head = (long long)(((16 - ((unsigned long long)row & 15)) & 15) >> 2);
    if (head > v) head = v;
    long long nq = (v - head) >> 2;
    const float4* body = (const float4*)(row + head);

    LseState a = {-FLT_MAX, 0.0f, 0.0f, 0};
    if (tid < head) lse_push1(a, row[tid]);
    for (long long k = tid; k < nq; k += bs) lse_push4(a, __ldcs(body + k));  // streamed: read once
    for (long long j = head + 4 * nq + tid; j < v; j += bs) lse_push1(a, row[j]);

    a = lse_warp_merge(a);
    int warp = tid >> 5, lane = tid & 31, nw = bs >> 5;
    if (lane == 0) part[warp] = a;
    __syncthreads();
    if (warp != 0) return;
    if (lane < nw) {
        a = part[lane];
    } else {
        a.m = -FLT_MAX;
        a.s = a.t = 0.0f;
        a.nan = 0;
    }
    a = lse_warp_merge(a);
    if (lane != 0) return;

    if (a.nan) {
        logp[i] = lse[i] = NAN;
        if (ent) ent[i] = NAN;
    } else if (isinf(a.m)) {  // a +Inf logit
        logp[i] = NAN;
        lse[i] = INFINITY;
        if (ent) ent[i] = NAN;
    } else if (!(a.s > 0.0f)) {  // every logit -Inf
        logp[i] = NAN;
        lse[i] = -INFINITY;
        if (ent) ent[i] = NAN;
    } else {
        // Finish in double, as the CPU kernels do: lse = m + log s,
        // logp = z_y - lse, H = log s - t/s.
        double ls = log((double)a.s);
        double l = (double)a.m + ls;
        lse[i] = (float)l;
        int y = targets[i];
        logp[i] = (y >= 0 && y < v) ? (float)((double)row[y] - l) : NAN;
        if (ent) ent[i] = (float)(ls - (double)a.t / (double)a.s);
    }
}
