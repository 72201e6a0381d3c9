//! Trace parsers: what NuSMV / nuXmv print → verdicts and full named states.
//!
//! Input: the standard output of NuSMV 2.5/2.6 or nuXmv, either as text
//! (the default trace plugin, which prints only the variables that changed
//! after the first state; [`parse_text`]) or as the XML dump of
//! `show_traces -p 4` ([`parse_xml`]). [`detect_format`] and
//! [`parse_traces`] pick the parser from the first non-blank character.
//!
//! Output: [`CheckerOutput`] — one [`SpecResult`] per property in output
//! order, each with its [`Verdict`] and, when the checker printed one, its
//! [`NamedTrace`]. A named trace converts to an [`ir::Trace`] with
//! [`NamedTrace::to_ir`] (through [`ir::System::trace_from_named`], which
//! ignores DEFINEs and inputs).
//!
//! Invariants of every [`NamedTrace`] this module returns:
//! * it has at least one state, and every state is *full*: values are
//!   carried forward, so each state maps every name of the first state to a
//!   non-empty value, and no state has a name the first state lacks;
//! * `inputs` is empty (no IVARs) or has exactly `states.len() - 1` full
//!   entries; `inputs[i]` drives the step from `states[i]` to `states[i+1]`;
//! * `loop_starts` is sorted, without duplicates, and its 0-based indices
//!   are `< states.len()`.
//!
//! Errors: [`TraceError`] names the 1-based line and column and what was
//! expected there. Truncated output, garbled lines, foreign text and XML cut
//! in half are errors; nothing here panics on bad input. What is found
//! wrong only later, in a parsed trace (a value outside its domain, a
//! broken constraint at some state), is placed in the output by
//! [`locate`].

mod text;
mod xml;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};

use thiserror::Error;

use crate::ir;

pub use text::parse_text;
pub use xml::parse_xml;

/// One state (or one input) of a trace: variable name → value as printed
/// (`TRUE`, `-3`, `red`, `0ud8_5`).
pub type NamedState = BTreeMap<String, String>;

/// The number of a trace as the checker prints it: the `2` in
/// `-> State: 2.5 <-`. 1-based. XML dumps carry no number; their traces
/// are numbered 1, 2, … in document order.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TraceId(pub u32);

impl fmt::Display for TraceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A trace with every state full (see the module invariants).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedTrace {
    pub id: TraceId,
    /// `Trace Description:` (e.g. `LTL Counterexample`, `BMC Failed
    /// Induction`), or the XML `desc` attribute.
    pub description: Option<String>,
    /// `Trace Type:` (e.g. `Counterexample`); XML type `0` reads as
    /// `Counterexample`, other XML types are kept as their number.
    pub trace_type: Option<String>,
    /// Full states, 0-based: `states[0]` is the initial state.
    pub states: Vec<NamedState>,
    /// Full inputs (IVARs); `inputs[i]` drives `states[i]` → `states[i+1]`.
    /// Empty when the model has no inputs.
    pub inputs: Vec<NamedState>,
    /// 0-based indices of the states marked `-- Loop starts here`. NuSMV
    /// marks every state equal to the last one, so a lasso counterexample
    /// may carry several marks; the last state repeats each marked state.
    pub loop_starts: Vec<usize>,
}

impl NamedTrace {
    /// The start of the longest lasso loop (the first mark), if any.
    pub fn loop_start(&self) -> Option<usize> {
        self.loop_starts.first().copied()
    }

    /// Converts to an IR trace over `system`'s variables. Names the system
    /// does not know (DEFINEs, inputs) are ignored; a missing variable or a
    /// value outside its domain is an error.
    pub fn to_ir(&self, system: &ir::System) -> Result<ir::Trace, ir::EvalError> {
        system.trace_from_named(&self.states, self.loop_start())
    }

    /// Renders the trace as NuSMV 2.5.4's default text plugin does, from the
    /// `Trace Description:` line on: only changed values after the first
    /// state (and the first input), loop marks before their state.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        if let Some(d) = &self.description {
            let _ = writeln!(out, "Trace Description: {d} ");
        }
        if let Some(t) = &self.trace_type {
            let _ = writeln!(out, "Trace Type: {t} ");
        }
        for (i, state) in self.states.iter().enumerate() {
            if i > 0 {
                if let Some(input) = self.inputs.get(i - 1) {
                    let _ = writeln!(out, "-> Input: {}.{} <-", self.id, i + 1);
                    let prev = i.checked_sub(2).and_then(|p| self.inputs.get(p));
                    write_changed(&mut out, prev, input);
                }
            }
            if self.loop_starts.contains(&i) {
                out.push_str("-- Loop starts here\n");
            }
            let _ = writeln!(out, "-> State: {}.{} <-", self.id, i + 1);
            write_changed(&mut out, i.checked_sub(1).map(|p| &self.states[p]), state);
        }
        out
    }

    /// Renders the trace as NuSMV 2.5.4's XML plugin (`show_traces -p 4`)
    /// does: every state full, inputs inside the node of the state before.
    /// The `type`/`desc` attributes are left out when unknown.
    pub fn render_xml(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str("<counter-example");
        match self.trace_type.as_deref() {
            Some("Counterexample") => out.push_str(" type=\"0\""),
            Some(other) => {
                let _ = write!(out, " type=\"{}\"", xml::escape(other));
            }
            None => {}
        }
        if let Some(desc) = &self.description {
            let _ = write!(out, " desc=\"{}\"", xml::escape(desc));
        }
        out.push_str(" >\n");
        for (i, state) in self.states.iter().enumerate() {
            out.push_str("\t<node>\n");
            write_xml_block(&mut out, "state", i + 1, state);
            if let Some(input) = self.inputs.get(i) {
                write_xml_block(&mut out, "input", i + 2, input);
            }
            out.push_str("\t</node>\n");
        }
        if !self.loop_starts.is_empty() {
            let ids: Vec<String> = self
                .loop_starts
                .iter()
                .map(|l| (l + 1).to_string())
                .collect();
            let _ = writeln!(out, "\t<loops> {} </loops>", ids.join(" ,"));
        }
        out.push_str("</counter-example>\n");
        out
    }
}

fn write_changed(out: &mut String, prev: Option<&NamedState>, cur: &NamedState) {
    for (name, value) in cur {
        if prev.and_then(|p| p.get(name)) != Some(value) {
            let _ = writeln!(out, "  {name} = {value}");
        }
    }
}

fn write_xml_block(out: &mut String, tag: &str, id: usize, values: &NamedState) {
    let _ = writeln!(out, "\t\t<{tag} id=\"{id}\">");
    for (name, value) in values {
        let _ = writeln!(
            out,
            "\t\t\t<value variable=\"{}\">{}</value>",
            xml::escape(name),
            xml::escape(value)
        );
    }
    let _ = writeln!(out, "\t\t</{tag}>");
}

/// What the checker concluded about one property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `… is true`.
    True,
    /// `… is false`; a counterexample usually follows.
    False,
    /// BMC tried every bound `0..=k` and found no counterexample; the
    /// property may still fail on longer paths.
    NoCounterexampleUpTo(usize),
    /// BMC's induction step failed (`cannot prove the invariant … is true
    /// or false`). Any trace shows the failed induction step: it does not
    /// start in an initial state and is *not* a counterexample.
    InductionFailed,
}

/// The kind of property, as the result line names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyKind {
    /// `-- specification …` (LTL, CTL, PSL) — also used for the unnamed
    /// results of BMC runs that print only bound lines.
    Specification,
    /// `-- invariant …` (INVARSPEC).
    Invariant,
}

/// The result for one property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecResult {
    /// The property as printed (`G x != 2`), trimmed. `None` when the
    /// checker did not name it: a BMC run that found no counterexample
    /// prints only `-- no counterexample found with bound N` lines.
    pub spec: Option<String>,
    pub kind: PropertyKind,
    pub verdict: Verdict,
    /// The trace printed after `-- as demonstrated by …`, if any.
    pub trace: Option<NamedTrace>,
    /// 1-based line of the result (first bound line for unnamed results).
    pub line: usize,
}

/// Everything read from one run of the checker.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckerOutput {
    /// The tool and version from the banner (`NuSMV 2.5.4`), if printed.
    pub tool: Option<String>,
    /// `Warning…` lines and warning boxes, in order, without line ends.
    pub warnings: Vec<String>,
    /// One result per property, in output order.
    pub specs: Vec<SpecResult>,
}

impl CheckerOutput {
    /// The first counterexample of a property found false, if any.
    pub fn first_counterexample(&self) -> Option<&NamedTrace> {
        self.specs
            .iter()
            .filter(|s| s.verdict == Verdict::False)
            .find_map(|s| s.trace.as_ref())
    }

    /// Every trace, in output order.
    pub fn traces(&self) -> impl Iterator<Item = &NamedTrace> {
        self.specs.iter().filter_map(|s| s.trace.as_ref())
    }
}

/// The two output formats this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Console text (default trace plugin, or `-v` with every value).
    Text,
    /// `show_traces -p 4` XML.
    Xml,
}

/// Guesses the format: XML if the first non-blank character is `<`.
pub fn detect_format(input: &str) -> Format {
    if input.trim_start().starts_with('<') {
        Format::Xml
    } else {
        Format::Text
    }
}

/// Where in `input` (the checker's output, text or XML) state `step`
/// (0-based) of trace `id` took the value of `var`: the line and column
/// (1-based) of the value as printed last up to that state, else of the
/// state's header (also when `var` is `None`). For pointing at what is
/// found wrong after parsing (a value outside its domain, a missing
/// variable, a broken constraint). `None` when there is no such state.
pub fn locate(input: &str, id: TraceId, step: usize, var: Option<&str>) -> Option<(usize, usize)> {
    let at = match detect_format(input) {
        Format::Xml => xml::locate(input, id, step, var),
        Format::Text => text::locate(input, id, step, var),
    }?;
    Some((at.line, at.column))
}

/// Reads every trace from `input`, text or XML (see [`detect_format`]).
/// For text, traces of every property are returned in output order,
/// including failed-induction traces (check [`SpecResult::verdict`] through
/// [`parse_text`] when that matters).
pub fn parse_traces(input: &str) -> Result<Vec<NamedTrace>, TraceError> {
    match detect_format(input) {
        Format::Xml => parse_xml(input),
        Format::Text => Ok(parse_text(input)?.traces().cloned().collect()),
    }
}

/// A parse error at a 1-based line and column (columns count characters).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("line {line}, column {column}: {kind}")]
pub struct TraceError {
    pub line: usize,
    pub column: usize,
    pub kind: TraceErrorKind,
}

impl TraceError {
    /// The error with the offending source line and a marker under the
    /// column, for showing to people.
    pub fn render(&self, source: &str) -> String {
        let text = source
            .lines()
            .nth(self.line.saturating_sub(1))
            .unwrap_or("");
        let gutter = self.line.to_string().len();
        let pad = " ".repeat(self.column.saturating_sub(1));
        format!(
            "error: {}\n{:gutter$} |\n{} | {}\n{:gutter$} | {}^ here\n",
            self.kind,
            "",
            self.line,
            text,
            "",
            pad,
            gutter = gutter
        )
    }
}

/// What went wrong (see [`TraceError`] for where).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum TraceErrorKind {
    #[error("expected {expected}, found {found}")]
    Expected { expected: String, found: String },
    #[error("the output ends early: expected {expected}")]
    UnexpectedEnd { expected: String },
    #[error("the output ends in the middle of a line (truncated?)")]
    UnterminatedLine,
    #[error("no output to read")]
    Empty,
    #[error("expected {expected}, found {found}: steps must be numbered 1, 2, … in order")]
    OutOfOrder { expected: String, found: String },
    #[error("variable `{name}` appears in {block} but not in the first one (garbled trace?)")]
    NewVariable { name: String, block: String },
    #[error("variable `{name}` is given twice in {block}")]
    Duplicate { name: String, block: String },
    #[error("variable `{name}` has an empty value in {block}")]
    EmptyValue { name: String, block: String },
    #[error("`-- Loop starts here` is not followed by a state")]
    DanglingLoop,
    #[error("input {label} is not followed by state {label}")]
    DanglingInput { label: String },
    #[error("loop start {id} is past the last state ({len})")]
    BadLoop { id: usize, len: usize },
}

/// A 1-based source position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub line: usize,
    pub column: usize,
}

impl Loc {
    pub(crate) fn err(self, kind: TraceErrorKind) -> TraceError {
        TraceError {
            line: self.line,
            column: self.column,
            kind,
        }
    }
}

/// How an offending piece of input is quoted in messages.
pub(crate) fn quote_found(rest: &str) -> String {
    let rest = rest.lines().next().unwrap_or("");
    if rest.trim().is_empty() {
        return "end of line".to_string();
    }
    let mut s = String::new();
    for c in rest.chars().take(48) {
        if c.is_control() {
            s.extend(c.escape_default());
        } else {
            s.push(c);
        }
    }
    if rest.chars().nth(48).is_some() {
        s.push('…');
    }
    format!("`{s}`")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    None,
    State,
    Input,
}

/// Assembles one trace from headers and assignments, carrying values
/// forward and enforcing the module invariants. Both parsers feed it.
pub(crate) struct TraceBuilder {
    id: Option<TraceId>,
    /// How the format spells a first state, for "expected …" messages.
    first_state: &'static str,
    description: Option<String>,
    trace_type: Option<String>,
    states: Vec<NamedState>,
    inputs: Vec<NamedState>,
    loop_starts: Vec<usize>,
    pending_loop: Option<Loc>,
    block: Block,
    block_header: Loc,
    assigned: BTreeSet<String>,
}

impl TraceBuilder {
    pub(crate) fn new(id: Option<TraceId>, first_state: &'static str) -> Self {
        TraceBuilder {
            id,
            first_state,
            description: None,
            trace_type: None,
            states: Vec::new(),
            inputs: Vec::new(),
            loop_starts: Vec::new(),
            pending_loop: None,
            block: Block::None,
            block_header: Loc { line: 0, column: 0 },
            assigned: BTreeSet::new(),
        }
    }

    pub(crate) fn describe(&mut self, description: Option<String>, trace_type: Option<String>) {
        self.description = description;
        self.trace_type = trace_type;
    }

    fn label(&self, step: usize) -> String {
        match self.id {
            Some(id) => format!("{id}.{step}"),
            None => format!("?.{step}"),
        }
    }

    fn block_name(&self) -> String {
        match self.block {
            Block::Input => format!("input {}", self.label(self.inputs.len() + 1)),
            _ => format!("state {}", self.label(self.states.len())),
        }
    }

    /// Checks the trace number and the 1-based step of a header.
    fn check_label(
        &mut self,
        what: &str,
        trace: TraceId,
        step: u32,
        at: Loc,
    ) -> Result<(), TraceError> {
        let id = *self.id.get_or_insert(trace);
        let want = self.states.len() + 1;
        if id != trace || step as usize != want {
            return Err(at.err(TraceErrorKind::OutOfOrder {
                expected: format!("{what} {id}.{want}"),
                found: format!("{what} {trace}.{step}"),
            }));
        }
        Ok(())
    }

    pub(crate) fn begin_state(
        &mut self,
        trace: TraceId,
        step: u32,
        at: Loc,
    ) -> Result<(), TraceError> {
        self.check_label("state", trace, step, at)?;
        let n = self.states.len();
        if !self.inputs.is_empty() && self.inputs.len() != n {
            return Err(at.err(TraceErrorKind::Expected {
                expected: format!("`-> Input: {} <-` before this state", self.label(n + 1)),
                found: format!("`-> State: {} <-`", self.label(n + 1)),
            }));
        }
        let next = self.states.last().cloned().unwrap_or_default();
        self.states.push(next);
        if self.pending_loop.take().is_some() {
            self.loop_starts.push(n);
        }
        self.open(Block::State, at);
        Ok(())
    }

    pub(crate) fn begin_input(
        &mut self,
        trace: TraceId,
        step: u32,
        at: Loc,
    ) -> Result<(), TraceError> {
        if self.states.is_empty() {
            return Err(at.err(TraceErrorKind::Expected {
                expected: "a first state before any input".to_string(),
                found: format!("`-> Input: {trace}.{step} <-`"),
            }));
        }
        self.check_label("input", trace, step, at)?;
        let n = self.states.len();
        if self.inputs.len() + 1 != n {
            return Err(at.err(TraceErrorKind::Expected {
                expected: format!("inputs before every state from {} on", self.label(2)),
                found: format!("the first input before state {}", self.label(n + 1)),
            }));
        }
        let next = self.inputs.last().cloned().unwrap_or_default();
        self.inputs.push(next);
        self.open(Block::Input, at);
        Ok(())
    }

    fn open(&mut self, block: Block, at: Loc) {
        self.block = block;
        self.block_header = at;
        self.assigned.clear();
    }

    pub(crate) fn mark_loop(&mut self, at: Loc) {
        self.pending_loop.get_or_insert(at);
    }

    pub(crate) fn assign(&mut self, name: &str, value: &str, at: Loc) -> Result<(), TraceError> {
        let block = self.block_name();
        let (first, current) = match self.block {
            Block::None => {
                return Err(at.err(TraceErrorKind::Expected {
                    expected: format!("{} before the first value", self.first_state),
                    found: format!("`{name} = {value}`"),
                }))
            }
            Block::State => (self.states.len() == 1, &mut self.states),
            Block::Input => (self.inputs.len() == 1, &mut self.inputs),
        };
        if value.is_empty() {
            return Err(at.err(TraceErrorKind::EmptyValue {
                name: name.into(),
                block,
            }));
        }
        if !first && !current[0].contains_key(name) {
            return Err(at.err(TraceErrorKind::NewVariable {
                name: name.into(),
                block,
            }));
        }
        if !self.assigned.insert(name.to_string()) {
            return Err(at.err(TraceErrorKind::Duplicate {
                name: name.into(),
                block,
            }));
        }
        if let Some(map) = current.last_mut() {
            map.insert(name.to_string(), value.to_string());
        }
        Ok(())
    }

    /// Sets the loop starts from 1-based state ids (XML `<loops>`).
    pub(crate) fn set_loops(&mut self, ids: &[usize], at: Loc) -> Result<(), TraceError> {
        let len = self.states.len();
        for &id in ids {
            if id == 0 || id > len {
                return Err(at.err(TraceErrorKind::BadLoop { id, len }));
            }
            self.loop_starts.push(id - 1);
        }
        self.loop_starts.sort_unstable();
        self.loop_starts.dedup();
        Ok(())
    }

    /// Finishes the trace. `end` is where the trace stopped and `found`
    /// what stands there (`None`: the end of the input).
    pub(crate) fn finish(self, end: Loc, found: Option<String>) -> Result<NamedTrace, TraceError> {
        if self.states.is_empty() {
            let expected = self.first_state.to_string();
            return Err(end.err(match found {
                None => TraceErrorKind::UnexpectedEnd { expected },
                Some(found) => TraceErrorKind::Expected { expected, found },
            }));
        }
        if let Some(at) = self.pending_loop {
            return Err(at.err(TraceErrorKind::DanglingLoop));
        }
        if self.block == Block::Input {
            let label = self.label(self.inputs.len() + 1);
            return Err(self
                .block_header
                .err(TraceErrorKind::DanglingInput { label }));
        }
        Ok(NamedTrace {
            id: self.id.unwrap_or(TraceId(1)),
            description: self.description,
            trace_type: self.trace_type,
            states: self.states,
            inputs: self.inputs,
            loop_starts: self.loop_starts,
        })
    }
}

#[cfg(test)]
mod tests;
