//! # evo-sort (planned)
//!
//! This crate will hold population sorting and selection with CPU twins: the GA paper's bitonic sort of
//! `(fitness, index)` pairs in shared memory, batched segmented sorts, ranking and top-k, all under the
//! workspace's total order (value by `total_cmp`, then lower index).
//!
//! Nothing is implemented yet; the work is tracked in the issue "evo-sort: population sorting and selection".
