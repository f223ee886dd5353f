//! [`SgaAskTell`]: the SGA baseline on any bit-string fitness that lives outside the crate (a simulator, a
//! cluster, Python), one population at a time.

use evo_core::{Bits, Error, Result};

use super::params::SGA;
use super::{SgaParams, SgaRunState, breed, first_max, initial_rows, keep_best, survive};
use crate::ask_tell::{check_repaired_words, check_told, clear_padding};

/// The SGA (module docs, steps 1–6) driven from outside: [`ask`](Self::ask) gives the strings to
/// evaluate, [`tell`](Self::tell) takes their fitness, to minimise. The first ask gives the initial
/// population, every later one a generation's children (selection, crossover and mutation of the
/// population told last, elitism applied once they are told).
///
/// The SGA keeps the strings it asked, or, through [`tell_repaired`](Self::tell_repaired), the strings the
/// caller evaluated in their place (a repair that makes them feasible, as the knapsack engine's). Roulette-
/// wheel selection draws in proportion to the profit `−fitness`, so every fitness must be at most 0. The
/// knapsack engine [`SgaCpu`](super::SgaCpu) is the case "repair each asked string by
/// `Knapsack::repair_row`, tell minus its profit": the two hold the same runs, bit for bit.
///
/// ```
/// use evo_qiga::SgaParams;
/// use evo_qiga::sga::SgaAskTell;
///
/// // OneMax as a minimisation: minus the number of ones of each 40-bit string.
/// let params = SgaParams::default().with_population(20)?;
/// let mut sga = SgaAskTell::new(&params, 40, 7)?;
/// let words = sga.words_per_row();
/// for _ in 0..30 {
///     let fitness: Vec<f64> = sga
///         .ask()?
///         .chunks(words)
///         .map(|row| -f64::from(row[0].count_ones() + (row[1] & 0xff).count_ones()))
///         .collect();
///     sga.tell(&fitness)?;
/// }
/// let (best, fitness) = sga.best().expect("told");
/// assert_eq!(fitness, -(best.count_ones() as f64));
/// assert!(fitness <= -30.0);
/// # Ok::<(), evo_core::Error>(())
/// ```
pub struct SgaAskTell {
    params: SgaParams,
    bits: usize,
    run: SgaRunState,
    /// The last generation told (None before the initial population is told).
    generation: Option<u64>,
    /// The asked strings waiting for their fitness.
    asked: Option<Vec<u32>>,
}

impl SgaAskTell {
    /// The SGA with `params` (its `generations` is not used: the caller decides when to stop) on strings of
    /// `bits` bits from Philox seed `seed`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `bits` 0 or beyond a 32-bit bit index.
    pub fn new(params: &SgaParams, bits: usize, seed: u64) -> Result<Self> {
        if bits == 0 || u32::try_from(bits).is_err() {
            return Err(Error::invalid_parameter(
                SGA,
                "bits per string",
                bits,
                "1 ..= 2^32 − 1",
            ));
        }
        let words = Bits::word_count(bits);
        let population = params.population();
        let mut individuals = initial_rows(seed, population, words);
        // The padding bits past `bits` are cleared, as the knapsack engine's repair clears them.
        clear_padding(&mut individuals, bits);
        Ok(Self {
            params: params.clone(),
            bits,
            run: SgaRunState {
                seed,
                individuals,
                profits: vec![0.0; population],
                best: vec![0; words],
                best_profit: f64::NEG_INFINITY,
            },
            generation: None,
            asked: None,
        })
    }

    /// The strings to evaluate next, packed rows of [`words_per_row`](Self::words_per_row) words (bit `j`
    /// of a row is bit `j % 32` of its word `j / 32`; the padding bits of the last word are not part of the
    /// string). The same strings until they are told.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] past `2^32 − 1` generations (the Philox step is a `u32`).
    pub fn ask(&mut self) -> Result<&[u32]> {
        let rows = match (self.asked.take(), self.generation) {
            (Some(rows), _) => rows,
            (None, None) => self.run.individuals.clone(),
            (None, Some(generation)) => {
                let t = crate::cpu::next_generation(generation)?;
                breed(&self.run, t, &self.params, self.bits)
            }
        };
        Ok(self.asked.insert(rows))
    }

    /// The fitness of the strings asked last, one per string, each finite and at most 0.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when nothing was asked, for a count other than the population, or a
    /// fitness above 0; [`Error::NonFiniteFitness`] for NaN or an infinity. Nothing changes on an error:
    /// the same strings wait for a correct answer.
    pub fn tell(&mut self, fitness: &[f64]) -> Result<()> {
        self.tell_rows(fitness, None)
    }

    /// As [`tell`](Self::tell), with the strings that were evaluated in place of the asked ones (packed as
    /// [`ask`](Self::ask) gives them, the same number; padding bits are cleared), which the SGA keeps.
    ///
    /// # Errors
    /// As [`tell`](Self::tell); [`Error::InvalidParameter`] for `rows` of another length.
    pub fn tell_repaired(&mut self, fitness: &[f64], rows: &[u32]) -> Result<()> {
        let expected = self.params.population() * self.words_per_row();
        check_repaired_words(SGA, rows, expected)?;
        self.tell_rows(fitness, Some(rows))
    }

    fn tell_rows(&mut self, fitness: &[f64], repaired: Option<&[u32]>) -> Result<()> {
        let asked = check_told(SGA, self.asked.as_ref(), fitness, self.params.population())?;
        if let Some((i, &value)) = fitness.iter().enumerate().find(|(_, v)| **v > 0.0) {
            return Err(Error::invalid_parameter(
                SGA,
                "fitness",
                format!("{value} (row {i})"),
                "at most 0 (roulette selection draws in proportion to the profit −fitness)",
            ));
        }
        let profits: Vec<f64> = fitness.iter().map(|f| -f).collect();
        let words = Bits::word_count(self.bits);
        let mut rows = repaired.map_or_else(|| asked.clone(), <[u32]>::to_vec);
        clear_padding(&mut rows, self.bits);
        match self.generation {
            None => {
                self.run.individuals = rows;
                self.run.profits = profits;
                keep_best(&mut self.run, words);
                self.generation = Some(0);
            }
            Some(generation) => {
                survive(&mut self.run, rows, profits, words);
                self.generation = Some(generation + 1);
            }
        }
        self.asked = None;
        Ok(())
    }

    /// The best string told so far and its fitness (first on ties), or `None` before the first tell.
    pub fn best(&self) -> Option<(Bits, f64)> {
        self.generation?;
        let bits = Bits::from_words(self.run.best.clone(), self.bits).ok()?;
        Some((bits, -self.run.best_profit))
    }

    /// The population told last and its fitness (elitism applied), or `None` before the first tell.
    pub fn population(&self) -> Option<(&[u32], Vec<f64>)> {
        self.generation?;
        let fitness = self.run.profits.iter().map(|p| -p).collect();
        Some((&self.run.individuals, fitness))
    }

    /// Generations completed: `None` before the initial population is told, then 0, 1, ...
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

    /// The index of the best individual of the population told last (first on ties), or `None` before the
    /// first tell.
    pub fn leader(&self) -> Option<usize> {
        self.generation?;
        Some(first_max(&self.run.profits))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::SgaCpu;
    use evo_benchmarks::Knapsack;
    use evo_core::Engine;

    /// The asked strings repaired by the knapsack's index-order repair, and minus their profits.
    fn repaired(knapsack: &Knapsack, asked: &[u32], words: usize) -> (Vec<u32>, Vec<f64>) {
        let mut rows = asked.to_vec();
        let fitness = rows
            .chunks_mut(words)
            .map(|row| -knapsack.repair_row(row).profit)
            .collect();
        (rows, fitness)
    }

    #[test]
    fn repaired_strings_and_minus_their_profits_give_the_knapsack_engines_runs() {
        for items in [37, 64] {
            let knapsack = Knapsack::generate(items, 5).unwrap();
            let params = SgaParams::default().with_population(16).unwrap();
            let mut engine = SgaCpu::batch(&params, &knapsack, 11, 1, 1).unwrap();
            let mut sga = SgaAskTell::new(&params, items, 11).unwrap();
            let words = sga.words_per_row();
            for generation in 0..25 {
                let (rows, fitness) = repaired(&knapsack, sga.ask().unwrap(), words);
                sga.tell_repaired(&fitness, &rows).unwrap();
                if generation > 0 {
                    engine.step().unwrap();
                }
                let run = &engine.state().runs[0];
                let (rows, told) = sga.population().unwrap();
                assert_eq!(rows, run.individuals.as_slice(), "generation {generation}");
                let expected: Vec<f64> = run.profits.iter().map(|p| -p).collect();
                assert_eq!(told, expected, "generation {generation}");
                let (best, fitness) = sga.best().unwrap();
                let (engine_best, engine_fitness) = engine.best().unwrap();
                assert_eq!(best, engine_best, "generation {generation}");
                assert_eq!(fitness.to_bits(), engine_fitness.to_bits());
            }
            assert_eq!(sga.generation(), Some(24));
            assert_eq!(sga.evaluations(), engine.progress().evaluations);
        }
    }

    #[test]
    fn ask_repeats_its_strings_until_they_are_told() {
        let params = SgaParams::default().with_population(4).unwrap();
        let mut sga = SgaAskTell::new(&params, 10, 1).unwrap();
        let first = sga.ask().unwrap().to_vec();
        assert_eq!(sga.ask().unwrap(), first.as_slice());
        assert_eq!(sga.generation(), None);
        assert!(sga.best().is_none());
    }

    #[test]
    fn bad_answers_are_refused_and_change_nothing() {
        let params = SgaParams::default().with_population(4).unwrap();
        let mut sga = SgaAskTell::new(&params, 10, 1).unwrap();
        let error = sga.tell(&[0.0; 4]).unwrap_err().to_string();
        assert!(error.contains("ask() first"), "{error}");
        let asked = sga.ask().unwrap().to_vec();
        let error = sga.tell(&[0.0; 3]).unwrap_err().to_string();
        assert!(error.contains("4, one per asked string"), "{error}");
        let error = sga.tell(&[0.0, f64::NAN, 0.0, 0.0]).unwrap_err();
        assert!(
            matches!(error, Error::NonFiniteFitness { individual: 1, .. }),
            "{error}"
        );
        let error = sga.tell(&[0.0, -1.0, 2.5, 0.0]).unwrap_err().to_string();
        assert!(
            error.contains("got 2.5 (row 2)") && error.contains("at most 0"),
            "{error}"
        );
        assert_eq!(sga.ask().unwrap(), asked.as_slice());
        sga.tell(&[0.0, -1.0, -2.5, 0.0]).unwrap();
        assert_eq!(sga.generation(), Some(0));
        assert_eq!(sga.leader(), Some(2));
        assert_eq!(sga.best().unwrap().1, -2.5);
    }

    #[test]
    fn zero_bits_are_refused() {
        let error = SgaAskTell::new(&SgaParams::default(), 0, 1).err().unwrap();
        assert!(error.to_string().contains("bits per string"), "{error}");
    }
}
