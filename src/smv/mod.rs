//! The SMV emitter: [`System`] → a NuSMV or nuXmv model.
//!
//! Input: any [`System`] (grid puzzles, games with frozen secrets, …) and
//! [`EmitOptions`]. Output: the model text, deterministic (same input, same
//! bytes) and laid out like a hand-written model:
//!
//! * a header comment naming the model, the system's own comment lines and
//!   the exact commands that check it (the bound `K` is
//!   [`System::bound`]);
//! * `MODULE main`; `VAR`/`FROZENVAR` in variable order (NuSMV orders BDD
//!   variables by declaration, so the order is kept); a family is declared
//!   once as `name : array 0..n-1 of type;` where its first element is;
//! * `DEFINE`, `ASSIGN` (`init(…)`, `next(…)`; a `case` at the top of an
//!   assignment is laid out as a table), then `INIT`/`TRANS`/`INVAR`, each
//!   under a comment with its label;
//! * one specification: `LTLSPEC !(F goal)` ([`SpecStyle::Ltl`], default)
//!   or `INVARSPEC !goal` ([`SpecStyle::Invar`]). Either is false exactly
//!   when a solution exists, and the counterexample is the solution. Only
//!   one is emitted, so a checker's output has one verdict to read.
//!
//! The Rust side fills typed context structs (serde) and prints
//! expressions ([`expr`]); the minijinja templates in `templates/` (built
//! into the binary) do the layout: one template per dialect plus shared
//! partials.
//!
//! Invariants: every name printed is checked to be an SMV identifier
//! (family elements `name[i]`), so the output parses; an expression SMV
//! cannot spell is an [`EmitError`], never a panic.

pub mod expr;

use minijinja::{AutoEscape, Environment};
use serde::Serialize;
use thiserror::Error;

use crate::ir::{Domain, Expr, System};
use expr::{ExprError, Printer};

/// Which model checker the output is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// NuSMV 2.5/2.6 (BDD and SAT-based BMC).
    #[default]
    Nusmv,
    /// nuXmv (also the MathSAT-based BMC commands).
    Nuxmv,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Nusmv => "nusmv",
            Dialect::Nuxmv => "nuxmv",
        }
    }
}

/// Which specification states "no solution exists".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SpecStyle {
    /// `LTLSPEC !(F goal)`: checked by BDD (needs a stuttering solved
    /// state, which the grid frontend provides) and by BMC.
    #[default]
    Ltl,
    /// `INVARSPEC !goal`: reachability only.
    Invar,
}

/// What to emit.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EmitOptions {
    pub dialect: Dialect,
    /// First header line, e.g. `waypoint-3x4 (models/grid/waypoint-3x4.txt)`.
    pub title: String,
    /// Further header lines, after the system's own comment.
    pub description: Vec<String>,
    /// The file name used in the header's commands (`model.smv` if empty).
    pub file_name: String,
    pub spec: SpecStyle,
}

/// Why a system cannot be printed as SMV.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EmitError {
    #[error("`{name}` is not an SMV identifier")]
    BadName { name: String },
    #[error("variable `{name}` has an empty domain")]
    EmptyDomain { name: String },
    #[error("{place}: {source}")]
    Expr {
        place: String,
        #[source]
        source: ExprError,
    },
    #[error("template: {0}")]
    Template(String),
}

/// Lines are broken to stay within this width where the expression allows.
const WIDTH: usize = 76;

/// The right-hand side of `name :=`: one line, several lines, or a `case`
/// table with guards padded to one width.
#[derive(Serialize)]
struct Rhs {
    lines: Vec<String>,
    arms: Vec<Arm>,
}

#[derive(Serialize)]
struct Arm {
    guard: String,
    value: String,
}

#[derive(Serialize)]
struct Named {
    name: String,
    rhs: Rhs,
}

#[derive(Serialize)]
struct Decl {
    name: String,
    ty: String,
}

#[derive(Serialize)]
struct DeclSection {
    keyword: &'static str,
    decls: Vec<Decl>,
}

#[derive(Serialize)]
struct ConstraintCtx {
    keyword: &'static str,
    label: Vec<String>,
    rhs: Rhs,
}

#[derive(Serialize)]
struct Context {
    title: Vec<String>,
    comment: Vec<String>,
    file: String,
    bound: Option<usize>,
    spec_kind: &'static str,
    sections: Vec<DeclSection>,
    defines: Vec<Named>,
    assigns: Vec<Named>,
    constraints: Vec<ConstraintCtx>,
    spec: String,
}

const TEMPLATES: [(&str, &str); 5] = [
    ("nusmv.smv.j2", include_str!("../../templates/nusmv.smv.j2")),
    ("nuxmv.smv.j2", include_str!("../../templates/nuxmv.smv.j2")),
    (
        "_model.smv.j2",
        include_str!("../../templates/_model.smv.j2"),
    ),
    (
        "_macros.smv.j2",
        include_str!("../../templates/_macros.smv.j2"),
    ),
    (
        "_title.smv.j2",
        include_str!("../../templates/_title.smv.j2"),
    ),
];

/// Renders `sys` as an SMV model. See the module documentation.
pub fn emit(sys: &System, opts: &EmitOptions) -> Result<String, EmitError> {
    let ctx = context(sys, opts)?;
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    env.set_keep_trailing_newline(true);
    for (name, source) in TEMPLATES {
        env.add_template(name, source)
            .map_err(|e| EmitError::Template(e.to_string()))?;
    }
    let name = format!("{}.smv.j2", opts.dialect.name());
    env.get_template(&name)
        .and_then(|t| t.render(&ctx))
        .map_err(|e| EmitError::Template(e.to_string()))
}

fn context(sys: &System, opts: &EmitOptions) -> Result<Context, EmitError> {
    check_names(sys)?;
    let p = Printer::new(sys);
    let defines = sys
        .defines
        .iter()
        .map(|d| {
            Ok(Named {
                name: d.name.clone(),
                rhs: rhs(&p, &d.expr, &d.name)?,
            })
        })
        .collect::<Result<_, EmitError>>()?;
    let mut assigns = Vec::new();
    for (kind, list) in [("init", &sys.init_assign), ("next", &sys.next_assign)] {
        for a in list {
            let name = format!("{kind}({})", sys.var(a.var).name);
            let rhs = rhs(&p, &a.value, &name)?;
            assigns.push(Named { name, rhs });
        }
    }
    if all_frozen(sys) {
        for (i, v) in sys.vars.iter().enumerate() {
            let name = format!("next({})", v.name);
            let rhs = rhs(&p, &Expr::var(crate::ir::VarId(i as u32)), &name)?;
            assigns.push(Named { name, rhs });
        }
    }
    let mut constraints = pins(sys);
    for (keyword, list) in [
        ("INIT", &sys.init),
        ("INVAR", &sys.invar),
        ("TRANS", &sys.trans),
    ] {
        for c in list {
            constraints.push(ConstraintCtx {
                keyword,
                label: c.label.lines().map(str::to_string).collect(),
                rhs: rhs(&p, &c.expr, &format!("{keyword} `{}`", c.label))?,
            });
        }
    }
    let goal = match &sys.goal {
        g @ (Expr::Define(_) | Expr::Var(_)) => p.text(g),
        g => p.text(g).map(|t| format!("({t})")),
    }
    .map_err(|source| EmitError::Expr {
        place: "the goal".into(),
        source,
    })?;
    let (spec_kind, spec) = match opts.spec {
        SpecStyle::Ltl => ("ltl", format!("LTLSPEC !(F {goal})")),
        SpecStyle::Invar => ("invar", format!("INVARSPEC !{goal}")),
    };
    let file = if opts.file_name.is_empty() {
        "model.smv".to_string()
    } else {
        opts.file_name.clone()
    };
    let title = if opts.title.is_empty() {
        "checkmate model"
    } else {
        &opts.title
    };
    Ok(Context {
        title: comment_lines(std::iter::once(title)),
        comment: comment_lines(sys.comment.iter().chain(&opts.description)),
        file,
        bound: sys.bound,
        spec_kind,
        sections: sections(sys)?,
        defines,
        assigns,
        constraints,
        spec,
    })
}

/// Comment text split into lines (an empty entry is an empty line).
fn comment_lines<'s>(
    texts: impl IntoIterator<Item = &'s (impl AsRef<str> + 's + ?Sized)>,
) -> Vec<String> {
    texts
        .into_iter()
        .flat_map(|t| {
            let t = t.as_ref();
            let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
            if lines.is_empty() {
                lines.push(String::new());
            }
            lines
        })
        .collect()
}

/// An assignment, define or constraint body: a top-level `case` becomes a
/// table, anything else one or more lines.
fn rhs(p: &Printer, e: &Expr, place: &str) -> Result<Rhs, EmitError> {
    let wrap = |source| EmitError::Expr {
        place: place.to_string(),
        source,
    };
    let arms = match e {
        Expr::Case(arms) => arms.clone(),
        Expr::Ite(c, a, b) => vec![((**c).clone(), (**a).clone()), (Expr::t(), (**b).clone())],
        _ => {
            return Ok(Rhs {
                lines: p.lines(e, WIDTH).map_err(wrap)?,
                arms: Vec::new(),
            })
        }
    };
    let texts = arms
        .iter()
        .map(|(g, v)| Ok((p.text(g)?, p.text(v)?)))
        .collect::<Result<Vec<_>, ExprError>>()
        .map_err(wrap)?;
    let pad = texts
        .iter()
        .map(|(g, _)| g.chars().count())
        .max()
        .unwrap_or(0)
        .min(32);
    Ok(Rhs {
        lines: Vec::new(),
        arms: texts
            .into_iter()
            .map(|(g, v)| Arm {
                guard: format!("{g:<pad$}"),
                value: v,
            })
            .collect(),
    })
}

/// The declared SMV type. NuSMV turns a variable with one value into a
/// constant (and then rejects its assignments and leaves it out of
/// traces), so a one-value domain is declared with one more value and
/// pinned by an INVAR (see [`pins`]).
fn domain(d: &Domain) -> String {
    match d {
        Domain::Bool => "boolean".into(),
        Domain::Range { lo, hi } if lo == hi => format!("{lo}..{}", hi + 1),
        Domain::Range { lo, hi } => format!("{lo}..{hi}"),
        Domain::Enum(syms) if syms.len() == 1 => format!("{{{}, {}}}", syms[0], spare(&syms[0])),
        Domain::Enum(syms) => format!("{{{}}}", syms.join(", ")),
    }
}

/// A symbol other than `sym`, for widening a one-symbol enumeration.
fn spare(sym: &str) -> String {
    format!("{sym}_unused")
}

/// INVARs `x = v` for the variables whose domain has one value `v`.
fn pins(sys: &System) -> Vec<ConstraintCtx> {
    sys.vars
        .iter()
        .filter(|v| v.domain.size() == 1)
        .map(|v| ConstraintCtx {
            keyword: "INVAR",
            label: vec![format!(
                "`{}` has one value (declared wider: NuSMV would make it a constant)",
                v.name
            )],
            rhs: Rhs {
                lines: vec![format!("{} = {}", v.name, v.domain.values()[0])],
                arms: Vec::new(),
            },
        })
        .collect()
}

/// Whether every variable of `sys` is frozen (and there is one): such a
/// system is declared with `VAR` and `next(x) := x` for each variable,
/// the same runs, because NuSMV 2.5.4's SAT-based BMC can fail an
/// assertion (`be_enc_index_log_curr_to_next`) on a model without a state
/// variable: seen on the waypoint successor model, down to its
/// declarations and the one INVAR `succ_8 = w -> rank[8] < rank[7]` (one
/// variable declared with `VAR` instead, and it answers). NuSMV's BDD
/// and BMC times on a Mastermind deduction model, which is all frozen
/// too, are the same either way (0.02 s).
fn all_frozen(sys: &System) -> bool {
    !sys.vars.is_empty() && sys.vars.iter().all(|v| v.frozen)
}

/// Declarations grouped into consecutive `VAR`/`FROZENVAR` sections, in
/// variable order; a family at its first element.
fn sections(sys: &System) -> Result<Vec<DeclSection>, EmitError> {
    let mut out: Vec<DeclSection> = Vec::new();
    for var in &sys.vars {
        if var.domain.size() == 0 {
            return Err(EmitError::EmptyDomain {
                name: var.name.clone(),
            });
        }
        let (decl, frozen) = match var.family {
            Some((f, 0)) => {
                let fam = &sys.families[f.0 as usize];
                let ty = format!(
                    "array 0..{} of {}",
                    fam.elems.len() - 1,
                    domain(&fam.domain)
                );
                (
                    Decl {
                        name: fam.name.clone(),
                        ty,
                    },
                    fam.frozen,
                )
            }
            Some(_) => continue,
            None => (
                Decl {
                    name: var.name.clone(),
                    ty: domain(&var.domain),
                },
                var.frozen,
            ),
        };
        let keyword = if frozen && !all_frozen(sys) {
            "FROZENVAR"
        } else {
            "VAR"
        };
        match out.last_mut() {
            Some(s) if s.keyword == keyword => s.decls.push(decl),
            _ => out.push(DeclSection {
                keyword,
                decls: vec![decl],
            }),
        }
    }
    Ok(out)
}

/// SMV reserved words that cannot name variables or defines.
const KEYWORDS: &[&str] = &[
    "MODULE",
    "DEFINE",
    "MDEFINE",
    "CONSTANTS",
    "VAR",
    "IVAR",
    "FROZENVAR",
    "INIT",
    "TRANS",
    "INVAR",
    "SPEC",
    "CTLSPEC",
    "LTLSPEC",
    "PSLSPEC",
    "COMPUTE",
    "NAME",
    "INVARSPEC",
    "FAIRNESS",
    "JUSTICE",
    "COMPASSION",
    "ISA",
    "ASSIGN",
    "CONSTRAINT",
    "SIMPWFF",
    "CTLWFF",
    "LTLWFF",
    "PSLWFF",
    "COMPWFF",
    "IN",
    "MIN",
    "MAX",
    "MIRROR",
    "PRED",
    "PREDICATES",
    "process",
    "array",
    "of",
    "boolean",
    "integer",
    "real",
    "word",
    "word1",
    "bool",
    "signed",
    "unsigned",
    "extend",
    "resize",
    "sizeof",
    "uwconst",
    "swconst",
    "EX",
    "AX",
    "EF",
    "AF",
    "EG",
    "AG",
    "E",
    "F",
    "O",
    "G",
    "H",
    "X",
    "Y",
    "Z",
    "A",
    "U",
    "S",
    "V",
    "T",
    "BU",
    "EBF",
    "ABF",
    "EBG",
    "ABG",
    "case",
    "esac",
    "mod",
    "next",
    "init",
    "union",
    "in",
    "xor",
    "xnor",
    "self",
    "TRUE",
    "FALSE",
    "count",
    "toint",
    "abs",
    "max",
    "min",
    "floor",
    "typeof",
    "time",
    "clock",
];

/// Whether `word` is reserved in NuSMV 2.5 / nuXmv (a keyword or an
/// operator spelled as a word), so it cannot name a variable or define.
pub fn is_reserved(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '#' | '-'))
        && !is_reserved(name)
}

fn check_names(sys: &System) -> Result<(), EmitError> {
    let bad = |name: &str| EmitError::BadName {
        name: name.to_string(),
    };
    for var in &sys.vars {
        let base = match var.family {
            Some((f, i)) => {
                let fam = &sys.families[f.0 as usize].name;
                if var.name != format!("{fam}[{i}]") {
                    return Err(bad(&var.name));
                }
                fam.as_str()
            }
            None => var.name.as_str(),
        };
        if !is_identifier(base) {
            return Err(bad(base));
        }
    }
    for d in &sys.defines {
        if !is_identifier(&d.name) {
            return Err(bad(&d.name));
        }
    }
    for var in &sys.vars {
        if let Domain::Enum(syms) = &var.domain {
            if let Some(s) = syms.iter().find(|s| !is_identifier(s)) {
                return Err(bad(s));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Assign, Constraint};

    /// A game-like system: frozen secret bits, an enum, no transitions.
    fn secret() -> System {
        let mut s = System {
            comment: vec!["two secret bits".into()],
            ..System::default()
        };
        let bits = s.add_family("secret", 2, Domain::Bool, true);
        let mode = s.add_var(
            "mode",
            Domain::Enum(vec!["idle".into(), "done".into()]),
            false,
        );
        s.init_assign.push(Assign {
            var: mode,
            value: Expr::sym("idle"),
        });
        s.next_assign.push(Assign {
            var: mode,
            value: Expr::Set(vec![Expr::sym("idle"), Expr::sym("done")]),
        });
        s.init.push(Constraint {
            label: "exactly one bit".into(),
            expr: Expr::eq(
                Expr::Count(bits.iter().map(|&b| Expr::var(b)).collect()),
                Expr::int(1),
            ),
        });
        s.goal = Expr::And(vec![
            Expr::var(bits[1]),
            Expr::eq(Expr::var(mode), Expr::sym("done")),
        ]);
        s
    }

    #[test]
    fn emits_frozen_arrays_enums_and_an_inline_goal() {
        let text = emit(&secret(), &EmitOptions::default()).unwrap();
        assert!(
            text.contains(
                "FROZENVAR\n  secret : array 0..1 of boolean;\nVAR\n  mode : {idle, done};\n"
            ),
            "{text}"
        );
        assert!(text.contains("  next(mode) := {idle, done};\n"), "{text}");
        assert!(
            text.contains("-- exactly one bit\nINIT\n  count(secret[0], secret[1]) = 1;\n"),
            "{text}"
        );
        assert!(
            text.contains("LTLSPEC !(F (secret[1] & mode = done))\n"),
            "{text}"
        );
        assert!(text.contains("--   NuSMV model.smv\n"), "{text}");
        let again = emit(&secret(), &EmitOptions::default()).unwrap();
        assert_eq!(text, again);
    }

    #[test]
    fn a_system_of_frozen_variables_only_keeps_them_with_next_assignments() {
        let mut s = System::default();
        let r = s.add_family("r", 2, Domain::Range { lo: 1, hi: 2 }, true);
        s.invar.push(Constraint {
            label: "ordered".into(),
            expr: Expr::lt(Expr::var(r[0]), Expr::var(r[1])),
        });
        let text = emit(&s, &EmitOptions::default()).unwrap();
        assert!(text.contains("VAR\n  r : array 0..1 of 1..2;\n"), "{text}");
        assert!(!text.contains("FROZENVAR"), "{text}");
        assert!(
            text.contains("  next(r[0]) := r[0];\n  next(r[1]) := r[1];\n"),
            "{text}"
        );
    }

    #[test]
    fn one_value_variables_stay_variables() {
        let mut s = System::default();
        let x = s.add_var("x", Domain::Range { lo: 3, hi: 3 }, false);
        s.add_var("e", Domain::Enum(vec!["only".into()]), true);
        s.init_assign.push(Assign {
            var: x,
            value: Expr::int(3),
        });
        let text = emit(&s, &EmitOptions::default()).unwrap();
        assert!(text.contains("  x : 3..4;\n"), "{text}");
        assert!(text.contains("  e : {only, only_unused};\n"), "{text}");
        assert!(text.contains("INVAR\n  x = 3;\n"), "{text}");
        assert!(text.contains("INVAR\n  e = only;\n"), "{text}");
    }

    #[test]
    fn rejects_what_smv_cannot_say() {
        let mut s = secret();
        s.vars[2].name = "next".into();
        assert_eq!(
            emit(&s, &EmitOptions::default()),
            Err(EmitError::BadName {
                name: "next".into()
            })
        );
        let mut s = secret();
        s.next_assign[0].value = Expr::Set(vec![]);
        assert!(matches!(
            emit(&s, &EmitOptions::default()),
            Err(EmitError::Expr { .. })
        ));
        let mut s = secret();
        s.vars[2].domain = Domain::Range { lo: 1, hi: 0 };
        assert!(matches!(
            emit(&s, &EmitOptions::default()),
            Err(EmitError::EmptyDomain { .. })
        ));
    }
}
