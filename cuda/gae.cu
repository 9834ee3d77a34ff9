// gae.cu: Generalized Advantage Estimation over packed trajectories.
//
// Layout as in margin.cu (offsets (B+1), mask (T)); rewards, values, adv,
// ret are (T) float32. Over the agent tokens of a trajectory, backwards,
// with V' and A' the value and advantage of the next agent token (0 past
// the last one):
//
//	delta_t = r_t + gamma V' - V_t,   A_t = delta_t + gamma lambda A',   R_t = A_t + V_t
//
// Observation tokens are skipped (V' and A' carry over them) and get
// adv = ret = 0, as kernels.GAERef. The bindings reject rewards on
// observation tokens and gamma, lambda outside [0, 1] before a launch.
// Arithmetic is double, rounded once per output.
//
// Versions:
//
//	1  one thread per trajectory, the reference recursion: the operations
//	   of kernels.GAERef in its order (nvcc may fuse a multiply and an add
//	   into one FMA, so the doubles can differ in the last bit). The chain
//	   is dependent, so a thread walks its T/B tokens one by one.
//	2  one warp per trajectory, 32 tokens per step from the end: the
//	   recursion is the affine map X_t = d_t + c_t X_{t+1} (d = delta and
//	   c = gamma lambda on agent tokens, d = 0 and c = 1 on observation
//	   tokens, which pass X through), and maps compose associatively, so a
//	   warp scans 32 of them in 5 shuffle steps; V' within the 32 comes
//	   from a ballot of the agent lanes. Same values up to the order of
//	   the double operations (a few ulp of double). The one to use when
//	   trajectories are long and few; version 1 when they are many.
#include "common.cuh"

// ---------------------------------------------------------------------------
// version 1: one thread per trajectory

extern "C" __global__ void gae_kernel1(
    const int* offsets, const unsigned char* mask, const float* rewards, const float* values,
    float* adv, float* ret, long long nb, double gamma, double lambda) {
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nb) return;
    double gl = gamma * lambda, next_v = 0, next_a = 0;
    for (long long t = (long long)offsets[b + 1] - 1; t >= offsets[b]; t--) {
        if (mask[t] == 0) {
            adv[t] = ret[t] = 0;
            continue;
        }
        double v = values[t];
        double delta = (double)rewards[t] + gamma * next_v - v;
        double a = delta + gl * next_a;
        adv[t] = (float)a;
        ret[t] = (float)(a + v);
        next_v = v;
        next_a = a;
    }
}

// ---------------------------------------------------------------------------
// version 2: one warp per trajectory, a 32-wide affine scan per step

// Launch: grid (ceil(B*32 / block)), block a multiple of 32 up to 1024.
extern "C" __global__ void gae_kernel2(
    const int* __restrict__ offsets, const unsigned char* __restrict__ mask,
    const float* __restrict__ rewards, const float* __restrict__ values,
    float* __restrict__ adv, float* __restrict__ ret, long long nb, double gamma, double lambda) {
    long long b = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (b >= nb) return;  // whole warps leave together
    const unsigned full = 0xffffffffu;
    int lane = threadIdx.x & 31;
    long long lo = offsets[b], hi = offsets[b + 1];
    double gl = gamma * lambda, carry_v = 0, carry_a = 0;
    for (long long c = hi; c > lo; c -= 32) {
        long long t = c - 32 + lane;  // lanes cover [c-32, c) in token order
        bool in = t >= lo;
        int m = in ? mask[t] : 0;
        double v = m ? (double)values[t] : 0.0;
        double r = m ? (double)rewards[t] : 0.0;

        // V' of lane i: the value of the nearest agent lane above i, else
        // the carry from the tokens after this chunk.
        unsigned agents = __ballot_sync(full, m);
        unsigned above = lane == 31 ? 0u : agents & (full << (lane + 1));
        int j = __ffs(above) - 1;
        double vj = __shfl_sync(full, v, j < 0 ? 0 : j);
        double v_next = j >= 0 ? vj : carry_v;

        // Suffix-compose the maps (d, c): lane i ends holding X_i = d + c X_c.
        double d = m ? r + gamma * v_next - v : 0.0;
        double k = m ? gl : 1.0;
        for (int o = 1; o < 32; o <<= 1) {
            double d2 = __shfl_down_sync(full, d, o);
            double k2 = __shfl_down_sync(full, k, o);
            if (lane + o < 32) {
                d = d + k * d2;
                k = k * k2;
            }
        }
        double a = d + k * carry_a;
        if (m) {
            adv[t] = (float)a;
            ret[t] = (float)(a + v);
        } else if (in) {
            adv[t] = ret[t] = 0;
        }
        carry_a = __shfl_sync(full, a, 0);  // lane 0's X: A of the first agent token at or after it
        if (agents) carry_v = __shfl_sync(full, v, __ffs(agents) - 1);
    }
}
