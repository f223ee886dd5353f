// Pressure vessel design: shell and head thickness, inner radius, length; minimise the cost.
__device__ double evo_user_constrained(const double* x, double* g, double* h) {
    const double pi = 3.141592653589793;
    const double shell = x[0], head = x[1], radius = x[2], length = x[3];
    g[0] = 0.0193 * radius - shell;
    g[1] = 0.00954 * radius - head;
    g[2] = 1296000.0 - pi * radius * radius * length - 4.0 / 3.0 * pi * radius * radius * radius;
    g[3] = length - 240.0;
    return 0.6224 * shell * radius * length + 1.7781 * head * radius * radius
         + 3.1661 * shell * shell * length + 19.84 * shell * shell * radius;
}
