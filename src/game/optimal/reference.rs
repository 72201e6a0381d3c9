//! The reference solver: plain exhaustive recursion over every experiment,
//! with no bounds, no pruning and no symmetry — slow, obviously correct,
//! and used to cross-check the branch-and-bound search on small games.
//!
//! Input: a [`Table`], an objective and an optional depth limit. Output:
//! the optimal value, or `None` if no strategy finds every code.
//!
//! Invariants: same cost convention as the search; results are cached per
//! (set, depth) only to keep the recursion finite in time, which cannot
//! change any value. Experiments that leave the set in one non-final part
//! are skipped (they would repeat the same question forever), as are
//! experiments whose final outcome two codes of the set share.

use std::collections::HashMap;

use super::Objective;
use crate::game::table::Table;

/// The optimal value of the whole game by exhaustive search.
pub fn exhaustive(table: &Table, objective: Objective, max_depth: Option<u32>) -> Option<u64> {
    let all: Vec<u16> = (0..table.n_codes() as u16).collect();
    let depth = max_depth.unwrap_or(table.n_codes() as u32 + 1);
    let mut cache = HashMap::new();
    value(table, objective, &all, depth, &mut cache)
}

type Cache = HashMap<(Vec<u16>, u32), Option<u64>>;

fn value(table: &Table, obj: Objective, set: &[u16], depth: u32, cache: &mut Cache) -> Option<u64> {
    let final_game = table.has_final();
    if set.is_empty() || (!final_game && set.len() == 1) {
        return Some(0);
    }
    if depth == 0 {
        return None;
    }
    if let Some(v) = cache.get(&(set.to_vec(), depth)) {
        return *v;
    }
    let mut best: Option<u64> = None;
    'exp: for e in 0..table.experiments.len() {
        let mut parts: Vec<Vec<u16>> = vec![Vec::new(); table.outcomes.len()];
        for &c in set {
            parts[table.outcome(e, c as usize) as usize].push(c);
        }
        let mut sum = set.len() as u64;
        let mut worst = 1u64;
        for (o, part) in parts.iter().enumerate() {
            let finished = if final_game {
                table.is_final[o]
            } else {
                part.len() <= 1
            };
            if part.is_empty() || finished {
                if final_game && table.is_final[o] && part.len() > 1 {
                    continue 'exp;
                }
                continue;
            }
            if part.len() == set.len() {
                continue 'exp;
            }
            match value(table, obj, part, depth - 1, cache) {
                None => continue 'exp,
                Some(v) => {
                    sum += v;
                    worst = worst.max(1 + v);
                }
            }
        }
        let v = match obj {
            Objective::Total => sum,
            Objective::Worst => worst,
        };
        best = Some(best.map_or(v, |b| b.min(v)));
    }
    cache.insert((set.to_vec(), depth), best);
    best
}
