// The local search of the `de` module (kernels/cuda/de.cu includes it last; not a header of its own: it uses
// de.cu's stream ids, de_total_order_key and the common ETC helpers). Split out of de.cu so that the
// generation's kernels and the opt-in local search each have their own file; one module, the same entry points.
#pragma once

// ---- Local search of the best ETC schedule: an opt-in extension beyond the paper (crates/de/src/local_search.rs,
// whose functions are the twins of the de_ls_* device functions, same names without the prefix).

#define DE_LS_BLOCK 256u
#define DE_LS_MAX_TASKS 4096u
#define DE_LS_MAX_MACHINES 256u
#define DE_LS_NONE 0xffffffffu
// What one launch of de_local_search_etc_f32 does (DeLocalSearchParams.phase).
#define DE_LS_PHASE_SEARCH 0u  // steps 1-3 without kicks
#define DE_LS_PHASE_KICKS 1u   // step 4, first launch: the K + 1 candidates
#define DE_LS_PHASE_PICK 2u    // step 4, second launch: the winner
// The descent's candidates (DeLocalSearchParams.neighbourhood, local_search::Neighbourhood).
#define DE_LS_MAKESPAN_MACHINE 0u  // moves, and swaps of a makespan-machine task with a task elsewhere
#define DE_LS_ANY_PAIR 1u          // moves, and swaps of any two tasks on different machines; flowtime second key
#define DE_LS_BALANCE 2u           // the candidates of DE_LS_ANY_PAIR; second key the change of the squared loads
#define DE_LS_MAKESPAN_BALANCE 3u  // the candidates of DE_LS_MAKESPAN_MACHINE; second key as DE_LS_BALANCE

// Scalar arguments of the local search kernels; mirrored by `DeLocalSearchParams` in
// crates/de/src/cuda/launch/local_search.rs.
struct DeLocalSearchParams {
    unsigned long long population;  // M
    unsigned int tasks;             // n (at most DE_LS_MAX_TASKS)
    unsigned int machines;          // m (at most DE_LS_MAX_MACHINES)
    double lambda;                  // weight of the makespan in the fitness
    unsigned int max_moves;         // the most moves or swaps one search applies
    unsigned int all_vectors;       // 0: block 0 searches vector best[0]; 1: block i searches vector i
    unsigned long long seed;        // the run's seed (Philox key of the kicks)
    unsigned int kicks;             // K: perturbed restarts of the best's search (0: none)
    unsigned int kick_moves;        // random task moves of one kick
    unsigned int step;              // Philox step word of the kicks (local_search::kick_step of the generation)
    unsigned int phase;             // DE_LS_PHASE_SEARCH, DE_LS_PHASE_KICKS or DE_LS_PHASE_PICK
    unsigned int neighbourhood;     // DE_LS_MAKESPAN_MACHINE, DE_LS_ANY_PAIR, DE_LS_BALANCE or DE_LS_MAKESPAN_BALANCE
    unsigned int iterations;        // I: perturb-and-descend iterations of each candidate (0: none)
    unsigned int iteration_moves;   // random task moves of one iteration's perturbation
    unsigned int pad;               // keeps the size a multiple of 8 (always 0)
};
static_assert(sizeof(DeLocalSearchParams) == 72, "DeLocalSearchParams must match its Rust mirror (72 bytes)");

// The three largest loads (value descending, ties to the lower machine); missing entries are (-inf, NONE).
struct DeLsTop {
    double value[3];
    unsigned int machine[3];
};

// Twin: local_search::larger.
__device__ __forceinline__ double de_ls_larger(double a, double b)
{
    return b > a ? b : a;
}

// Twin: local_search::ls_fitness. lambda * makespan + (1 - lambda) * (flowtime / m).
__device__ __forceinline__ double de_ls_fitness(double lambda, double makespan, double flowtime, unsigned int machines)
{
    return __dadd_rn(__dmul_rn(lambda, makespan), __dmul_rn(__dsub_rn(1.0, lambda), __ddiv_rn(flowtime, (double)machines)));
}

// Twin: local_search::top_three.
__device__ __forceinline__ void de_ls_top_three(const double* loads, unsigned int machines, DeLsTop* top)
{
    const double none = __longlong_as_double(0xfff0000000000000ll);  // -inf
    for (unsigned int k = 0; k < 3u; ++k) {
        top->value[k] = none;
        top->machine[k] = DE_LS_NONE;
    }
    for (unsigned int k = 0; k < machines; ++k) {
        const double v = loads[k];
        if (v > top->value[0]) {
            top->value[2] = top->value[1]; top->machine[2] = top->machine[1];
            top->value[1] = top->value[0]; top->machine[1] = top->machine[0];
            top->value[0] = v; top->machine[0] = k;
        } else if (v > top->value[1]) {
            top->value[2] = top->value[1]; top->machine[2] = top->machine[1];
            top->value[1] = v; top->machine[1] = k;
        } else if (v > top->value[2]) {
            top->value[2] = v; top->machine[2] = k;
        }
    }
}

// Twin: local_search::largest_other. The largest of top on a machine other than a and b; -inf when none.
__device__ __forceinline__ double de_ls_largest_other(const DeLsTop& top, unsigned int a, unsigned int b)
{
    for (unsigned int k = 0; k < 3u; ++k) {
        const unsigned int machine = top.machine[k];
        if (machine != DE_LS_NONE && machine != a && machine != b) {
            return top.value[k];
        }
    }
    return __longlong_as_double(0xfff0000000000000ll);
}

// What a candidate changes: the two machines' new loads and the new flowtime (local_search::Effect).
struct DeLsEffect {
    double first;
    double second;
    double flowtime;
};

// Twin: local_search::move_effect. L_from - t_from, L_to + t_to, F + (t_to - t_from).
__device__ __forceinline__ DeLsEffect de_ls_move_effect(double load_from, double load_to, double time_from, double time_to, double flowtime)
{
    DeLsEffect e;
    e.first = __dsub_rn(load_from, time_from);
    e.second = __dadd_rn(load_to, time_to);
    e.flowtime = __dadd_rn(flowtime, __dsub_rn(time_to, time_from));
    return e;
}

// Twin: local_search::swap_effect. Task a on p, task b on k: (L_p - a_p) + b_p, (L_k - b_k) + a_k,
// F + ((a_k - a_p) + (b_p - b_k)).
__device__ __forceinline__ DeLsEffect de_ls_swap_effect(double load_p, double load_k, double a_p, double a_k, double b_p, double b_k, double flowtime)
{
    DeLsEffect e;
    e.first = __dadd_rn(__dsub_rn(load_p, a_p), b_p);
    e.second = __dadd_rn(__dsub_rn(load_k, b_k), a_k);
    e.flowtime = __dadd_rn(flowtime, __dadd_rn(__dsub_rn(a_k, a_p), __dsub_rn(b_p, b_k)));
    return e;
}

// Twin: local_search::candidate_value. The makespan is the larger of 0, the other machines' largest load and
// the two new loads, in this order.
__device__ __forceinline__ double de_ls_value(double lambda, unsigned int machines, const DeLsTop& top, unsigned int first, unsigned int second, DeLsEffect e)
{
    const double rest = de_ls_largest_other(top, first, second);
    const double makespan = de_ls_larger(de_ls_larger(de_ls_larger(0.0, rest), e.first), e.second);
    return de_ls_fitness(lambda, makespan, e.flowtime, machines);
}

// Twin: local_search::squares_change. (first first + second second) - (load0 load0 + load1 load1), no FMA.
__device__ __forceinline__ double de_ls_squares_change(double load0, double load1, DeLsEffect e)
{
    return __dsub_rn(__dadd_rn(__dmul_rn(e.first, e.first), __dmul_rn(e.second, e.second)), __dadd_rn(__dmul_rn(load0, load0), __dmul_rn(load1, load1)));
}

// Twin: ScheduleSearch::secondary. The second ranking key of a candidate that takes the two machines from
// loads (load0, load1) to those of e: e's flowtime with DE_LS_ANY_PAIR, the change of the sum of squared loads
// with DE_LS_BALANCE and DE_LS_MAKESPAN_BALANCE, 0 (the same for every candidate) otherwise.
__device__ __forceinline__ long long de_ls_secondary(unsigned int neighbourhood, double load0, double load1, DeLsEffect e)
{
    double key = 0.0;
    if (neighbourhood == DE_LS_ANY_PAIR) {
        key = e.flowtime;
    } else if (neighbourhood == DE_LS_BALANCE || neighbourhood == DE_LS_MAKESPAN_BALANCE) {
        key = de_ls_squares_change(load0, load1, e);
    }
    return de_total_order_key(key);
}

// Twin: Candidate::ranks_before. Keeps the smaller of (key, key2, index) and (k, k2, i): key first, then the
// second key, then the lower index.
__device__ __forceinline__ void de_ls_keep(long long* key, long long* key2, unsigned long long* index, long long k, long long k2, unsigned long long i)
{
    if (k < *key || (k == *key && (k2 < *key2 || (k2 == *key2 && i < *index)))) {
        *key = k;
        *key2 = k2;
        *index = i;
    }
}

// Every machine's load and the flowtime of the schedule, each the canonical pairwise tree over the n tasks
// (a load's leaves are ETC[t][q] where s_t = q and +0.0 elsewhere), one tree per thread: the same bits as
// EtcInstance::loads and EtcInstance::objectives_unchecked. Writes loads[0..m) and *flowtime.
__device__ __forceinline__ void de_ls_loads(const float* etc, const unsigned char* schedule, unsigned int n, unsigned int m, double* loads, double* flowtime)
{
    for (unsigned int q = threadIdx.x; q <= m; q += blockDim.x) {
        EvoPairwiseStream stream;
        evo_pairwise_stream_init(&stream);
        for (unsigned int t = 0; t < n; ++t) {
            const unsigned int s = schedule[t];
            const double time = (double)etc[(unsigned long long)t * m + s];
            evo_pairwise_stream_push(&stream, (q == m || s == q) ? time : 0.0);
        }
        const double sum = evo_pairwise_stream_finish(&stream);
        if (q == m) {
            *flowtime = sum;
        } else {
            loads[q] = sum;
        }
    }
}

// The shared state of one block's search: the schedule, the incrementally updated loads and flowtime, and the
// scratch of each round's block reduction.
struct DeLsShared {
    unsigned char machine[DE_LS_MAX_TASKS];
    unsigned char saved[DE_LS_MAX_TASKS];  // the candidate before an iteration's trial (step 5)
    double load[DE_LS_MAX_MACHINES];
    double flowtime;
    DeLsTop top;
    long long current;
    long long current2;
    long long key[DE_LS_BLOCK];
    long long key2[DE_LS_BLOCK];
    unsigned long long index[DE_LS_BLOCK];
    double value;
    bool more;
    bool moved;
};

// Step 1's decoding: the schedule of row (n coordinates) into sh.machine.
__device__ __forceinline__ void de_ls_decode(DeLsShared& sh, const float* row, unsigned int n, unsigned int m)
{
    for (unsigned int t = threadIdx.x; t < n; t += blockDim.x) {
        sh.machine[t] = (unsigned char)evo_etc_machine_of(row[t], m);
    }
    __syncthreads();
}

// Steps 1 (the loads) and 2 on the schedule in sh.machine, by the whole block: at most p.max_moves rounds; each
// values every move (index t m + j) and every swap of a task on the makespan machine with a task elsewhere
// (DE_LS_ANY_PAIR and DE_LS_BALANCE: of any two tasks a < b on different machines; index n m + a n + b),
// reduces (value by the total order, then the second key, then index) over the block, and thread 0 applies the
// best when its (value, second key) is lexicographically below the current one. Afterwards sh.moved says
// whether anything moved. Twin: ScheduleSearch::improve.
__device__ void de_ls_improve(DeLsShared& sh, const float* etc, const DeLocalSearchParams& p)
{
    const unsigned int n = p.tasks;
    const unsigned int m = p.machines;
    if (threadIdx.x == 0) {
        sh.moved = false;
    }
    de_ls_loads(etc, sh.machine, n, m, sh.load, &sh.flowtime);
    __syncthreads();
    const unsigned long long moves = (unsigned long long)n * m;
    for (unsigned int round = 0; round < p.max_moves; ++round) {
        if (threadIdx.x == 0) {
            de_ls_top_three(sh.load, m, &sh.top);
            double longest = 0.0;
            for (unsigned int k = 0; k < m; ++k) {
                longest = de_ls_larger(longest, sh.load[k]);
            }
            sh.current = de_total_order_key(de_ls_fitness(p.lambda, longest, sh.flowtime, m));
            // Twin: ScheduleSearch::current_secondary (the flowtime, or no change of the squares).
            sh.current2 = de_total_order_key(p.neighbourhood == DE_LS_ANY_PAIR ? sh.flowtime : 0.0);
        }
        __syncthreads();
        const DeLsTop top = sh.top;
        const double flowtime = sh.flowtime;
        long long key = 0x7fffffffffffffffll;
        long long key2 = 0x7fffffffffffffffll;
        unsigned long long index = 0xffffffffffffffffull;
        for (unsigned long long c = threadIdx.x; c < moves; c += blockDim.x) {
            const unsigned int t = (unsigned int)(c / m);
            const unsigned int to = (unsigned int)(c % m);
            const unsigned int from = sh.machine[t];
            if (to == from) {
                continue;
            }
            const float* times = etc + (unsigned long long)t * m;
            const double load_from = sh.load[from];
            const double load_to = sh.load[to];
            const DeLsEffect e = de_ls_move_effect(load_from, load_to, (double)times[from], (double)times[to], flowtime);
            de_ls_keep(&key, &key2, &index, de_total_order_key(de_ls_value(p.lambda, m, top, from, to, e)), de_ls_secondary(p.neighbourhood, load_from, load_to, e), c);
        }
        if (p.neighbourhood == DE_LS_ANY_PAIR || p.neighbourhood == DE_LS_BALANCE) {
            for (unsigned int a = 0; a < n; ++a) {
                const unsigned int pa = sh.machine[a];
                const float* a_times = etc + (unsigned long long)a * m;
                const double a_p = (double)a_times[pa];
                for (unsigned int b = a + 1u + threadIdx.x; b < n; b += blockDim.x) {
                    const unsigned int k = sh.machine[b];
                    if (k == pa) {
                        continue;
                    }
                    const float* b_times = etc + (unsigned long long)b * m;
                    const double load_k = sh.load[k];
                    const DeLsEffect e = de_ls_swap_effect(sh.load[pa], load_k, a_p, (double)a_times[k], (double)b_times[pa], (double)b_times[k], flowtime);
                    de_ls_keep(&key, &key2, &index, de_total_order_key(de_ls_value(p.lambda, m, top, pa, k, e)), de_ls_secondary(p.neighbourhood, sh.load[pa], load_k, e), moves + (unsigned long long)a * n + b);
                }
            }
        } else {
            const unsigned int longest_machine = top.machine[0];
            for (unsigned int a = 0; a < n; ++a) {
                if (sh.machine[a] != longest_machine) {
                    continue;
                }
                const float* a_times = etc + (unsigned long long)a * m;
                const double a_p = (double)a_times[longest_machine];
                for (unsigned int b = threadIdx.x; b < n; b += blockDim.x) {
                    const unsigned int k = sh.machine[b];
                    if (k == longest_machine) {
                        continue;
                    }
                    const float* b_times = etc + (unsigned long long)b * m;
                    const double load_k = sh.load[k];
                    const DeLsEffect e = de_ls_swap_effect(sh.load[longest_machine], load_k, a_p, (double)a_times[k], (double)b_times[longest_machine], (double)b_times[k], flowtime);
                    de_ls_keep(&key, &key2, &index, de_total_order_key(de_ls_value(p.lambda, m, top, longest_machine, k, e)), de_ls_secondary(p.neighbourhood, sh.load[longest_machine], load_k, e), moves + (unsigned long long)a * n + b);
                }
            }
        }
        sh.key[threadIdx.x] = key;
        sh.key2[threadIdx.x] = key2;
        sh.index[threadIdx.x] = index;
        __syncthreads();
        for (unsigned int active = blockDim.x >> 1; active > 0; active >>= 1) {
            if (threadIdx.x < active) {
                long long k = sh.key[threadIdx.x];
                long long k2 = sh.key2[threadIdx.x];
                unsigned long long i = sh.index[threadIdx.x];
                de_ls_keep(&k, &k2, &i, sh.key[threadIdx.x + active], sh.key2[threadIdx.x + active], sh.index[threadIdx.x + active]);
                sh.key[threadIdx.x] = k;
                sh.key2[threadIdx.x] = k2;
                sh.index[threadIdx.x] = i;
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            const unsigned long long c = sh.index[0];
            // Twin: Candidate::improves_on.
            const bool lower = sh.key[0] < sh.current || (sh.key[0] == sh.current && sh.key2[0] < sh.current2);
            const bool more = c != 0xffffffffffffffffull && lower;
            sh.more = more;
            if (more) {
                // Applied with the operations that valued it.
                if (c < moves) {
                    const unsigned int t = (unsigned int)(c / m);
                    const unsigned int to = (unsigned int)(c % m);
                    const unsigned int from = sh.machine[t];
                    const float* times = etc + (unsigned long long)t * m;
                    const DeLsEffect e = de_ls_move_effect(sh.load[from], sh.load[to], (double)times[from], (double)times[to], sh.flowtime);
                    sh.load[from] = e.first;
                    sh.load[to] = e.second;
                    sh.flowtime = e.flowtime;
                    sh.machine[t] = (unsigned char)to;
                } else {
                    const unsigned long long q = c - moves;
                    const unsigned int a = (unsigned int)(q / n);
                    const unsigned int b = (unsigned int)(q % n);
                    const unsigned int pm = sh.machine[a];
                    const unsigned int k = sh.machine[b];
                    const float* a_times = etc + (unsigned long long)a * m;
                    const float* b_times = etc + (unsigned long long)b * m;
                    const DeLsEffect e = de_ls_swap_effect(sh.load[pm], sh.load[k], (double)a_times[pm], (double)a_times[k], (double)b_times[pm], (double)b_times[k], sh.flowtime);
                    sh.load[pm] = e.first;
                    sh.load[k] = e.second;
                    sh.flowtime = e.flowtime;
                    sh.machine[a] = (unsigned char)k;
                    sh.machine[b] = (unsigned char)pm;
                }
                sh.moved = true;
            }
        }
        __syncthreads();
        if (!sh.more) {
            break;
        }
    }
    // Every thread has read sh.more before anything of the state is written again.
    __syncthreads();
}

// Step 3's exact evaluation of the schedule in sh.machine (EtcProblem::evaluate of any vector decoding to it):
// the loads and the flowtime from the canonical trees, then the fitness, into sh.value. Twin:
// ScheduleSearch::schedule_value.
__device__ __forceinline__ void de_ls_exact_value(DeLsShared& sh, const float* etc, const DeLocalSearchParams& p)
{
    const unsigned int m = p.machines;
    de_ls_loads(etc, sh.machine, p.tasks, m, sh.load, &sh.flowtime);
    __syncthreads();
    if (threadIdx.x == 0) {
        double longest = 0.0;
        for (unsigned int k = 0; k < m; ++k) {
            longest = de_ls_larger(longest, sh.load[k]);
        }
        sh.value = de_ls_fitness(p.lambda, longest, sh.flowtime, m);
    }
    __syncthreads();
}

// Step 3's write: the tasks of row whose machine differs from schedule get their machine's centre s + 0.5.
__device__ __forceinline__ void de_ls_write_row(float* row, const unsigned char* schedule, unsigned int n, unsigned int m)
{
    for (unsigned int t = threadIdx.x; t < n; t += blockDim.x) {
        const unsigned int s = schedule[t];
        if (evo_etc_machine_of(row[t], m) != s) {
            row[t] = __fadd_rn((float)s, 0.5f);
        }
    }
}

// Twin: local_search::kick. moves random task moves from the words of (DeInit, step, k): move j takes task
// below(word 2j, n) to machine below(word 2j + 1, m - 1), skipping the task's own machine. One thread.
__device__ __forceinline__ void de_ls_kick(unsigned char* machine, unsigned int n, unsigned int m, EvoSequence s, unsigned int moves)
{
    for (unsigned int j = 0; j < moves; ++j) {
        const unsigned int t = evo_sequence_below(s, 2u * j, n);
        const unsigned int r = evo_sequence_below(s, 2u * j + 1u, m - 1u);
        machine[t] = (unsigned char)(r >= machine[t] ? r + 1u : r);
    }
}

// Step 5 on the searched candidate `candidate` in sh.machine: p.iterations times, saves it, applies the
// perturbation of (DeInit, p.step, K + i (K + 1) + candidate) (de_ls_kick, thread 0), searches, and restores
// the saved schedule when the trial's exact value is worse (total order). Leaves the kept schedule in
// sh.machine and its exact value in sh.value. Twin: ScheduleSearch::iterate.
__device__ void de_ls_iterate(DeLsShared& sh, const float* etc, const DeLocalSearchParams& p, unsigned int candidate)
{
    de_ls_exact_value(sh, etc, p);
    for (unsigned int i = 0; i < p.iterations; ++i) {
        const double current = sh.value;
        for (unsigned int t = threadIdx.x; t < p.tasks; t += blockDim.x) {
            sh.saved[t] = sh.machine[t];
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            const unsigned int individual = p.kicks + i * (p.kicks + 1u) + candidate;
            const EvoSequence s = evo_sequence(p.seed, DE_STREAM_INIT, p.step, individual);
            de_ls_kick(sh.machine, p.tasks, p.machines, s, p.iteration_moves);
        }
        __syncthreads();
        de_ls_improve(sh, etc, p);
        de_ls_exact_value(sh, etc, p);
        // Every thread reads the same shared value: the branch is uniform over the block.
        if (de_total_order_key(sh.value) > de_total_order_key(current)) {
            for (unsigned int t = threadIdx.x; t < p.tasks; t += blockDim.x) {
                sh.machine[t] = sh.saved[t];
            }
            __syncthreads();
            if (threadIdx.x == 0) {
                sh.value = current;
            }
        }
        __syncthreads();
    }
}

// Phase DE_LS_PHASE_SEARCH: the local search of one vector (steps 1-3 of crates/de/src/local_search.rs)
// without kicks. Scope Best (p.all_vectors = 0): one block searches vector best[0]. Scope All
// (p.all_vectors = 1): M blocks, block i searches vector i; the blocks share nothing (each reads and writes
// only its own row and fitness[i]), and de_best_index_f64 follows on the stream. Step 3 evaluates the new
// schedule exactly and, when strictly better than fitness[b], writes the moved tasks' coordinates (their
// machine's centre) and fitness[b]; scope Best also writes best_fitness[0] (the best index is unchanged: the
// best only improves). Twin: ScheduleSearch::improve_vector (DeCpu::search_locally for the scopes).
__device__ void de_ls_search_phase(DeLsShared& sh, float* buffer0, float* buffer1, const unsigned int* slots, double* fitness, const unsigned int* best, double* best_fitness, const float* etc, const DeLocalSearchParams& p)
{
    __shared__ float* s_row;
    __shared__ unsigned int s_best;
    __shared__ bool s_write;
    if (threadIdx.x == 0) {
        const unsigned int b = p.all_vectors != 0u ? blockIdx.x : best[0];
        s_best = b;
        s_row = (slots[b] == 0u ? buffer0 : buffer1) + (unsigned long long)b * p.tasks;
    }
    __syncthreads();
    float* row = s_row;
    de_ls_decode(sh, row, p.tasks, p.machines);
    de_ls_improve(sh, etc, p);
    if (!sh.moved) {
        return;
    }
    de_ls_exact_value(sh, etc, p);
    if (threadIdx.x == 0) {
        const double value = sh.value;
        const bool write = de_total_order_key(value) < de_total_order_key(fitness[s_best]);
        s_write = write;
        if (write) {
            fitness[s_best] = value;
            if (p.all_vectors == 0u) {
                best_fitness[0] = value;
            }
        }
    }
    __syncthreads();
    if (s_write) {
        de_ls_write_row(row, sh.machine, p.tasks, p.machines);
    }
}

// Phase DE_LS_PHASE_KICKS (steps 4-5, scope Best), K + 1 blocks: every block decodes the best vector best[0]
// and searches it (steps 1-2; each block computes the same schedule S0); block 0 keeps S0, block r >= 1
// applies kick r - 1 (de_ls_kick, thread 0) to S0 and searches again; then each block runs the iterations of
// its candidate r (de_ls_iterate, none without iterations). Block r writes its schedule to schedules[r n ..]
// and its exact value to values[r]; the blocks share nothing, and the pick phase follows on the stream. Twin:
// the first part of ScheduleSearch::improve_vector and ScheduleSearch::candidates.
__device__ void de_ls_kicks_phase(DeLsShared& sh, const float* buffer0, const float* buffer1, const unsigned int* slots, const unsigned int* best, const float* etc, double* values, unsigned char* schedules, const DeLocalSearchParams& p)
{
    const unsigned int b = best[0];
    const float* row = (slots[b] == 0u ? buffer0 : buffer1) + (unsigned long long)b * p.tasks;
    de_ls_decode(sh, row, p.tasks, p.machines);
    de_ls_improve(sh, etc, p);
    if (blockIdx.x > 0u) {
        if (threadIdx.x == 0) {
            const EvoSequence s = evo_sequence(p.seed, DE_STREAM_INIT, p.step, blockIdx.x - 1u);
            de_ls_kick(sh.machine, p.tasks, p.machines, s, p.kick_moves);
        }
        __syncthreads();
        de_ls_improve(sh, etc, p);
    }
    de_ls_iterate(sh, etc, p, blockIdx.x);
    unsigned char* out = schedules + (unsigned long long)blockIdx.x * p.tasks;
    for (unsigned int t = threadIdx.x; t < p.tasks; t += blockDim.x) {
        out[t] = sh.machine[t];
    }
    if (threadIdx.x == 0) {
        values[blockIdx.x] = sh.value;
    }
}

// Phase DE_LS_PHASE_PICK (step 4), one block: thread 0 picks the candidate of the lowest value (total order,
// then the lower candidate) among values[0 .. K]; when it is strictly better than fitness[best[0]] it becomes
// that fitness and best_fitness[0], and the block writes the moved tasks' coordinates (de_ls_write_row against
// the winner's schedule). Twin: the rest of ScheduleSearch::improve_vector.
__device__ void de_ls_pick_phase(float* buffer0, float* buffer1, const unsigned int* slots, double* fitness, const unsigned int* best, double* best_fitness, const double* values, const unsigned char* schedules, const DeLocalSearchParams& p)
{
    __shared__ unsigned int s_winner;
    __shared__ bool s_write;
    const unsigned int b = best[0];
    if (threadIdx.x == 0) {
        unsigned int winner = 0;
        long long key = de_total_order_key(values[0]);
        for (unsigned int r = 1; r <= p.kicks; ++r) {
            const long long k = de_total_order_key(values[r]);
            if (k < key) {
                key = k;
                winner = r;
            }
        }
        const bool write = key < de_total_order_key(fitness[b]);
        s_winner = winner;
        s_write = write;
        if (write) {
            fitness[b] = values[winner];
            best_fitness[0] = values[winner];
        }
    }
    __syncthreads();
    if (s_write) {
        float* row = (slots[b] == 0u ? buffer0 : buffer1) + (unsigned long long)b * p.tasks;
        de_ls_write_row(row, schedules + (unsigned long long)s_winner * p.tasks, p.tasks, p.machines);
    }
}

// The local search of ETC schedules, launched after a generation on the engine's stream with DE_LS_BLOCK
// threads per block; p.phase says which part (DE_LS_PHASE_*). Vector b lives in buffer slots[b] (0: buffer0,
// 1: buffer1). values (K + 1 doubles) and schedules (K + 1 rows of n bytes) hold the kicked search's
// candidates between its two launches; the search phase does not touch them. Twins: see each phase.
extern "C" __global__ void __launch_bounds__(DE_LS_BLOCK) de_local_search_etc_f32(float* buffer0, float* buffer1, const unsigned int* slots, double* fitness, const unsigned int* best, double* best_fitness, const float* etc, double* values, unsigned char* schedules, DeLocalSearchParams p)
{
    __shared__ DeLsShared sh;
    if (p.phase == DE_LS_PHASE_KICKS) {
        de_ls_kicks_phase(sh, buffer0, buffer1, slots, best, etc, values, schedules, p);
    } else if (p.phase == DE_LS_PHASE_PICK) {
        de_ls_pick_phase(buffer0, buffer1, slots, fitness, best, best_fitness, values, schedules, p);
    } else {
        de_ls_search_phase(sh, buffer0, buffer1, slots, fitness, best, best_fitness, etc, p);
    }
}
