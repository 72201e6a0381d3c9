//! The nom parser for spec text: first a statement list with names and
//! source locations, then resolution of names into a [`Spec`].
//!
//! Lexical rules: `#` starts a comment up to the end of the line;
//! whitespace (newlines included) separates tokens, so a formula or a list
//! may continue on the next line; identifiers are `[A-Za-z_][A-Za-z0-9_]*`
//! and statement keywords are reserved; names and symbols are quoted with
//! `'…'` or `"…"` (a bare word is accepted too).

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit1};
use nom::combinator::{cut, map, recognize};
use nom::error::{ErrorKind, ParseError};
use nom::sequence::{delimited, pair};
use nom::IResult;

use super::{
    CardKind, ExperimentType, Formula, MapIdx, Mapping, OutcomeDef, Pos, Spec, SpecError, VarIdx,
};

/// Remaining input length at a token: converted to a [`Pos`] once the
/// whole text is known.
type Loc = usize;

#[derive(Debug)]
struct PErr<'a> {
    at: &'a str,
    expected: String,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        PErr {
            at: input,
            expected: "valid syntax".into(),
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }

    fn or(self, other: Self) -> Self {
        // Keep the error that got further into the input.
        if other.at.len() < self.at.len() {
            other
        } else {
            self
        }
    }
}

type Res<'a, T> = IResult<&'a str, T, PErr<'a>>;

const KEYWORDS: [&str; 10] = [
    "VARIABLE",
    "VARIABLES",
    "CONSTRAINT",
    "ALPHABET",
    "MAPPING",
    "EXPERIMENT",
    "PARAMS_DISTINCT",
    "PARAMS_SORTED",
    "OUTCOME",
    "OUTCOMEX",
];

/// Skips whitespace and comments.
fn skip_ws(mut i: &str) -> &str {
    loop {
        let t = i.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            i = rest.find('\n').map_or("", |n| &rest[n..]);
        } else {
            return t;
        }
    }
}

/// Runs `p` after whitespace.
fn lex<'a, T>(mut p: impl FnMut(&'a str) -> Res<'a, T>) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |i| p(skip_ws(i))
}

/// Runs `p` after whitespace; if it fails without getting past the first
/// token, the error says `expected {what}` there.
fn expect<'a, T>(
    what: &'static str,
    mut p: impl FnMut(&'a str) -> Res<'a, T>,
) -> impl FnMut(&'a str) -> Res<'a, T> {
    move |i| {
        let i = skip_ws(i);
        match p(i) {
            Err(nom::Err::Error(e)) if e.at.len() >= i.len() => Err(nom::Err::Error(PErr {
                at: i,
                expected: what.into(),
            })),
            other => other,
        }
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn ident_raw(i: &str) -> Res<'_, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_alphabetic() || c == '_'),
        take_while(is_ident_char),
    ))(i)
}

/// An identifier that is not a keyword, with its location.
fn ident(i: &str) -> Res<'_, (String, Loc)> {
    let i = skip_ws(i);
    let (rest, name) = ident_raw(i)?;
    if KEYWORDS.contains(&name) {
        return Err(nom::Err::Error(PErr {
            at: i,
            expected: "a name (keywords are reserved)".into(),
        }));
    }
    Ok((rest, (name.to_string(), i.len())))
}

fn number(i: &str) -> Res<'_, (u32, Loc)> {
    let i = skip_ws(i);
    let (rest, digits) = digit1(i)?;
    match digits.parse() {
        Ok(n) => Ok((rest, (n, i.len()))),
        Err(_) => Err(nom::Err::Failure(PErr {
            at: i,
            expected: "a smaller number".into(),
        })),
    }
}

/// `'text'`, `"text"` or a bare word, with its location.
fn quoted<'a>(i: &'a str) -> Res<'a, (String, Loc)> {
    let i = skip_ws(i);
    let q = |c: char| {
        delimited(
            char(c),
            take_while(move |x: char| x != c && x != '\n'),
            move |rest: &'a str| match rest.strip_prefix(c) {
                Some(after) => Ok((after, ())),
                None => Err(nom::Err::Failure(PErr {
                    at: rest,
                    expected: "a closing quote".into(),
                })),
            },
        )
    };
    let (rest, s) = alt((q('\''), q('"'), take_while1(is_ident_char)))(i)?;
    Ok((rest, (s.to_string(), i.len())))
}

fn comma_list<'a, T>(
    what: &'static str,
    item: impl FnMut(&'a str) -> Res<'a, T> + Copy,
) -> impl FnMut(&'a str) -> Res<'a, Vec<T>> {
    move |i| {
        let (mut i, first) = expect(what, item)(i)?;
        let mut out = vec![first];
        while let Ok((rest, _)) = lex(char::<&str, PErr>(','))(i) {
            let (rest, x) = cut(expect(what, item))(rest)?;
            out.push(x);
            i = rest;
        }
        Ok((i, out))
    }
}

/// A formula with names not yet resolved.
#[derive(Debug)]
enum Raw {
    Const(bool),
    Ident(String, Loc),
    Map(String, u32, Loc),
    Not(Box<Raw>),
    And(Vec<Raw>),
    Or(Vec<Raw>),
    Implies(Box<Raw>, Box<Raw>),
    Iff(Box<Raw>, Box<Raw>),
    Card(CardKind, u32, Vec<Raw>),
}

fn formula(i: &str) -> Res<'_, Raw> {
    expect("a formula", iff)(i)
}

fn iff(i: &str) -> Res<'_, Raw> {
    let (i, a) = implies(i)?;
    match lex(tag::<&str, &str, PErr>("<->"))(i) {
        Ok((rest, _)) => {
            let (rest, b) = cut(formula)(rest)?;
            Ok((rest, Raw::Iff(Box::new(a), Box::new(b))))
        }
        Err(_) => Ok((i, a)),
    }
}

fn implies(i: &str) -> Res<'_, Raw> {
    let (i, a) = implied(i)?;
    match lex(tag::<&str, &str, PErr>("->"))(i) {
        Ok((rest, _)) => {
            let (rest, b) = cut(expect("a formula", implies))(rest)?;
            Ok((rest, Raw::Implies(Box::new(a), Box::new(b))))
        }
        Err(_) => Ok((i, a)),
    }
}

/// `a <- b` is `b -> a`; left-associative.
fn implied(i: &str) -> Res<'_, Raw> {
    let (mut i, mut a) = disjunction(i)?;
    loop {
        let t = skip_ws(i);
        if !t.starts_with("<-") || t.starts_with("<->") {
            return Ok((i, a));
        }
        let (rest, b) = cut(expect("a formula", disjunction))(&t[2..])?;
        a = Raw::Implies(Box::new(b), Box::new(a));
        i = rest;
    }
}

fn disjunction(i: &str) -> Res<'_, Raw> {
    let (mut i, first) = conjunction(i)?;
    let mut xs = vec![first];
    while let Ok((rest, _)) = lex(char::<&str, PErr>('|'))(i) {
        let (rest, x) = cut(expect("a formula", conjunction))(rest)?;
        xs.push(x);
        i = rest;
    }
    Ok((
        i,
        if xs.len() == 1 {
            xs.remove(0)
        } else {
            Raw::Or(xs)
        },
    ))
}

fn conjunction(i: &str) -> Res<'_, Raw> {
    let (mut i, first) = unary(i)?;
    let mut xs = vec![first];
    while let Ok((rest, _)) = lex(char::<&str, PErr>('&'))(i) {
        let (rest, x) = cut(expect("a formula", unary))(rest)?;
        xs.push(x);
        i = rest;
    }
    Ok((
        i,
        if xs.len() == 1 {
            xs.remove(0)
        } else {
            Raw::And(xs)
        },
    ))
}

fn unary(i: &str) -> Res<'_, Raw> {
    let i = skip_ws(i);
    if let Some(rest) = i.strip_prefix('!') {
        let (rest, a) = cut(expect("a formula after `!`", unary))(rest)?;
        return Ok((rest, Raw::Not(Box::new(a))));
    }
    atom(i)
}

fn atom(i: &str) -> Res<'_, Raw> {
    let i = skip_ws(i);
    if let Some(rest) = i.strip_prefix('(') {
        let (rest, f) = cut(formula)(rest)?;
        let (rest, _) = cut(expect("`)`", char(')')))(rest)?;
        return Ok((rest, f));
    }
    let (rest, (name, loc)) = ident(i)?;
    let kind = match name.as_str() {
        "TRUE" => return Ok((rest, Raw::Const(true))),
        "FALSE" => return Ok((rest, Raw::Const(false))),
        "AtLeast" => Some(CardKind::AtLeast),
        "AtMost" => Some(CardKind::AtMost),
        "Exactly" => Some(CardKind::Exactly),
        _ => None,
    };
    if let (Some(kind), Some(after)) = (kind, rest.strip_prefix('-')) {
        let (after, (k, _)) = cut(expect("a number after `-`", number))(after)?;
        let (after, _) = cut(expect("`(`", char('(')))(after)?;
        let (after, args) = match lex(char::<&str, PErr>(')'))(after) {
            Ok((after, _)) => (after, Vec::new()),
            Err(_) => {
                let (after, args) = cut(comma_list("a formula", formula))(after)?;
                let (after, _) = cut(expect("`,` or `)`", char(')')))(after)?;
                (after, args)
            }
        };
        return Ok((after, Raw::Card(kind, k, args)));
    }
    if let Some(after) = rest.strip_prefix('$') {
        let (after, (p, _)) = cut(expect("a parameter number after `$`", number))(after)?;
        return Ok((after, Raw::Map(name, p, loc)));
    }
    Ok((rest, Raw::Ident(name, loc)))
}

/// One statement with its keyword's location.
#[derive(Debug)]
enum Stmt {
    Variables(Vec<(String, Loc)>),
    Constraint(Raw),
    Alphabet(Vec<(String, Loc)>),
    Mapping((String, Loc), Vec<(String, Loc)>),
    Experiment((String, Loc), u32),
    Distinct(Vec<(u32, Loc)>),
    Sorted(Vec<(u32, Loc)>),
    Outcome((String, Loc), bool, Raw),
}

fn statement(i: &str) -> Res<'_, (Stmt, Loc)> {
    let i = skip_ws(i);
    let loc = i.len();
    let (rest, word) = expect(
        "a statement (VARIABLE, VARIABLES, CONSTRAINT, ALPHABET, MAPPING, EXPERIMENT, PARAMS_DISTINCT, PARAMS_SORTED, OUTCOME, OUTCOMEX)",
        ident_raw,
    )(i)?;
    let names = comma_list("a name", ident);
    let (rest, stmt) = match word {
        "VARIABLE" => map(cut(expect("a variable name", ident)), |v| {
            Stmt::Variables(vec![v])
        })(rest)?,
        "VARIABLES" => map(cut(names), Stmt::Variables)(rest)?,
        "CONSTRAINT" => map(cut(formula), Stmt::Constraint)(rest)?,
        "ALPHABET" => map(cut(comma_list("a quoted symbol", quoted)), Stmt::Alphabet)(rest)?,
        "MAPPING" => map(
            cut(pair(expect("a mapping name", ident), names)),
            |(m, vs)| Stmt::Mapping(m, vs),
        )(rest)?,
        "EXPERIMENT" => map(
            cut(pair(
                expect("a quoted experiment name", quoted),
                expect("the number of parameters", number),
            )),
            |(n, (k, _))| Stmt::Experiment(n, k),
        )(rest)?,
        "PARAMS_DISTINCT" => map(
            cut(comma_list("a parameter number", number)),
            Stmt::Distinct,
        )(rest)?,
        "PARAMS_SORTED" => map(cut(comma_list("a parameter number", number)), Stmt::Sorted)(rest)?,
        "OUTCOME" | "OUTCOMEX" => map(
            cut(pair(expect("a quoted outcome name", quoted), formula)),
            |(n, f)| Stmt::Outcome(n, word == "OUTCOME", f),
        )(rest)?,
        _ => {
            return Err(nom::Err::Error(PErr {
                at: i,
                expected: "a statement keyword".into(),
            }))
        }
    };
    Ok((rest, (stmt, loc)))
}

/// Describes what is at `at` for an error message.
fn found(at: &str) -> String {
    let t = at.trim_start();
    if t.is_empty() {
        return "end of input".into();
    }
    let word: String = t
        .chars()
        .take_while(|c| !c.is_whitespace())
        .take(20)
        .collect();
    format!("`{word}`")
}

/// Parses spec text into a resolved [`Spec`].
pub fn parse(text: &str) -> Result<Spec, SpecError> {
    let mut header = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(c) = t.strip_prefix('#') {
            header.push(c.strip_prefix(' ').unwrap_or(c).trim_end().to_string());
        } else if !t.is_empty() || !header.is_empty() {
            break;
        }
    }
    let mut stmts = Vec::new();
    let mut i = skip_ws(text);
    while !i.is_empty() {
        match statement(i) {
            Ok((rest, s)) => {
                stmts.push(s);
                i = skip_ws(rest);
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                return Err(SpecError {
                    pos: Pos::at(text, text.len() - e.at.len()),
                    message: format!("expected {}, found {}", e.expected, found(e.at)),
                })
            }
            Err(nom::Err::Incomplete(_)) => {
                return Err(SpecError {
                    pos: Pos::at(text, text.len()),
                    message: "unexpected end of input".into(),
                })
            }
        }
    }
    Resolver {
        text,
        spec: Spec {
            header,
            ..Spec::default()
        },
    }
    .run(stmts)
}

/// Turns names into indices, checking every rule of a resolved spec.
struct Resolver<'t> {
    text: &'t str,
    spec: Spec,
}

impl Resolver<'_> {
    fn err<T>(&self, loc: Loc, message: String) -> Result<T, SpecError> {
        Err(SpecError {
            pos: Pos::at(self.text, self.text.len() - loc),
            message,
        })
    }

    fn var(&self, name: &str, loc: Loc) -> Result<VarIdx, SpecError> {
        match self.spec.var(name) {
            Some(v) => Ok(v),
            None => self.err(loc, format!("unknown variable `{name}`")),
        }
    }

    fn run(mut self, stmts: Vec<(Stmt, Loc)>) -> Result<Spec, SpecError> {
        let mut alphabet_seen = false;
        for (stmt, loc) in stmts {
            match stmt {
                Stmt::Variables(vs) => {
                    for (name, at) in vs {
                        if name == "TRUE" || name == "FALSE" {
                            return self
                                .err(at, format!("`{name}` is a constant, not a variable name"));
                        }
                        if self.spec.var(&name).is_some() {
                            return self.err(at, format!("variable `{name}` is declared twice"));
                        }
                        self.spec.vars.push(name);
                    }
                }
                Stmt::Constraint(raw) => {
                    let f = self.formula(&raw, None)?;
                    self.spec.constraints.push(f);
                }
                Stmt::Alphabet(syms) => {
                    if alphabet_seen {
                        return self.err(loc, "the ALPHABET is declared twice".into());
                    }
                    alphabet_seen = true;
                    for (s, at) in syms {
                        if self.spec.alphabet.contains(&s) {
                            return self.err(at, format!("symbol '{s}' is listed twice"));
                        }
                        self.spec.alphabet.push(s);
                    }
                }
                Stmt::Mapping((name, at), targets) => self.mapping(loc, name, at, targets)?,
                Stmt::Experiment((name, at), k) => {
                    if self.spec.experiments.iter().any(|e| e.name == name) {
                        return self.err(at, format!("experiment '{name}' is declared twice"));
                    }
                    if k > 0 && self.spec.alphabet.is_empty() {
                        return self.err(
                            loc,
                            "an EXPERIMENT with parameters needs the ALPHABET first".into(),
                        );
                    }
                    self.spec.experiments.push(ExperimentType {
                        name,
                        arity: k as usize,
                        distinct: Vec::new(),
                        sorted: Vec::new(),
                        outcomes: Vec::new(),
                    });
                }
                Stmt::Distinct(_) | Stmt::Sorted(_) if self.spec.experiments.is_empty() => {
                    return self.err(
                        loc,
                        "PARAMS_DISTINCT and PARAMS_SORTED must follow an EXPERIMENT".into(),
                    );
                }
                Stmt::Distinct(ps) => {
                    let g = self.group(ps)?;
                    self.current().distinct.push(g);
                }
                Stmt::Sorted(ps) => {
                    let g = self.group(ps)?;
                    self.current().sorted.push(g);
                }
                Stmt::Outcome((name, at), declared_final, raw) => {
                    let Some(e) = self.spec.experiments.last() else {
                        return self.err(loc, "an OUTCOME must follow an EXPERIMENT".into());
                    };
                    if e.outcomes.iter().any(|o| o.name == name) {
                        return self.err(at, format!("outcome '{name}' is declared twice"));
                    }
                    let arity = e.arity;
                    let formula = self.formula(&raw, Some(arity))?;
                    self.current().outcomes.push(OutcomeDef {
                        name,
                        declared_final,
                        formula,
                    });
                }
            }
        }
        let end = 0;
        if self.spec.experiments.is_empty() {
            return self.err(end, "the game declares no EXPERIMENT".into());
        }
        if let Some(e) = self.spec.experiments.iter().find(|e| e.outcomes.is_empty()) {
            let name = e.name.clone();
            return self.err(end, format!("experiment '{name}' declares no OUTCOME"));
        }
        Ok(self.spec)
    }

    fn current(&mut self) -> &mut ExperimentType {
        let last = self.spec.experiments.len() - 1;
        &mut self.spec.experiments[last]
    }

    fn mapping(
        &mut self,
        loc: Loc,
        name: String,
        at: Loc,
        targets: Vec<(String, Loc)>,
    ) -> Result<(), SpecError> {
        if self.spec.alphabet.is_empty() {
            return self.err(loc, "a MAPPING needs the ALPHABET first".into());
        }
        if self.spec.mappings.iter().any(|m| m.name == name) {
            return self.err(at, format!("mapping `{name}` is declared twice"));
        }
        if targets.len() != self.spec.alphabet.len() {
            return self.err(
                at,
                format!(
                    "mapping `{name}` has {} variables, but the alphabet has {} symbols",
                    targets.len(),
                    self.spec.alphabet.len()
                ),
            );
        }
        let targets = targets
            .iter()
            .map(|(v, l)| self.var(v, *l))
            .collect::<Result<_, _>>()?;
        self.spec.mappings.push(Mapping { name, targets });
        Ok(())
    }

    fn group(&self, ps: Vec<(u32, Loc)>) -> Result<Vec<usize>, SpecError> {
        let arity = self.spec.experiments.last().map_or(0, |e| e.arity);
        let mut g = Vec::new();
        for (p, at) in ps {
            if p == 0 || p as usize > arity {
                return self.err(at, format!("parameter {p} is not in 1..{arity}"));
            }
            g.push(p as usize - 1);
        }
        Ok(g)
    }

    /// Resolves a formula; `arity` is `None` in constraints (no `M$i`).
    fn formula(&self, raw: &Raw, arity: Option<usize>) -> Result<Formula, SpecError> {
        let rec = |r: &Raw| self.formula(r, arity);
        Ok(match raw {
            Raw::Const(b) => Formula::Const(*b),
            Raw::Ident(name, loc) => Formula::Var(self.var(name, *loc)?),
            Raw::Map(name, p, loc) => {
                let Some(arity) = arity else {
                    return self.err(
                        *loc,
                        format!("`{name}${p}`: parameters are not allowed in a CONSTRAINT"),
                    );
                };
                let Some(m) = self.spec.mappings.iter().position(|m| &m.name == name) else {
                    return self.err(*loc, format!("unknown mapping `{name}`"));
                };
                if *p == 0 || *p as usize > arity {
                    return self.err(
                        *loc,
                        format!("`{name}${p}`: parameter {p} is not in 1..{arity}"),
                    );
                }
                Formula::Map {
                    map: MapIdx(m as u32),
                    param: p - 1,
                }
            }
            Raw::Not(a) => Formula::negate(rec(a)?),
            Raw::And(xs) => Formula::And(xs.iter().map(rec).collect::<Result<_, _>>()?),
            Raw::Or(xs) => Formula::Or(xs.iter().map(rec).collect::<Result<_, _>>()?),
            Raw::Implies(a, b) => Formula::implies(rec(a)?, rec(b)?),
            Raw::Iff(a, b) => Formula::iff(rec(a)?, rec(b)?),
            Raw::Card(kind, k, args) => {
                Formula::card(*kind, *k, args.iter().map(rec).collect::<Result<_, _>>()?)
            }
        })
    }
}
