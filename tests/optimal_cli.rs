//! `checkmate game optimal` through the real binary: JSON summary, tree
//! files that replay, forced first moves, and exit code 2 for bad input.

use std::process::Command;

fn checkmate(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_checkmate"))
        .args(args)
        .output()
        .expect("the checkmate binary runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = checkmate(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn json_summary_of_a_small_game() {
    let v = json(&["game", "optimal", "mastermind:3x3", "--json"]);
    assert_eq!(v["game"], "mastermind:3x3");
    assert_eq!(v["objective"], "total");
    assert_eq!(v["total"], 73);
    assert_eq!(
        v["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum::<u64>(),
        27
    );
    assert!(v["first"].as_str().unwrap().starts_with("guess "));
    assert!(v["nodes"].as_u64().is_some());
    assert!(v["time"].as_f64().is_some());
    let avg = v["average"].as_f64().unwrap();
    assert!((avg - 73.0 / 27.0).abs() < 1e-9);
}

#[test]
fn worst_case_and_depth_limit() {
    let v = json(&[
        "game",
        "optimal",
        "coins:12",
        "--objective",
        "worst",
        "--json",
    ]);
    assert_eq!(v["worst"], 3);
    let v = json(&[
        "game",
        "optimal",
        "mastermind:3x4",
        "--max-depth",
        "4",
        "--json",
    ]);
    assert!(v["worst"].as_u64().unwrap() <= 4);
    let out = checkmate(&["game", "optimal", "mastermind:3x4", "--max-depth", "2"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("within 2 experiments"));
}

#[test]
fn trees_are_written_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree.json");
    let dot = dir.path().join("tree.dot");
    let v = json(&[
        "game",
        "optimal",
        "mastermind:2x4",
        "--json",
        "--tree",
        tree.to_str().unwrap(),
        "--dot",
        dot.to_str().unwrap(),
    ]);
    let table = "mastermind:2x4"
        .parse::<checkmate::game::table::Builtin>()
        .unwrap()
        .table();
    let text = std::fs::read_to_string(&tree).unwrap();
    let (_, analysis) = checkmate::game::tree_io::replay_json(&table, &text).unwrap();
    assert_eq!(v["total"], analysis.total);
    assert_eq!(analysis.total, 45);
    let dot = std::fs::read_to_string(&dot).unwrap();
    assert!(dot.starts_with("digraph strategy {"));
    // No temporary files are left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn forced_first_guess() {
    let v = json(&[
        "game",
        "optimal",
        "mastermind:3x3",
        "--first",
        "AAA",
        "--json",
    ]);
    assert_eq!(v["first"], "guess AAA");
    assert!(v["total"].as_u64().unwrap() >= 73);
    let v2 = json(&[
        "game",
        "optimal",
        "mastermind:3x3",
        "--first",
        "guess AAA",
        "--json",
    ]);
    assert_eq!(v["total"], v2["total"]);
}

#[test]
fn bad_input_exits_with_2() {
    for args in [
        &["game", "optimal", "chess:8x8"][..],
        &["game", "optimal", "mastermind:3x3", "--first", "ZZZ"],
        &["game", "optimal", "mastermind:3x3", "--objective", "best"],
    ] {
        let out = checkmate(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn unwritable_tree_path_is_an_error() {
    let out = checkmate(&[
        "game",
        "optimal",
        "mastermind:2x2",
        "--tree",
        "/nonexistent-dir/tree.json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent-dir"));
}

/// A spec file (here the generated spec of a built-in game) goes through
/// the SAT route and gives the same optimum as the native table.
#[test]
fn spec_files_give_the_native_values() {
    let dir = tempfile::tempdir().unwrap();
    for (game, objective, key) in [
        ("mastermind:2x3", "total", "total"),
        ("coins:4", "worst", "worst"),
    ] {
        let spec = checkmate(&["game", "spec", game]);
        assert!(spec.status.success());
        let path = dir.path().join(format!("{}.game", game.replace(':', "_")));
        std::fs::write(&path, &spec.stdout).unwrap();
        let native = json(&["game", "optimal", game, "--objective", objective, "--json"]);
        let from_spec = json(&[
            "game",
            "optimal",
            path.to_str().unwrap(),
            "--objective",
            objective,
            "--json",
        ]);
        assert_eq!(native[key], from_spec[key], "{game}");
    }
}

/// Spec files written with `checkmate game spec NAME`: with the spec
/// symmetry (the default) and with `--no-reduce`, the optimum is the
/// native one; the report says which symmetry ran and what it kept.
#[test]
fn spec_reduction_and_no_reduce_agree_with_the_native_values() {
    let dir = tempfile::tempdir().unwrap();
    for (game, objective, key, root_kept) in [
        ("mastermind:3x3", "total", "total", 3),
        ("black-peg:3x3", "worst", "worst", 1),
        ("coins:5", "worst", "worst", 2),
    ] {
        let spec = checkmate(&["game", "spec", game]);
        assert!(spec.status.success());
        let path = dir.path().join(format!("{}.game", game.replace(':', "_")));
        std::fs::write(&path, &spec.stdout).unwrap();
        let path = path.to_str().unwrap();
        let native = json(&["game", "optimal", game, "--objective", objective, "--json"]);
        assert_eq!(native["reduction"]["symmetry"], "native");
        let reduced = json(&["game", "optimal", path, "--objective", objective, "--json"]);
        let plain = json(&[
            "game",
            "optimal",
            path,
            "--objective",
            objective,
            "--no-reduce",
            "--json",
        ]);
        assert_eq!(native[key], reduced[key], "{game}");
        assert_eq!(native[key], plain[key], "{game}");
        let (r, p) = (&reduced["reduction"], &plain["reduction"]);
        assert_eq!(r["symmetry"], "spec-phase1", "{game}");
        assert_eq!(r["root"]["kept"], root_kept, "{game}");
        // The worst case asks the root once per depth it tries.
        let d0 = &r["depths"][0];
        assert_eq!(d0["kept"], root_kept * d0["nodes"].as_u64().unwrap());
        assert_eq!(p["symmetry"], "none");
        assert_eq!(p["root"]["kept"], p["root"]["experiments"]);
        assert!(p["depths"].as_array().unwrap().is_empty());
    }
    // The human report names the symmetry and the root's counts.
    let out = checkmate(&["game", "optimal", "mastermind:3x3"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("symmetry native"), "{text}");
    assert!(
        text.contains("experiments at the root: 27 in all, 3 kept"),
        "{text}"
    );
}
