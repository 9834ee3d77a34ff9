// common.cuh: helpers shared by the kernels of package cuda.
//
// Every kernel is extern "C" (no C++ name mangling) so the Go bindings find
// it by its plain name in the PTX module. Every kernel argument is a pointer
// or a 64-bit scalar (long long, double): gorgonia.org/cu copies each
// argument as 8 bytes, so a 4-byte int parameter would read garbage.
#pragma once

#include <math.h>

// LP_EXP_LO: shifted logits are clamped to it where a product e^d * d would
// otherwise be 0 * -Inf = NaN for a -Inf logit. expf of it is exactly 0
// (e^-200 is far below the smallest denormal, e^-103.3, so no rounding of
// expf can make it one): an all -Inf row must sum to exactly 0.
#define LP_EXP_LO (-200.0f)

// warp_sum_* and warp_max: butterfly reductions over a full warp; every lane
// ends with the result.
__device__ __forceinline__ float warp_sum_f(float x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

__device__ __forceinline__ long long warp_sum_ll(long long x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

__device__ __forceinline__ double warp_sum_d(double x) {
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}
