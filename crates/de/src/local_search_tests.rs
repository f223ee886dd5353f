use super::*;
use evo_benchmarks::scheduling::{EtcClass, EtcInstance};
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
    let candidates = kicked.kicked(&schedule, &rng, 9);
    assert_eq!(candidates.len(), 16);
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
