//! [`Solution`] → text for people and JSON for programs.
//!
//! Input: a puzzle and (usually verified) solution. Output:
//! * [`render_grid`]: the grid of 1-based path positions, right-aligned,
//!   blocked cells as `X`;
//! * [`render_path`]: the path drawn with box-drawing characters (`●` at
//!   both ends, `╲`/`╱`/`╳` for Hidato's diagonal moves, `█` blocked);
//! * [`JsonSolution`]: the JSON object of `DESIGN.md`,
//!   `{"status", "variant", "rows", "cols", "path": [[r, c], …],
//!   "grid": [[n|null, …], …], "engine", "bound", "solutions"?, "unique"?}`
//!   with 0-based `[row, col]` and 1-based positions in `grid`.

use serde::Serialize;

use super::{Coord, Puzzle, Solution};

/// Outcome of solving, as printed in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A solution was found (and verified).
    Solved,
    /// No solution exists.
    Unsat,
    /// A limit was reached before an answer.
    Unknown,
}

/// The JSON form of an answer. `path` is empty and `grid` is `null` unless
/// `status` is `solved`; `solutions`/`unique` are left out unless counting
/// was asked for (`unique` is `null` when the count hit its cap).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JsonSolution {
    pub status: Status,
    pub variant: String,
    pub rows: usize,
    pub cols: usize,
    pub path: Vec<[usize; 2]>,
    pub grid: Option<Vec<Vec<Option<u32>>>>,
    pub engine: String,
    pub bound: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solutions: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique: Option<Option<bool>>,
    /// The limit that stopped the search early (`timeout`, `interrupted`,
    /// the count cap, ...): the answer is what was found by then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl JsonSolution {
    /// The answer for `puzzle`: solved with `solution`, or not (`None`).
    /// Counting fields are unset; fill them in when counting was asked for.
    pub fn new(
        puzzle: &Puzzle,
        status: Status,
        solution: Option<&Solution>,
        engine: &str,
        bound: Option<usize>,
    ) -> JsonSolution {
        let (path, grid) = match solution {
            Some(s) => (
                s.path.iter().map(|c| [c.row, c.col]).collect(),
                Some(
                    s.steps_grid(puzzle.rows(), puzzle.cols())
                        .into_iter()
                        .map(|row| row.into_iter().map(|st| st.map(|s| s.0)).collect())
                        .collect(),
                ),
            ),
            None => (Vec::new(), None),
        };
        JsonSolution {
            status,
            variant: puzzle.variant.name().to_string(),
            rows: puzzle.rows(),
            cols: puzzle.cols(),
            path,
            grid,
            engine: engine.to_string(),
            bound,
            solutions: None,
            unique: None,
            stopped: None,
        }
    }
}

/// The grid of path positions (1-based), right-aligned; `X` for blocked
/// cells, `.` for open cells not on the path. One line per row, each ending
/// in `\n`.
pub fn render_grid(puzzle: &Puzzle, solution: &Solution) -> String {
    let steps = solution.steps_grid(puzzle.rows(), puzzle.cols());
    let width = puzzle.open_count().to_string().len();
    let mut out = String::new();
    for (r, row) in steps.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, st)| {
                let text = match (st, puzzle.cell_id(Coord::new(r, c))) {
                    (Some(s), _) => s.0.to_string(),
                    (None, Some(_)) => ".".to_string(),
                    (None, None) => "X".to_string(),
                };
                format!("{text:>width$}")
            })
            .collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
    }
    out
}

/// The path drawn with box-drawing characters on a `(2R-1) x (2C-1)`
/// canvas: cells on even positions, links between them.
pub fn render_path(puzzle: &Puzzle, solution: &Solution) -> String {
    let (rows, cols) = (puzzle.rows(), puzzle.cols());
    let (h, w) = (2 * rows - 1, 2 * cols - 1);
    let mut canvas = vec![vec![' '; w]; h];
    for r in 0..rows {
        for c in 0..cols {
            let open = puzzle.cell_id(Coord::new(r, c)).is_some();
            canvas[2 * r][2 * c] = if open { '·' } else { '█' };
        }
    }
    // Directions linked at each cell: up, down, left, right, diagonal.
    let mut links = vec![[false; 5]; rows * cols];
    let on_board = |c: &Coord| c.row < rows && c.col < cols;
    for pair in solution.path.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if !on_board(&a) || !on_board(&b) || !a.adjacent(b, true) {
            continue;
        }
        let (y, x) = (a.row + b.row, a.col + b.col);
        let diagonal = a.row != b.row && a.col != b.col;
        canvas[y][x] = if !diagonal {
            if a.row == b.row {
                '─'
            } else {
                '│'
            }
        } else {
            // `╲` joins top-left and bottom-right.
            let glyph = if (a.row < b.row) == (a.col < b.col) {
                '╲'
            } else {
                '╱'
            };
            match canvas[y][x] {
                ' ' => glyph,
                g if g == glyph => glyph,
                _ => '╳',
            }
        };
        for (from, to) in [(a, b), (b, a)] {
            let l = &mut links[from.row * cols + from.col];
            if diagonal {
                l[4] = true;
            } else if to.row < from.row {
                l[0] = true;
            } else if to.row > from.row {
                l[1] = true;
            } else if to.col < from.col {
                l[2] = true;
            } else {
                l[3] = true;
            }
        }
    }
    for (i, at) in solution.path.iter().enumerate() {
        if !on_board(at) {
            continue;
        }
        let end = i == 0 || i + 1 == solution.path.len();
        canvas[2 * at.row][2 * at.col] = if end {
            '●'
        } else {
            match links[at.row * cols + at.col] {
                [true, true, false, false, false] => '│',
                [false, false, true, true, false] => '─',
                [false, true, false, true, false] => '┌',
                [false, true, true, false, false] => '┐',
                [true, false, false, true, false] => '└',
                [true, false, true, false, false] => '┘',
                _ => '•',
            }
        };
    }
    canvas
        .into_iter()
        .map(|row| {
            let line: String = row.into_iter().collect();
            format!("{}\n", line.trim_end())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::parse;

    fn readme() -> (Puzzle, Solution) {
        let p = parse("variant: waypoint\n. . 3 1\n2 4 . .\n. . . .\n").unwrap();
        let cells = [3, 7, 11, 10, 9, 8, 4, 0, 1, 2, 6, 5];
        let path = cells.iter().map(|i| Coord::new(i / 4, i % 4)).collect();
        (p, Solution { path })
    }

    #[test]
    fn grid_of_positions() {
        let (p, s) = readme();
        assert_eq!(
            render_grid(&p, &s),
            " 8  9 10  1\n 7 12 11  2\n 6  5  4  3\n"
        );
    }

    #[test]
    fn box_drawn_path() {
        let (p, s) = readme();
        assert_eq!(
            render_path(&p, &s),
            "┌───┐ ●\n│   │ │\n│ ●─┘ │\n│     │\n└─────┘\n"
        );
    }

    #[test]
    fn diagonals_and_blocks() {
        let p = parse("variant: hidato\n1 X\n. 2\n").unwrap();
        let path = vec![Coord::new(0, 0), Coord::new(1, 1), Coord::new(1, 0)];
        let s = Solution { path };
        assert_eq!(render_path(&p, &s), "● █\n ╲\n●─•\n");
        assert_eq!(render_grid(&p, &s), "1 X\n3 2\n");
    }

    #[test]
    fn json_shape() {
        let (p, s) = readme();
        let mut j = JsonSolution::new(&p, Status::Solved, Some(&s), "nusmv-bdd", Some(11));
        let text = serde_json::to_string(&j).unwrap();
        assert!(text.starts_with(
            r#"{"status":"solved","variant":"waypoint","rows":3,"cols":4,"path":[[0,3],[1,3],"#
        ));
        assert!(text.ends_with(r#""engine":"nusmv-bdd","bound":11}"#));
        j.solutions = Some(2);
        j.unique = Some(Some(false));
        let text = serde_json::to_string(&j).unwrap();
        assert!(text.ends_with(r#""bound":11,"solutions":2,"unique":false}"#));
        let u = JsonSolution::new(&p, Status::Unsat, None, "bmc", None);
        let text = serde_json::to_string(&u).unwrap();
        assert!(text.contains(r#""status":"unsat""#) && text.contains(r#""path":[],"grid":null"#));
    }
}
