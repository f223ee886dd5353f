//! The settings of the local search of ETC schedules ([`LocalSearch`]) and their serde form.

use crate::params::ALGORITHM;
use evo_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// The most tasks the local search accepts (the CUDA kernel keeps the schedule in shared memory).
pub const MAX_TASKS: usize = 4096;
/// The most machines the local search accepts (one byte per task in the kernel's schedule).
pub const MAX_MACHINES: usize = 256;
/// The most kicks one search tries ([`LocalSearch::with_kicks`]; on the GPU one block each).
pub const MAX_KICKS: u32 = 1024;
/// The most random moves of one kick ([`LocalSearch::with_kicks`]) or of one iteration's perturbation
/// ([`LocalSearch::with_iterations`]).
pub const MAX_KICK_MOVES: u32 = 256;
/// The most perturb-and-descend iterations of one candidate ([`LocalSearch::with_iterations`]).
pub const MAX_ITERATIONS: u32 = 1024;

/// Which vectors one local search improves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    /// The population's best vector (the default).
    #[default]
    Best,
    /// Every vector, each searched independently; the best index is recomputed afterwards.
    All,
}

/// Which candidates one round of the descent (step 2 of [`local_search`](crate::local_search)) values, and
/// which it accepts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Neighbourhood {
    /// Every single-task move, and every swap of a task on the makespan machine with a task on another
    /// machine; a candidate is accepted when it lowers the fitness (the default, the search of Table 1).
    #[default]
    MakespanMachine,
    /// Every single-task move, and every swap of two tasks on different machines (any two machines);
    /// candidates are ranked by fitness, then by the new flowtime, and one is accepted when it lowers the
    /// fitness, or keeps it and lowers the flowtime. Under the makespan alone (`λ = 1`) a move or swap
    /// between two machines other than the makespan machine cannot lower the maximum, but the rebalancing
    /// it does (the same makespan with less total work) opens moves off the makespan machine that did
    /// not fit before.
    AnyPair,
    /// The candidates of [`Neighbourhood::AnyPair`], ranked by fitness, then by the change of the sum of
    /// the squared machine loads (`(L_p'² + L_k'²) − (L_p² + L_k²)` of the two changed machines); one is
    /// accepted when it lowers the fitness, or keeps it and lowers the sum of squares (a load-balancing
    /// descent). Under the makespan alone on consistent instances, lowering the flowtime fills every
    /// machine up to the makespan (nothing can then leave the makespan machine), while lowering the sum of
    /// squares evens the loads below it, which opens room for the makespan machine's tasks.
    Balance,
    /// The candidates of [`Neighbourhood::MakespanMachine`] (every move, and the swaps of a makespan-machine
    /// task with a task elsewhere), ranked and accepted as with [`Neighbourhood::Balance`]: a load-balancing
    /// descent about six times cheaper per round than the any-pair ones (on 512 × 16, about 24 000
    /// candidates where they value 139 000), whose moves between any two machines still even the loads
    /// below the makespan.
    MakespanBalance,
}

impl Neighbourhood {
    /// The kernel's code of the neighbourhood (`DeLocalSearchParams.neighbourhood`): `DE_LS_MAKESPAN_MACHINE`
    /// (0), `DE_LS_ANY_PAIR` (1), `DE_LS_BALANCE` (2) or `DE_LS_MAKESPAN_BALANCE` (3) of
    /// `kernels/cuda/de_local_search.cuh`.
    pub fn kernel_code(self) -> u32 {
        match self {
            Neighbourhood::MakespanMachine => 0,
            Neighbourhood::AnyPair => 1,
            Neighbourhood::Balance => 2,
            Neighbourhood::MakespanBalance => 3,
        }
    }

    /// Whether the swaps are of any two tasks on different machines (rather than of a makespan-machine
    /// task with a task elsewhere).
    pub fn any_pair(self) -> bool {
        matches!(self, Neighbourhood::AnyPair | Neighbourhood::Balance)
    }

    /// Whether the second key is the change of the squared loads ([`Neighbourhood::Balance`],
    /// [`Neighbourhood::MakespanBalance`]).
    pub fn balances(self) -> bool {
        matches!(
            self,
            Neighbourhood::Balance | Neighbourhood::MakespanBalance
        )
    }
}

/// When, how long and on which vectors the local search runs. Validated by [`LocalSearch::new`].
///
/// ```
/// use evo_de::{LocalSearch, Scope};
/// let search = LocalSearch::new(500, 64)?;
/// assert_eq!((search.period(), search.max_moves()), (500, 64));
/// assert_eq!(search.scope(), Scope::Best);
/// assert_eq!(search.with_scope(Scope::All).scope(), Scope::All);
/// let error = LocalSearch::new(0, 64).unwrap_err();
/// assert_eq!(error.to_string(), "DE: local search period must be at least 1 generation, got 0");
/// # Ok::<(), evo_core::Error>(())
/// ```
///
/// Read from TOML or JSON through the same setters (unknown keys refused; absent ones take the defaults
/// of [`LocalSearch::new`]; `period` and `max_moves` are required):
///
/// ```
/// use evo_de::{LocalSearch, Neighbourhood};
/// let text = r#"{"period": 20, "max_moves": 64, "neighbourhood": "AnyPair", "iterations": 8, "iteration_moves": 4}"#;
/// let search: LocalSearch = serde_json::from_str(text).unwrap();
/// assert_eq!(search.neighbourhood(), Neighbourhood::AnyPair);
/// assert_eq!((search.iterations(), search.iteration_moves()), (8, 4));
/// let refused = serde_json::from_str::<LocalSearch>(r#"{"period": 20, "max_moves": 64, "iterations": 2000}"#);
/// assert!(refused.unwrap_err().to_string().contains("local search iterations must be at most 1024, got 2000"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "LocalSearchRaw")]
pub struct LocalSearch {
    period: u32,
    max_moves: u32,
    /// Absent in settings written before the scope existed: those searched the best vector.
    #[serde(default)]
    scope: Scope,
    /// Perturbed restarts per search, 0 for none (absent in settings written before kicks existed).
    #[serde(default)]
    kicks: u32,
    /// Random task moves of one kick (0 when `kicks` is 0).
    #[serde(default)]
    kick_moves: u32,
    /// The candidates of the descent (absent in settings written before it existed: the makespan machine's).
    #[serde(default)]
    neighbourhood: Neighbourhood,
    /// Perturb-and-descend iterations of each candidate, 0 for none.
    #[serde(default)]
    iterations: u32,
    /// Random task moves of one iteration's perturbation (0 when `iterations` is 0).
    #[serde(default)]
    iteration_moves: u32,
}

impl LocalSearch {
    /// A local search of the best vector after every `period`-th generation, applying at most `max_moves`
    /// improving moves ([`LocalSearch::with_scope`] widens it to every vector).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `period` or `max_moves` is 0.
    pub fn new(period: u32, max_moves: u32) -> Result<Self> {
        if period == 0 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search period",
                period,
                "at least 1 generation",
            ));
        }
        if max_moves == 0 {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search moves",
                max_moves,
                "at least 1",
            ));
        }
        Ok(Self {
            period,
            max_moves,
            scope: Scope::Best,
            kicks: 0,
            kick_moves: 0,
            neighbourhood: Neighbourhood::MakespanMachine,
            iterations: 0,
            iteration_moves: 0,
        })
    }

    /// The same search with the descent's candidates of `neighbourhood`.
    pub fn with_neighbourhood(self, neighbourhood: Neighbourhood) -> Self {
        Self {
            neighbourhood,
            ..self
        }
    }

    /// The same search where every candidate (the searched schedule, and each kick's) then runs
    /// `iterations` perturb-and-descend iterations (step 5 of the module docs of
    /// [`local_search`](crate::local_search)): `iteration_moves` random task moves, the descent, and the
    /// result kept when its exact fitness is not worse; `iterations` 0 turns them off. They need
    /// [`Scope::Best`] and at least two machines ([`ScheduleSearch::new`](crate::ScheduleSearch::new)
    /// checks both).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `iterations` exceeds [`MAX_ITERATIONS`], or `iterations` is positive
    /// and `iteration_moves` is 0 or exceeds [`MAX_KICK_MOVES`].
    pub fn with_iterations(self, iterations: u32, iteration_moves: u32) -> Result<Self> {
        if iterations > MAX_ITERATIONS {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search iterations",
                iterations,
                format!("at most {MAX_ITERATIONS}"),
            ));
        }
        if iterations > 0 && !(1..=MAX_KICK_MOVES).contains(&iteration_moves) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search iteration moves",
                iteration_moves,
                format!("1 ..= {MAX_KICK_MOVES}"),
            ));
        }
        let iteration_moves = if iterations == 0 { 0 } else { iteration_moves };
        Ok(Self {
            iterations,
            iteration_moves,
            ..self
        })
    }

    /// The descent's candidates.
    pub fn neighbourhood(&self) -> Neighbourhood {
        self.neighbourhood
    }

    /// Perturb-and-descend iterations of each candidate (0: none).
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Random task moves of one iteration's perturbation (0 without iterations).
    pub fn iteration_moves(&self) -> u32 {
        self.iteration_moves
    }

    /// Whether the search goes on past its first descent (kicks or iterations): step 4 of the module docs
    /// of [`local_search`](crate::local_search), two launches on the GPU.
    pub fn restarts(&self) -> bool {
        self.kicks > 0 || self.iterations > 0
    }

    /// The same search on the vectors of `scope`.
    pub fn with_scope(self, scope: Scope) -> Self {
        Self { scope, ..self }
    }

    /// The same search followed by `kicks` perturbed restarts of `kick_moves` random task moves each (an
    /// iterated local search, step 4 of the module docs); `kicks` 0 turns them off. Kicks need
    /// [`Scope::Best`] and at least two machines ([`ScheduleSearch::new`](crate::ScheduleSearch::new) checks both).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `kicks` exceeds [`MAX_KICKS`], or `kicks` is positive and
    /// `kick_moves` is 0 or exceeds [`MAX_KICK_MOVES`].
    pub fn with_kicks(self, kicks: u32, kick_moves: u32) -> Result<Self> {
        if kicks > MAX_KICKS {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search kicks",
                kicks,
                format!("at most {MAX_KICKS}"),
            ));
        }
        if kicks > 0 && !(1..=MAX_KICK_MOVES).contains(&kick_moves) {
            return Err(Error::invalid_parameter(
                ALGORITHM,
                "local search kick moves",
                kick_moves,
                format!("1 ..= {MAX_KICK_MOVES}"),
            ));
        }
        let kick_moves = if kicks == 0 { 0 } else { kick_moves };
        Ok(Self {
            kicks,
            kick_moves,
            ..self
        })
    }

    /// Perturbed restarts per search (0: none).
    pub fn kicks(&self) -> u32 {
        self.kicks
    }

    /// Random task moves of one kick (0 without kicks).
    pub fn kick_moves(&self) -> u32 {
        self.kick_moves
    }

    /// Generations between two searches.
    pub fn period(&self) -> u32 {
        self.period
    }

    /// The most moves (or swaps) one search applies.
    pub fn max_moves(&self) -> u32 {
        self.max_moves
    }

    /// Which vectors one search improves.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// Whether the search runs once `generations` generations are complete.
    pub(crate) fn is_due(&self, generations: u64) -> bool {
        generations > 0 && generations.is_multiple_of(u64::from(self.period))
    }
}

/// The serde form of [`LocalSearch`]: every field goes through the setters, so settings read from a file
/// are refused exactly like those built in Rust; a misspelt key is refused rather than defaulted.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LocalSearchRaw {
    period: u32,
    max_moves: u32,
    #[serde(default)]
    scope: Scope,
    #[serde(default)]
    kicks: u32,
    #[serde(default)]
    kick_moves: u32,
    #[serde(default)]
    neighbourhood: Neighbourhood,
    #[serde(default)]
    iterations: u32,
    #[serde(default)]
    iteration_moves: u32,
}

impl TryFrom<LocalSearchRaw> for LocalSearch {
    type Error = Error;

    fn try_from(raw: LocalSearchRaw) -> Result<Self> {
        LocalSearch::new(raw.period, raw.max_moves)?
            .with_scope(raw.scope)
            .with_kicks(raw.kicks, raw.kick_moves)?
            .with_neighbourhood(raw.neighbourhood)
            .with_iterations(raw.iterations, raw.iteration_moves)
    }
}
