//! `ir::Expr` → SMV expression text, precedence-aware.
//!
//! Input: an expression and the [`System`] it belongs to (for names).
//! Output: the expression in the NuSMV 2.5 / nuXmv concrete syntax, with
//! exactly the parentheses the precedence rules need, plus two for the
//! reader: `&` inside `|` and operands of `->`/`<->` that are themselves
//! `->`/`<->` are parenthesised. `lines` breaks a long expression into
//! lines at its top-level `&`/`|`/`+`, packing short operands.
//!
//! Spelling: `Count` → `count(a, b, …)` (accepted by NuSMV 2.5.4 and
//! nuXmv), `Ite` → `case c : a; TRUE : b; esac`, `Set` → `{a, b}`,
//! `In` → `e in {a, b}` (nested sets are flattened), empty `And` →
//! `TRUE`, empty `Or` → `FALSE`, empty `Add`/`Count` → `0`, negative
//! integers in parentheses. An empty `Set` has no SMV spelling
//! ([`ExprError::EmptySet`]).

use thiserror::Error;

use crate::ir::{Expr, System, Value};

/// An expression SMV cannot spell.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ExprError {
    #[error("an empty set of values has no SMV spelling")]
    EmptySet,
}

/// Binding strength, higher binds tighter (NuSMV 2.5 manual, 2.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Implies = 1,
    Iff = 2,
    Or = 3,
    And = 4,
    Compare = 5,
    In = 6,
    Add = 7,
    Not = 9,
    Atom = 10,
}

fn prec(e: &Expr) -> Prec {
    match e {
        Expr::Implies(..) => Prec::Implies,
        Expr::Iff(..) => Prec::Iff,
        Expr::Or(xs) if xs.len() > 1 => Prec::Or,
        Expr::And(xs) if xs.len() > 1 => Prec::And,
        Expr::Or(xs) | Expr::And(xs) => xs.first().map_or(Prec::Atom, prec),
        Expr::Eq(..) | Expr::Lt(..) | Expr::Le(..) => Prec::Compare,
        Expr::In(..) => Prec::In,
        Expr::Add(xs) if xs.len() > 1 => Prec::Add,
        Expr::Add(xs) => xs.first().map_or(Prec::Atom, prec),
        Expr::Sub(..) => Prec::Add,
        Expr::Not(_) => Prec::Not,
        Expr::Const(Value::Int(i)) if *i < 0 => Prec::Atom,
        _ => Prec::Atom,
    }
}

/// Prints expressions of one system.
pub struct Printer<'a> {
    sys: &'a System,
}

impl<'a> Printer<'a> {
    pub fn new(sys: &'a System) -> Self {
        Printer { sys }
    }

    /// The expression on one line.
    pub fn text(&self, e: &Expr) -> Result<String, ExprError> {
        Ok(match e {
            Expr::Const(Value::Int(i)) if *i < 0 => format!("({i})"),
            Expr::Const(v) => v.to_string(),
            Expr::Var(v) => self.sys.var(*v).name.clone(),
            Expr::Next(v) => format!("next({})", self.sys.var(*v).name),
            Expr::Define(d) => self.sys.defines[d.0 as usize].name.clone(),
            Expr::Not(a) => format!("!{}", self.operand(a, Prec::Not, false)?),
            Expr::And(xs) if xs.is_empty() => "TRUE".into(),
            Expr::Or(xs) if xs.is_empty() => "FALSE".into(),
            Expr::Add(xs) if xs.is_empty() => "0".into(),
            Expr::And(xs) | Expr::Or(xs) | Expr::Add(xs) if xs.len() == 1 => self.text(&xs[0])?,
            Expr::And(_) | Expr::Or(_) | Expr::Add(_) => self.operands(e)?.join(" "),
            Expr::Implies(a, b) => self.binary(a, "->", b, Prec::Implies)?,
            Expr::Iff(a, b) => self.binary(a, "<->", b, Prec::Iff)?,
            Expr::Eq(a, b) => self.binary(a, "=", b, Prec::Compare)?,
            Expr::Lt(a, b) => self.binary(a, "<", b, Prec::Compare)?,
            Expr::Le(a, b) => self.binary(a, "<=", b, Prec::Compare)?,
            Expr::Sub(a, b) => format!(
                "{} - {}",
                self.operand(a, Prec::Add, false)?,
                self.operand(b, Prec::Add, true)?
            ),
            Expr::Count(xs) if xs.is_empty() => "0".into(),
            // NuSMV 2.5.4 takes only simple operands in count():
            // `count(a & b, c)` is a syntax error, `count((a & b), c)` is not.
            Expr::Count(xs) => format!(
                "count({})",
                xs.iter()
                    .map(|x| self.operand(x, Prec::Not, false))
                    .collect::<Result<Vec<_>, _>>()?
                    .join(", ")
            ),
            Expr::Ite(c, a, b) => format!(
                "case {} : {}; TRUE : {}; esac",
                self.text(c)?,
                self.text(a)?,
                self.text(b)?
            ),
            Expr::Case(arms) => {
                let mut s = "case".to_string();
                for (g, v) in arms {
                    s.push_str(&format!(" {} : {};", self.text(g)?, self.text(v)?));
                }
                s + " esac"
            }
            Expr::In(a, xs) => format!(
                "{} in {}",
                self.operand(a, Prec::In, true)?,
                self.set(&flatten(xs))?
            ),
            Expr::Set(xs) => self.set(xs)?,
        })
    }

    fn set(&self, xs: &[Expr]) -> Result<String, ExprError> {
        if xs.is_empty() {
            return Err(ExprError::EmptySet);
        }
        Ok(format!("{{{}}}", self.list(xs)?))
    }

    fn list(&self, xs: &[Expr]) -> Result<String, ExprError> {
        Ok(xs
            .iter()
            .map(|x| self.text(x))
            .collect::<Result<Vec<_>, _>>()?
            .join(", "))
    }

    fn binary(&self, a: &Expr, op: &str, b: &Expr, p: Prec) -> Result<String, ExprError> {
        // Comparisons, `->` and `<->` never chain unparenthesised here.
        Ok(format!(
            "{} {op} {}",
            self.operand(a, p, true)?,
            self.operand(b, p, true)?
        ))
    }

    /// `child` as an operand of an operator of strength `parent`; `strict`
    /// parenthesises equal strength too.
    fn operand(&self, child: &Expr, parent: Prec, strict: bool) -> Result<String, ExprError> {
        let p = prec(child);
        let text = self.text(child)?;
        let needs = p < parent
            || (strict && p == parent)
            || (parent == Prec::Or && p == Prec::And)
            || (parent <= Prec::Iff && p <= Prec::Iff);
        Ok(if needs && p != Prec::Atom {
            format!("({text})")
        } else {
            text
        })
    }

    /// The operands of an n-ary `&`, `|` or `+`, the first bare, the others
    /// prefixed with the operator (`& x`).
    fn operands(&self, e: &Expr) -> Result<Vec<String>, ExprError> {
        let (xs, op, p) = match e {
            Expr::And(xs) => (xs, "&", Prec::And),
            Expr::Or(xs) => (xs, "|", Prec::Or),
            Expr::Add(xs) => (xs, "+", Prec::Add),
            _ => return Ok(vec![self.text(e)?]),
        };
        xs.iter()
            .enumerate()
            .map(|(i, x)| {
                let t = self.operand(x, p, false)?;
                Ok(if i == 0 { t } else { format!("{op} {t}") })
            })
            .collect()
    }

    /// The expression as lines of at most about `width` characters: a
    /// top-level `&`/`|`/`+` is broken before its operators, short
    /// operands packed onto one line; a broken operand that needs
    /// parentheses gets them on lines of their own. Lines after the first
    /// are relative to the first (the caller indents all of them).
    pub fn lines(&self, e: &Expr, width: usize) -> Result<Vec<String>, ExprError> {
        let one = self.text(e)?;
        if one.chars().count() <= width {
            return Ok(vec![one]);
        }
        let (xs, op, p) = match e {
            Expr::And(xs) if xs.len() > 1 => (xs, "&", Prec::And),
            Expr::Or(xs) if xs.len() > 1 => (xs, "|", Prec::Or),
            Expr::Add(xs) if xs.len() > 1 => (xs, "+", Prec::Add),
            Expr::Count(xs) if !xs.is_empty() => return self.count_lines("", xs, width),
            // `x = count(…)`: break the count's arguments.
            Expr::Eq(a, b) if matches!(**b, Expr::Count(ref xs) if !xs.is_empty()) => {
                let Expr::Count(xs) = &**b else {
                    return Ok(vec![one]);
                };
                let head = format!("{} = ", self.operand(a, Prec::Compare, true)?);
                return self.count_lines(&head, xs, width);
            }
            _ => return Ok(vec![one]),
        };
        let mut out: Vec<String> = Vec::new();
        let mut current = String::new();
        for (i, x) in xs.iter().enumerate() {
            let prefix = if i == 0 { "" } else { op };
            let t = self.operand(x, p, false)?;
            let piece = if prefix.is_empty() {
                t
            } else {
                format!("{prefix} {t}")
            };
            if piece.chars().count() <= width {
                if current.is_empty() {
                    current = piece;
                } else if current.chars().count() + 1 + piece.chars().count() <= width {
                    current = format!("{current} {piece}");
                } else {
                    out.push(std::mem::replace(&mut current, piece));
                }
                continue;
            }
            // A long operand: break it on its own lines.
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            let inner = self.lines(x, width.saturating_sub(4).max(20))?;
            let wrap = prec(x) < p || (p == Prec::Or && prec(x) == Prec::And);
            let head = if prefix.is_empty() {
                String::new()
            } else {
                format!("{prefix} ")
            };
            if wrap && inner.len() > 1 {
                out.push(format!("{head}("));
                out.extend(inner.into_iter().map(|l| format!("    {l}")));
                out.push(")".into());
            } else if wrap {
                out.push(format!("{head}({})", inner[0]));
            } else {
                let mut it = inner.into_iter();
                out.push(format!("{head}{}", it.next().unwrap_or_default()));
                out.extend(it.map(|l| format!("  {l}")));
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
        Ok(out)
    }
}

impl Printer<'_> {
    /// `{head}count(` then the arguments packed onto indented lines, then
    /// `)`.
    fn count_lines(&self, head: &str, xs: &[Expr], width: usize) -> Result<Vec<String>, ExprError> {
        let mut out = vec![format!("{head}count(")];
        let mut current = String::new();
        for (i, x) in xs.iter().enumerate() {
            let mut piece = self.operand(x, Prec::Not, false)?;
            if i + 1 < xs.len() {
                piece.push(',');
            }
            if !current.is_empty()
                && current.chars().count() + 1 + piece.chars().count() > width.saturating_sub(4)
            {
                out.push(format!("    {}", std::mem::take(&mut current)));
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(&piece);
        }
        if !current.is_empty() {
            out.push(format!("    {current}"));
        }
        out.push(")".into());
        Ok(out)
    }
}

fn flatten(xs: &[Expr]) -> Vec<Expr> {
    let mut out = Vec::new();
    for x in xs {
        match x {
            Expr::Set(inner) => out.extend(flatten(inner)),
            other => out.push(other.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Domain;

    fn sys() -> (System, Vec<Expr>) {
        let mut s = System::default();
        let a = s.add_var("a", Domain::Bool, false);
        let b = s.add_var("b", Domain::Bool, false);
        let x = s.add_var("x", Domain::Range { lo: -2, hi: 5 }, false);
        (
            s,
            vec![Expr::var(a), Expr::var(b), Expr::var(x), Expr::next(x)],
        )
    }

    #[test]
    fn precedence_and_spelling() {
        let (s, v) = sys();
        let (a, b, x, nx) = (v[0].clone(), v[1].clone(), v[2].clone(), v[3].clone());
        let p = Printer::new(&s);
        let t = |e: &Expr| p.text(e).unwrap();
        let and = Expr::And(vec![a.clone(), b.clone()]);
        let or = Expr::Or(vec![a.clone(), b.clone()]);
        assert_eq!(t(&Expr::negate(and.clone())), "!(a & b)");
        assert_eq!(t(&Expr::And(vec![or.clone(), a.clone()])), "(a | b) & a");
        assert_eq!(t(&Expr::Or(vec![and.clone(), b.clone()])), "(a & b) | b");
        assert_eq!(t(&Expr::And(vec![and.clone(), b.clone()])), "a & b & b");
        assert_eq!(t(&Expr::implies(and.clone(), or.clone())), "a & b -> a | b");
        assert_eq!(
            t(&Expr::implies(
                Expr::implies(a.clone(), b.clone()),
                a.clone()
            )),
            "(a -> b) -> a"
        );
        assert_eq!(
            t(&Expr::iff(a.clone(), Expr::implies(a.clone(), b.clone()))),
            "a <-> (a -> b)"
        );
        assert_eq!(t(&Expr::eq(nx.clone(), Expr::int(-1))), "next(x) = (-1)");
        assert_eq!(
            t(&Expr::Sub(
                Box::new(x.clone()),
                Box::new(Expr::Add(vec![x.clone(), Expr::int(1)]))
            )),
            "x - (x + 1)"
        );
        assert_eq!(
            t(&Expr::lt(
                Expr::Add(vec![x.clone(), Expr::int(1)]),
                Expr::int(3)
            )),
            "x + 1 < 3"
        );
        assert_eq!(
            t(&Expr::eq(
                Expr::Count(vec![a.clone(), b.clone()]),
                Expr::int(1)
            )),
            "count(a, b) = 1"
        );
        assert_eq!(
            t(&Expr::Count(vec![
                and.clone(),
                Expr::negate(a.clone()),
                Expr::eq(x.clone(), Expr::int(1))
            ])),
            "count((a & b), !a, (x = 1))"
        );
        assert_eq!(
            t(&Expr::is_in(
                x.clone(),
                vec![Expr::int(1), Expr::Set(vec![Expr::int(2), Expr::int(3)])]
            )),
            "x in {1, 2, 3}"
        );
        assert_eq!(
            t(&Expr::ite(a.clone(), x.clone(), Expr::int(0))),
            "case a : x; TRUE : 0; esac"
        );
        assert_eq!(
            t(&Expr::eq(Expr::eq(a.clone(), b.clone()), a.clone())),
            "(a = b) = a"
        );
        assert_eq!(t(&Expr::And(vec![])), "TRUE");
        assert_eq!(t(&Expr::Or(vec![])), "FALSE");
        assert_eq!(t(&Expr::Count(vec![])), "0");
        assert_eq!(t(&Expr::Or(vec![and.clone()])), "a & b");
        assert_eq!(t(&Expr::negate(Expr::Or(vec![a.clone()]))), "!a");
        assert_eq!(p.text(&Expr::Set(vec![])), Err(ExprError::EmptySet));
    }

    #[test]
    fn long_expressions_break_at_top_level_operators() {
        let (s, v) = sys();
        let p = Printer::new(&s);
        let many = Expr::And((0..12).map(|_| v[0].clone()).collect());
        let lines = |e: &Expr| p.lines(e, 20).unwrap();
        assert_eq!(
            lines(&many),
            ["a & a & a & a & a", "& a & a & a & a & a", "& a & a"].map(String::from)
        );
        let count = Expr::eq(
            v[2].clone(),
            Expr::Count((0..8).map(|_| v[0].clone()).collect()),
        );
        assert_eq!(
            lines(&count),
            ["x = count(", "    a, a, a, a, a,", "    a, a, a", ")"].map(String::from)
        );
        let nested = Expr::Or(vec![v[1].clone(), many.clone()]);
        assert_eq!(
            lines(&nested),
            [
                "b",
                "| (",
                "    a & a & a & a & a",
                "    & a & a & a & a & a",
                "    & a & a",
                ")"
            ]
            .map(String::from)
        );
    }
}
