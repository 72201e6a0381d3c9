//! `checker` against the real NuSMV 2.5.4 and against stand-in scripts.
//!
//! Tests that need NuSMV fail when `CI` is set and NuSMV is missing;
//! otherwise they print "skipping: NuSMV not found" and return. The
//! stand-in scripts (a fake checker that prints garbage, one that sleeps)
//! need only `/bin/sh`.

mod common;
use common::nusmv;

use std::path::{Path, PathBuf};
use std::time::Duration;

use checkmate::checker::{Checker, CheckerError, Engine, Tool};
use checkmate::trace::{PropertyKind, Verdict};

fn fixture(name: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "nusmv",
        name,
    ]
    .iter()
    .collect()
}

fn values(trace: &checkmate::trace::NamedTrace, var: &str) -> Vec<String> {
    trace.states.iter().map(|s| s[var].clone()).collect()
}

const COUNTER: &str = "MODULE main
VAR x : 0..7;
ASSIGN
  init(x) := 0;
  next(x) := (x + 1) mod 8;
LTLSPEC G (x != 5)
LTLSPEC G (x <= 7)
";

#[test]
fn bdd_finds_the_false_spec_and_proves_the_true_one() {
    let Some(nusmv) = nusmv() else { return };
    let run = nusmv.check_str(COUNTER, Engine::Bdd).unwrap();
    assert_eq!(run.output.tool.as_deref(), Some("NuSMV 2.5.4"));
    let specs = &run.output.specs;
    assert_eq!(specs.len(), 2, "{}", run.stdout);
    assert_eq!(specs[0].verdict, Verdict::False);
    assert_eq!(specs[0].spec.as_deref(), Some("G x != 5"));
    let t = specs[0].trace.as_ref().unwrap();
    assert_eq!(values(t, "x")[..6], ["0", "1", "2", "3", "4", "5"]);
    assert_eq!(specs[1].verdict, Verdict::True);
}

#[test]
fn bmc_finds_the_shortest_counterexample_and_reports_the_bound() {
    let Some(nusmv) = nusmv() else { return };
    let run = nusmv.check_str(COUNTER, Engine::Bmc { bound: 8 }).unwrap();
    let specs = &run.output.specs;
    assert_eq!(specs[0].verdict, Verdict::False);
    let t = specs[0].trace.as_ref().unwrap();
    assert_eq!(values(t, "x"), ["0", "1", "2", "3", "4", "5"]);
    assert_eq!(specs[1].verdict, Verdict::NoCounterexampleUpTo(8));

    let short = nusmv.check_str(COUNTER, Engine::Bmc { bound: 3 }).unwrap();
    let verdicts: Vec<_> = short.output.specs.iter().map(|s| s.verdict).collect();
    assert_eq!(
        verdicts,
        [
            Verdict::NoCounterexampleUpTo(3),
            Verdict::NoCounterexampleUpTo(3)
        ],
        "bound 3 is too short for x = 5"
    );
}

#[test]
fn check_file_runs_a_model_on_disk_with_inputs() {
    let Some(nusmv) = nusmv() else { return };
    let run = nusmv
        .check_file(&fixture("inputs.smv"), Engine::Bmc { bound: 5 })
        .unwrap();
    let t = run.output.first_counterexample().expect("pos reaches 3");
    assert_eq!(values(t, "pos"), ["0", "1", "2", "3"]);
    assert_eq!(t.inputs.len(), 3);
    assert!(t
        .inputs
        .iter()
        .all(|i| i["step"] == "TRUE" && i["dir"] == "right"));
}

#[test]
fn invariants_are_told_apart_from_specifications() {
    let Some(nusmv) = nusmv() else { return };
    let run = nusmv
        .check_file(&fixture("invar.smv"), Engine::Bdd)
        .unwrap();
    let kinds: Vec<_> = run
        .output
        .specs
        .iter()
        .map(|s| (s.kind, s.verdict))
        .collect();
    assert_eq!(
        kinds,
        [
            (PropertyKind::Invariant, Verdict::False),
            (PropertyKind::Invariant, Verdict::True)
        ]
    );
    // Under BMC the induction step reaches n = 7 -> 8 and NuSMV warns on
    // standard error; the warning is kept.
    let run = nusmv
        .check_file(&fixture("invar.smv"), Engine::Bmc { bound: 3 })
        .unwrap();
    assert_eq!(run.output.specs[0].verdict, Verdict::InductionFailed);
    assert!(
        run.output
            .warnings
            .iter()
            .any(|w| w.contains("cannot assign value")),
        "{:?}",
        run.output.warnings
    );
}

#[test]
fn syntax_errors_name_the_line() {
    let Some(nusmv) = nusmv() else { return };
    let model = "MODULE main\nVAR x : 0..3;\nASSIGN init(x) := 0;\n  next(x) := x + ;\n";
    match nusmv.check_str(model, Engine::Bdd) {
        Err(CheckerError::Model {
            file,
            line,
            message,
            ..
        }) => {
            assert_eq!(file, "model.smv");
            assert_eq!(line, Some(4));
            assert!(message.contains("syntax error"), "{message}");
        }
        other => panic!("expected a model error, got {other:?}"),
    }
}

#[test]
fn type_errors_and_undefined_names_are_model_errors() {
    let Some(nusmv) = nusmv() else { return };
    let undefined = "MODULE main\nVAR x : 0..3;\nASSIGN init(x) := 0;\n  next(x) := y;\n";
    let err = nusmv.check_str(undefined, Engine::Bdd).unwrap_err();
    assert!(
        matches!(&err, CheckerError::Model { line: Some(4), message, .. } if message.contains("undefined")),
        "{err:?}"
    );
    let mistyped = "MODULE main\nVAR x : boolean;\nASSIGN init(x) := 3;\n";
    let err = nusmv.check_str(mistyped, Engine::Bdd).unwrap_err();
    assert!(
        matches!(&err, CheckerError::Model { line: Some(3), .. }),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("NuSMV rejected the model: file model.smv, line 3: illegal operand types"),
        "{err}"
    );
}

#[test]
fn a_missing_model_file_is_a_model_error() {
    let Some(nusmv) = nusmv() else { return };
    let err = nusmv
        .check_file(Path::new("/no/such/model.smv"), Engine::Bdd)
        .unwrap_err();
    assert!(
        matches!(&err, CheckerError::Model { message, .. } if message.contains("cannot open")),
        "{err:?}"
    );
}

#[test]
fn a_bad_option_is_a_non_zero_exit() {
    let Some(nusmv) = nusmv() else { return };
    let err = nusmv
        .with_args(["-no-such-option"])
        .check_str(COUNTER, Engine::Bdd)
        .unwrap_err();
    match &err {
        CheckerError::Exit { status, stderr, .. } => {
            assert_eq!(status, "exit status 255");
            assert!(stderr.contains("-no-such-option"), "{stderr}");
        }
        other => panic!("expected an exit error, got {other:?}"),
    }
}

/// A 24-bit counter has 2^24 reachable states in a chain: BDD reachability
/// needs 2^24 image steps, far more than one second.
#[test]
fn a_bdd_hard_model_times_out_and_is_killed() {
    let Some(nusmv) = nusmv() else { return };
    let slow = "MODULE main
VAR x : unsigned word[24];
ASSIGN init(x) := 0ud24_0; next(x) := x + 0ud24_1;
INVARSPEC x != 0ud24_16777215
";
    let err = nusmv
        .with_timeout(Some(Duration::from_secs(1)))
        .check_str(slow, Engine::Bdd)
        .unwrap_err();
    assert!(
        matches!(err, CheckerError::Timeout { tool: Tool::NuSmv, limit } if limit == Duration::from_secs(1)),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "NuSMV did not finish within 1.0 s and was killed"
    );
}

#[test]
fn msat_bmc_needs_nuxmv() {
    let Some(nusmv) = nusmv() else { return };
    let err = nusmv
        .check_str(COUNTER, Engine::MsatBmc { bound: 3 })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "the MathSAT BMC up to bound 3 engine needs nuXmv, not NuSMV"
    );
}

// ---- stand-ins: no NuSMV needed ------------------------------------------

/// An executable shell script in a temporary directory.
fn script(body: &str) -> (tempfile::TempDir, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fake-checker");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, path)
}

#[test]
fn a_missing_binary_is_not_found() {
    let err = Checker::locate(Tool::NuSmv, Some(Path::new("/no/such/NuSMV"))).unwrap_err();
    assert!(
        matches!(
            err,
            CheckerError::NotFound {
                tool: Tool::NuSmv,
                ..
            }
        ),
        "{err:?}"
    );
    if std::env::var_os("NUXMV").is_none() && which::which("nuXmv").is_err() {
        let err = Checker::locate(Tool::NuXmv, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "nuXmv not found: no `nuXmv` on PATH and NUXMV is not set"
        );
    }
}

#[test]
fn output_that_is_not_nusmv_is_a_parse_error() {
    let (_dir, fake) = script("echo 'Segmentation fault? no: just some other program'");
    let checker = Checker::locate(Tool::NuSmv, Some(&fake)).unwrap();
    match checker.check_str(COUNTER, Engine::Bdd) {
        Err(CheckerError::Parse { source, stdout, .. }) => {
            assert_eq!((source.line, source.column), (1, 1));
            assert!(stdout.contains("other program"));
        }
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn a_child_that_never_ends_is_killed() {
    let (_dir, fake) = script("exec sleep 600");
    let checker = Checker::locate(Tool::NuXmv, Some(&fake))
        .unwrap()
        .with_timeout(Some(Duration::from_millis(200)));
    let err = checker.check_str(COUNTER, Engine::Bdd).unwrap_err();
    assert!(
        matches!(
            err,
            CheckerError::Timeout {
                tool: Tool::NuXmv,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn the_engine_decides_the_command_line() {
    let (_dir, fake) = script("printf '%s\\n' \"$@\" >&2; exit 3");
    let checker = Checker::locate(Tool::NuSmv, Some(&fake)).unwrap();
    let err = checker
        .check_str(COUNTER, Engine::Bmc { bound: 4 })
        .unwrap_err();
    match err {
        CheckerError::Exit { status, stderr, .. } => {
            assert_eq!(status, "exit status 3");
            assert_eq!(stderr, "-bmc\n-bmc_length\n4\nmodel.smv\n");
        }
        other => panic!("expected an exit error, got {other:?}"),
    }
}
