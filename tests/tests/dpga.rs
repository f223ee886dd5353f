//! evo-dpga on the GPU equals evo-dpga on the CPU bit for bit (`suite::dpga`): snapshots at every generation
//! for 300 generations on g01, g04 and g07 under MCSM and Deb's rules; a batch of runs against separate CPU
//! runs; snapshots moved between the backends and into a batch of another seed. Two block sizes.
//! `dpga_short_run_should_match_cpu` is the short case for compute-sanitizer (seconds under racecheck).

use evo_dpga::ConstraintHandling;
use evo_equivalence::equivalence_test;
use evo_equivalence::suite::dpga::{
    GENERATIONS, check_batch_restore, check_batches, check_restore_across_backends, check_short,
    check_single,
};

equivalence_test!(dpga_g01_should_match_cpu, [128, 256], |gpu, block| {
    check_single(gpu, 1, ConstraintHandling::Mcsm, GENERATIONS, block).assert_passed();
    check_single(gpu, 1, ConstraintHandling::Deb, GENERATIONS, block).assert_passed();
});

equivalence_test!(dpga_g04_should_match_cpu, [128, 256], |gpu, block| {
    check_single(gpu, 4, ConstraintHandling::Mcsm, GENERATIONS, block).assert_passed();
    check_single(gpu, 4, ConstraintHandling::Deb, GENERATIONS, block).assert_passed();
});

equivalence_test!(dpga_g07_should_match_cpu, [128, 256], |gpu, block| {
    check_single(gpu, 7, ConstraintHandling::Mcsm, GENERATIONS, block).assert_passed();
    check_single(gpu, 7, ConstraintHandling::Deb, GENERATIONS, block).assert_passed();
});

equivalence_test!(
    dpga_batch_should_match_separate_cpu_runs,
    [128, 256],
    |gpu, block| {
        for report in check_batches(gpu, block) {
            report.assert_passed();
        }
    }
);

equivalence_test!(
    dpga_restore_across_backends_should_match_cpu,
    [128],
    |gpu, _block| {
        check_restore_across_backends(gpu).assert_passed();
    }
);

equivalence_test!(
    dpga_batch_restore_should_match_cpu,
    [128, 256],
    |gpu, block| {
        check_batch_restore(gpu, block).assert_passed();
    }
);

equivalence_test!(dpga_short_run_should_match_cpu, [128], |gpu, block| {
    for report in check_short(gpu, block) {
        report.assert_passed();
    }
});
