//! [`QigaAskTell`]: QIGA on a bit-string fitness that lives outside the crate (a simulator, a cluster,
//! Python), one generation at a time.

use evo_core::{Bits, Error, Result};

use crate::bits::{check_params, initial_runs};
use crate::cpu::{next_generation, observe, update_and_store_best};
use crate::params::{ALGORITHM, QigaParams};
use crate::snapshot::{RunConfig, RunState};

/// QIGA (crate docs, steps 2–7) driven from outside: [`ask`](Self::ask) observes the quantum population
/// into bit strings, [`tell`](Self::tell) takes their fitness, to minimise (QIGA maximises `−fitness`),
/// then rotates towards the best string and keeps the best so far.
///
/// QIGA keeps the strings it asked, or, through [`tell_repaired`](Self::tell_repaired), the strings the
/// caller evaluated in their place (a repair, step 3). With the knapsack's index-order repair
/// (`Knapsack::repair_row`) and minus the repaired profit, the run is [`QigaCpu`](crate::QigaCpu)'s with the
/// paper's options; with [`tell`](Self::tell), it is [`QigaBitsCpu`](crate::QigaBitsCpu)'s without a
/// repair, bit for bit.
///
/// ```
/// use evo_qiga::{QigaAskTell, QigaParams};
///
/// // OneMax as a minimisation: minus the number of ones of each 64-bit string.
/// let mut qiga = QigaAskTell::new(&QigaParams::default(), 64, 7)?;
/// for _ in 0..200 {
///     let fitness: Vec<f64> = qiga
///         .ask()?
///         .chunks(2)
///         .map(|row| -f64::from(row[0].count_ones() + row[1].count_ones()))
///         .collect();
///     qiga.tell(&fitness)?;
/// }
/// let (best, fitness) = qiga.best().expect("told");
/// assert_eq!(fitness, -(best.count_ones() as f64));
/// assert!(fitness <= -45.0);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct QigaAskTell {
    params: QigaParams,
    bits: usize,
    run: RunState,
    /// The last generation told (None before generation 0 is told).
    generation: Option<u64>,
    /// The generation whose strings were asked and wait for their fitness.
    asked: Option<u32>,
}

impl QigaAskTell {
    /// QIGA with `params`' population and angles (its `generations` is not used: the caller decides when to
    /// stop) on strings of `bits` bits from Philox seed `seed`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for knapsack options in `params` (give the repaired strings to
    /// [`tell_repaired`](Self::tell_repaired) instead), `bits` 0, or population × bits beyond 2^32.
    pub fn new(params: &QigaParams, bits: usize, seed: u64) -> Result<Self> {
        check_params(params, "ask/tell", bits, 1)?;
        let config = RunConfig {
            seed,
            angles: params.angles(),
        };
        let run = initial_runs(vec![config], params.population(), bits)
            .pop()
            .ok_or_else(|| {
                Error::invalid_parameter(ALGORITHM, "number of runs in a batch", 0, "at least 1")
            })?;
        Ok(Self {
            params: params.clone(),
            bits,
            run,
            generation: None,
            asked: None,
        })
    }

    /// The strings to evaluate next (step 2, the observation), packed rows of
    /// [`words_per_row`](Self::words_per_row) words: bit `j` of a row is bit `j % 32` of its word `j / 32`,
    /// padding bits clear. The same strings until they are told.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] past `2^32 − 1` generations (the Philox step is a `u32`).
    pub fn ask(&mut self) -> Result<&[u32]> {
        if self.asked.is_none() {
            let generation = match self.generation {
                None => 0,
                Some(told) => next_generation(told)?,
            };
            observe(&mut self.run, generation, self.bits);
            self.asked = Some(generation);
        }
        Ok(&self.run.observed)
    }

    /// The fitness of the strings asked last, one finite value per string.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when nothing was asked or for a count other than the population;
    /// [`Error::NonFiniteFitness`] for NaN or an infinity. Nothing changes on an error: the same strings
    /// wait for a correct answer.
    pub fn tell(&mut self, fitness: &[f64]) -> Result<()> {
        self.tell_rows(fitness, None)
    }

    /// As [`tell`](Self::tell), with the strings that were evaluated in place of the asked ones (packed as
    /// [`ask`](Self::ask) gives them, the same number; padding bits are cleared), which QIGA keeps: the
    /// rotation and the best so far follow them.
    ///
    /// # Errors
    /// As [`tell`](Self::tell); [`Error::InvalidParameter`] for `rows` of another length.
    pub fn tell_repaired(&mut self, fitness: &[f64], rows: &[u32]) -> Result<()> {
        check_repaired_words(ALGORITHM, rows, self.run.observed.len())?;
        self.tell_rows(fitness, Some(rows))
    }

    fn tell_rows(&mut self, fitness: &[f64], repaired: Option<&[u32]>) -> Result<()> {
        let generation = check_told(ALGORITHM, self.asked, fitness, self.params.population())?;
        if let Some(rows) = repaired {
            self.run.observed.copy_from_slice(rows);
            clear_padding(&mut self.run.observed, self.bits);
        }
        for (profit, value) in self.run.profits.iter_mut().zip(fitness) {
            *profit = -value;
        }
        update_and_store_best(&mut self.run, generation, self.bits, &self.params, |_, s| s);
        self.generation = Some(u64::from(generation));
        self.asked = None;
        Ok(())
    }

    /// The best string told so far and its fitness (the first of the best generation's ties), or `None`
    /// before the first tell.
    pub fn best(&self) -> Option<(Bits, f64)> {
        self.generation?;
        let bits = Bits::from_words(self.run.best.clone(), self.bits).ok()?;
        Some((bits, -self.run.best_profit))
    }

    /// The state of the run (θ, the strings told last and minus their fitness, the best so far).
    pub fn state(&self) -> &RunState {
        &self.run
    }

    /// Generations completed: `None` before generation 0 is told, then 0, 1, ...
    pub fn generation(&self) -> Option<u64> {
        self.generation
    }

    /// Fitness values told so far.
    pub fn evaluations(&self) -> u64 {
        self.generation
            .map_or(0, |g| (g + 1) * self.params.population() as u64)
    }

    /// The bits of every string.
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Words per packed row, `⌈bits / 32⌉`.
    pub fn words_per_row(&self) -> usize {
        Bits::word_count(self.bits)
    }
}

/// The checks every tell of evo-qiga's ask/tell engines makes before changing anything: strings were
/// asked (`asked`, what the engine keeps of them, is returned), one fitness per string of the `population`,
/// each finite. `algorithm` names the engine in the errors.
///
/// # Errors
/// [`Error::InvalidParameter`] when nothing was asked or for a count other than `population`;
/// [`Error::NonFiniteFitness`] for NaN or an infinity.
pub(crate) fn check_told<T>(
    algorithm: &'static str,
    asked: Option<T>,
    fitness: &[f64],
    population: usize,
) -> Result<T> {
    let Some(asked) = asked else {
        return Err(Error::invalid_parameter(
            algorithm,
            "tell",
            "no asked strings",
            "ask() first, then tell its strings' fitness",
        ));
    };
    if fitness.len() != population {
        return Err(Error::invalid_parameter(
            algorithm,
            "number of fitness values",
            fitness.len(),
            format!("{population}, one per asked string"),
        ));
    }
    if let Some((i, &value)) = fitness.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(Error::NonFiniteFitness {
            problem: format!("{algorithm} ask/tell"),
            individual: i,
            value,
        });
    }
    Ok(asked)
}

/// Checks that the repaired strings given to `tell_repaired` are `expected` packed words, as many as the
/// asked strings.
///
/// # Errors
/// [`Error::InvalidParameter`] for another number of words.
pub(crate) fn check_repaired_words(
    algorithm: &'static str,
    rows: &[u32],
    expected: usize,
) -> Result<()> {
    if rows.len() != expected {
        return Err(Error::invalid_parameter(
            algorithm,
            "number of repaired words",
            rows.len(),
            format!("{expected}, the asked strings' packed words"),
        ));
    }
    Ok(())
}

/// Clears the bits past `bits` in every packed row of `rows` (rows of `⌈bits / 32⌉` words).
pub(crate) fn clear_padding(rows: &mut [u32], bits: usize) {
    let words = Bits::word_count(bits);
    if bits.is_multiple_of(32) || words == 0 {
        return;
    }
    let mask = (1u32 << (bits % 32)) - 1;
    for row in rows.chunks_mut(words) {
        if let Some(last) = row.last_mut() {
            *last &= mask;
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::{HostEvaluated, QigaBitsCpu, QigaCpu};
    use evo_benchmarks::Knapsack;
    use evo_core::{BinaryProblem, Engine};

    #[test]
    fn repaired_strings_and_minus_their_profits_give_the_paper_engines_run() {
        for items in [37, 64] {
            let knapsack = Knapsack::generate(items, 5).unwrap();
            let params = QigaParams::default().with_population(12).unwrap();
            let mut engine = QigaCpu::new(&params, &knapsack, 11, 1).unwrap();
            let mut qiga = QigaAskTell::new(&params, items, 11).unwrap();
            let words = qiga.words_per_row();
            for generation in 0..20 {
                let mut rows = qiga.ask().unwrap().to_vec();
                let fitness: Vec<f64> = rows
                    .chunks_mut(words)
                    .map(|row| -knapsack.repair_row(row).profit)
                    .collect();
                qiga.tell_repaired(&fitness, &rows).unwrap();
                if generation > 0 {
                    engine.step().unwrap();
                }
                assert_eq!(
                    qiga.state(),
                    &engine.state().runs[0],
                    "generation {generation}"
                );
                let (best, fitness) = qiga.best().unwrap();
                let (engine_best, engine_fitness) = engine.best().unwrap();
                assert_eq!(best, engine_best);
                assert_eq!(fitness.to_bits(), engine_fitness.to_bits());
            }
            assert_eq!(qiga.evaluations(), engine.progress().evaluations);
        }
    }

    /// A weighted count of ones whose weights have both signs (so the fitness is not a profit).
    struct Weighted(usize);

    impl BinaryProblem for Weighted {
        fn name(&self) -> &str {
            "weighted"
        }

        fn bit_count(&self) -> usize {
            self.0
        }

        fn evaluate(&self, bits: &Bits) -> f64 {
            (0..self.0)
                .filter(|&j| bits.get(j) == Some(true))
                .map(|j| (j % 5) as f64 - 2.5)
                .sum()
        }
    }

    #[test]
    fn told_strings_give_the_bit_string_engines_run() {
        let problem = Weighted(45);
        let params = QigaParams::default().with_population(10).unwrap();
        let mut engine = QigaBitsCpu::new(&params, HostEvaluated::new(Weighted(45)), 4, 1).unwrap();
        let mut qiga = QigaAskTell::new(&params, 45, 4).unwrap();
        for generation in 0..15 {
            let mut fitness = vec![0.0; params.population()];
            problem.evaluate_batch(qiga.ask().unwrap(), &mut fitness);
            qiga.tell(&fitness).unwrap();
            if generation > 0 {
                engine.step().unwrap();
            }
            assert_eq!(
                qiga.state(),
                &engine.state().runs[0],
                "generation {generation}"
            );
        }
        assert!(qiga.best().unwrap().1 < 0.0);
    }

    #[test]
    fn bad_answers_are_refused_and_change_nothing() {
        let params = QigaParams::default().with_population(4).unwrap();
        let mut qiga = QigaAskTell::new(&params, 10, 1).unwrap();
        let error = qiga.tell(&[0.0; 4]).unwrap_err().to_string();
        assert!(error.contains("ask() first"), "{error}");
        let asked = qiga.ask().unwrap().to_vec();
        let error = qiga.tell(&[0.0; 5]).unwrap_err().to_string();
        assert!(error.contains("4, one per asked string"), "{error}");
        let error = qiga.tell(&[0.0, f64::INFINITY, 0.0, 0.0]).unwrap_err();
        assert!(
            matches!(error, Error::NonFiniteFitness { individual: 1, .. }),
            "{error}"
        );
        let error = qiga
            .tell_repaired(&[0.0; 4], &[0; 3])
            .unwrap_err()
            .to_string();
        assert!(error.contains("repaired words"), "{error}");
        assert_eq!(qiga.ask().unwrap(), asked.as_slice());
        qiga.tell(&[3.0, -1.0, -2.5, 7.0]).unwrap();
        assert_eq!(qiga.generation(), Some(0));
        assert_eq!(qiga.best().unwrap().1, -2.5);
    }

    #[test]
    fn padding_is_cleared_in_every_row_and_only_there() {
        let mut rows = vec![u32::MAX; 6];
        clear_padding(&mut rows, 37);
        assert_eq!(rows, [u32::MAX, 0x1f, u32::MAX, 0x1f, u32::MAX, 0x1f]);
        let mut full = vec![u32::MAX; 4];
        clear_padding(&mut full, 64);
        assert_eq!(full, [u32::MAX; 4]);
    }

    #[test]
    fn qiga_and_the_sga_refuse_bad_answers_alike() {
        let mut qiga =
            QigaAskTell::new(&QigaParams::default().with_population(4).unwrap(), 40, 1).unwrap();
        let params = crate::SgaParams::default().with_population(4).unwrap();
        let mut sga = crate::sga::SgaAskTell::new(&params, 40, 1).unwrap();
        let first = |q: Result<()>, s: Result<()>| {
            let (q, s) = (q.unwrap_err().to_string(), s.unwrap_err().to_string());
            assert!(q.contains("QIGA") && s.contains("SGA"), "{q} / {s}");
            assert_eq!(q.replace("QIGA", "SGA"), s);
        };
        first(qiga.tell(&[0.0; 4]), sga.tell(&[0.0; 4]));
        qiga.ask().unwrap();
        sga.ask().unwrap();
        first(qiga.tell(&[0.0; 3]), sga.tell(&[0.0; 3]));
        first(
            qiga.tell(&[0.0, -1.0, f64::NAN, 0.0]),
            sga.tell(&[0.0, -1.0, f64::NAN, 0.0]),
        );
        first(
            qiga.tell_repaired(&[0.0; 4], &[0; 7]),
            sga.tell_repaired(&[0.0; 4], &[0; 7]),
        );
    }

    #[test]
    fn knapsack_options_and_zero_bits_are_refused() {
        let practical = QigaParams::default().with_options(crate::KnapsackOptions::PRACTICAL);
        let error = QigaAskTell::new(&practical, 10, 1).err().unwrap();
        assert!(error.to_string().contains("knapsack options"), "{error}");
        let error = QigaAskTell::new(&QigaParams::default(), 0, 1)
            .err()
            .unwrap();
        assert!(error.to_string().contains("bit count"), "{error}");
    }
}
