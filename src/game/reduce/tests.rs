use super::*;
use crate::game::generate;
use crate::game::knowledge::Knowledge;
use crate::game::table::Builtin;

fn spec(name: &str) -> Spec {
    generate::spec(name.parse::<Builtin>().unwrap())
}

fn root(spec: &Spec) -> Vec<Instance> {
    let red = Reducer::new(spec);
    let fixed = Knowledge::new(spec).unwrap().base_fixed().to_vec();
    let mut state = red.state(fixed, &[], None);
    red.phase1(&mut state, 1 << 20).unwrap()
}

fn names(spec: &Spec, exps: &[Instance]) -> Vec<String> {
    exps.iter().map(|e| e.show(spec)).collect()
}

#[test]
fn phase1_gives_one_guess_per_pattern_at_the_root_of_mastermind() {
    let s = spec("mastermind:4x6");
    assert_eq!(
        names(&s, &root(&s)),
        [
            "guess AAAA",
            "guess AAAB",
            "guess AABB",
            "guess AABC",
            "guess ABCD"
        ]
    );
    // Black-peg pegs are read by one mapping each, so colours also swap
    // at one position alone (test E): every first guess is alike.
    let s = spec("black-peg:3x4");
    assert_eq!(names(&s, &root(&s)), ["guess AAA"]);
}

#[test]
fn phase1_gives_one_weighing_per_size_at_the_root_of_coins() {
    for n in [4, 12, 39] {
        let s = spec(&format!("coins:{n}"));
        let exps = root(&s);
        assert_eq!(exps.len(), n / 2, "coins:{n}");
        for (m, e) in exps.iter().enumerate() {
            assert_eq!(e.ty, m);
            let want: Vec<u32> = (0..2 * (m as u32 + 1)).collect();
            assert_eq!(e.params, want);
        }
    }
}
