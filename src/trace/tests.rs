//! Malformed input (table-driven, with a snapshot of the messages) and
//! proptest round trips through both renderers.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use proptest::prelude::*;

use super::*;

const SPEC: &str =
    "-- specification  G p  is false\n-- as demonstrated by the following execution sequence\n";

fn kind_name(kind: &TraceErrorKind) -> &'static str {
    match kind {
        TraceErrorKind::Expected { .. } => "Expected",
        TraceErrorKind::UnexpectedEnd { .. } => "UnexpectedEnd",
        TraceErrorKind::UnterminatedLine => "UnterminatedLine",
        TraceErrorKind::Empty => "Empty",
        TraceErrorKind::OutOfOrder { .. } => "OutOfOrder",
        TraceErrorKind::NewVariable { .. } => "NewVariable",
        TraceErrorKind::Duplicate { .. } => "Duplicate",
        TraceErrorKind::EmptyValue { .. } => "EmptyValue",
        TraceErrorKind::DanglingLoop => "DanglingLoop",
        TraceErrorKind::DanglingInput { .. } => "DanglingInput",
        TraceErrorKind::BadLoop { .. } => "BadLoop",
    }
}

/// (name, input, line, column, error kind). Inputs after `SPEC` start on line 3.
fn malformed_text() -> Vec<(&'static str, String, usize, usize, &'static str)> {
    let t = |body: &str| format!("{SPEC}{body}");
    vec![
        ("empty", String::new(), 1, 1, "Empty"),
        ("no final line break", "  x = 1".into(), 1, 8, "UnterminatedLine"),
        ("foreign text", "hello world\n".into(), 1, 1, "Expected"),
        ("binary garbage", "\u{0}\u{1}\u{2}\n".into(), 1, 1, "Expected"),
        ("unknown dash line", "-- bogus line\n".into(), 1, 1, "Expected"),
        ("verdict neither true nor false", "-- specification G p is maybe\n".into(), 1, 21, "Expected"),
        ("spec without text", "-- specification  is true\n".into(), 1, 18, "Expected"),
        ("demonstrated without a result", "-- as demonstrated by the following execution sequence\n".into(), 1, 1, "Expected"),
        ("trace without a result", "-> State: 1.1 <-\n  x = 0\n".into(), 1, 1, "Expected"),
        ("truncated after demonstrated", SPEC.into(), 3, 1, "UnexpectedEnd"),
        ("truncated after description", t("Trace Description: LTL Counterexample \n"), 4, 1, "UnexpectedEnd"),
        ("truncated inside a header", t("-> State: 1.1 <-\n  x = 0\n-> State: 1.\n"), 5, 13, "Expected"),
        ("garbled header", t("-> State: 1.x <-\n"), 3, 13, "Expected"),
        ("header with trailing text", t("-> State: 1.1 <- x\n"), 3, 18, "Expected"),
        ("misspelt header", t("-> Stat: 1.1 <-\n"), 3, 4, "Expected"),
        ("skipped state", t("-> State: 1.1 <-\n  x = 0\n-> State: 1.3 <-\n"), 5, 1, "OutOfOrder"),
        ("first state is not 1", t("-> State: 1.2 <-\n  x = 0\n"), 3, 1, "OutOfOrder"),
        ("trace number changes", t("-> State: 1.1 <-\n  x = 0\n-> State: 2.2 <-\n"), 5, 1, "OutOfOrder"),
        ("new variable later", t("-> State: 1.1 <-\n  x = 0\n-> State: 1.2 <-\n  y = 1\n"), 6, 3, "NewVariable"),
        ("variable twice", t("-> State: 1.1 <-\n  x = 0\n  x = 1\n"), 5, 3, "Duplicate"),
        ("empty value", t("-> State: 1.1 <-\n  x = \n"), 4, 3, "EmptyValue"),
        ("assignment without =", t("-> State: 1.1 <-\n  x 1\n"), 4, 5, "Expected"),
        ("value glued to a header", t("-> State: 1.1 <-\n  x = 0-> State: 1.2 <-\n"), 4, 7, "Expected"),
        ("value before any state", t("  x = 0\n"), 3, 3, "Expected"),
        ("loop mark at the end", t("-> State: 1.1 <-\n  x = 0\n-- Loop starts here\n"), 5, 1, "DanglingLoop"),
        ("input at the end", t("-> State: 1.1 <-\n  x = 0\n-> Input: 1.2 <-\n  i = 1\n"), 5, 1, "DanglingInput"),
        ("input before the first state", t("-> Input: 1.1 <-\n"), 3, 1, "Expected"),
        (
            "input missing before a state",
            t("-> State: 1.1 <-\n  x = 0\n-> Input: 1.2 <-\n  i = 1\n-> State: 1.2 <-\n-> State: 1.3 <-\n"),
            8,
            1,
            "Expected",
        ),
        (
            "inputs start late",
            t("-> State: 1.1 <-\n  x = 0\n-> State: 1.2 <-\n-> Input: 1.3 <-\n"),
            6,
            1,
            "Expected",
        ),
        ("input numbered wrong", t("-> State: 1.1 <-\n  x = 0\n-> Input: 1.3 <-\n"), 5, 1, "OutOfOrder"),
        (
            "unterminated warning box",
            "********   WARNING   ********\nsomething odd\n".into(),
            3,
            1,
            "UnexpectedEnd",
        ),
        ("foreign text after a trace", t("-> State: 1.1 <-\n  x = 0\nhello\n"), 5, 1, "Expected"),
    ]
}

fn cut_before(s: &str, pat: &str) -> String {
    s[..s.find(pat).unwrap_or(s.len())].to_string()
}

fn malformed_xml() -> Vec<(&'static str, String, usize, usize, &'static str)> {
    let doc = |nodes: &str| {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<counter-example type=\"0\" desc=\"d\" >\n{nodes}</counter-example>\n")
    };
    let node = |id: u32, x: &str| {
        format!("\t<node>\n\t\t<state id=\"{id}\">\n\t\t\t<value variable=\"x\">{x}</value>\n\t\t</state>\n\t</node>\n")
    };
    vec![
        ("empty", "  \n".into(), 1, 1, "Empty"),
        ("not XML", "<html><body/></html>\n".into(), 1, 1, "Expected"),
        ("no nodes", doc(""), 3, 1, "Expected"),
        ("cut inside a value", cut_before(&doc(&node(1, "0")), "</value>"), 5, 25, "UnexpectedEnd"),
        ("missing </value>", doc(&node(1, "0").replace("</value>", "")), 6, 3, "Expected"),
        ("unknown element", doc(&node(1, "0").replace("<state", "<stat")), 4, 3, "Expected"),
        ("bad id", doc(&node(1, "0").replace("id=\"1\"", "id=\"one\"")), 4, 10, "Expected"),
        ("state out of order", doc(&format!("{}{}", node(1, "0"), node(3, "1"))), 9, 3, "OutOfOrder"),
        ("empty value", doc(&node(1, "")), 5, 4, "EmptyValue"),
        ("bad entity", doc(&node(1, "&nope;")), 5, 24, "Expected"),
        ("loop past the end", doc(&format!("{}\t<loops> 2 </loops>\n", node(1, "0"))), 8, 2, "BadLoop"),
        ("garbled loops", doc(&format!("{}\t<loops> 1, x </loops>\n", node(1, "0"))), 8, 13, "Expected"),
        ("text after the document", format!("{}junk\n", doc(&node(1, "0"))), 9, 1, "Expected"),
        (
            "input after the last state",
            doc(&node(1, "0").replace(
                "\t\t</state>\n",
                "\t\t</state>\n\t\t<input id=\"2\">\n\t\t\t<value variable=\"i\">1</value>\n\t\t</input>\n",
            )),
            7,
            3,
            "DanglingInput",
        ),
    ]
}

#[test]
fn malformed_text_is_an_error_that_says_where() {
    let mut report = String::new();
    for (name, input, line, column, kind) in malformed_text() {
        let err = parse_text(&input).expect_err(name);
        assert_eq!(
            (err.line, err.column, kind_name(&err.kind)),
            (line, column, kind),
            "{name}: {err}"
        );
        let _ = writeln!(report, "{name}: {err}");
    }
    insta::assert_snapshot!(report);
}

#[test]
fn malformed_xml_is_an_error_that_says_where() {
    let mut report = String::new();
    for (name, input, line, column, kind) in malformed_xml() {
        let err = parse_xml(&input).expect_err(name);
        assert_eq!(
            (err.line, err.column, kind_name(&err.kind)),
            (line, column, kind),
            "{name}: {err}"
        );
        let _ = writeln!(report, "{name}: {err}");
    }
    insta::assert_snapshot!(report);
}

#[test]
fn error_rendering_points_at_the_column() {
    let src = format!("{SPEC}-> State: 1.x <-\n");
    let err = parse_text(&src).unwrap_err();
    insta::assert_snapshot!(err.render(&src));
}

#[test]
fn warnings_and_indented_layout_are_read() {
    let src = format!(
        "Warning: something\n********   WARNING   ********\nFair states set is empty.\n******** END WARNING ********\n{SPEC}Trace Type: Counterexample \n  -> State: 1.1 <-\n    warning = 1\n    x = 0\n  -- Loop starts here\n  -> State: 1.2 <-\n    x = 1\n"
    );
    let out = parse_text(&src).unwrap();
    assert_eq!(out.warnings.len(), 2);
    let t = out.first_counterexample().unwrap();
    assert_eq!(t.states[1]["warning"], "1");
    assert_eq!(t.loop_starts, [1]);
}

/// Every cut of a real XML dump short of its closing tag is an error.
#[test]
fn xml_cut_anywhere_is_an_error() {
    let full = include_str!("../../tests/fixtures/nusmv/inputs.trace.xml");
    let close = full.rfind("</counter-example>").unwrap();
    for (cut, _) in full.char_indices().filter(|(i, _)| *i < close) {
        assert!(parse_xml(&full[..cut]).is_err(), "cut at {cut} parsed");
    }
    assert!(parse_xml(full).is_ok());
}

/// Every cut of a real text output in the middle of a line is an error;
/// cuts at line ends either parse or fail, but never panic.
#[test]
fn text_cut_anywhere_never_panics() {
    let full = include_str!("../../tests/fixtures/nusmv/inputs.bdd.out");
    for (cut, _) in full.char_indices() {
        let result = parse_text(&full[..cut]);
        if cut > 0 && !full[..cut].ends_with('\n') {
            assert!(result.is_err(), "cut at {cut} parsed");
        }
    }
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9_]{0,6}",
        "[a-z]{1,4}\\[[0-9]{1,2}\\]",
        "[a-z]{1,3}\\.[a-z]{1,3}",
        Just("warning".to_string()),
        Just("Trace".to_string()),
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("TRUE".to_string()),
        Just("FALSE".to_string()),
        "-?[0-9]{1,3}",
        "[a-z][a-z_]{0,5}",
        "0ud8_[0-9]{1,3}",
    ]
}

/// `n` full maps over `names`, each value drawn from a small pool so that
/// some values change from one state to the next and some do not.
fn blocks(names: BTreeSet<String>, n: usize) -> impl Strategy<Value = Vec<NamedState>> {
    let names: Vec<String> = names.into_iter().collect();
    prop::collection::vec(value(), 3).prop_flat_map(move |pool| {
        let names = names.clone();
        prop::collection::vec(prop::collection::vec(0..pool.len(), names.len()), n).prop_map(
            move |rows| {
                rows.into_iter()
                    .map(|row| {
                        names
                            .iter()
                            .cloned()
                            .zip(row.into_iter().map(|k| pool[k].clone()))
                            .collect()
                    })
                    .collect()
            },
        )
    })
}

fn trace(id: u32) -> impl Strategy<Value = NamedTrace> {
    (
        1usize..7,
        prop::collection::btree_set(name(), 1..5),
        prop::collection::btree_set(name(), 0..3),
        prop::option::of("[A-Z][A-Za-z ]{0,12}[a-z]"),
        prop::collection::btree_set(0usize..7, 0..3),
    )
        .prop_flat_map(move |(n, vars, ivars, description, loops)| {
            let ivars: BTreeSet<String> = ivars.difference(&vars).cloned().collect();
            let n_inputs = if ivars.is_empty() { 0 } else { n - 1 };
            (blocks(vars, n), blocks(ivars, n_inputs)).prop_map(move |(states, inputs)| {
                NamedTrace {
                    id: TraceId(id),
                    description: description.clone(),
                    trace_type: Some("Counterexample".to_string()),
                    states,
                    inputs,
                    loop_starts: loops.iter().copied().filter(|&l| l < n).collect(),
                }
            })
        })
}

fn traces() -> impl Strategy<Value = Vec<NamedTrace>> {
    (1u32..4).prop_flat_map(|k| (1..=k).map(trace).collect::<Vec<_>>())
}

proptest! {
    #[test]
    fn text_round_trip(traces in traces()) {
        let mut src = String::from("*** This is NuSMV 2.5.4 (compiled on a test)\n\n");
        for t in &traces {
            src.push_str(SPEC);
            src.push_str(&t.render_text());
        }
        src.push_str("-- specification  F q  is true\n");
        let out = parse_text(&src).map_err(|e| TestCaseError::fail(e.render(&src)))?;
        let back: Vec<NamedTrace> = out.traces().cloned().collect();
        prop_assert_eq!(back, traces);
        prop_assert_eq!(out.specs.last().map(|s| s.verdict), Some(Verdict::True));
    }

    #[test]
    fn xml_round_trip(traces in traces()) {
        let src: String = traces.iter().map(NamedTrace::render_xml).collect();
        let back = parse_xml(&src).map_err(|e| TestCaseError::fail(e.render(&src)))?;
        prop_assert_eq!(back, traces);
    }

    #[test]
    fn arbitrary_text_never_panics(src in "(-> State: 1\\.[0-9] <-\n|  [a-z] = [0-9]\n|-- Loop starts here\n|-- specification p is false\n|-- as demonstrated by the following execution sequence\n|-> Input: 1\\.[0-9] <-\n|.{0,12}\n){0,12}") {
        let _ = parse_text(&src);
    }

    #[test]
    fn arbitrary_xml_never_panics(src in "(<node>|</node>|<state id=\"[0-9]\">|</state>|<value variable=\"x\">|</value>|[0-9a-z&;<>\" ]{0,4}|<loops>|</loops>|<counter-example>|</counter-example>){0,16}") {
        let _ = parse_xml(&src);
    }
}

#[test]
fn values_and_states_are_located_in_text_output() {
    let out = include_str!("../../tests/fixtures/nusmv/inputs.bdd.out");
    let id = TraceId(1);
    // `pos` of state 1.3 was printed there; `at_end` last at 1.1.
    assert_eq!(locate(out, id, 2, Some("pos")), Some((31, 9)));
    assert_eq!(locate(out, id, 2, Some("at_end")), Some((22, 12)));
    // An input named like a variable is not a state's value, and a name
    // no state prints points at the state's header.
    assert_eq!(locate(out, id, 1, Some("dir")), Some((27, 1)));
    assert_eq!(locate(out, id, 4, None), Some((38, 1)));
    assert_eq!(locate(out, id, 99, Some("pos")), None);
    assert_eq!(locate(out, TraceId(2), 0, Some("pos")), None);
}

#[test]
fn values_and_states_are_located_in_xml_dumps() {
    let xml = include_str!("../../tests/fixtures/nusmv/lasso.trace.xml");
    assert_eq!(locate(xml, TraceId(1), 2, Some("c")), Some((18, 24)));
    assert_eq!(locate(xml, TraceId(1), 3, Some("q")), Some((22, 3)));
    assert_eq!(locate(xml, TraceId(1), 4, Some("c")), None);
    // Everything on one line, and a second document.
    let flat = xml.replace(['\n', '\t'], "");
    let two = format!("{flat}\n{flat}\n");
    let (_, column) = locate(&two, TraceId(2), 1, Some("c")).unwrap();
    assert_eq!(&flat[column - 1..column], "1");
    assert_eq!(locate(&two, TraceId(2), 1, Some("c")).unwrap().0, 2);
}
