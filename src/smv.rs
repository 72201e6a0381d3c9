//! SMV emitter: renders an [`ir::System`] as a NuSMV or nuXmv model.
//!
//! Input: a system and [`EmitOptions`] (dialect, title, description, the
//! file name used in the header's commands). Output: model text.
//!
//! The Rust side decides *what* to say: it fills typed context structs and
//! prints expressions with a precedence-aware printer ([`expr`]). The
//! minijinja templates in `templates/` (compiled into the binary) decide
//! *how it looks*. Invariants: output is deterministic (same system and
//! options, same bytes); every IR construct prints as something NuSMV
//! 2.5.4 accepts; the goal is checked as `LTLSPEC !(F goal)`, so "spec is
//! false" means "solved" and the counterexample is the solution.

use minijinja::Environment;
use serde::Serialize;
use thiserror::Error;

use crate::ir::{Domain, Expr, System, Value, VarId};

/// Which model checker the output is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Dialect {
    #[default]
    Nusmv,
    Nuxmv,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Nusmv => "nusmv",
            Dialect::Nuxmv => "nuxmv",
        }
    }

    fn template(self) -> &'static str {
        match self {
            Dialect::Nusmv => "nusmv.smv.j2",
            Dialect::Nuxmv => "nuxmv.smv.j2",
        }
    }
}

/// What the header says about the model.
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    pub dialect: Dialect,
    /// First header line, e.g. `waypoint puzzle 3x4 (models/grid/waypoint-3x4.txt)`.
    pub title: String,
    /// Further header lines.
    pub description: Vec<String>,
    /// The file name the header's commands refer to (`model.smv` if empty).
    pub file_name: String,
}

#[derive(Debug, Error)]
pub enum EmitError {
    #[error("template error: {0}")]
    Template(#[from] minijinja::Error),
}

#[derive(Serialize)]
struct VarDecl {
    name: String,
    ty: String,
    comment: String,
}

#[derive(Serialize)]
struct Definition {
    name: String,
    expr: String,
}

#[derive(Serialize)]
struct Assignment {
    var: String,
    expr: String,
}

#[derive(Serialize)]
struct ConstraintDecl {
    section: &'static str,
    label: String,
    expr: String,
}

/// Everything the templates see.
#[derive(Serialize)]
struct ModelContext {
    title: String,
    description: Vec<String>,
    version: &'static str,
    dialect: &'static str,
    commands: Vec<String>,
    vars: Vec<VarDecl>,
    frozen: Vec<VarDecl>,
    defines: Vec<Definition>,
    init_assigns: Vec<Assignment>,
    next_assigns: Vec<Assignment>,
    constraints: Vec<ConstraintDecl>,
    goal: String,
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_trim_blocks(true);
    env.set_lstrip_blocks(true);
    let templates = [
        (
            "_header.smv.j2",
            include_str!("../templates/_header.smv.j2"),
        ),
        ("_model.smv.j2", include_str!("../templates/_model.smv.j2")),
        ("nusmv.smv.j2", include_str!("../templates/nusmv.smv.j2")),
        ("nuxmv.smv.j2", include_str!("../templates/nuxmv.smv.j2")),
    ];
    for (name, source) in templates {
        env.add_template(name, source)
            .expect("built-in templates are valid");
    }
    env
}

/// Renders the system as a model for the dialect's checker.
pub fn emit(sys: &System, opts: &EmitOptions) -> Result<String, EmitError> {
    let ctx = context(sys, opts);
    let env = environment();
    let mut text = env.get_template(opts.dialect.template())?.render(&ctx)?;
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(text)
}

/// The commands that check the model, as shown in the header.
pub fn commands(dialect: Dialect, file: &str, bound: Option<usize>) -> Vec<String> {
    let k = bound.map_or("K".to_string(), |k| k.to_string());
    match dialect {
        Dialect::Nusmv => vec![
            format!("NuSMV {file}                      (BDD)"),
            format!("NuSMV -bmc -bmc_length {k} {file}   (SAT-based BMC)"),
        ],
        Dialect::Nuxmv => vec![
            format!("nuXmv {file}                      (BDD)"),
            format!("nuXmv -bmc -bmc_length {k} {file}   (SAT-based BMC)"),
            format!(
                "nuXmv -int {file}, then: read_model; go_msat; msat_check_ltlspec_bmc -k {k}; quit"
            ),
        ],
    }
}

fn context(sys: &System, opts: &EmitOptions) -> ModelContext {
    let file = if opts.file_name.is_empty() {
        "model.smv"
    } else {
        &opts.file_name
    };
    let (mut vars, mut frozen) = (Vec::new(), Vec::new());
    for decl in declarations(sys) {
        if decl.1 {
            frozen.push(decl.0);
        } else {
            vars.push(decl.0);
        }
    }
    let p = Printer { sys };
    let assigns = |list: &[crate::ir::Assign]| {
        list.iter()
            .map(|a| Assignment {
                var: sys.var(a.var).name.clone(),
                expr: p.expr(&a.value),
            })
            .collect()
    };
    let mut constraints = Vec::new();
    for (section, list) in [
        ("INIT", &sys.init),
        ("INVAR", &sys.invar),
        ("TRANS", &sys.trans),
    ] {
        constraints.extend(list.iter().map(|c| ConstraintDecl {
            section,
            label: c.label.clone(),
            expr: p.expr(&c.expr),
        }));
    }
    let mut description = sys.comment.clone();
    description.extend(opts.description.iter().cloned());
    ModelContext {
        title: opts.title.clone(),
        description,
        version: env!("CARGO_PKG_VERSION"),
        dialect: opts.dialect.name(),
        commands: commands(opts.dialect, file, sys.bound),
        vars,
        frozen,
        defines: sys
            .defines
            .iter()
            .map(|d| Definition {
                name: d.name.clone(),
                expr: p.expr(&d.expr),
            })
            .collect(),
        init_assigns: assigns(&sys.init_assign),
        next_assigns: assigns(&sys.next_assign),
        constraints,
        goal: p.atom(&sys.goal),
    }
}

/// Variable declarations in IR order; a family whose elements are all
/// declared together becomes one SMV array. The flag says frozen.
fn declarations(sys: &System) -> Vec<(VarDecl, bool)> {
    let mut out = Vec::new();
    let mut done = vec![false; sys.vars.len()];
    for (i, var) in sys.vars.iter().enumerate() {
        if done[i] {
            continue;
        }
        if let Some((fam, 0)) = var.family {
            let family = &sys.families[fam.0 as usize];
            done[i] = true;
            family.elems.iter().for_each(|e| done[e.index()] = true);
            out.push((
                VarDecl {
                    name: family.name.clone(),
                    ty: format!(
                        "array 0..{} of {}",
                        family.elems.len() - 1,
                        domain_type(&family.domain)
                    ),
                    comment: String::new(),
                },
                family.frozen,
            ));
            continue;
        }
        done[i] = true;
        out.push((
            VarDecl {
                name: var.name.clone(),
                ty: domain_type(&var.domain),
                comment: String::new(),
            },
            var.frozen,
        ));
    }
    out
}

fn domain_type(d: &Domain) -> String {
    match d {
        Domain::Bool => "boolean".into(),
        Domain::Range { lo, hi } => format!("{lo}..{hi}"),
        Domain::Enum(syms) => format!("{{{}}}", syms.join(", ")),
    }
}

/// Precedence levels, loosest first (NuSMV's own order).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Implies,
    Iff,
    Ternary,
    Or,
    And,
    Compare,
    In,
    Sum,
    Atom,
}

/// Prints expressions in SMV syntax with the fewest parentheses that keep
/// the meaning.
struct Printer<'s> {
    sys: &'s System,
}

impl Printer<'_> {
    fn expr(&self, e: &Expr) -> String {
        self.print(e).0
    }

    /// The expression, parenthesised unless it is atomic.
    fn atom(&self, e: &Expr) -> String {
        self.at(e, Prec::Atom)
    }

    /// The expression, parenthesised if it binds looser than `min`.
    fn at(&self, e: &Expr, min: Prec) -> String {
        let (s, p) = self.print(e);
        if p < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn var(&self, v: VarId) -> &str {
        &self.sys.var(v).name
    }

    fn join(&self, xs: &[Expr], op: &str, min: Prec) -> String {
        xs.iter()
            .map(|x| self.at(x, min))
            .collect::<Vec<_>>()
            .join(op)
    }

    fn print(&self, e: &Expr) -> (String, Prec) {
        use Prec::*;
        match e {
            Expr::Const(v) => (value(v), Atom),
            Expr::Var(v) => (self.var(*v).to_string(), Atom),
            Expr::Next(v) => (format!("next({})", self.var(*v)), Atom),
            Expr::Define(d) => (self.sys.defines[d.0 as usize].name.clone(), Atom),
            Expr::Not(a) => (format!("!{}", self.atom(a)), Atom),
            Expr::And(xs) if xs.is_empty() => ("TRUE".into(), Atom),
            Expr::Or(xs) if xs.is_empty() => ("FALSE".into(), Atom),
            Expr::And(xs) if xs.len() == 1 => self.print(&xs[0]),
            Expr::Or(xs) if xs.len() == 1 => self.print(&xs[0]),
            Expr::And(xs) => (self.join(xs, " & ", Compare), And),
            Expr::Or(xs) => (self.join(xs, " | ", And), Or),
            Expr::Implies(a, b) => (
                format!("{} -> {}", self.at(a, Iff), self.at(b, Implies)),
                Implies,
            ),
            Expr::Iff(a, b) => (
                format!("{} <-> {}", self.at(a, Ternary), self.at(b, Ternary)),
                Iff,
            ),
            Expr::Eq(a, b) => (format!("{} = {}", self.at(a, In), self.at(b, In)), Compare),
            Expr::Lt(a, b) => (format!("{} < {}", self.at(a, In), self.at(b, In)), Compare),
            Expr::Le(a, b) => (format!("{} <= {}", self.at(a, In), self.at(b, In)), Compare),
            Expr::Add(xs) if xs.is_empty() => ("0".into(), Atom),
            Expr::Add(xs) => (self.join(xs, " + ", Sum), Sum),
            Expr::Sub(a, b) => (format!("{} - {}", self.at(a, Sum), self.atom(b)), Sum),
            Expr::Count(xs) if xs.is_empty() => ("0".into(), Atom),
            // NuSMV 2.5.4's grammar takes only simple operands in count():
            // `count(a & b, c)` is a syntax error, `count((a & b), c)` is not.
            Expr::Count(xs) => (format!("count({})", self.join(xs, ", ", Atom)), Atom),
            Expr::Ite(c, a, b) => {
                let arms = vec![
                    (c.as_ref().clone(), a.as_ref().clone()),
                    (Expr::t(), b.as_ref().clone()),
                ];
                self.print(&Expr::Case(arms))
            }
            Expr::Case(arms) => (self.case(arms), Atom),
            Expr::In(a, set) => (format!("{} in {}", self.at(a, Sum), self.set(set)), In),
            Expr::Set(xs) => (self.set(xs), Atom),
        }
    }

    fn set(&self, xs: &[Expr]) -> String {
        format!("{{{}}}", self.join(xs, ", ", Prec::Implies))
    }

    /// `case` on one line when short, else one arm per line.
    fn case(&self, arms: &[(Expr, Expr)]) -> String {
        let arms: Vec<String> = arms
            .iter()
            .map(|(g, v)| format!("{} : {};", self.expr(g), self.expr(v)))
            .collect();
        let flat = format!("case {} esac", arms.join(" "));
        if flat.len() <= 72 {
            flat
        } else {
            let body: String = arms.iter().map(|a| format!("\n    {a}")).collect();
            format!("case{body}\n  esac")
        }
    }
}

fn value(v: &Value) -> String {
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Assign, Constraint};

    fn sample() -> System {
        let mut sys = System::default();
        let pos = sys.add_var("pos", Domain::Range { lo: 0, hi: 3 }, false);
        let seen = sys.add_family("visited", 4, Domain::Bool, false);
        let secret = sys.add_var(
            "secret",
            Domain::Enum(vec!["red".into(), "blue".into()]),
            true,
        );
        sys.init_assign.push(Assign {
            var: pos,
            value: Expr::int(0),
        });
        sys.next_assign.push(Assign {
            var: pos,
            value: Expr::Case(vec![
                (
                    Expr::eq(Expr::var(pos), Expr::int(0)),
                    Expr::Set(vec![Expr::int(1), Expr::int(2)]),
                ),
                (Expr::t(), Expr::var(pos)),
            ]),
        });
        for (i, &v) in seen.iter().enumerate() {
            sys.next_assign.push(Assign {
                var: v,
                value: Expr::Or(vec![
                    Expr::var(v),
                    Expr::eq(Expr::next(pos), Expr::int(i as i64)),
                ]),
            });
        }
        sys.invar.push(Constraint {
            label: "the secret is red or the path is short".into(),
            expr: Expr::implies(
                Expr::eq(Expr::var(secret), Expr::sym("blue")),
                Expr::le(
                    Expr::Count(seen.iter().map(|&v| Expr::var(v)).collect()),
                    Expr::int(2),
                ),
            ),
        });
        sys.goal = sys.add_define(
            "goal",
            Expr::And(seen.iter().map(|&v| Expr::var(v)).collect()),
        );
        sys.bound = Some(3);
        sys
    }

    #[test]
    fn renders_every_section() {
        let opts = EmitOptions {
            title: "sample".into(),
            ..EmitOptions::default()
        };
        let text = emit(&sample(), &opts).unwrap();
        for needle in [
            "visited : array 0..3 of boolean;",
            "FROZENVAR\n  secret : {red, blue};",
            "next(pos) := case pos = 0 : {1, 2}; TRUE : pos; esac;",
            "next(visited[2]) := visited[2] | next(pos) = 2;",
            "INVAR secret = blue -> count(visited[0], visited[1], visited[2], visited[3]) <= 2;",
            "goal := visited[0] & visited[1] & visited[2] & visited[3];",
            "LTLSPEC !(F goal)",
            "NuSMV -bmc -bmc_length 3 model.smv",
        ] {
            assert!(text.contains(needle), "missing `{needle}` in\n{text}");
        }
        assert_eq!(text, emit(&sample(), &opts).unwrap(), "deterministic");
    }

    #[test]
    fn parenthesises_by_precedence() {
        let sys = System::default();
        let p = Printer { sys: &sys };
        let a = Expr::Const(Value::Bool(true));
        let or = Expr::Or(vec![a.clone(), a.clone()]);
        assert_eq!(
            p.expr(&Expr::And(vec![or.clone(), a.clone()])),
            "(TRUE | TRUE) & TRUE"
        );
        assert_eq!(
            p.expr(&Expr::Or(vec![
                Expr::And(vec![a.clone(), a.clone()]),
                a.clone()
            ])),
            "TRUE & TRUE | TRUE"
        );
        assert_eq!(p.expr(&Expr::negate(or)), "!(TRUE | TRUE)");
        let imp = Expr::implies(Expr::implies(a.clone(), a.clone()), a.clone());
        assert_eq!(p.expr(&imp), "(TRUE -> TRUE) -> TRUE");
        let sub = Expr::Sub(
            Box::new(Expr::int(5)),
            Box::new(Expr::Add(vec![Expr::int(1), Expr::int(2)])),
        );
        assert_eq!(p.expr(&sub), "5 - (1 + 2)");
        let count = Expr::Count(vec![Expr::And(vec![a.clone(), a.clone()]), a.clone()]);
        assert_eq!(p.expr(&count), "count((TRUE & TRUE), TRUE)");
    }

    #[test]
    fn nuxmv_header_names_msat_commands() {
        let opts = EmitOptions {
            dialect: Dialect::Nuxmv,
            file_name: "m.smv".into(),
            ..EmitOptions::default()
        };
        let text = emit(&sample(), &opts).unwrap();
        assert!(text.contains("read_model; go_msat; msat_check_ltlspec_bmc -k 3"));
    }
}
