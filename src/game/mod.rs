//! Deductive games (Klimoš–Kučera): built-in games, the spec language,
//! knowledge as a formula, explicit outcome tables, strategies, deduction
//! puzzles.
//!
//! Input: a game named on the command line — a built-in name
//! (`mastermind:4x6`) or a spec file. Output: a [`Game`]: its [`Spec`]
//! (generated for built-ins) plus, for built-ins, native scoring and code
//! names.
//!
//! Stages: [`spec`] (language) → [`knowledge`] (SAT over the spec) →
//! [`explicit`] (an outcome [`table::Table`], from the spec through SAT or
//! natively) → [`strategy`] (decision [`tree::Tree`]s) → analysis by
//! replay; [`deduce`] turns a history into knowledge or into an IR system.

pub mod cnf;
pub mod deduce;
pub mod explicit;
pub mod generate;
pub mod hybrid;
pub mod knowledge;
pub mod optimal;
pub mod params;
pub mod reduce;
pub mod spec;
pub mod strategy;
pub mod strategy_model;
pub mod symmetry;
pub mod table;
pub mod tree;
pub mod tree_io;

use std::path::Path;

use thiserror::Error;

use spec::{Formula, Spec, SpecError};
use table::{Builtin, BuiltinError, Table};

/// A game: its spec, and the built-in it was generated from, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// `mastermind:4x6`, or the spec file's path as given.
    pub name: String,
    pub spec: Spec,
    pub builtin: Option<Builtin>,
    /// Variables a constraint fixes on its own (`CONSTRAINT on & !off`),
    /// with their values; code names leave them out.
    units: Vec<Option<bool>>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GameError {
    #[error(transparent)]
    Builtin(#[from] BuiltinError),
    #[error(transparent)]
    Read(#[from] crate::input::ReadError),
    #[error("{path}:{error}")]
    Spec { path: String, error: SpecError },
}

/// Which way an explicit table is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Native scoring (built-in games only).
    Native,
    /// Codes enumerated through SAT, outcomes evaluated from the spec.
    Spec,
}

impl Route {
    pub fn name(self) -> &'static str {
        match self {
            Route::Native => "native",
            Route::Spec => "spec",
        }
    }
}

impl Game {
    pub fn builtin(b: Builtin) -> Game {
        Game::new(b.to_string(), generate::spec(b), Some(b))
    }

    pub fn from_spec(name: impl Into<String>, spec: Spec) -> Game {
        Game::new(name.into(), spec, None)
    }

    fn new(name: String, spec: Spec, builtin: Option<Builtin>) -> Game {
        let mut units = vec![None; spec.vars.len()];
        for c in &spec.constraints {
            mark_units(c, &mut units);
        }
        Game {
            name,
            spec,
            builtin,
            units,
        }
    }

    /// Reads spec text; `name` is used in messages and output.
    pub fn parse(name: impl Into<String>, text: &str) -> Result<Game, GameError> {
        let name = name.into();
        match spec::parse(text) {
            Ok(spec) => Ok(Game::from_spec(name, spec)),
            Err(error) => Err(GameError::Spec { path: name, error }),
        }
    }

    /// A built-in name (`kind:size`) or the path of a spec file.
    pub fn load(arg: &str) -> Result<Game, GameError> {
        let builtin = arg.parse::<Builtin>();
        if let Ok(b) = builtin {
            return Ok(Game::builtin(b));
        }
        if !Path::new(arg).exists() {
            let looks_builtin = ["mastermind:", "black-peg:", "bulls-cows:", "coins:"]
                .iter()
                .any(|p| arg.starts_with(p))
                || !arg.contains(['.', '/']);
            if let (true, Err(e)) = (looks_builtin, builtin) {
                return Err(e.into());
            }
        }
        let text = crate::input::read_text(Path::new(arg))?;
        Game::parse(arg, &text)
    }

    /// The variables a constraint fixes on its own, with their values.
    pub fn units(&self) -> &[Option<bool>] {
        &self.units
    }

    /// The name of a code: native for built-ins (`AABB`, `7h`), else the
    /// variables it sets, comma-separated (`x7,y`; `-` for none), leaving
    /// out variables a constraint fixes on its own.
    pub fn code_name(&self, code: &[bool]) -> String {
        if let Some(name) = self.builtin.and_then(|b| generate::code_name(b, code)) {
            return name;
        }
        let set: Vec<&str> = code
            .iter()
            .enumerate()
            .filter(|&(v, &b)| b && self.units[v].is_none())
            .map(|(v, _)| self.spec.vars[v].as_str())
            .collect();
        if set.is_empty() {
            "-".into()
        } else {
            set.join(",")
        }
    }

    /// Whether a built-in game's native table fits the explicit engine's
    /// limits (`None` for spec files, which have no native table).
    pub fn native_table_fits(&self) -> Option<bool> {
        self.builtin.map(|b| native_limits(b).is_ok())
    }

    /// The explicit table, natively or through the spec.
    pub fn table(&self, route: Route) -> Result<Table, explicit::ExplicitError> {
        match (route, self.builtin) {
            (Route::Native, Some(b)) => {
                native_limits(b)?;
                Ok(b.table())
            }
            (Route::Native, None) => Err(explicit::ExplicitError::NoNativeRoute(self.name.clone())),
            (Route::Spec, _) => explicit::build(self),
        }
    }
}

/// The explicit engine's limits on a built-in game's native table.
fn native_limits(b: Builtin) -> Result<(), explicit::ExplicitError> {
    let (codes, experiments) = (b.n_codes(), b.n_experiments());
    if codes > explicit::MAX_CODES as u128 {
        return Err(explicit::ExplicitError::TooManyCodes);
    }
    if codes.saturating_mul(experiments) > explicit::MAX_CELLS as u128 {
        return Err(explicit::ExplicitError::TooManyCells {
            codes: codes as usize,
            experiments,
        });
    }
    Ok(())
}

/// Records the variables a constraint fixes by itself (a literal, or a
/// conjunction of them).
fn mark_units(f: &Formula, units: &mut [Option<bool>]) {
    match f {
        Formula::Var(v) => units[v.index()] = Some(true),
        Formula::Not(a) => {
            if let Formula::Var(v) = **a {
                units[v.index()] = Some(false);
            }
        }
        Formula::And(xs) => xs.iter().for_each(|x| mark_units(x, units)),
        _ => {}
    }
}
