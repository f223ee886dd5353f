// Deceptive trap of order 5, minimised: each block of 5 bits scores 5 when all are ones, else 4 - ones.
__device__ double evo_user_fitness(const unsigned int* bits, unsigned long long n_bits) {
    double score = 0.0;
    for (unsigned long long block = 0; block + 5 <= n_bits; block += 5) {
        unsigned int ones = 0;
        for (unsigned long long i = block; i < block + 5; ++i) ones += evo_bit(bits, i);
        score += ones == 5 ? 5.0 : 4.0 - (double)ones;
    }
    return -score;
}
