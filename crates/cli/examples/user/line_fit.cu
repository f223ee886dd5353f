// Least squares: fit y = a x + b to the points (data.x[i], data.y[i]); one term per point.
__device__ void evo_user_terms(unsigned long long i, const float* x, unsigned long long d,
                               const EvoUserData& data, double* t) {
    const double residual = (double)x[0] * (double)data.x[i] + (double)x[1] - (double)data.y[i];
    t[0] = residual * residual;
}
