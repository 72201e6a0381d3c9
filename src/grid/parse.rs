//! Puzzle text → [`Puzzle`].
//!
//! Input: the puzzle file format of `DESIGN.md` (UTF-8 text):
//!
//! ```text
//! # comment lines start with '#'
//! name: the README example
//! variant: waypoint
//! . . 3 1
//! 2 4 . .
//! . . . .
//! ```
//!
//! * `key: value` directives: `variant` (required: `waypoint`, `numbrix`
//!   or `hidato`) and `name` (optional); each at most once; any other key
//!   is an error;
//! * grid rows: whitespace-separated tokens, `.` or `_` blank, `X`
//!   blocked, a positive integer a given number; every row as wide as the
//!   first;
//! * blank lines and lines starting with `#` are ignored (also between
//!   rows); `\r\n` line ends and a leading byte-order mark are accepted.
//!
//! Output: a validated [`Puzzle`] (see [`Puzzle::new`]), or the first
//! [`ParseError`], which carries the 1-based line and column (in
//! characters) and says what was expected. Never panics.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1, take_while, take_while1};
use nom::character::complete::{char, digit1, satisfy, space0};
use nom::combinator::{all_consuming, recognize, rest, value};
use nom::sequence::{pair, tuple};
use nom::IResult;
use thiserror::Error;

use super::{Cell, Coord, InvalidPuzzle, Puzzle, Variant};

/// A problem in a puzzle file, at 1-based `line` and `col` (characters).
/// Displays as `line:col: message`, so a caller can prefix the file name.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{line}:{col}: {kind}")]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub kind: ParseErrorKind,
}

/// What is wrong; see [`ParseError`] for where.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    #[error("expected `.`, `_`, `X` or a positive number, found `{0}`")]
    BadToken(String),
    #[error("expected a positive number, found `0`")]
    Zero,
    #[error("number `{0}` is too large")]
    TooLarge(String),
    #[error("expected a directive key before `:`, found `{0}`")]
    BadKey(String),
    #[error("unknown directive `{0}`, expected `variant` or `name`")]
    UnknownKey(String),
    #[error("directive `{key}` given twice, first on line {first_line}")]
    DuplicateKey { key: String, first_line: usize },
    #[error("expected a value after `{0}:`")]
    EmptyValue(String),
    #[error("unknown variant `{0}`, expected `waypoint`, `numbrix` or `hidato`")]
    UnknownVariant(String),
    #[error("missing `variant:` directive, expected `variant: waypoint`, `numbrix` or `hidato`")]
    MissingVariant,
    #[error("no grid: expected rows of `.`, `_`, `X` or positive numbers")]
    NoGrid,
    #[error(
        "this row has {found} cells, expected {expected} like the first row (line {first_line})"
    )]
    Ragged {
        found: usize,
        expected: usize,
        first_line: usize,
    },
    #[error("number {number} appears twice, first on line {first_line}, column {first_col}")]
    Duplicate {
        number: u32,
        first_line: usize,
        first_col: usize,
    },
    #[error("number {number} is out of range, expected 1..={max} (the number of open cells)")]
    OutOfRange { number: u32, max: usize },
    #[error("the grid has no open cells, expected at least one `.`, `_` or number")]
    NoOpenCells,
    #[error("a waypoint puzzle needs waypoint 1, where the path starts")]
    NoStart,
    #[error("a waypoint puzzle needs waypoints 1..={highest}, but {missing} is missing")]
    MissingWaypoint { missing: u32, highest: u32 },
}

/// A grid token as read, with its 1-based column.
struct Token<'a> {
    col: usize,
    text: &'a str,
}

/// One meaningful line of the file.
enum Line<'a> {
    Directive {
        key: &'a str,
        key_col: usize,
        value: &'a str,
        value_col: usize,
    },
    Row(Vec<Token<'a>>),
}

/// 1-based character column of `part`, a suffix-slice of `line`.
fn col_of(line: &str, part: &str) -> usize {
    let offset = line.len() - part.len();
    line[..offset].chars().count() + 1
}

/// `key : value` with an identifier key; the value is the rest, trimmed.
fn directive(i: &str) -> IResult<&str, (&str, &str)> {
    let key = recognize(pair(
        satisfy(|c| c.is_ascii_alphabetic()),
        take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
    ));
    let (i, (_, k, _, _, _, v)) =
        all_consuming(tuple((space0, key, space0, char(':'), space0, rest)))(i)?;
    Ok((i, (k, v.trim_end())))
}

/// Splits a grid row into whitespace-separated tokens.
fn tokens(mut i: &str) -> Vec<&str> {
    let mut out = Vec::new();
    loop {
        let (after_ws, _) = take_while::<_, &str, nom::error::Error<&str>>(char::is_whitespace)(i)
            .unwrap_or((i, ""));
        match take_till1::<_, &str, nom::error::Error<&str>>(char::is_whitespace)(after_ws) {
            Ok((after, tok)) => {
                out.push(tok);
                i = after;
            }
            Err(_) => return out,
        }
    }
}

/// Classifies one grid token.
fn cell(tok: &str) -> Result<Cell, ParseErrorKind> {
    let parsed: IResult<&str, Option<&str>> = all_consuming(alt((
        value(None, alt((tag("."), tag("_")))),
        value(Some("X"), tag("X")),
        nom::combinator::map(digit1, Some),
    )))(tok);
    match parsed {
        Ok((_, None)) => Ok(Cell::Blank),
        Ok((_, Some("X"))) => Ok(Cell::Blocked),
        Ok((_, Some(digits))) => match digits.parse::<u32>() {
            Ok(0) => Err(ParseErrorKind::Zero),
            Ok(k) => Ok(Cell::Number(k)),
            Err(_) if digits.bytes().all(|b| b == b'0') => Err(ParseErrorKind::Zero),
            Err(_) => Err(ParseErrorKind::TooLarge(digits.to_string())),
        },
        Err(_) => Err(ParseErrorKind::BadToken(tok.to_string())),
    }
}

fn classify<'a>(line: &'a str, number: usize) -> Result<Option<Line<'a>>, ParseError> {
    let trimmed = line.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return Ok(None);
    }
    if line.contains(':') {
        let (_, (key, value)) = directive(line).map_err(|_| {
            let bad = take_while1::<_, &str, nom::error::Error<&str>>(|c| c != ':')(trimmed)
                .map(|(_, k)| k.trim_end())
                .unwrap_or("");
            ParseError {
                line: number,
                col: col_of(line, trimmed),
                kind: ParseErrorKind::BadKey(bad.to_string()),
            }
        })?;
        let value_col = if value.is_empty() {
            line.trim_end().chars().count() + 1
        } else {
            col_of(
                line,
                &line[value.as_ptr() as usize - line.as_ptr() as usize..],
            )
        };
        return Ok(Some(Line::Directive {
            key,
            key_col: col_of(line, trimmed),
            value,
            value_col,
        }));
    }
    let toks = tokens(line)
        .into_iter()
        .map(|text| Token {
            col: col_of(
                line,
                &line[text.as_ptr() as usize - line.as_ptr() as usize..],
            ),
            text,
        })
        .collect();
    Ok(Some(Line::Row(toks)))
}

/// Parses a puzzle file. See the module documentation for the format.
pub fn parse(text: &str) -> Result<Puzzle, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut variant: Option<(Variant, usize)> = None;
    let mut name: Option<(String, usize)> = None;
    let mut grid: Vec<Vec<Cell>> = Vec::new();
    // Where each grid cell was written: (line, column).
    let mut spans: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut last_line = 1;
    for (idx, raw) in text.split('\n').enumerate() {
        let number = idx + 1;
        last_line = number;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let at = |col, kind| ParseError {
            line: number,
            col,
            kind,
        };
        match classify(line, number)? {
            None => {}
            Some(Line::Directive {
                key,
                key_col,
                value,
                value_col,
            }) => {
                let first_line = match key {
                    "variant" => variant.as_ref().map(|v| v.1),
                    "name" => name.as_ref().map(|n| n.1),
                    _ => return Err(at(key_col, ParseErrorKind::UnknownKey(key.to_string()))),
                };
                if let Some(first_line) = first_line {
                    return Err(at(
                        key_col,
                        ParseErrorKind::DuplicateKey {
                            key: key.to_string(),
                            first_line,
                        },
                    ));
                }
                if value.is_empty() {
                    return Err(at(value_col, ParseErrorKind::EmptyValue(key.to_string())));
                }
                if key == "variant" {
                    let v = value.parse::<Variant>().map_err(|_| {
                        at(value_col, ParseErrorKind::UnknownVariant(value.to_string()))
                    })?;
                    variant = Some((v, number));
                } else {
                    name = Some((value.to_string(), number));
                }
            }
            Some(Line::Row(toks)) => {
                let mut row = Vec::with_capacity(toks.len());
                for t in &toks {
                    row.push(cell(t.text).map_err(|k| at(t.col, k))?);
                }
                if let Some(first) = spans.first() {
                    if row.len() != first.len() {
                        let col = toks
                            .get(first.len())
                            .map_or(line.trim_end().chars().count() + 1, |t| t.col);
                        return Err(at(
                            col,
                            ParseErrorKind::Ragged {
                                found: row.len(),
                                expected: first.len(),
                                first_line: first[0].0,
                            },
                        ));
                    }
                }
                spans.push(toks.iter().map(|t| (number, t.col)).collect());
                grid.push(row);
            }
        }
    }
    let Some((variant, _)) = variant else {
        let (line, col) = spans.first().map_or((1, 1), |r| r[0]);
        return Err(ParseError {
            line,
            col,
            kind: ParseErrorKind::MissingVariant,
        });
    };
    if grid.is_empty() {
        return Err(ParseError {
            line: last_line,
            col: 1,
            kind: ParseErrorKind::NoGrid,
        });
    }
    Puzzle::new(variant, name.map(|n| n.0), grid).map_err(|e| locate(e, &spans))
}

/// Turns a board-level validation error into a located parse error.
fn locate(err: InvalidPuzzle, spans: &[Vec<(usize, usize)>]) -> ParseError {
    let span = |c: Coord| spans[c.row][c.col];
    let (line, col) = err.at().map_or(spans[0][0], span);
    let kind = match err {
        InvalidPuzzle::Duplicate { number, first, .. } => {
            let (first_line, first_col) = span(first);
            ParseErrorKind::Duplicate {
                number,
                first_line,
                first_col,
            }
        }
        InvalidPuzzle::OutOfRange { number, max, .. } => ParseErrorKind::OutOfRange { number, max },
        InvalidPuzzle::NoOpenCells => ParseErrorKind::NoOpenCells,
        InvalidPuzzle::NoStart => ParseErrorKind::NoStart,
        InvalidPuzzle::MissingWaypoint { missing, highest } => {
            ParseErrorKind::MissingWaypoint { missing, highest }
        }
        // The parser checks these itself, with better locations.
        InvalidPuzzle::NoGrid => ParseErrorKind::NoGrid,
        InvalidPuzzle::Ragged {
            expected, found, ..
        } => ParseErrorKind::Ragged {
            found,
            expected,
            first_line: spans[0][0].0,
        },
    };
    ParseError { line, col, kind }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_readme_example() {
        let p = parse("# comment\nvariant: waypoint\n. . 3 1\n2 4 . .\n. . . .\n").unwrap();
        assert_eq!((p.rows(), p.cols(), p.open_count()), (3, 4, 12));
        assert_eq!(p.variant, Variant::Waypoint);
        assert_eq!(p.cell(Coord::new(0, 3)), Some(Cell::Number(1)));
        assert_eq!(p.name, None);
    }

    #[test]
    fn accepts_crlf_bom_blank_lines_and_underscores() {
        let p = parse("\u{feff}name: tiny one \r\nvariant:hidato\r\n\r\n1 _\r\n# mid\r\nX 2\r\n")
            .unwrap();
        assert_eq!(p.name.as_deref(), Some("tiny one"));
        assert_eq!((p.rows(), p.cols(), p.open_count()), (2, 2, 3));
    }

    /// Each malformed input → the exact message with its location.
    #[test]
    fn error_table() {
        let cases: &[(&str, &str)] = &[
            ("variant: waypoint\n1 . a\n", "2:5: expected `.`, `_`, `X` or a positive number, found `a`"),
            ("variant: waypoint\n1 .\n. 0\n", "3:3: expected a positive number, found `0`"),
            ("variant: numbrix\n1 99999999999\n", "2:3: number `99999999999` is too large"),
            ("variant: numbrix\n1 2x\n", "2:3: expected `.`, `_`, `X` or a positive number, found `2x`"),
            ("variant: numbrix\nsize: 3\n1 .\n", "2:1: unknown directive `size`, expected `variant` or `name`"),
            ("variant: numbrix\n  a b: 3\n", "2:3: expected a directive key before `:`, found `a b`"),
            ("variant: numbrix\nvariant: hidato\n1 .\n", "2:1: directive `variant` given twice, first on line 1"),
            ("name:\nvariant: numbrix\n1 .\n", "1:6: expected a value after `name:`"),
            ("variant: sudoku\n1 .\n", "1:10: unknown variant `sudoku`, expected `waypoint`, `numbrix` or `hidato`"),
            ("# no variant\n\n1 .\n", "3:1: missing `variant:` directive, expected `variant: waypoint`, `numbrix` or `hidato`"),
            ("variant: numbrix\n# only comments\n", "3:1: no grid: expected rows of `.`, `_`, `X` or positive numbers"),
            ("variant: numbrix\n. . .\n. . . .\n", "3:7: this row has 4 cells, expected 3 like the first row (line 2)"),
            ("variant: numbrix\n. . .\n. .\n", "3:4: this row has 2 cells, expected 3 like the first row (line 2)"),
            ("variant: hidato\n1 . 2\n. 2 .\n", "3:3: number 2 appears twice, first on line 2, column 5"),
            ("variant: hidato\n1 . 7\n", "2:5: number 7 is out of range, expected 1..=3 (the number of open cells)"),
            ("variant: numbrix\nX X\n", "2:1: the grid has no open cells, expected at least one `.`, `_` or number"),
            ("variant: waypoint\n. 2\n", "2:1: a waypoint puzzle needs waypoint 1, where the path starts"),
            ("variant: waypoint\n. . .\n", "2:1: a waypoint puzzle needs waypoint 1, where the path starts"),
            ("variant: waypoint\n1 . 4\n2 . .\n", "2:1: a waypoint puzzle needs waypoints 1..=4, but 3 is missing"),
            ("", "1:1: missing `variant:` directive, expected `variant: waypoint`, `numbrix` or `hidato`"),
            ("variant: numbrix\n1 ½\n", "2:3: expected `.`, `_`, `X` or a positive number, found `½`"),
            ("variant: numbrix\n.\u{a0}é x\n", "2:3: expected `.`, `_`, `X` or a positive number, found `é`"),
        ];
        for (text, want) in cases {
            let got = parse(text).map(|_| ()).unwrap_err().to_string();
            assert_eq!(&got, want, "input {text:?}");
        }
    }

    proptest::proptest! {
        /// Arbitrary text never panics: it parses or gives a located error
        /// inside the text.
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC*") {
            if let Err(e) = parse(&text) {
                proptest::prop_assert!(e.line >= 1 && e.col >= 1);
                proptest::prop_assert!(e.line <= text.split('\n').count());
            }
        }

        /// A valid puzzle printed in the file format parses back to itself.
        #[test]
        fn printed_puzzles_parse_back(
            v in 0..3usize,
            rows in 1..6usize,
            cols in 1..6usize,
            cells in proptest::collection::vec(0..40u32, 36),
            name in proptest::option::of("[a-z][a-z0-9 -]{0,10}[a-z0-9]"),
        ) {
            let grid: Vec<Vec<Cell>> = (0..rows)
                .map(|r| (0..cols).map(|c| match cells[r * 6 + c] {
                    0..=5 => Cell::Blocked,
                    6..=29 => Cell::Blank,
                    k => Cell::Number(k - 29),
                }).collect())
                .collect();
            if let Ok(p) = Puzzle::new(Variant::ALL[v], name, grid) {
                let text = p.to_string();
                proptest::prop_assert_eq!(parse(&text), Ok(p), "{}", text);
            }
        }

        /// Text made of the format's own pieces: the near misses.
        #[test]
        fn near_misses_never_panic(
            lines in proptest::collection::vec(
                "(variant: (waypoint|numbrix|hidato|x)|name: [a-z ]*|#.*|[ ._X0-9xa:]{0,12})",
                0..8,
            )
        ) {
            let text = lines.join("\n");
            if let Ok(p) = parse(&text) {
                proptest::prop_assert!(p.open_count() >= 1);
            }
        }
    }
}
