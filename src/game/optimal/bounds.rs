//! Lower bounds that need nothing but the size of a code set.
//!
//! Input: the shape of a [`Table`] (how many final and non-final outcomes
//! an experiment can show). Output: for every set size `n`, a lower bound
//! on the optimal total cost (sum over the codes of the experiments still
//! needed) and on the optimal worst case; for every depth `d`, how many
//! codes any strategy can settle within `d` experiments.
//!
//! Invariants (both proved by counting tree nodes):
//! * Games with final outcomes (Mastermind): every node of a strategy tree
//!   ends the play for at most `f` codes (one per final outcome) and has at
//!   most `b` continuing children (one per non-final outcome). Codes are
//!   ended at distinct (node, final outcome) slots, so the cheapest
//!   conceivable tree fills the slots breadth first: `f` codes at depth 1,
//!   `f·b` at depth 2, … This is the complete-tree bound; it is reached
//!   exactly when every experiment hits a code and splits the rest
//!   perfectly.
//! * Identification games (coins): a code is settled at the leaf where it
//!   is the only one left; leaves hang off a `k`-ary tree (`k` outcomes),
//!   so the total is at least the minimal external path length of a
//!   `k`-ary tree with `n` leaves, and a set of one code costs nothing.

use super::super::table::Table;

/// Costs are small integers; [`INF`] marks "no strategy exists".
pub type Cost = u32;

/// No strategy (within the depth limit) exists.
pub const INF: Cost = Cost::MAX / 4;

/// The branching structure of a game, as far as bounds care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Whether the game has final outcomes (else play ends on
    /// identification).
    pub final_game: bool,
    /// Final outcomes one experiment can show (games with final outcomes).
    pub finals: u64,
    /// Outcomes that continue the play (games with final outcomes), or all
    /// outcomes (identification games).
    pub branching: u64,
}

impl Shape {
    pub fn of(table: &Table) -> Shape {
        let used = used_outcomes(table);
        let finals = used.iter().filter(|&&o| table.is_final[o]).count() as u64;
        let others = used.len() as u64 - finals;
        if table.has_final() {
            Shape {
                final_game: true,
                finals: finals.max(1),
                branching: others.max(1),
            }
        } else {
            Shape {
                final_game: false,
                finals: 0,
                branching: (used.len() as u64).max(2),
            }
        }
    }

    /// Codes that can be settled by strategies of depth at most `depth`
    /// (saturating).
    pub fn capacity(&self, depth: u32) -> u64 {
        if self.final_game {
            // f · (1 + b + … + b^(depth-1))
            let mut level = self.finals;
            let mut total: u64 = 0;
            for _ in 0..depth {
                total = total.saturating_add(level);
                level = level.saturating_mul(self.branching);
            }
            total
        } else {
            let mut total: u64 = 1;
            for _ in 0..depth {
                total = total.saturating_mul(self.branching);
            }
            total
        }
    }

    /// Lower bound on the total cost of a set of `n` codes (no depth
    /// limit). Exact for the complete tree.
    pub fn total_bound(&self, n: u64) -> u64 {
        if self.final_game {
            let mut left = n;
            let mut level = self.finals;
            let mut cost = 0u64;
            let mut depth = 1u64;
            while left > 0 {
                let here = left.min(level);
                cost += here * depth;
                left -= here;
                level = level.saturating_mul(self.branching);
                depth += 1;
            }
            cost
        } else {
            external_path_length(n, self.branching)
        }
    }

    /// Smallest depth whose capacity holds `n` codes.
    pub fn depth_bound(&self, n: u64) -> u32 {
        let mut d = 0;
        while self.capacity(d) < n {
            d += 1;
        }
        d
    }
}

/// Minimal external path length of a `k`-ary tree with `n` leaves.
fn external_path_length(n: u64, k: u64) -> u64 {
    if n <= 1 {
        return 0;
    }
    // Largest d with k^d <= n.
    let mut d = 0u64;
    let mut pow = 1u64;
    while pow.saturating_mul(k) <= n {
        pow *= k;
        d += 1;
    }
    // Expand m leaves of depth d into internal nodes: each adds k - 1.
    let m = (n - pow).div_ceil(k - 1);
    n * d + (n - pow + m)
}

/// Outcome indices that occur somewhere in the table.
fn used_outcomes(table: &Table) -> Vec<usize> {
    let mut seen = vec![false; table.outcomes.len()];
    for e in 0..table.experiments.len() {
        for &o in table.row(e) {
            seen[o as usize] = true;
        }
    }
    (0..seen.len()).filter(|&o| seen[o]).collect()
}

/// Per-size bounds, precomputed once per search.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub shape: Shape,
    /// `total[n]`: lower bound on the total cost of `n` codes.
    pub total: Vec<Cost>,
    /// `depth[n]`: lower bound on the worst case of `n` codes.
    pub depth: Vec<u32>,
}

impl Bounds {
    pub fn new(table: &Table) -> Bounds {
        let shape = Shape::of(table);
        let n = table.n_codes();
        let total = (0..=n)
            .map(|k| shape.total_bound(k as u64).min(INF as u64) as Cost)
            .collect();
        let depth = (0..=n).map(|k| shape.depth_bound(k as u64)).collect();
        Bounds {
            shape,
            total,
            depth,
        }
    }

    /// Lower bound on the total cost of `n` codes with at most `depth`
    /// experiments left (`None` = no limit); [`INF`] if impossible.
    #[inline]
    pub fn total_within(&self, n: usize, depth: Option<u32>) -> Cost {
        match depth {
            Some(d) if self.depth[n] > d => INF,
            _ => self.total[n],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mm() -> Shape {
        Shape {
            final_game: true,
            finals: 1,
            branching: 13,
        }
    }

    #[test]
    fn complete_tree_bound_for_final_games() {
        let s = mm();
        assert_eq!(s.total_bound(0), 0);
        assert_eq!(s.total_bound(1), 1);
        assert_eq!(s.total_bound(2), 3);
        // 1 at depth 1, 13 at depth 2, 1 at depth 3.
        assert_eq!(s.total_bound(15), 1 + 26 + 3);
        assert_eq!(s.capacity(0), 0);
        assert_eq!(s.capacity(2), 14);
        assert_eq!(s.depth_bound(14), 2);
        assert_eq!(s.depth_bound(15), 3);
    }

    #[test]
    fn external_path_length_matches_small_trees() {
        assert_eq!(external_path_length(1, 3), 0);
        assert_eq!(external_path_length(2, 3), 2);
        assert_eq!(external_path_length(3, 3), 3);
        assert_eq!(external_path_length(4, 3), 1 + 1 + 2 + 2);
        assert_eq!(external_path_length(9, 3), 18);
        assert_eq!(external_path_length(3, 2), 5);
        let coins = Shape {
            final_game: false,
            finals: 0,
            branching: 3,
        };
        assert_eq!(coins.capacity(3), 27);
        assert_eq!(coins.depth_bound(24), 3);
        assert_eq!(coins.depth_bound(28), 4);
    }

    /// The closed form agrees with an explicit greedy construction.
    #[test]
    fn external_path_length_is_minimal_by_dynamic_programming() {
        for k in 2..5u64 {
            // best[n] = min over splits of n into 2..=k nonempty parts of
            // n + sum best[part].
            let max = 40usize;
            let mut best = vec![u64::MAX; max + 1];
            best[1] = 0;
            for n in 2..=max {
                // Split into parts with a small knapsack over part counts.
                let mut dp = vec![vec![u64::MAX; n + 1]; k as usize + 1];
                dp[0][0] = 0;
                for parts in 1..=k as usize {
                    for total in 1..=n {
                        for first in 1..total.min(n - 1) + 1 {
                            if first >= n {
                                continue;
                            }
                            let rest = dp[parts - 1][total - first];
                            if rest != u64::MAX && best[first] != u64::MAX {
                                dp[parts][total] = dp[parts][total].min(rest + best[first]);
                            }
                        }
                    }
                }
                let inner = (2..=k as usize).map(|p| dp[p][n]).min().unwrap();
                best[n] = n as u64 + inner;
                assert_eq!(best[n], external_path_length(n as u64, k), "n={n} k={k}");
            }
        }
    }
}
