//! Random small grid puzzles (2..5 × 2..5, all three variants, random
//! blocked cells and numbers) through the bounded model checker, with and
//! without the redundant constraints, against a brute-force solver written
//! here: the number of solutions must match exactly (so `unsat`, `unique`
//! and "ambiguous" match too), and every solution must pass the puzzle's
//! checker. The first puzzles also go through the real NuSMV (BDD) when it
//! is installed: its verdict must match.
//!
//! NuSMV missing: a visible "skipping" note, or a failure when `CI` is set.

use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use checkmate::bmc::{self, BmcOptions};
use checkmate::checker::{Checker, Engine, Tool};
use checkmate::grid::{self, compile::compile_model, strengthen, Puzzle, Variant};
use checkmate::smv::{self, EmitOptions};
use checkmate::trace::Verdict;
use proptest::prelude::*;

/// xorshift64*: the puzzle is a function of the proptest seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, pct: usize) -> bool {
        self.below(100) < pct
    }
}

/// The board as the brute-force solver sees it.
struct Board {
    rows: usize,
    cols: usize,
    diagonal: bool,
    open: Vec<(usize, usize)>,
    number: Vec<Option<usize>>,
}

impl Board {
    fn adjacent(&self, a: usize, b: usize) -> bool {
        let ((r1, c1), (r2, c2)) = (self.open[a], self.open[b]);
        let (dr, dc) = (r1.abs_diff(r2), c1.abs_diff(c2));
        if self.diagonal {
            dr.max(dc) == 1
        } else {
            dr + dc == 1
        }
    }

    /// A Hamiltonian path over the open cells by randomized depth-first
    /// search, within a budget of extensions.
    fn random_path(&self, rng: &mut Rng) -> Option<Vec<usize>> {
        let n = self.open.len();
        let mut budget = 20_000;
        let start = rng.below(n);
        let mut path = vec![start];
        let mut used = vec![false; n];
        used[start] = true;
        fn go(
            b: &Board,
            rng: &mut Rng,
            path: &mut Vec<usize>,
            used: &mut [bool],
            budget: &mut usize,
        ) -> bool {
            if path.len() == b.open.len() {
                return true;
            }
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let last = *path.last().unwrap();
            let mut next: Vec<usize> = (0..b.open.len())
                .filter(|&c| !used[c] && b.adjacent(last, c))
                .collect();
            for i in (1..next.len()).rev() {
                next.swap(i, rng.below(i + 1));
            }
            for c in next {
                used[c] = true;
                path.push(c);
                if go(b, rng, path, used, budget) {
                    return true;
                }
                path.pop();
                used[c] = false;
            }
            false
        }
        go(self, rng, &mut path, &mut used, &mut budget).then_some(path)
    }

    /// Number of solutions, by depth-first search over paths.
    fn count(&self, waypoint: bool) -> usize {
        let n = self.open.len();
        let mut at_step = vec![None; n + 1];
        for (c, k) in self.number.iter().enumerate() {
            if let Some(k) = *k {
                if !waypoint {
                    at_step[k] = Some(c);
                }
            }
        }
        let last_wp = self.number.iter().flatten().max().copied().unwrap_or(0);
        let mut total = 0;
        for start in 0..n {
            if waypoint && self.number[start] != Some(1) {
                continue;
            }
            let mut used = vec![false; n];
            used[start] = true;
            let seen = usize::from(waypoint);
            if !waypoint && !self.fits(start, 1, &at_step) {
                continue;
            }
            total += self.extend(start, 1, seen, &mut used, &at_step, waypoint, last_wp);
        }
        total
    }

    /// Whether cell `c` may be the `step`-th cell (numbrix/hidato).
    fn fits(&self, c: usize, step: usize, at_step: &[Option<usize>]) -> bool {
        at_step[step].is_none_or(|x| x == c) && self.number[c].is_none_or(|k| k == step)
    }

    #[allow(clippy::too_many_arguments)]
    fn extend(
        &self,
        last: usize,
        len: usize,
        seen: usize,
        used: &mut [bool],
        at_step: &[Option<usize>],
        waypoint: bool,
        last_wp: usize,
    ) -> usize {
        let n = self.open.len();
        if len == n {
            let ends_right = !waypoint || (self.number[last] == Some(last_wp) && seen == last_wp);
            return usize::from(ends_right);
        }
        let mut total = 0;
        for c in 0..n {
            if used[c] || !self.adjacent(last, c) {
                continue;
            }
            let mut seen2 = seen;
            if waypoint {
                if let Some(k) = self.number[c] {
                    if k != seen + 1 {
                        continue;
                    }
                    seen2 = k;
                }
            } else if !self.fits(c, len + 1, at_step) {
                continue;
            }
            used[c] = true;
            total += self.extend(c, len + 1, seen2, used, at_step, waypoint, last_wp);
            used[c] = false;
        }
        total
    }
}

/// A random puzzle file: solvable by construction most of the time.
fn random_puzzle(seed: u64) -> String {
    let mut rng = Rng(seed | 1);
    let variant = [Variant::Waypoint, Variant::Numbrix, Variant::Hidato][rng.below(3)];
    let rows = 2 + rng.below(4);
    let cols = 2 + rng.below(4);
    let mut blocked = vec![false; rows * cols];
    for b in &mut blocked {
        *b = rng.chance(12);
    }
    if blocked.iter().all(|&b| b) {
        blocked[0] = false;
    }
    let open: Vec<(usize, usize)> = (0..rows * cols)
        .filter(|&i| !blocked[i])
        .map(|i| (i / cols, i % cols))
        .collect();
    let n = open.len();
    let mut board = Board {
        rows,
        cols,
        diagonal: variant == Variant::Hidato,
        open,
        number: vec![None; n],
    };
    match board.random_path(&mut rng).filter(|_| rng.chance(85)) {
        Some(path) if variant == Variant::Waypoint => {
            let mut k = 1;
            for (i, &c) in path.iter().enumerate() {
                if i == 0 || i + 1 == n || rng.chance(25) {
                    board.number[c] = Some(k);
                    k += 1;
                }
            }
        }
        Some(path) => {
            // Hidato boards need more givens to keep brute force quick.
            let pct = if variant == Variant::Hidato { 50 } else { 30 };
            for (i, &c) in path.iter().enumerate() {
                if rng.chance(pct) {
                    board.number[c] = Some(i + 1);
                }
            }
            if board.number.iter().all(Option::is_none) {
                board.number[path[0]] = Some(1);
            }
        }
        None => {
            // Random numbers: often unsolvable.
            let m = 1 + rng.below(n.min(3));
            let mut cells: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                cells.swap(i, rng.below(i + 1));
            }
            for (j, &c) in cells.iter().take(m).enumerate() {
                board.number[c] = Some(if variant == Variant::Waypoint {
                    j + 1
                } else {
                    1 + rng.below(n)
                });
            }
            if variant != Variant::Waypoint {
                // Keep numbers distinct.
                let mut seen = std::collections::HashSet::new();
                for k in board.number.iter_mut() {
                    if let Some(v) = *k {
                        if !seen.insert(v) {
                            *k = None;
                        }
                    }
                }
            }
        }
    }
    let mut text = format!("variant: {variant}\n");
    for r in 0..board.rows {
        let row: Vec<String> = (0..board.cols)
            .map(|c| match board.open.iter().position(|&x| x == (r, c)) {
                None => "X".to_string(),
                Some(i) => board.number[i].map_or(".".to_string(), |k| k.to_string()),
            })
            .collect();
        text.push_str(&row.join(" "));
        text.push('\n');
    }
    text
}

/// The brute-force count of a puzzle file.
fn brute_force(text: &str) -> usize {
    let puzzle = grid::parse(text).unwrap();
    let waypoint = puzzle.variant == Variant::Waypoint;
    let ids: Vec<_> = (0..puzzle.open_count() as u32).map(grid::CellId).collect();
    let board = Board {
        rows: puzzle.rows(),
        cols: puzzle.cols(),
        diagonal: puzzle.variant.diagonal(),
        open: ids
            .iter()
            .map(|&id| {
                let c = puzzle.coord(id);
                (c.row, c.col)
            })
            .collect(),
        number: ids
            .iter()
            .map(|&id| puzzle.number(id).map(|k| k as usize))
            .collect(),
    };
    board.count(waypoint)
}

fn bmc_count(puzzle: &Puzzle, extras: &[&str]) -> Result<usize, TestCaseError> {
    let (sys, _) = compile_model(puzzle, &strengthen::options(extras).unwrap());
    let r = bmc::solve(
        &sys,
        &BmcOptions {
            count: Some(0),
            count_cap: 1_000_000,
            ..BmcOptions::default()
        },
    )
    .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(r.exhausted, "not exhausted with {extras:?}");
    for t in &r.traces {
        let sol = grid::decode(puzzle, t).map_err(|e| TestCaseError::fail(e.to_string()))?;
        grid::check(puzzle, &sol).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    Ok(r.found())
}

fn nusmv() -> Option<Checker> {
    match Checker::locate(Tool::NuSmv, None) {
        Ok(c) => Some(c),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!("CI is set but NuSMV is missing ({e}); run scripts/install-nusmv.sh")
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "skipping NuSMV comparison: {e}");
            None
        }
    }
}

/// How many puzzles also go through NuSMV (it is much slower).
const NUSMV_CASES: usize = 24;
static NUSMV_DONE: AtomicUsize = AtomicUsize::new(0);

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]
    #[test]
    fn bmc_counts_match_brute_force(seed in any::<u64>()) {
        let text = random_puzzle(seed);
        let puzzle = grid::parse(&text).unwrap();
        let expected = brute_force(&text);
        for extras in [&[][..], &["distance"], &["order"]] {
            let found = bmc_count(&puzzle, extras)?;
            prop_assert_eq!(found, expected, "{:?} on\n{}", extras, text);
        }
        if NUSMV_DONE.fetch_add(1, Ordering::Relaxed) < NUSMV_CASES {
            if let Some(nusmv) = nusmv() {
                let sys = grid::compile(&puzzle);
                let model = smv::emit(&sys, &EmitOptions::default()).unwrap();
                let run = nusmv.check_str(&model, Engine::Bdd).unwrap();
                let verdict = run.output.specs.first().map(|s| s.verdict);
                let want = if expected > 0 { Verdict::False } else { Verdict::True };
                prop_assert_eq!(verdict, Some(want), "NuSMV on\n{}", text);
            }
        }
    }
}
