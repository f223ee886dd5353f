//! What the islands suite times in one configuration ([`Run`]): the island model as a user runs it, the
//! same model with migration off (stepped as with migration, or in one go), and the model's own engines
//! driven without the model, so that the rows tell the model's costs apart.

use evo_benchmarks::DeRastrigin;
use evo_core::Engine;
use evo_de::{DeParams, DeSnapshot};
use evo_distributed::{
    IslandEngine, IslandModel, IslandParams, IslandSite, Placement, de, island_seed,
};
use evo_sort::SortKey;

/// A migration interval no configuration reaches (`step_many` counts generations in `u64`), so that the
/// model never migrates: the model's other parameters stay legitimate, and nothing else changes.
const NEVER: u64 = u64::MAX;

/// What a configuration times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Run {
    /// The island model with migration every `m` generations, `step_many(G)` per sample: the suite's
    /// headline rows.
    Model,
    /// The model without migration, stepped `m` generations at a time: its host threads are still spawned
    /// and joined every `m` generations, and each island still reads its best back every `m`, but no
    /// migrant travels. Against [`Run::Model`]: what the migrations cost.
    Joins,
    /// The model without migration in one `step_many(G)`: one spawn and join per sample, and one read-back
    /// per island. The model's best case.
    NoMigration,
    /// The model's engines without the model: one host thread per device, spawned once per sample, each
    /// stepping its device's islands `m` generations at a time in the model's order, each island read back
    /// after its own stretch. Against [`Run::Joins`]: what the model's spawn and join every `m` generations
    /// cost, against one read-back per island and stretch (the model queues a device's islands and waits
    /// once); on `n` devices against
    /// one: what the host threads of one process cost each other (the driver's launch path, host memory,
    /// cores) with no model at all.
    Engines,
}

impl Run {
    /// Every run, in the order each configuration measures them.
    pub(super) const ALL: [Run; 4] = [Run::Model, Run::Joins, Run::NoMigration, Run::Engines];

    /// The run's name in tables, with the migration interval `m`.
    pub(super) fn name(self, interval: u64) -> String {
        match self {
            Run::Model => format!("model (m = {interval})"),
            Run::Joins => format!("no migration, joins every {interval}"),
            Run::NoMigration => "no migration, one join".to_string(),
            Run::Engines => format!("engines alone, steps of {interval}"),
        }
    }

    /// Whether its islands migrate: runs that do not all end with the same bits as each other, whatever
    /// the devices.
    pub(super) fn migrates(self) -> bool {
        self == Run::Model
    }

    /// Whether it runs the island model (otherwise the engines alone).
    pub(super) fn is_model(self) -> bool {
        self != Run::Engines
    }
}

/// The islands of one configuration, built and ready to be timed.
pub(super) enum Subject {
    /// An island model, stepped `chunk` generations per `step_many` call.
    Model {
        model: IslandModel<'static, Vec<f32>, DeSnapshot>,
        chunk: Option<u64>,
    },
    /// The engines alone: island `i` on device `i mod devices`, stepped `chunk` at a time.
    Engines {
        engines: Vec<IslandEngine<'static, Vec<f32>, DeSnapshot>>,
        devices: usize,
        chunk: u64,
    },
}

impl Subject {
    /// `run`'s islands: `islands` DE islands of `de` on `problem` from `seed`, on `placement`, migrating
    /// every `interval` generations when the run migrates.
    pub(super) fn new(
        run: Run,
        de: &DeParams,
        problem: &DeRastrigin,
        seed: u64,
        (islands, interval): (usize, u64),
        placement: Placement,
    ) -> evo_core::Result<Self> {
        let model = |migration_interval: u64| {
            let params = IslandParams::default()
                .with_islands(islands)?
                .with_migration_interval(migration_interval)?;
            de::islands(de, problem, seed, params, placement.clone())
        };
        Ok(match run {
            Run::Model => Subject::Model {
                model: model(interval)?,
                chunk: None,
            },
            Run::Joins => Subject::Model {
                model: model(NEVER)?,
                chunk: Some(interval),
            },
            Run::NoMigration => Subject::Model {
                model: model(NEVER)?,
                chunk: None,
            },
            Run::Engines => Subject::Engines {
                engines: (0..islands)
                    .map(|index| {
                        de::island(
                            de,
                            problem,
                            IslandSite {
                                index,
                                seed: island_seed(seed, index),
                                backend: placement.backend_of(index),
                            },
                        )
                    })
                    .collect::<evo_core::Result<_>>()?,
                devices: placement.len(),
                chunk: interval,
            },
        })
    }

    /// Advances every island by `generations` as the run does.
    pub(super) fn advance(&mut self, generations: u64) -> evo_core::Result<()> {
        match self {
            Subject::Model { model, chunk: None } => model.step_many(generations),
            Subject::Model {
                model,
                chunk: Some(chunk),
            } => {
                let mut left = generations;
                while left > 0 {
                    let step = left.min(*chunk);
                    model.step_many(step)?;
                    left -= step;
                }
                Ok(())
            }
            Subject::Engines {
                engines,
                devices,
                chunk,
            } => drive(engines, *devices, generations, *chunk),
        }
    }

    /// The generations done so far.
    pub(super) fn generation(&self) -> u64 {
        match self {
            Subject::Model { model, .. } => model.progress().generation,
            Subject::Engines { engines, .. } => engines
                .first()
                .map_or(0, |island| island.progress().generation),
        }
    }

    /// The best vector and fitness: the model's, or for the engines alone the model's rule (the island
    /// with the best fitness, ties to the lower index).
    pub(super) fn best(&self) -> evo_core::Result<(Vec<f32>, f64)> {
        match self {
            Subject::Model { model, .. } => model.best(),
            Subject::Engines { engines, .. } => {
                let best = (0..engines.len())
                    .min_by_key(|&i| (engines[i].progress().best_fitness.order_key(), i))
                    .unwrap_or(0);
                engines[best].best()
            }
        }
    }
}

/// Steps `engines` by `generations`, `chunk` at a time: island `i` on host thread `i mod devices` (the
/// calling thread when there is one device, as the model does), each thread taking its islands in index
/// order for every chunk, with no join until the end. Returns the error of the lowest-numbered thread that
/// failed.
fn drive(
    engines: &mut [IslandEngine<'static, Vec<f32>, DeSnapshot>],
    devices: usize,
    generations: u64,
    chunk: u64,
) -> evo_core::Result<()> {
    let step = |group: &mut [&mut IslandEngine<'static, Vec<f32>, DeSnapshot>]| {
        let mut left = generations;
        while left > 0 {
            let generations = left.min(chunk);
            for island in group.iter_mut() {
                island.step_many(generations)?;
            }
            left -= generations;
        }
        Ok(())
    };
    let mut groups: Vec<Vec<&mut IslandEngine<'static, Vec<f32>, DeSnapshot>>> =
        (0..devices.max(1)).map(|_| Vec::new()).collect();
    let count = groups.len();
    for (i, island) in engines.iter_mut().enumerate() {
        groups[i % count].push(island);
    }
    if let [group] = groups.as_mut_slice() {
        return step(group);
    }
    let step = &step;
    std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|mut group| scope.spawn(move || step(&mut group)))
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
            })
            .collect::<Vec<evo_core::Result<()>>>()
    })
    .into_iter()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four DE islands of 8 × 4 on `cpu:1 × devices`, `run`'s subject, advanced by `generations`.
    fn advanced(run: Run, devices: usize, generations: u64) -> Subject {
        let de = DeParams::default().with_population(8).expect("population");
        let problem = DeRastrigin::new(4).expect("problem");
        let placement = Placement::new(vec![evo_core::Backend::Cpu { threads: 1 }; devices])
            .expect("placement");
        let mut subject = Subject::new(run, &de, &problem, 7, (4, 5), placement).expect("subject");
        subject.advance(generations).expect("advanced");
        assert_eq!(subject.generation(), generations, "{run:?}");
        subject
    }

    #[test]
    fn runs_without_migration_end_alike_and_the_model_with_it_differs() {
        let reference = advanced(Run::NoMigration, 1, 30).best().expect("best");
        for (run, devices) in [
            (Run::Joins, 1),
            (Run::Joins, 2),
            (Run::NoMigration, 2),
            (Run::Engines, 1),
            (Run::Engines, 2),
            (Run::Engines, 3),
        ] {
            let best = advanced(run, devices, 30).best().expect("best");
            assert_eq!(best.0, reference.0, "{run:?} on {devices}");
            assert_eq!(
                best.1.to_bits(),
                reference.1.to_bits(),
                "{run:?} on {devices}"
            );
        }
        // Six migrations change the islands, so the check above compares runs that could differ.
        let migrated = advanced(Run::Model, 2, 30);
        let Subject::Model { model, .. } = &migrated else {
            unreachable!("Run::Model builds a model")
        };
        assert_eq!(model.migrations(), 6);
        let lone = advanced(Run::NoMigration, 1, 30);
        let Subject::Model { model: lone, .. } = &lone else {
            unreachable!("Run::NoMigration builds a model")
        };
        assert_eq!(lone.migrations(), 0);
        let snapshots = |model: &IslandModel<'static, Vec<f32>, DeSnapshot>| {
            model
                .islands()
                .iter()
                .map(|island| island.snapshot().expect("snapshot").population)
                .collect::<Vec<_>>()
        };
        assert_ne!(snapshots(model), snapshots(lone));
    }
}
