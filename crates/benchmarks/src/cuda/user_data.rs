//! Read-only data of a [`UserProblem`](super::UserProblem): named `f32` and `f64` arrays, uploaded once
//! to the device and read by the user's CUDA source as `data.<name>` (with `data.<name>_len`), and by the
//! Rust twin through [`UserData::f32`] and [`UserData::f64`].

use evo_core::{Error, Result};

/// The values of one array.
#[derive(Debug, Clone, PartialEq)]
pub enum DataValues {
    /// `const float*` on the device.
    F32(Vec<f32>),
    /// `const double*` on the device.
    F64(Vec<f64>),
}

impl DataValues {
    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(values) => values.len(),
            Self::F64(values) => values.len(),
        }
    }

    /// Whether the array is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The length an array must have, checked whenever the problem's shape changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataLength {
    /// Any length (at least one value).
    Any,
    /// One value per coordinate: `D`.
    Dimension,
    /// One value per term: `n` (for a data set, one value per data point).
    Terms,
    /// Exactly this many values.
    Exactly(usize),
}

/// One named array.
#[derive(Debug, Clone, PartialEq)]
pub struct DataArray {
    pub(crate) name: String,
    pub(crate) values: DataValues,
    pub(crate) length: DataLength,
}

/// The read-only data arrays of a user problem, in the order they were added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserData {
    pub(crate) arrays: Vec<DataArray>,
}

fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let identifier = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    // `<name>_len` is the generated length member of array `<name>`, so no array may end in `_len`.
    if !identifier || name.starts_with("evo_") || name.ends_with("_len") {
        return Err(Error::invalid_parameter(
            "UserData",
            "array name",
            format!("{name:?}"),
            "a C identifier (ASCII letter or '_', then letters, digits, '_'), not starting with evo_, not ending in _len",
        ));
    }
    Ok(())
}

impl UserData {
    /// No arrays.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the `f32` array `name` of the given required length.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the name is not a C identifier, is reserved or is taken, or when the
    /// array is empty.
    pub fn with_f32(self, name: &str, values: Vec<f32>, length: DataLength) -> Result<Self> {
        self.with(name, DataValues::F32(values), length)
    }

    /// Adds the `f64` array `name` of the given required length.
    ///
    /// # Errors
    /// As [`with_f32`](Self::with_f32).
    pub fn with_f64(self, name: &str, values: Vec<f64>, length: DataLength) -> Result<Self> {
        self.with(name, DataValues::F64(values), length)
    }

    fn with(mut self, name: &str, values: DataValues, length: DataLength) -> Result<Self> {
        check_name(name)?;
        if self.arrays.iter().any(|a| a.name == name) {
            return Err(Error::invalid_parameter(
                "UserData",
                "array name",
                format!("{name:?}"),
                "a name not already used by another array",
            ));
        }
        if values.is_empty() {
            return Err(Error::invalid_parameter(
                "UserData",
                "data array length",
                format!("0 (array `{name}`)"),
                "at least one value",
            ));
        }
        self.arrays.push(DataArray {
            name: name.to_string(),
            values,
            length,
        });
        Ok(self)
    }

    /// The `f32` array `name`, if there is one.
    pub fn f32(&self, name: &str) -> Option<&[f32]> {
        self.arrays.iter().find_map(|a| match &a.values {
            DataValues::F32(values) if a.name == name => Some(values.as_slice()),
            _ => None,
        })
    }

    /// The `f64` array `name`, if there is one.
    pub fn f64(&self, name: &str) -> Option<&[f64]> {
        self.arrays.iter().find_map(|a| match &a.values {
            DataValues::F64(values) if a.name == name => Some(values.as_slice()),
            _ => None,
        })
    }

    /// Checks every array's length against its requirement for `dimension` coordinates and `terms` terms.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the problem, the array, its length and the length required.
    pub fn check_lengths(&self, problem: &str, dimension: usize, terms: usize) -> Result<()> {
        for array in &self.arrays {
            let (required, what) = match array.length {
                DataLength::Any => continue,
                DataLength::Dimension => (dimension, "D"),
                DataLength::Terms => (terms, "the number of terms"),
                DataLength::Exactly(n) => (n, "the declared length"),
            };
            if array.values.len() != required {
                return Err(Error::invalid_parameter(
                    "UserProblem",
                    "data array length",
                    format!(
                        "{} (array `{}` of `{problem}`)",
                        array.values.len(),
                        array.name
                    ),
                    format!("{required} ({what})"),
                ));
            }
        }
        Ok(())
    }

    /// The `f32` arrays concatenated in order, and the `f64` arrays (each at least one value: the device
    /// gets a one-value placeholder for a kind without arrays): the buffers a user module's kernels take.
    pub fn concatenated(&self) -> (Vec<f32>, Vec<f64>) {
        let mut f32s = Vec::new();
        let mut f64s = Vec::new();
        for array in &self.arrays {
            match &array.values {
                DataValues::F32(values) => f32s.extend_from_slice(values),
                DataValues::F64(values) => f64s.extend_from_slice(values),
            }
        }
        if f32s.is_empty() {
            f32s.push(0.0);
        }
        if f64s.is_empty() {
            f64s.push(0.0);
        }
        (f32s, f64s)
    }

    /// The CUDA declarations of the prelude: `struct EvoUserData` with a pointer and a length per array, and
    /// `evo_user_data`, which points them into the two concatenated buffers; every user module's prelude
    /// (real vectors, bit strings, constrained) declares them this way.
    pub fn cuda_declarations(&self) -> String {
        let mut fields = String::new();
        let mut assign = String::new();
        let (mut offset32, mut offset64) = (0usize, 0usize);
        for array in &self.arrays {
            let name = &array.name;
            let len = array.values.len();
            let (ty, base, offset) = match array.values {
                DataValues::F32(_) => ("float", "data32", &mut offset32),
                DataValues::F64(_) => ("double", "data64", &mut offset64),
            };
            fields.push_str(&format!(
                "    const {ty}* {name};\n    unsigned long long {name}_len;\n"
            ));
            assign.push_str(&format!(
                "    data.{name} = {base} + {offset}ull;\n    data.{name}_len = {len}ull;\n"
            ));
            *offset += len;
        }
        if self.arrays.is_empty() {
            fields.push_str("    int unused;\n");
            assign.push_str("    data.unused = 0;\n");
        }
        format!(
            "struct EvoUserData {{\n{fields}}};\n\
             __device__ __forceinline__ EvoUserData evo_user_data(const float* data32, const double* data64)\n{{\n\
             \x20   EvoUserData data;\n    (void)data32;\n    (void)data64;\n{assign}    return data;\n}}\n"
        )
    }
}
