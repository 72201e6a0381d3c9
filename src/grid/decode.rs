//! [`Trace`] of a compiled grid system → [`Solution`].
//!
//! Input: a puzzle and a trace over the variables of the system that
//! [`super::compile()`] or [`super::successor::compile`] built for it (any
//! engine's). Output: the path, one board cell per step: read from `pos`
//! ([`super::compile::POS`], an integer) in the first `n` states (`n` =
//! open cells) of a step-by-step model's trace, or, when variable 0 is a
//! direction (`succ_0` of the successor model), by following the
//! successors of the first state from waypoint 1. Later states, if any,
//! are the stuttering extension of a solved path (NuSMV's BDD engine
//! prints a lasso) and are ignored here; the IR evaluator checks them.
//!
//! Decoding does not verify the path: [`super::check()`] does, independently.

use thiserror::Error;

use super::compile::POS;
use super::{CellId, Puzzle, Solution};
use crate::ir::{Trace, Value};

/// Why a trace cannot be read as a path of the puzzle.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DecodeError {
    #[error("the trace has {found} states, a path of this puzzle needs {expected}")]
    TooShort { expected: usize, found: usize },
    #[error("state {state}: `pos` is missing")]
    Missing { state: usize },
    #[error("state {state}: `pos` = {value} is not an open cell (expected 0..={max})")]
    NotACell {
        state: usize,
        value: String,
        max: usize,
    },
    #[error("the successors do not lead from waypoint 1 to the end through open cells")]
    NotAWalk,
}

/// Reads the path from the first `n` states of `trace`.
pub fn decode(puzzle: &Puzzle, trace: &Trace) -> Result<Solution, DecodeError> {
    if let Some(state @ [Value::Sym(_), ..]) = trace.states.first().map(|s| s.as_slice()) {
        let path = super::successor::walk(puzzle, state).ok_or(DecodeError::NotAWalk)?;
        return Ok(Solution {
            path: path.into_iter().map(|c| puzzle.coord(c)).collect(),
        });
    }
    let n = puzzle.open_count();
    if trace.states.len() < n {
        return Err(DecodeError::TooShort {
            expected: n,
            found: trace.states.len(),
        });
    }
    let path = trace.states[..n]
        .iter()
        .enumerate()
        .map(|(state, values)| {
            let value = values
                .get(POS.index())
                .ok_or(DecodeError::Missing { state })?;
            match value {
                Value::Int(i) if (0..n as i64).contains(i) => Ok(puzzle.coord(CellId(*i as u32))),
                other => Err(DecodeError::NotACell {
                    state,
                    value: other.to_string(),
                    max: n - 1,
                }),
            }
        })
        .collect::<Result<_, _>>()?;
    Ok(Solution { path })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::{parse, Coord};

    fn states(pos: &[Value]) -> Trace {
        Trace {
            states: pos.iter().map(|p| vec![p.clone()]).collect(),
            loop_start: None,
        }
    }

    #[test]
    fn reads_pos_and_ignores_stuttering() {
        let p = parse("variant: numbrix\n. X\n. .\n").unwrap();
        let t = states(&[1, 2, 0, 0, 0].map(Value::Int));
        let s = decode(&p, &t).unwrap();
        assert_eq!(
            s.path,
            vec![Coord::new(1, 0), Coord::new(1, 1), Coord::new(0, 0)]
        );
    }

    #[test]
    fn errors() {
        let p = parse("variant: numbrix\n. .\n").unwrap();
        assert_eq!(
            decode(&p, &states(&[Value::Int(0)])),
            Err(DecodeError::TooShort {
                expected: 2,
                found: 1
            })
        );
        assert_eq!(
            decode(&p, &states(&[Value::Int(0), Value::Int(2)]))
                .unwrap_err()
                .to_string(),
            "state 1: `pos` = 2 is not an open cell (expected 0..=1)"
        );
        assert!(matches!(
            decode(&p, &states(&[Value::Bool(true), Value::Int(1)])),
            Err(DecodeError::NotACell { state: 0, .. })
        ));
        let empty = Trace {
            states: vec![vec![], vec![]],
            loop_start: None,
        };
        assert_eq!(decode(&p, &empty), Err(DecodeError::Missing { state: 0 }));
    }
}
