//! The trace parsers on real NuSMV 2.5.4 output.
//!
//! `tests/fixtures/nusmv/` holds the reference outputs from
//! `../shared/reference/nusmv-2.5.4/` (waypoint-3x4.*) and outputs recorded
//! with `tests/fixtures/nusmv/record.sh` from the small `.smv` models there.
//! Text and XML dumps of the same run must give the same traces.

use std::path::PathBuf;

use checkmate::ir::{Domain, Expr, System, Value};
use checkmate::trace::{
    detect_format, parse_text, parse_traces, parse_xml, CheckerOutput, Format, NamedTrace,
    PropertyKind, TraceId, Verdict,
};

fn fixture(name: &str) -> String {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests",
        "fixtures",
        "nusmv",
        name,
    ]
    .iter()
    .collect();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn text(name: &str) -> CheckerOutput {
    let src = fixture(name);
    parse_text(&src).unwrap_or_else(|e| panic!("{name}:\n{}", e.render(&src)))
}

fn xml(name: &str) -> Vec<NamedTrace> {
    let src = fixture(name);
    parse_xml(&src).unwrap_or_else(|e| panic!("{name}:\n{}", e.render(&src)))
}

/// Splits the stdout of a `-source` run into its text part and its XML part.
fn split_mixed(name: &str) -> (CheckerOutput, Vec<NamedTrace>) {
    let src = fixture(name);
    let at = src.find("<?xml").expect("mixed output has XML");
    let out = parse_text(&src[..at]).unwrap_or_else(|e| panic!("{name}: {e}"));
    let traces = parse_xml(&src[at..]).unwrap_or_else(|e| panic!("{name}: {e}"));
    (out, traces)
}

fn values(trace: &NamedTrace, var: &str) -> Vec<String> {
    trace.states.iter().map(|s| s[var].clone()).collect()
}

fn only_trace(out: &CheckerOutput) -> &NamedTrace {
    assert_eq!(out.traces().count(), 1, "{out:#?}");
    out.first_counterexample().expect("a counterexample")
}

#[test]
fn reference_bdd_run_carries_values_forward_and_keeps_both_loop_marks() {
    let out = text("waypoint-3x4.bdd.out");
    assert_eq!(out.tool.as_deref(), Some("NuSMV 2.5.4"));
    assert_eq!(out.specs.len(), 1);
    let spec = &out.specs[0];
    assert_eq!(spec.spec.as_deref(), Some("!( F goal_state)"));
    assert_eq!(spec.verdict, Verdict::False);
    assert_eq!(spec.line, 16);
    let t = only_trace(&out);
    assert_eq!(t.id, TraceId(1));
    assert_eq!(t.description.as_deref(), Some("LTL Counterexample"));
    assert_eq!(t.trace_type.as_deref(), Some("Counterexample"));
    assert_eq!(t.states.len(), 14);
    assert!(
        t.states.iter().all(|s| s.len() == 15),
        "every state is full"
    );
    assert_eq!(
        values(t, "index"),
        ["3", "7", "11", "10", "9", "8", "4", "0", "1", "2", "6", "5", "5", "5"]
    );
    assert_eq!(t.states[0]["plates[3]"], "1");
    assert_eq!(t.states[5]["plates[7]"], "1", "carried from state 2");
    assert_eq!(t.loop_starts, [11, 12]);
    assert_eq!(t.loop_start(), Some(11));
    assert_eq!(
        t.states[13], t.states[11],
        "the last state repeats the loop start"
    );
    assert!(t.inputs.is_empty());
}

#[test]
fn reference_bmc_run_absorbs_bound_lines_and_keeps_the_warning() {
    let out = text("waypoint-3x4.bmc.out");
    assert_eq!(out.warnings.len(), 1);
    assert!(out.warnings[0].contains("array subscripting out of bounds"));
    assert_eq!(
        out.specs.len(),
        1,
        "the bound lines belong to the false spec"
    );
    assert_eq!(out.specs[0].verdict, Verdict::False);
    assert_eq!(out.specs[0].line, 18, "first bound line");
    let t = only_trace(&out);
    assert_eq!(t.description.as_deref(), Some("BMC Counterexample"));
    assert_eq!(t.states.len(), 12);
    assert_eq!(t.states[11]["goal_state"], "TRUE");
    assert!(t.loop_starts.is_empty());
}

#[test]
fn reference_text_and_xml_agree() {
    for run in ["bdd", "bmc"] {
        let from_text = only_trace(&text(&format!("waypoint-3x4.{run}.out"))).clone();
        let from_xml = xml(&format!("waypoint-3x4.{run}.trace.xml"));
        assert_eq!(from_xml, vec![from_text], "{run}");
    }
}

#[test]
fn defines_are_kept_and_ignored_by_the_ir() {
    let out = text("counter.bdd.out");
    let t = only_trace(&out);
    assert_eq!(out.specs[0].spec.as_deref(), Some("G x != 2"));
    assert_eq!(values(t, "x"), ["0", "1", "2", "3", "0"]);
    assert_eq!(
        values(t, "big"),
        ["FALSE", "FALSE", "TRUE", "TRUE", "FALSE"]
    );
    assert_eq!(t.loop_starts, [0]);

    // The same model as an IR system: the BMC counterexample is a solution
    // of "reach x = 2", and the DEFINE `big` is ignored.
    let mut sys = System::default();
    let x = sys.add_var("x", Domain::Range { lo: 0, hi: 3 }, false);
    sys.init_assign.push(checkmate::ir::Assign {
        var: x,
        value: Expr::int(0),
    });
    let wrap = Expr::ite(
        Expr::eq(Expr::var(x), Expr::int(3)),
        Expr::int(0),
        Expr::Add(vec![Expr::var(x), Expr::int(1)]),
    );
    sys.next_assign.push(checkmate::ir::Assign {
        var: x,
        value: wrap,
    });
    sys.goal = Expr::eq(Expr::var(x), Expr::int(2));
    let bmc = text("counter.bmc.out");
    let ir = only_trace(&bmc).to_ir(&sys).expect("converts");
    assert_eq!(
        ir.states,
        [[Value::Int(0)], [Value::Int(1)], [Value::Int(2)]]
    );
    sys.check(&ir)
        .expect("NuSMV's counterexample is a solution");
}

#[test]
fn invariants_bdd_and_failed_induction_under_bmc() {
    let out = text("invar.bdd.out");
    assert_eq!(out.specs.len(), 2);
    assert_eq!(out.specs[0].kind, PropertyKind::Invariant);
    assert_eq!(
        out.specs[0].spec.as_deref(),
        Some("!(light = amber & n = 5)")
    );
    assert_eq!(out.specs[0].verdict, Verdict::False);
    let t = out.specs[0].trace.as_ref().unwrap();
    assert_eq!(t.description.as_deref(), Some("AG alpha Counterexample"));
    assert_eq!(values(t, "light")[5], "amber");
    assert_eq!(values(t, "n"), ["0", "1", "2", "3", "4", "5"]);
    assert_eq!(out.specs[1].verdict, Verdict::True);
    assert!(out.specs[1].trace.is_none());

    let out = text("invar.bmc.out");
    assert_eq!(out.specs[0].verdict, Verdict::InductionFailed);
    assert!(
        out.first_counterexample().is_none(),
        "an induction trace is no counterexample"
    );
    let t = out.specs[0].trace.as_ref().unwrap();
    assert_eq!(t.description.as_deref(), Some("BMC Failed Induction"));
    assert_eq!(values(t, "n"), ["4", "5"]);
    assert_eq!(out.specs[1].verdict, Verdict::True);
    assert_eq!(out.specs[1].spec.as_deref(), Some("n <= 7"));
}

#[test]
fn several_specs_number_their_traces_in_order() {
    let out = text("two_specs.bdd.out");
    let verdicts: Vec<_> = out.specs.iter().map(|s| s.verdict).collect();
    assert_eq!(verdicts, [Verdict::False, Verdict::True, Verdict::False]);
    let ids: Vec<_> = out.traces().map(|t| t.id).collect();
    assert_eq!(ids, [TraceId(1), TraceId(2)]);
    assert_eq!(out.specs[2].spec.as_deref(), Some("G !(a & b = 5)"));

    let out = text("two_specs.bmc.out");
    let verdicts: Vec<_> = out.specs.iter().map(|s| s.verdict).collect();
    assert_eq!(
        verdicts,
        [
            Verdict::False,
            Verdict::NoCounterexampleUpTo(6),
            Verdict::False
        ]
    );
    assert_eq!(
        out.specs[1].spec, None,
        "BMC does not name a spec it cannot refute"
    );
    assert_eq!(out.specs[0].trace.as_ref().unwrap().states.len(), 4);
    assert_eq!(out.specs[2].trace.as_ref().unwrap().states.len(), 6);
}

#[test]
fn all_true_specs_have_no_traces() {
    let out = text("all_true.bdd.out");
    assert_eq!(out.specs.len(), 3);
    assert!(out
        .specs
        .iter()
        .all(|s| s.verdict == Verdict::True && s.trace.is_none()));
    assert_eq!(out.specs[0].spec.as_deref(), Some("AG (x = 3 -> AX x = 0)"));

    let out = text("all_true.bmc.out");
    let verdicts: Vec<_> = out.specs.iter().map(|s| s.verdict).collect();
    assert_eq!(verdicts, [Verdict::NoCounterexampleUpTo(6), Verdict::True]);
}

#[test]
fn inputs_are_kept_apart_and_carried_forward() {
    let out = text("inputs.bdd.out");
    let t = only_trace(&out);
    assert_eq!(t.states.len(), 7);
    assert_eq!(t.inputs.len(), 6);
    assert!(t.states.iter().all(|s| !s.contains_key("step")));
    let dirs: Vec<_> = t.inputs.iter().map(|i| i["dir"].as_str()).collect();
    assert_eq!(dirs, ["right", "right", "right", "left", "left", "left"]);
    assert_eq!(t.inputs[5]["step"], "FALSE");
    assert_eq!(t.loop_starts, [1, 5]);

    let bmc = text("inputs.bmc.out");
    let t = only_trace(&bmc);
    assert_eq!((t.states.len(), t.inputs.len()), (4, 3));
}

#[test]
fn lasso_counterexample_for_g_f_p() {
    for name in ["lasso.bdd.out", "lasso.bmc.out"] {
        let out = text(name);
        let t = only_trace(&out);
        assert_eq!(values(t, "p"), ["FALSE"; 4], "{name}");
        assert_eq!(values(t, "c"), ["0", "1", "2", "2"], "{name}");
        assert_eq!(t.loop_start(), Some(2), "{name}");
    }
}

#[test]
fn xml_dumps_match_the_text_of_the_same_run() {
    for model in ["inputs", "lasso", "two_specs"] {
        let (out, dumped) = split_mixed(&format!("{model}.xml.out"));
        let from_text: Vec<NamedTrace> = out.traces().cloned().collect();
        // XML carries no trace number: compare everything else.
        let renumbered: Vec<NamedTrace> = dumped
            .iter()
            .zip(&from_text)
            .map(|(x, t)| NamedTrace {
                id: t.id,
                ..x.clone()
            })
            .collect();
        assert_eq!(renumbered, from_text, "{model}: mixed stdout");
        let file = xml(&format!("{model}.trace.xml"));
        assert_eq!(file.len(), 1, "{model}: `-o` writes the last trace");
        assert_eq!(file[0].states, from_text.last().unwrap().states, "{model}");
    }
}

#[test]
fn format_detection_picks_the_parser() {
    assert_eq!(detect_format(&fixture("lasso.trace.xml")), Format::Xml);
    assert_eq!(detect_format(&fixture("lasso.bdd.out")), Format::Text);
    let a = parse_traces(&fixture("lasso.trace.xml")).unwrap();
    let b = parse_traces(&fixture("lasso.bdd.out")).unwrap();
    assert_eq!(a[0].states, b[0].states);
    assert_eq!(a[0].loop_starts, b[0].loop_starts);
}

/// NuSMV 2.6 and nuXmv print the same trace with headers indented by two
/// spaces and values by four. nuXmv cannot be installed here, so the real
/// 2.5.4 output is re-indented that way and must read the same.
#[test]
fn nusmv_2_6_and_nuxmv_indentation_reads_the_same() {
    let src = fixture("inputs.bdd.out");
    let indented: String = src
        .lines()
        .map(|l| {
            let in_trace = l.starts_with("-> ") || l.starts_with("-- Loop") || l.starts_with("  ");
            if in_trace {
                format!("  {l}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    assert_ne!(indented, src);
    let a = parse_text(&src).unwrap();
    let b = parse_text(&indented).unwrap_or_else(|e| panic!("{}", e.render(&indented)));
    assert_eq!(a, b);
}
