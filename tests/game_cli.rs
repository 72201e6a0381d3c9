//! `checkmate game …` and `checkmate smv GAME --history H` through the real
//! binary: specs that read back, analyses with the reference numbers,
//! plays, deductions through the SAT, BMC and NuSMV engines, SMV models
//! (snapshots, and solved by real NuSMV when it is installed), exit code 2
//! for bad input with line:column.

mod common;
use common::nusmv;

use std::path::Path;
use std::process::{Command, Output};

/// Runs the binary in the crate's directory (so relative model paths,
/// which end up in headers, are the same everywhere).
fn checkmate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_checkmate"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("the checkmate binary runs")
}

fn stdout(args: &[&str]) -> String {
    let out = checkmate(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&stdout(args)).expect("JSON on stdout")
}

fn model(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("models/games")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_built_in_spec_reads_back_and_is_well_formed() {
    let spec = stdout(&["game", "spec", "mastermind:3x3"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mm33.game");
    std::fs::write(&path, &spec).unwrap();
    let info = json(&["game", "info", path.to_str().unwrap(), "--json"]);
    assert_eq!(info["codes"]["count"], 27);
    assert_eq!(info["codes"]["exhaustive"], true);
    assert_eq!(info["experiments"][0]["count"], 27);
    assert_eq!(info["well_formed"], true);
    // The same analysis through the file (spec route) and the name
    // (native route).
    let file = json(&[
        "game",
        "analyze",
        path.to_str().unwrap(),
        "--strategy",
        "parts",
        "--json",
    ]);
    let name = json(&[
        "game",
        "analyze",
        "mastermind:3x3",
        "--strategy",
        "parts",
        "--json",
    ]);
    assert_eq!(file["total"], 73);
    assert_eq!(name["total"], 73);
    assert_eq!(file["histogram"], name["histogram"]);
}

#[test]
fn analysis_json_has_the_reference_numbers() {
    let v = json(&[
        "game",
        "analyze",
        "mastermind:4x6",
        "--strategy",
        "max-models",
        "--json",
    ]);
    assert_eq!(v["game"], "mastermind:4x6");
    assert_eq!(v["strategy"], "max-models");
    assert_eq!(v["ties"], "possible-first");
    assert_eq!(v["codes"], 1296);
    assert_eq!(v["total"], 5801);
    assert_eq!(v["worst"], 5);
    assert_eq!(v["first"], "guess AABB");
    assert_eq!(v["histogram"], serde_json::json!([0, 1, 6, 62, 533, 694]));
    let v = json(&[
        "game",
        "analyze",
        "mastermind:4x6",
        "--strategy",
        "exp-models",
        "--ties",
        "lexicographic",
        "--json",
    ]);
    assert_eq!(
        (v["total"].as_u64(), v["ties"].as_str()),
        (Some(5996), Some("lexicographic"))
    );
    let v = json(&[
        "game",
        "analyze",
        "coins:12",
        "--strategy",
        "max-models",
        "--json",
    ]);
    assert_eq!(
        (
            v["codes"].as_u64(),
            v["total"].as_u64(),
            v["worst"].as_u64()
        ),
        (Some(24), Some(72), Some(3))
    );
}

#[test]
fn a_play_ends_with_the_secret() {
    let v = json(&[
        "game",
        "play",
        "mastermind:4x6",
        "--secret",
        "ABCD",
        "--strategy",
        "parts",
        "--json",
    ]);
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps[0]["experiment"], "guess AABC");
    let last = steps.last().unwrap();
    assert_eq!(last["experiment"], "guess ABCD");
    assert_eq!(last["outcome"], "4b0w");
    assert_eq!(v["experiments"], steps.len());
    let text = stdout(&["game", "play", "coins:12", "--secret", "7l"]);
    assert!(text.contains("found 7l in 3 experiments"), "{text}");
}

#[test]
fn deduction_agrees_across_engines() {
    let h = model("mastermind-4x6.history");
    let sat = json(&[
        "game",
        "deduce",
        "mastermind:4x6",
        &h,
        "--json",
        "--limit",
        "100",
    ]);
    let bmc = json(&[
        "game",
        "deduce",
        "mastermind:4x6",
        &h,
        "--json",
        "--limit",
        "100",
        "--engine",
        "bmc",
    ]);
    assert_eq!(sat["count"], 24);
    assert_eq!(sat["exhaustive"], true);
    assert_eq!(sat, bmc);
    if nusmv().is_some() {
        let one = json(&[
            "game",
            "deduce",
            "mastermind:4x6",
            &h,
            "--json",
            "--engine",
            "nusmv",
        ]);
        let code = one["codes"][0].as_str().unwrap().to_string();
        assert!(sat["codes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == code.as_str()));
    }
}

#[test]
fn deduction_on_a_game_too_big_to_enumerate() {
    let v = json(&[
        "game",
        "deduce",
        "mastermind:8x8",
        &model("mastermind-8x8.history"),
        "--json",
        "--limit",
        "3",
    ]);
    // Checked against brute force over all 16.7 million codes in
    // `game::deduce` (an ignored test: slow in debug builds).
    assert_eq!(v["count"], 1726);
    assert_eq!(v["exhaustive"], true);
    assert_eq!(
        v["codes"],
        serde_json::json!(["BAAECHFG", "BAAGHCEF", "BABGDHEF"])
    );
}

#[test]
fn the_smv_model_of_a_deduction_puzzle() {
    let text = stdout(&[
        "smv",
        "mastermind:3x3",
        "--history",
        "models/games/mastermind-3x3.history",
    ]);
    insta::assert_snapshot!("mastermind_3x3_deduction_smv", text);
    let Some(checker) = nusmv() else {
        return;
    };
    let run = checker
        .check_str(&text, checkmate::checker::Engine::Bdd)
        .unwrap();
    let trace = run
        .output
        .first_counterexample()
        .expect("NuSMV finds a code");
    let state = &trace.states[0];
    // The history leaves CAA, ACA and AAC: exactly one C, no B.
    let c: usize = ["x1C", "x2C", "x3C"]
        .iter()
        .filter(|v| state[**v] == "TRUE")
        .count();
    let b: usize = ["x1B", "x2B", "x3B"]
        .iter()
        .filter(|v| state[**v] == "TRUE")
        .count();
    assert_eq!((c, b), (1, 0));
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let out = checkmate(&["game", "analyze", "chess:8x8"]);
    assert_eq!(out.status.code(), Some(2));
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("h.txt");
    std::fs::write(&h, "guess AABB => 1b1w\nguess AAXB => 0b0w\n").unwrap();
    let out = checkmate(&["game", "deduce", "mastermind:4x6", h.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("h.txt:2:9: `X` is not a symbol of the alphabet"),
        "{err}"
    );
    let spec = dir.path().join("bad.game");
    std::fs::write(&spec, "VARIABLES a\nCONSTRAINT a &\n").unwrap();
    let out = checkmate(&["game", "info", spec.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.game:3:1: expected a formula"), "{err}");
    let out = checkmate(&["game", "play", "mastermind:3x3", "--secret", "ABCD"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_spec_file_with_its_own_names() {
    let g = model("coins4.game");
    let v = json(&["game", "analyze", &g, "--strategy", "max-models", "--json"]);
    assert_eq!(
        (v["codes"].as_u64(), v["worst"].as_u64()),
        (Some(8), Some(3))
    );
    let dir = tempfile::tempdir().unwrap();
    let h = dir.path().join("h.txt");
    std::fs::write(&h, "weighing1 1 2 => same\nweighing1 1 3 => heavier\n").unwrap();
    let v = json(&["game", "deduce", &g, h.to_str().unwrap(), "--json"]);
    // Coins 1 and 2 are genuine, so coin 3 is light.
    assert_eq!(v["codes"], serde_json::json!(["x3"]));
}
