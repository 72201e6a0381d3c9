//! `game analyze`/`play`/`info` on spec files through the real binary:
//! with symmetry reduction (the default on the spec route) the figures
//! are those of the full explicit table (`--no-reduce`), and the output
//! reports the experiments generated and kept.

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_checkmate"))
        .args(args)
        .output()
        .expect("the checkmate binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn spec_file(game: &str) -> tempfile::NamedTempFile {
    let file = tempfile::NamedTempFile::new().expect("a temporary file");
    std::fs::write(file.path(), run(&["game", "spec", game])).expect("write the spec");
    file
}

#[test]
fn reduced_analysis_of_a_spec_file_matches_the_explicit_table() {
    let f = spec_file("mastermind:3x3");
    let path = f.path().to_str().expect("a UTF-8 path");
    for s in ["max-models", "exp-models", "ent-models", "parts"] {
        let with: serde_json::Value =
            serde_json::from_str(&run(&["game", "analyze", path, "--strategy", s, "--json"]))
                .expect("JSON");
        let without: serde_json::Value = serde_json::from_str(&run(&[
            "game",
            "analyze",
            path,
            "--strategy",
            s,
            "--no-reduce",
            "--json",
        ]))
        .expect("JSON");
        // The symbolic side (model counts through SAT) at every node
        // with more than one code.
        let symbolic: serde_json::Value = serde_json::from_str(&run(&[
            "game",
            "analyze",
            path,
            "--strategy",
            s,
            "--symbolic-above",
            "1",
            "--json",
        ]))
        .expect("JSON");
        for k in ["total", "worst", "histogram", "first"] {
            assert_eq!(with[k], without[k], "{s}: {k}");
            assert_eq!(symbolic[k], without[k], "{s}: {k}, symbolic");
        }
        assert_eq!(
            symbolic["reduction"]["depths"][0]["symbolic_nodes"], 1,
            "{s}"
        );
        // 27 guesses on 27 codes: the table is cheaper than reducing.
        assert_eq!(with["reduction"]["depths"][0]["table_nodes"], 1, "{s}");
        assert!(without.get("reduction").is_none());
    }
}

#[test]
fn coins_spec_file_reports_one_weighing_per_size() {
    let f = spec_file("coins:12");
    let path = f.path().to_str().expect("a UTF-8 path");
    let text = run(&["game", "analyze", path, "--strategy", "max-models"]);
    assert!(text.contains("total      72"), "{text}");
    assert!(text.contains("worst      3"), "{text}");
    assert!(
        text.contains("6 generated (phase 1), 6 distinct, 6 kept (phase 2)"),
        "{text}"
    );
    let info = run(&["game", "info", path]);
    assert!(
        info.contains("at the root: 6 after phase 1, 6 after phase 2"),
        "{info}"
    );
    let play = run(&["game", "play", path, "--secret", "x7,y"]);
    assert!(play.contains("found x7,y in 3 experiments"), "{play}");
    let symbolic = run(&[
        "game",
        "play",
        path,
        "--secret",
        "x7,y",
        "--symbolic-above",
        "1",
    ]);
    let guesses = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.contains(". "))
            .map(|l| l.split("   (").next().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(guesses(&symbolic), guesses(&play), "{symbolic}");
    let analysis = run(&[
        "game",
        "analyze",
        path,
        "--strategy",
        "ent-models",
        "--symbolic-above",
        "1",
    ]);
    assert!(analysis.contains("worst      3"), "{analysis}");
}

/// A built-in game whose native table does not fit the explicit engine
/// (`coins:20`: 40 codes, far too many weighings) is analysed on the spec
/// route with reduction by default, instead of failing; one that fits
/// (`coins:12`) keeps the native route.
#[test]
fn builtin_games_too_big_for_a_table_take_the_reduced_spec_route() {
    let big: serde_json::Value =
        serde_json::from_str(&run(&["game", "analyze", "coins:20", "--json"])).expect("JSON");
    assert!(big.get("reduction").is_some(), "{big}");
    // Dyson: ⌈log3(2·20 + 3)⌉ = 4 weighings, reached by max-models.
    assert_eq!(big["worst"], 4);
    assert_eq!(big["codes"], 40);
    let small: serde_json::Value =
        serde_json::from_str(&run(&["game", "analyze", "coins:12", "--json"])).expect("JSON");
    assert!(small.get("reduction").is_none(), "{small}");
    assert_eq!(small["total"], 72);
}
