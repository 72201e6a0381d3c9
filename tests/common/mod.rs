//! Test helpers: a brute-force solver for grid path puzzles and the
//! corpus of `models/grid/`.
//!
//! The solver is deliberately naive (depth-first search over paths, no
//! pruning beyond the rules), so it shares no idea with `grid::compile`.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use checkmate::grid::{Cell, Coord, Puzzle, Solution, Variant};

/// Counts solutions up to `cap` and returns the first one found.
pub fn brute_force(puzzle: &Puzzle, cap: usize) -> (usize, Option<Solution>) {
    let cells = puzzle.open_cells().to_vec();
    let mut search = Search {
        puzzle,
        cells: &cells,
        used: vec![false; cells.len()],
        path: Vec::new(),
        count: 0,
        cap,
        first: None,
    };
    for start in 0..cells.len() {
        search.extend(start);
        if search.count >= cap {
            break;
        }
    }
    (search.count, search.first)
}

struct Search<'a> {
    puzzle: &'a Puzzle,
    cells: &'a [Coord],
    used: Vec<bool>,
    path: Vec<usize>,
    count: usize,
    cap: usize,
    first: Option<Solution>,
}

impl Search<'_> {
    fn number(&self, i: usize) -> Option<u32> {
        match self.puzzle.cell(self.cells[i]) {
            Some(Cell::Number(k)) => Some(k),
            _ => None,
        }
    }

    /// Whether cell `i` may be the next cell of the path.
    fn allowed(&self, i: usize) -> bool {
        let step = self.path.len() as u32 + 1;
        match self.puzzle.variant {
            Variant::Numbrix | Variant::Hidato => {
                // A numbered cell only at its step; a step with a numbered
                // cell only there.
                match self.number(i) {
                    Some(k) => k == step,
                    None => !(0..self.cells.len()).any(|j| self.number(j) == Some(step)),
                }
            }
            Variant::Waypoint => {
                let reached = self
                    .path
                    .iter()
                    .filter_map(|&j| self.number(j))
                    .max()
                    .unwrap_or(0);
                match self.number(i) {
                    Some(k) => k == reached + 1,
                    None => step > 1,
                }
            }
        }
    }

    fn extend(&mut self, i: usize) {
        if self.count >= self.cap || self.used[i] || !self.allowed(i) {
            return;
        }
        if let Some(&last) = self.path.last() {
            if !self.cells[last].adjacent(self.cells[i], self.puzzle.variant.diagonal()) {
                return;
            }
        }
        self.used[i] = true;
        self.path.push(i);
        if self.path.len() == self.cells.len() {
            if self.complete() {
                self.count += 1;
                if self.first.is_none() {
                    self.first = Some(Solution {
                        path: self.path.iter().map(|&j| self.cells[j]).collect(),
                    });
                }
            }
        } else {
            for j in 0..self.cells.len() {
                self.extend(j);
            }
        }
        self.path.pop();
        self.used[i] = false;
    }

    /// Waypoint: the path ends on the highest number.
    fn complete(&self) -> bool {
        if self.puzzle.variant != Variant::Waypoint {
            return true;
        }
        let highest = (0..self.cells.len()).filter_map(|j| self.number(j)).max();
        self.number(*self.path.last().unwrap()) == highest
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
