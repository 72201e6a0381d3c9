//! Snapshot of every emitted model of `models/grid/` in both dialects.
//!
//! Regenerate deliberately with `INSTA_UPDATE=always cargo test --test
//! smv_snapshots`, review the `.snap` diffs, commit them.

use std::fs;
use std::path::Path;

use checkmate::grid::{compile, parse};
use checkmate::smv::{emit, Dialect, EmitOptions};

#[test]
fn every_grid_model_in_both_dialects() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/grid");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("models/grid exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no puzzles in {}", dir.display());
    for file in files {
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(&file).unwrap();
        let puzzle = parse(&text).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let sys = compile(&puzzle);
        for dialect in [Dialect::Nusmv, Dialect::Nuxmv] {
            let opts = EmitOptions {
                dialect,
                title: puzzle.title(),
                file_name: format!("{stem}.smv"),
                ..EmitOptions::default()
            };
            let model = emit(&sys, &opts).unwrap_or_else(|e| panic!("{stem}: {e}"));
            insta::assert_snapshot!(format!("{stem}.{}", dialect.name()), model);
        }
    }
}
