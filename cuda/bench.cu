// bench.cu: the benchmarks' helpers, not part of any training step.
//
//	copy_kernel   dst = src over n4 float4s, grid-stride: the device's
//	              achievable memory bandwidth (one read and one write per
//	              element), which every benchmark reports its kernel against.
//	fill_kernel   x[i] = lo + (hi - lo) u(i), u a hash of (seed, i) in [0, 1):
//	              large random inputs made on the device, with no host copy.
//	fill_index_kernel  y[i] = hash(seed, i) mod v: random targets.
#include "common.cuh"

extern "C" __global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst,
                                       long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n4; k += stride)
        dst[k] = __ldcs(src + k);
}

// hash64 is splitmix64's finaliser: consecutive indices give unrelated bits.
__device__ __forceinline__ unsigned long long hash64(unsigned long long x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

extern "C" __global__ void fill_kernel(float* x, long long n, long long seed, double lo, double hi) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double u = (double)(hash64((unsigned long long)seed * 0x100000001b3ull + i) >> 11) * 0x1.0p-53;
        x[i] = (float)(lo + (hi - lo) * u);
    }
}

extern "C" __global__ void fill_index_kernel(int* y, long long n, long long seed, long long v) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = (int)(hash64((unsigned long long)seed * 0x100000001b3ull + i) % (unsigned long long)v);
}
