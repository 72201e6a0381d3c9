//! The explicit form of a deductive game: every code, every experiment and
//! the outcome of each experiment on each code, plus native builders for
//! the built-in games.
//!
//! Input: a [`Builtin`] game (parsed from names such as `mastermind:4x6`),
//! or, elsewhere, a spec whose codes were enumerated through SAT.
//! Output: a [`Table`].
//!
//! Invariants: codes and experiments are 0-based indices in their canonical
//! order (codes and guesses lexicographic, `AAAA < AAAB < …`; coin codes
//! `1h < 1l < 2h < …`; weighings by size, then lexicographic); outcome
//! indices are 0-based into [`Table::outcomes`]; a play ends when a final
//! outcome is observed or, for games without final outcomes, when one code
//! remains.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use thiserror::Error;

use super::generate;

/// One parameterised experiment, e.g. `guess A A B B` or
/// `weighing2 1 2 3 4`. Names and symbols are shared (`Arc<str>`): a table
/// may hold hundreds of thousands of experiments.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Experiment {
    /// The experiment type's name (`guess`, `weighing2`, …).
    pub kind: Arc<str>,
    /// The parameters, as alphabet symbols.
    pub params: Vec<Arc<str>>,
}

impl fmt::Display for Experiment {
    /// `guess AABB` when every symbol is one character, else
    /// `weighing2 1 2 3 4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.kind)?;
        if self.params.iter().all(|p| p.chars().count() == 1) {
            write!(f, " {}", self.params.concat())
        } else {
            self.params.iter().try_for_each(|p| write!(f, " {p}"))
        }
    }
}

/// The explicit game: `outcome(e, c)` for every experiment `e` and code `c`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    /// Display name of the game (`mastermind:4x6`).
    pub name: String,
    /// Code names, in canonical order (`AABB`, `7h`).
    pub codes: Vec<String>,
    pub experiments: Vec<Experiment>,
    /// Outcome names (`1b2w`, `lighter`).
    pub outcomes: Vec<String>,
    /// `is_final[o]`: observing outcome `o` ends the play.
    pub is_final: Vec<bool>,
    /// `cells[e * codes.len() + c]`.
    cells: Vec<u8>,
    /// Each code as a valuation of the game's variables, when known (the
    /// fixed-variable strategies need it).
    pub valuations: Option<Valuations>,
}

/// Codes as valuations: one bit row per code, over named variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Valuations {
    pub vars: Vec<String>,
    /// `u64` words per code.
    words: usize,
    bits: Vec<u64>,
}

impl Valuations {
    /// Packs `rows[c][v]` (every row as long as `vars`).
    pub fn new(vars: Vec<String>, rows: &[Vec<bool>]) -> Valuations {
        let words = vars.len().div_ceil(64).max(1);
        let mut bits = vec![0u64; words * rows.len()];
        for (c, row) in rows.iter().enumerate() {
            assert_eq!(row.len(), vars.len());
            for (v, &b) in row.iter().enumerate() {
                if b {
                    bits[c * words + v / 64] |= 1 << (v % 64);
                }
            }
        }
        Valuations { vars, words, bits }
    }

    /// The packed row of code `c`: variable `v` is bit `v % 64` of word
    /// `v / 64`; bits past the last variable are zero.
    pub fn row(&self, c: usize) -> &[u64] {
        &self.bits[c * self.words..(c + 1) * self.words]
    }

    pub fn words(&self) -> usize {
        self.words
    }

    pub fn get(&self, c: usize, v: usize) -> bool {
        self.row(c)[v / 64] >> (v % 64) & 1 == 1
    }

    /// Code `c` as a list of booleans.
    pub fn code(&self, c: usize) -> Vec<bool> {
        (0..self.vars.len()).map(|v| self.get(c, v)).collect()
    }
}

impl Table {
    /// Builds a table; `cells` is row-major by experiment.
    pub fn new(
        name: String,
        codes: Vec<String>,
        experiments: Vec<Experiment>,
        outcomes: Vec<String>,
        is_final: Vec<bool>,
        cells: Vec<u8>,
    ) -> Table {
        assert_eq!(cells.len(), codes.len() * experiments.len());
        assert_eq!(outcomes.len(), is_final.len());
        assert!(outcomes.len() <= 256);
        Table {
            name,
            codes,
            experiments,
            outcomes,
            is_final,
            cells,
            valuations: None,
        }
    }

    /// Attaches the codes' valuations (one row per code).
    pub fn with_valuations(mut self, valuations: Valuations) -> Table {
        assert_eq!(valuations.bits.len(), valuations.words * self.codes.len());
        self.valuations = Some(valuations);
        self
    }

    pub fn n_codes(&self) -> usize {
        self.codes.len()
    }

    /// The outcome of experiment `e` on code `c`.
    pub fn outcome(&self, e: usize, c: usize) -> u8 {
        self.cells[e * self.codes.len() + c]
    }

    /// The outcomes of experiment `e` on every code.
    pub fn row(&self, e: usize) -> &[u8] {
        let n = self.codes.len();
        &self.cells[e * n..(e + 1) * n]
    }

    /// Whether the game has final outcomes (else a play ends on
    /// identification).
    pub fn has_final(&self) -> bool {
        self.is_final.iter().any(|&f| f)
    }
}

/// A built-in game, named as on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `mastermind:PxC`: P pegs, C colours, black and white pegs.
    Mastermind { pegs: usize, colours: usize },
    /// `black-peg:PxC`: only black pegs are reported.
    BlackPeg { pegs: usize, colours: usize },
    /// `bulls-cows:PxC`: codes and guesses are P distinct symbols of C.
    BullsCows { pegs: usize, symbols: usize },
    /// `coins:N` (or `coins:N+1` with one extra genuine coin): one coin is
    /// heavier or lighter; find it and which.
    Coins { coins: usize, extra_genuine: bool },
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum BuiltinError {
    #[error("unknown game `{0}`: expected mastermind:PxC, black-peg:PxC, bulls-cows:PxC, coins:N or coins:N+1")]
    Unknown(String),
    #[error("game `{name}`: {why}")]
    OutOfRange { name: String, why: String },
}

impl FromStr for Builtin {
    type Err = BuiltinError;

    fn from_str(s: &str) -> Result<Builtin, BuiltinError> {
        let unknown = || BuiltinError::Unknown(s.to_string());
        let (kind, size) = s.split_once(':').ok_or_else(unknown)?;
        let pxc = || -> Result<(usize, usize), BuiltinError> {
            let (p, c) = size.split_once('x').ok_or_else(unknown)?;
            Ok((
                p.parse().map_err(|_| unknown())?,
                c.parse().map_err(|_| unknown())?,
            ))
        };
        let game = match kind {
            "mastermind" => {
                let (pegs, colours) = pxc()?;
                Builtin::Mastermind { pegs, colours }
            }
            "black-peg" => {
                let (pegs, colours) = pxc()?;
                Builtin::BlackPeg { pegs, colours }
            }
            "bulls-cows" => {
                let (pegs, symbols) = pxc()?;
                Builtin::BullsCows { pegs, symbols }
            }
            "coins" => {
                let (n, extra_genuine) = match size.strip_suffix("+1") {
                    Some(n) => (n, true),
                    None => (size, false),
                };
                Builtin::Coins {
                    coins: n.parse().map_err(|_| unknown())?,
                    extra_genuine,
                }
            }
            _ => return Err(unknown()),
        };
        game.validate(s)?;
        Ok(game)
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Builtin::Mastermind { pegs, colours } => write!(f, "mastermind:{pegs}x{colours}"),
            Builtin::BlackPeg { pegs, colours } => write!(f, "black-peg:{pegs}x{colours}"),
            Builtin::BullsCows { pegs, symbols } => write!(f, "bulls-cows:{pegs}x{symbols}"),
            Builtin::Coins {
                coins,
                extra_genuine,
            } => write!(f, "coins:{coins}{}", if extra_genuine { "+1" } else { "" }),
        }
    }
}

/// Symbol `i` (0-based) of a letter alphabet: `A`, `B`, …
pub fn letter(i: usize) -> String {
    char::from(b'A' + i as u8).to_string()
}

impl Builtin {
    fn validate(&self, name: &str) -> Result<(), BuiltinError> {
        let bad = |why: &str| {
            Err(BuiltinError::OutOfRange {
                name: name.to_string(),
                why: why.to_string(),
            })
        };
        match *self {
            // Bounds keep the generated spec reasonable; the explicit
            // engine has its own, smaller limits.
            Builtin::Mastermind { pegs, colours } | Builtin::BlackPeg { pegs, colours } => {
                if pegs == 0 || pegs > 16 || colours == 0 || colours > 26 {
                    return bad("needs 1..=16 pegs and 1..=26 colours");
                }
            }
            Builtin::BullsCows { pegs, symbols } => {
                if pegs == 0 || pegs > 16 || symbols > 26 || pegs > symbols {
                    return bad("needs 1 <= pegs <= 16 and pegs <= symbols <= 26");
                }
            }
            Builtin::Coins { coins, .. } => {
                if !(2..=64).contains(&coins) {
                    return bad("needs 2..=64 coins");
                }
            }
        }
        Ok(())
    }

    /// Every code of the game, as symbol indices (coins: `[coin, heavy]`).
    pub fn code_digits(&self) -> Vec<Vec<usize>> {
        match *self {
            Builtin::Mastermind { pegs, colours } | Builtin::BlackPeg { pegs, colours } => {
                all_words(pegs, colours)
            }
            Builtin::BullsCows { pegs, symbols } => all_words(pegs, symbols)
                .into_iter()
                .filter(|w| distinct(w))
                .collect(),
            Builtin::Coins { coins, .. } => {
                (0..coins).flat_map(|c| [vec![c, 1], vec![c, 0]]).collect()
            }
        }
    }

    /// The explicit table, computed natively (no SAT), with the codes'
    /// valuations over the variables of the generated spec.
    pub fn table(&self) -> Table {
        let table = match *self {
            Builtin::Mastermind { pegs, .. }
            | Builtin::BlackPeg { pegs, .. }
            | Builtin::BullsCows { pegs, .. } => self.code_table(pegs),
            Builtin::Coins {
                coins,
                extra_genuine,
            } => coins_table(self.to_string(), coins, extra_genuine),
        };
        let rows: Vec<Vec<bool>> = self
            .code_digits()
            .iter()
            .map(|d| generate::valuation(*self, d))
            .collect();
        let vars = generate::vars(*self);
        table.with_valuations(Valuations::new(vars, &rows))
    }

    /// The number of experiments of the native table, without building
    /// them (saturating).
    pub fn n_experiments(&self) -> u128 {
        match *self {
            Builtin::Coins {
                coins,
                extra_genuine,
            } => {
                let s = coins + usize::from(extra_genuine);
                // Ordered pairs of disjoint m-pans, halved: the left pan
                // holds the smaller first coin.
                (1..=s / 2)
                    .map(|m| binomial(s, m).saturating_mul(binomial(s - m, m)) / 2)
                    .fold(0u128, u128::saturating_add)
            }
            _ => self.n_codes(),
        }
    }

    /// The number of codes, without building them.
    pub fn n_codes(&self) -> u128 {
        match *self {
            Builtin::Mastermind { pegs, colours } | Builtin::BlackPeg { pegs, colours } => {
                (colours as u128).saturating_pow(pegs as u32)
            }
            Builtin::BullsCows { pegs, symbols } => {
                (symbols - pegs + 1..=symbols).map(|s| s as u128).product()
            }
            Builtin::Coins { coins, .. } => 2 * coins as u128,
        }
    }

    /// Games whose experiments are guesses of a code.
    fn code_table(&self, pegs: usize) -> Table {
        let codes = self.code_digits();
        // Outcomes as (black, white) pairs; black-peg games report no
        // white pegs; (pegs - 1, 1) cannot happen.
        let (white, suffix) = match self {
            Builtin::BlackPeg { .. } => (false, ""),
            Builtin::BullsCows { .. } => (true, "c"),
            _ => (true, "w"),
        };
        let pairs = generate::peg_outcomes(pegs, white);
        let mut index = vec![vec![u8::MAX; pegs + 1]; pegs + 1];
        for (i, &(b, w)) in pairs.iter().enumerate() {
            index[b][w] = i as u8;
        }
        let cells = score_all(&codes, pegs, white, &index);
        let name = |&(b, w): &(usize, usize)| match white {
            true => format!("{b}b{w}{suffix}"),
            false => format!("{b}b"),
        };
        let colours: Vec<Arc<str>> = (0..26).map(|c| Arc::from(letter(c))).collect();
        let guess: Arc<str> = Arc::from("guess");
        Table::new(
            self.to_string(),
            codes
                .iter()
                .map(|w| w.iter().map(|&d| letter(d)).collect())
                .collect(),
            codes
                .iter()
                .map(|w| Experiment {
                    kind: guess.clone(),
                    params: w.iter().map(|&d| colours[d].clone()).collect(),
                })
                .collect(),
            pairs.iter().map(name).collect(),
            pairs.iter().map(|&(b, _)| b == pegs).collect(),
            cells,
        )
    }
}

/// Black and white pegs of `guess` against `code` (white = right symbol,
/// wrong place). For distinct-symbol codes white pegs are the cows.
pub fn score(guess: &[usize], code: &[usize]) -> (usize, usize) {
    let black = guess.iter().zip(code).filter(|(a, b)| a == b).count();
    let mut counts = [0i32; 26];
    for &g in guess {
        counts[g] += 1;
    }
    let mut common = 0;
    for &c in code {
        if counts[c] > 0 {
            counts[c] -= 1;
            common += 1;
        }
    }
    (black, common - black)
}

/// The outcome of every guess (row) on every code (column), as indices
/// `index[black][white]`: the same scores as [`score`], computed row by
/// row while walking the codes in lexicographic order, so black pegs and
/// colour matches grow one peg at a time (a few operations per cell).
fn score_all(codes: &[Vec<usize>], pegs: usize, white: bool, index: &[Vec<u8>]) -> Vec<u8> {
    let n = codes.len();
    let colours = codes.iter().flatten().max().map_or(1, |&m| m + 1);
    // Bulls and cows codes are the words without repeated symbols.
    let distinct = n < colours.pow(pegs as u32);
    let mut cells = Vec::with_capacity(n * n);
    let mut walk = Walk {
        pegs,
        colours,
        distinct,
        white,
        index,
        guess: &[],
        in_guess: [0; 26],
        in_code: [0; 26],
        cells: &mut cells,
    };
    for guess in codes {
        walk.guess = guess;
        walk.in_guess = [0; 26];
        for &d in guess {
            walk.in_guess[d] += 1;
        }
        walk.go(0, 0, 0);
    }
    debug_assert_eq!(cells.len(), n * n);
    cells
}

/// The state of [`score_all`]'s walk over the codes for one guess.
struct Walk<'a> {
    pegs: usize,
    colours: usize,
    distinct: bool,
    white: bool,
    index: &'a [Vec<u8>],
    guess: &'a [usize],
    /// How often each colour occurs in the guess / in the code so far.
    in_guess: [u8; 26],
    in_code: [u8; 26],
    cells: &'a mut Vec<u8>,
}

impl Walk<'_> {
    /// Extends the code prefix at peg `i` with every colour; `black` and
    /// `common` (colour matches) count the prefix.
    fn go(&mut self, i: usize, black: usize, common: usize) {
        let g = self.guess[i];
        if i + 1 == self.pegs {
            // The last peg: one cell per colour, no recursion.
            let miss = &self.index[black];
            let hit = &self.index[(black + 1).min(self.pegs)];
            let n = self.colours;
            let (in_code, in_guess) = (&self.in_code[..n], &self.in_guess[..n]);
            let mut out = [0u8; 26];
            let mut k = 0;
            for (d, (&seen, &wanted)) in in_code.iter().zip(in_guess).enumerate() {
                if self.distinct && seen > 0 {
                    continue;
                }
                let matched = common + usize::from(seen < wanted);
                out[k] = match (g == d, self.white) {
                    (false, true) => miss[matched - black],
                    (true, true) => hit[matched - black - 1],
                    (false, false) => miss[0],
                    (true, false) => hit[0],
                };
                k += 1;
            }
            self.cells.extend_from_slice(&out[..k]);
            return;
        }
        for d in 0..self.colours {
            let (seen, wanted) = (self.in_code[d], self.in_guess[d]);
            if self.distinct && seen > 0 {
                continue;
            }
            self.in_code[d] += 1;
            self.go(
                i + 1,
                black + usize::from(g == d),
                common + usize::from(seen < wanted),
            );
            self.in_code[d] -= 1;
        }
    }
}

/// All words of length `len` over `0..base`, lexicographic.
fn all_words(len: usize, base: usize) -> Vec<Vec<usize>> {
    let total = base.pow(len as u32);
    (0..total)
        .map(|mut n| {
            let mut w = vec![0; len];
            for slot in w.iter_mut().rev() {
                *slot = n % base;
                n /= base;
            }
            w
        })
        .collect()
}

fn distinct(w: &[usize]) -> bool {
    w.iter()
        .enumerate()
        .all(|(i, a)| w[i + 1..].iter().all(|b| a != b))
}

/// Outcome indices of the coin game: left pan against right pan.
const LIGHTER: u8 = 0;
const HEAVIER: u8 = 1;
const SAME: u8 = 2;

/// The counterfeit-coin table. Coins are numbered 1..=N (N+1 is the extra
/// genuine coin); `weighing<m>` puts params 1..m on the left pan and m+1..2m
/// on the right; each pan is sorted and the left pan holds the smaller
/// first coin (swapping pans only renames the outcomes).
fn coins_table(name: String, coins: usize, extra_genuine: bool) -> Table {
    let symbols = coins + usize::from(extra_genuine);
    let codes: Vec<(usize, bool)> = (0..coins).flat_map(|c| [(c, true), (c, false)]).collect();
    let mut experiments = Vec::new();
    let mut cells = Vec::new();
    let names: Vec<Arc<str>> = (1..=symbols).map(|c| Arc::from(c.to_string())).collect();
    for m in 1..=symbols / 2 {
        let kind: Arc<str> = Arc::from(format!("weighing{m}"));
        let all: Vec<usize> = (0..symbols).collect();
        let mut pan = vec![SAME; symbols];
        each_subset(&all, m, &mut |left| {
            // The right pan: a sorted m-subset of the coins above left[0]
            // that are not on the left, in lexicographic order.
            let rest: Vec<usize> = (left[0] + 1..symbols)
                .filter(|c| !left.contains(c))
                .collect();
            each_subset(&rest, m, &mut |right| {
                for &c in left {
                    pan[c] = HEAVIER;
                }
                for &c in right {
                    pan[c] = LIGHTER;
                }
                // A heavy coin tips its pan down; a light one flips the result.
                cells.extend(codes.iter().map(|&(coin, heavy)| match (pan[coin], heavy) {
                    (SAME, _) => SAME,
                    (side, true) => side,
                    (HEAVIER, false) => LIGHTER,
                    (_, false) => HEAVIER,
                }));
                experiments.push(Experiment {
                    kind: kind.clone(),
                    params: left
                        .iter()
                        .chain(right)
                        .map(|&c| names[c].clone())
                        .collect(),
                });
                for &c in left.iter().chain(right) {
                    pan[c] = SAME;
                }
            });
        });
    }
    Table::new(
        name,
        codes
            .iter()
            .map(|&(c, h)| format!("{}{}", c + 1, if h { 'h' } else { 'l' }))
            .collect(),
        experiments,
        vec!["lighter".into(), "heavier".into(), "same".into()],
        vec![false; 3],
        cells,
    )
}

/// `n` choose `k`, saturating.
fn binomial(n: usize, k: usize) -> u128 {
    (0..k).fold(1u128, |acc, i| {
        acc.saturating_mul((n - i) as u128) / (i as u128 + 1)
    })
}

/// Calls `f` on every sorted `k`-subset of `items`, in lexicographic
/// order of positions.
fn each_subset(items: &[usize], k: usize, f: &mut dyn FnMut(&[usize])) {
    fn go(
        items: &[usize],
        start: usize,
        k: usize,
        cur: &mut Vec<usize>,
        f: &mut dyn FnMut(&[usize]),
    ) {
        if cur.len() == k {
            f(cur);
            return;
        }
        let need = k - cur.len();
        for i in start..items.len().saturating_sub(need - 1) {
            cur.push(items[i]);
            go(items, i + 1, k, cur, f);
            cur.pop();
        }
    }
    go(items, 0, k, &mut Vec::with_capacity(k), f);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names() {
        assert_eq!(
            "mastermind:4x6".parse(),
            Ok(Builtin::Mastermind {
                pegs: 4,
                colours: 6
            })
        );
        assert_eq!(
            "coins:12+1".parse(),
            Ok(Builtin::Coins {
                coins: 12,
                extra_genuine: true
            })
        );
        assert!("chess:8x8".parse::<Builtin>().is_err());
        assert!("bulls-cows:5x4".parse::<Builtin>().is_err());
    }

    #[test]
    fn mastermind_table_shape() {
        let t = Builtin::Mastermind {
            pegs: 4,
            colours: 6,
        }
        .table();
        assert_eq!(t.codes.len(), 1296);
        assert_eq!(t.experiments.len(), 1296);
        assert_eq!(t.outcomes.len(), 14);
        assert_eq!(t.codes[1], "AAAB");
        let aabb = t.codes.iter().position(|c| c == "AABB").unwrap();
        let abba = t.codes.iter().position(|c| c == "ABBA").unwrap();
        assert_eq!(t.outcomes[t.outcome(aabb, abba) as usize], "2b2w");
        assert!(t.is_final[t.outcome(aabb, aabb) as usize]);
    }

    #[test]
    fn coin_counts() {
        let t = Builtin::Coins {
            coins: 12,
            extra_genuine: false,
        }
        .table();
        assert_eq!(t.codes.len(), 24);
        assert_eq!(t.experiments.len(), 36_894);
        assert_eq!(
            Builtin::Coins {
                coins: 12,
                extra_genuine: false
            }
            .n_experiments(),
            36_894
        );
        assert!(!t.has_final());
    }

    #[test]
    fn bulls_and_cows_codes_are_distinct() {
        let t = Builtin::BullsCows {
            pegs: 4,
            symbols: 10,
        }
        .table();
        assert_eq!(t.codes.len(), 5040);
    }
}
