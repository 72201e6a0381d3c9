//! Strategy trees verified by model checking: the tree as an IR system
//! (`game::strategy_model`), emitted as SMV and checked by the real
//! NuSMV (BDD and BMC) and by the built-in bounded model checker. A good
//! tree is proven; a broken one yields a counterexample whose secret the
//! tree really does not find (checked by replay).
//!
//! Tests that need NuSMV fail when `CI` is set and NuSMV is missing;
//! otherwise they print "skipping: NuSMV not found" and return.

mod common;
use common::nusmv;

use checkmate::bmc::{self, BmcOptions, Status};
use checkmate::checker::Engine;
use checkmate::game::optimal::{self, Objective, Options};
use checkmate::game::strategy_model::{strategy_system, StrategyModel};
use checkmate::game::table::{Builtin, Table};
use checkmate::game::tree::Tree;
use checkmate::smv::{self, Dialect, EmitOptions};
use checkmate::trace::Verdict;

fn optimal_tree(name: &str, objective: Objective) -> (Table, Tree) {
    let table = name.parse::<Builtin>().unwrap().table();
    let options = Options {
        objective,
        ..Options::default()
    };
    let tree = optimal::solve(&table, None, &options, None).unwrap().tree;
    (table, tree)
}

/// Removes the first child of the first node that has two or more, so
/// the codes below it are no longer found.
fn break_tree(tree: &mut Tree) -> bool {
    match tree {
        Tree::Leaf { .. } => false,
        Tree::Node { children, .. } => {
            if children.len() >= 2 {
                children.remove(0);
                true
            } else {
                children.iter_mut().any(|(_, c)| break_tree(c))
            }
        }
    }
}

fn emit(model: &StrategyModel) -> String {
    let opts = EmitOptions {
        dialect: Dialect::Nusmv,
        title: "strategy test".into(),
        ..EmitOptions::default()
    };
    smv::emit(&model.system, &opts).unwrap()
}

/// The codes a tree does not find within the model's depth, by replay.
fn failing(table: &Table, tree: &Tree, depth: usize) -> Vec<usize> {
    (0..table.n_codes())
        .filter(|&c| tree.cost(table, c).map_or(true, |k| k > depth))
        .collect()
}

const GAMES: [(&str, Objective); 3] = [
    ("mastermind:2x3", Objective::Total),
    ("coins:4+1", Objective::Worst),
    ("black-peg:2x3", Objective::Total),
];

#[test]
fn nusmv_proves_good_trees() {
    let Some(nusmv) = nusmv() else { return };
    for (name, objective) in GAMES {
        let (table, tree) = optimal_tree(name, objective);
        let model = strategy_system(&table, &tree, None).unwrap();
        let text = emit(&model);
        let bdd = nusmv.check_str(&text, Engine::Bdd).unwrap();
        assert_eq!(bdd.output.specs.len(), 1, "{name}");
        assert_eq!(bdd.output.specs[0].verdict, Verdict::True, "{name} BDD");
        let bmc = nusmv
            .check_str(&text, Engine::Bmc { bound: model.depth })
            .unwrap();
        assert!(
            matches!(
                bmc.output.specs[0].verdict,
                Verdict::NoCounterexampleUpTo(k) if k == model.depth
            ) || bmc.output.specs[0].verdict == Verdict::True,
            "{name} BMC: {:?}",
            bmc.output.specs[0].verdict
        );
    }
}

#[test]
fn nusmv_names_a_secret_a_broken_tree_misses() {
    let Some(nusmv) = nusmv() else { return };
    for (name, objective) in GAMES {
        let (table, mut tree) = optimal_tree(name, objective);
        assert!(break_tree(&mut tree));
        let model = strategy_system(&table, &tree, None).unwrap();
        let missed = failing(&table, &tree, model.depth);
        assert!(!missed.is_empty());
        for engine in [Engine::Bdd, Engine::Bmc { bound: model.depth }] {
            let run = nusmv.check_str(&emit(&model), engine).unwrap();
            assert_eq!(
                run.output.specs[0].verdict,
                Verdict::False,
                "{name} {engine}"
            );
            let trace = run.output.specs[0]
                .trace
                .as_ref()
                .expect("a counterexample");
            let ir = trace.to_ir(&model.system).unwrap();
            model.system.check(&ir).unwrap();
            let secret = model.failing_code(&ir).unwrap();
            assert!(missed.contains(&secret), "{name} {engine}: {secret}");
        }
    }
}

#[test]
fn builtin_bmc_proves_good_trees_and_refutes_broken_ones() {
    for (name, objective) in GAMES {
        let (table, tree) = optimal_tree(name, objective);
        let model = strategy_system(&table, &tree, None).unwrap();
        let result = bmc::solve(&model.system, &BmcOptions::default()).unwrap();
        assert_eq!(result.status, Status::Unsat, "{name}");

        let mut broken = tree.clone();
        assert!(break_tree(&mut broken));
        let model = strategy_system(&table, &broken, None).unwrap();
        let missed = failing(&table, &broken, model.depth);
        let options = BmcOptions {
            count: Some(usize::MAX),
            ..BmcOptions::default()
        };
        let result = bmc::solve(&model.system, &options).unwrap();
        assert_eq!(result.status, Status::Solved, "{name}");
        // Every secret the tree misses, and nothing else, is a solution.
        let mut found: Vec<usize> = result
            .traces
            .iter()
            .map(|t| model.failing_code(t).unwrap())
            .collect();
        found.sort_unstable();
        found.dedup();
        assert_eq!(found, missed, "{name}");
    }
}

/// A depth below the tree's own fails exactly the codes that need more.
#[test]
fn builtin_bmc_with_a_tighter_depth() {
    let (table, tree) = optimal_tree("mastermind:2x3", Objective::Total);
    let d = tree.depth() - 1;
    let model = strategy_system(&table, &tree, Some(d)).unwrap();
    let options = BmcOptions {
        count: Some(usize::MAX),
        ..BmcOptions::default()
    };
    let result = bmc::solve(&model.system, &options).unwrap();
    let mut found: Vec<usize> = result
        .traces
        .iter()
        .map(|t| model.failing_code(t).unwrap())
        .collect();
    found.sort_unstable();
    found.dedup();
    assert_eq!(found, failing(&table, &tree, d));
}
