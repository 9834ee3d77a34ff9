// group_baseline.cu: the GRPO group baseline and its broadcast to tokens.
//
// scores, groups, adv are (B): trajectories with the same dense group id in
// [0, B) (validated on the host) form a group g of n_g members, and
//
//	mu_g = (1/n_g) sum_{i in g} r_i,   sigma_g = sqrt(sum (r_i - mu_g)^2 / (n_g - 1))
//	A_i  = (r_i - mu_g) / (sigma_g + eps)   (use_std = 1, GRPO)
//	A_i  =  r_i - mu_g                      (use_std = 0, Dr. GRPO)
//
// with mu = 0, sigma = 1 for a group of one, as kernels.GroupAdvantagesRef.
// Then every agent token of trajectory b gets A_b, every observation token 0
// (broadcast_kernel, the layout of margin.cu).
//
// Versions:
//
//	group_advantages_kernel1  one thread per trajectory, which scans all B
//	   scores for its group's members, in index order and in double: the
//	   sums of the CPU reference in its order (up to nvcc's FMA fusion).
//	   O(B^2) work, the loads of a warp all at one address (a broadcast
//	   each): a thread walks all B entries twice, one after the other,
//	   which on an H200 takes 0.22 ms at B = 4096, forty times the
//	   broadcast (cuda/doc.go).
//	group_advantages_kernel2  one warp per trajectory: the same O(B^2)
//	   comparisons, but each lane takes every 32nd entry (coalesced loads)
//	   and the warp adds its lanes' double sums by a butterfly, so a warp
//	   walks B/32 rows instead of B. Deterministic, but not the reference's
//	   order of addition: within the tolerance, not bitwise. The one to use.
//	broadcast_kernel  one block per trajectory, coalesced byte and float
//	   accesses; a select, not a multiply, so 0 * Inf never reaches an
//	   observation token.
#include "common.cuh"

// group_sum and group_sq: the sum (in double) and the count of group g's
// scores, and the sum of their squared deviations from the mean, over the
// entries k = k0, k0 + stride, ... below nb (a thread's share: all of them
// in version 1, every 32nd in a lane of version 2).
__device__ __forceinline__ void group_sum(const float* scores, const int* groups, long long nb, int g,
                                          long long k0, long long stride, double* sum, long long* n) {
    *sum = 0;
    *n = 0;
    for (long long k = k0; k < nb; k += stride) {
        if (groups[k] == g) {
            *sum += (double)scores[k];
            (*n)++;
        }
    }
}

__device__ __forceinline__ double group_sq(const float* scores, const int* groups, long long nb, int g,
                                           long long k0, long long stride, double mean) {
    double sq = 0;
    for (long long k = k0; k < nb; k += stride) {
        if (groups[k] == g) {
            double d = (double)scores[k] - mean;
            sq += d * d;
        }
    }
    return sq;
}

// group_advantage: A of score r in a group of n with this mean and sum of
// squared deviations; mu = 0, sigma = 1 for a group of one.
__device__ __forceinline__ float group_advantage(double r, double mean, double sq, long long n,
                                                 long long use_std, double eps) {
    double std = sqrt(sq / (double)(n - 1));
    if (n == 1) {
        mean = 0;
        std = 1;
    }
    double a = r - mean;
    if (use_std) a /= std + eps;
    return (float)a;
}

extern "C" __global__ void group_advantages_kernel1(
    const float* __restrict__ scores, const int* __restrict__ groups, float* __restrict__ adv,
    long long nb, long long use_std, double eps) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb) return;
    int g = groups[i];
    double sum;
    long long n;
    group_sum(scores, groups, nb, g, 0, 1, &sum, &n);
    double mean = sum / (double)n;
    double sq = group_sq(scores, groups, nb, g, 0, 1, mean);
    adv[i] = group_advantage((double)scores[i], mean, sq, n, use_std, eps);
}

// Launch: grid ceil(32 B / block), block a multiple of 32 up to 1024.
extern "C" __global__ void group_advantages_kernel2(
    const float* __restrict__ scores, const int* __restrict__ groups, float* __restrict__ adv,
    long long nb, long long use_std, double eps) {
    long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (i >= nb) return;  // whole warps leave together
    int g = groups[i];
    double sum;
    long long n;
    group_sum(scores, groups, nb, g, lane, 32, &sum, &n);
    sum = warp_sum_d(sum);
    n = warp_sum_ll(n);
    double mean = sum / (double)n;
    double sq = warp_sum_d(group_sq(scores, groups, nb, g, lane, 32, mean));
    float a = group_advantage((double)scores[i], mean, sq, n, use_std, eps);
    if (lane == 0) adv[i] = a;
}

// Launch: grid (B), block a multiple of 32 up to 1024.
extern "C" __global__ void broadcast_kernel(
    const int* __restrict__ offsets, const unsigned char* __restrict__ mask,
    const float* __restrict__ per_traj, float* __restrict__ out, long long nb) {
    long long b = blockIdx.x;
    if (b >= nb) return;
    float a = per_traj[b];
    for (long long t = offsets[b] + threadIdx.x; t < offsets[b + 1]; t += blockDim.x)
        out[t] = mask[t] ? a : 0.0f;
}
