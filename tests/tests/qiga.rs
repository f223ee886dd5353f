//! evo-qiga on the GPU equals evo-qiga on the CPU bit for bit: snapshots at every generation for 500
//! generations on knapsack-250, one run and a batch of 100 runs with different angles (`suite::qiga`), at two
//! block sizes.

use evo_equivalence::equivalence_test;
use evo_equivalence::suite::qiga::run_at;

equivalence_test!(qiga_runs_should_match_cpu, [128, 256], |gpu, block| {
    for report in run_at(gpu, block) {
        report.assert_passed();
    }
});

equivalence_test!(qiga_meta_on_gpus_should_match_cpu, [256], |gpu, block| {
    evo_equivalence::suite::qiga::check_meta(gpu, block).assert_passed();
});

equivalence_test!(sga_runs_should_match_cpu, [128], |gpu, _block| {
    evo_equivalence::suite::qiga::check_sga(gpu).assert_passed();
});

equivalence_test!(
    qiga_restore_across_backends_should_match_cpu,
    [256],
    |gpu, _block| {
        evo_equivalence::suite::qiga::check_restore_across_backends(gpu).assert_passed();
    }
);
