//! evo-rng on the GPU equals evo-rng on the CPU bit for bit: every generator and every conversion, over the
//! grids of `suite::rng` (more than 10^8 draws per block size), at two block sizes.

use evo_equivalence::equivalence_test;
use evo_equivalence::suite::rng::{
    ADDRESSED_DRAWS, ADDRESSES, PAPER_DRAWS_PER_THREAD, PAPER_GRID, PAPER_THREADS, check_addressed,
    check_curand_philox, check_xor128, check_xorwow,
};
use evo_rng::cuda::DeviceJumpTables;

equivalence_test!(philox_fills_should_match_cpu, [128, 256], |gpu, block| {
    for address in ADDRESSES {
        for report in check_addressed(gpu, address, ADDRESSED_DRAWS, block) {
            report.assert_passed();
        }
    }
});

equivalence_test!(xor128_fills_should_match_cpu, [128, 256], |gpu, block| {
    for seed in [0, 42, u64::MAX] {
        for report in check_xor128(gpu, seed, PAPER_THREADS, PAPER_DRAWS_PER_THREAD, block) {
            report.assert_passed();
        }
    }
});

equivalence_test!(
    curand_xorwow_fills_should_match_cpu,
    [128, 256],
    |gpu, block| {
        let tables = DeviceJumpTables::upload(gpu).unwrap();
        for point in PAPER_GRID {
            for report in check_xorwow(
                gpu,
                &tables,
                point,
                PAPER_THREADS,
                PAPER_DRAWS_PER_THREAD,
                block,
            ) {
                report.assert_passed();
            }
        }
    }
);

equivalence_test!(
    curand_philox_fills_should_match_cpu,
    [128, 256],
    |gpu, block| {
        for point in PAPER_GRID {
            for report in
                check_curand_philox(gpu, point, PAPER_THREADS, PAPER_DRAWS_PER_THREAD, block)
            {
                report.assert_passed();
            }
        }
    }
);
