//! Range copies of a device buffer on a real GPU: a read of part of a buffer gives those elements, a write
//! changes those elements and no other, and a range past the end is refused before any copy. Skips
//! (printing SKIPPED) without a GPU; fails instead under `EVO_REQUIRE_GPU=1`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[test]
fn range_copies_should_move_only_their_elements() {
    let Some(gpu) = common::gpu_or_skip("range_copies_should_move_only_their_elements") else {
        return;
    };
    let values: Vec<f64> = (0..10).map(f64::from).collect();
    let mut buffer = gpu.upload(&values).unwrap();

    let mut middle = [0.0f64; 3];
    buffer.copy_range_to_host(4, &mut middle).unwrap();
    assert_eq!(middle, [4.0, 5.0, 6.0]);

    buffer.copy_range_from_host(7, &[-1.0, -2.0, -3.0]).unwrap();
    let expected = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, -2.0, -3.0];
    assert_eq!(buffer.to_vec().unwrap(), expected);

    buffer.copy_range_from_host(10, &[]).unwrap();
    let past_the_end = buffer
        .copy_range_from_host(8, &[9.0; 3])
        .unwrap_err()
        .to_string();
    assert!(
        past_the_end.contains("within the buffer's 10 elements"),
        "{past_the_end}"
    );
    let mut four = [0.0f64; 4];
    assert!(buffer.copy_range_to_host(7, &mut four).is_err());
    assert_eq!(
        buffer.to_vec().unwrap(),
        expected,
        "a refused copy changed nothing"
    );
}
