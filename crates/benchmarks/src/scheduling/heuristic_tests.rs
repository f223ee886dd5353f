//! Sufferage and Min-Min on hand-worked matrices, the makespan objective, and the best known schedules.

use super::*;
use crate::data::shared_data_dir_or_skip;
use evo_core::ContinuousProblem;
use proptest::prelude::*;
use std::path::PathBuf;

/// 4 tasks × 2 machines, where Sufferage and Min-Min disagree:
///
/// | task | m0 | m1 |
/// | --- | --- | --- |
/// | 0 | 2 | 6 |
/// | 1 | 3 | 4 |
/// | 2 | 5 | 1 |
/// | 3 | 4 | 7 |
fn four_by_two() -> EtcInstance {
    let times = vec![2.0, 6.0, 3.0, 4.0, 5.0, 1.0, 4.0, 7.0];
    EtcInstance::new("four-by-two", 4, 2, times).unwrap()
}

#[test]
fn sufferage_of_a_hand_worked_matrix() {
    // Pass 1 (r = [0, 0]): t0 takes m0 (sufferage 6 − 2 = 4); t1 wants m0 (1 < 4, waits); t2 takes m1
    // (sufferage 4); t3 wants m0 (3 < 4, waits). r = [2, 1].
    // Pass 2: t1 completes at [5, 5] (tie: m0, sufferage 0) and takes m0; t3 completes at [6, 8]
    // (sufferage 2 > 0) and evicts t1. r = [6, 1].
    // Pass 3: t1 completes at [9, 5] and takes m1. r = [6, 5].
    let result = sufferage(&four_by_two());
    assert_eq!(result.schedule, vec![0, 1, 1, 0]);
    assert_eq!(result.ready, vec![6.0, 5.0]);
    assert_eq!(result.makespan, 6.0);
}

#[test]
fn min_min_of_the_same_matrix() {
    // Best completions (r = [0, 0]): t0 2@m0, t1 3@m0, t2 1@m1, t3 4@m0. t2 → m1 (r = [0, 1]); t0 → m0
    // (r = [2, 1]); t1 [5, 5] → m0 (r = [5, 1]); t3 [9, 8] → m1 (r = [5, 8]).
    let result = min_min(&four_by_two());
    assert_eq!(result.schedule, vec![0, 0, 1, 1]);
    assert_eq!(result.ready, vec![5.0, 8.0]);
    assert_eq!(result.makespan, 8.0);
}

#[test]
fn sufferage_on_one_machine_queues_every_task() {
    let instance = EtcInstance::new("one", 3, 1, vec![1.5, 2.0, 0.5]).unwrap();
    let result = sufferage(&instance);
    assert_eq!(result.schedule, vec![0, 0, 0]);
    assert_eq!(result.makespan, 4.0);
}

#[test]
fn sufferage_ties_keep_the_first_holder() {
    // Both tasks want m0 with the same sufferage 1: the first keeps it (r = [1, 0]). Next pass the second
    // completes at [2, 2], a tie that goes to the lowest machine, m0.
    let instance = EtcInstance::new("tie", 2, 2, vec![1.0, 2.0, 1.0, 2.0]).unwrap();
    let result = sufferage(&instance);
    assert_eq!(result.schedule, vec![0, 0]);
    assert_eq!(result.ready, vec![2.0, 0.0]);
}

#[test]
fn the_makespan_objective_is_the_makespan() {
    let instance = four_by_two();
    let paper = EtcProblem::new(instance.clone(), DEFAULT_LAMBDA).unwrap();
    let makespan = EtcProblem::with_objective(instance, EtcObjective::Makespan).unwrap();
    assert_eq!(paper.name(), "etc-four-by-two");
    assert_eq!(makespan.name(), "etc-makespan-four-by-two");
    assert_eq!(makespan.lambda(), 1.0);
    assert_eq!(paper.objective(), EtcObjective::default());
    // Schedule [0, 1, 1, 0]: loads [6, 5], flowtime 2 + 4 + 1 + 4 = 11.
    let x = [0.5, 1.5, 1.5, 0.5];
    assert_eq!(makespan.evaluate(&x), 6.0);
    assert_eq!(paper.evaluate(&x), 0.75 * 6.0 + 0.25 * 5.5);
    let error = EtcProblem::with_objective(
        four_by_two(),
        EtcObjective::PaperFitness { lambda: f64::NAN },
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "EtcProblem: lambda must be in [0, 1], got NaN"
    );
}

proptest! {
    /// The GPU kernels evaluate the makespan objective as the paper's formula at λ = 1: it must be the
    /// makespan's bits (see `EtcObjective`).
    #[test]
    fn the_formula_at_lambda_one_has_the_makespan_bits(
        seed in any::<u64>(),
        tasks in 1usize..64,
        machines in 1usize..20,
    ) {
        let class = EtcClass::all()[(seed % 12) as usize];
        let instance = EtcInstance::generate(class, tasks, machines, seed).unwrap();
        let schedule: Vec<u32> = (0..tasks)
            .map(|t| ((seed >> (t % 48)) as usize + t * 7) as u32 % machines as u32)
            .collect();
        let objectives = instance.objectives(&schedule).unwrap();
        let value = EtcObjective::Makespan.value(&objectives, machines);
        prop_assert_eq!(value.to_bits(), objectives.makespan.to_bits());
        prop_assert_eq!(value.to_bits(), objectives.fitness(1.0, machines).to_bits());
    }
}

fn hcsp_dir(test: &str) -> Option<PathBuf> {
    shared_data_dir_or_skip(test).map(|d| d.join("hcsp-512x16"))
}

/// The 12 instances of `hcsp-512x16`.
const INSTANCES: [&str; 12] = [
    "u_c_hihi.0",
    "u_c_hilo.0",
    "u_c_lohi.0",
    "u_c_lolo.0",
    "u_i_hihi.0",
    "u_i_hilo.0",
    "u_i_lohi.0",
    "u_i_lolo.0",
    "u_s_hihi.0",
    "u_s_hilo.0",
    "u_s_lohi.0",
    "u_s_lolo.0",
];

/// The makespan of `schedule` summed in task order, independently of the pairwise tree.
fn plain_makespan(instance: &EtcInstance, schedule: &[u32]) -> f64 {
    let mut loads = vec![0.0f64; instance.machines()];
    for (t, &j) in schedule.iter().enumerate() {
        loads[j as usize] += f64::from(instance.time(t, j as usize));
    }
    loads.into_iter().fold(0.0, f64::max)
}

#[test]
fn the_best_known_schedules_have_their_recomputed_makespans() {
    let Some(dir) = hcsp_dir("the_best_known_schedules_have_their_recomputed_makespans") else {
        return;
    };
    let mut files = 0;
    for name in INSTANCES {
        let instance = EtcInstance::from_file(dir.join(name)).unwrap();
        let known = instance.known_schedules(&dir).unwrap();
        assert_eq!(known.len(), 2, "{name}: {known:?}");
        for schedule in &known {
            let plain = plain_makespan(&instance, &schedule.schedule);
            assert!(
                (schedule.makespan - plain).abs() <= 1e-9 * plain,
                "{}: {} against {plain}",
                schedule.file.display(),
                schedule.makespan
            );
            assert!((schedule.makespan - schedule.stated_makespan).abs() <= 0.1);
            files += 1;
        }
        let best = instance.best_known(&dir).unwrap();
        assert_eq!(best, known[0]);
        assert!(best.makespan <= known[1].makespan);
        // The constructive heuristics stay above the best known schedule on every instance.
        assert!(min_min(&instance).makespan > best.makespan, "{name}");
        let sufferage = sufferage(&instance);
        assert!(sufferage.makespan > best.makespan, "{name}");
        let objectives = instance.objectives(&sufferage.schedule).unwrap();
        assert!((objectives.makespan - sufferage.makespan).abs() <= 1e-9 * sufferage.makespan);
    }
    assert_eq!(files, 24);
}

/// A fresh folder in the temp folder, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("evo-known-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn schedule_files_are_matched_named_and_checked() {
    let dir = TempDir::new("files");
    let instance = four_by_two();
    let write = |file: &str, text: &str| std::fs::write(dir.0.join(file), text).unwrap();
    // Sufferage's schedule (makespan 6) and Min-Min's (8), with and without a method label.
    write("four-by-two_CPR_6,0.sol", "0 1 1 0\n");
    write("four-by-two_8.sol", "0\n0\n1\n1\n");
    write("other_MS_1,0.sol", "9 9\n");
    write("four-by-two.sol.txt", "not a schedule");
    let known = instance.known_schedules(&dir.0).unwrap();
    assert_eq!(known.len(), 2);
    assert_eq!(known[0].method.as_deref(), Some("CPR"));
    assert_eq!((known[0].stated_makespan, known[0].makespan), (6.0, 6.0));
    assert_eq!(known[1].method, None);
    assert_eq!(known[1].makespan, 8.0);
    assert_eq!(
        instance.best_known(&dir.0).unwrap().schedule,
        vec![0, 1, 1, 0]
    );

    write("four-by-two_MS_5,8.sol", "0 1 1 0\n");
    let error = instance.known_schedules(&dir.0).unwrap_err().to_string();
    assert!(
        error.ends_with("expected a schedule of makespan 5.8 on four-by-two (its name's, to 0.1), found makespan 6"),
        "{error}"
    );
    std::fs::remove_file(dir.0.join("four-by-two_MS_5,8.sol")).unwrap();
    write("four-by-two_MS_6,x.sol", "0 1 1 0\n");
    let error = instance.known_schedules(&dir.0).unwrap_err().to_string();
    assert!(
        error.contains("expected a name `four-by-two_[METHOD_]<makespan>.sol`"),
        "{error}"
    );
    std::fs::remove_file(dir.0.join("four-by-two_MS_6,x.sol")).unwrap();
    write("four-by-two_MS_6.sol", "0 1 2 0\n");
    let error = instance.known_schedules(&dir.0).unwrap_err().to_string();
    assert!(
        error.contains("expected a machine index in 0..2, found `2`"),
        "{error}"
    );

    let empty = TempDir::new("empty");
    let error = instance.best_known(&empty.0).unwrap_err().to_string();
    assert!(
        error.contains("no schedule file `four-by-two_[METHOD_]<makespan>.sol`"),
        "{error}"
    );
    let missing = empty.0.join("absent");
    assert!(matches!(
        instance.known_schedules(&missing),
        Err(evo_core::Error::Io { .. })
    ));
}
