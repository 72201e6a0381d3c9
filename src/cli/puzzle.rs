//! `checkmate smv | trace | solve | cnf`: a puzzle through the engines.
//!
//! Input: a grid puzzle file (or, for `smv`, a game with `--history` or
//! `--strategy`). Output: an SMV model, a DIMACS CNF, or a verified
//! solution as a picture or JSON. Every solution shown has passed the IR
//! evaluator and the puzzle's own checker.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};

use checkmate::bmc::{self, BmcOptions, Encoding, SolverKind, Status};
use checkmate::checker::{self, Checker, Tool};
use checkmate::game::{deduce, strategy_model, tree_io, Game, Route};
use checkmate::grid::strengthen::SatModel;
use checkmate::grid::{self, Puzzle, Solution};
use checkmate::ir::{EvalError, System, Trace};
use checkmate::smv::{self, Dialect, EmitOptions};
use checkmate::trace::{self, Verdict};

use super::bad_input;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    Nusmv,
    Nuxmv,
}

impl From<DialectArg> for Dialect {
    fn from(d: DialectArg) -> Dialect {
        match d {
            DialectArg::Nusmv => Dialect::Nusmv,
            DialectArg::Nuxmv => Dialect::Nuxmv,
        }
    }
}

#[derive(Debug, Args)]
pub struct SmvArgs {
    /// A grid puzzle file; or a game (built-in name or spec file) with
    /// `--history` or `--strategy`.
    pub input: String,
    #[arg(long, value_enum, default_value_t = DialectArg::Nusmv)]
    pub dialect: DialectArg,
    /// Write the model here (atomically) instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// The game's deduction puzzle after this history of experiments.
    #[arg(long, conflicts_with = "strategy")]
    pub history: Option<PathBuf>,
    /// The strategy tree (JSON from `game optimal --tree`) as a model that
    /// proves it finds every code.
    #[arg(long)]
    pub strategy: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The grid puzzle the model was made from.
    pub puzzle: PathBuf,
    /// NuSMV/nuXmv output: text, or XML from `show_traces -p 4`.
    pub output: PathBuf,
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The built-in bounded model checker (embedded SAT solver).
    Bmc,
    /// The real NuSMV (BDD, or BMC with `--bmc K`).
    Nusmv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SatArg {
    Batsat,
    Cadical,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EncodingArg {
    OneHot,
    Order,
    Log,
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// A grid puzzle file.
    pub puzzle: PathBuf,
    #[arg(long, value_enum, default_value_t = EngineArg::Bmc)]
    pub engine: EngineArg,
    /// With `--engine nusmv`: use NuSMV's SAT-based BMC up to bound K
    /// instead of BDDs.
    #[arg(long, value_name = "K")]
    pub bmc: Option<usize>,
    /// Give up after this many seconds (status `unknown` for bmc, an error
    /// for NuSMV).
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// The NuSMV binary (else `$NUSMV`, else `NuSMV` on PATH).
    #[arg(long, value_name = "PATH")]
    pub checker: Option<PathBuf>,
    /// Look for up to N solutions (2 decides uniqueness; 0 counts all up
    /// to a safety cap). bmc engine only.
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,
    /// The embedded SAT solver (cadical needs `--features cadical`).
    #[arg(long, value_enum, default_value_t = SatArg::Batsat)]
    pub sat: SatArg,
    /// Finite-domain encoding of the unrolling.
    #[arg(long, value_enum)]
    pub encoding: Option<EncodingArg>,
    #[arg(long)]
    pub json: bool,
    /// No progress line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Solve with this one of the bmc engine's models only, with no
    /// conflict budget (see `cnf --model`); by default they are tried in
    /// turn.
    #[arg(long, value_name = "N")]
    pub model: Option<usize>,
    /// How many bmc searches may race on a hard puzzle, one per core: a
    /// search still running after a quarter of a second (numbrix and
    /// hidato: or whose first model met its budget) is joined by the
    /// others, of the other model or differently seeded, and the first
    /// answer wins (default: the number of cores, at most 2). With 1
    /// the numbrix and hidato models take turns on one core, by time
    /// after the first 2 s: within those the path is the same every
    /// run. With `--count` above 2 (or 0) no race: a second job checks
    /// the paths counted while the search looks for the next ones.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: Option<u32>,
    /// The SAT solver's random seed (0: its own defaults); the searches
    /// of a race use SEED, SEED + 1, ...
    #[arg(long, value_name = "SEED", default_value_t = 0)]
    pub seed: u32,
}

#[derive(Debug, Args)]
pub struct CnfArgs {
    /// A grid puzzle file.
    pub puzzle: PathBuf,
    /// Unroll to this bound (default: the puzzle's exact bound).
    #[arg(long, value_name = "K")]
    pub bound: Option<usize>,
    #[arg(long, value_enum)]
    pub encoding: Option<EncodingArg>,
    /// Which of `solve`'s models to unroll: 1 is the one it tries first;
    /// numbrix and hidato puzzles have a 2nd, the successor/rank model
    /// `solve` moves on to when the first meets its conflict budget, and
    /// waypoint puzzles the step-by-step model (their 1st is the one-state
    /// successor model, written with its ranks: the embedded solver leaves
    /// them out and cuts off cycles as they show up).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub model: usize,
    /// Write the CNF here (atomically) instead of stdout.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// Prints to stdout or writes the file.
fn deliver(text: &str, output: Option<&Path>) -> anyhow::Result<()> {
    match output {
        Some(path) => super::write_atomically(path, text.as_bytes()),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn read(path: &Path) -> anyhow::Result<String> {
    checkmate::input::read_text(path).map_err(bad_input)
}

/// Reads and parses a grid puzzle; errors name `file:line:column`.
pub fn load_puzzle(path: &Path) -> anyhow::Result<Puzzle> {
    let text = read(path)?;
    grid::parse(&text).map_err(|e| bad_input(anyhow::anyhow!("{}:{e}", path.display())))
}

fn file_name(output: Option<&Path>) -> String {
    output
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model.smv".into())
}

pub fn smv(args: SmvArgs) -> anyhow::Result<()> {
    let mut opts = EmitOptions {
        dialect: args.dialect.into(),
        file_name: file_name(args.output.as_deref()),
        ..EmitOptions::default()
    };
    let system = if let Some(history) = &args.history {
        let game = Game::load(&args.input).map_err(bad_input)?;
        let text = read(history)?;
        let history = deduce::parse_history(&game.spec, &text).map_err(|e| {
            bad_input(anyhow::anyhow!(
                "{}:{e}",
                args.history.as_ref().unwrap().display()
            ))
        })?;
        opts.title = format!(
            "deduction puzzle: {} after {}",
            game.name,
            args.history.as_ref().unwrap().display()
        );
        deduce::compile(&game, &history)
    } else if let Some(tree_path) = &args.strategy {
        let game = Game::load(&args.input).map_err(bad_input)?;
        let table = game.table(if game.builtin.is_some() {
            Route::Native
        } else {
            Route::Spec
        })?;
        let tree = tree_io::from_json(&table, &read(tree_path)?)
            .map_err(|e| bad_input(anyhow::anyhow!("{}: {e}", tree_path.display())))?;
        let model = strategy_model::strategy_system(&table, &tree, None).map_err(bad_input)?;
        opts.title = format!("strategy {} for {}", tree_path.display(), game.name);
        model.system
    } else {
        let puzzle = load_puzzle(Path::new(&args.input))?;
        opts.title = format!("{} ({})", puzzle.title(), args.input);
        grid::compile(&puzzle)
    };
    let text = smv::emit(&system, &opts)?;
    deliver(&text, args.output.as_deref())?;
    Ok(())
}

pub fn trace(args: TraceArgs) -> anyhow::Result<()> {
    let puzzle = load_puzzle(&args.puzzle)?;
    let system = grid::compile(&puzzle);
    let text = read(&args.output)?;
    let out = match trace::detect_format(&text) {
        trace::Format::Xml => trace::parse_xml(&text).map(|traces| (traces, None)),
        trace::Format::Text => trace::parse_text(&text).map(|out| {
            let verdicts = out.specs.iter().map(|s| s.verdict).collect::<Vec<_>>();
            (out.traces().cloned().collect(), Some(verdicts))
        }),
    }
    .map_err(|e| {
        bad_input(anyhow::anyhow!(
            "{}:{e}\n{}",
            args.output.display(),
            e.render(&text)
        ))
    })?;
    let (traces, verdicts) = out;
    let Some(named) = traces.first() else {
        if let Some(v) = verdicts {
            if v.contains(&Verdict::True) {
                let report = Report::unsat(&puzzle, "nusmv", system.bound.unwrap_or(0));
                report.print(args.json)?;
                return Ok(());
            }
        }
        return Err(bad_input(anyhow::anyhow!(
            "{}: no counterexample trace in the model checker's output",
            args.output.display()
        )));
    };
    // Errors found past parsing point at the state (and value) they are
    // about, as parse errors do.
    let at = |e: &EvalError| {
        let found = e
            .place()
            .and_then(|(step, var)| trace::locate(&text, named.id, step, var));
        match found {
            Some((line, column)) => format!("{}:{line}:{column}", args.output.display()),
            None => args.output.display().to_string(),
        }
    };
    let ir = named
        .to_ir(&system)
        .map(|t| system.cut_at_goal(&t))
        .map_err(|e| bad_input(anyhow::anyhow!("{}: {e}", at(&e))))?;
    system
        .check(&ir)
        .map_err(|e| bad_input(anyhow::anyhow!("{}: {NOT_A_RUN}: {e}", at(&e))))?;
    let solution = verify_path(&puzzle, &ir)
        .map_err(|e| bad_input(anyhow::anyhow!("{}: {e:#}", args.output.display())))?;
    Report::solved(&puzzle, solution, "nusmv", ir.states.len() - 1).print(args.json)?;
    Ok(())
}

/// What a trace the IR evaluator rejects is said to be.
const NOT_A_RUN: &str = "the trace is not a run of the puzzle's model";

/// The two checks every answer passes: the IR evaluator, then the
/// puzzle's own checker (which never looks at the IR).
fn verify(puzzle: &Puzzle, system: &System, trace: &Trace) -> anyhow::Result<Solution> {
    system.check(trace).context(NOT_A_RUN)?;
    verify_path(puzzle, trace)
}

/// The puzzle's own check of a trace the IR evaluator has passed already
/// (`bmc::solve` returns only traces it has checked against the system).
fn verify_path(puzzle: &Puzzle, trace: &Trace) -> anyhow::Result<Solution> {
    let solution = grid::decode(puzzle, trace).context("the trace does not decode to a path")?;
    grid::check(puzzle, &solution).context("the decoded path is not a solution")?;
    Ok(solution)
}

/// Set this environment variable to get the time of each phase of
/// `solve` on stderr (for profiling the fixed cost).
const PHASES_VAR: &str = "CHECKMATE_PHASES";

/// Whether [`PHASES_VAR`] is set.
fn phases_shown() -> bool {
    std::env::var_os(PHASES_VAR).is_some()
}

/// Prints a phase's time on stderr when [`PHASES_VAR`] is set.
fn phase_done(name: &str, since: Instant) {
    if phases_shown() {
        eprintln!(
            "phase {name}: {:.2} ms",
            since.elapsed().as_secs_f64() * 1e3
        );
    }
}

pub fn solve(args: SolveArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let puzzle = load_puzzle(&args.puzzle)?;
    phase_done("parse", start);
    if puzzle.open_count() >= super::HUGE_HEAP_CELLS {
        crate::heap::huge_heap();
        crate::heap::start_pool();
    }
    let timeout = args
        .timeout
        .map(|s| match Duration::try_from_secs_f64(s) {
            Ok(t) if s > 0.0 => Ok(t),
            _ => Err(bad_input(anyhow::anyhow!(
                "--timeout must be a positive number of seconds (at most about 1.8e19), not {s}"
            ))),
        })
        .transpose()?;
    let report = match args.engine {
        EngineArg::Bmc => solve_bmc(&puzzle, &args, timeout)?,
        EngineArg::Nusmv => {
            if args.count.is_some() {
                return Err(bad_input(anyhow::anyhow!(
                    "--count needs the bmc engine (NuSMV reports one counterexample)"
                )));
            }
            if args.model.is_some() {
                return Err(bad_input(anyhow::anyhow!(
                    "--model picks one of the bmc engine's models (NuSMV gets the plain model)"
                )));
            }
            // NuSMV gets the plain model its BDD engine is tuned for.
            let start = Instant::now();
            let system = grid::compile(&puzzle);
            phase_done("compile", start);
            let report = solve_nusmv(&puzzle, &system, &args, timeout)?;
            leak_at_exit(system);
            report
        }
    };
    let start = Instant::now();
    report.print(args.json)?;
    phase_done("print", start);
    Ok(())
}

fn encoding(arg: Option<EncodingArg>) -> Encoding {
    match arg {
        None => Encoding::default(),
        Some(EncodingArg::OneHot) => Encoding::OneHot,
        Some(EncodingArg::Order) => Encoding::Order,
        Some(EncodingArg::Log) => Encoding::Log,
    }
}

/// `--jobs` by default: one search per core, at most two
/// ([`bmc::AUTO_JOBS`]), the cores counted when the others are due to
/// join (`0`); on a machine that lets the process run on one CPU only,
/// no race (`1`: the models are tried in turn, each under its own
/// budget). The CPUs come from the affinity mask (one system call; the
/// cgroup quota that `available_parallelism` also reads costs ~0.05 ms
/// of files, and is read at the join).
fn default_jobs() -> usize {
    match allowed_cpus() {
        Some(1) => 1,
        _ => 0,
    }
}

/// How many CPUs the process may run on (`None`: not known here).
#[cfg(target_os = "linux")]
fn allowed_cpus() -> Option<usize> {
    // SAFETY: the set is plain data, zeroed is a valid empty set, and
    // sched_getaffinity writes at most its size into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        (libc::sched_getaffinity(0, size, &mut set) == 0).then(|| libc::CPU_COUNT(&set) as usize)
    }
}

/// See the Linux version: elsewhere the cores are counted at the join.
#[cfg(not(target_os = "linux"))]
fn allowed_cpus() -> Option<usize> {
    None
}

/// Solves with the built-in engine, trying the models of
/// [`grid::strengthen::sat_models`] in turn. When searches race (two
/// cores, `--jobs`), the first model does not stop at its budget: the
/// next model joins it there, on the other core, and the first answer
/// wins (the models are complementary: on random 3x50 and 4x40 hidato
/// and numbrix boards each answered within a second some that the other
/// had not answered in 20 s). On one core (`--jobs 1`) the first model
/// pauses at its budget and the models take turns, each going on where
/// it stopped (`bmc::takes_turns`). Counting more than two solutions,
/// a model that meets its budget hands over to the next, which gets what
/// is left of the timeout.
fn solve_bmc(
    puzzle: &Puzzle,
    args: &SolveArgs,
    timeout: Option<Duration>,
) -> anyhow::Result<Report> {
    let solver = match args.sat {
        SatArg::Batsat => SolverKind::Batsat,
        SatArg::Cadical => SolverKind::Cadical,
    };
    if !solver.available() {
        return Err(bad_input(anyhow::anyhow!(
            "SAT solver `{solver}` is not built in (rebuild with `cargo build --release --features {solver}`)"
        )));
    }
    let began = Instant::now();
    let models = pick_models(puzzle, args.model)?;
    let options = |budget: Option<u64>| BmcOptions {
        count: args.count,
        solver,
        encoding: encoding(args.encoding),
        timeout: timeout.map(|t| t.saturating_sub(began.elapsed())),
        interrupt: Some(ctrl_c()),
        conflict_limit: budget,
        // The first path is shown; a second one, when there is one,
        // goes through the puzzle's checker too.
        keep: 2,
        seed: args.seed,
        jobs: args.jobs.map_or_else(default_jobs, |n| n as usize),
        ..BmcOptions::default()
    };
    let budgeted = models.len() > 1 && models[0].conflict_budget.is_some();
    let raced = options(None);
    if budgeted && bmc::shares(&raced) {
        let (first, rest) = models.split_first().expect("two models or more");
        let run = Run {
            fallbacks: rest,
            join_at: first.conflict_budget,
            first_limit: Some(grid::strengthen::RACE_BUDGET),
            back_after: Some(grid::strengthen::BACK_BUDGET),
        };
        let (system, result) = solve_model(puzzle, first, run, raced, args.quiet)?;
        let report = bmc_report(puzzle, args, &result)?;
        leak_at_exit((system, result));
        return Ok(report);
    }
    let mut models = models.into_iter().peekable();
    let mut tried = 0;
    while let Some(model) = models.next() {
        tried += 1;
        let last = models.peek().is_none();
        let opts = options(model.conflict_budget.filter(|_| !last));
        let (system, result) = solve_model(puzzle, &model, Run::alone(), opts, args.quiet)?;
        let handed_over = !last && matches!(result.limit, Some(bmc::Limit::Conflicts(_)));
        if !handed_over {
            let report = bmc_report(puzzle, args, &result)?;
            leak_at_exit((system, result));
            return Ok(report);
        }
        if phases_shown() {
            eprintln!("  bmc: model {tried} met its conflict budget; the next one takes over");
        }
        // Not leaked: the process goes on to the next model.
        drop((system, result));
    }
    Err(anyhow::anyhow!("no model to solve the puzzle with"))
}

/// The other models a search of one model races with ([`bmc::solve_racing`]),
/// and after how many conflicts of the first they join.
struct Run<'m> {
    fallbacks: &'m [SatModel],
    join_at: Option<u64>,
    first_limit: Option<u64>,
    back_after: Option<u64>,
}

impl Run<'_> {
    fn alone() -> Run<'static> {
        Run {
            fallbacks: &[],
            join_at: None,
            first_limit: None,
            back_after: None,
        }
    }
}

/// A flag the first Ctrl-C sets (installed on first use): a bmc solve
/// then stops where it is and still prints what it found (`unknown`, or
/// the solutions counted so far); a second Ctrl-C ends the process as
/// usual.
fn ctrl_c() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    static INSTALL: Once = Once::new();
    extern "C" fn on_sigint(_: libc::c_int) {
        // Async-signal-safe: an atomic load and store, and `signal`.
        if let Some(f) = FLAG.get() {
            f.store(true, Ordering::Relaxed);
        }
        // SAFETY: restoring the default disposition of SIGINT.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }
    let flag = FLAG.get_or_init(Arc::default).clone();
    INSTALL.call_once(|| {
        let handler: extern "C" fn(libc::c_int) = on_sigint;
        // SAFETY: the handler only touches an initialised atomic flag.
        unsafe {
            libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        }
    });
    flag
}

/// Compiles `puzzle` with `options` and solves it with the built-in
/// engine (a progress line on a terminal unless `quiet`).
fn solve_model(
    puzzle: &Puzzle,
    model: &SatModel,
    run: Run,
    mut opts: BmcOptions,
    quiet: bool,
) -> anyhow::Result<(System, bmc::BmcResult)> {
    let start = Instant::now();
    let system = model.compile(puzzle);
    phase_done("compile", start);
    let show_progress = !quiet && std::io::stderr().is_terminal();
    opts.progress = show_progress.then(|| -> bmc::ProgressFn {
        std::sync::Arc::new(|p: &bmc::Progress| eprint!("\r{p}\x1b[K"))
    });
    let start = Instant::now();
    let makers: Vec<_> = run
        .fallbacks
        .iter()
        .map(|m| move || m.compile(puzzle))
        .collect();
    let fallbacks: Vec<&bmc::Fallback> = makers.iter().map(|f| f as &bmc::Fallback).collect();
    let result = bmc::solve_racing(
        &system,
        &fallbacks,
        run.join_at,
        run.first_limit,
        run.back_after,
        &opts,
    )?;
    if show_progress {
        eprint!("\r\x1b[K");
    }
    phase_done("bmc", start);
    if phases_shown() {
        eprintln!("  bmc: {}, {} conflicts", result.phases, result.conflicts);
        eprintln!(
            "  bmc: the solver's CNF: {} variables, {} clauses",
            result.vars, result.clauses
        );
        if result.cuts > 0 {
            eprintln!(
                "  bmc: {} cuts against cycles, in {} solves",
                result.cuts, result.solves
            );
        }
        if result.searches > 1 && result.turns == 0 {
            eprintln!(
                "  bmc: {} searches raced; the one of system {} seeded {} answered",
                result.searches, result.system, result.seed
            );
        }
        if result.turns > 1 {
            eprintln!(
                "  bmc: {} searches took {} turns; the one of system {} answered",
                result.searches, result.turns, result.system
            );
        }
        if result.hint_fallback {
            eprintln!(
                "  bmc: the branching hint left a model incomplete; searched again without it"
            );
        }
    }
    Ok((system, result))
}

/// The report of a `solve` by the built-in engine, every path verified.
fn bmc_report(
    puzzle: &Puzzle,
    args: &SolveArgs,
    result: &bmc::BmcResult,
) -> anyhow::Result<Report> {
    let start = Instant::now();
    let mut solutions = Vec::new();
    for t in &result.traces {
        solutions.push(verify_path(puzzle, t)?);
    }
    phase_done("verify", start);
    let stopped = result.limit.map(|l| l.to_string());
    // The moves of every solution path, as NuSMV's step-by-step model
    // counts them (the successor model holds the whole path in its one
    // state, bound 0).
    let moves = puzzle.open_count() - 1;
    let mut report = match result.status {
        Status::Solved => {
            let mut r = Report::solved(puzzle, solutions.swap_remove(0), "bmc", moves);
            // A count cut short (timeout, Ctrl-C, the cap) says why.
            r.note = stopped.as_ref().map(|l| format!("stopped early: {l}"));
            r
        }
        Status::Unsat => Report::unsat(puzzle, "bmc", moves),
        Status::Unknown => Report::unknown(puzzle, "bmc", moves, stopped.clone()),
    };
    report.json.stopped = stopped;
    if args.count.is_some() {
        report.json.solutions = Some(result.found());
        report.json.unique = Some(result.unique);
        report.exhausted = Some(result.exhausted);
    }
    Ok(report)
}

/// Skips freeing `x`: for the large values of a `solve` (the system, the
/// traces with their thousands of values), whose memory the process's
/// exit right after returns at once. Freeing them piece by piece cost up
/// to 0.8 ms of a 9x9 waypoint solve of ~15 ms.
fn leak_at_exit<T>(x: T) {
    std::mem::forget(x);
}

fn solve_nusmv(
    puzzle: &Puzzle,
    system: &System,
    args: &SolveArgs,
    timeout: Option<Duration>,
) -> anyhow::Result<Report> {
    let checker = Checker::locate(Tool::NuSmv, args.checker.as_deref())?.with_timeout(timeout);
    let model = smv::emit(
        system,
        &EmitOptions {
            title: puzzle.title(),
            ..EmitOptions::default()
        },
    )?;
    let engine = match args.bmc {
        Some(bound) => checker::Engine::Bmc { bound },
        None => checker::Engine::Bdd,
    };
    let run = checker.check_str(&model, engine)?;
    let bound = system.bound.unwrap_or(0);
    if let Some(named) = run.output.first_counterexample() {
        let ir = named
            .to_ir(system)
            .map(|t| system.cut_at_goal(&t))
            .context("NuSMV's trace does not fit the model")?;
        let solution = verify(puzzle, system, &ir)?;
        return Ok(Report::solved(
            puzzle,
            solution,
            "nusmv",
            ir.states.len() - 1,
        ));
    }
    let verdicts: Vec<Verdict> = run.output.specs.iter().map(|s| s.verdict).collect();
    if verdicts.contains(&Verdict::True) {
        return Ok(Report::unsat(puzzle, "nusmv", bound));
    }
    let reached = verdicts
        .iter()
        .filter_map(|v| match v {
            Verdict::NoCounterexampleUpTo(k) => Some(*k),
            _ => None,
        })
        .max();
    match reached {
        // Every solution has exactly `bound` moves: no counterexample up
        // to the bound means none exists.
        Some(k) if k >= bound => Ok(Report::unsat(puzzle, "nusmv", bound)),
        Some(k) => Ok(Report::unknown(
            puzzle,
            "nusmv",
            k,
            Some(format!(
                "no solution up to bound {k}; solutions need bound {bound}"
            )),
        )),
        None => bail!("NuSMV's output has neither a verdict nor a trace"),
    }
}

/// The models of [`grid::strengthen::sat_models`] to solve `puzzle`
/// with: all of them in turn, or only the `n`th (from 1), with no budget.
fn pick_models(puzzle: &Puzzle, n: Option<usize>) -> anyhow::Result<Vec<SatModel>> {
    let mut models = grid::strengthen::sat_models(puzzle);
    let Some(n) = n else {
        return Ok(models);
    };
    if n == 0 || n > models.len() {
        return Err(bad_input(anyhow::anyhow!(
            "--model {n}: this puzzle has models 1 to {}",
            models.len()
        )));
    }
    let mut model = models.swap_remove(n - 1);
    model.conflict_budget = None;
    Ok(vec![model])
}

pub fn cnf(args: CnfArgs) -> anyhow::Result<()> {
    let puzzle = load_puzzle(&args.puzzle)?;
    // Past the exact bound only a path that stays put once solved
    // reaches the goal at `k`.
    let model = pick_models(&puzzle, Some(args.model))?
        .swap_remove(0)
        .for_bound(&puzzle, args.bound);
    let system = model.compile(&puzzle);
    let k = args.bound.or(system.bound).unwrap_or(0);
    let text = bmc::dimacs(&system, k, encoding(args.encoding))?;
    deliver(&text, args.output.as_deref())?;
    Ok(())
}

/// What `solve` and `trace` print.
struct Report {
    json: grid::JsonSolution,
    /// The solved grid: positions, then the path drawn.
    picture: Option<String>,
    exhausted: Option<bool>,
    note: Option<String>,
}

impl Report {
    fn solved(puzzle: &Puzzle, solution: Solution, engine: &str, bound: usize) -> Report {
        let picture = format!(
            "{}\n{}",
            grid::render_grid(puzzle, &solution),
            grid::render_path(puzzle, &solution)
        );
        Report {
            json: grid::JsonSolution::new(
                puzzle,
                grid::Status::Solved,
                Some(&solution),
                engine,
                Some(bound),
            ),
            picture: Some(picture),
            exhausted: None,
            note: None,
        }
    }

    /// With the reason when the board alone rules out every path (the
    /// answer is the engine's, the reason only says why).
    fn unsat(puzzle: &Puzzle, engine: &str, bound: usize) -> Report {
        Report {
            json: grid::JsonSolution::new(puzzle, grid::Status::Unsat, None, engine, Some(bound)),
            picture: None,
            exhausted: None,
            note: grid::no_path::reason(puzzle).map(|why| format!("why: {why}")),
        }
    }

    fn unknown(puzzle: &Puzzle, engine: &str, bound: usize, why: Option<String>) -> Report {
        Report {
            json: grid::JsonSolution::new(puzzle, grid::Status::Unknown, None, engine, Some(bound)),
            picture: None,
            exhausted: None,
            note: why,
        }
    }

    fn print(&self, json: bool) -> anyhow::Result<()> {
        if json {
            println!("{}", serde_json::to_string(&self.json)?);
            return Ok(());
        }
        let j = &self.json;
        match &self.picture {
            Some(p) => print!("{p}"),
            None => match j.status {
                grid::Status::Unsat => println!("unsat: the puzzle has no solution"),
                grid::Status::Unknown => println!("unknown: no answer within the limits"),
                grid::Status::Solved => println!("solved"),
            },
        }
        if let Some(n) = j.solutions {
            let all = match (self.exhausted, j.unique) {
                (_, Some(Some(true))) => " (unique)".to_string(),
                (Some(true), _) => " (all of them)".to_string(),
                _ => String::new(),
            };
            println!("solutions found: {n}{all}");
        }
        if let Some(note) = &self.note {
            println!("{note}");
        }
        Ok(())
    }
}
