//! The codebreaker's knowledge as a formula, answered by SAT: the spec's
//! constraint plus every observed outcome. Works on games far too big to
//! enumerate (Mastermind 8×8 has 16.7 million codes).
//!
//! Input: a [`Spec`] and observations (experiment instance, outcome).
//! Output: whether an outcome is still possible, the number of codes left
//! (up to a cap), the codes themselves (in canonical order), the fixed
//! variables (the backbone); and [`check_well_formed`], the paper's
//! well-formedness check.
//!
//! Invariants: a code is a valuation of the spec's variables, `code[v]`
//! for [`VarIdx`] `v`; the canonical order compares codes variable by
//! variable in declaration order with true before false; knowledge only
//! grows (observations are hard clauses; counting and listing use
//! activation literals that are retired afterwards, so they leave no
//! trace).

use std::time::{Duration, Instant};

use rustsat::types::Lit;
use thiserror::Error;

use super::cnf::{CountMemo, Encoder, SatError};
use super::spec::{Formula, Spec, VarIdx};

/// One experiment of the game: type index into [`Spec::experiments`] and
/// one symbol index per parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instance {
    pub ty: usize,
    pub params: Vec<u32>,
}

impl Instance {
    /// As written in history files and `game play`: `guess AABB`.
    pub fn show(&self, spec: &Spec) -> String {
        let name = &spec.experiments[self.ty].name;
        if self.params.is_empty() {
            name.clone()
        } else {
            format!("{name} {}", spec.show_params(&self.params))
        }
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum KnowledgeError {
    #[error("the game has no codes: its CONSTRAINTs are unsatisfiable")]
    NoCodes,
    #[error(transparent)]
    Sat(#[from] SatError),
}

/// A count of codes, exact or a lower bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Codes found (at most the cap).
    pub count: usize,
    /// Whether `count` is every code (false: there are more).
    pub exhaustive: bool,
}

/// The knowledge `φ0 ∧ outcome1 ∧ …` in a SAT solver.
pub struct Knowledge<'s> {
    spec: &'s Spec,
    enc: Encoder,
    /// The literal of each spec variable.
    vars: Vec<Lit>,
    /// Variables fixed by the constraint alone (before any experiment).
    base: Vec<Option<bool>>,
    memo: CountMemo,
}

impl<'s> Knowledge<'s> {
    /// The knowledge before any experiment. Errors if there are no codes.
    pub fn new(spec: &'s Spec) -> Result<Knowledge<'s>, KnowledgeError> {
        let mut enc = Encoder::new();
        let vars: Vec<Lit> = spec.vars.iter().map(|_| enc.fresh()).collect();
        let mut k = Knowledge {
            spec,
            enc,
            base: vec![None; vars.len()],
            vars,
            memo: CountMemo::default(),
        };
        let phi0 = k.lit(&spec.constraint(), &[]);
        k.enc.add(&[phi0]);
        if !k.enc.solve(&[])? {
            return Err(KnowledgeError::NoCodes);
        }
        k.base = k.backbone()?;
        Ok(k)
    }

    pub fn spec(&self) -> &'s Spec {
        self.spec
    }

    /// Variables fixed by the constraint alone.
    pub fn base_fixed(&self) -> &[Option<bool>] {
        &self.base
    }

    /// A literal equivalent to `f` with parameters bound to `params`;
    /// variables known from the constraint alone are folded to constants.
    pub fn lit(&mut self, f: &Formula, params: &[u32]) -> Lit {
        let (spec, vars, base) = (self.spec, &self.vars, &self.base);
        let mut leaf = |enc: &mut Encoder, f: &Formula| {
            let v = match f {
                Formula::Var(v) => *v,
                Formula::Map { map, param } => {
                    spec.mappings[map.index()].targets[params[*param as usize] as usize]
                }
                _ => unreachable!("encode only asks for leaves"),
            };
            match base[v.index()] {
                Some(b) => enc.constant(b),
                None => vars[v.index()],
            }
        };
        self.enc.encode(f, &mut leaf)
    }

    /// The literal "experiment `exp` shows outcome `o`".
    pub fn outcome_lit(&mut self, exp: &Instance, o: usize) -> Lit {
        let f = &self.spec.experiments[exp.ty].outcomes[o].formula;
        self.lit(f, &exp.params)
    }

    /// Records that `exp` showed outcome `o`.
    pub fn observe(&mut self, exp: &Instance, o: usize) {
        let l = self.outcome_lit(exp, o);
        self.enc.add(&[l]);
    }

    /// Whether some code is still possible.
    pub fn consistent(&mut self) -> Result<bool, KnowledgeError> {
        Ok(self.enc.solve(&[])?)
    }

    /// Whether `exp` can still show outcome `o`.
    pub fn possible(&mut self, exp: &Instance, o: usize) -> Result<bool, KnowledgeError> {
        let l = self.outcome_lit(exp, o);
        Ok(self.enc.solve(&[l])?)
    }

    fn model(&self) -> Result<Vec<bool>, KnowledgeError> {
        Ok(self
            .vars
            .iter()
            .map(|&l| self.enc.value(l))
            .collect::<Result<_, _>>()?)
    }

    /// The clause "not this code", guarded by `act`.
    fn block(&mut self, act: Lit, code: &[bool]) {
        let mut clause: Vec<Lit> = self
            .vars
            .iter()
            .zip(code)
            .map(|(&l, &b)| if b { !l } else { l })
            .collect();
        clause.push(!act);
        self.enc.add(&clause);
    }

    /// Up to `cap` codes still possible, in no particular order; the flag
    /// says whether they are all of them.
    pub fn enumerate(&mut self, cap: usize) -> Result<(Vec<Vec<bool>>, bool), KnowledgeError> {
        self.enumerate_under(&[], cap)
    }

    /// [`Knowledge::enumerate`] with `assumptions` (literals from
    /// [`Knowledge::outcome_lit`]) as if observed.
    pub fn enumerate_under(
        &mut self,
        assumptions: &[Lit],
        cap: usize,
    ) -> Result<(Vec<Vec<bool>>, bool), KnowledgeError> {
        let act = self.enc.fresh();
        let mut codes = Vec::new();
        let mut exhaustive = true;
        let mut assumps = assumptions.to_vec();
        assumps.push(act);
        while self.enc.solve(&assumps)? {
            if codes.len() == cap {
                exhaustive = false;
                break;
            }
            let code = self.model()?;
            self.block(act, &code);
            codes.push(code);
        }
        self.enc.add(&[!act]);
        Ok((codes, exhaustive))
    }

    /// How many codes are still possible, counting up to `cap`.
    pub fn count(&mut self, cap: usize) -> Result<Count, KnowledgeError> {
        let (codes, exhaustive) = self.enumerate(cap)?;
        Ok(Count {
            count: codes.len(),
            exhaustive,
        })
    }

    /// The exact number of codes still possible with `assumptions` as if
    /// observed, by model counting (#SAT, see [`Encoder::count`]): never
    /// enumerates, so it works on games of any size (saturates at
    /// `u128::MAX`).
    pub fn count_exact(&mut self, assumptions: &[Lit]) -> u128 {
        self.enc.count(assumptions, &self.vars, &mut self.memo)
    }

    /// The canonically least code under `assumptions`, if any.
    fn least(&mut self, assumptions: &[Lit]) -> Result<Option<Vec<bool>>, KnowledgeError> {
        if !self.enc.solve(assumptions)? {
            return Ok(None);
        }
        let mut model = self.model()?;
        let mut decided = assumptions.to_vec();
        for v in 0..self.vars.len() {
            let l = self.vars[v];
            if !model[v] {
                let mut trial = decided.clone();
                trial.push(l);
                if self.enc.solve(&trial)? {
                    model = self.model()?;
                }
            }
            decided.push(if model[v] { l } else { !l });
        }
        Ok(Some(model))
    }

    /// The first `limit` codes still possible, in canonical order.
    pub fn first_codes(&mut self, limit: usize) -> Result<Vec<Vec<bool>>, KnowledgeError> {
        let act = self.enc.fresh();
        let mut codes = Vec::new();
        while codes.len() < limit {
            let Some(code) = self.least(&[act])? else {
                break;
            };
            self.block(act, &code);
            codes.push(code);
        }
        self.enc.add(&[!act]);
        Ok(codes)
    }

    /// The backbone: `Some(b)` for every variable with value `b` in every
    /// code still possible (all `None` if no code is).
    pub fn backbone(&mut self) -> Result<Vec<Option<bool>>, KnowledgeError> {
        self.backbone_under(&[])
    }

    /// [`Knowledge::backbone`] with `assumptions` as if observed.
    pub fn backbone_under(
        &mut self,
        assumptions: &[Lit],
    ) -> Result<Vec<Option<bool>>, KnowledgeError> {
        let n = self.vars.len();
        if !self.enc.solve(assumptions)? {
            return Ok(vec![None; n]);
        }
        let model = self.model()?;
        let mut candidate: Vec<bool> = vec![true; n];
        for v in 0..n {
            if !candidate[v] {
                continue;
            }
            let l = self.vars[v];
            let flipped = if model[v] { !l } else { l };
            let mut trial = assumptions.to_vec();
            trial.push(flipped);
            if self.enc.solve(&trial)? {
                let other = self.model()?;
                for (c, (a, b)) in candidate.iter_mut().zip(model.iter().zip(&other)) {
                    *c &= a == b;
                }
            }
        }
        Ok((0..n).map(|v| candidate[v].then_some(model[v])).collect())
    }
}

/// Sorts codes into the canonical order (true before false, variable by
/// variable).
pub fn sort_codes(codes: &mut [Vec<bool>]) {
    codes.sort_by(|a, b| b.cmp(a));
}

/// The outcome of the well-formedness check for one experiment type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeCheck {
    /// For every code and every parameterisation exactly one outcome holds.
    Ok,
    /// The restrictions leave no parameterisation at all.
    NoParameters,
    /// The solver reached the time limit before deciding.
    Unknown,
    /// A code and an experiment on which zero or several outcomes hold.
    Broken {
        experiment: Instance,
        code: Vec<bool>,
        /// Names of the outcomes that hold (none or several).
        holding: Vec<String>,
    },
}

/// Checks, with one SAT call per experiment type, that for every code and
/// every parameterisation exactly one outcome holds. The parameters are
/// variables too (`p[i][a]`: parameter `i` is symbol `a`), so the check
/// never enumerates experiments.
/// Each type's check gives up after `limit` ([`TypeCheck::Unknown`]).
pub fn check_well_formed(
    spec: &Spec,
    limit: Option<Duration>,
) -> Result<Vec<TypeCheck>, KnowledgeError> {
    (0..spec.experiments.len())
        .map(
            // A limit past what an `Instant` holds is no limit.
            |ty| match check_type(spec, ty, limit.and_then(|d| Instant::now().checked_add(d))) {
                Err(KnowledgeError::Sat(SatError::TimeLimit)) => Ok(TypeCheck::Unknown),
                other => other,
            },
        )
        .collect()
}

fn check_type(
    spec: &Spec,
    ty: usize,
    deadline: Option<Instant>,
) -> Result<TypeCheck, KnowledgeError> {
    let exp = &spec.experiments[ty];
    let mut enc = Encoder::new();
    enc.set_deadline(deadline);
    let vars: Vec<Lit> = spec.vars.iter().map(|_| enc.fresh()).collect();
    let n_sym = spec.alphabet.len();
    let sel: Vec<Vec<Lit>> = (0..exp.arity)
        .map(|_| (0..n_sym).map(|_| enc.fresh()).collect())
        .collect();
    for row in &sel {
        let one = enc.card(super::spec::CardKind::Exactly, 1, row);
        enc.add(&[one]);
    }
    for g in &exp.distinct {
        for (x, &i) in g.iter().enumerate() {
            for &j in &g[x + 1..] {
                for (&pi, &pj) in sel[i].iter().zip(&sel[j]) {
                    enc.add(&[!pi, !pj]);
                }
            }
        }
    }
    for g in &exp.sorted {
        for w in g.windows(2) {
            for a in 0..n_sym {
                let mut c: Vec<Lit> = (a..n_sym).map(|b| sel[w[1]][b]).collect();
                c.push(!sel[w[0]][a]);
                enc.add(&c);
            }
        }
    }
    if !enc.solve(&[])? {
        return Ok(TypeCheck::NoParameters);
    }
    let mut leaf = |enc: &mut Encoder, f: &Formula| match f {
        Formula::Var(v) => vars[v.index()],
        Formula::Map { map, param } => {
            let targets = &spec.mappings[map.index()].targets;
            let options: Vec<Lit> = (0..n_sym)
                .map(|a| enc.and(&[sel[*param as usize][a], vars[targets[a].index()]]))
                .collect();
            enc.or(&options)
        }
        _ => unreachable!("encode only asks for leaves"),
    };
    let phi0 = enc.encode(&spec.constraint(), &mut leaf);
    enc.add(&[phi0]);
    let outs: Vec<Lit> = exp
        .outcomes
        .iter()
        .map(|o| enc.encode(&o.formula, &mut leaf))
        .collect();
    // Not exactly one: none holds, or two do.
    let (mut one, mut two) = (enc.constant(false), enc.constant(false));
    for &o in &outs {
        let both = enc.and(&[one, o]);
        two = enc.or(&[two, both]);
        one = enc.or(&[one, o]);
    }
    let bad = enc.or(&[!one, two]);
    if !enc.solve(&[bad])? {
        return Ok(TypeCheck::Ok);
    }
    let code = vars
        .iter()
        .map(|&l| enc.value(l))
        .collect::<Result<Vec<_>, _>>()?;
    let mut params = Vec::new();
    for row in &sel {
        let mut chosen = 0;
        for (a, &l) in row.iter().enumerate() {
            if enc.value(l)? {
                chosen = a as u32;
            }
        }
        params.push(chosen);
    }
    let mut holding = Vec::new();
    for (o, &l) in exp.outcomes.iter().zip(&outs) {
        if enc.value(l)? {
            holding.push(o.name.clone());
        }
    }
    Ok(TypeCheck::Broken {
        experiment: Instance { ty, params },
        code,
        holding,
    })
}

/// The variables set in a code, for messages: `x1, y`.
pub fn true_vars(spec: &Spec, code: &[bool]) -> Vec<String> {
    code.iter()
        .enumerate()
        .filter(|(_, &b)| b)
        .map(|(v, _)| spec.vars[VarIdx(v as u32).index()].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::generate;
    use crate::game::spec::parse;
    use crate::game::table::Builtin;

    fn mm(name: &str) -> (Builtin, Spec) {
        let b: Builtin = name.parse().unwrap();
        (b, generate::spec(b))
    }

    #[test]
    fn counts_and_lists_codes_in_order() {
        let (b, spec) = mm("mastermind:3x3");
        let mut k = Knowledge::new(&spec).unwrap();
        assert_eq!(
            k.count(1000).unwrap(),
            Count {
                count: 27,
                exhaustive: true
            }
        );
        assert_eq!(
            k.count(10).unwrap(),
            Count {
                count: 10,
                exhaustive: false
            }
        );
        let names: Vec<String> = k
            .first_codes(4)
            .unwrap()
            .iter()
            .map(|c| generate::code_name(b, c).unwrap())
            .collect();
        assert_eq!(names, ["AAA", "AAB", "AAC", "ABA"]);
        // The constants on/off are fixed by the constraint alone.
        let fixed: Vec<usize> = (0..spec.vars.len())
            .filter(|&v| k.base_fixed()[v].is_some())
            .collect();
        assert_eq!(fixed, vec![9, 10]);
    }

    #[test]
    fn observations_narrow_the_codes() {
        let (b, spec) = mm("mastermind:4x6");
        let mut k = Knowledge::new(&spec).unwrap();
        let guess = |s: &str| Instance {
            ty: 0,
            params: s.bytes().map(|c| (c - b'A') as u32).collect(),
        };
        let outcome = |name: &str| {
            spec.experiments[0]
                .outcomes
                .iter()
                .position(|o| o.name == name)
                .unwrap()
        };
        // Secret ABCD: AABB scores 1b1w, CCDD scores 1b1w.
        k.observe(&guess("AABB"), outcome("1b1w"));
        k.observe(&guess("CCDD"), outcome("1b1w"));
        let (codes, all) = k.enumerate(10_000).unwrap();
        assert!(all);
        let table = b.table();
        let aabb = table.codes.iter().position(|c| c == "AABB").unwrap();
        let ccdd = table.codes.iter().position(|c| c == "CCDD").unwrap();
        let expected = (0..table.n_codes())
            .filter(|&c| {
                table.outcomes[table.outcome(aabb, c) as usize] == "1b1w"
                    && table.outcomes[table.outcome(ccdd, c) as usize] == "1b1w"
            })
            .count();
        assert_eq!(codes.len(), expected);
        assert!(k.possible(&guess("ABCD"), outcome("4b0w")).unwrap());
        assert!(!k.possible(&guess("AABB"), outcome("0b0w")).unwrap());
    }

    /// Model counting agrees with enumeration, before and after
    /// observations and under assumptions, on every outcome of a guess.
    #[test]
    fn exact_counts_match_enumeration() {
        for name in ["mastermind:3x3", "black-peg:3x4", "coins:5", "coins:4+1"] {
            let (_, spec) = mm(name);
            let mut k = Knowledge::new(&spec).unwrap();
            let n = k.count(100_000).unwrap().count as u128;
            assert_eq!(k.count_exact(&[]), n, "{name}");
            let t = &spec.experiments[spec.experiments.len() - 1];
            let mut params = Vec::new();
            crate::game::params::for_each(t, spec.alphabet.len(), |p| {
                params.push(p.to_vec());
                std::ops::ControlFlow::Break(())
            });
            let exp = Instance {
                ty: spec.experiments.len() - 1,
                params: params[0].clone(),
            };
            let mut sum = 0;
            for o in 0..t.outcomes.len() {
                let l = k.outcome_lit(&exp, o);
                let (codes, all) = k.enumerate_under(&[l], 100_000).unwrap();
                assert!(all);
                assert_eq!(k.count_exact(&[l]), codes.len() as u128, "{name} {o}");
                sum += codes.len() as u128;
            }
            assert_eq!(sum, n, "{name}");
            // After an observation, counts shrink consistently.
            let l = k.outcome_lit(&exp, 0);
            let before = k.count_exact(&[l]);
            k.observe(&exp, 0);
            assert_eq!(k.count_exact(&[]), before, "{name}");
        }
    }

    #[test]
    fn backbone_finds_fixed_pegs() {
        let (_, spec) = mm("mastermind:3x3");
        let mut k = Knowledge::new(&spec).unwrap();
        // Guess AAA scored 1b0w: exactly one A, in place.
        let o = spec.experiments[0]
            .outcomes
            .iter()
            .position(|o| o.name == "1b0w")
            .unwrap();
        k.observe(
            &Instance {
                ty: 0,
                params: vec![0, 0, 0],
            },
            o,
        );
        let bb = k.backbone().unwrap();
        // No peg is known, but every code has exactly one A: nothing fixed
        // beyond the constants.
        assert_eq!(bb.iter().filter(|b| b.is_some()).count(), 2);
        // BBA scored 3b0w: the code is BBA.
        let o = spec.experiments[0]
            .outcomes
            .iter()
            .position(|o| o.name == "3b0w")
            .unwrap();
        k.observe(
            &Instance {
                ty: 0,
                params: vec![1, 1, 0],
            },
            o,
        );
        let bb = k.backbone().unwrap();
        assert!(bb.iter().all(|b| b.is_some()));
        assert_eq!(k.count(5).unwrap().count, 1);
    }

    #[test]
    fn built_in_specs_are_well_formed() {
        for name in [
            "mastermind:3x3",
            "mastermind:4x6",
            "black-peg:3x4",
            "bulls-cows:3x5",
            "coins:5",
            "coins:4+1",
        ] {
            let (_, spec) = mm(name);
            let checks = check_well_formed(&spec, None).unwrap();
            assert!(
                checks.iter().all(|c| *c == TypeCheck::Ok),
                "{name}: {checks:?}"
            );
        }
    }

    #[test]
    fn a_broken_spec_gets_a_counterexample() {
        // "same" forgets the right pan.
        let text = "VARIABLES x1, x2, x3, y\nCONSTRAINT Exactly-1(x1, x2, x3)\nALPHABET '1', '2', '3'\nMAPPING X x1, x2, x3\nEXPERIMENT 'weighing1' 2\n PARAMS_DISTINCT 1, 2\n OUTCOME 'lighter' (X$1 & !y) | (X$2 & y)\n OUTCOME 'heavier' (X$1 & y) | (X$2 & !y)\n OUTCOME 'same' !X$1\n";
        let spec = parse(text).unwrap();
        let checks = check_well_formed(&spec, None).unwrap();
        let TypeCheck::Broken {
            experiment,
            code,
            holding,
        } = &checks[0]
        else {
            panic!("expected a counterexample, got {checks:?}");
        };
        // The counterexample really is one.
        let exp = &spec.experiments[0];
        let really: Vec<String> = exp
            .outcomes
            .iter()
            .filter(|o| o.formula.eval(&spec, &experiment.params, code))
            .map(|o| o.name.clone())
            .collect();
        assert_eq!(&really, holding);
        assert_eq!(holding.len(), 2);
        assert!(spec.is_code(code));
        assert!(exp.allows(&experiment.params));
    }
}
