//! The independent verifier: is a [`Solution`] a solution of the
//! [`Puzzle`]?
//!
//! Input: a puzzle and a path. Output: `Ok(())` or the first violated rule.
//! It reads only the puzzle's cells and the rules of the variant, never the
//! IR or the compiled model, so a bug in `compile` cannot hide itself here.
//!
//! Rules: the path has one entry per open cell; every entry is an open
//! cell on the board; no cell twice; consecutive cells are one move apart
//! (orthogonal, or also diagonal for hidato); numbrix/hidato: the cell
//! numbered `k` is at step `k`; waypoint: the path starts on 1, ends on the
//! highest number and meets the numbers in increasing order.

use std::collections::HashMap;

use thiserror::Error;

use super::{Cell, Coord, Puzzle, Solution, Step, Variant};

/// The first rule a path breaks. Steps are 1-based.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CheckError {
    #[error("the path has {found} cells, the puzzle has {expected} open cells")]
    Length { expected: usize, found: usize },
    #[error("step {}: {at} is off the board", .step.0)]
    OffBoard { step: Step, at: Coord },
    #[error("step {}: {at} is blocked", .step.0)]
    Blocked { step: Step, at: Coord },
    #[error("step {}: {at} was already visited at step {}", .step.0, .first.0)]
    Revisit { step: Step, at: Coord, first: Step },
    #[error("step {}: {from} to {to} is not a move", .step.0)]
    NotAdjacent { step: Step, from: Coord, to: Coord },
    #[error("the cell numbered {number} at {at} is at step {}", .step.0)]
    Given { number: u32, at: Coord, step: Step },
    #[error("the path must start on waypoint 1, it starts on {at}")]
    Start { at: Coord },
    #[error("the path must end on waypoint {highest}, it ends on {at}")]
    End { highest: u32, at: Coord },
    #[error("step {}: waypoint {number} reached after waypoint {previous}", .step.0)]
    Order {
        step: Step,
        number: u32,
        previous: u32,
    },
}

/// Verifies `solution` against `puzzle`. See the module documentation.
pub fn check(puzzle: &Puzzle, solution: &Solution) -> Result<(), CheckError> {
    let path = &solution.path;
    let expected = puzzle.open_count();
    if path.len() != expected {
        return Err(CheckError::Length {
            expected,
            found: path.len(),
        });
    }
    let mut seen: HashMap<Coord, Step> = HashMap::new();
    for (i, &at) in path.iter().enumerate() {
        let step = Step(i as u32 + 1);
        match puzzle.cell(at) {
            None => return Err(CheckError::OffBoard { step, at }),
            Some(Cell::Blocked) => return Err(CheckError::Blocked { step, at }),
            Some(_) => {}
        }
        if let Some(&first) = seen.get(&at) {
            return Err(CheckError::Revisit { step, at, first });
        }
        seen.insert(at, step);
        if i > 0 && !path[i - 1].adjacent(at, puzzle.variant.diagonal()) {
            return Err(CheckError::NotAdjacent {
                step,
                from: path[i - 1],
                to: at,
            });
        }
    }
    match puzzle.variant {
        Variant::Waypoint => check_waypoints(puzzle, path),
        Variant::Numbrix | Variant::Hidato => check_positions(puzzle, path),
    }
}

fn number_at(puzzle: &Puzzle, at: Coord) -> Option<u32> {
    match puzzle.cell(at) {
        Some(Cell::Number(k)) => Some(k),
        _ => None,
    }
}

fn check_positions(puzzle: &Puzzle, path: &[Coord]) -> Result<(), CheckError> {
    for (i, &at) in path.iter().enumerate() {
        let step = Step(i as u32 + 1);
        if let Some(number) = number_at(puzzle, at) {
            if number != step.0 {
                return Err(CheckError::Given { number, at, step });
            }
        }
    }
    Ok(())
}

fn check_waypoints(puzzle: &Puzzle, path: &[Coord]) -> Result<(), CheckError> {
    let first = path[0];
    if number_at(puzzle, first) != Some(1) {
        return Err(CheckError::Start { at: first });
    }
    let mut previous = 0;
    for (i, &at) in path.iter().enumerate() {
        if let Some(number) = number_at(puzzle, at) {
            if number != previous + 1 {
                return Err(CheckError::Order {
                    step: Step(i as u32 + 1),
                    number,
                    previous,
                });
            }
            previous = number;
        }
    }
    // Every open cell is on the path, so every waypoint was met in order;
    // the last cell must be the highest one.
    let last = path[path.len() - 1];
    if number_at(puzzle, last) != Some(previous) {
        return Err(CheckError::End {
            highest: previous,
            at: last,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::parse;

    fn path(cells: &[(usize, usize)]) -> Solution {
        Solution {
            path: cells.iter().map(|&(r, c)| Coord::new(r, c)).collect(),
        }
    }

    #[test]
    fn accepts_solutions() {
        let w = parse("variant: waypoint\n. . 3 1\n2 4 . .\n. . . .\n").unwrap();
        // The solution NuSMV 2.5.4 found for the README example.
        let cells = [3, 7, 11, 10, 9, 8, 4, 0, 1, 2, 6, 5];
        let sol = path(&cells.map(|i| (i / 4, i % 4)));
        assert_eq!(check(&w, &sol), Ok(()));
        let h = parse("variant: hidato\n1 .\n. 4\n").unwrap();
        assert_eq!(check(&h, &path(&[(0, 0), (1, 0), (0, 1), (1, 1)])), Ok(()));
        let one = parse("variant: numbrix\nX .\n").unwrap();
        assert_eq!(check(&one, &path(&[(0, 1)])), Ok(()));
    }

    #[test]
    fn rejects_each_broken_rule() {
        let n = parse("variant: numbrix\n1 . X\n. . .\n").unwrap();
        let cases: &[(&[(usize, usize)], &str)] = &[
            (
                &[(0, 0)],
                "the path has 1 cells, the puzzle has 5 open cells",
            ),
            (
                &[(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)],
                "step 5: (2, 2) is off the board",
            ),
            (
                &[(0, 0), (0, 1), (0, 2), (1, 2), (1, 1)],
                "step 3: (0, 2) is blocked",
            ),
            (
                &[(0, 0), (0, 1), (0, 0), (1, 2), (1, 1)],
                "step 3: (0, 0) was already visited at step 1",
            ),
            (
                &[(0, 0), (1, 1), (0, 1), (1, 0), (1, 2)],
                "step 2: (0, 0) to (1, 1) is not a move",
            ),
            (
                &[(1, 0), (0, 0), (0, 1), (1, 1), (1, 2)],
                "the cell numbered 1 at (0, 0) is at step 2",
            ),
        ];
        for (cells, want) in cases {
            assert_eq!(check(&n, &path(cells)).unwrap_err().to_string(), *want);
        }
        let w = parse("variant: waypoint\n1 . 3\n. 2 .\n").unwrap();
        let cases: &[(&[(usize, usize)], &str)] = &[
            (
                &[(0, 1), (0, 0), (1, 0), (1, 1), (1, 2), (0, 2)],
                "the path must start on waypoint 1, it starts on (0, 1)",
            ),
            (
                &[(0, 0), (0, 1), (0, 2), (1, 2), (1, 1), (1, 0)],
                "step 3: waypoint 3 reached after waypoint 1",
            ),
            (
                &[(0, 0), (1, 0), (1, 1), (0, 1), (0, 2), (1, 2)],
                "the path must end on waypoint 3, it ends on (1, 2)",
            ),
        ];
        for (cells, want) in cases {
            assert_eq!(check(&w, &path(cells)).unwrap_err().to_string(), *want);
        }
        // Diagonal moves only for hidato.
        let h = parse("variant: numbrix\n1 .\n. .\n").unwrap();
        assert!(matches!(
            check(&h, &path(&[(0, 0), (1, 1), (0, 1), (1, 0)])),
            Err(CheckError::NotAdjacent { .. })
        ));
    }
}
