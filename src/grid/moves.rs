//! The moves of a board, worked out once per model: every open cell's
//! neighbours with the direction of the move to each.
//!
//! Input: a [`Puzzle`]. Output: [`Moves`], each cell's neighbours in
//! the order of [`Puzzle::neighbours`] (increasing id), all in one
//! vector; [`Dir`], a direction as a small index, whose name and shared
//! symbol are looked up rather than compared as strings.
//!
//! Why: the successor model's builders asked for a cell's neighbours
//! (a new vector each time) and named each move's direction hundreds of
//! times per board, and matched the names against the variables'
//! domains thousands of times (the cycle bans look at every short cycle
//! of the board).

use std::sync::{Arc, OnceLock};

use super::{CellId, Coord, Puzzle};
use crate::ir::{Expr, Value, VarId};

/// A value of a `succ_i` variable: the direction of the move out of a
/// cell, or [`Dir::END`]. 0-based index into [`Dir::NAMES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Dir(u8);

impl Dir {
    /// The names, clockwise from north, then the last cell's `end`.
    const NAMES: [&'static str; 9] = ["n", "ne", "e", "se", "s", "sw", "w", "nw", "end"];

    /// No move: the value of the last cell's `succ_i`.
    pub(super) const END: Dir = Dir(8);

    /// The direction of the move from `a` to the adjacent `b`.
    pub(super) fn between(a: Coord, b: Coord) -> Dir {
        use std::cmp::Ordering::{Equal, Greater, Less};
        Dir(match (b.row.cmp(&a.row), b.col.cmp(&a.col)) {
            (Less, Equal) => 0,
            (Less, Greater) => 1,
            (Equal, Greater) => 2,
            (Greater, Greater) => 3,
            (Greater, Equal) => 4,
            (Greater, Less) => 5,
            (Equal, Less) => 6,
            (Less, Less) => 7,
            (Equal, Equal) => unreachable!("a move goes to another cell"),
        })
    }

    /// The direction called `name` (one of [`Dir::NAMES`]).
    pub(super) fn named(name: &str) -> Option<Dir> {
        let i = Dir::NAMES.iter().position(|&n| n == name)?;
        Some(Dir(i as u8))
    }

    pub(super) fn name(self) -> &'static str {
        Dir::NAMES[self.index()]
    }

    /// 0-based, `0..9`: a bit of a set of directions, or an index.
    pub(super) fn index(self) -> usize {
        self.0 as usize
    }

    /// The move back (not for [`Dir::END`]).
    pub(super) fn reverse(self) -> Dir {
        debug_assert!(self != Dir::END);
        Dir((self.0 + 4) % 8)
    }

    /// The direction as a value, its symbol shared: the grid models
    /// write tens of thousands of these, and a new symbol each time was
    /// a fifth of the model's construction.
    pub(super) fn value(self) -> Value {
        static SYMBOLS: OnceLock<[Arc<str>; 9]> = OnceLock::new();
        let symbols = SYMBOLS.get_or_init(|| Dir::NAMES.map(Arc::from));
        Value::Sym(symbols[self.index()].clone())
    }

    /// `succ = dir`.
    pub(super) fn is(self, succ: VarId) -> Expr {
        Expr::eq(Expr::var(succ), Expr::Const(self.value()))
    }
}

/// Every open cell's moves, `(neighbour, direction)`, by cell id.
pub(super) struct Moves {
    /// Cell `c`'s moves are `to[first[c]..first[c + 1]]`.
    first: Vec<u32>,
    to: Vec<(CellId, Dir)>,
}

impl Moves {
    pub(super) fn new(p: &Puzzle) -> Moves {
        let n = p.open_count();
        let mut first = Vec::with_capacity(n + 1);
        let mut to = Vec::with_capacity(n * if p.variant.diagonal() { 8 } else { 4 });
        first.push(0);
        for &at in p.open_cells() {
            to.extend(
                p.moves_from(at)
                    .map(|(d, there)| (d, Dir::between(at, there))),
            );
            first.push(to.len() as u32);
        }
        Moves { first, to }
    }

    /// The number of moves on the board (each way counted).
    pub(super) fn count(&self) -> usize {
        self.to.len()
    }

    /// The moves out of `c`, by increasing neighbour id.
    pub(super) fn from(&self, c: CellId) -> &[(CellId, Dir)] {
        let i = c.index();
        &self.to[self.first[i] as usize..self.first[i + 1] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::parse;

    #[test]
    fn moves_are_the_neighbours_with_their_directions() {
        for text in [
            "variant: hidato\n1 . .\n. X .\n. . .\n. . .\n",
            "variant: numbrix\n1 . . . X\n. X . . .\n",
        ] {
            let p = parse::parse(text).unwrap();
            let moves = Moves::new(&p);
            for i in 0..p.open_count() as u32 {
                let c = CellId(i);
                let want: Vec<(CellId, &str)> = p
                    .neighbours(c)
                    .into_iter()
                    .map(|d| (d, super::super::strengthen::direction(&p, c, d)))
                    .collect();
                let got: Vec<(CellId, &str)> = moves
                    .from(c)
                    .iter()
                    .map(|&(d, dir)| (d, dir.name()))
                    .collect();
                assert_eq!(got, want, "{text}");
                for &(d, dir) in moves.from(c) {
                    assert_eq!(Dir::between(p.coord(d), p.coord(c)), dir.reverse());
                }
            }
        }
        assert_eq!(Dir::named("se").map(Dir::name), Some("se"));
        assert_eq!(Dir::named("end"), Some(Dir::END));
        assert_eq!(Dir::named("up"), None);
    }
}
