use super::*;

const COINS4: &str = "\
# counterfeit coin, 4 coins
VARIABLES y, x1, x2, x3, x4
CONSTRAINT Exactly-1(x1, x2, x3, x4)
ALPHABET '1', '2', '3', '4'
MAPPING X x1, x2, x3, x4
EXPERIMENT 'weighing2' 4
  PARAMS_DISTINCT 1, 2, 3, 4
  PARAMS_SORTED 1, 2
  PARAMS_SORTED 3, 4
  OUTCOME 'lighter' ((X$1 | X$2) & !y) | ((X$3 | X$4) & y)
  OUTCOME 'heavier' ((X$1 | X$2) & y) | ((X$3 | X$4) & !y)
  OUTCOME 'same' !(X$1 | X$2 | X$3 | X$4)
";

#[test]
fn parses_the_design_example() {
    let spec = parse(COINS4).unwrap();
    assert_eq!(spec.header, vec!["counterfeit coin, 4 coins"]);
    assert_eq!(spec.vars.len(), 5);
    assert_eq!(spec.alphabet.len(), 4);
    let e = &spec.experiments[0];
    assert_eq!((e.name.as_str(), e.arity), ("weighing2", 4));
    assert_eq!(e.distinct, vec![vec![0, 1, 2, 3]]);
    assert_eq!(e.sorted, vec![vec![0, 1], vec![2, 3]]);
    assert_eq!(e.outcomes.len(), 3);
    assert!(e.outcomes.iter().all(|o| o.declared_final));
    // Three declared final outcomes: none ends the play.
    assert!(!e.is_final(0));
    // Coin 3 light: weighing 1,2 against 3,4 makes the left pan heavier.
    let code = [false, false, false, true, false];
    let out: Vec<bool> = e
        .outcomes
        .iter()
        .map(|o| o.formula.eval(&spec, &[0, 1, 2, 3], &code))
        .collect();
    assert_eq!(out, vec![false, true, false]);
}

#[test]
fn printing_round_trips() {
    let spec = parse(COINS4).unwrap();
    let again = parse(&spec.to_string()).unwrap();
    assert_eq!(spec, again);
}

fn one(text: &str) -> (Spec, Formula) {
    let src =
        format!("VARIABLES a, b, c, d, e\nCONSTRAINT {text}\nEXPERIMENT 'x' 0\nOUTCOME 'o' TRUE\n");
    let spec = parse(&src).unwrap();
    let f = spec.constraints[0].clone();
    (spec, f)
}

#[test]
fn precedence_follows_cobra() {
    let (spec, f) = one("!a & b | c -> d <-> e");
    assert_eq!(spec.show(&f).to_string(), "(!a & b) | c -> d <-> e");
    let (_, g) = one("(((!a & b) | c) -> d) <-> e");
    assert_eq!(f, g);
    // -> is right-associative, <- left-associative and binds tighter.
    let (_, f) = one("a -> b -> c");
    let (_, g) = one("a -> (b -> c)");
    assert_eq!(f, g);
    let (_, f) = one("a <- b <- c");
    let (_, g) = one("c -> (b -> a)");
    assert_eq!(f, g);
    let (_, f) = one("a -> b <- c");
    let (_, g) = one("a -> (c -> b)");
    assert_eq!(f, g);
}

#[test]
fn cardinality_and_constants() {
    let (spec, f) = one("AtLeast-2(a, b & c, !d) | AtMost-0() | Exactly-1(TRUE, e)");
    let code = [true, true, true, false, false];
    assert!(f.eval(&spec, &[], &code));
    let (_, g) = one("Exactly-1(a, b)");
    assert!(!g.eval(&spec, &[], &code));
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn errors_name_line_and_column() {
    insta::assert_snapshot!(err("VARIABLES a, b\nCONSTRAINT a & \n"), @"3:1: expected a formula, found end of input");
    insta::assert_snapshot!(err("VARIABLES a\nCONSTRAINT a & z\n"), @"2:16: unknown variable `z`");
    insta::assert_snapshot!(err("VARIABLES a\nCONSTRAINT (a\n"), @"3:1: expected `)`, found end of input");
    insta::assert_snapshot!(err("VARIABLES a\nFOO a\n"), @"2:1: expected a statement keyword, found `FOO`");
    insta::assert_snapshot!(err("VARIABLES a\nALPHABET 'p', 'q'\nMAPPING M a\n"), @"3:9: mapping `M` has 1 variables, but the alphabet has 2 symbols");
    insta::assert_snapshot!(err("VARIABLES a\nALPHABET 'p'\nMAPPING M a\nCONSTRAINT M$1\n"), @"4:12: `M$1`: parameters are not allowed in a CONSTRAINT");
    insta::assert_snapshot!(err("VARIABLES a\nALPHABET 'p'\nMAPPING M a\nEXPERIMENT 'e' 1\n OUTCOME 'o' M$2\n"), @"5:14: `M$2`: parameter 2 is not in 1..1");
    insta::assert_snapshot!(err("VARIABLES a, a\n"), @"1:14: variable `a` is declared twice");
    insta::assert_snapshot!(err("VARIABLES a\nALPHABET 'p\n"), @"2:12: expected a closing quote, found end of input");
    insta::assert_snapshot!(err("VARIABLES a\nCONSTRAINT AtLeast-x(a)\n"), @"2:20: expected a number after `-`, found `x(a)`");
    insta::assert_snapshot!(err("VARIABLES a\n"), @"2:1: the game declares no EXPERIMENT");
    insta::assert_snapshot!(err("VARIABLES a\nPARAMS_SORTED 1\n"), @"2:1: PARAMS_DISTINCT and PARAMS_SORTED must follow an EXPERIMENT");
}

mod roundtrip {
    use super::*;
    use proptest::prelude::*;

    fn arb_formula() -> impl Strategy<Value = Formula> {
        let leaf = prop_oneof![
            (0u32..4).prop_map(|v| Formula::Var(VarIdx(v))),
            (0u32..2).prop_map(|p| Formula::Map {
                map: MapIdx(0),
                param: p
            }),
            any::<bool>().prop_map(Formula::Const),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                inner.clone().prop_map(Formula::negate),
                prop::collection::vec(inner.clone(), 2..4).prop_map(Formula::And),
                prop::collection::vec(inner.clone(), 2..4).prop_map(Formula::Or),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Formula::implies(a, b)),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Formula::iff(a, b)),
                (0u32..3, prop::collection::vec(inner, 0..4))
                    .prop_map(|(k, xs)| { Formula::card(CardKind::Exactly, k, xs) }),
            ]
        })
    }

    proptest! {
        #[test]
        fn print_then_parse_is_identity(f in arb_formula()) {
            let mut spec = parse("VARIABLES a, b, c, d\nALPHABET 'p', 'q'\nMAPPING M a, b\nEXPERIMENT 'e' 2\nOUTCOME 'o' TRUE\n").unwrap();
            spec.experiments[0].outcomes[0].formula = f;
            let again = parse(&spec.to_string()).unwrap();
            prop_assert_eq!(spec, again);
        }
    }
}
