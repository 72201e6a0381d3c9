//! Times the hybrid engine on one game. Not a test: run it as
//! `BENCH_REDUCE="GAME STRATEGY [--no-reduce] [--table never|always|auto]
//! [--no-phase2] [--native]" cargo test --release --test bench_reduce --
//! --ignored --nocapture`. Prints one line:
//! game, strategy, mode, seconds, total, worst, root counts, per-depth
//! generated/kept. Used by `scripts/bench-reduce.sh`.

use std::time::Instant;

use checkmate::game::hybrid::{Engine, Options, TableUse};
use checkmate::game::strategy::{Planner, Strategy, Ties};
use checkmate::game::{Game, Route};

#[test]
#[ignore = "a benchmark driver; run with --ignored and BENCH_REDUCE set"]
fn bench_reduce() {
    let Ok(spec) = std::env::var("BENCH_REDUCE") else {
        eprintln!("set BENCH_REDUCE to `GAME STRATEGY [flags]`");
        return;
    };
    let args: Vec<String> = spec.split_whitespace().map(String::from).collect();
    let game = Game::load(&args[0]).expect("game");
    let strategy: Strategy = args[1].parse().expect("strategy");
    let flag = |f: &str| args.iter().any(|a| a == f);
    let mut opts = Options {
        reduce: !flag("--no-reduce"),
        phase2: !flag("--no-phase2"),
        ..Options::default()
    };
    if let Some(i) = args.iter().position(|a| a == "--table") {
        opts.table = match args[i + 1].as_str() {
            "never" => TableUse::Never,
            "always" => TableUse::Always,
            _ => TableUse::Auto,
        };
    }
    let start = Instant::now();
    if flag("--native") || flag("--spec-table") {
        let route = if flag("--native") {
            Route::Native
        } else {
            Route::Spec
        };
        let table = game.table(route).expect("table");
        let tree = Planner::new(&table, strategy, Ties::PossibleFirst)
            .expect("planner")
            .tree(&mut |_, _| {})
            .expect("tree");
        let a = tree.analyze(&table).expect("analysis");
        let t = start.elapsed().as_secs_f64();
        println!(
            "{}\t{}\t{}\t{t:.3}\t{}\t{}",
            args[0],
            strategy,
            route.name(),
            a.total,
            a.worst
        );
        return;
    }
    let built = Engine::new(&game, strategy, Ties::PossibleFirst, opts)
        .expect("engine")
        .build(&mut |_, _| {})
        .expect("tree");
    let a = built.tree.analyze(&built.table).expect("analysis");
    let t = start.elapsed().as_secs_f64();
    let depths: Vec<String> = built
        .depths
        .iter()
        .map(|d| format!("{}/{}/{}", d.generated, d.distinct, d.kept))
        .collect();
    println!(
        "{}\t{}\t{}\t{t:.3}\t{}\t{}\troot {:?}/{}/{}/{}\tdepths {}",
        args[0],
        strategy,
        if opts.reduce { "reduced" } else { "table" },
        a.total,
        a.worst,
        built.root.total,
        built.root.generated,
        built.root.distinct,
        built.root.kept,
        depths.join(" ")
    );
}
