//! The text parser: NuSMV / nuXmv console output → [`CheckerOutput`].
//!
//! Input: the whole standard output of one run, line by line. Each line is
//! classified by a small nom parser ([`classify`]); a state machine then
//! groups result lines, BMC bound lines and trace bodies. Output: a
//! [`CheckerOutput`] whose traces satisfy the invariants in [`super`].
//!
//! Accepted outside traces: blank lines, `***` banner lines, `Warning…`
//! lines, `********  WARNING  ********` boxes, result lines. Headers may be
//! indented (NuSMV 2.6 and nuXmv indent them by two spaces). Anything else
//! is an error naming the line and column.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till1};
use nom::character::complete::{char, space0, space1, u32 as dec_u32};
use nom::combinator::{eof, map, rest, value};
use nom::error::{context, VerboseError, VerboseErrorKind};
use nom::sequence::{delimited, preceded, terminated, tuple};
use nom::IResult;

use super::{
    quote_found, CheckerOutput, Loc, NamedTrace, PropertyKind, SpecResult, TraceBuilder,
    TraceError, TraceErrorKind, TraceId, Verdict,
};

type PResult<'a, T> = IResult<&'a str, T, VerboseError<&'a str>>;

/// One classified line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Line<'a> {
    Blank,
    Banner(&'a str),
    Warning(&'a str),
    WarningBoxStart(&'a str),
    Result {
        kind: PropertyKind,
        spec: &'a str,
        verdict: Verdict,
    },
    Bound(usize),
    Demonstrated,
    Description(&'a str),
    TraceType(&'a str),
    State(TraceId, u32),
    Input(TraceId, u32),
    Loop,
    Assign(&'a str, &'a str),
    Other,
}

impl Line<'_> {
    fn is_trace_body(&self) -> bool {
        matches!(
            self,
            Line::State(..) | Line::Input(..) | Line::Loop | Line::Assign(..)
        )
    }
}

/// Reads NuSMV / nuXmv console output (see the module documentation).
///
/// The output must end with a line break, as the checker's always does: a
/// last line without one is reported as truncated.
pub fn parse_text(input: &str) -> Result<CheckerOutput, TraceError> {
    Parser::new(input)?.run()
}

struct Parser<'a> {
    lines: Vec<&'a str>,
    /// Index of the next line to read (0-based).
    pos: usize,
    out: CheckerOutput,
    /// A run of BMC bound lines not yet given to a property:
    /// (line of the first, last bound).
    bounds: Option<(usize, usize)>,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str) -> Result<Self, TraceError> {
        if input.is_empty() {
            return Err(Loc { line: 1, column: 1 }.err(TraceErrorKind::Empty));
        }
        let mut lines: Vec<&str> = input.split('\n').collect();
        match lines.pop() {
            Some("") => {}
            Some(last) => {
                let at = Loc {
                    line: lines.len() + 1,
                    column: last.chars().count() + 1,
                };
                return Err(at.err(TraceErrorKind::UnterminatedLine));
            }
            None => {}
        }
        let lines = lines
            .into_iter()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        Ok(Parser {
            lines,
            pos: 0,
            out: CheckerOutput::default(),
            bounds: None,
        })
    }

    /// Classifies the next line without consuming it.
    fn peek(&self) -> Option<Result<(Loc, Line<'a>), TraceError>> {
        let text = *self.lines.get(self.pos)?;
        let line = self.pos + 1;
        Some(
            classify(text)
                .map(|l| {
                    (
                        Loc {
                            line,
                            column: indent(text),
                        },
                        l,
                    )
                })
                .map_err(|(column, kind)| TraceError { line, column, kind }),
        )
    }

    fn next(&mut self) -> Option<Result<(Loc, Line<'a>), TraceError>> {
        let item = self.peek();
        self.pos += 1;
        item
    }

    fn end(&self) -> Loc {
        Loc {
            line: self.lines.len() + 1,
            column: 1,
        }
    }

    fn run(mut self) -> Result<CheckerOutput, TraceError> {
        while let Some(item) = self.next() {
            let (at, line) = item?;
            match line {
                Line::Blank => {}
                Line::Banner(text) => self.banner(text),
                Line::Warning(text) => self.out.warnings.push(text.to_string()),
                Line::WarningBoxStart(text) => self.warning_box(text)?,
                Line::Bound(k) => self.bound(k, at),
                Line::Result {
                    kind,
                    spec,
                    verdict,
                } => self.result(kind, spec, verdict, at)?,
                Line::Demonstrated => {
                    return Err(self.unexpected(at, "a `-- specification … is false` line first"))
                }
                other if other.is_trace_body() || matches!(other, Line::Description(_) | Line::TraceType(_)) => {
                    return Err(self.unexpected(at, "`-- as demonstrated by the following execution sequence` before a trace"))
                }
                _ => {
                    return Err(self.unexpected(
                        at,
                        "a NuSMV result line (`-- specification …`, `-- invariant …`, `-- no counterexample found with bound N`), a `***` banner line or a warning",
                    ))
                }
            }
        }
        self.flush_bounds();
        Ok(self.out)
    }

    fn unexpected(&self, at: Loc, expected: &str) -> TraceError {
        let text = self.lines.get(at.line - 1).copied().unwrap_or("");
        let column = indent(text);
        let found = quote_found(text.trim_start());
        TraceError {
            line: at.line,
            column,
            kind: TraceErrorKind::Expected {
                expected: expected.to_string(),
                found,
            },
        }
    }

    fn banner(&mut self, text: &str) {
        // "*** This is NuSMV 2.5.4 (compiled on …)"
        if let Some(rest) = text.trim_start_matches('*').trim().strip_prefix("This is ") {
            let tool = rest.split(" (").next().unwrap_or(rest).trim();
            self.out.tool.get_or_insert_with(|| tool.to_string());
        }
    }

    /// Skips a `********  WARNING  ********` box up to its END line,
    /// keeping its text as one warning.
    fn warning_box(&mut self, first: &str) -> Result<(), TraceError> {
        let mut text = vec![first.trim().to_string()];
        while let Some(line) = self.lines.get(self.pos) {
            self.pos += 1;
            text.push(line.trim().to_string());
            if line.contains("END WARNING") {
                self.out.warnings.push(text.join("\n"));
                return Ok(());
            }
        }
        Err(self.end().err(TraceErrorKind::UnexpectedEnd {
            expected: "`******** END WARNING ********` closing the warning box".to_string(),
        }))
    }

    /// BMC prints one bound line per depth, starting at 0 for each property.
    fn bound(&mut self, k: usize, at: Loc) {
        match self.bounds {
            Some((first, last)) if k == last + 1 => self.bounds = Some((first, k)),
            _ => {
                self.flush_bounds();
                self.bounds = Some((at.line, k));
            }
        }
    }

    /// Gives a pending run of bound lines its own, unnamed result.
    fn flush_bounds(&mut self) {
        if let Some((line, last)) = self.bounds.take() {
            self.out.specs.push(SpecResult {
                spec: None,
                kind: PropertyKind::Specification,
                verdict: Verdict::NoCounterexampleUpTo(last),
                trace: None,
                line,
            });
        }
    }

    fn result(
        &mut self,
        kind: PropertyKind,
        spec: &str,
        verdict: Verdict,
        at: Loc,
    ) -> Result<(), TraceError> {
        // A false result ends the bound lines of its own BMC run; any other
        // result belongs to a different property.
        let line = match (verdict, self.bounds.take()) {
            (Verdict::False, Some((first, _))) => first,
            (_, pending) => {
                self.bounds = pending;
                self.flush_bounds();
                at.line
            }
        };
        let mut trace = None;
        if matches!(self.peek(), Some(Ok((_, Line::Demonstrated)))) {
            self.pos += 1;
            trace = Some(self.trace()?);
        }
        self.out.specs.push(SpecResult {
            spec: Some(spec.to_string()),
            kind,
            verdict,
            trace,
            line,
        });
        Ok(())
    }

    /// Reads a trace body after `-- as demonstrated by …`.
    fn trace(&mut self) -> Result<NamedTrace, TraceError> {
        let mut builder = TraceBuilder::new(None, "`-> State: N.1 <-`");
        let mut description = None;
        let mut trace_type = None;
        if let Some(Ok((_, Line::Description(d)))) = self.peek() {
            self.pos += 1;
            description = Some(d.to_string());
        }
        if let Some(Ok((_, Line::TraceType(t)))) = self.peek() {
            self.pos += 1;
            trace_type = Some(t.to_string());
        }
        builder.describe(description, trace_type);
        while let Some(item) = self.peek() {
            let (at, line) = item?;
            match line {
                Line::State(id, step) => builder.begin_state(id, step, at)?,
                Line::Input(id, step) => builder.begin_input(id, step, at)?,
                Line::Loop => builder.mark_loop(at),
                Line::Assign(name, value) => builder.assign(name, value, at)?,
                _ => break,
            }
            self.pos += 1;
        }
        match self.lines.get(self.pos) {
            Some(text) => {
                let at = Loc {
                    line: self.pos + 1,
                    column: indent(text),
                };
                builder.finish(at, Some(quote_found(text.trim_start())))
            }
            None => builder.finish(self.end(), None),
        }
    }
}

/// Where in `input` state `step` (0-based) of trace `id` got the value
/// of `var`: the last assignment to it in the trace's states up to that
/// one (the text output prints only changes), else that state's header
/// (also when `var` is `None`). `None`: the output has no such state.
pub(crate) fn locate(input: &str, id: TraceId, step: usize, var: Option<&str>) -> Option<Loc> {
    let mut header = None;
    let mut last = None;
    let mut in_state = false;
    for (i, raw) in input.split('\n').enumerate() {
        let text = raw.strip_suffix('\r').unwrap_or(raw);
        match classify(text) {
            Ok(Line::State(t, s)) if t == id => {
                let s = s as usize;
                if s > step + 1 {
                    break;
                }
                in_state = true;
                if s == step + 1 {
                    header = Some(Loc {
                        line: i + 1,
                        column: indent(text),
                    });
                }
            }
            Ok(Line::Assign(name, value)) if in_state && Some(name) == var => {
                let off = (value.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
                let column = text.get(..off).map_or(1, |b| b.chars().count() + 1);
                last = Some(Loc {
                    line: i + 1,
                    column,
                });
            }
            Ok(Line::Assign(..) | Line::Loop | Line::Blank) => {}
            _ => in_state = false,
        }
    }
    header.map(|h| last.unwrap_or(h))
}

/// 1-based column of the first non-blank character.
fn indent(text: &str) -> usize {
    text.chars().take_while(|c| c.is_whitespace()).count() + 1
}

/// Classifies one line; on error returns the 1-based column and the reason.
fn classify(text: &str) -> Result<Line<'_>, (usize, TraceErrorKind)> {
    let body = text.trim_start();
    let trimmed = body.trim_end();
    if trimmed.is_empty() {
        return Ok(Line::Blank);
    }
    // Banners and warnings start in column 1; an indented `warning = 1`
    // is a variable of a trace.
    let unindented = body.len() == text.len();
    if unindented && trimmed.starts_with("********") && trimmed.contains("WARNING") {
        return Ok(Line::WarningBoxStart(trimmed));
    }
    if unindented && trimmed.starts_with("***") {
        return Ok(Line::Banner(trimmed));
    }
    if unindented
        && trimmed
            .get(..7)
            .is_some_and(|w| w.eq_ignore_ascii_case("warning"))
    {
        return Ok(Line::Warning(trimmed));
    }
    let parsed = if body.starts_with("->") {
        header(body)
    } else if body.starts_with("--") {
        dash_line(body)
    } else if let Some(d) = trimmed.strip_prefix("Trace Description:") {
        return Ok(Line::Description(d.trim()));
    } else if let Some(t) = trimmed.strip_prefix("Trace Type:") {
        return Ok(Line::TraceType(t.trim()));
    } else if !unindented {
        assignment(body)
    } else {
        return Ok(Line::Other);
    };
    parsed.map(|(_, line)| line).map_err(|e| located(text, e))
}

/// Turns a nom error into (column, Expected) using the innermost context.
fn located(text: &str, err: nom::Err<VerboseError<&str>>) -> (usize, TraceErrorKind) {
    let e = match err {
        nom::Err::Error(e) | nom::Err::Failure(e) => e,
        nom::Err::Incomplete(_) => {
            return (
                1,
                TraceErrorKind::UnexpectedEnd {
                    expected: "more input".into(),
                },
            )
        }
    };
    let at = e.errors.first().map(|(rest, _)| *rest).unwrap_or(text);
    let expected = e
        .errors
        .iter()
        .find_map(|(_, k)| match k {
            VerboseErrorKind::Context(c) => Some(*c),
            _ => None,
        })
        .unwrap_or("a NuSMV output line");
    let consumed = text.len().saturating_sub(at.len());
    let column = text[..consumed].chars().count() + 1;
    (
        column,
        TraceErrorKind::Expected {
            expected: expected.to_string(),
            found: quote_found(at),
        },
    )
}

/// `-> State: 1.3 <-` or `-> Input: 1.2 <-`.
fn header(i: &str) -> PResult<'_, Line<'_>> {
    let (i, _) = tag("->")(i)?;
    let (i, _) = space1(i)?;
    let (i, is_state) = context(
        "`State:` or `Input:`",
        alt((value(true, tag("State:")), value(false, tag("Input:")))),
    )(i)?;
    let (i, _) = space0(i)?;
    let (i, (trace, step)) = step_label(i)?;
    let (i, _) = context("` <-` closing the header", preceded(space1, tag("<-")))(i)?;
    let (i, _) = context("end of line after `<-`", terminated(space0, eof))(i)?;
    let id = TraceId(trace);
    Ok((
        i,
        if is_state {
            Line::State(id, step)
        } else {
            Line::Input(id, step)
        },
    ))
}

/// `1.3`: trace number, dot, step number.
fn step_label(i: &str) -> PResult<'_, (u32, u32)> {
    context(
        "a step label such as `1.3`",
        tuple((dec_u32, preceded(char('.'), dec_u32))),
    )(i)
}

/// Every line starting with `--`.
fn dash_line(i: &str) -> PResult<'_, Line<'_>> {
    let trimmed = i.trim_end();
    if trimmed == "-- Loop starts here" {
        return Ok(("", Line::Loop));
    }
    if trimmed == "-- as demonstrated by the following execution sequence" {
        return Ok(("", Line::Demonstrated));
    }
    context(
        "a NuSMV result line (`-- specification … is true|false`, `-- invariant …`, `-- no counterexample found with bound N`, `-- Loop starts here`)",
        alt((bound_line, induction_failed, verdict_line)),
    )(trimmed)
}

/// `-- no counterexample found with bound 3` (also NuSMV's
/// `-- no proof or counterexample found with bound 3`).
fn bound_line(i: &str) -> PResult<'_, Line<'_>> {
    map(
        delimited(
            alt((
                tag("-- no counterexample found with bound "),
                tag("-- no proof or counterexample found with bound "),
            )),
            context("a bound (a number)", dec_u32),
            eof,
        ),
        |k| Line::Bound(k as usize),
    )(i)
}

/// `-- cannot prove the invariant X is true or false : the induction fails`.
fn induction_failed(i: &str) -> PResult<'_, Line<'_>> {
    let (i, _) = tag("-- cannot prove the invariant ")(i)?;
    let suffix = " is true or false : the induction fails";
    match i.strip_suffix(suffix) {
        Some(spec) if !spec.trim().is_empty() => Ok((
            "",
            Line::Result {
                kind: PropertyKind::Invariant,
                spec: spec.trim(),
                verdict: Verdict::InductionFailed,
            },
        )),
        _ => Err(nom::Err::Error(VerboseError {
            errors: vec![(
                i,
                VerboseErrorKind::Context("`… is true or false : the induction fails`"),
            )],
        })),
    }
}

/// `-- specification X is true|false`, `-- invariant X is true|false`.
fn verdict_line(i: &str) -> PResult<'_, Line<'_>> {
    let (i, kind) = alt((
        value(PropertyKind::Specification, tag("-- specification ")),
        value(PropertyKind::Invariant, tag("-- invariant ")),
    ))(i)?;
    let cut = i.rfind(" is ");
    let (spec, verdict) = match cut {
        Some(at) => (&i[..at], &i[at + 4..]),
        None => (i, ""),
    };
    let verdict = match verdict {
        "true" => Verdict::True,
        "false" => Verdict::False,
        _ => {
            let at = cut.map_or("", |c| &i[c..]);
            return Err(nom::Err::Failure(VerboseError {
                errors: vec![(
                    at,
                    VerboseErrorKind::Context(
                        "` is true` or ` is false` at the end of the result line",
                    ),
                )],
            }));
        }
    };
    if spec.trim().is_empty() {
        return Err(nom::Err::Failure(VerboseError {
            errors: vec![(i, VerboseErrorKind::Context("the property before ` is …`"))],
        }));
    }
    Ok((
        "",
        Line::Result {
            kind,
            spec: spec.trim(),
            verdict,
        },
    ))
}

/// `  name = value` (the leading blanks are already stripped).
fn assignment(i: &str) -> PResult<'_, Line<'_>> {
    let (i, name) = context(
        "a variable name",
        take_till1(|c: char| c.is_whitespace() || c == '='),
    )(i)?;
    let (i, _) = context(
        "` = ` after the variable name",
        tuple((space0, char('='), space0)),
    )(i)?;
    let (_, val) = rest(i)?;
    // Reject header-like garbage glued into a value.
    if val.contains("<-") || val.contains("->") {
        return Err(nom::Err::Failure(VerboseError {
            errors: vec![(
                val,
                VerboseErrorKind::Context("a value (one word, like `TRUE`, `3` or `red`)"),
            )],
        }));
    }
    Ok(("", Line::Assign(name, val.trim_end())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_the_lines_nusmv_prints() {
        assert_eq!(
            classify("-> State: 1.12 <-"),
            Ok(Line::State(TraceId(1), 12))
        );
        assert_eq!(
            classify("  -> Input: 2.3 <-"),
            Ok(Line::Input(TraceId(2), 3))
        );
        assert_eq!(classify("  -- Loop starts here"), Ok(Line::Loop));
        assert_eq!(
            classify("  plates[3] = 1"),
            Ok(Line::Assign("plates[3]", "1"))
        );
        assert_eq!(classify("    m.x = -2"), Ok(Line::Assign("m.x", "-2")));
        assert_eq!(
            classify("-- no counterexample found with bound 10"),
            Ok(Line::Bound(10))
        );
        assert_eq!(
            classify("-- specification !( F goal_state)    is false"),
            Ok(Line::Result {
                kind: PropertyKind::Specification,
                spec: "!( F goal_state)",
                verdict: Verdict::False
            })
        );
        assert_eq!(
            classify("-- invariant n <= 7  is true"),
            Ok(Line::Result {
                kind: PropertyKind::Invariant,
                spec: "n <= 7",
                verdict: Verdict::True
            })
        );
        assert_eq!(
            classify("Trace Type: Counterexample "),
            Ok(Line::TraceType("Counterexample"))
        );
        assert_eq!(
            classify("Warning: at line 40 foo"),
            Ok(Line::Warning("Warning: at line 40 foo"))
        );
        assert_eq!(classify("hello"), Ok(Line::Other));
    }

    #[test]
    fn garbled_headers_say_which_column() {
        let (col, kind) = classify("-> State: 1.x <-").unwrap_err();
        assert_eq!(col, 13);
        assert!(kind.to_string().contains("step label"), "{kind}");
        let (col, kind) = classify("-> Stat: 1.2 <-").unwrap_err();
        assert_eq!(col, 4);
        assert!(kind.to_string().contains("`State:` or `Input:`"), "{kind}");
        let (col, _) = classify("-> State: 1.2").unwrap_err();
        assert_eq!(col, 14);
        let (col, kind) = classify("  x 3").unwrap_err();
        assert_eq!(col, 5);
        assert!(kind.to_string().contains("` = `"), "{kind}");
    }
}
