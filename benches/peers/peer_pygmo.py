#!/usr/bin/env python3
"""Peer run for docs/results/dpga.md: pygmo on CEC 2006 g01-g24 under the CEC 2006 rules.

Algorithm: pygmo.cstrs_self_adaptive (Farmani & Wright's self-adaptive penalty) around pygmo.de1220
(self-adaptive DE, variant_adptv=1, default variants) with gen=1 per outer iteration, population POP.
Budget: 500 000 objective evaluations per run (POP for the initial population + POP per outer iteration),
25 runs with seeds SEED + r. Constraint tolerance (pygmo's c_tol): 1e-4 for equalities, 0 for inequalities,
as in the CEC 2006 rules and our engine. Reported per problem: the best feasible objective of each run
(pygmo's population champion, which is the best point ever inserted under feasibility-first comparison),
feasible rate, success rate (feasible and f - f* <= 1e-4), best/median/worst f - f* over the feasible runs.

Usage: python3 benches/peers/peer_pygmo.py [--runs 25] [--evals 500000] [--problems 1-24] [--pop 100] [--procs 2]
Prints a markdown table and the check of pygmo's definitions against our f(x*) table.
"""
import argparse
import multiprocessing as mp
import time

import numpy as np
import pygmo as pg

# f(x*) of crates/benchmarks/src/cec2006/mod.rs (g20: best-known, infeasible).
OPTIMA = [-15.0, -0.803619104, -1.000500100, -30665.538671783, 5126.496714007, -6961.813875580,
          24.306209068, -0.095825041, 680.630057374, 7049.248020529, 0.749900000, -1.0,
          0.053941514, -47.764888459, 961.715022290, -1.905155259, 8853.539674806, -0.866025404,
          32.655592950, 0.204979400, 193.724510070, 236.430975504, -400.055100000, -5.508013272]
SEED = 2026


def make_problem(g):
    udp = pg.cec2006(prob_id=g)
    prob = pg.problem(udp)
    neq, nic = prob.get_nec(), prob.get_nic()
    prob.c_tol = [1e-4] * neq + [0.0] * nic
    return prob


def feasible(prob, x):
    f = prob.fitness(x)
    neq = prob.get_nec()
    eq = f[1:1 + neq]
    ineq = f[1 + neq:]
    return bool(np.all(np.abs(eq) <= 1e-4) and np.all(ineq <= 0.0)), f[0]


def one_run(args):
    g, r, evals, pop_size = args
    prob = make_problem(g)
    iters = (evals - pop_size) // pop_size
    algo = pg.algorithm(pg.cstrs_self_adaptive(iters=iters, algo=pg.de1220(gen=1, seed=SEED + r),
                                               seed=SEED + r))
    start = time.time()
    pop = pg.population(prob, size=pop_size, seed=SEED + r)
    pop = algo.evolve(pop)
    ok, f = feasible(prob, pop.champion_x)
    return g, r, ok, f, pop.problem.get_fevals(), time.time() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=25)
    ap.add_argument("--evals", type=int, default=500_000)
    ap.add_argument("--problems", default="1-24")
    ap.add_argument("--pop", type=int, default=100)
    ap.add_argument("--procs", type=int, default=2)
    a = ap.parse_args()
    lo, _, hi = a.problems.partition("-")
    problems = list(range(int(lo), int(hi or lo) + 1))

    print("pygmo", pg.__version__, "| de1220(gen=1) in cstrs_self_adaptive | pop", a.pop,
          "| runs", a.runs, "| evals", a.evals)
    print("\nDefinition check: pygmo f at pygmo's best_known() vs our f(x*)")
    for g in problems:
        prob = make_problem(g)
        x = pg.cec2006(prob_id=g).best_known()
        fx = prob.fitness(x)[0]
        print(f"g{g:02}: pygmo {fx:.9f} ours {OPTIMA[g - 1]:.9f} diff {fx - OPTIMA[g - 1]:.2e}")

    start = time.time()
    print("\n| g | feasible | success | best f - f* | median f - f* | worst f - f* | evals/run | s/run |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |", flush=True)
    with mp.Pool(a.procs) as pool:
        for g in problems:
            rows = pool.map(one_run, [(g, r, a.evals, a.pop) for r in range(a.runs)], chunksize=1)
            errs = sorted(f - OPTIMA[g - 1] for (_, _, ok, f, _, _) in rows if ok)
            succ = sum(1 for e in errs if e <= 1e-4)
            ev = int(np.mean([x[4] for x in rows]))
            sec = np.mean([x[5] for x in rows])
            if errs:
                n = len(errs)
                med = errs[n // 2] if n % 2 else 0.5 * (errs[n // 2 - 1] + errs[n // 2])
                stats = f"{errs[0]:.3e} | {med:.3e} | {errs[-1]:.3e}"
            else:
                stats = "— | — | —"
            print(f"| g{g:02} | {len(errs)}/{len(rows)} | {succ}/{len(rows)} | {stats} | {ev} | {sec:.2f} |",
                  flush=True)
    print(f"\nwall time {time.time() - start:.1f} s on {a.procs} processes")

if __name__ == "__main__":
    main()
