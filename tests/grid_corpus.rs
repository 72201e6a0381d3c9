//! The corpus of `models/grid/` against the brute-force solver: files
//! named `*-unsat*` have no solution, all others have one, and the
//! solution the brute force finds passes `grid::check`. Only puzzles small
//! enough for a naive search are searched.

mod common;

use checkmate::grid::check;

#[test]
fn corpus_labels_match_brute_force() {
    let mut searched = 0;
    for file in common::corpus("grid") {
        let (name, puzzle) = common::load(&file);
        if puzzle.open_count() > 40 {
            continue;
        }
        let (count, first) = common::brute_force(&puzzle, 1);
        let unsat = name.contains("-unsat");
        assert_eq!(count == 0, unsat, "{name}: brute force found {count}");
        if let Some(sol) = first {
            assert_eq!(check(&puzzle, &sol), Ok(()), "{name}");
        }
        searched += 1;
    }
    assert!(searched >= 10, "only {searched} puzzles searched");
}
