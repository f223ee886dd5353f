// Rastrigin as a user problem: f(x) = sum_i (x_i^2 - 10 cos(2 pi x_i) + 10), one term per coordinate.
// evo_cos_f64 (common/math.cuh) is the device twin of evo_core::math::cos.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    const double two_pi = 6.283185307179586;
    const double xi = (double)x[i];
    t[0] = xi * xi - 10.0 * evo_cos_f64(two_pi * xi) + 10.0;
}
