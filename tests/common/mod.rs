//! Test helpers: a brute-force solver for grid path puzzles and the
//! corpus of `models/grid/`.
//!
//! The solver is deliberately naive (depth-first search over paths), so it
//! shares no idea with `grid::compile`. It prunes only with two facts that
//! are plain from the rules: the cells still to visit must be connected to
//! the path's end, and a given number `k` cannot be reached from step `s`
//! if its cell is more than `k - s` moves away even on an empty board.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use checkmate::grid::{Cell, Coord, Puzzle, Solution, Variant};

/// Counts solutions up to `cap` and returns the first one found.
pub fn brute_force(puzzle: &Puzzle, cap: usize) -> (usize, Option<Solution>) {
    let cells = puzzle.open_cells().to_vec();
    let n = cells.len();
    let number: Vec<Option<u32>> = cells
        .iter()
        .map(|&c| match puzzle.cell(c) {
            Some(Cell::Number(k)) => Some(k),
            _ => None,
        })
        .collect();
    // `given_at[s]`: step `s` (1-based) has a numbered cell.
    let mut given_at = vec![false; n + 2];
    for k in number.iter().flatten() {
        if (*k as usize) < given_at.len() {
            given_at[*k as usize] = true;
        }
    }
    let diagonal = puzzle.variant.diagonal();
    let adjacent: Vec<Vec<usize>> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| cells[i].adjacent(cells[j], diagonal))
                .collect()
        })
        .collect();
    let highest = number.iter().flatten().max().copied();
    let mut search = Search {
        variant: puzzle.variant,
        cells: &cells,
        number,
        given_at,
        adjacent,
        highest,
        used: vec![false; n],
        path: Vec::new(),
        reached: 0,
        count: 0,
        cap,
        first: None,
    };
    for start in 0..n {
        search.extend(start);
        if search.count >= cap {
            break;
        }
    }
    (search.count, search.first)
}

struct Search<'a> {
    variant: Variant,
    cells: &'a [Coord],
    number: Vec<Option<u32>>,
    given_at: Vec<bool>,
    adjacent: Vec<Vec<usize>>,
    highest: Option<u32>,
    used: Vec<bool>,
    path: Vec<usize>,
    /// Waypoint: the highest waypoint on the path so far.
    reached: u32,
    count: usize,
    cap: usize,
    first: Option<Solution>,
}

impl Search<'_> {
    /// Whether cell `i` may be the next cell of the path (the rules of the
    /// variant, read directly).
    fn allowed(&self, i: usize) -> bool {
        let step = self.path.len() as u32 + 1;
        match (self.variant, self.number[i]) {
            // Numbrix/hidato: a numbered cell only at its step; a step
            // with a numbered cell only there.
            (Variant::Numbrix | Variant::Hidato, Some(k)) => k == step,
            (Variant::Numbrix | Variant::Hidato, None) => !self.given_at[step as usize],
            // Waypoint: start on 1, then the next waypoint only.
            (Variant::Waypoint, Some(k)) => k == self.reached + 1,
            (Variant::Waypoint, None) => step > 1,
        }
    }

    fn extend(&mut self, i: usize) {
        if self.count >= self.cap || self.used[i] || !self.allowed(i) {
            return;
        }
        let before = self.reached;
        if let Some(k) = self.number[i] {
            self.reached = self.reached.max(k);
        }
        self.used[i] = true;
        self.path.push(i);
        if self.path.len() == self.cells.len() {
            // Waypoint: the path ends on the highest number.
            let ends_right = self.variant != Variant::Waypoint || self.number[i] == self.highest;
            if ends_right {
                self.count += 1;
                if self.first.is_none() {
                    self.first = Some(Solution {
                        path: self.path.iter().map(|&j| self.cells[j]).collect(),
                    });
                }
            }
        } else if self.may_finish(i) {
            for k in 0..self.adjacent[i].len() {
                let j = self.adjacent[i][k];
                self.extend(j);
            }
        }
        self.path.pop();
        self.used[i] = false;
        self.reached = before;
    }
}

impl Search<'_> {
    /// Whether a path ending at `i` can still be completed, as far as
    /// connectivity and the distance to the numbers still ahead tell.
    fn may_finish(&self, i: usize) -> bool {
        let step = self.path.len() as u32;
        if self.variant != Variant::Waypoint {
            let far = (0..self.cells.len()).any(|j| match self.number[j] {
                Some(k) if k > step => self.moves(i, j) > (k - step) as usize,
                _ => false,
            });
            if far {
                return false;
            }
        }
        // Flood fill over unused cells from the end of the path.
        let mut seen = self.used.clone();
        let mut stack = vec![i];
        let mut reached = self.path.len();
        while let Some(a) = stack.pop() {
            for &b in &self.adjacent[a] {
                if !seen[b] {
                    seen[b] = true;
                    reached += 1;
                    stack.push(b);
                }
            }
        }
        reached == self.cells.len()
    }

    /// Moves between two cells on an empty board.
    fn moves(&self, a: usize, b: usize) -> usize {
        let (x, y) = (self.cells[a], self.cells[b]);
        let (dr, dc) = (x.row.abs_diff(y.row), x.col.abs_diff(y.col));
        if self.variant.diagonal() {
            dr.max(dc)
        } else {
            dr + dc
        }
    }
}

/// The puzzle files of `models/<dir>/`, sorted.
pub fn corpus(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models")
        .join(dir);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    files
}

/// Reads and parses a corpus file; the name is the file stem.
pub fn load(path: &Path) -> (String, Puzzle) {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    let text = fs::read_to_string(path).unwrap();
    let puzzle = checkmate::grid::parse(&text).unwrap_or_else(|e| panic!("{stem}:{e}"));
    (stem, puzzle)
}

/// The real NuSMV, or `None` with a visible "skipping" note when it is
/// missing; under `CI` a missing NuSMV fails the test instead.
pub fn nusmv() -> Option<checkmate::checker::Checker> {
    use checkmate::checker::{Checker, Tool};
    match Checker::locate(Tool::NuSmv, None) {
        Ok(c) => Some(c),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but NuSMV is missing ({e}); run scripts/install-nusmv.sh")
        }
        Err(e) => {
            // Written past the test harness's capture so it is seen.
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "skipping the NuSMV part: {e}");
            None
        }
    }
}
