use super::*;
use evo_benchmarks::scheduling::{EtcClass, EtcInstance, EtcObjective};
use evo_core::ContinuousProblem;
use evo_rng::{Philox, Stream};

fn tiny(tasks: usize, machines: usize, times: Vec<f32>) -> EtcProblem {
    let instance = EtcInstance::new("tiny", tasks, machines, times).expect("valid instance");
    EtcProblem::new(instance, 0.75).expect("valid problem")
}

fn search(problem: &EtcProblem, max_moves: u32) -> ScheduleSearch {
    let settings = LocalSearch::new(1, max_moves).expect("valid settings");
    ScheduleSearch::new(problem, settings).expect("small instance")
}

#[test]
fn parameters_are_validated_with_named_errors() {
    assert_eq!(
        LocalSearch::new(5, 0).unwrap_err().to_string(),
        "DE: local search moves must be at least 1, got 0"
    );
    assert!(LocalSearch::new(0, 1).is_err());
    let wide = tiny(1, 300, vec![1.0; 300]);
    let error = ScheduleSearch::new(&wide, LocalSearch::new(1, 1).unwrap()).unwrap_err();
    assert!(error.to_string().contains("machine count"), "{error}");
}

#[test]
fn the_search_runs_after_every_period_th_generation() {
    let every_five = LocalSearch::new(5, 1).unwrap();
    let due: Vec<u64> = (0..=15).filter(|&g| every_five.is_due(g)).collect();
    assert_eq!(due, [5, 10, 15]);
}

/// Three tasks on two machines, all on machine 0: loads [9, 0], flowtime 9, fitness 7.875. The moves are
/// worth 7.625 (task 0), 5.625 (task 1) and 8.75 (task 2); after task 1 moves (loads [6, 3]) no move or swap
/// improves on 5.625 (the best, swapping tasks 0 and 1, gives 7.625).
#[test]
fn the_best_move_is_applied_then_the_search_stops() {
    let problem = tiny(3, 2, vec![4.0, 8.0, 3.0, 3.0, 2.0, 9.0]);
    let mut schedule = vec![0, 0, 0];
    assert_eq!(search(&problem, 10).improve(&mut schedule), 1);
    assert_eq!(schedule, [0, 1, 0]);
    assert_eq!(problem.instance().fitness(&schedule, 0.75).unwrap(), 5.625);
}

/// Two equal tasks on one of two equal machines: moving either is worth 1.0; the lower candidate index (task
/// 0) wins. Afterwards the swap of the two tasks is worth exactly the current value, which is not strictly
/// better, so the search stops.
#[test]
fn ties_go_to_the_lower_candidate_index() {
    let problem = tiny(2, 2, vec![1.0; 4]);
    let mut schedule = vec![0, 0];
    assert_eq!(search(&problem, 10).improve(&mut schedule), 1);
    assert_eq!(schedule, [1, 0]);
}

#[test]
fn a_schedule_without_improving_moves_is_left_alone() {
    let problem = tiny(3, 2, vec![4.0, 8.0, 3.0, 3.0, 2.0, 9.0]);
    let search = search(&problem, 10);
    let mut schedule = vec![0, 1, 0];
    assert_eq!(search.improve(&mut schedule), 0);
    assert_eq!(schedule, [0, 1, 0]);
    let vector = [0.3, 1.9, 0.0];
    assert!(
        search
            .improve_vector(
                &vector,
                problem.evaluate(&vector),
                |x| problem.evaluate(x),
                &Philox::new(1),
                1,
            )
            .is_none()
    );
}

#[test]
fn max_moves_bounds_the_moves() {
    let problem = tiny(2, 2, vec![1.0; 4]);
    let mut schedule = vec![0, 0];
    assert_eq!(search(&problem, 1).improve(&mut schedule), 1);
    let instance = EtcInstance::generate(EtcClass::all()[0], 64, 4, 3).unwrap();
    let problem = EtcProblem::new(instance, 0.75).unwrap();
    let mut schedule = vec![0; 64];
    assert_eq!(search(&problem, 3).improve(&mut schedule), 3);
}

#[test]
fn top_three_orders_by_value_then_lower_machine() {
    let top = top_three(&[2.0, 5.0, 5.0, 1.0, 3.0]);
    assert_eq!(top, [(5.0, 1), (5.0, 2), (3.0, 4)]);
    assert_eq!(largest_other(&top, 1, 2), 3.0);
    assert_eq!(largest_other(&top, 2, 0), 5.0);
    let two = top_three(&[1.0, 0.5]);
    assert_eq!(largest_other(&two, 0, 1), f64::NEG_INFINITY);
}

/// Random vectors of a generated 512 × 16 instance: the search's vector decodes to the search's schedule,
/// only the moved tasks' coordinates change (to their machine's centre), and the returned fitness is a
/// fresh evaluation of the returned vector and strictly below the input's.
#[test]
fn improved_vectors_decode_to_the_search_schedule_and_carry_their_evaluation() {
    for (class, seed) in [(0, 1), (5, 2), (10, 3)] {
        let instance = EtcInstance::generate(EtcClass::all()[class], 512, 16, seed).unwrap();
        let problem = EtcProblem::new(instance, 0.75).unwrap();
        let search = search(&problem, 32);
        let rng = Philox::new(seed);
        for i in 0..4u32 {
            let words = rng.sequence(Stream::DeInit, 0, i);
            let vector: Vec<f32> = (0..512)
                .map(|j| words.uniform_f32(j) * 16.0)
                .map(|x: f32| x.min(15.99))
                .collect();
            let fitness = problem.evaluate(&vector);
            let mut schedule = problem.schedule_of(&vector);
            let moves = search.improve(&mut schedule);
            assert!(moves > 0, "a random schedule has improving moves");
            let (improved, value) = search
                .improve_vector(&vector, fitness, |x| problem.evaluate(x), &rng, 1)
                .expect("improved");
            assert_eq!(problem.schedule_of(&improved), schedule);
            assert_eq!(
                value.to_bits(),
                problem.evaluate(&improved).to_bits(),
                "stored fitness is a fresh evaluation"
            );
            assert!(value < fitness, "{value} vs {fitness}");
            for ((&x, &y), &s) in vector.iter().zip(&improved).zip(&schedule) {
                if problem.machine_of(x) == s {
                    assert_eq!(x.to_bits(), y.to_bits());
                } else {
                    assert_eq!(y, s as f32 + 0.5);
                }
            }
        }
    }
}

#[test]
fn kick_settings_are_validated_with_named_errors() {
    let plain = LocalSearch::new(500, 64).unwrap();
    let kicked = plain.with_kicks(32, 4).unwrap();
    assert_eq!((kicked.kicks(), kicked.kick_moves()), (32, 4));
    assert_eq!((plain.kicks(), plain.kick_moves()), (0, 0));
    assert_eq!(plain.with_kicks(0, 7).unwrap(), plain, "0 kicks: off");
    assert_eq!(
        plain.with_kicks(MAX_KICKS + 1, 4).unwrap_err().to_string(),
        format!(
            "DE: local search kicks must be at most {MAX_KICKS}, got {}",
            MAX_KICKS + 1
        )
    );
    assert_eq!(
        plain.with_kicks(8, 0).unwrap_err().to_string(),
        format!("DE: local search kick moves must be 1 ..= {MAX_KICK_MOVES}, got 0")
    );
    assert!(plain.with_kicks(8, MAX_KICK_MOVES + 1).is_err());
    let problem = tiny(3, 2, vec![4.0, 8.0, 3.0, 3.0, 2.0, 9.0]);
    let everywhere = ScheduleSearch::new(&problem, kicked.with_scope(Scope::All)).unwrap_err();
    assert!(
        everywhere.to_string().contains("Scope::Best"),
        "{everywhere}"
    );
    let one_machine = tiny(2, 1, vec![1.0, 2.0]);
    let error = ScheduleSearch::new(&one_machine, kicked).unwrap_err();
    assert!(error.to_string().contains("at least 2"), "{error}");
}

/// On two machines every kick move sends its task to the other machine; on five, move j takes task
/// `below(word 2j, n)` to `below(word 2j + 1, 4)`, one up when at or above the task's machine.
#[test]
fn a_kick_moves_tasks_off_their_machine_as_the_words_say() {
    let rng = Philox::new(7);
    for k in 0..20 {
        let words = kick_words(&rng, 3, k);
        let mut schedule = vec![0u32; 10];
        kick(&mut schedule, 2, &words, 1);
        let t = words.below(0, 10) as usize;
        let expected: Vec<u32> = (0..10).map(|i| u32::from(i == t)).collect();
        assert_eq!(schedule, expected, "kick {k}");

        let mut schedule: Vec<u32> = (0..10).map(|t| t % 5).collect();
        let mut by_hand = schedule.clone();
        kick(&mut schedule, 5, &words, 3);
        for j in 0..3 {
            let t = words.below(2 * j, 10) as usize;
            let r = words.below(2 * j + 1, 4);
            let own = by_hand[t];
            by_hand[t] = if r >= own { r + 1 } else { r };
            assert_ne!(by_hand[t], own);
        }
        assert_eq!(schedule, by_hand, "kick {k}");
    }
    assert_ne!(
        kick_words(&rng, 3, 0).word(0),
        kick_words(&rng, 4, 0).word(0),
        "the step word addresses the generation"
    );
    assert_eq!(kick_step(7), 7);
    assert_eq!(kick_step(u64::MAX), u32::MAX);
}

/// A vector at the plain search's local optimum: without kicks nothing changes; with kicks the result is the
/// best of the kicked candidates (value, then the lower kick), strictly better here, carries its
/// evaluation, and is the same for the same (seed, generation).
#[test]
fn kicks_escape_a_local_optimum_and_keep_the_best_candidate() {
    let instance = EtcInstance::generate(EtcClass::all()[4], 256, 8, 5).unwrap();
    let problem = EtcProblem::new(instance, 0.75).unwrap();
    let plain = ScheduleSearch::new(&problem, LocalSearch::new(1, 4096).unwrap()).unwrap();
    let mut schedule = vec![0u32; 256];
    plain.improve(&mut schedule);
    assert_eq!(plain.improve(&mut schedule.clone()), 0, "a local optimum");
    let vector: Vec<f32> = schedule.iter().map(|&s| s as f32 + 0.25).collect();
    let fitness = problem.evaluate(&vector);
    let rng = Philox::new(11);
    let evaluate = |x: &[f32]| problem.evaluate(x);
    assert!(
        plain
            .improve_vector(&vector, fitness, evaluate, &rng, 9)
            .is_none()
    );
    let settings = LocalSearch::new(1, 4096)
        .unwrap()
        .with_kicks(16, 6)
        .unwrap();
    let kicked = ScheduleSearch::new(&problem, settings).unwrap();
    let (improved, value) = kicked
        .improve_vector(&vector, fitness, evaluate, &rng, 9)
        .expect("some kick escapes the local optimum");
    assert!(value < fitness, "{value} vs {fitness}");
    assert_eq!(value.to_bits(), problem.evaluate(&improved).to_bits());
    // Candidate 0 is the searched schedule itself; the kicks are candidates 1 ..= 16.
    let candidates = kicked.candidates(&schedule, &rng, 9);
    assert_eq!(candidates.len(), 17);
    assert_eq!(candidates[0].0, schedule);
    let (winner, best) = candidates
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.1.total_cmp(&b.1.1).then(a.0.cmp(&b.0)))
        .map(|(_, (s, v))| (s.clone(), *v))
        .unwrap();
    assert_eq!(problem.schedule_of(&improved), winner);
    assert_eq!(best.to_bits(), value.to_bits());
    for (s, v) in &candidates {
        assert_eq!(v.to_bits(), kicked.schedule_value(s).to_bits());
    }
    let again = kicked.improve_vector(&vector, fitness, evaluate, &rng, 9);
    assert_eq!(again, Some((improved, value)));
}

fn makespan_problem(tasks: usize, machines: usize, times: Vec<f32>) -> EtcProblem {
    let instance = EtcInstance::new("tiny", tasks, machines, times).expect("valid instance");
    EtcProblem::with_objective(instance, EtcObjective::Makespan).expect("valid problem")
}

#[test]
fn neighbourhood_and_iteration_settings_are_validated_with_named_errors() {
    let base = LocalSearch::new(1, 8).unwrap();
    assert_eq!(base.neighbourhood(), Neighbourhood::MakespanMachine);
    assert_eq!((base.iterations(), base.iteration_moves()), (0, 0));
    assert!(!base.restarts());
    assert_eq!(
        base.with_iterations(MAX_ITERATIONS + 1, 4)
            .unwrap_err()
            .to_string(),
        "DE: local search iterations must be at most 1024, got 1025"
    );
    assert_eq!(
        base.with_iterations(3, 0).unwrap_err().to_string(),
        "DE: local search iteration moves must be 1 ..= 256, got 0"
    );
    assert!(base.with_iterations(3, MAX_KICK_MOVES + 1).is_err());
    // Without iterations the moves are not read and read back as 0.
    assert_eq!(base.with_iterations(0, 999).unwrap().iteration_moves(), 0);
    let iterated = base.with_iterations(3, 2).unwrap();
    assert!(iterated.restarts());
    let problem = makespan_problem(2, 2, vec![1.0; 4]);
    let everywhere = iterated.with_scope(Scope::All);
    let error = ScheduleSearch::new(&problem, everywhere).unwrap_err();
    assert!(error.to_string().contains("Scope::Best"), "{error}");
    let one_machine = makespan_problem(2, 1, vec![1.0; 2]);
    let error = ScheduleSearch::new(&one_machine, iterated).unwrap_err();
    assert!(error.to_string().contains("at least 2"), "{error}");
}

#[test]
fn settings_read_from_json_go_through_the_setters() {
    let read = |text: &str| serde_json::from_str::<LocalSearch>(text);
    let full = LocalSearch::new(20, 64)
        .unwrap()
        .with_kicks(8, 4)
        .unwrap()
        .with_neighbourhood(Neighbourhood::AnyPair)
        .with_iterations(16, 3)
        .unwrap();
    let text = serde_json::to_string(&full).unwrap();
    assert_eq!(read(&text).unwrap(), full);
    // Settings written before the neighbourhood and the iterations existed read as the defaults.
    let old =
        read(r#"{"period": 500, "max_moves": 64, "scope": "Best", "kicks": 0, "kick_moves": 0}"#);
    assert_eq!(old.unwrap(), LocalSearch::new(500, 64).unwrap());
    let error = read(r#"{"period": 20, "max_moves": 64, "iterations": 4, "iteration_moves": 300}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("local search iteration moves must be 1 ..= 256, got 300"),
        "{error}"
    );
    let error = read(r#"{"period": 0, "max_moves": 64}"#)
        .unwrap_err()
        .to_string();
    assert!(error.contains("local search period"), "{error}");
    let error = read(r#"{"period": 1, "max_moves": 1, "iteration": 4}"#)
        .unwrap_err()
        .to_string();
    assert!(error.contains("unknown field `iteration`"), "{error}");
    let error = read(r#"{"period": 1, "max_moves": 1, "neighbourhood": "Everything"}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("MakespanMachine") && error.contains("AnyPair"),
        "{error}"
    );
}

/// Three machines; task A = [10, 100, 6] on machine 0, B = [100, 5, 1] on machine 1, C = [100, 6, 9.5] on
/// machine 2: loads [10, 5, 9.5], makespan 10 (λ = 1). No move or makespan-machine swap lowers the maximum
/// (A → 2 gives 15.5, B → 2 gives 10.5, C → 1 gives 11, swapping A with B or C puts 100 on machine 0),
/// and no single move keeps it and lowers the flowtime. Swapping B and C (machines 1 and 2, neither the
/// makespan machine) keeps it at 10 and lowers the flowtime from 24.5 to 17 (loads [10, 6, 1]); then A → 2
/// gives [0, 6, 7], makespan 7.
#[test]
fn any_pair_swaps_find_the_improvement_the_makespan_machine_moves_miss() {
    let problem = makespan_problem(
        3,
        3,
        vec![10.0, 100.0, 6.0, 100.0, 5.0, 1.0, 100.0, 6.0, 9.5],
    );
    let start = vec![0, 1, 2];
    let settings = LocalSearch::new(1, 16).unwrap();
    let old = ScheduleSearch::new(&problem, settings).unwrap();
    let mut schedule = start.clone();
    assert_eq!(old.improve(&mut schedule), 0);
    assert_eq!(problem.instance().makespan(&schedule).unwrap(), 10.0);
    let any_pair = settings.with_neighbourhood(Neighbourhood::AnyPair);
    let new = ScheduleSearch::new(&problem, any_pair).unwrap();
    let mut schedule = start.clone();
    assert_eq!(new.improve(&mut schedule), 2);
    assert_eq!(schedule, [2, 2, 1]);
    assert_eq!(problem.instance().makespan(&schedule).unwrap(), 7.0);
    // One move at a time: the swap first (the same makespan, less flowtime), then the move of A.
    let mut first = start.clone();
    let one = ScheduleSearch::new(
        &problem,
        LocalSearch::new(1, 1)
            .unwrap()
            .with_neighbourhood(Neighbourhood::AnyPair),
    )
    .unwrap();
    assert_eq!(one.improve(&mut first), 1);
    assert_eq!(first, [0, 2, 1]);
}

/// Three machines; task A = [10, 100, 6] on machine 0, B = [100, 1, 100] on machine 1, C = D = [100, 4, 3]
/// on machine 2: loads [10, 1, 6], makespan 10 (λ = 1), flowtime 17. Nothing lowers the makespan (A → 2
/// gives 12), and every candidate that keeps it raises the flowtime, so the any-pair descent stops. Moving
/// C to machine 1 keeps the makespan and lowers the sum of squares of the two loads (1 + 36 → 25 + 9), so
/// the balance descents take it; then A → 2 gives loads [0, 5, 9], makespan 9.
#[test]
fn balance_moves_find_the_improvement_the_flowtime_key_misses() {
    let problem = makespan_problem(
        4,
        3,
        vec![
            10.0, 100.0, 6.0, 100.0, 1.0, 100.0, 100.0, 4.0, 3.0, 100.0, 4.0, 3.0,
        ],
    );
    let start = vec![0, 1, 2, 2];
    let settings = LocalSearch::new(1, 16).unwrap();
    let any_pair = ScheduleSearch::new(
        &problem,
        settings.with_neighbourhood(Neighbourhood::AnyPair),
    )
    .unwrap();
    let mut schedule = start.clone();
    assert_eq!(any_pair.improve(&mut schedule), 0);
    let balance = ScheduleSearch::new(
        &problem,
        settings.with_neighbourhood(Neighbourhood::Balance),
    )
    .unwrap();
    let mut schedule = start.clone();
    assert_eq!(balance.improve(&mut schedule), 2);
    assert_eq!(schedule, [2, 1, 1, 2]);
    assert_eq!(problem.instance().makespan(&schedule).unwrap(), 9.0);
    assert_eq!(Neighbourhood::Balance.kernel_code(), 2);
    // The cheaper neighbourhood takes the same two moves (moves between any two machines are in it).
    let makespan_balance = ScheduleSearch::new(
        &problem,
        settings.with_neighbourhood(Neighbourhood::MakespanBalance),
    )
    .unwrap();
    let mut schedule = start.clone();
    assert_eq!(makespan_balance.improve(&mut schedule), 2);
    assert_eq!(schedule, [2, 1, 1, 2]);
    assert_eq!(Neighbourhood::MakespanBalance.kernel_code(), 3);
}

/// The change of the squared loads of the two machines a candidate changes, in the kernel's order.
#[test]
fn squares_change_is_the_new_minus_the_old_sum_of_squares() {
    let effect = Effect {
        first: 5.0,
        second: 3.0,
        flowtime: 0.0,
    };
    assert_eq!(squares_change([1.0, 6.0], effect), -3.0);
    assert_eq!(
        squares_change([5.0, 3.0], effect).to_bits(),
        0.0f64.to_bits()
    );
}

/// Under the makespan alone, on random integer instances (every sum exact), neither neighbourhood's
/// descent nor the iterated search ever returns a longer makespan than it started from.
#[test]
fn the_makespan_never_increases_after_a_descent() {
    let rng = Philox::new(3);
    for seed in 0..6u64 {
        let (n, m) = (24 + 4 * seed as usize, 3 + seed as usize % 4);
        let words = rng.sequence(Stream::DeIndices, seed as u32, 0);
        let times: Vec<f32> = (0..n * m)
            .map(|i| (1 + words.below(i as u32, 50)) as f32)
            .collect();
        let problem = makespan_problem(n, m, times);
        let schedule: Vec<u32> = (0..n)
            .map(|t| words.below((n * m + t) as u32, m as u32))
            .collect();
        let before = problem.instance().makespan(&schedule).unwrap();
        for neighbourhood in [
            Neighbourhood::MakespanMachine,
            Neighbourhood::AnyPair,
            Neighbourhood::Balance,
            Neighbourhood::MakespanBalance,
        ] {
            for max_moves in [1, 3, 1000] {
                let settings = LocalSearch::new(1, max_moves)
                    .unwrap()
                    .with_neighbourhood(neighbourhood);
                let search = ScheduleSearch::new(&problem, settings).unwrap();
                let mut improved = schedule.clone();
                search.improve(&mut improved);
                let after = problem.instance().makespan(&improved).unwrap();
                assert!(
                    after <= before,
                    "{neighbourhood:?} {max_moves}: {after} > {before}"
                );
                let iterated = ScheduleSearch::new(
                    &problem,
                    settings
                        .with_kicks(2, 3)
                        .unwrap()
                        .with_iterations(5, 2)
                        .unwrap(),
                )
                .unwrap();
                let vector = crate::scheduling::encode_schedule(&schedule);
                let fitness = problem.evaluate(&vector);
                let evaluate = |x: &[f32]| problem.evaluate(x);
                if let Some((v, value)) =
                    iterated.improve_vector(&vector, fitness, evaluate, &rng, 4)
                {
                    assert!(value < fitness);
                    let after = problem
                        .instance()
                        .makespan(&problem.schedule_of(&v))
                        .unwrap();
                    assert!(
                        after < before,
                        "{neighbourhood:?} iterated: {after} vs {before}"
                    );
                }
            }
        }
    }
}

/// The iterations of a candidate replay step 5: each trial is the kept schedule perturbed with the words of
/// its own individual and searched, kept when its exact value is not worse; the search is deterministic.
#[test]
fn iterations_keep_every_trial_that_is_not_worse() {
    let instance = EtcInstance::generate(EtcClass::all()[1], 96, 6, 2).unwrap();
    let problem = EtcProblem::with_objective(instance, EtcObjective::Makespan).unwrap();
    let settings = LocalSearch::new(1, 64)
        .unwrap()
        .with_kicks(2, 3)
        .unwrap()
        .with_iterations(12, 2)
        .unwrap();
    let search = ScheduleSearch::new(&problem, settings).unwrap();
    let rng = Philox::new(5);
    let (generation, step) = (40, kick_step(40));
    let mut searched = vec![0u32; 96];
    search.improve(&mut searched);
    let candidates = search.candidates(&searched, &rng, generation);
    assert_eq!(candidates.len(), 3);
    for (c, (schedule, value)) in candidates.iter().enumerate() {
        let mut kept = searched.clone();
        if c > 0 {
            kick(&mut kept, 6, &kick_words(&rng, step, c as u32 - 1), 3);
            search.improve(&mut kept);
        }
        let mut kept_value = search.schedule_value(&kept);
        let start_value = kept_value;
        for i in 0..12 {
            let mut trial = kept.clone();
            let words = kick_words(&rng, step, iteration_individual(2, i, c as u32));
            kick(&mut trial, 6, &words, 2);
            search.improve(&mut trial);
            let trial_value = search.schedule_value(&trial);
            if trial_value <= kept_value {
                (kept, kept_value) = (trial, trial_value);
            }
        }
        assert_eq!(schedule, &kept, "candidate {c}");
        assert_eq!(value.to_bits(), kept_value.to_bits(), "candidate {c}");
        assert!(*value <= start_value);
    }
    // The iterations' individuals follow the kicks' and never repeat.
    let mut individuals: Vec<u32> = (0..12)
        .flat_map(|i| (0..3).map(move |c| iteration_individual(2, i, c)))
        .collect();
    individuals.sort_unstable();
    individuals.dedup();
    assert_eq!(individuals.len(), 36);
    assert_eq!(individuals[0], 2);
}
