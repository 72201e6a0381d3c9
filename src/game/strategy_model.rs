//! A strategy tree as a transition system, so a model checker can prove
//! that it finds every code within a number of experiments.
//!
//! Input: a [`Table`], a [`Tree`] over it and a depth `D` (default: the
//! tree's depth). Output: a [`StrategyModel`] wrapping an [`crate::ir::System`]:
//!
//! * `secret` — frozen, an enumeration of the codes (`c_AABB`, `c_7h`),
//!   chosen freely in the initial state;
//! * `node` — `0..I−1` while playing internal node `i` of the tree
//!   (numbered depth first), then `I` = found (a leaf naming the secret
//!   was reached) or `I+1` = lost (the tree has no branch for the outcome,
//!   or its leaf names another code); found and lost are absorbing;
//! * `steps` — experiments played so far, at most `D` (declared
//!   `0..D+1` so the increment type-checks in range);
//! * `goal` — some secret is not found within `D` experiments:
//!   `node = lost | (steps = D & node != found)`.
//!
//! Invariants: the goal is reachable exactly when the tree fails on some
//! code within `D` experiments, and then every path to it fixes a failing
//! secret in its first state; so "specification true" (`INVARSPEC !goal`)
//! means the strategy is proven, and a counterexample names the code it
//! does not find ([`StrategyModel::failing_code`]). Every solution can be
//! padded to exactly `D` transitions (found and lost are absorbing and
//! `steps` counts to `D`), so [`System::bound`] is `D`.

use thiserror::Error;

use super::table::Table;
use super::tree::Tree;
use crate::ir::{Domain, Expr, System, Trace, Value, VarId};

/// The strategy system and the handles needed to read its traces.
#[derive(Clone, Debug)]
pub struct StrategyModel {
    pub system: System,
    pub secret: VarId,
    pub node: VarId,
    pub steps: VarId,
    /// The depth `D` the goal checks.
    pub depth: usize,
    /// Internal nodes of the tree (`node` values below this are playing).
    pub internal: usize,
    /// The enumeration value of each code (index = code).
    pub code_values: Vec<String>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ModelError {
    #[error("the tree refers to experiment {0}, which the game does not have")]
    BadExperiment(usize),
    #[error("the tree refers to outcome {0}, which the game does not have")]
    BadOutcome(u8),
    #[error("the tree refers to code {0}, which the game does not have")]
    BadCode(usize),
    #[error("the game has no codes")]
    NoCodes,
}

/// Builds the strategy system (see the module documentation).
pub fn strategy_system(
    table: &Table,
    tree: &Tree,
    depth: Option<usize>,
) -> Result<StrategyModel, ModelError> {
    if table.n_codes() == 0 {
        return Err(ModelError::NoCodes);
    }
    check_indices(table, tree)?;
    let depth = depth.unwrap_or_else(|| tree.depth());
    let code_values = enum_names(&table.codes);
    let mut internal = Vec::new();
    number_nodes(tree, &mut internal);
    let n_internal = internal.len();
    let (found, lost) = (n_internal as i64, n_internal as i64 + 1);

    let mut sys = System {
        comment: vec![
            format!(
                "strategy for {}: {} experiment nodes",
                table.name, n_internal
            ),
            format!("goal: some secret is not found within {depth} experiments"),
            "(specification true = the strategy finds every code in time)".into(),
        ],
        ..System::default()
    };
    let secret = sys.add_var("secret", Domain::Enum(code_values.clone()), true);
    let node = sys.add_var("node", Domain::Range { lo: 0, hi: lost }, false);
    // One spare value above D: `steps + 1` stays in range as a type,
    // so checkers that encode the increment before its guard (NuSMV's
    // BMC) do not warn; the guard keeps `steps` at most D.
    let steps = sys.add_var(
        "steps",
        Domain::Range {
            lo: 0,
            hi: depth as i64 + 1,
        },
        false,
    );
    let is_secret = |c: usize| Expr::eq(Expr::var(secret), Expr::sym(&code_values[c]));

    // Where a subtree sends each secret: an internal node's number, or a
    // leaf's verdict.
    let index = node_index(tree);
    let target = |t: &Tree| -> Expr {
        match t {
            Tree::Node { .. } => Expr::int(index[&(t as *const Tree)] as i64),
            Tree::Leaf { code } => Expr::Case(vec![
                (is_secret(*code), Expr::int(found)),
                (Expr::t(), Expr::int(lost)),
            ]),
        }
    };
    sys.init_assign.push(crate::ir::Assign {
        var: node,
        value: target(tree),
    });
    sys.init_assign.push(crate::ir::Assign {
        var: steps,
        value: Expr::int(0),
    });

    // The codes that reach each internal node, so each case lists only
    // the secrets that can be there.
    let reach = reaching_codes(table, tree);
    let mut arms = Vec::new();
    for (i, t) in internal.iter().enumerate() {
        let Tree::Node {
            experiment,
            children,
        } = t
        else {
            continue;
        };
        let row = table.row(*experiment);
        let mut branch = Vec::new();
        for (o, child) in children {
            let codes: Vec<Expr> = reach[i]
                .iter()
                .filter(|&&c| row[c] == *o)
                .map(|&c| Expr::sym(&code_values[c]))
                .collect();
            if codes.is_empty() {
                continue;
            }
            branch.push((Expr::is_in(Expr::var(secret), codes), target(child)));
        }
        branch.push((Expr::t(), Expr::int(lost)));
        arms.push((
            Expr::eq(Expr::var(node), Expr::int(i as i64)),
            Expr::Case(branch),
        ));
    }
    arms.push((Expr::t(), Expr::var(node)));
    sys.next_assign.push(crate::ir::Assign {
        var: node,
        value: Expr::Case(arms),
    });
    let playing = Expr::lt(Expr::var(node), Expr::int(found));
    let room = Expr::lt(Expr::var(steps), Expr::int(depth as i64));
    sys.next_assign.push(crate::ir::Assign {
        var: steps,
        value: Expr::Case(vec![
            (
                Expr::And(vec![playing, room]),
                Expr::Add(vec![Expr::var(steps), Expr::int(1)]),
            ),
            (Expr::t(), Expr::var(steps)),
        ]),
    });
    let is_found = sys.add_define("found", Expr::eq(Expr::var(node), Expr::int(found)));
    let not_found = sys.add_define(
        "not_found",
        Expr::Or(vec![
            Expr::eq(Expr::var(node), Expr::int(lost)),
            Expr::And(vec![
                Expr::eq(Expr::var(steps), Expr::int(depth as i64)),
                Expr::negate(is_found),
            ]),
        ]),
    );
    sys.goal = not_found;
    sys.bound = Some(depth);
    sys.solution_vars = vec![secret];
    Ok(StrategyModel {
        system: sys,
        secret,
        node,
        steps,
        depth,
        internal: n_internal,
        code_values,
    })
}

impl StrategyModel {
    /// The code a counterexample trace fixes as the secret.
    pub fn failing_code(&self, trace: &Trace) -> Option<usize> {
        let state = trace.states.first()?;
        match state.get(self.secret.index())? {
            Value::Sym(s) => self.code_values.iter().position(|v| **v == **s),
            _ => None,
        }
    }

    /// The run of the strategy on `code` as a trace of `depth + 1` states
    /// (what a model checker would report if `code` is not found).
    pub fn run(&self, table: &Table, tree: &Tree, code: usize) -> Trace {
        let index = node_index(tree);
        let found = self.internal as i64;
        let lost = found + 1;
        // The `node` value a subtree stands for when the secret is `code`.
        let value = |t: &Tree| match t {
            Tree::Leaf { code: c } if *c == code => found,
            Tree::Leaf { .. } => lost,
            Tree::Node { .. } => index[&(t as *const Tree)] as i64,
        };
        let mut at = tree;
        let mut node = value(tree);
        let mut played = 0i64;
        let mut states = Vec::with_capacity(self.depth + 1);
        for step in 0..=self.depth {
            states.push(vec![
                Value::Sym(self.code_values[code].as_str().into()),
                Value::Int(node),
                Value::Int(played),
            ]);
            if step == self.depth || node >= found {
                continue;
            }
            if played < self.depth as i64 {
                played += 1;
            }
            if let Tree::Node {
                experiment,
                children,
            } = at
            {
                let o = table.outcome(*experiment, code);
                match children.iter().find(|(k, _)| *k == o) {
                    Some((_, child)) => {
                        at = child;
                        node = value(child);
                    }
                    None => node = lost,
                }
            }
        }
        Trace {
            states,
            loop_start: None,
        }
    }
}

/// Internal nodes in depth-first order.
fn number_nodes<'t>(tree: &'t Tree, out: &mut Vec<&'t Tree>) {
    if let Tree::Node { children, .. } = tree {
        out.push(tree);
        for (_, child) in children {
            number_nodes(child, out);
        }
    }
}

/// For each internal node (depth-first order), the codes whose play
/// reaches it.
fn reaching_codes(table: &Table, tree: &Tree) -> Vec<Vec<usize>> {
    fn go(table: &Table, t: &Tree, codes: Vec<usize>, out: &mut Vec<Vec<usize>>) {
        let Tree::Node {
            experiment,
            children,
        } = t
        else {
            return;
        };
        let row = table.row(*experiment);
        out.push(codes.clone());
        for (o, child) in children {
            let sub: Vec<usize> = codes.iter().copied().filter(|&c| row[c] == *o).collect();
            go(table, child, sub, out);
        }
    }
    let mut out = Vec::new();
    go(table, tree, (0..table.n_codes()).collect(), &mut out);
    out
}

/// Internal node (by address) → its depth-first number.
fn node_index(tree: &Tree) -> std::collections::HashMap<*const Tree, usize> {
    let mut nodes = Vec::new();
    number_nodes(tree, &mut nodes);
    nodes
        .into_iter()
        .enumerate()
        .map(|(i, t)| (t as *const Tree, i))
        .collect()
}

fn check_indices(table: &Table, tree: &Tree) -> Result<(), ModelError> {
    match tree {
        Tree::Leaf { code } => {
            if *code >= table.n_codes() {
                return Err(ModelError::BadCode(*code));
            }
        }
        Tree::Node {
            experiment,
            children,
        } => {
            if *experiment >= table.experiments.len() {
                return Err(ModelError::BadExperiment(*experiment));
            }
            for (o, child) in children {
                if *o as usize >= table.outcomes.len() {
                    return Err(ModelError::BadOutcome(*o));
                }
                check_indices(table, child)?;
            }
        }
    }
    Ok(())
}

/// SMV-safe enumeration names for codes: `c_` + the name with anything
/// but letters, digits and `_` replaced by `_` (the prefix keeps names
/// such as `AF` or `X` clear of SMV keywords); clashes get a suffix.
fn enum_names(codes: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    codes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let clean: String = c
                .chars()
                .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
                .collect();
            let mut name = format!("c_{clean}");
            if !seen.insert(name.clone()) {
                name = format!("c_{clean}_{i}");
                seen.insert(name.clone());
            }
            name
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::optimal::{solve, Options};
    use crate::game::table::Builtin;

    fn optimal(name: &str) -> (Table, Tree) {
        let table = name.parse::<Builtin>().unwrap().table();
        let tree = solve(&table, None, &Options::default(), None).unwrap().tree;
        (table, tree)
    }

    /// Drops the subtree for one outcome at the deepest first branch.
    fn break_tree(tree: &mut Tree) {
        if let Tree::Node { children, .. } = tree {
            let last = children.len() - 1;
            if matches!(children[last].1, Tree::Leaf { .. }) || children.len() > 1 {
                children.remove(0);
            } else {
                break_tree(&mut children[last].1);
            }
        }
    }

    /// Runs every secret through the IR evaluator: no run of a good tree
    /// reaches the goal, and each run is a valid path of the system.
    #[test]
    fn good_tree_never_reaches_the_goal() {
        for name in ["mastermind:2x3", "coins:4+1", "mastermind:3x2"] {
            let (table, tree) = optimal(name);
            let model = strategy_system(&table, &tree, None).unwrap();
            assert_eq!(model.depth, tree.depth());
            for code in 0..table.n_codes() {
                let trace = model.run(&table, &tree, code);
                // A valid path whose last state is not a goal state.
                let err = model.system.check(&trace).unwrap_err();
                assert!(
                    matches!(err, crate::ir::EvalError::GoalFails { .. }),
                    "{name} {code}: {err}"
                );
            }
        }
    }

    #[test]
    fn broken_tree_has_a_failing_secret() {
        let (table, mut tree) = optimal("mastermind:2x3");
        break_tree(&mut tree);
        let model = strategy_system(&table, &tree, None).unwrap();
        let failing: Vec<usize> = (0..table.n_codes())
            .filter(|&c| model.system.check(&model.run(&table, &tree, c)).is_ok())
            .collect();
        assert!(!failing.is_empty());
        for c in &failing {
            assert!(tree.cost(&table, *c).is_err());
            let trace = model.run(&table, &tree, *c);
            assert_eq!(model.failing_code(&trace), Some(*c));
        }
    }

    #[test]
    fn a_depth_below_the_tree_fails_the_deepest_codes() {
        let (table, tree) = optimal("mastermind:2x3");
        let d = tree.depth();
        let model = strategy_system(&table, &tree, Some(d - 1)).unwrap();
        for code in 0..table.n_codes() {
            let late = tree.cost(&table, code).unwrap() > d - 1;
            let reached = model.system.check(&model.run(&table, &tree, code)).is_ok();
            assert_eq!(late, reached, "code {code}");
        }
    }

    #[test]
    fn enumeration_names_are_prefixed_and_unique() {
        let names = enum_names(&["AF".into(), "1h".into(), "a-b".into(), "a_b".into()]);
        assert_eq!(names, ["c_AF", "c_1h", "c_a_b", "c_a_b_3"]);
    }
}
