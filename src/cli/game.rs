//! `checkmate game …`: deductive games from the command line — specs,
//! information, strategy analysis, single plays, deduction puzzles — with
//! terminal and `--json` output.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use checkmate::bmc::{self, BmcOptions};
use checkmate::checker::{Checker, Engine, Tool};
use checkmate::game::deduce::{self, Deduction, History};
use checkmate::game::explicit::ExplicitError;
use checkmate::game::knowledge::{self, Knowledge, KnowledgeError, TypeCheck};
use checkmate::game::strategy::{Planner, Strategy, Ties};
use checkmate::game::table::Table;
use checkmate::game::tree::{Analysis, Tree};
use checkmate::game::tree_io;
use checkmate::game::{params, Game, Route};
use checkmate::smv;
use checkmate::trace::Verdict;

use super::bad_input;

const GAME_HELP: &str = "A spec file, or a built-in game: mastermind:PxC (P pegs, C colours), \
black-peg:PxC (black pegs only), bulls-cows:PxC (P distinct symbols of C), coins:N (N coins, \
one heavier or lighter), coins:N+1 (the same plus one coin known to be genuine)";

#[derive(Debug, Args)]
pub struct GameArgs {
    #[command(subcommand)]
    pub command: GameCommand,
}

#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Print a game as a spec file (built-in games are generated).
    Spec {
        #[arg(help = GAME_HELP)]
        game: String,
    },
    /// Variables, number of codes, experiment types and counts, and the
    /// well-formedness check (exactly one outcome per code and experiment).
    Info {
        #[arg(help = GAME_HELP)]
        game: String,
        /// Count codes up to this many (spec games).
        #[arg(long, default_value_t = 100_000)]
        count_limit: usize,
        /// Give up the well-formedness proof of an experiment type after
        /// this many seconds.
        #[arg(long, default_value_t = 20.0)]
        time_limit: f64,
        #[arg(long)]
        json: bool,
    },
    /// Build a strategy's decision tree over every code and analyse it:
    /// total, average and worst number of experiments, histogram.
    Analyze {
        #[arg(help = GAME_HELP)]
        game: String,
        #[command(flatten)]
        strategy: StrategyArgs,
        /// Replay this saved strategy tree (JSON, as `game optimal --tree`
        /// or `--save-tree` write it) over every code instead of building
        /// a strategy: an independent check of its figures.
        #[arg(long, value_name = "FILE")]
        tree: Option<PathBuf>,
        /// Also write the strategy's decision tree as JSON to this file.
        #[arg(long, value_name = "FILE", conflicts_with = "tree")]
        save_tree: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Play one game against a secret code and show every experiment.
    Play {
        #[arg(help = GAME_HELP)]
        game: String,
        /// The secret code, as the game writes codes (ABCD, 7h, x7,y).
        #[arg(long)]
        secret: String,
        #[command(flatten)]
        strategy: StrategyArgs,
        #[arg(long)]
        json: bool,
    },
    /// What a history of experiments tells: the codes still possible and
    /// the variables it fixed.
    Deduce {
        #[arg(help = GAME_HELP)]
        game: String,
        /// One experiment per line: `guess AABB => 1b1w`.
        history: PathBuf,
        /// List at most this many codes.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// Count codes up to this many.
        #[arg(long, default_value_t = 10_000)]
        count_limit: usize,
        /// sat: the SAT knowledge (counts, lists, fixed variables); bmc:
        /// the built-in bounded model checker on the puzzle as an IR
        /// system (every code, up to --count-limit); nusmv: NuSMV on the
        /// emitted SMV model (one code).
        #[arg(long, value_enum, default_value = "sat")]
        engine: DeduceEngine,
        /// The NuSMV binary (default: $NUSMV, else NuSMV on PATH).
        #[arg(long)]
        nusmv: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Compute an optimal strategy (expected or worst case), optionally
    /// writing its tree as JSON and DOT.
    Optimal(super::optimal::OptimalArgs),
}

#[derive(Debug, Args)]
pub struct StrategyArgs {
    /// first-possible, max-models, exp-models, ent-models, parts,
    /// min-fixed or exp-fixed.
    #[arg(long, default_value = "max-models")]
    pub(super) strategy: Strategy,
    /// possible-first (prefer an experiment that can end the game) or
    /// lexicographic.
    #[arg(long, default_value = "possible-first")]
    pub(super) ties: Ties,
    /// native (built-in games only; their default) or spec (enumerate the
    /// codes through SAT and evaluate the spec's formulas).
    #[arg(long, value_enum)]
    route: Option<RouteArg>,
    /// Spec route: do not reduce experiments by symmetry (build the full
    /// explicit table of every experiment instead).
    #[arg(long)]
    no_reduce: bool,
    /// Spec route with reduction: work nodes with more codes than this
    /// symbolically (exact model counts through SAT) even when the codes
    /// are listed (default: never). Games too big to list (Mastermind
    /// 8x8, plays only) are symbolic until at most the measured switch
    /// point or this many codes remain.
    #[arg(long, value_name = "N")]
    symbolic_above: Option<usize>,
}

impl StrategyArgs {
    pub(super) fn hybrid_options(&self) -> checkmate::game::hybrid::Options {
        let mut opts = checkmate::game::hybrid::Options::default();
        if let Some(n) = self.symbolic_above {
            opts.symbolic_above = n;
        }
        opts
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DeduceEngine {
    Sat,
    Bmc,
    Nusmv,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RouteArg {
    Native,
    Spec,
}

fn load(game: &str) -> anyhow::Result<Game> {
    Game::load(game).map_err(bad_input)
}

/// The route asked for; by default native for built-in games whose table
/// fits the explicit engine, else the spec route (symmetry reduction and
/// the hybrid engine need no table of every experiment: `coins:100`).
fn route(game: &Game, arg: Option<RouteArg>) -> anyhow::Result<Route> {
    match (arg, game.native_table_fits()) {
        (Some(RouteArg::Native), None) => Err(bad_input(anyhow::anyhow!(
            "`{}` is a spec file: only the spec route exists",
            game.name
        ))),
        (Some(RouteArg::Native), Some(_)) | (None, Some(true)) => Ok(Route::Native),
        (Some(RouteArg::Spec), _) | (None, None | Some(false)) => Ok(Route::Spec),
    }
}

pub fn run(args: GameArgs) -> anyhow::Result<()> {
    match args.command {
        GameCommand::Spec { game } => {
            let game = load(&game)?;
            print!("{}", game.spec);
        }
        GameCommand::Info {
            game,
            count_limit,
            time_limit,
            json,
        } => {
            let limit = Duration::try_from_secs_f64(time_limit)
                .map_err(|e| bad_input(anyhow::anyhow!("--time-limit: {e}")))?;
            info(&load(&game)?, count_limit, limit, json)?
        }
        GameCommand::Analyze {
            game,
            strategy,
            tree,
            save_tree,
            json,
        } => match tree {
            Some(path) => replay(&load(&game)?, &strategy, &path, json)?,
            None => analyze(&load(&game)?, &strategy, save_tree, json)?,
        },
        GameCommand::Play {
            game,
            secret,
            strategy,
            json,
        } => play(&load(&game)?, &secret, &strategy, json)?,
        GameCommand::Deduce {
            game,
            history,
            limit,
            count_limit,
            engine,
            nusmv,
            json,
        } => {
            let game = load(&game)?;
            let history = read_history(&game, &history)?;
            let d = match engine {
                DeduceEngine::Sat => {
                    deduce::deduce(&game, &history, limit, count_limit).map_err(|e| match e {
                        KnowledgeError::NoCodes => bad_input(e),
                        e => e.into(),
                    })?
                }
                DeduceEngine::Bmc => deduce_bmc(&game, &history, limit, count_limit)?,
                DeduceEngine::Nusmv => deduce_nusmv(&game, &history, nusmv.as_deref())?,
            };
            show_deduction(&game, history.entries.len(), &d, json)?
        }
        GameCommand::Optimal(args) => return super::optimal::run(args),
    }
    Ok(())
}

fn info(game: &Game, count_limit: usize, limit: Duration, json: bool) -> anyhow::Result<()> {
    let spec = &game.spec;
    let (codes, exact) = match game.builtin {
        Some(b) => (b.n_codes().to_string(), true),
        None => {
            let c = Knowledge::new(spec)?.count(count_limit)?;
            (c.count.to_string(), c.exhaustive)
        }
    };
    let exps: Vec<(String, usize, Result<u64, u64>)> = spec
        .experiments
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.arity,
                params::count(t, spec.alphabet.len(), 1 << 24),
            )
        })
        .collect();
    let checks = knowledge::check_well_formed(spec, Some(limit))?;
    let unknown = checks.contains(&TypeCheck::Unknown);
    let problems: Vec<String> = checks
        .iter()
        .zip(&spec.experiments)
        .filter_map(|(c, t)| match c {
            TypeCheck::Ok | TypeCheck::Unknown => None,
            TypeCheck::NoParameters => {
                Some(format!("experiment '{}' has no allowed parameters", t.name))
            }
            TypeCheck::Broken {
                experiment,
                code,
                holding,
            } => Some(format!(
                "experiment `{}` on code {}: {}",
                experiment.show(spec),
                game.code_name(code),
                match holding.len() {
                    0 => "no outcome holds".to_string(),
                    _ => format!("outcomes {} all hold", holding.join(", ")),
                }
            )),
        })
        .collect();
    if json {
        let out = InfoJson {
            game: &game.name,
            variables: &spec.vars,
            codes: CountJson {
                count: codes.parse().ok(),
                exhaustive: exact,
            },
            experiments: exps
                .iter()
                .map(|(name, params, c)| ExperimentJson {
                    name,
                    params: *params,
                    count: match c {
                        Ok(n) | Err(n) => *n,
                    },
                    exact: c.is_ok(),
                })
                .collect(),
            well_formed: if unknown && problems.is_empty() {
                None
            } else {
                Some(problems.is_empty())
            },
            problems: &problems,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!("game         {}", game.name);
    println!("variables    {}: {}", spec.vars.len(), spec.vars.join(", "));
    println!(
        "codes        {}{codes}",
        if exact { "" } else { "at least " }
    );
    for (n, k, c) in &exps {
        let count = match c {
            Ok(n) => n.to_string(),
            Err(n) => format!("more than {n}"),
        };
        println!("experiment   {n} ({k} parameters): {count}");
    }
    if let Ok((generated, kept)) = super::reduce::root_counts(game) {
        let kept = kept.map_or("-".to_string(), |k| k.to_string());
        println!("reduced      at the root: {generated} after phase 1, {kept} after phase 2");
    }
    if problems.is_empty() && unknown {
        println!(
            "well-formed  unknown: the SAT proof did not finish within {} s (see --time-limit)",
            limit.as_secs_f64()
        );
    } else if problems.is_empty() {
        println!("well-formed  yes: exactly one outcome for every code and experiment");
    } else {
        println!("well-formed  no");
        for p in &problems {
            println!("  {p}");
        }
    }
    Ok(())
}

/// Shows `done/total` codes on stderr when it is a terminal and the work
/// takes more than a moment.
struct Progress {
    start: Instant,
    last: Instant,
    shown: bool,
    on: bool,
}

impl Progress {
    fn new() -> Progress {
        let now = Instant::now();
        Progress {
            start: now,
            last: now,
            shown: false,
            on: std::io::stderr().is_terminal(),
        }
    }

    fn update(&mut self, done: usize, total: usize) {
        let now = Instant::now();
        if !self.on
            || now - self.start < Duration::from_millis(500)
            || now - self.last < Duration::from_millis(100)
        {
            return;
        }
        self.last = now;
        self.shown = true;
        let width = 30;
        let filled = done * width / total.max(1);
        eprint!(
            "\r[{}{}] {done}/{total} codes",
            "#".repeat(filled),
            " ".repeat(width - filled)
        );
    }

    fn finish(&self) {
        if self.shown {
            eprint!("\r{}\r", " ".repeat(60));
        }
    }
}

fn table_for(game: &Game, args: &StrategyArgs) -> anyhow::Result<(Table, Route)> {
    let route = route(game, args.route)?;
    let table = game.table(route).map_err(|e| match e {
        // The game file itself is wrong: the user's input.
        ExplicitError::IllFormed { .. } | ExplicitError::Knowledge(KnowledgeError::NoCodes) => {
            bad_input(e)
        }
        e => e.into(),
    })?;
    Ok((table, route))
}

fn analyze(
    game: &Game,
    args: &StrategyArgs,
    tree_out: Option<PathBuf>,
    json: bool,
) -> anyhow::Result<()> {
    if route(game, args.route)? == Route::Spec && !args.no_reduce {
        return super::reduce::analyze(game, args, tree_out, json);
    }
    let (table, route) = table_for(game, args)?;
    let mut planner = Planner::new(&table, args.strategy, args.ties)?;
    let mut progress = Progress::new();
    let tree = planner.tree(&mut |d, t| progress.update(d, t));
    progress.finish();
    let tree = tree?;
    let a = tree.analyze(&table)?;
    let first = match &tree {
        Tree::Node { experiment, .. } => Some(table.experiments[*experiment].to_string()),
        Tree::Leaf { .. } => None,
    };
    if let Some(path) = tree_out {
        super::write_atomically(&path, tree_io::to_json(&table, &tree).as_bytes())?;
    }
    print_analysis(
        game,
        args.strategy.name(),
        args.ties.name(),
        route,
        &a,
        first,
        json,
    )
}

/// `game analyze --tree FILE`: the saved tree replayed over every code.
fn replay(game: &Game, args: &StrategyArgs, path: &Path, json: bool) -> anyhow::Result<()> {
    let (table, route) = table_for(game, args)?;
    let text = checkmate::input::read_text(path).map_err(super::bad_input)?;
    let (tree, a) = tree_io::replay_json(&table, &text)
        .map_err(|e| super::bad_input(anyhow::anyhow!("{}: {e}", path.display())))?;
    let first = match &tree {
        Tree::Node { experiment, .. } => Some(table.experiments[*experiment].to_string()),
        Tree::Leaf { .. } => None,
    };
    print_analysis(game, "tree", "as saved", route, &a, first, json)
}

fn print_analysis(
    game: &Game,
    strategy: &str,
    ties: &str,
    route: Route,
    a: &Analysis,
    first: Option<String>,
    json: bool,
) -> anyhow::Result<()> {
    if json {
        let out = AnalysisJson::new(&game.name, strategy, ties, a, first.as_deref());
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{}, {} (ties: {}, route: {})",
        game.name,
        strategy,
        ties,
        route.name()
    );
    print_figures(a, first.as_deref());
    Ok(())
}

/// The human-readable figures of an analysis, one per line (codes, total,
/// average, worst, first experiment, histogram of experiments used).
pub(super) fn print_figures(a: &Analysis, first: Option<&str>) {
    println!("codes      {}", a.codes);
    println!("total      {}", a.total);
    println!("average    {:.3}", a.average());
    println!("worst      {}", a.worst);
    println!("first      {}", first.unwrap_or("-"));
    let hist: Vec<String> = a
        .histogram
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(k, n)| format!("{k}: {n}"))
        .collect();
    println!("histogram  {}", hist.join(", "));
}

fn play(game: &Game, secret: &str, args: &StrategyArgs, json: bool) -> anyhow::Result<()> {
    if route(game, args.route)? == Route::Spec && !args.no_reduce {
        return super::reduce::play(game, secret, args, json);
    }
    let (table, _) = table_for(game, args)?;
    let wanted: String = secret.split_whitespace().collect();
    let Some(code) = table.codes.iter().position(|c| *c == wanted) else {
        return Err(bad_input(anyhow::anyhow!(
            "`{secret}` is not a code of {} (codes look like {})",
            game.name,
            table.codes.first().map_or("-", |c| c.as_str())
        )));
    };
    let steps = Planner::new(&table, args.strategy, args.ties)?.play(code)?;
    if json {
        let out = PlayJson {
            game: &game.name,
            strategy: args.strategy.name(),
            ties: args.ties.name(),
            secret: &table.codes[code],
            steps: steps
                .iter()
                .map(|s| StepJson {
                    experiment: table.experiments[s.experiment].to_string(),
                    outcome: &table.outcomes[s.outcome as usize],
                    remaining: s.remaining,
                })
                .collect(),
            experiments: steps.len(),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    println!(
        "{}, {} (ties: {}), secret {}",
        game.name, args.strategy, args.ties, table.codes[code]
    );
    let width = steps
        .iter()
        .map(|s| table.experiments[s.experiment].to_string().len())
        .max()
        .unwrap_or(0);
    for (i, s) in steps.iter().enumerate() {
        println!(
            "{:>3}. {:<width$}  {:<8} {} code{} left",
            i + 1,
            table.experiments[s.experiment].to_string(),
            table.outcomes[s.outcome as usize],
            s.remaining,
            if s.remaining == 1 { "" } else { "s" }
        );
    }
    println!("found {} in {} experiments", table.codes[code], steps.len());
    Ok(())
}

/// Reads a history file for `game`.
pub fn read_history(game: &Game, path: &Path) -> anyhow::Result<History> {
    let text = checkmate::input::read_text(path).map_err(bad_input)?;
    deduce::parse_history(&game.spec, &text)
        .map_err(|e| bad_input(anyhow::anyhow!("{}:{e}", path.display())))
}

/// Every code still possible, through the bounded model checker on the
/// compiled IR system (each trace verified by the IR evaluator there, and
/// decoded and checked against the spec here).
fn deduce_bmc(
    game: &Game,
    history: &History,
    limit: usize,
    cap: usize,
) -> anyhow::Result<Deduction> {
    let sys = deduce::compile(game, history);
    let opts = BmcOptions {
        count: Some(0),
        count_cap: cap,
        ..BmcOptions::default()
    };
    let res = bmc::solve(&sys, &opts)?;
    let codes = res
        .traces
        .iter()
        .map(|t| deduce::decode(game, history, &sys, t))
        .collect::<Result<Vec<_>, _>>()?;
    let base = Knowledge::new(&game.spec)?.base_fixed().to_vec();
    Ok(deduce::from_codes(game, codes, res.exhausted, limit, &base))
}

/// One code still possible, from NuSMV's counterexample to `!(F goal)` on
/// the emitted model (or none, if NuSMV proves the specification).
fn deduce_nusmv(
    game: &Game,
    history: &History,
    binary: Option<&Path>,
) -> anyhow::Result<Deduction> {
    let sys = deduce::compile(game, history);
    let model = smv::emit(&sys, &smv_options(game, history, smv::Dialect::Nusmv))?;
    let checker = Checker::locate(Tool::NuSmv, binary)?;
    let run = checker.check_str(&model, Engine::Bdd)?;
    let base = Knowledge::new(&game.spec)?.base_fixed().to_vec();
    match run.output.first_counterexample() {
        Some(named) => {
            let trace = named.to_ir(&sys)?;
            sys.check(&trace)?;
            let code = deduce::decode(game, history, &sys, &trace)?;
            Ok(deduce::from_codes(game, vec![code], false, 1, &base))
        }
        None if run.output.specs.iter().any(|s| s.verdict == Verdict::True) => {
            Ok(deduce::from_codes(game, Vec::new(), true, 0, &base))
        }
        None => Err(anyhow::anyhow!(
            "NuSMV gave neither a counterexample nor a proof"
        )),
    }
}

/// Header of the SMV model of a deduction puzzle.
fn smv_options(game: &Game, history: &History, dialect: smv::Dialect) -> smv::EmitOptions {
    smv::EmitOptions {
        dialect,
        title: format!(
            "deduction puzzle: {} after {} experiments",
            game.name,
            history.entries.len()
        ),
        description: vec![
            "Each solution is a secret code that fits every recorded outcome.".into(),
        ],
        ..smv::EmitOptions::default()
    }
}

fn show_deduction(game: &Game, n: usize, d: &Deduction, json: bool) -> anyhow::Result<()> {
    if json {
        let out = DeduceJson {
            count: d.count,
            exhaustive: d.exhaustive,
            codes: &d.codes,
            fixed: d
                .fixed
                .iter()
                .map(|(var, value)| FixedJson { var, value: *value })
                .collect(),
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    print_deduction(game, n, d);
    Ok(())
}

fn print_deduction(game: &Game, n: usize, d: &Deduction) {
    let count = if d.exhaustive {
        d.count.to_string()
    } else {
        format!("at least {}", d.count)
    };
    println!(
        "{} after {n} experiment{}: {count} code{} possible",
        game.name,
        if n == 1 { "" } else { "s" },
        if d.count == 1 { "" } else { "s" }
    );
    for c in &d.codes {
        println!("  {c}");
    }
    if d.codes.len() < d.count || !d.exhaustive {
        println!("  …");
    }
    if !d.fixed.is_empty() {
        let fixed: Vec<String> = d
            .fixed
            .iter()
            .map(|(v, b)| format!("{}{v}", if *b { "" } else { "!" }))
            .collect();
        println!("fixed: {}", fixed.join(" "));
    }
}

/// `game analyze --json`.
#[derive(Serialize)]
pub(super) struct AnalysisJson<'a> {
    game: &'a str,
    strategy: &'a str,
    ties: &'a str,
    codes: usize,
    total: u64,
    average: f64,
    worst: usize,
    /// `histogram[k]`: codes found with exactly k experiments.
    histogram: &'a [u64],
    first: Option<&'a str>,
    /// Spec route with reduction: experiments generated and kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reduction: Option<super::reduce::ReductionJson<'a>>,
}

impl<'a> AnalysisJson<'a> {
    pub(super) fn new(
        game: &'a str,
        strategy: &'a str,
        ties: &'a str,
        a: &'a Analysis,
        first: Option<&'a str>,
    ) -> Self {
        AnalysisJson {
            game,
            strategy,
            ties,
            codes: a.codes,
            total: a.total,
            average: a.average(),
            worst: a.worst,
            histogram: &a.histogram,
            first,
            reduction: None,
        }
    }
}

/// `game play --json`.
#[derive(Serialize)]
struct PlayJson<'a> {
    game: &'a str,
    strategy: &'a str,
    ties: &'a str,
    secret: &'a str,
    steps: Vec<StepJson<'a>>,
    experiments: usize,
}

#[derive(Serialize)]
struct StepJson<'a> {
    experiment: String,
    outcome: &'a str,
    remaining: usize,
}

/// `game deduce --json`.
#[derive(Serialize)]
struct DeduceJson<'a> {
    count: usize,
    exhaustive: bool,
    codes: &'a [String],
    fixed: Vec<FixedJson<'a>>,
}

#[derive(Serialize)]
struct FixedJson<'a> {
    var: &'a str,
    value: bool,
}

/// `game info --json`.
#[derive(Serialize)]
struct InfoJson<'a> {
    game: &'a str,
    variables: &'a [String],
    codes: CountJson,
    experiments: Vec<ExperimentJson<'a>>,
    /// `null` when the proof did not finish in time.
    well_formed: Option<bool>,
    problems: &'a [String],
}

#[derive(Serialize)]
struct CountJson {
    count: Option<u128>,
    exhaustive: bool,
}

#[derive(Serialize)]
struct ExperimentJson<'a> {
    name: &'a str,
    params: usize,
    count: u64,
    exact: bool,
}
