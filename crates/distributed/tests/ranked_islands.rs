//! The island model over ranks, with ranks as threads that exchange bytes over channels (the same
//! contract as MPI's, without MPI): the one-process model's result on any number of ranks, checkpoints
//! that resume on another number of ranks or in one process, a lost rank named within the deadline,
//! ranks that build different runs refused, and ranks on one GPU each (skipped without a GPU, failing
//! under `EVO_REQUIRE_GPU=1`) equal to the one-process CPU model.

#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{SEED, assert_same_report, de_params, devices_or_skip, problem};
use evo_core::{Checkpointing, Engine, Error, Executor, Report, Result, Termination};
use evo_distributed::{IslandParams, NodeRank, Placement, RankPlacement, RankShare, Ranks, de};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

/// A rank of a run whose ranks are threads: messages go over one channel per receiving rank, tagged with
/// the sender, and messages that arrive before they are wanted wait in a queue per sender.
struct ThreadRanks {
    rank: usize,
    outboxes: Vec<Sender<(usize, Vec<u8>)>>,
    inbox: Receiver<(usize, Vec<u8>)>,
    early: RefCell<Vec<VecDeque<Vec<u8>>>>,
    timeout: Duration,
}

/// `size` connected ranks with `timeout` for every exchange.
fn thread_ranks(size: usize, timeout: Duration) -> Vec<ThreadRanks> {
    let (outboxes, inboxes): (Vec<_>, Vec<_>) = (0..size).map(|_| channel()).unzip();
    inboxes
        .into_iter()
        .enumerate()
        .map(|(rank, inbox)| ThreadRanks {
            rank,
            outboxes: outboxes.clone(),
            inbox,
            early: RefCell::new(vec![VecDeque::new(); size]),
            timeout,
        })
        .collect()
}

impl Ranks for ThreadRanks {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.outboxes.len()
    }

    fn all_gather(&self, bytes: Vec<u8>, exchange: &str) -> Result<Vec<Vec<u8>>> {
        let deadline = Instant::now() + self.timeout;
        for (peer, outbox) in self.outboxes.iter().enumerate() {
            if peer != self.rank {
                // A peer that is gone no longer reads; the deadline below names it.
                let _ = outbox.send((self.rank, bytes.clone()));
            }
        }
        let mut early = self.early.borrow_mut();
        let mut gathered = Vec::with_capacity(self.size());
        for peer in 0..self.size() {
            if peer == self.rank {
                gathered.push(bytes.clone());
                continue;
            }
            while early[peer].is_empty() {
                let left = deadline.saturating_duration_since(Instant::now());
                match self.inbox.recv_timeout(left) {
                    Ok((from, message)) => early[from].push_back(message),
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                        return Err(Error::RankFailed {
                            rank: peer,
                            exchange: exchange.to_string(),
                            reason: format!("it sent nothing within {:?}", self.timeout),
                        });
                    }
                }
            }
            gathered.extend(early[peer].pop_front());
        }
        Ok(gathered)
    }
}

/// K = 5 islands, migration every 5 generations, 3 migrants: blocks of uneven sizes on 2 and 3 ranks.
fn island_params() -> IslandParams {
    IslandParams::default()
        .with_islands(5)
        .unwrap()
        .with_migration_interval(5)
        .unwrap()
        .with_migrants(3)
        .unwrap()
}

/// The executor every rank runs: `generations`, a history point every step (one-step batches on every
/// rank), and checkpoints to `dir/rank<r>.ckpt` every 5 steps resumed from rank 0's file when `resume`.
fn executor<E: Engine>(
    model: E,
    generations: u64,
    checkpoints: Option<(&Path, usize, bool)>,
) -> Result<Executor<E>> {
    let mut executor = Executor::new(model)
        .with_termination(Termination::new().with_max_generations(generations))?
        .with_history_every(1)?;
    if let Some((dir, rank, resume)) = checkpoints {
        let path = |r: usize| dir.join(format!("rank{r}.ckpt"));
        executor = executor
            .with_checkpointing(Checkpointing::new(path(rank), 5)?.with_last_good_snapshot(false));
        if resume {
            executor = executor.resume_from(path(0))?;
        }
    }
    Ok(executor)
}

/// Runs the DE model on `size` thread ranks, rank `r` with the seed and placement text `setup(r)`; every rank's
/// outcome, in rank order. `exit_after_start` ranks return right after building their model, as a crashed
/// process would.
fn on_ranks(
    size: usize,
    generations: u64,
    checkpoints: Option<(&Path, bool)>,
    exit_after_start: Option<usize>,
    setup: impl Fn(usize) -> (u64, String) + Sync,
) -> Vec<Result<Report<Vec<f32>>>> {
    on_ranks_within(
        Duration::from_millis(500),
        size,
        generations,
        checkpoints,
        exit_after_start,
        setup,
    )
}

/// [`on_ranks`] with `timeout` for every exchange.
fn on_ranks_within(
    timeout: Duration,
    size: usize,
    generations: u64,
    checkpoints: Option<(&Path, bool)>,
    exit_after_start: Option<usize>,
    setup: impl Fn(usize) -> (u64, String) + Sync,
) -> Vec<Result<Report<Vec<f32>>>> {
    std::thread::scope(|scope| {
        let handles: Vec<_> = thread_ranks(size, timeout)
            .into_iter()
            .map(|ranks| {
                let setup = &setup;
                scope.spawn(move || {
                    let rank = ranks.rank();
                    let (seed, placement) = setup(rank);
                    let placement: Placement = placement.parse()?;
                    let model = de::ranked_islands(
                        &de_params(),
                        &problem(),
                        seed,
                        island_params(),
                        placement,
                        ranks,
                    )?;
                    if exit_after_start == Some(rank) {
                        return Err(Error::invalid_parameter("test", "rank", rank, "crashed"));
                    }
                    let checkpoints = checkpoints.map(|(dir, resume)| (dir, rank, resume));
                    let report = executor(model, generations, checkpoints)?.run()?;
                    Ok(report.without_wall_times())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// The one-process model's report after `generations`.
fn one_process(generations: u64) -> Report<Vec<f32>> {
    let model = de::islands(
        &de_params(),
        &problem(),
        SEED,
        island_params(),
        "cpu:1".parse().unwrap(),
    )
    .unwrap();
    executor(model, generations, None)
        .unwrap()
        .run()
        .unwrap()
        .without_wall_times()
}

#[test]
fn ranked_islands_on_one_to_five_ranks_should_match_the_one_process_model() {
    // 23 generations: 4 migrations, and a stretch after the last one.
    let one = one_process(23);
    for size in 1..=5 {
        for (rank, report) in on_ranks(size, 23, None, None, |_| (SEED, "cpu:1".into()))
            .into_iter()
            .enumerate()
        {
            assert_same_report(&format!("rank {rank} of {size}"), &one, &report.unwrap());
        }
    }
}

/// Ranks on one GPU each, as `mpiexec` would start them on this machine (node-local rank `r` of the ranks,
/// `RankShare::LocalGpu` from `cuda:0`), give the one-process CPU model's report bit for bit. Skips without
/// a GPU; fails under `EVO_REQUIRE_GPU=1` when it breaks.
#[test]
fn ranks_on_one_gpu_each_should_match_the_one_process_cpu_model() {
    let Some(devices) =
        devices_or_skip("ranks_on_one_gpu_each_should_match_the_one_process_cpu_model")
    else {
        return;
    };
    let one = one_process(23);
    let local = RankPlacement::new("cuda:0".parse().unwrap(), RankShare::LocalGpu).unwrap();
    for size in 1..=devices.min(island_params().islands()) {
        let placement = |rank: usize| {
            let node = NodeRank::new(rank, size).unwrap();
            let placement = local.for_rank(node, devices).unwrap();
            assert_eq!(placement.to_string(), format!("cuda:{rank}"));
            (SEED, placement.to_string())
        };
        // A GPU rank compiles its kernels before the first exchange: a deadline of minutes, not 500 ms.
        let outcomes = on_ranks_within(Duration::from_secs(300), size, 23, None, None, placement);
        for (rank, report) in outcomes.into_iter().enumerate() {
            assert_same_report(
                &format!("rank {rank} of {size} on GPU {rank}"),
                &one,
                &report.unwrap(),
            );
        }
    }
    // One rank more than GPUs cannot have a GPU each: every rank is refused.
    for rank in 0..=devices {
        let error = local
            .for_rank(NodeRank::new(rank, devices + 1).unwrap(), devices)
            .unwrap_err();
        assert!(error.to_string().contains("ranks on this node"), "{error}");
    }
}

#[test]
fn a_checkpoint_of_three_ranks_should_resume_on_two_ranks_and_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    for report in on_ranks(3, 12, Some((dir.path(), false)), None, |_| {
        (SEED, "cpu:1".into())
    }) {
        report.unwrap();
    }
    let uninterrupted = one_process(31);
    for report in on_ranks(2, 31, Some((dir.path(), true)), None, |_| {
        (SEED, "cpu:1".into())
    }) {
        assert_same_report("resumed on 2 ranks", &uninterrupted, &report.unwrap());
    }
    // Rank 1's file holds the whole run too, and the one-process model resumes it: at generation 31 now.
    let model = de::islands(
        &de_params(),
        &problem(),
        SEED,
        island_params(),
        "cpu:2".parse().unwrap(),
    )
    .unwrap();
    let mut resumed = executor(model, 40, None)
        .unwrap()
        .resume_from(dir.path().join("rank1.ckpt"))
        .unwrap();
    assert_eq!(resumed.engine().progress().generation, 31);
    let report = resumed.run().unwrap().without_wall_times();
    assert_same_report("resumed in one process", &one_process(40), &report);
}

#[test]
fn a_rank_that_dies_should_be_named_by_the_others_within_the_deadline() {
    let start = Instant::now();
    let outcomes = on_ranks(3, 20, None, Some(1), |_| (SEED, "cpu:1".into()));
    assert!(start.elapsed() < Duration::from_secs(30));
    for rank in [0, 2] {
        match &outcomes[rank] {
            Err(Error::RankFailed {
                rank: 1, exchange, ..
            }) => assert_eq!(
                exchange, "progress exchange after generation 1",
                "rank {rank}"
            ),
            other => panic!("rank {rank}: {other:?}"),
        }
    }
    let message = outcomes[0].as_ref().unwrap_err().to_string();
    assert!(
        message.starts_with("rank 1 failed during the progress exchange after generation 1: it sent nothing within 500ms"),
        "{message}"
    );
}

#[test]
fn ranks_that_build_different_runs_should_be_refused_naming_the_odd_one() {
    let outcomes = on_ranks(3, 5, None, None, |rank| {
        (if rank == 2 { SEED + 1 } else { SEED }, "cpu:1".into())
    });
    for outcome in &outcomes {
        let message = outcome.as_ref().unwrap_err().to_string();
        assert!(
            message.starts_with("rank 2 failed during the start of the run (generation 0): its run fingerprint differs from rank 0's"),
            "{message}"
        );
    }
}

#[test]
fn a_rank_whose_islands_cannot_be_built_should_stop_every_rank_with_its_error() {
    // Rank 1 owns islands 1 and 2 of 5 on 3 ranks: three backends are one too many.
    let outcomes = on_ranks(3, 5, None, None, |rank| {
        (
            SEED,
            if rank == 1 {
                "cpu:1,cpu:1,cpu:1".into()
            } else {
                "cpu:2".into()
            },
        )
    });
    let own = outcomes[1].as_ref().unwrap_err().to_string();
    assert!(
        own.contains("placement must be at most the island count K = 2"),
        "{own}"
    );
    for rank in [0, 2] {
        let message = outcomes[rank].as_ref().unwrap_err().to_string();
        assert_eq!(
            message,
            format!(
                "rank 1 failed during the start of the run (generation 0): its part failed: {own}"
            ),
            "rank {rank}"
        );
    }
}

#[test]
fn more_ranks_than_islands_should_be_refused() {
    let outcomes = on_ranks(6, 5, None, None, |_| (SEED, "cpu:1".into()));
    for outcome in outcomes {
        let message = outcome.unwrap_err().to_string();
        assert!(
            message.contains("rank count R must be in 1 ..= K = 5"),
            "{message}"
        );
    }
}

#[test]
fn a_snapshot_one_rank_refuses_should_leave_every_rank_as_it_was() {
    std::thread::scope(|scope| {
        let handles: Vec<_> = thread_ranks(3, Duration::from_secs(5))
            .into_iter()
            .map(|ranks| {
                scope.spawn(move || {
                    let rank = ranks.rank();
                    let mut model = de::ranked_islands(
                        &de_params(),
                        &problem(),
                        SEED,
                        island_params(),
                        "cpu:1".parse().unwrap(),
                        ranks,
                    )
                    .unwrap();
                    model.step_many(7).unwrap();
                    let before = model.snapshot().unwrap();
                    // Island 1 (rank 1's) loses a fitness value, so only rank 1 refuses the snapshot;
                    // islands 0 and 3 (ranks 0 and 2) get valid but other vectors, which they would keep
                    // without the rollback.
                    let mut bad = before.clone();
                    bad.islands[1].fitness.pop();
                    bad.islands[0].population[0] += 1.0;
                    bad.islands[3].population[0] += 1.0;
                    let error = model.restore(&bad).unwrap_err();
                    match (rank, &error) {
                        (1, Error::RankFailed { .. }) => panic!("rank 1 names itself: {error}"),
                        (1, _) => {}
                        (_, Error::RankFailed { rank: 1, .. }) => {}
                        _ => panic!("rank {rank}: {error}"),
                    }
                    assert_eq!(model.progress().generation, 7, "rank {rank}");
                    assert_eq!(model.snapshot().unwrap(), before, "rank {rank}");
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
    });
}
