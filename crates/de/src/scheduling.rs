//! DE on the ETC scheduling problem of evo-benchmarks: the encoding of a schedule as a DE vector, used to
//! seed the initial population with the Min-Min schedule.

use evo_benchmarks::scheduling::{EtcProblem, min_min};

/// The vector whose truncation is `schedule`: machine `j` becomes `j + 0.5`, the middle of its interval
/// `[j, j + 1)`, so a small DE step keeps the task on its machine.
pub fn encode_schedule(schedule: &[u32]) -> Vec<f32> {
    schedule.iter().map(|&j| j as f32 + 0.5).collect()
}

/// The Min-Min schedule of `problem`'s instance as a DE vector, for
/// [`DeCpu::with_initial_vectors`](crate::DeCpu::with_initial_vectors) and its CUDA twin.
pub fn min_min_vector(problem: &EtcProblem) -> Vec<f32> {
    encode_schedule(&min_min(problem.instance()).schedule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use evo_benchmarks::scheduling::{EtcClass, EtcInstance};
    use evo_core::ContinuousProblem;

    #[test]
    fn the_encoding_decodes_to_the_schedule() {
        let instance = EtcInstance::generate(EtcClass::all()[4], 40, 16, 1).unwrap();
        let problem = EtcProblem::new(instance, 0.75).unwrap();
        let schedule = min_min(problem.instance()).schedule;
        let vector = min_min_vector(&problem);
        assert_eq!(problem.schedule_of(&vector), schedule);
        let fitness = problem.instance().fitness(&schedule, 0.75).unwrap();
        assert_eq!(problem.evaluate(&vector).to_bits(), fitness.to_bits());
    }
}
