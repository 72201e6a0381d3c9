//! Reading an input file as text, and placing a byte of it by line and
//! column ([`line_column`], shared by the parsers).
//!
//! Input: a path. Output: the file's text, or a [`ReadError`] that names
//! the file and, when the bytes are not UTF-8, the line and column of the
//! first bad byte (1-based; the column counts characters, as the
//! parsers' errors do), so a binary or mis-encoded file is pointed at like
//! any other bad input.

use std::path::Path;

use thiserror::Error;

/// A file that could not be read as text.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ReadError {
    #[error("cannot read `{path}`: {why}")]
    Io { path: String, why: String },
    #[error("{path}:{line}:{column}: not UTF-8 text (byte 0x{byte:02x})")]
    NotUtf8 {
        path: String,
        line: usize,
        column: usize,
        byte: u8,
    },
}

/// The text of the file at `path`.
pub fn read_text(path: &Path) -> Result<String, ReadError> {
    let name = || path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ReadError::Io {
        path: name(),
        why: e.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let (line, column, byte) = first_bad_byte(e.as_bytes(), e.utf8_error().valid_up_to());
        ReadError::NotUtf8 {
            path: name(),
            line,
            column,
            byte,
        }
    })
}

/// Line, column and value of the byte at `at`, everything before which
/// is valid UTF-8.
fn first_bad_byte(bytes: &[u8], at: usize) -> (usize, usize, u8) {
    let good = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
    let (line, column) = line_column(good, good.len());
    (line, column, bytes.get(at).copied().unwrap_or(0))
}

/// The 1-based line and column of byte `offset` of `text` (columns
/// count characters; an offset past the end is the end): how every
/// parser of input text places what it reports.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_byte_is_placed_by_line_and_character_column() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.txt");
        std::fs::write(&file, b"name: x\nvariant: numbrix\n\xc3\xa9 . \xff 1\n").unwrap();
        let err = read_text(&file).unwrap_err();
        assert_eq!(
            err,
            ReadError::NotUtf8 {
                path: file.display().to_string(),
                line: 3,
                column: 5,
                byte: 0xff,
            }
        );
        assert!(err
            .to_string()
            .ends_with(":3:5: not UTF-8 text (byte 0xff)"));
    }

    #[test]
    fn text_and_missing_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ok.txt");
        std::fs::write(&file, "één\n").unwrap();
        assert_eq!(read_text(&file).unwrap(), "één\n");
        let missing = dir.path().join("missing.txt");
        assert!(matches!(read_text(&missing), Err(ReadError::Io { .. })));
    }
}
