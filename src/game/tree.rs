//! Strategy trees: what a codebreaker plays after every possible history,
//! and their exact analysis by replay over every code.
//!
//! Input: a [`Table`] and a [`Tree`] (from a one-step strategy, an optimal
//! search, or a saved JSON file). Output: an [`Analysis`] (total, worst,
//! histogram) or a [`ReplayError`] naming a code the tree fails on.
//!
//! Invariants: a code's cost is the number of [`Tree::Node`]s on its path
//! from the root; in games with final outcomes the experiment that shows
//! the final outcome is counted (its child is a leaf); in identification
//! games a leaf is reached as soon as one code remains.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::table::Table;

/// A decision tree over a table's codes; experiments, outcomes and codes
/// are 0-based indices into the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tree {
    /// The code is known: no more experiments.
    Leaf { code: usize },
    /// Play `experiment`; continue in the child for the observed outcome.
    Node {
        experiment: usize,
        /// `(outcome, subtree)`, sorted by outcome, only outcomes that
        /// some remaining code produces.
        children: Vec<(u8, Tree)>,
    },
}

/// Exact figures of a strategy over every code of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    pub codes: usize,
    /// Sum over all codes of the experiments needed.
    pub total: u64,
    /// Maximum over all codes.
    pub worst: usize,
    /// `histogram[k]` = number of codes found with exactly `k` experiments.
    pub histogram: Vec<u64>,
}

impl Analysis {
    pub fn average(&self) -> f64 {
        self.total as f64 / self.codes.max(1) as f64
    }

    /// Builds the figures from each code's cost.
    pub fn from_costs(costs: impl IntoIterator<Item = usize>) -> Analysis {
        let mut a = Analysis {
            codes: 0,
            total: 0,
            worst: 0,
            histogram: Vec::new(),
        };
        for c in costs {
            a.codes += 1;
            a.total += c as u64;
            a.worst = a.worst.max(c);
            if a.histogram.len() <= c {
                a.histogram.resize(c + 1, 0);
            }
            a.histogram[c] += 1;
        }
        a
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ReplayError {
    #[error(
        "code {code}: the tree has no branch for outcome `{outcome}` after {depth} experiments"
    )]
    MissingBranch {
        code: String,
        outcome: String,
        depth: usize,
    },
    #[error("code {code}: the tree ends claiming code {claimed} after {depth} experiments")]
    WrongLeaf {
        code: String,
        claimed: String,
        depth: usize,
    },
    #[error("the tree refers to experiment {0}, which the game does not have")]
    BadExperiment(usize),
    #[error("the tree refers to code {0}, which the game does not have")]
    BadCode(usize),
}

impl Tree {
    /// The number of experiments the tree plays for `code`.
    pub fn cost(&self, table: &Table, code: usize) -> Result<usize, ReplayError> {
        let mut node = self;
        let mut depth = 0;
        loop {
            match node {
                Tree::Leaf { code: claimed } => {
                    if *claimed >= table.n_codes() {
                        return Err(ReplayError::BadCode(*claimed));
                    }
                    if *claimed != code {
                        return Err(ReplayError::WrongLeaf {
                            code: table.codes[code].clone(),
                            claimed: table.codes[*claimed].clone(),
                            depth,
                        });
                    }
                    return Ok(depth);
                }
                Tree::Node {
                    experiment,
                    children,
                } => {
                    if *experiment >= table.experiments.len() {
                        return Err(ReplayError::BadExperiment(*experiment));
                    }
                    let o = table.outcome(*experiment, code);
                    depth += 1;
                    node = match children.binary_search_by_key(&o, |(k, _)| *k) {
                        Ok(i) => &children[i].1,
                        Err(_) => {
                            return Err(ReplayError::MissingBranch {
                                code: table.codes[code].clone(),
                                outcome: table.outcomes[o as usize].clone(),
                                depth,
                            })
                        }
                    };
                }
            }
        }
    }

    /// Replays the tree over every code of the table.
    pub fn analyze(&self, table: &Table) -> Result<Analysis, ReplayError> {
        let costs = (0..table.n_codes())
            .map(|c| self.cost(table, c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Analysis::from_costs(costs))
    }

    /// Number of experiments on the longest path.
    pub fn depth(&self) -> usize {
        match self {
            Tree::Leaf { .. } => 0,
            Tree::Node { children, .. } => {
                1 + children.iter().map(|(_, t)| t.depth()).max().unwrap_or(0)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::table::Builtin;

    /// Guess codes in order until found: a valid (poor) strategy.
    fn linear(table: &Table, codes: &[usize]) -> Tree {
        let guess = codes[0];
        let mut children: Vec<(u8, Tree)> = Vec::new();
        let mut parts: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
        for &c in codes {
            parts.entry(table.outcome(guess, c)).or_default().push(c);
        }
        for (o, part) in parts {
            let child = if table.is_final[o as usize] {
                Tree::Leaf { code: part[0] }
            } else {
                linear(table, &part)
            };
            children.push((o, child));
        }
        Tree::Node {
            experiment: guess,
            children,
        }
    }

    #[test]
    fn replays_first_possible_on_small_mastermind() {
        let table = Builtin::Mastermind {
            pegs: 2,
            colours: 2,
        }
        .table();
        let all: Vec<usize> = (0..table.n_codes()).collect();
        let tree = linear(&table, &all);
        let a = tree.analyze(&table).unwrap();
        assert_eq!(a.codes, 4);
        assert_eq!(a.histogram.iter().sum::<u64>(), 4);
        assert_eq!(a.histogram[1], 1);
        assert_eq!(tree.depth(), a.worst);
    }

    #[test]
    fn broken_tree_names_the_code() {
        let table = Builtin::Mastermind {
            pegs: 2,
            colours: 2,
        }
        .table();
        let tree = Tree::Node {
            experiment: 0,
            children: vec![(table.outcome(0, 0), Tree::Leaf { code: 0 })],
        };
        assert!(matches!(
            tree.analyze(&table),
            Err(ReplayError::MissingBranch { .. })
        ));
    }
}
