//! Spec generators for the built-in games, and the translation between
//! their codes as valuations and as names (`AABB`, `7h`).
//!
//! Input: a [`Builtin`]. Output: its [`Spec`] (what `game spec` prints),
//! the valuation of each native code, the name of a valuation.
//!
//! Invariants: the variables are declared so that the canonical code order
//! (valuations compared variable by variable in declaration order, true
//! before false) is the native order of [`Builtin::code_digits`]; outcomes
//! are declared in the native table's order; the generated spec, explored
//! through SAT, gives exactly the native table (tested in
//! `game::explicit`).
//!
//! Encodings:
//! * Mastermind-like games use `x<i><C>` ("peg i has colour C") with one
//!   colour per peg, and mappings `P<i>` (`P<i>$j`: peg i of the code has
//!   the colour of guess parameter j), so the black pegs are
//!   `Exactly-b(P1$1, …, Pp$p)`.
//! * Mastermind's total number of colour matches is
//!   Σ_C min(#C in guess, #C in code) = Σ_{C,k} [guess has ≥ k C's] ∧
//!   [code has ≥ k C's]. The guess side needs to know which parameters
//!   equal C, which no mapping onto code variables can tell; so the spec
//!   has two constants, `on` and `off` (a constraint fixes them), and
//!   indicator mappings `is<C>` sending C to `on` and every other colour
//!   to `off`: `[guess has ≥ k C's]` is `AtLeast-k(isC$1, …, isC$p)`.
//!   Outcome `<b>b<w>w` is then `Exactly-b(blacks) & Exactly-(b+w)(terms)`
//!   with p·c terms, small enough for 8×8.
//! * Bulls and Cows (distinct symbols) needs no constants: symbol j of the
//!   guess matches iff `P1$j | … | Pp$j`.
//! * Coins use `x<n>` ("coin n is counterfeit", the extra genuine coin's
//!   variable is fixed false) then `y` ("it is heavier").

use super::spec::{CardKind, ExperimentType, Formula, MapIdx, Mapping, OutcomeDef, Spec, VarIdx};
use super::table::{letter, Builtin};

fn or(mut xs: Vec<Formula>) -> Formula {
    if xs.len() == 1 {
        xs.remove(0)
    } else {
        Formula::Or(xs)
    }
}

fn var(i: usize) -> Formula {
    Formula::Var(VarIdx(i as u32))
}

fn mapped(map: usize, param: usize) -> Formula {
    Formula::Map {
        map: MapIdx(map as u32),
        param: param as u32,
    }
}

/// The spec of a built-in game.
pub fn spec(game: Builtin) -> Spec {
    match game {
        Builtin::Mastermind { pegs, colours } => pegs_spec(game, pegs, colours),
        Builtin::BlackPeg { pegs, colours } => pegs_spec(game, pegs, colours),
        Builtin::BullsCows { pegs, symbols } => pegs_spec(game, pegs, symbols),
        Builtin::Coins {
            coins,
            extra_genuine,
        } => coins_spec(game, coins, extra_genuine),
    }
}

/// The variables of a built-in game's spec, in declaration order.
pub fn vars(game: Builtin) -> Vec<String> {
    match game {
        Builtin::Mastermind { pegs, colours }
        | Builtin::BlackPeg { pegs, colours }
        | Builtin::BullsCows {
            pegs,
            symbols: colours,
        } => {
            let mut v: Vec<String> = (0..pegs)
                .flat_map(|i| (0..colours).map(move |c| format!("x{}{}", i + 1, letter(c))))
                .collect();
            if let Builtin::Mastermind { .. } = game {
                v.extend(["on".to_string(), "off".to_string()]);
            }
            v
        }
        Builtin::Coins {
            coins,
            extra_genuine,
        } => {
            let symbols = coins + usize::from(extra_genuine);
            let mut v: Vec<String> = (1..=symbols).map(|n| format!("x{n}")).collect();
            v.push("y".into());
            v
        }
    }
}

/// `(black, white)` outcomes in the native order; `(pegs - 1, 1)` cannot
/// happen and is left out.
pub fn peg_outcomes(pegs: usize, white: bool) -> Vec<(usize, usize)> {
    (0..=pegs)
        .flat_map(|b| (0..=if white { pegs - b } else { 0 }).map(move |w| (b, w)))
        .filter(|&(b, w)| !(b + 1 == pegs && w == 1))
        .collect()
}

fn pegs_spec(game: Builtin, pegs: usize, colours: usize) -> Spec {
    let (white, suffix) = match game {
        Builtin::BlackPeg { .. } => (false, ""),
        Builtin::BullsCows { .. } => (true, "c"),
        _ => (true, "w"),
    };
    let mastermind = matches!(game, Builtin::Mastermind { .. });
    let x = |i: usize, c: usize| i * colours + c;
    let vars = vars(game);
    let (on, off) = (pegs * colours, pegs * colours + 1);
    let mut constraints: Vec<Formula> = (0..pegs)
        .map(|i| {
            Formula::card(
                CardKind::Exactly,
                1,
                (0..colours).map(|c| var(x(i, c))).collect(),
            )
        })
        .collect();
    if mastermind {
        constraints.push(Formula::And(vec![var(on), Formula::negate(var(off))]));
    }
    if let Builtin::BullsCows { .. } = game {
        constraints.extend((0..colours).map(|c| {
            Formula::card(
                CardKind::AtMost,
                1,
                (0..pegs).map(|i| var(x(i, c))).collect(),
            )
        }));
    }
    let mut mappings: Vec<Mapping> = (0..pegs)
        .map(|i| Mapping {
            name: format!("P{}", i + 1),
            targets: (0..colours).map(|c| VarIdx(x(i, c) as u32)).collect(),
        })
        .collect();
    if mastermind {
        mappings.extend((0..colours).map(|c| {
            Mapping {
                name: format!("is{}", letter(c)),
                targets: (0..colours)
                    .map(|d| VarIdx(if d == c { on } else { off } as u32))
                    .collect(),
            }
        }));
    }
    let blacks: Vec<Formula> = (0..pegs).map(|i| mapped(i, i)).collect();
    // Terms whose number of true ones is the number of colour matches.
    let matches: Vec<Formula> = match game {
        Builtin::Mastermind { .. } => (0..colours)
            .flat_map(|c| (1..=pegs).map(move |k| (c, k)))
            .map(|(c, k)| {
                let guess = (0..pegs).map(|j| mapped(pegs + c, j)).collect();
                let code = (0..pegs).map(|i| var(x(i, c))).collect();
                Formula::And(vec![
                    Formula::card(CardKind::AtLeast, k as u32, guess),
                    Formula::card(CardKind::AtLeast, k as u32, code),
                ])
            })
            .collect(),
        _ => (0..pegs)
            .map(|j| or((0..pegs).map(|i| mapped(i, j)).collect()))
            .collect(),
    };
    let outcomes = peg_outcomes(pegs, white)
        .into_iter()
        .map(|(b, w)| {
            let black = Formula::card(CardKind::Exactly, b as u32, blacks.clone());
            let formula = if white {
                let total = Formula::card(CardKind::Exactly, (b + w) as u32, matches.clone());
                Formula::And(vec![black, total])
            } else {
                black
            };
            OutcomeDef {
                name: if white {
                    format!("{b}b{w}{suffix}")
                } else {
                    format!("{b}b")
                },
                declared_final: b == pegs,
                formula,
            }
        })
        .collect();
    let distinct = match game {
        Builtin::BullsCows { .. } => vec![(0..pegs).collect()],
        _ => Vec::new(),
    };
    Spec {
        header: pegs_header(game, pegs, colours),
        vars,
        constraints,
        alphabet: (0..colours).map(letter).collect(),
        mappings,
        experiments: vec![ExperimentType {
            name: "guess".into(),
            arity: pegs,
            distinct,
            sorted: Vec::new(),
            outcomes,
        }],
    }
}

fn pegs_header(game: Builtin, pegs: usize, colours: usize) -> Vec<String> {
    let mut h = vec![
        format!("{game}: generated by `checkmate game spec {game}`."),
        String::new(),
        "x<i><C>: peg i of the secret code has colour C.".to_string(),
        "P<i>$j: peg i of the code has the colour of guess parameter j.".to_string(),
    ];
    match game {
        Builtin::Mastermind { .. } => h.extend([
            "on/off are constants; is<C>$j: guess parameter j is colour C.".to_string(),
            "Outcome <b>b<w>w: b pegs right in place, b+w colour matches in all,".to_string(),
            "counted as the pairs (C, k) with at least k C's in both guess and code.".to_string(),
        ]),
        Builtin::BlackPeg { .. } => {
            h.push("Outcome <b>b: b pegs right in place (no white pegs).".to_string())
        }
        _ => h.extend([
            format!("Codes and guesses are {pegs} distinct symbols of {colours}."),
            "Outcome <b>b<c>c: b bulls (right place), c cows (wrong place).".to_string(),
        ]),
    }
    h
}

fn coins_spec(game: Builtin, coins: usize, extra: bool) -> Spec {
    let symbols = coins + usize::from(extra);
    let vars = vars(game);
    let y = symbols;
    let mut constraints = vec![Formula::card(
        CardKind::Exactly,
        1,
        (0..coins).map(var).collect(),
    )];
    if extra {
        constraints.push(Formula::negate(var(coins)));
    }
    let experiments = (1..=symbols / 2)
        .map(|m| {
            let pan = |r: std::ops::Range<usize>| or(r.map(|p| mapped(0, p)).collect());
            let (left, right) = (pan(0..m), pan(m..2 * m));
            let heavy = || var(y);
            let light = || Formula::negate(var(y));
            let group = |r: std::ops::Range<usize>| r.collect::<Vec<_>>();
            let mut sorted = Vec::new();
            if m > 1 {
                sorted.extend([group(0..m), group(m..2 * m)]);
            }
            sorted.push(vec![0, m]);
            let outcome = |name: &str, formula| OutcomeDef {
                name: name.into(),
                declared_final: true,
                formula,
            };
            ExperimentType {
                name: format!("weighing{m}"),
                arity: 2 * m,
                distinct: vec![group(0..2 * m)],
                sorted,
                outcomes: vec![
                    outcome(
                        "lighter",
                        Formula::Or(vec![
                            Formula::And(vec![left.clone(), light()]),
                            Formula::And(vec![right.clone(), heavy()]),
                        ]),
                    ),
                    outcome(
                        "heavier",
                        Formula::Or(vec![
                            Formula::And(vec![left.clone(), heavy()]),
                            Formula::And(vec![right.clone(), light()]),
                        ]),
                    ),
                    outcome("same", Formula::negate(pan(0..2 * m))),
                ],
            }
        })
        .collect();
    let mut header = vec![
        format!("{game}: generated by `checkmate game spec {game}`."),
        String::new(),
        format!(
            "One of coins 1..{coins} is counterfeit: x<n> says it is coin n, y that it is heavier."
        ),
    ];
    if extra {
        header.push(format!("Coin {symbols} is known to be genuine."));
    }
    header.extend([
        "weighing<m>: parameters 1..m on the left pan, m+1..2m on the right;".to_string(),
        "outcomes compare the left pan with the right one. All three are declared".to_string(),
        "with OUTCOME, so none ends the play: it ends when the coin is identified.".to_string(),
    ]);
    Spec {
        header,
        vars,
        constraints,
        alphabet: (1..=symbols).map(|n| n.to_string()).collect(),
        mappings: vec![Mapping {
            name: "X".into(),
            targets: (0..symbols).map(|n| VarIdx(n as u32)).collect(),
        }],
        experiments,
    }
}

/// The valuation of a native code (as in [`Builtin::code_digits`]) over
/// the generated spec's variables.
pub fn valuation(game: Builtin, digits: &[usize]) -> Vec<bool> {
    match game {
        Builtin::Mastermind { pegs, colours }
        | Builtin::BlackPeg { pegs, colours }
        | Builtin::BullsCows {
            pegs,
            symbols: colours,
        } => {
            let consts = if matches!(game, Builtin::Mastermind { .. }) {
                2
            } else {
                0
            };
            let mut v = vec![false; pegs * colours + consts];
            for (i, &c) in digits.iter().enumerate() {
                v[i * colours + c] = true;
            }
            if consts == 2 {
                v[pegs * colours] = true;
            }
            v
        }
        Builtin::Coins {
            coins,
            extra_genuine,
        } => {
            let symbols = coins + usize::from(extra_genuine);
            let mut v = vec![false; symbols + 1];
            v[digits[0]] = true;
            v[symbols] = digits[1] == 1;
            v
        }
    }
}

/// The native name of a code given as a valuation of the generated spec's
/// variables (`AABB`, `7h`), or `None` if it is not a code of the game.
pub fn code_name(game: Builtin, code: &[bool]) -> Option<String> {
    match game {
        Builtin::Mastermind { pegs, colours }
        | Builtin::BlackPeg { pegs, colours }
        | Builtin::BullsCows {
            pegs,
            symbols: colours,
        } => (0..pegs)
            .map(|i| {
                let row = code.get(i * colours..(i + 1) * colours)?;
                let mut set = row.iter().enumerate().filter(|(_, &b)| b);
                match (set.next(), set.next()) {
                    (Some((c, _)), None) => Some(letter(c)),
                    _ => None,
                }
            })
            .collect(),
        Builtin::Coins { coins, .. } => {
            let mut set = code.iter().take(coins).enumerate().filter(|(_, &b)| b);
            let (Some((n, _)), None) = (set.next(), set.next()) else {
                return None;
            };
            let heavy = *code.last()?;
            Some(format!("{}{}", n + 1, if heavy { 'h' } else { 'l' }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::spec::parse;

    fn all() -> Vec<Builtin> {
        [
            "mastermind:2x3",
            "mastermind:4x6",
            "black-peg:3x3",
            "bulls-cows:3x4",
            "coins:4",
            "coins:4+1",
            "coins:12",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect()
    }

    #[test]
    fn generated_specs_round_trip_through_text() {
        for game in all() {
            let spec = spec(game);
            assert_eq!(parse(&spec.to_string()).unwrap(), spec, "{game}");
        }
    }

    #[test]
    fn native_codes_are_codes_and_named_back() {
        for game in all() {
            let spec = spec(game);
            let table = game.table();
            for (digits, name) in game.code_digits().iter().zip(&table.codes) {
                let v = valuation(game, digits);
                assert!(spec.is_code(&v), "{game} {name}");
                assert_eq!(code_name(game, &v).as_deref(), Some(name.as_str()));
            }
        }
    }

    #[test]
    fn mastermind_spec_scores_like_the_native_table() {
        let game: Builtin = "mastermind:4x6".parse().unwrap();
        let spec = spec(game);
        let table = game.table();
        let codes = game.code_digits();
        let guess = &spec.experiments[0];
        for g in ["AAAA", "AABB", "ACEB", "FEDC"] {
            let params: Vec<u32> = g.bytes().map(|b| (b - b'A') as u32).collect();
            let e = table.codes.iter().position(|c| c == g).unwrap();
            for (c, digits) in codes.iter().enumerate().step_by(7) {
                let v = valuation(game, digits);
                let holding: Vec<&str> = guess
                    .outcomes
                    .iter()
                    .filter(|o| o.formula.eval(&spec, &params, &v))
                    .map(|o| o.name.as_str())
                    .collect();
                let native = &table.outcomes[table.outcome(e, c) as usize];
                assert_eq!(holding, vec![native.as_str()], "{g} vs {}", table.codes[c]);
            }
        }
    }

    #[test]
    fn generated_specs_snapshot() {
        for name in [
            "coins:4+1",
            "mastermind:2x2",
            "black-peg:2x3",
            "bulls-cows:2x3",
        ] {
            let text = spec(name.parse().unwrap()).to_string();
            insta::assert_snapshot!(name.replace(':', "_"), text);
        }
    }
}
