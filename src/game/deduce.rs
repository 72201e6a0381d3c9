//! Deduction puzzles: a game plus a history of evaluated experiments.
//! What does the history tell about the secret code?
//!
//! Input: a [`Game`] and history text, one experiment per line:
//! `<experiment> <params…> => <outcome>`, e.g. `weighing2 1 2 3 4 => same`;
//! when every symbol is one character the parameters may be one word
//! (`guess AABB => 1b1w`); `#` starts a comment.
//!
//! Output: through SAT, a [`Deduction`] (how many codes are still possible
//! up to a cap, the first ones in canonical order, the fixed variables);
//! or, through [`compile`], an IR [`System`] whose solutions are the codes
//! still possible, so the BMC and NuSMV engines solve the same puzzle, with
//! [`decode`] mapping their trace back to a code.
//!
//! Invariants: every history entry names an experiment of the game with
//! parameters its restrictions allow and one of its outcomes; the IR
//! system has one frozen boolean per spec variable, no transitions
//! (`bound = Some(0)`), and goal = constraint ∧ every recorded outcome.

use std::collections::HashSet;

use thiserror::Error;

use super::knowledge::{sort_codes, Instance, Knowledge, KnowledgeError};
use super::spec::{CardKind, Formula, Pos, Spec};
use super::Game;
use crate::ir::{Domain, Expr, System, Trace, Value, VarId};

/// One line of a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line in the history text.
    pub line: usize,
    pub experiment: Instance,
    /// Index into the experiment type's outcomes.
    pub outcome: usize,
}

/// The experiments evaluated so far, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    pub entries: Vec<Entry>,
}

impl History {
    /// The entry as a history line: `guess AABB => 1b1w`.
    pub fn show(&self, spec: &Spec, i: usize) -> String {
        let e = &self.entries[i];
        let ty = &spec.experiments[e.experiment.ty];
        format!(
            "{} => {}",
            e.experiment.show(spec),
            ty.outcomes[e.outcome].name
        )
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{pos}: {message}")]
pub struct HistoryError {
    pub pos: Pos,
    pub message: String,
}

/// Whitespace-separated words of a line with their 1-based columns.
fn words(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out.into_iter()
        .map(|(b, w)| (line[..b].chars().count() + 1, w))
        .collect()
}

/// Reads a history for `spec`.
pub fn parse_history(spec: &Spec, text: &str) -> Result<History, HistoryError> {
    let mut entries = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("");
        if line.trim().is_empty() {
            continue;
        }
        let err = |col: usize, message: String| HistoryError {
            pos: Pos { line: n + 1, col },
            message,
        };
        let Some(arrow) = line.find("=>") else {
            let end = line.trim_end().chars().count() + 1;
            return Err(err(end, "expected `=> <outcome>`".into()));
        };
        let arrow_col = line[..arrow].chars().count() + 1;
        let left = words(&line[..arrow]);
        let right: Vec<(usize, &str)> = words(&line[arrow + 2..])
            .into_iter()
            .map(|(c, w)| (c + arrow_col + 1, w))
            .collect();
        let Some(&(col, name)) = left.first() else {
            return Err(err(arrow_col, "expected an experiment before `=>`".into()));
        };
        let Some(ty) = spec.experiments.iter().position(|e| e.name == name) else {
            let names: Vec<&str> = spec.experiments.iter().map(|e| e.name.as_str()).collect();
            return Err(err(
                col,
                format!(
                    "unknown experiment `{name}` (the game has {})",
                    names.join(", ")
                ),
            ));
        };
        let exp = &spec.experiments[ty];
        let params =
            read_params(spec, ty, &left[1..]).map_err(|(c, m)| err(c.unwrap_or(col), m))?;
        if let Some(rule) = exp.violation(&params) {
            return Err(err(col, format!("the parameters break `{rule}`")));
        }
        let (ocol, oname) = match right.as_slice() {
            [one] => *one,
            [] => return Err(err(arrow_col + 2, "expected an outcome after `=>`".into())),
            [_, (c, w), ..] => return Err(err(*c, format!("unexpected `{w}` after the outcome"))),
        };
        let Some(outcome) = exp.outcomes.iter().position(|o| o.name == oname) else {
            let names: Vec<&str> = exp.outcomes.iter().map(|o| o.name.as_str()).collect();
            return Err(err(
                ocol,
                format!(
                    "unknown outcome `{oname}` of {name} (expected one of {})",
                    names.join(", ")
                ),
            ));
        };
        entries.push(Entry {
            line: n + 1,
            experiment: Instance { ty, params },
            outcome,
        });
    }
    Ok(History { entries })
}

/// Symbol indices of parameter words; an error carries a column if it is
/// about one word.
fn read_params(
    spec: &Spec,
    ty: usize,
    ws: &[(usize, &str)],
) -> Result<Vec<u32>, (Option<usize>, String)> {
    let arity = spec.experiments[ty].arity;
    let symbol = |col: usize, s: &str| {
        spec.alphabet
            .iter()
            .position(|a| a == s)
            .map(|i| i as u32)
            .ok_or((Some(col), format!("`{s}` is not a symbol of the alphabet")))
    };
    if ws.len() == arity {
        return ws.iter().map(|&(c, w)| symbol(c, w)).collect();
    }
    if let [(col, word)] = ws {
        if spec.single_char_symbols() && word.chars().count() == arity {
            return word
                .char_indices()
                .enumerate()
                .map(|(k, (b, _))| {
                    let ch = &word[b..b + word[b..].chars().next().map_or(0, char::len_utf8)];
                    symbol(col + k, ch)
                })
                .collect();
        }
    }
    Err((
        ws.first().map(|w| w.0),
        format!(
            "{} takes {arity} parameters, got {}",
            spec.experiments[ty].name,
            ws.iter().map(|w| w.1).collect::<Vec<_>>().join(" ")
        ),
    ))
}

/// What a history tells about the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deduction {
    /// Codes still possible (at most the cap).
    pub count: usize,
    /// Whether `count` is all of them.
    pub exhaustive: bool,
    /// The first codes still possible, in canonical order, by name.
    pub codes: Vec<String>,
    /// Variables the history fixed (not those the constraint fixes alone),
    /// with their values, in declaration order.
    pub fixed: Vec<(String, bool)>,
}

/// Knowledge after the history, through SAT; lists up to `limit` codes and
/// counts up to `count_cap`.
pub fn deduce(
    game: &Game,
    history: &History,
    limit: usize,
    count_cap: usize,
) -> Result<Deduction, KnowledgeError> {
    let spec = &game.spec;
    let mut k = Knowledge::new(spec)?;
    for e in &history.entries {
        k.observe(&e.experiment, e.outcome);
    }
    let (mut found, exhaustive) = k.enumerate(count_cap.max(limit))?;
    let count = found.len().min(count_cap);
    let exhaustive = exhaustive && found.len() <= count_cap;
    let codes = if found.len() <= limit || exhaustive {
        sort_codes(&mut found);
        found.truncate(limit);
        found
    } else {
        k.first_codes(limit)?
    };
    let base = k.base_fixed().to_vec();
    let fixed = if count == 0 {
        Vec::new()
    } else {
        k.backbone()?
            .into_iter()
            .enumerate()
            .filter_map(|(v, b)| match (b, base[v]) {
                (Some(b), None) => Some((spec.vars[v].clone(), b)),
                _ => None,
            })
            .collect()
    };
    Ok(Deduction {
        count,
        exhaustive,
        codes: codes.iter().map(|c| game.code_name(c)).collect(),
        fixed,
    })
}

/// A deduction from the codes another engine found (every code still
/// possible when `exhaustive`): the first `limit` in canonical order, and,
/// when the list is exhaustive, the variables constant across it that the
/// constraint alone (`base`) does not fix.
pub fn from_codes(
    game: &Game,
    mut codes: Vec<Vec<bool>>,
    exhaustive: bool,
    limit: usize,
    base: &[Option<bool>],
) -> Deduction {
    sort_codes(&mut codes);
    codes.dedup();
    let fixed = match (exhaustive, codes.first()) {
        (true, Some(first)) => (0..game.spec.vars.len())
            .filter(|&v| base[v].is_none() && codes.iter().all(|c| c[v] == first[v]))
            .map(|v| (game.spec.vars[v].clone(), first[v]))
            .collect(),
        _ => Vec::new(),
    };
    Deduction {
        count: codes.len(),
        exhaustive,
        codes: codes
            .iter()
            .take(limit)
            .map(|c| game.code_name(c))
            .collect(),
        fixed,
    }
}

/// An SMV-safe, unused identifier for a spec name.
fn smv_name(name: &str, taken: &mut HashSet<String>) -> String {
    let mut n = name.to_string();
    // `goal` is the DEFINE [`compile`] adds itself.
    while crate::smv::is_reserved(&n) || n == "goal" || taken.contains(&n) {
        n.push('_');
    }
    taken.insert(n.clone());
    n
}

/// The deduction puzzle as an IR system: one frozen boolean per spec
/// variable (the secret), a DEFINE for the constraint and one per recorded
/// outcome (with the variables the constraint fixes on its own folded to
/// their values), goal = all of them, `bound = Some(0)`.
pub fn compile(game: &Game, history: &History) -> System {
    let spec = &game.spec;
    let mut sys = System::default();
    let mut taken = HashSet::new();
    sys.comment.push(format!(
        "Deduction puzzle: which secret codes of {} fit {} recorded experiment(s)?",
        game.name,
        history.entries.len()
    ));
    for i in 0..history.entries.len() {
        sys.comment.push(format!("  {}", history.show(spec, i)));
    }
    sys.comment
        .push("A solution is one state whose secret satisfies `goal`.".into());
    let vars: Vec<VarId> = spec
        .vars
        .iter()
        .map(|v| {
            let n = smv_name(v, &mut taken);
            sys.add_var(n, Domain::Bool, true)
        })
        .collect();
    let mut parts = Vec::new();
    let constraint = to_expr(spec, &spec.constraint(), &[], &vars);
    parts.push(sys.add_define(smv_name("code", &mut taken), constraint));
    for (i, e) in history.entries.iter().enumerate() {
        // The constraint fixes some variables on its own (Mastermind's
        // on/off): fold them, so the model says only what the outcome says.
        let f = &spec.experiments[e.experiment.ty].outcomes[e.outcome].formula;
        let f = f
            .instantiate(spec, &e.experiment.params)
            .simplify(game.units());
        let expr = to_expr(spec, &f, &[], &vars);
        parts.push(sys.add_define(smv_name(&format!("seen{}", i + 1), &mut taken), expr));
    }
    sys.goal = sys.add_define("goal", Expr::And(parts));
    sys.bound = Some(0);
    sys.solution_vars = vars;
    sys
}

fn to_expr(spec: &Spec, f: &Formula, params: &[u32], vars: &[VarId]) -> Expr {
    let rec = |g: &Formula| to_expr(spec, g, params, vars);
    match f {
        Formula::Const(b) => Expr::Const(Value::Bool(*b)),
        Formula::Var(v) => Expr::var(vars[v.index()]),
        Formula::Map { map, param } => {
            let sym = params[*param as usize] as usize;
            Expr::var(vars[spec.mappings[map.index()].targets[sym].index()])
        }
        Formula::Not(a) => Expr::negate(rec(a)),
        Formula::And(xs) => Expr::And(xs.iter().map(rec).collect()),
        Formula::Or(xs) => Expr::Or(xs.iter().map(rec).collect()),
        Formula::Implies(a, b) => Expr::implies(rec(a), rec(b)),
        Formula::Iff(a, b) => Expr::iff(rec(a), rec(b)),
        Formula::Card { kind, k, args } => {
            let count = Expr::Count(args.iter().map(rec).collect());
            let k = Expr::int(*k as i64);
            match kind {
                CardKind::AtLeast => Expr::le(k, count),
                CardKind::AtMost => Expr::le(count, k),
                CardKind::Exactly => Expr::eq(count, k),
            }
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DecodeError {
    #[error("the trace has no states")]
    Empty,
    #[error("the trace has no boolean value for `{0}`")]
    Missing(String),
    #[error("the engine's code {0} does not fit the history")]
    Wrong(String),
}

/// The secret code of a solution trace of [`compile`]'s system, checked
/// against the spec (independently of the engine and of the IR).
pub fn decode(
    game: &Game,
    history: &History,
    sys: &System,
    trace: &Trace,
) -> Result<Vec<bool>, DecodeError> {
    let state = trace.states.first().ok_or(DecodeError::Empty)?;
    let code = sys
        .solution_vars
        .iter()
        .map(|v| match state.get(v.index()) {
            Some(Value::Bool(b)) => Ok(*b),
            _ => Err(DecodeError::Missing(sys.var(*v).name.clone())),
        })
        .collect::<Result<Vec<bool>, _>>()?;
    let spec = &game.spec;
    let fits = spec.is_code(&code)
        && history.entries.iter().all(|e| {
            let f = &spec.experiments[e.experiment.ty].outcomes[e.outcome].formula;
            f.eval(spec, &e.experiment.params, &code)
        });
    if fits {
        Ok(code)
    } else {
        Err(DecodeError::Wrong(game.code_name(&code)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::table::Builtin;
    use crate::ir::Trace;

    fn mm46() -> Game {
        Game::builtin("mastermind:4x6".parse::<Builtin>().unwrap())
    }

    const HISTORY: &str =
        "# secret ABCD\nguess AABB => 1b1w\nguess CCDD => 1b1w   # comment\n\nguess ABCE => 3b0w\n";

    #[test]
    fn reads_a_history() {
        let game = mm46();
        let h = parse_history(&game.spec, HISTORY).unwrap();
        assert_eq!(h.entries.len(), 3);
        assert_eq!(h.entries[2].line, 5);
        assert_eq!(h.show(&game.spec, 0), "guess AABB => 1b1w");
        let spaced = parse_history(&game.spec, "guess A A B B => 1b1w").unwrap();
        assert_eq!(spaced.entries[0].experiment, h.entries[0].experiment);
        assert_eq!(spaced.entries[0].outcome, h.entries[0].outcome);
    }

    fn err(game: &Game, text: &str) -> String {
        parse_history(&game.spec, text).unwrap_err().to_string()
    }

    #[test]
    fn history_errors_name_line_and_column() {
        let game = mm46();
        insta::assert_snapshot!(err(&game, "guess AABB => 1b1w\nguess AAXB => 0b0w"), @"2:9: `X` is not a symbol of the alphabet");
        insta::assert_snapshot!(err(&game, "guess AAB => 0b0w"), @"1:7: guess takes 4 parameters, got AAB");
        insta::assert_snapshot!(err(&game, "gess AABB => 0b0w"), @"1:1: unknown experiment `gess` (the game has guess)");
        insta::assert_snapshot!(err(&game, "guess AABB => 5b0w"), @"1:15: unknown outcome `5b0w` of guess (expected one of 0b0w, 0b1w, 0b2w, 0b3w, 0b4w, 1b0w, 1b1w, 1b2w, 1b3w, 2b0w, 2b1w, 2b2w, 3b0w, 4b0w)");
        insta::assert_snapshot!(err(&game, "guess AABB 1b1w"), @"1:16: expected `=> <outcome>`");
        insta::assert_snapshot!(err(&game, "guess AABB =>"), @"1:14: expected an outcome after `=>`");
        let coins = Game::builtin("coins:4".parse::<Builtin>().unwrap());
        insta::assert_snapshot!(err(&coins, "weighing1 2 1 => same"), @"1:1: the parameters break `PARAMS_SORTED 1, 2`");
    }

    #[test]
    fn deduces_the_remaining_codes() {
        let game = mm46();
        let h = parse_history(&game.spec, "guess AABB => 1b1w\nguess CCDD => 1b1w\n").unwrap();
        let d = deduce(&game, &h, 5, 1000).unwrap();
        // Brute force over the native table.
        let table = game.table(crate::game::Route::Native).unwrap();
        let fits = |c: usize| {
            h.entries.iter().all(|e| {
                let g = game.spec.show_params(&e.experiment.params);
                let ei = table.codes.iter().position(|x| *x == g).unwrap();
                table.outcomes[table.outcome(ei, c) as usize]
                    == game.spec.experiments[0].outcomes[e.outcome].name
            })
        };
        let expected: Vec<String> = (0..table.n_codes())
            .filter(|&c| fits(c))
            .map(|c| table.codes[c].clone())
            .collect();
        assert_eq!(d.count, expected.len());
        assert!(d.exhaustive);
        assert_eq!(d.codes, expected[..5.min(expected.len())]);
        // Capped count and listing in canonical order still agree.
        let capped = deduce(&game, &h, 2, 3).unwrap();
        assert_eq!((capped.count, capped.exhaustive), (3, false));
        assert_eq!(capped.codes, expected[..2]);
    }

    #[test]
    fn fixed_variables_come_from_the_history() {
        let game = Game::builtin("mastermind:3x3".parse::<Builtin>().unwrap());
        let h = parse_history(&game.spec, "guess BBB => 0b0w\nguess CCC => 1b0w\n").unwrap();
        // No B; exactly one C: codes are CAA, ACA, AAC.
        let d = deduce(&game, &h, 10, 100).unwrap();
        assert_eq!(d.codes, vec!["AAC", "ACA", "CAA"]);
        let fixed: Vec<String> = d
            .fixed
            .iter()
            .map(|(v, b)| format!("{}{v}", if *b { "" } else { "!" }))
            .collect();
        assert_eq!(fixed, vec!["!x1B", "!x2B", "!x3B"]);
    }

    #[test]
    fn compiled_system_accepts_exactly_the_deduced_codes() {
        let game = Game::builtin("mastermind:3x3".parse::<Builtin>().unwrap());
        let h = parse_history(&game.spec, "guess BBB => 0b0w\nguess CCC => 1b0w\n").unwrap();
        let sys = compile(&game, &h);
        assert_eq!(sys.bound, Some(0));
        assert!(sys.vars.iter().all(|v| v.frozen));
        let table = game.table(crate::game::Route::Native).unwrap();
        let vals = table.valuations.as_ref().unwrap();
        let mut accepted = Vec::new();
        for c in 0..table.n_codes() {
            let code = vals.code(c);
            let trace = Trace {
                states: vec![code.iter().map(|&b| Value::Bool(b)).collect()],
                loop_start: None,
            };
            let ok = sys.check(&trace).is_ok();
            assert_eq!(ok, decode(&game, &h, &sys, &trace).is_ok());
            if ok {
                accepted.push(table.codes[c].clone());
            }
        }
        assert_eq!(accepted, vec!["AAC", "ACA", "CAA"]);
    }

    /// Mastermind 8×8 (16.7 million codes) never enumerated: the SAT count
    /// agrees with brute force over every code. Slow in debug builds:
    /// `cargo test --release -- --ignored`.
    #[test]
    #[ignore]
    fn eight_by_eight_agrees_with_brute_force() {
        let game = Game::builtin("mastermind:8x8".parse::<Builtin>().unwrap());
        let secret: Vec<usize> = "CAHEBHDF".bytes().map(|b| (b - b'A') as usize).collect();
        let guesses = ["AABBCCDD", "EEFFGGHH", "ABCDEFGH", "HGFEDCBA", "ACEGBDFH"];
        let digits = |g: &str| g.bytes().map(|b| (b - b'A') as usize).collect::<Vec<_>>();
        let mut text = String::new();
        let mut scored = Vec::new();
        for g in guesses {
            let (b, w) = crate::game::table::score(&digits(g), &secret);
            text.push_str(&format!("guess {g} => {b}b{w}w\n"));
            scored.push((digits(g), (b, w)));
        }
        let h = parse_history(&game.spec, &text).unwrap();
        let d = deduce(&game, &h, 3, 100_000).unwrap();
        let mut code = vec![0usize; 8];
        let mut count = 0;
        for n in 0..8usize.pow(8) {
            let mut x = n;
            for slot in code.iter_mut().rev() {
                *slot = x % 8;
                x /= 8;
            }
            if scored
                .iter()
                .all(|(g, s)| crate::game::table::score(g, &code) == *s)
            {
                count += 1;
            }
        }
        assert_eq!((d.count, d.exhaustive), (count, true));
        assert!(d.codes.iter().all(|c| !c.starts_with('A')));
    }
}
