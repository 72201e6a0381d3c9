//! Integration tests through the real `checkmate` binary: the commands a
//! user types, their output formats and their exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn checkmate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_checkmate"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "failed: {}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("valid JSON on stdout")
}

/// Writes `text` to a fresh file in a temporary directory.
fn file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A square puzzle file's text: `n` by `n` open cells but for `marks`
/// (row, column, what is there).
fn square_board(variant: &str, n: usize, marks: &[(usize, usize, &str)]) -> String {
    let mut board = vec![vec!["."; n]; n];
    for &(r, c, m) in marks {
        board[r][c] = m;
    }
    let rows: Vec<String> = board.iter().map(|r| r.join(" ")).collect();
    format!("variant: {variant}\n{}\n", rows.join("\n"))
}

/// NuSMV's path, or `None` (with a visible message) when it is not
/// installed; under `CI` a missing NuSMV fails the test.
fn nusmv() -> Option<PathBuf> {
    let found = std::env::var_os("NUSMV")
        .map(PathBuf::from)
        .or_else(|| which::which("NuSMV").ok());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "NuSMV is required under CI (scripts/install-nusmv.sh)"
        );
        eprintln!("skipping: NuSMV not found (run scripts/install-nusmv.sh)");
    }
    found
}

const EXAMPLE: &str = "models/grid/waypoint-3x4.txt";

#[test]
fn solves_the_readme_example_with_the_default_engine() {
    let o = checkmate(&["solve", EXAMPLE]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains(" 1"), "positions grid printed:\n{text}");
    let j = json(&checkmate(&["solve", EXAMPLE, "--json"]));
    assert_eq!(j["status"], "solved");
    assert_eq!(j["variant"], "waypoint");
    assert_eq!(j["engine"], "bmc");
    assert_eq!(j["rows"], 3);
    assert_eq!(j["cols"], 4);
    assert_eq!(j["bound"], 11);
    assert_eq!(j["path"].as_array().unwrap().len(), 12);
    assert!(j.get("solutions").is_none(), "no counting asked for");
}

#[test]
fn counting_reports_uniqueness() {
    let j = json(&checkmate(&["solve", EXAMPLE, "--count", "2", "--json"]));
    assert_eq!(j["solutions"], 1);
    assert_eq!(j["unique"], true);
    let dir = tempfile::tempdir().unwrap();
    // Corner to opposite corner of an open 3x3 board: two snakes.
    let p = file(&dir, "amb.txt", "variant: waypoint\n1 . .\n. . .\n. . 2\n");
    let j = json(&checkmate(&[
        "solve",
        p.to_str().unwrap(),
        "--count",
        "0",
        "--json",
    ]));
    assert_eq!(j["solutions"], 2);
    assert_eq!(j["unique"], false);
}

/// Seeds and racing searches change which path may come back, never the
/// answer; `--jobs 0` is a usage error.
#[test]
fn seeds_and_races_keep_the_answer() {
    let p = "models/bench/waypoint-9x9-s1.txt";
    let mut answers = Vec::new();
    for extra in [
        &["--jobs", "1"][..],
        &["--jobs", "2", "--seed", "7"],
        &["--seed", "3"],
    ] {
        let mut args = vec!["solve", p, "--count", "2", "--json"];
        args.extend_from_slice(extra);
        let j = json(&checkmate(&args));
        assert_eq!(j["status"], "solved", "{extra:?}");
        assert_eq!(j["path"].as_array().unwrap().len(), 75, "{extra:?}");
        answers.push((j["solutions"].clone(), j["unique"].clone()));
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]), "{answers:?}");
    assert_eq!(answers[0], (2.into(), false.into()));
    let o = checkmate(&["solve", p, "--jobs", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// On one core (`--jobs 1`) the numbrix/hidato models take turns: a
/// puzzle the first model leaves to the second is answered by it, as
/// when the models race on two cores.
#[test]
fn one_core_takes_turns_and_answers_as_two_do() {
    let p = "models/bench/hidato-12x12-s1.txt";
    for jobs in ["1", "2"] {
        let o = Command::new(env!("CARGO_BIN_EXE_checkmate"))
            .args(["solve", p, "--count", "2", "--json", "--jobs", jobs])
            .env("CHECKMATE_PHASES", "1")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let j = json(&o);
        assert_eq!(j["status"], "solved", "--jobs {jobs}");
        assert_eq!(
            (j["solutions"].as_u64(), j["unique"].as_bool()),
            (Some(2), Some(false))
        );
        assert_eq!(j["path"].as_array().unwrap().len(), 132, "--jobs {jobs}");
        let turns = stderr(&o).contains("2 searches took 2 turns; the one of system 1 answered");
        assert_eq!(turns, jobs == "1", "--jobs {jobs}: {}", stderr(&o));
    }
}

/// Ctrl-C stops a long count where it is and still prints what it found.
#[test]
fn ctrl_c_stops_a_count_and_keeps_what_it_found() {
    // An open 10x10 with only its two ends given has millions of paths:
    // a million take minutes, far longer than the wait on any machine
    // (a release build counted all 6,599 of a 9x9 board, used before, in
    // 1.4 s, so the test failed there).
    let dir = tempfile::tempdir().unwrap();
    let text = square_board("waypoint", 10, &[(0, 0, "1"), (9, 0, "2")]);
    let p = file(&dir, "open10.txt", &text);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_checkmate"))
        .args(["solve", p.to_str().unwrap(), "--count", "1000000"])
        .args(["--json", "--quiet"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: signals a child this test started and has not waited for.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    let o = child.wait_with_output().unwrap();
    let j = json(&o);
    assert_eq!(j["status"], "solved", "{j}");
    let n = j["solutions"].as_u64().unwrap();
    assert!((1..1_000_000).contains(&n), "{j}");
    assert_ne!(j["unique"], true, "{j}");
    assert_eq!(j["stopped"], "interrupted", "{j}");
}

/// A numbrix puzzle with three numbers: `solve` moves on from its first
/// model (see `grid::strengthen::sat_models`) and still answers, checked.
#[test]
fn a_sparse_numbrix_puzzle_is_solved_and_counted() {
    let p = "tests/fixtures/grid/numbrix-9x9-sparse-s4.txt";
    let j = json(&checkmate(&["solve", p, "--count", "2", "--json"]));
    assert_eq!(j["status"], "solved");
    assert_eq!(j["solutions"], 2);
    assert_eq!(j["unique"], false);
    assert_eq!(j["path"].as_array().unwrap().len(), 81);
}

#[test]
fn unsolvable_puzzle_is_unsat_with_exit_zero() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "unsat.txt", "variant: numbrix\n1 3\n. .\n");
    let j = json(&checkmate(&["solve", p.to_str().unwrap(), "--json"]));
    assert_eq!(j["status"], "unsat");
    assert_eq!(j["path"].as_array().unwrap().len(), 0);
    // No numbers, and two more cells of one checkerboard colour than of
    // the other: a counting argument (`grid::no_path`),
    // which a SAT search alone does not find in any useful time.
    let text = square_board("numbrix", 10, &[(0, 0, "X"), (9, 9, "X")]);
    let p = file(&dir, "colours.txt", &text);
    let j = json(&checkmate(&[
        "solve",
        p.to_str().unwrap(),
        "--count",
        "2",
        "--json",
    ]));
    assert_eq!(j["status"], "unsat");
    // Without `--json`, the answer says why.
    let text = stdout(&checkmate(&["solve", p.to_str().unwrap()]));
    assert_eq!(
        text,
        "unsat: the puzzle has no solution\n\
         why: 48 light and 50 dark open cells, but a path alternates colours\n"
    );
}

#[test]
fn bad_input_gives_a_located_error_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("ragged.txt", "variant: numbrix\n. . .\n. .\n", "3:"),
        ("token.txt", "variant: hidato\n. ? .\n", "2:3"),
        ("novariant.txt", ". . .\n", ""),
        ("dup.txt", "variant: numbrix\n1 1\n. .\n", ""),
        ("range.txt", "variant: hidato\n9 .\n. .\n", ""),
        ("nostart.txt", "variant: waypoint\n2 .\n. .\n", ""),
        ("empty.txt", "variant: numbrix\nX X\n", ""),
    ];
    for (name, text, located) in cases {
        let p = file(&dir, name, text);
        for cmd in ["solve", "smv", "cnf"] {
            let o = checkmate(&[cmd, p.to_str().unwrap()]);
            assert_eq!(o.status.code(), Some(2), "{cmd} {name}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(err.starts_with("checkmate: "), "{err}");
            assert!(err.contains(name), "names the file: {err}");
            assert!(
                err.contains(located),
                "{name}: expected `{located}` in {err}"
            );
            assert!(!err.contains("panicked"), "{err}");
        }
    }
    let o = checkmate(&["solve", "no/such/file.txt"]);
    assert_eq!(o.status.code(), Some(2));
    // Bytes that are not UTF-8 are placed like any other bad input, in
    // every kind of input file.
    let binary = dir.path().join("binary.txt");
    std::fs::write(&binary, b"variant: numbrix\n. \xff 1\n").unwrap();
    let b = binary.to_str().unwrap();
    for args in [
        vec!["solve", b],
        vec!["trace", EXAMPLE, b],
        vec!["game", "info", b],
        vec!["game", "deduce", "coins:4", b],
    ] {
        let o = checkmate(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("binary.txt:2:3: not UTF-8"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let o = checkmate(&["solve", EXAMPLE, "--timeout", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    // Too long for a `Duration`, or no number: an error, not a panic.
    for t in ["1e30", "0", "NaN", "inf"] {
        let o = checkmate(&["solve", EXAMPLE, "--timeout", t]);
        assert_eq!(o.status.code(), Some(2), "--timeout {t}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--timeout must be"),
            "{t}: {}",
            stderr(&o)
        );
    }
    // The longest that are one: no deadline an `Instant` cannot hold.
    let o = checkmate(&["solve", EXAMPLE, "--timeout", "1e19"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = checkmate(&["game", "info", "mastermind:3x3", "--time-limit", "1e19"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = checkmate(&["game", "info", "mastermind:0x6"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn smv_is_deterministic_and_written_atomically() {
    let a = checkmate(&["smv", EXAMPLE]);
    let b = checkmate(&["smv", EXAMPLE]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let text = stdout(&a);
    assert!(text.contains("NuSMV -bmc -bmc_length 11"), "{text}");
    assert!(text.contains("LTLSPEC !(F "), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("model.smv");
    let o = checkmate(&[
        "smv",
        EXAMPLE,
        "--dialect",
        "nuxmv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.contains("msat_check_ltlspec_bmc -k 11"));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temp files left"
    );
}

#[test]
fn cnf_is_dimacs_with_variable_names() {
    let o = checkmate(&["cnf", EXAMPLE]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.lines().any(|l| l.starts_with("p cnf ")));
    assert!(text.contains("= succ_0@0="), "variable map in comments");
    // A waypoint puzzle's first model is the successor model, its
    // second the step-by-step one.
    let o = checkmate(&["cnf", EXAMPLE, "--model", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("= pos@2="), "the step-by-step model");
    // `--model N` picks one of `solve`'s models; numbrix has two.
    let sparse = "tests/fixtures/grid/numbrix-9x9-sparse-s4.txt";
    let o = checkmate(&["cnf", sparse, "--model", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("= succ_0@0="),
        "the successor/rank model"
    );
    let o = checkmate(&["cnf", EXAMPLE, "--model", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--model 3: this puzzle has models 1 to 2"));
}

#[test]
fn solve_model_picks_one_model_without_a_budget() {
    // Model 1 alone, with no budget to hand over at, still answers the
    // sparse puzzle (it is only slow), and so does model 2.
    let sparse = "tests/fixtures/grid/numbrix-9x9-sparse-s4.txt";
    for m in ["1", "2"] {
        let o = checkmate(&["solve", sparse, "--model", m, "--count", "2", "--json"]);
        assert!(o.status.success(), "model {m}: {}", stderr(&o));
        let j = json(&o);
        assert_eq!(
            (j["status"].as_str(), j["unique"].as_bool()),
            (Some("solved"), Some(false)),
            "model {m}"
        );
    }
    for bad in [
        &["--model", "0"][..],
        &["--model", "3"],
        &["--model", "1", "--engine", "nusmv"],
    ] {
        let mut args = vec!["solve", sparse];
        args.extend_from_slice(bad);
        let o = checkmate(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        assert!(stderr(&o).contains("--model"), "{bad:?}: {}", stderr(&o));
    }
}

fn run_nusmv(nusmv: &Path, args: &[&str], dir: &Path) -> String {
    let o = Command::new(nusmv)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn nusmv_text_and_xml_traces_come_back_as_verified_solutions() {
    let Some(bin) = nusmv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("model.smv");
    let o = checkmate(&["smv", EXAMPLE, "-o", model.to_str().unwrap()]);
    assert!(o.status.success());
    let out = run_nusmv(&bin, &["model.smv"], dir.path());
    let text = file(&dir, "out.txt", &out);
    let via_text = json(&checkmate(&[
        "trace",
        EXAMPLE,
        text.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(via_text["status"], "solved");
    assert_eq!(via_text["bound"], 11);

    let cmds = file(
        &dir,
        "cmds",
        "set on_failure_script_quits\nread_model -i model.smv\ngo_bmc\ncheck_ltlspec_bmc -k 11\nshow_traces -p 4 -o trace.xml\nquit\n",
    );
    run_nusmv(&bin, &["-source", cmds.to_str().unwrap()], dir.path());
    let xml = dir.path().join("trace.xml");
    let via_xml = json(&checkmate(&[
        "trace",
        EXAMPLE,
        xml.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(via_xml["status"], "solved");
    assert_eq!(
        via_xml["path"], via_text["path"],
        "unique puzzle: same path"
    );

    // A value the model cannot have, and a state that breaks the model,
    // are pointed at by line and column like parse errors.
    let (i, line) = out
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("pos = "))
        .unwrap();
    let column = line.find("= ").unwrap() + 3;
    let bad = out.replacen(line, &format!("{}= 999", &line[..column - 3]), 1);
    let bad = file(&dir, "bad.txt", &bad);
    let o = checkmate(&["trace", EXAMPLE, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let want = format!(
        "bad.txt:{}:{column}: state 0: variable `pos` has value `999`",
        i + 1
    );
    assert!(stderr(&o).contains(&want), "{want} in {}", stderr(&o));
    let xml_text = std::fs::read_to_string(&xml).unwrap();
    let bad = xml_text.replacen("variable=\"step\">1<", "variable=\"step\">5<", 1);
    let bad = file(&dir, "bad.xml", &bad);
    let o = checkmate(&["trace", EXAMPLE, bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bad.xml:") && stderr(&o).contains(": state 0:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn solve_with_nusmv_bdd_and_bmc_agrees_with_bmc() {
    let Some(bin) = nusmv() else { return };
    let bin = bin.to_str().unwrap();
    let reference = json(&checkmate(&["solve", EXAMPLE, "--json"]));
    for extra in [&[][..], &["--bmc", "11"][..]] {
        let mut args = vec![
            "solve",
            EXAMPLE,
            "--engine",
            "nusmv",
            "--checker",
            bin,
            "--json",
        ];
        args.extend_from_slice(extra);
        let j = json(&checkmate(&args));
        assert_eq!(j["status"], "solved");
        assert_eq!(j["engine"], "nusmv");
        assert_eq!(j["path"], reference["path"]);
    }
    let dir = tempfile::tempdir().unwrap();
    let p = file(&dir, "unsat.txt", "variant: numbrix\n1 3\n. .\n");
    for extra in [&[][..], &["--bmc", "3"][..]] {
        let mut args = vec![
            "solve",
            p.to_str().unwrap(),
            "--engine",
            "nusmv",
            "--checker",
            bin,
            "--json",
        ];
        args.extend_from_slice(extra);
        assert_eq!(json(&checkmate(&args))["status"], "unsat");
    }
}

#[test]
fn missing_nusmv_is_a_clear_error() {
    let o = checkmate(&[
        "solve",
        EXAMPLE,
        "--engine",
        "nusmv",
        "--checker",
        "/no/such/NuSMV",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("checkmate: "), "{}", stderr(&o));
}

#[test]
fn deduction_puzzle_and_strategy_become_models_nusmv_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let history = file(&dir, "h.txt", "guess AABB => 1b1w\nguess ABCA => 0b2w\n");
    let o = checkmate(&[
        "smv",
        "mastermind:4x6",
        "--history",
        history.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let model = file(&dir, "deduce.smv", &stdout(&o));
    let tree = dir.path().join("tree.json");
    let o = checkmate(&[
        "game",
        "optimal",
        "mastermind:2x3",
        "--tree",
        tree.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = checkmate(&[
        "smv",
        "mastermind:2x3",
        "--strategy",
        tree.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let strategy = file(&dir, "strategy.smv", &stdout(&o));
    let Some(bin) = nusmv() else { return };
    let out = run_nusmv(&bin, &[model.to_str().unwrap()], dir.path());
    assert!(out.contains("is false"), "a code fits the history:\n{out}");
    let out = run_nusmv(&bin, &[strategy.to_str().unwrap()], dir.path());
    assert!(
        out.contains("is true"),
        "the optimal tree finds every code:\n{out}"
    );
}

#[test]
fn analyze_replays_saved_trees_from_optimal_and_from_strategies() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("opt.json");
    let t = tree.to_str().unwrap();
    let opt = json(&checkmate(&[
        "game",
        "optimal",
        "mastermind:3x3",
        "--tree",
        t,
        "--json",
    ]));
    let replay = json(&checkmate(&[
        "game",
        "analyze",
        "mastermind:3x3",
        "--tree",
        t,
        "--json",
    ]));
    assert_eq!(replay["total"], opt["total"]);
    assert_eq!(replay["total"], 73);
    let saved = dir.path().join("parts.json");
    let s = saved.to_str().unwrap();
    let built = json(&checkmate(&[
        "game",
        "analyze",
        "coins:5",
        "--strategy",
        "max-models",
        "--save-tree",
        s,
        "--json",
    ]));
    let again = json(&checkmate(&[
        "game", "analyze", "coins:5", "--tree", s, "--json",
    ]));
    assert_eq!(again["total"], built["total"]);
    assert_eq!(again["worst"], built["worst"]);
    let bad = file(&dir, "bad.json", "{\"bad\": 1}");
    let o = checkmate(&[
        "game",
        "analyze",
        "mastermind:3x3",
        "--tree",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("line 1"), "{}", stderr(&o));
}

/// `checkmate … | head -1`: a reader that closes the pipe early ends the
/// process quietly (SIGPIPE), with no panic message.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::io::Read as _;
    let mut child = Command::new(env!("CARGO_BIN_EXE_checkmate"))
        .args(["game", "spec", "mastermind:4x6"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take()); // the reader goes away before any output
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
}
