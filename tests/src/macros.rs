//! `equivalence_test!`: write a check once, get one `#[test]` per engine pair.

/// Declares a module of `#[test]`s, one per block size of the GPU side (the engine pairs CPU × CUDA@block),
/// each behind the GPU gate. The body receives `gpu: &Gpu` and `block: u32`.
///
/// ```text
/// equivalence_test!(reduce_sum_should_match_cpu, [128, 256], |gpu, block| {
///     check_sum_f64(gpu, 1000, block).assert_passed();
/// });
/// ```
/// expands to `reduce_sum_should_match_cpu::cpu_vs_cuda_block_128` and `..._block_256`.
#[macro_export]
macro_rules! equivalence_test {
    ($name:ident, [$($block:tt),+ $(,)?], |$gpu:ident, $blk:ident| $body:block) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn check($gpu: &$crate::Gpu, $blk: u32) $body

            $crate::paste_block_tests!($name, check, $($block),+);
        }
    };
}

/// Helper of [`equivalence_test!`]: one `#[test]` per block size (names spelled out because macro_rules
/// cannot concatenate identifiers).
#[doc(hidden)]
#[macro_export]
macro_rules! paste_block_tests {
    ($name:ident, $check:ident, $($block:tt),+) => {
        $(
            $crate::block_test!($name, $check, $block);
        )+
    };
}

/// Helper of [`equivalence_test!`] for one block size.
#[doc(hidden)]
#[macro_export]
macro_rules! block_test {
    ($name:ident, $check:ident, 32) => { $crate::block_test!(@emit $name, $check, 32, cpu_vs_cuda_block_32); };
    ($name:ident, $check:ident, 64) => { $crate::block_test!(@emit $name, $check, 64, cpu_vs_cuda_block_64); };
    ($name:ident, $check:ident, 128) => { $crate::block_test!(@emit $name, $check, 128, cpu_vs_cuda_block_128); };
    ($name:ident, $check:ident, 256) => { $crate::block_test!(@emit $name, $check, 256, cpu_vs_cuda_block_256); };
    ($name:ident, $check:ident, 512) => { $crate::block_test!(@emit $name, $check, 512, cpu_vs_cuda_block_512); };
    ($name:ident, $check:ident, 1024) => { $crate::block_test!(@emit $name, $check, 1024, cpu_vs_cuda_block_1024); };
    (@emit $name:ident, $check:ident, $block:literal, $test:ident) => {
        #[test]
        fn $test() {
            let test = concat!(stringify!($name), "::", stringify!($test));
            if let Some(gpu) = $crate::gate::gpu_or_skip(test) {
                $check(&gpu, $block);
            }
        }
    };
}
