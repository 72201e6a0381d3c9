//! The XML parser: `show_traces -p 4` dumps → [`NamedTrace`]s.
//!
//! Input: one or more XML documents (each optionally starting with
//! `<?xml …?>`), as NuSMV 2.5.4 writes them:
//!
//! ```text
//! <counter-example type="0" desc="LTL Counterexample" >
//!   <node>
//!     <state id="1"> <value variable="x">0</value> … </state>
//!     <combinatorial id="2"> … </combinatorial>   (optional, skipped)
//!     <input id="2"> <value variable="i">TRUE</value> … </input>   (optional)
//!   </node> …
//!   <loops> 2 ,6 </loops>   (optional; 1-based state ids)
//! </counter-example>
//! ```
//!
//! Output: one [`NamedTrace`] per document, numbered 1, 2, … (the XML has no
//! trace number), satisfying the invariants in [`super`]. Only this subset
//! of XML is read; anything else (other elements, comments, text between
//! elements, a document cut short) is an error at its line and column.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_until, take_while1};
use nom::character::complete::{char, multispace0, multispace1};
use nom::combinator::{cut, eof, map, map_opt, opt};
use nom::error::{context, VerboseError, VerboseErrorKind};
use nom::multi::{many0, many1};
use nom::sequence::{delimited, preceded, separated_pair, terminated, tuple};
use nom::IResult;

use super::{quote_found, Loc, NamedTrace, TraceBuilder, TraceError, TraceErrorKind, TraceId};

type PResult<'a, T> = IResult<&'a str, T, VerboseError<&'a str>>;

/// Reads one or more `show_traces -p 4` XML documents.
pub fn parse_xml(input: &str) -> Result<Vec<NamedTrace>, TraceError> {
    if input.trim().is_empty() {
        return Err(Loc { line: 1, column: 1 }.err(TraceErrorKind::Empty));
    }
    let (_, docs) = documents(input).map_err(|e| nom_error(input, e))?;
    docs.into_iter()
        .enumerate()
        .map(|(n, doc)| build(input, TraceId(n as u32 + 1), doc))
        .collect()
}

/// [`super::locate`] for an XML dump: the `<value>` of `var` in the
/// `step`-th `<state>` (0-based) of the `id`-th document, else that
/// `<state>` tag (also when `var` is `None`). `None`: no such state.
pub(crate) fn locate(input: &str, id: TraceId, step: usize, var: Option<&str>) -> Option<Loc> {
    let attr = var.map(|v| format!("variable=\"{}\"", escape(v)));
    let (mut doc, mut state, mut in_state) = (0u32, 0usize, false);
    let (mut header, mut last) = (None, None);
    for (at, _) in input.match_indices('<') {
        let rest = &input[at..];
        let tag = rest.split('>').next().unwrap_or(rest);
        if tag.starts_with("<counter-example") {
            doc += 1;
            (state, in_state) = (0, false);
        } else if doc != id.0 {
            continue;
        } else if tag.starts_with("<state") {
            state += 1;
            if state > step + 1 {
                break;
            }
            in_state = true;
            if state == step + 1 {
                header = Some(at);
            }
        } else if tag.starts_with("</state") || tag.starts_with("<input") {
            in_state = false;
        } else if in_state
            && tag.starts_with("<value")
            && attr.as_deref().is_some_and(|a| tag.contains(a))
        {
            last = Some(at + tag.len() + 1);
        }
    }
    header.map(|h| loc(input, input.get(last.unwrap_or(h)..).unwrap_or("")))
}

/// XML-escapes text for attribute values and element content.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Decodes the five named entities and numeric character references.
fn unescape(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.find(';')?;
        let entity = &after[..semi];
        let c = match entity {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            _ => {
                let code = if let Some(hex) = entity.strip_prefix("#x") {
                    u32::from_str_radix(hex, 16).ok()?
                } else {
                    entity.strip_prefix('#')?.parse().ok()?
                };
                char::from_u32(code)?
            }
        };
        out.push(c);
        rest = &after[semi + 1..];
    }
    out.push_str(rest);
    Some(out)
}

struct Value<'a> {
    at: &'a str,
    name: String,
    value: String,
}

struct Block<'a> {
    at: &'a str,
    id: u32,
    values: Vec<Value<'a>>,
}

struct Node<'a> {
    state: Block<'a>,
    input: Option<Block<'a>>,
}

struct Doc<'a> {
    desc: Option<String>,
    ty: Option<String>,
    nodes: Vec<Node<'a>>,
    loops: Option<(&'a str, Vec<usize>)>,
    end: &'a str,
}

fn documents(i: &str) -> PResult<'_, Vec<Doc<'_>>> {
    terminated(
        many1(preceded(multispace0, document)),
        preceded(
            multispace0,
            context("end of input or another `<counter-example>` document", eof),
        ),
    )(i)
}

fn document(i: &str) -> PResult<'_, Doc<'_>> {
    let (i, _) = opt(xml_decl)(i)?;
    let (i, _) = multispace0(i)?;
    let (i, _) = context("`<counter-example`", open_tag("counter-example"))(i)?;
    cut(counter_example_rest)(i)
}

fn xml_decl(i: &str) -> PResult<'_, ()> {
    map(tuple((tag("<?xml"), take_until("?>"), tag("?>"))), |_| ())(i)
}

fn counter_example_rest(i: &str) -> PResult<'_, Doc<'_>> {
    let (i, attrs) = attributes(i)?;
    let (i, _) = context(
        "`>` closing `<counter-example`",
        preceded(multispace0, char('>')),
    )(i)?;
    let (i, nodes) = many0(preceded(multispace0, node))(i)?;
    let (i, loops) = opt(preceded(multispace0, loops))(i)?;
    let (i, _) = multispace0(i)?;
    let end = i;
    let (i, _) = context(
        "`<node>`, `<loops>` or `</counter-example>`",
        close_tag("counter-example"),
    )(i)?;
    let ty = attr(&attrs, "type").map(|t| match t {
        "0" => "Counterexample".to_string(),
        other => other.to_string(),
    });
    let desc = attr(&attrs, "desc").map(str::to_string);
    Ok((
        i,
        Doc {
            desc,
            ty,
            nodes,
            loops,
            end,
        },
    ))
}

struct Attr<'a> {
    name: &'a str,
    value: String,
    /// Where the attribute starts, for error positions.
    at: &'a str,
}

fn attr<'a>(attrs: &'a [Attr<'_>], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|a| a.name == name)
        .map(|a| a.value.as_str())
}

/// `name="value"` pairs, each preceded by white space.
fn attributes(i: &str) -> PResult<'_, Vec<Attr<'_>>> {
    many0(preceded(multispace1, attribute))(i)
}

fn attribute(i: &str) -> PResult<'_, Attr<'_>> {
    let at = i;
    let (i, (name, value)) = separated_pair(
        take_while1(|c: char| c.is_alphanumeric() || "-_:".contains(c)),
        context("`=` after the attribute name", char('=')),
        context(
            "a quoted attribute value",
            alt((
                delimited(char('"'), text_until('"'), char('"')),
                delimited(char('\''), text_until('\''), char('\'')),
            )),
        ),
    )(i)?;
    Ok((i, Attr { name, value, at }))
}

/// Text up to `end` (or `<`), entities decoded.
fn text_until<'a>(end: char) -> impl FnMut(&'a str) -> PResult<'a, String> {
    context(
        "text with valid XML entities (`&amp;`, `&lt;`, `&#65;`, …)",
        map_opt(take_till(move |c| c == end || c == '<'), unescape),
    )
}

/// `</name>`; fails at the `<` so errors point at the tag.
fn close_tag<'a>(name: &'static str) -> impl FnMut(&'a str) -> PResult<'a, ()> {
    move |i: &'a str| {
        let rest = i
            .strip_prefix("</")
            .and_then(|r| r.strip_prefix(name))
            .ok_or_else(|| tag_error(i))?;
        let (rest, _) = multispace0(rest)?;
        let (rest, _) = char('>')(rest).map_err(|_: nom::Err<VerboseError<&str>>| tag_error(i))?;
        Ok((rest, ()))
    }
}

/// `<name` followed by white space or `>`; fails at the `<`.
fn open_tag<'a>(name: &'static str) -> impl FnMut(&'a str) -> PResult<'a, ()> {
    move |i: &'a str| {
        let rest = i
            .strip_prefix('<')
            .and_then(|r| r.strip_prefix(name))
            .filter(|r| r.starts_with(|c: char| c.is_whitespace() || c == '>' || c == '/'))
            .ok_or_else(|| tag_error(i))?;
        Ok((rest, ()))
    }
}

fn tag_error(at: &str) -> nom::Err<VerboseError<&str>> {
    nom::Err::Error(VerboseError {
        errors: vec![(at, VerboseErrorKind::Nom(nom::error::ErrorKind::Tag))],
    })
}

fn node(i: &str) -> PResult<'_, Node<'_>> {
    let (i, _) = open_tag("node")(i)?;
    let (i, _) = cut(context("`>`", preceded(multispace0, char('>'))))(i)?;
    cut(node_rest)(i)
}

fn node_rest(i: &str) -> PResult<'_, Node<'_>> {
    let (i, state) = preceded(multispace0, context("`<state id=…>`", block("state")))(i)?;
    let (i, _) = opt(preceded(multispace0, block("combinatorial")))(i)?;
    let (i, input) = opt(preceded(multispace0, block("input")))(i)?;
    let (i, _) = multispace0(i)?;
    let (i, _) = context(
        "`<combinatorial>`, `<input>` or `</node>`",
        close_tag("node"),
    )(i)?;
    Ok((i, Node { state, input }))
}

/// `<state id="N"> <value …>…</value>* </state>` (or `input`, `combinatorial`).
fn block<'a>(name: &'static str) -> impl FnMut(&'a str) -> PResult<'a, Block<'a>> {
    move |i: &'a str| {
        let at = i;
        let (i, _) = open_tag(name)(i)?;
        let (i, attrs) = cut(attributes)(i)?;
        let id = match attrs.iter().find(|a| a.name == "id") {
            Some(a) => match a.value.parse::<u32>() {
                Ok(id) => id,
                Err(_) => return Err(failure(a.at, "an `id=\"N\"` attribute with a number")),
            },
            None => return Err(failure(i, "an `id=\"N\"` attribute")),
        };
        let (i, _) = cut(context("`>`", preceded(multispace0, char('>'))))(i)?;
        let (i, values) = many0(preceded(multispace0, value_elem))(i)?;
        let (i, _) = multispace0(i)?;
        let (i, _) = cut(context(
            match name {
                "state" => "`<value variable=…>` or `</state>`",
                "input" => "`<value variable=…>` or `</input>`",
                _ => "`<value variable=…>` or `</combinatorial>`",
            },
            close_tag(name),
        ))(i)?;
        Ok((i, Block { at, id, values }))
    }
}

fn value_elem(i: &str) -> PResult<'_, Value<'_>> {
    let at = i;
    let (i, _) = open_tag("value")(i)?;
    let (i, attrs) = cut(attributes)(i)?;
    let Some(name) = attr(&attrs, "variable") else {
        return Err(failure(i, "a `variable=\"…\"` attribute"));
    };
    let name = name.to_string();
    let (i, _) = cut(context("`>`", preceded(multispace0, char('>'))))(i)?;
    let (i, text) = cut(text_until('<'))(i)?;
    let (i, _) = cut(context("`</value>`", close_tag("value")))(i)?;
    Ok((
        i,
        Value {
            at,
            name,
            value: text.trim().to_string(),
        },
    ))
}

/// `<loops> 2 ,6 </loops>`: 1-based state ids.
fn loops(i: &str) -> PResult<'_, (&str, Vec<usize>)> {
    let at = i;
    let (i, _) = open_tag("loops")(i)?;
    let (i, _) = cut(context("`>`", preceded(multispace0, char('>'))))(i)?;
    let start = i;
    let (i, body) = cut(context("`</loops>`", take_until("</loops>")))(i)?;
    let mut ids = Vec::new();
    for part in body.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.parse::<usize>() {
            Ok(id) => ids.push(id),
            Err(_) => {
                let off = part.as_ptr() as usize - body.as_ptr() as usize;
                return Err(failure(
                    &start[off..],
                    "a comma-separated list of state ids",
                ));
            }
        }
    }
    let (i, _) = tag("</loops>")(i)?;
    Ok((i, (at, ids)))
}

fn failure<'a>(at: &'a str, ctx: &'static str) -> nom::Err<VerboseError<&'a str>> {
    nom::Err::Failure(VerboseError {
        errors: vec![(at, VerboseErrorKind::Context(ctx))],
    })
}

/// 1-based line and column of `rest` inside `input`.
fn loc(input: &str, rest: &str) -> Loc {
    let (line, column) = crate::input::line_column(input, input.len().saturating_sub(rest.len()));
    Loc { line, column }
}

fn nom_error(input: &str, err: nom::Err<VerboseError<&str>>) -> TraceError {
    let e = match err {
        nom::Err::Error(e) | nom::Err::Failure(e) => e,
        nom::Err::Incomplete(_) => {
            return loc(input, "").err(TraceErrorKind::UnexpectedEnd {
                expected: "more XML".into(),
            })
        }
    };
    let at = e.errors.first().map_or(input, |(rest, _)| *rest);
    let expected = e
        .errors
        .iter()
        .find_map(|(_, k)| match k {
            VerboseErrorKind::Context(c) => Some(*c),
            _ => None,
        })
        .unwrap_or("a `<counter-example>` XML document");
    let kind = if at.trim().is_empty() {
        TraceErrorKind::UnexpectedEnd {
            expected: expected.to_string(),
        }
    } else {
        TraceErrorKind::Expected {
            expected: expected.to_string(),
            found: quote_found(at),
        }
    };
    loc(input, at).err(kind)
}

fn build(input: &str, id: TraceId, doc: Doc<'_>) -> Result<NamedTrace, TraceError> {
    let mut b = TraceBuilder::new(Some(id), "`<node>` with `<state id=\"1\">`");
    b.describe(doc.desc, doc.ty);
    for node in &doc.nodes {
        b.begin_state(id, node.state.id, loc(input, node.state.at))?;
        for v in &node.state.values {
            b.assign(&v.name, &v.value, loc(input, v.at))?;
        }
        if let Some(block) = &node.input {
            b.begin_input(id, block.id, loc(input, block.at))?;
            for v in &block.values {
                b.assign(&v.name, &v.value, loc(input, v.at))?;
            }
        }
    }
    if let Some((at, ids)) = &doc.loops {
        b.set_loops(ids, loc(input, at))?;
    }
    b.finish(loc(input, doc.end), Some(quote_found(doc.end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_round_trip() {
        let s = "a<b & \"c\" > 'd'";
        assert_eq!(unescape(&escape(s)).as_deref(), Some(s));
        assert_eq!(unescape("&#65;&#x42;").as_deref(), Some("AB"));
        assert_eq!(unescape("&bogus;"), None);
        assert_eq!(unescape("&amp"), None);
    }

    #[test]
    fn positions_are_one_based() {
        let input = "ab\ncd";
        assert_eq!(loc(input, "d"), Loc { line: 2, column: 2 });
        assert_eq!(loc(input, input), Loc { line: 1, column: 1 });
    }
}
