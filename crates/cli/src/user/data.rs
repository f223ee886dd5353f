//! The data files of a user problem's manifest, read into `f32` or `f64` values: NumPy `.npy` (little-endian
//! `<f4`/`<f8`, C order, any shape, flattened), text (`.csv`, `.txt`: numbers separated by commas, spaces or
//! newlines; `#` starts a comment) and raw little-endian binary (`.bin`, `.f32`, `.f64`).

use evo_benchmarks::cuda::DataValues;
use std::path::Path;

/// The element type of a data array, as the user's source reads it (`const float*` or `const double*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
}

impl Element {
    /// The type's name in the manifest.
    pub const fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
        }
    }

    const fn size(self) -> usize {
        match self {
            Self::F32 => 4,
            Self::F64 => 8,
        }
    }
}

/// The extensions a data file may have, for messages.
pub const DATA_FORMATS: &str = ".npy (<f4 or <f8), .csv or .txt (numbers separated by commas, spaces or \
     newlines), .bin, .f32 or .f64 (raw little-endian values of the array's type)";

/// Reads `path` as values of `element` (for `.npy`, the file's own type when `element` is `None`). The error is
/// a sentence saying what was wrong.
pub fn read(path: &Path, element: Option<Element>) -> Result<DataValues, String> {
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let bytes = std::fs::read(path).map_err(|error| format!("cannot read it: {error}"))?;
    match extension.as_deref() {
        Some("npy") => npy(&bytes, element),
        Some("csv" | "txt") => text(&bytes, element.unwrap_or(Element::F32)),
        Some("bin" | "f32" | "f64") => {
            let element = match (extension.as_deref(), element) {
                (_, Some(element)) => element,
                (Some("f64"), None) => Element::F64,
                _ => Element::F32,
            };
            raw(&bytes, element)
        }
        _ => Err(format!(
            "its extension is not a data format; allowed: {DATA_FORMATS}"
        )),
    }
}

fn values_of(bytes: &[u8], element: Element) -> DataValues {
    match element {
        Element::F32 => DataValues::F32(
            bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
        Element::F64 => DataValues::F64(
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                .collect(),
        ),
    }
}

fn raw(bytes: &[u8], element: Element) -> Result<DataValues, String> {
    if !bytes.len().is_multiple_of(element.size()) {
        return Err(format!(
            "it holds {} bytes, not a whole number of {} values ({} bytes each)",
            bytes.len(),
            element.name(),
            element.size()
        ));
    }
    Ok(values_of(bytes, element))
}

fn text(bytes: &[u8], element: Element) -> Result<DataValues, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())?;
    let mut f32s = Vec::new();
    let mut f64s = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for field in line
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|field| !field.is_empty())
        {
            let bad = || {
                format!(
                    "line {}: `{field}` is not a {} number",
                    index + 1,
                    element.name()
                )
            };
            match element {
                Element::F32 => f32s.push(field.parse::<f32>().map_err(|_| bad())?),
                Element::F64 => f64s.push(field.parse::<f64>().map_err(|_| bad())?),
            }
        }
    }
    Ok(match element {
        Element::F32 => DataValues::F32(f32s),
        Element::F64 => DataValues::F64(f64s),
    })
}

/// The `.npy` format, version 1 to 3: magic, version, header length, a Python dict literal with `descr`,
/// `fortran_order` and `shape`, then the values.
fn npy(bytes: &[u8], element: Option<Element>) -> Result<DataValues, String> {
    const MAGIC: &[u8] = b"\x93NUMPY";
    let not_npy = || "it is not a .npy file (no \\x93NUMPY header)".to_string();
    let rest = bytes.strip_prefix(MAGIC).ok_or_else(not_npy)?;
    let (major, rest) = rest.split_first().ok_or_else(not_npy)?;
    let rest = rest.get(1..).ok_or_else(not_npy)?;
    let (header_len, rest) = match major {
        1 => {
            let len = rest.get(..2).ok_or_else(not_npy)?;
            (
                usize::from(u16::from_le_bytes([len[0], len[1]])),
                &rest[2..],
            )
        }
        2 | 3 => {
            let len = rest.get(..4).ok_or_else(not_npy)?;
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
            (usize::try_from(len).map_err(|_| not_npy())?, &rest[4..])
        }
        other => {
            return Err(format!(
                ".npy version {other} is not supported (1 to 3 are)"
            ));
        }
    };
    let header = rest.get(..header_len).ok_or_else(not_npy)?;
    let header = std::str::from_utf8(header).map_err(|_| not_npy())?;
    let values = &rest[header_len..];
    let descr = dict_value(header, "descr").ok_or("its header has no `descr`")?;
    let stored = match descr.trim_matches(|c| c == '\'' || c == '"') {
        "<f4" | "=f4" => Element::F32,
        "<f8" | "=f8" => Element::F64,
        other => {
            return Err(format!(
                "it holds `{other}` values; allowed: little-endian float32 (<f4) or float64 (<f8)"
            ));
        }
    };
    if let Some(wanted) = element
        && wanted != stored
    {
        return Err(format!(
            "it holds {} values but the array's type is {}; convert the file or set type = \"{}\"",
            stored.name(),
            wanted.name(),
            stored.name()
        ));
    }
    let fortran = dict_value(header, "fortran_order").ok_or("its header has no `fortran_order`")?;
    let shape = dict_value(header, "shape").ok_or("its header has no `shape`")?;
    let dims: Vec<usize> = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(str::trim)
        .filter(|dim| !dim.is_empty())
        .map(|dim| {
            dim.parse::<usize>()
                .map_err(|_| format!("its shape {shape} is not readable"))
        })
        .collect::<Result<_, _>>()?;
    if fortran.trim() == "True" && dims.iter().filter(|&&dim| dim > 1).count() > 1 {
        return Err(
            "it is in Fortran order; save it in C order (numpy.ascontiguousarray)".to_string(),
        );
    }
    let count = dims
        .iter()
        .try_fold(1usize, |count, &dim| count.checked_mul(dim))
        .ok_or_else(|| format!("its shape {shape} is too large"))?;
    let expected = count
        .checked_mul(stored.size())
        .ok_or_else(|| format!("its shape {shape} is too large"))?;
    if values.len() != expected {
        return Err(format!(
            "its shape {shape} needs {expected} bytes of values, the file has {}",
            values.len()
        ));
    }
    Ok(values_of(values, stored))
}

/// The text of `key`'s value in a `.npy` header's dict literal (up to the next top-level comma or brace).
fn dict_value<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let start = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))?;
    let after = &header[start + key.len() + 2..];
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    let mut depth = 0usize;
    for (index, c) in after.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | '}' if depth == 0 => return Some(after[..index].trim()),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A `.npy` version 1 file of `descr` and `shape` holding `payload`.
    pub fn npy_file(descr: &str, shape: &str, payload: &[u8]) -> Vec<u8> {
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(payload);
        bytes
    }

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn npy_files_of_either_type_and_any_shape_are_read_flat() {
        let dir = tempfile::tempdir().unwrap();
        let payload: Vec<u8> = [1.5f32, -2.0, 3.25, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let path = write(dir.path(), "a.npy", &npy_file("<f4", "(2, 2)", &payload));
        assert_eq!(
            read(&path, None).unwrap(),
            DataValues::F32(vec![1.5, -2.0, 3.25, 4.0])
        );
        let payload: Vec<u8> = [0.1f64, 0.2].iter().flat_map(|v| v.to_le_bytes()).collect();
        let path = write(dir.path(), "b.npy", &npy_file("<f8", "(2,)", &payload));
        assert_eq!(
            read(&path, Some(Element::F64)).unwrap(),
            DataValues::F64(vec![0.1, 0.2])
        );
        let error = read(&path, Some(Element::F32)).unwrap_err();
        assert!(
            error.contains("holds f64 values but the array's type is f32"),
            "{error}"
        );
    }

    #[test]
    fn npy_files_that_do_not_hold_what_their_header_says_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let short = write(dir.path(), "s.npy", &npy_file("<f4", "(3,)", &[0; 8]));
        let error = read(&short, None).unwrap_err();
        assert!(
            error.contains("needs 12 bytes of values, the file has 8"),
            "{error}"
        );
        let ints = write(dir.path(), "i.npy", &npy_file("<i4", "(1,)", &[0; 4]));
        assert!(read(&ints, None).unwrap_err().contains("`<i4`"));
        let junk = write(dir.path(), "j.npy", b"not numpy");
        assert!(read(&junk, None).unwrap_err().contains("not a .npy file"));
    }

    #[test]
    fn text_files_take_commas_spaces_newlines_and_comments() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "t.csv", b"# x, y\n1, 2.5\n-3 4e1 # four\n\n");
        assert_eq!(
            read(&path, None).unwrap(),
            DataValues::F32(vec![1.0, 2.5, -3.0, 40.0])
        );
        let bad = write(dir.path(), "b.txt", b"1\n2 x\n");
        assert_eq!(
            read(&bad, Some(Element::F64)).unwrap_err(),
            "line 2: `x` is not a f64 number"
        );
    }

    #[test]
    fn raw_files_take_the_type_from_the_array_or_the_extension() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "v.f64", &2.5f64.to_le_bytes());
        assert_eq!(read(&path, None).unwrap(), DataValues::F64(vec![2.5]));
        let path = write(dir.path(), "v.bin", &[0; 6]);
        let error = read(&path, None).unwrap_err();
        assert!(
            error.contains("6 bytes, not a whole number of f32"),
            "{error}"
        );
        let path = write(dir.path(), "v.dat", &[0; 4]);
        assert!(read(&path, None).unwrap_err().contains("allowed: .npy"));
    }
}
