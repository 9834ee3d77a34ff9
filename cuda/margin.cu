// margin.cu: the AREW margin correction over packed trajectories.
//
// Inputs are the flat layouts of package kernels (kernels.Packed and
// kernels.Steps), already validated on the host by the bindings:
//
//	offsets   (B+1) int32   trajectory b owns tokens [offsets[b], offsets[b+1])
//	mask      (T)   uint8   1 = agent token, 0 = observation token
//	step_off  (B+1) int32   trajectory b owns steps [step_off[b], step_off[b+1])
//	start,end (S)   int32   step s covers tokens [start[s], end[s])
//	crit      (S)   int8    critique z in {-1, 0, +1}
//	out       (T)   float32 lambda*u (accumulate = 0) or out + lambda*u
//
// Per trajectory: P, N = steps with z = +1, -1 holding at least one agent
// token, n_s a step's agent tokens, s+ and s- the agent tokens in P and N.
// Weights (mode numbers are kernels.MarginMode):
//
//	0 step            w+ = 1/|P|          w- = 1/|N|
//	1 step_spread     w+ = 1/(|P| n_s)    w- = 1/(|N| n_s)
//	2 minority_fixed  s+ <= s-: w+ = 1, w- = s+/s-;  else w+ = s-/s+, w- = 1
//	3 abs_sum         w+ = 1/(2 s+)       w- = 1/(2 s-)
//
// u = +w+ on the agent tokens of P, -w- on those of N, 0 elsewhere; 0 on the
// whole trajectory if P or N is empty. The weights and lambda*u are double
// and rounded once per token, in the same operations as
// kernels.MarginCorrectionRef (none of them a multiply-add nvcc could fuse),
// so the results should equal it bit for bit; the tests ask the tolerance.
//
// Versions:
//
//	1  one thread per trajectory: the reference loop (count, then write).
//	   Kept as the readable baseline; a thread walks its tokens alone, so
//	   the loads of a warp are scattered over 32 trajectories.
//	2  one block per trajectory, one warp per step: the warp counts a
//	   step's agent tokens with 32 consecutive byte loads and a shuffle
//	   sum, the block adds up the four counts, then the warps write their
//	   steps' tokens. Loads and stores are coalesced.
//	3  one warp per trajectory, a lane per step for the counts, then the
//	   tokens in order through a table of the steps (below). The one to
//	   use (its speed against version 2: cuda/doc.go).
#include "common.cuh"

__device__ __forceinline__ void margin_weights(long long mode, long long n_pos, long long n_neg,
                                               long long tok_pos, long long tok_neg,
                                               double* w_pos, double* w_neg) {
    switch (mode) {
        case 2:
            if (tok_pos <= tok_neg) {
                *w_pos = 1;
                *w_neg = (double)tok_pos / (double)tok_neg;
            } else {
                *w_pos = (double)tok_neg / (double)tok_pos;
                *w_neg = 1;
            }
            return;
        case 3:
            *w_pos = 1 / (2 * (double)tok_pos);
            *w_neg = 1 / (2 * (double)tok_neg);
            return;
        default:  // 0 step and 1 step_spread (which divides by n_s later)
            *w_pos = 1 / (double)n_pos;
            *w_neg = 1 / (double)n_neg;
    }
}

__device__ __forceinline__ void margin_store(float* out, long long t, double lu, long long accumulate) {
    out[t] = accumulate ? (float)((double)out[t] + lu) : (float)lu;
}

// ---------------------------------------------------------------------------
// version 1: one thread per trajectory

extern "C" __global__ void margin_kernel1(
    const int* offsets, const unsigned char* mask, const int* step_off, const int* start,
    const int* end, const signed char* crit, float* out,
    long long nb, long long mode, double lambda, long long accumulate) {
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nb) return;
    if (!accumulate) {
        for (long long t = offsets[b]; t < offsets[b + 1]; t++) out[t] = 0;
    }
    int s0 = step_off[b], s1 = step_off[b + 1];
    long long n_pos = 0, n_neg = 0, tok_pos = 0, tok_neg = 0;
    for (int s = s0; s < s1; s++) {
        int z = crit[s];
        if (z == 0) continue;
        long long n = 0;
        for (long long t = start[s]; t < end[s]; t++) n += mask[t];
        if (n == 0) continue;
        if (z > 0) {
            n_pos++;
            tok_pos += n;
        } else {
            n_neg++;
            tok_neg += n;
        }
    }
    if (n_pos == 0 || n_neg == 0) return;
    double w_pos, w_neg;
    margin_weights(mode, n_pos, n_neg, tok_pos, tok_neg, &w_pos, &w_neg);
    for (int s = s0; s < s1; s++) {
        int z = crit[s];
        if (z == 0) continue;
        double u = z > 0 ? w_pos : -w_neg;
        if (mode == 1) {
            long long n = 0;
            for (long long t = start[s]; t < end[s]; t++) n += mask[t];
            if (n == 0) continue;
            u /= (double)n;
        }
        double lu = lambda * u;
        for (long long t = start[s]; t < end[s]; t++)
            if (mask[t]) margin_store(out, t, lu, accumulate);
    }
}

// ---------------------------------------------------------------------------
// version 2: one block per trajectory, one warp per step

// warp_agent_tokens: the agent tokens of [t0, t1), on every lane.
__device__ __forceinline__ long long warp_agent_tokens(const unsigned char* mask, long long t0,
                                                       long long t1, int lane) {
    long long n = 0;
    for (long long t = t0 + lane; t < t1; t += 32) n += mask[t];
    return warp_sum_ll(n);
}

// Launch: grid (B), block a multiple of 32 up to 1024.
extern "C" __global__ void margin_kernel2(
    const int* __restrict__ offsets, const unsigned char* __restrict__ mask,
    const int* __restrict__ step_off, const int* __restrict__ start, const int* __restrict__ end,
    const signed char* __restrict__ crit, float* out,
    long long nb, long long mode, double lambda, long long accumulate) {
    __shared__ long long cnt[32][4];
    long long b = blockIdx.x;
    if (b >= nb) return;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nw = blockDim.x >> 5;
    if (!accumulate) {
        for (long long t = offsets[b] + tid; t < offsets[b + 1]; t += blockDim.x) out[t] = 0;
    }
    int s0 = step_off[b], s1 = step_off[b + 1];

    // Pass 1: count P, N and their agent tokens, a warp per step.
    long long c[4] = {0, 0, 0, 0};  // n_pos, n_neg, tok_pos, tok_neg
    for (int s = s0 + warp; s < s1; s += nw) {
        int z = crit[s];
        if (z == 0) continue;
        long long n = warp_agent_tokens(mask, start[s], end[s], lane);
        if (n == 0) continue;
        int k = z > 0 ? 0 : 1;
        c[k]++;
        c[k + 2] += n;
    }
    if (lane == 0)
        for (int k = 0; k < 4; k++) cnt[warp][k] = c[k];
    __syncthreads();  // also orders the zeroing above before the writes below
    for (int k = 0; k < 4; k++) {
        c[k] = 0;
        for (int w = 0; w < nw; w++) c[k] += cnt[w][k];  // every thread, same order
    }
    if (c[0] == 0 || c[1] == 0) return;
    double w_pos, w_neg;
    margin_weights(mode, c[0], c[1], c[2], c[3], &w_pos, &w_neg);

    // Pass 2: write lambda*u on the agent tokens of the counted steps.
    for (int s = s0 + warp; s < s1; s += nw) {
        int z = crit[s];
        if (z == 0) continue;
        double u = z > 0 ? w_pos : -w_neg;
        if (mode == 1) {
            long long n = warp_agent_tokens(mask, start[s], end[s], lane);
            if (n == 0) continue;
            u /= (double)n;
        }
        double lu = lambda * u;
        for (long long t = start[s] + lane; t < end[s]; t += 32)
            if (mask[t]) margin_store(out, t, lu, accumulate);
    }
}

// ---------------------------------------------------------------------------
// version 3: one warp per trajectory, no block-wide barrier
//
// Version 2 spends a block of four warps on a trajectory of a few steps and
// waits at a __syncthreads between its passes; at 4096 trajectories of 256
// tokens it reaches an eighth of the copy bandwidth. Here a warp owns a
// trajectory and takes its steps 32 at a time, a lane per step:
//
//	pass 1  each lane counts its step's agent tokens (bytes of one or two
//	        cache lines, shared by the warp), and four warp sums give
//	        |P|, |N|, s+ and s-;
//	pass 2  each lane puts its step's start, end and lambda*u in a table of
//	        the warp's shared memory; then the lanes walk the window of
//	        tokens that those steps span, 32 consecutive tokens at a time
//	        (coalesced), four rounds of loads in flight before their stores,
//	        and find each token's step by a binary search of the table.
//
// Without accumulate every token of the window is written (0 off the
// counted steps), so no separate zeroing pass is needed. The weights and
// lambda*u are those of version 2, in the same operations.
//
// Its time does not depend on the bytes (accumulate or not: 9.6 us at
// 4096 x 256 on an H200), so it is bound by the latency of its chain of
// dependent steps, not by bandwidth. Tried and dropped: prefetching the
// trajectory's mask (L1) and out (L2) lines right after reading its
// offsets, which was slower (10.4 us against 9.7 in the same run).

#define MARGIN3_WARPS 4  // warps per block: launch with 32 * MARGIN3_WARPS threads

// lane_agent_tokens: the agent tokens of [t0, t1), counted by one lane.
__device__ __forceinline__ int lane_agent_tokens(const unsigned char* mask, int t0, int t1) {
    int n = 0;
    for (int t = t0; t < t1; t++) n += mask[t];
    return n;
}

// Launch: grid ceil(B / MARGIN3_WARPS), block 32 * MARGIN3_WARPS.
extern "C" __global__ void margin_kernel3(
    const int* __restrict__ offsets, const unsigned char* __restrict__ mask,
    const int* __restrict__ step_off, const int* __restrict__ start, const int* __restrict__ end,
    const signed char* __restrict__ crit, float* __restrict__ out,
    long long nb, long long mode, double lambda, long long accumulate) {
    __shared__ int tab_start[MARGIN3_WARPS][32], tab_end[MARGIN3_WARPS][32];
    __shared__ double tab_lu[MARGIN3_WARPS][32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long b = (long long)blockIdx.x * MARGIN3_WARPS + warp;
    if (warp >= MARGIN3_WARPS || b >= nb) return;  // whole warps leave together
    int t0 = offsets[b], t1 = offsets[b + 1], s0 = step_off[b], s1 = step_off[b + 1];

    // Pass 1: a lane per step.
    long long c[4] = {0, 0, 0, 0};  // n_pos, n_neg, tok_pos, tok_neg
    for (int s = s0 + lane; s < s1; s += 32) {
        int z = crit[s];
        if (z == 0) continue;
        int n = lane_agent_tokens(mask, start[s], end[s]);
        if (n == 0) continue;
        int k = z > 0 ? 0 : 1;
        c[k]++;
        c[k + 2] += n;
    }
    for (int k = 0; k < 4; k++) c[k] = warp_sum_ll(c[k]);
    bool active = c[0] > 0 && c[1] > 0;
    if (!active && accumulate) return;  // u = 0: nothing to add
    double w_pos = 0, w_neg = 0;
    if (active) margin_weights(mode, c[0], c[1], c[2], c[3], &w_pos, &w_neg);

    // Pass 2: windows of 32 steps; window k runs from the first token after
    // window k-1 to the start of the step after its last (t1 for the last
    // window), so the windows tile [t0, t1) and a trajectory with no step
    // is one window with an empty table.
    int lo = t0;
    for (int c0 = s0;; c0 += 32) {
        int n_tab = max(min(32, s1 - c0), 0);
        if (lane < n_tab) {
            int s = c0 + lane, z = crit[s];
            int st = start[s], en = end[s];
            double lu = 0;
            bool write = active && z != 0;
            if (write) {
                double u = z > 0 ? w_pos : -w_neg;
                if (mode == 1) {
                    int n = lane_agent_tokens(mask, st, en);
                    if (n == 0)
                        write = false;
                    else
                        u /= (double)n;
                }
                lu = lambda * u;
            }
            tab_start[warp][lane] = st;
            tab_end[warp][lane] = write ? en : st;  // an empty range: no token is in it
            tab_lu[warp][lane] = lu;
        }
        __syncwarp();
        bool last = c0 + 32 >= s1;
        int hi = last ? t1 : start[c0 + 32];
        for (long long base = lo + lane; base < hi; base += 4 * 32) {
            int j[4];
            float v[4];
            bool hit[4];
#pragma unroll
            for (int r = 0; r < 4; r++) {
                long long t = base + 32 * r;
                // the last step of the table that starts at or before t
                int k = -1;
                for (int step = 32; step > 0; step >>= 1)
                    if (k + step < n_tab && tab_start[warp][k + step] <= t) k += step;
                hit[r] = t < hi && k >= 0 && t < tab_end[warp][k] && mask[t];
                j[r] = k;
                v[r] = hit[r] && accumulate ? out[t] : 0.0f;
            }
#pragma unroll
            for (int r = 0; r < 4; r++) {
                long long t = base + 32 * r;
                if (hit[r]) {
                    double lu = tab_lu[warp][j[r]];
                    out[t] = accumulate ? (float)((double)v[r] + lu) : (float)lu;
                } else if (!accumulate && t < hi) {
                    out[t] = 0;
                }
            }
        }
        __syncwarp();  // the table is read before the next window rewrites it
        if (last) break;
        lo = hi;
    }
}
