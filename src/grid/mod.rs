//! Grid path puzzles: waypoint, Numbrix and Hidato.
//!
//! One family, three variants, all "visit every open cell exactly once along
//! one path" (see `DESIGN.md`, "Grid path puzzles"):
//!
//! | variant | moves | a number `k` on a cell means |
//! |---|---|---|
//! | [`Variant::Waypoint`] | orthogonal | waypoints are visited in increasing order; the path starts on 1 and ends on the highest |
//! | [`Variant::Numbrix`] | orthogonal | the cell is the `k`-th cell of the path |
//! | [`Variant::Hidato`] | orthogonal and diagonal | the cell is the `k`-th cell of the path |
//!
//! The stages, one submodule each:
//! * [`parse`](mod@parse): puzzle text → [`Puzzle`] (validated; errors carry line:column);
//! * [`compile`](mod@compile): [`Puzzle`] → [`crate::ir::System`] whose solutions are the
//!   puzzle's solutions;
//! * [`decode`](mod@decode): a [`crate::ir::Trace`] of that system → [`Solution`];
//! * [`check`](mod@check): an independent verifier of a [`Solution`] (never uses the IR);
//! * [`render`]: a [`Solution`] as a terminal grid, box-drawn path or JSON.
//!
//! Invariants of a [`Puzzle`] (established by [`Puzzle::new`], which the
//! parser also goes through): at least one row and column, every row the
//! same width, at least one open cell, given numbers distinct, numbrix/hidato
//! numbers in `1..=open cells`, waypoint numbers exactly `1..=m` for some
//! `m ≥ 1`.

pub mod check;
pub mod compile;
mod cuts;
pub mod decode;
mod moves;
pub mod no_path;
pub mod parse;
pub mod render;
pub mod strengthen;
pub mod successor;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use check::{check, CheckError};
pub use compile::{compile, CompileOptions};
pub use decode::{decode, DecodeError};
pub use parse::{parse, ParseError, ParseErrorKind};
pub use render::{render_grid, render_path, JsonSolution, Status};

/// The kind of grid path puzzle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    Waypoint,
    Numbrix,
    Hidato,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Waypoint, Variant::Numbrix, Variant::Hidato];

    /// The name used in puzzle files and JSON (`waypoint`, `numbrix`, `hidato`).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Waypoint => "waypoint",
            Variant::Numbrix => "numbrix",
            Variant::Hidato => "hidato",
        }
    }

    /// Whether diagonal moves are allowed (Hidato only).
    pub fn diagonal(self) -> bool {
        self == Variant::Hidato
    }

    /// Whether a number is the cell's 1-based position on the path.
    pub fn numbers_are_positions(self) -> bool {
        self != Variant::Waypoint
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `"waypoint"` etc. was not one of the three names.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("unknown variant `{0}`, expected `waypoint`, `numbrix` or `hidato`")]
pub struct UnknownVariant(pub String);

impl FromStr for Variant {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// A cell of the board as written in the puzzle file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// `.` or `_`: open, no number.
    Blank,
    /// `X`: not part of the path.
    Blocked,
    /// A positive integer: open, with a given number.
    Number(u32),
}

impl Cell {
    pub fn is_open(self) -> bool {
        self != Cell::Blocked
    }
}

/// A board position, 0-based row and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    pub row: usize,
    pub col: usize,
}

impl Coord {
    pub fn new(row: usize, col: usize) -> Coord {
        Coord { row, col }
    }

    /// Whether `other` is one move away (king moves when `diagonal`).
    pub fn adjacent(self, other: Coord, diagonal: bool) -> bool {
        self.moves(other, diagonal) == 1
    }

    /// The moves from here to `other` on a board with no blocked cell
    /// (king moves when `diagonal`): no more than on any board.
    pub fn moves(self, other: Coord, diagonal: bool) -> usize {
        let dr = self.row.abs_diff(other.row);
        let dc = self.col.abs_diff(other.col);
        if diagonal {
            dr.max(dc)
        } else {
            dr + dc
        }
    }
}

impl fmt::Display for Coord {
    /// `(row, col)`, 0-based.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.row, self.col)
    }
}

/// An open cell: 0-based index into [`Puzzle::open_cells`]. Open cells are
/// numbered along the board's longer side: row by row, or column by
/// column when the board has more columns than rows. (The `visited` bits
/// of the model follow this order, and NuSMV's BDDs stay much smaller when
/// consecutive bits run across the short side: 5x faster on a 4x16 board.)
/// This is the value of the model's `pos` variable.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellId(pub u32);

impl CellId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A position on the path, 1-based: the path's first cell is `Step(1)`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Step(pub u32);

/// Why cells do not form a valid puzzle. Grid coordinates are 0-based
/// (the parser turns them into line:column of the file).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum InvalidPuzzle {
    #[error("the grid has no rows")]
    NoGrid,
    #[error("row {row} has {found} cells, expected {expected} like the first row")]
    Ragged {
        row: usize,
        expected: usize,
        found: usize,
    },
    #[error("the grid has no open cells")]
    NoOpenCells,
    #[error("number {number} appears twice, first at {first}")]
    Duplicate {
        number: u32,
        first: Coord,
        at: Coord,
    },
    #[error("number {number} is out of range, expected 1..={max} (the number of open cells)")]
    OutOfRange { number: u32, max: usize, at: Coord },
    #[error("a waypoint puzzle needs waypoints 1..={highest}, but {missing} is missing")]
    MissingWaypoint { missing: u32, highest: u32 },
    #[error("a waypoint puzzle needs waypoint 1, where the path starts")]
    NoStart,
}

impl InvalidPuzzle {
    /// The grid cell the problem is at, if it is at one.
    pub fn at(&self) -> Option<Coord> {
        match self {
            InvalidPuzzle::Duplicate { at, .. } | InvalidPuzzle::OutOfRange { at, .. } => Some(*at),
            _ => None,
        }
    }
}

/// A validated grid path puzzle. See the module documentation for the
/// invariants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Puzzle {
    /// The `name:` directive, if any.
    pub name: Option<String>,
    pub variant: Variant,
    rows: usize,
    cols: usize,
    /// Row-major, `rows * cols` cells.
    cells: Vec<Cell>,
    /// Coordinates of the open cells in [`CellId`] order.
    open: Vec<Coord>,
    /// `id_of[row * cols + col]`: the open cell's id.
    id_of: Vec<Option<CellId>>,
    /// The board's graph and cuts ([`cuts::board`]), on first use.
    cuts: Memo<cuts::Board>,
}

/// A value worked out once from the rest of a [`Puzzle`] (which never
/// changes after [`Puzzle::new`]): it takes no part in comparisons or
/// in `{:?}`, which show the puzzle the same whether it was worked out or
/// not.
struct Memo<T>(std::sync::OnceLock<T>);

impl<T> fmt::Debug for Memo<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Memo")
    }
}

impl<T> Default for Memo<T> {
    fn default() -> Memo<T> {
        Memo(std::sync::OnceLock::new())
    }
}

/// A copy works its value out again (a clone of a puzzle is rarely
/// made, and then not for its cuts).
impl<T> Clone for Memo<T> {
    fn clone(&self) -> Memo<T> {
        Memo::default()
    }
}

impl<T> PartialEq for Memo<T> {
    fn eq(&self, _: &Memo<T>) -> bool {
        true
    }
}

impl<T> Eq for Memo<T> {}

impl Puzzle {
    /// Validates a board given as rows of cells.
    pub fn new(
        variant: Variant,
        name: Option<String>,
        grid: Vec<Vec<Cell>>,
    ) -> Result<Puzzle, InvalidPuzzle> {
        let cols = grid.first().ok_or(InvalidPuzzle::NoGrid)?.len();
        if cols == 0 {
            return Err(InvalidPuzzle::NoGrid);
        }
        if let Some((row, r)) = grid.iter().enumerate().find(|(_, r)| r.len() != cols) {
            return Err(InvalidPuzzle::Ragged {
                row,
                expected: cols,
                found: r.len(),
            });
        }
        let rows = grid.len();
        let cells: Vec<Cell> = grid.into_iter().flatten().collect();
        // `moves_from` relies on this order.
        let scan: Vec<Coord> = if cols > rows {
            (0..cols)
                .flat_map(|c| (0..rows).map(move |r| Coord::new(r, c)))
                .collect()
        } else {
            (0..rows)
                .flat_map(|r| (0..cols).map(move |c| Coord::new(r, c)))
                .collect()
        };
        let mut open = Vec::new();
        let mut id_of = vec![None; cells.len()];
        for at in scan {
            let i = at.row * cols + at.col;
            if cells[i].is_open() {
                id_of[i] = Some(CellId(open.len() as u32));
                open.push(at);
            }
        }
        if open.is_empty() {
            return Err(InvalidPuzzle::NoOpenCells);
        }
        let puzzle = Puzzle {
            name,
            variant,
            rows,
            cols,
            cells,
            open,
            id_of,
            cuts: Memo::default(),
        };
        puzzle.validate_numbers()?;
        Ok(puzzle)
    }

    fn validate_numbers(&self) -> Result<(), InvalidPuzzle> {
        let mut seen: std::collections::BTreeMap<u32, Coord> = Default::default();
        let n = self.open.len();
        for (i, cell) in self.cells.iter().enumerate() {
            let Cell::Number(k) = *cell else { continue };
            let at = Coord::new(i / self.cols, i % self.cols);
            if let Some(&first) = seen.get(&k) {
                return Err(InvalidPuzzle::Duplicate {
                    number: k,
                    first,
                    at,
                });
            }
            if self.variant.numbers_are_positions() && k as usize > n {
                return Err(InvalidPuzzle::OutOfRange {
                    number: k,
                    max: n,
                    at,
                });
            }
            seen.insert(k, at);
        }
        if self.variant == Variant::Waypoint {
            let highest = *seen.keys().next_back().ok_or(InvalidPuzzle::NoStart)?;
            if let Some(missing) = (1..=highest).find(|k| !seen.contains_key(k)) {
                return Err(if missing == 1 {
                    InvalidPuzzle::NoStart
                } else {
                    InvalidPuzzle::MissingWaypoint { missing, highest }
                });
            }
        }
        Ok(())
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The cell at `at`; `None` outside the board.
    pub fn cell(&self, at: Coord) -> Option<Cell> {
        (at.row < self.rows && at.col < self.cols).then(|| self.cells[at.row * self.cols + at.col])
    }

    /// The open cells in [`CellId`] order (see there).
    pub fn open_cells(&self) -> &[Coord] {
        &self.open
    }

    /// Number of open cells = length of every solution path.
    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// The id of the open cell at `at`; `None` if blocked or off the board.
    pub fn cell_id(&self, at: Coord) -> Option<CellId> {
        if at.row < self.rows && at.col < self.cols {
            self.id_of[at.row * self.cols + at.col]
        } else {
            None
        }
    }

    /// The coordinates of an open cell. Panics on an id not from this puzzle.
    pub fn coord(&self, id: CellId) -> Coord {
        self.open[id.index()]
    }

    /// The given number of an open cell, if any.
    pub fn number(&self, id: CellId) -> Option<u32> {
        match self.cell(self.coord(id)) {
            Some(Cell::Number(k)) => Some(k),
            _ => None,
        }
    }

    /// The open cells one move away from `id`, in increasing id order.
    pub fn neighbours(&self, id: CellId) -> Vec<CellId> {
        let mut out = Vec::with_capacity(if self.variant.diagonal() { 8 } else { 4 });
        out.extend(self.moves_from(self.coord(id)).map(|(d, _)| d));
        out
    }

    /// The open cells one move away from `at`, with their positions, in
    /// increasing id order: the moves are tried in the order the ids
    /// were handed out (row by row, or column by column on a wide board),
    /// so nothing needs sorting, and nothing is allocated. The no-path
    /// analysis and the models look at every cell's neighbours; through
    /// a growing, then sorted vector that was ~640 instructions a call
    /// (~360 now, most of it the vector's allocation).
    pub(crate) fn moves_from(&self, at: Coord) -> impl Iterator<Item = (CellId, Coord)> + '_ {
        const ORTHOGONAL: [(isize, isize); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];
        const KING: [(isize, isize); 8] = [
            (-1, -1),
            (-1, 0),
            (-1, 1),
            (0, -1),
            (0, 1),
            (1, -1),
            (1, 0),
            (1, 1),
        ];
        let steps: &[(isize, isize)] = match self.variant.diagonal() {
            true => &KING,
            false => &ORTHOGONAL,
        };
        // Row-major steps, read as (column, row) on a wide board.
        let by_column = self.cols > self.rows;
        steps.iter().filter_map(move |&(a, b)| {
            let (dr, dc) = if by_column { (b, a) } else { (a, b) };
            // Off the board wraps around to a row or column past the end.
            let to = Coord::new(
                at.row.wrapping_add_signed(dr),
                at.col.wrapping_add_signed(dc),
            );
            Some((self.cell_id(to)?, to))
        })
    }

    /// The given numbers with their cells, in increasing number order.
    pub fn givens(&self) -> Vec<(u32, CellId)> {
        let mut out: Vec<(u32, CellId)> = (0..self.open.len())
            .map(|i| CellId(i as u32))
            .filter_map(|id| self.number(id).map(|k| (k, id)))
            .collect();
        out.sort();
        out
    }

    /// Where every solution starts, if the puzzle fixes it: waypoint 1 or,
    /// for numbrix/hidato, the cell numbered 1.
    pub fn start(&self) -> Option<CellId> {
        self.givens().first().filter(|g| g.0 == 1).map(|g| g.1)
    }

    /// Where every solution ends, if the puzzle fixes it: the highest
    /// waypoint or, for numbrix/hidato, the cell numbered with the path
    /// length.
    pub fn end(&self) -> Option<CellId> {
        let last = *self.givens().last()?;
        match self.variant {
            Variant::Waypoint => Some(last.1),
            _ => (last.0 as usize == self.open.len()).then_some(last.1),
        }
    }

    /// The puzzle's display name: the `name:` directive, else `variant R×C`.
    pub fn title(&self) -> String {
        match &self.name {
            Some(n) => n.clone(),
            None => format!("{} {}x{}", self.variant, self.rows, self.cols),
        }
    }
}

impl fmt::Display for Puzzle {
    /// The puzzle file format: `name:` (if any), `variant:`, then the rows
    /// with right-aligned tokens. [`parse()`] reads it back to an equal puzzle.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = &self.name {
            writeln!(f, "name: {name}")?;
        }
        writeln!(f, "variant: {}", self.variant)?;
        let token = |c: &Cell| match c {
            Cell::Blank => ".".to_string(),
            Cell::Blocked => "X".to_string(),
            Cell::Number(k) => k.to_string(),
        };
        let width = self.cells.iter().map(|c| token(c).len()).max().unwrap_or(1);
        for row in self.cells.chunks(self.cols) {
            let toks: Vec<String> = row
                .iter()
                .map(|c| format!("{:>width$}", token(c)))
                .collect();
            writeln!(f, "{}", toks.join(" "))?;
        }
        Ok(())
    }
}

/// A solution: the path as a sequence of board positions; `path[k - 1]` is
/// the cell at [`Step`] `k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub path: Vec<Coord>,
}

impl Solution {
    /// The 1-based step of every board cell (`None` for cells not on the
    /// path), row by row.
    pub fn steps_grid(&self, rows: usize, cols: usize) -> Vec<Vec<Option<Step>>> {
        let mut grid = vec![vec![None; cols]; rows];
        for (i, c) in self.path.iter().enumerate() {
            if c.row < rows && c.col < cols {
                grid[c.row][c.col] = Some(Step(i as u32 + 1));
            }
        }
        grid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(variant: Variant, rows: &[&[Cell]]) -> Result<Puzzle, InvalidPuzzle> {
        Puzzle::new(variant, None, rows.iter().map(|r| r.to_vec()).collect())
    }

    use Cell::{Blank as B, Blocked as X, Number as N};

    /// The cuts a puzzle remembers change neither how it compares nor
    /// how it prints, and a copy works them out again, the same.
    #[test]
    fn remembered_cuts_are_not_part_of_the_puzzle() {
        let a = p(Variant::Hidato, &[&[B, B, B], &[B, X, B], &[N(1), B, B]]).unwrap();
        let b = a.clone();
        let pairs = cuts::board(&a).pairs(&a).to_vec();
        assert!(!pairs.is_empty());
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(a.clone().cuts.0.get().map(|_| ()), None);
        assert_eq!(cuts::board(&b).pairs(&b), &pairs[..]);
    }

    #[test]
    fn neighbours_follow_the_variant() {
        let rows: &[&[Cell]] = &[&[N(1), B, B], &[B, X, B], &[B, B, B]];
        let w = p(Variant::Numbrix, rows).unwrap();
        assert_eq!(w.open_count(), 8);
        // Cell (0,1) is id 1; its orthogonal neighbours are (0,0), (0,2).
        assert_eq!(w.neighbours(CellId(1)), vec![CellId(0), CellId(2)]);
        let h = p(Variant::Hidato, rows).unwrap();
        // (1,0) = id 3: (0,0), (0,1), (2,0), (2,1); (1,1) is blocked.
        assert_eq!(
            h.neighbours(CellId(3)),
            vec![CellId(0), CellId(1), CellId(5), CellId(6)]
        );
    }

    #[test]
    fn wide_boards_number_cells_column_by_column() {
        let w = p(Variant::Waypoint, &[&[N(1), B, X], &[B, B, N(2)]]).unwrap();
        let order = [(0, 0), (1, 0), (0, 1), (1, 1), (1, 2)];
        let want: Vec<Coord> = order.iter().map(|&(r, c)| Coord::new(r, c)).collect();
        assert_eq!(w.open_cells(), &want[..]);
        assert_eq!(w.cell_id(Coord::new(0, 1)), Some(CellId(2)));
        assert_eq!(
            w.neighbours(CellId(3)),
            vec![CellId(1), CellId(2), CellId(4)]
        );
    }

    #[test]
    fn validation_errors() {
        assert_eq!(p(Variant::Numbrix, &[]), Err(InvalidPuzzle::NoGrid));
        assert_eq!(
            p(Variant::Numbrix, &[&[X, X]]),
            Err(InvalidPuzzle::NoOpenCells)
        );
        assert!(matches!(
            p(Variant::Numbrix, &[&[B, B], &[B]]),
            Err(InvalidPuzzle::Ragged { row: 1, .. })
        ));
        assert!(matches!(
            p(Variant::Numbrix, &[&[N(3), B]]),
            Err(InvalidPuzzle::OutOfRange {
                number: 3,
                max: 2,
                ..
            })
        ));
        assert!(matches!(
            p(Variant::Hidato, &[&[N(1), N(1)]]),
            Err(InvalidPuzzle::Duplicate { number: 1, .. })
        ));
        assert_eq!(
            p(Variant::Waypoint, &[&[B, B]]),
            Err(InvalidPuzzle::NoStart)
        );
        assert_eq!(
            p(Variant::Waypoint, &[&[N(2), N(3)]]),
            Err(InvalidPuzzle::NoStart)
        );
        assert_eq!(
            p(Variant::Waypoint, &[&[N(1), N(3), B]]),
            Err(InvalidPuzzle::MissingWaypoint {
                missing: 2,
                highest: 3
            })
        );
        // Waypoint numbers are not positions: 9 on a 3-cell board is fine.
        assert!(p(Variant::Waypoint, &[&[N(1), B, B]]).is_ok());
    }

    #[test]
    fn start_and_end() {
        let w = p(Variant::Waypoint, &[&[N(2), B, N(1)]]).unwrap();
        assert_eq!((w.start(), w.end()), (Some(CellId(2)), Some(CellId(0))));
        let n = p(Variant::Numbrix, &[&[N(2), B, B]]).unwrap();
        assert_eq!((n.start(), n.end()), (None, None));
        let n = p(Variant::Numbrix, &[&[N(1), B, N(3)]]).unwrap();
        assert_eq!((n.start(), n.end()), (Some(CellId(0)), Some(CellId(2))));
    }
}
