//! The `game analyze`/`game play`/`game info` paths for spec games with
//! symmetry reduction: the hybrid engine and its counts of experiments
//! generated and kept.
//!
//! Input: a loaded game, the strategy and tie rule. Output: the same
//! terminal and JSON reports as the explicit engine, plus, per depth of
//! the tree (per step of a play), how many experiments phase 1 generated,
//! how many split the codes differently, and how many phase 2 kept.

use std::path::PathBuf;

use serde::Serialize;

use checkmate::game::hybrid::{DepthCounts, Engine};
use checkmate::game::knowledge::Knowledge;
use checkmate::game::reduce::{canon, Counts, Reducer};
use checkmate::game::tree::Tree;
use checkmate::game::tree_io;
use checkmate::game::Game;

/// The `reduction` field of `game analyze --json`.
#[derive(Serialize)]
pub(super) struct ReductionJson<'a> {
    root: Counts,
    /// Index = number of experiments before the nodes.
    depths: &'a [DepthCounts],
}

pub fn analyze(
    game: &Game,
    args: &super::game::StrategyArgs,
    tree_out: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<()> {
    let (strategy, ties) = (args.strategy, args.ties);
    let built = Engine::new(game, strategy, ties, args.hybrid_options())?.build(&mut |_, _| {})?;
    let a = built.tree.analyze(&built.table)?;
    let first = match &built.tree {
        Tree::Node { experiment, .. } => Some(built.table.experiments[*experiment].to_string()),
        Tree::Leaf { .. } => None,
    };
    if let Some(path) = tree_out {
        super::write_atomically(
            &path,
            tree_io::to_json(&built.table, &built.tree).as_bytes(),
        )?;
    }
    if json {
        let mut out = super::game::AnalysisJson::new(
            &game.name,
            strategy.name(),
            ties.name(),
            &a,
            first.as_deref(),
        );
        out.reduction = Some(ReductionJson {
            root: built.root,
            depths: &built.depths,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{}, {} (ties: {}, route: spec, reduced)",
        game.name, strategy, ties
    );
    super::game::print_figures(&a, first.as_deref());
    print_counts(&built.root, &built.depths);
    Ok(())
}

fn show_total(c: &Counts) -> String {
    match c.total {
        Some(n) => n.to_string(),
        None => "many".into(),
    }
}

fn print_counts(root: &Counts, depths: &[DepthCounts]) {
    println!(
        "experiments at the root: {} in all, {} generated (phase 1), {} distinct, {} kept (phase 2)",
        show_total(root),
        root.generated,
        root.distinct,
        root.kept
    );
    println!("depth  nodes (reduced/table)  generated  distinct  kept");
    for (d, c) in depths.iter().enumerate() {
        println!(
            "{d:>5}  {:>6}/{:<6}  {:>18}  {:>8}  {:>6}{}{}",
            c.reduced_nodes,
            c.table_nodes,
            c.generated,
            c.distinct,
            c.kept,
            if c.symbolic_nodes > 0 {
                format!("  ({} counted symbolically)", c.symbolic_nodes)
            } else {
                String::new()
            },
            if c.phase2_skipped > 0 {
                format!("  (phase 2 skipped at {} nodes)", c.phase2_skipped)
            } else {
                String::new()
            }
        );
    }
}

/// `game play --json` with reduction.
#[derive(Serialize)]
struct PlayJson<'a> {
    game: &'a str,
    strategy: &'a str,
    ties: &'a str,
    secret: &'a str,
    steps: Vec<StepJson>,
    experiments: usize,
}

#[derive(Serialize)]
struct StepJson {
    experiment: String,
    outcome: String,
    remaining: usize,
    generated: usize,
    kept: usize,
}

pub fn play(
    game: &Game,
    secret: &str,
    args: &super::game::StrategyArgs,
    json: bool,
) -> anyhow::Result<()> {
    let (strategy, ties) = (args.strategy, args.ties);
    let mut engine = Engine::new(game, strategy, ties, args.hybrid_options())?;
    let steps = engine.play(secret).map_err(super::bad_input)?;
    let spec = &game.spec;
    let rows: Vec<StepJson> = steps
        .iter()
        .map(|s| StepJson {
            experiment: s.experiment.show(spec),
            outcome: engine.outcomes()[s.outcome as usize].clone(),
            remaining: s.remaining,
            generated: s.counts.generated,
            kept: s.counts.kept,
        })
        .collect();
    let wanted: String = secret.split_whitespace().collect();
    if json {
        let out = PlayJson {
            game: &game.name,
            strategy: strategy.name(),
            ties: ties.name(),
            secret: &wanted,
            experiments: rows.len(),
            steps: rows,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{}, {} (ties: {}, reduced), secret {wanted}",
        game.name, strategy, ties
    );
    let width = rows.iter().map(|r| r.experiment.len()).max().unwrap_or(0);
    for (i, r) in rows.iter().enumerate() {
        println!(
            "{:>3}. {:<width$}  {:<8} {} code{} left   ({} generated, {} kept)",
            i + 1,
            r.experiment,
            r.outcome,
            r.remaining,
            if r.remaining == 1 { "" } else { "s" },
            r.generated,
            r.kept
        );
    }
    println!("found {wanted} in {} experiments", rows.len());
    Ok(())
}

/// The root's experiments for `game info`: every one, phase 1's, phase
/// 2's (symbolic: the codes are not enumerated). `None` for phase 2 when
/// it would take too many canonical forms.
pub fn root_counts(game: &Game) -> anyhow::Result<(usize, Option<usize>)> {
    let spec = &game.spec;
    let red = Reducer::new(spec);
    let fixed = Knowledge::new(spec)?.base_fixed().to_vec();
    let mut state = red.state(fixed, &[], None);
    let generated = red
        .phase1(&mut state, 1 << 20)
        .map_err(|_| anyhow::anyhow!("more than 2^20 experiments survive phase 1"))?;
    let group = vec![(); generated.len()];
    let kept = canon::phase2(&mut state, &generated, &group, 2000)
        .map(|keep| keep.iter().filter(|&&k| k).count());
    Ok((generated.len(), kept))
}
