//! Strategy trees on disk: JSON (read and write) and Graphviz DOT (write).
//!
//! Input: a [`Tree`] and the [`Table`] it indexes; or JSON text and the
//! table to resolve its names against. Output: JSON/DOT text, or a
//! [`Tree`] (or a [`TreeFileError`] with line and column).
//!
//! JSON schema (`format` "checkmate-tree", `version` 1):
//!
//! ```json
//! {
//!   "format": "checkmate-tree",
//!   "version": 1,
//!   "game": "mastermind:2x2",
//!   "tree": {
//!     "experiment": "guess AA",
//!     "children": {
//!       "0b0w": { "code": "BB" },
//!       "1b0w": { "experiment": "guess AB", "children": { … } },
//!       "2b0w": { "code": "AA" }
//!     }
//!   }
//! }
//! ```
//!
//! A node is either a leaf `{"code": NAME}` (the code is known; in games
//! with final outcomes a leaf hangs below the final outcome that showed
//! it) or `{"experiment": NAME, "children": {OUTCOME: node, …}}` with one
//! child per outcome some remaining code can show. Names are the table's
//! own: experiments as displayed (`guess AABB`, `weighing2 1234`; also
//! with spaced parameters, `weighing2 1 2 3 4`, and the bare parameters
//! `AABB` when unambiguous), outcome names
//! (`1b2w`, `lighter`) and code names (`AABB`, `7h`). `format`, `version`
//! and `game` are optional when reading; if `game` is present it must name
//! the table's game.
//!
//! Invariants: writing then reading gives back the same tree; a name the
//! game does not have is reported with the line and column where it
//! occurs. Whether the tree actually finds every code is checked by
//! replay ([`Tree::analyze`]), not here.

use std::collections::HashMap;
use std::fmt::{self, Write as _};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use thiserror::Error;

use super::table::Table;
use super::tree::{Analysis, ReplayError, Tree};

/// The `format` tag of strategy tree files.
pub const FORMAT: &str = "checkmate-tree";

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TreeFileError {
    /// Malformed JSON, or a name the game does not know (with where).
    #[error("line {line}, column {column}: {message}")]
    At {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("the tree is for game `{file}`, not `{expected}`")]
    WrongGame { file: String, expected: String },
    #[error("unsupported tree file: {0}")]
    Format(String),
    /// The file parsed but the tree does not find every code.
    #[error("the tree does not solve the game: {0}")]
    Replay(#[from] ReplayError),
}

impl From<serde_json::Error> for TreeFileError {
    fn from(e: serde_json::Error) -> Self {
        let full = e.to_string();
        // serde_json appends " at line L column C"; keep the message only.
        let message = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        TreeFileError::At {
            line: e.line(),
            column: e.column(),
            message,
        }
    }
}

// ----- writing -------------------------------------------------------

struct NodeView<'a> {
    table: &'a Table,
    tree: &'a Tree,
}

struct ChildrenView<'a> {
    table: &'a Table,
    children: &'a [(u8, Tree)],
}

impl Serialize for NodeView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let name = |i: usize, names: &[String]| names.get(i).cloned().unwrap_or_default();
        match self.tree {
            Tree::Leaf { code } => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("code", &name(*code, &self.table.codes))?;
                m.end()
            }
            Tree::Node {
                experiment,
                children,
            } => {
                let mut m = s.serialize_map(Some(2))?;
                let exp = self
                    .table
                    .experiments
                    .get(*experiment)
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                m.serialize_entry("experiment", &exp)?;
                m.serialize_entry(
                    "children",
                    &ChildrenView {
                        table: self.table,
                        children,
                    },
                )?;
                m.end()
            }
        }
    }
}

impl Serialize for ChildrenView<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.children.len()))?;
        for (o, child) in self.children {
            let name = self
                .table
                .outcomes
                .get(*o as usize)
                .cloned()
                .unwrap_or_default();
            m.serialize_entry(
                &name,
                &NodeView {
                    table: self.table,
                    tree: child,
                },
            )?;
        }
        m.end()
    }
}

#[derive(Serialize)]
struct Document<'a> {
    format: &'static str,
    version: u32,
    game: &'a str,
    tree: NodeView<'a>,
}

/// The tree as pretty-printed JSON (schema in the module documentation).
pub fn to_json(table: &Table, tree: &Tree) -> String {
    let doc = Document {
        format: FORMAT,
        version: 1,
        game: &table.name,
        tree: NodeView { table, tree },
    };
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

// ----- reading -------------------------------------------------------

/// Name → index lookups for one table.
struct Names<'a> {
    table: &'a Table,
    experiments: HashMap<String, usize>,
    outcomes: HashMap<&'a str, u8>,
    codes: HashMap<&'a str, usize>,
}

impl<'a> Names<'a> {
    fn new(table: &'a Table) -> Names<'a> {
        let mut experiments = HashMap::new();
        let mut bare: HashMap<String, Option<usize>> = HashMap::new();
        for (i, e) in table.experiments.iter().enumerate() {
            experiments.insert(e.to_string(), i);
            experiments.insert(format!("{} {}", e.kind, e.params.join(" ")), i);
            let key = e.params.concat();
            bare.entry(key).and_modify(|v| *v = None).or_insert(Some(i));
        }
        for (key, i) in bare {
            if let Some(i) = i {
                experiments.entry(key).or_insert(i);
            }
        }
        Names {
            table,
            experiments,
            outcomes: table
                .outcomes
                .iter()
                .enumerate()
                .map(|(i, o)| (o.as_str(), i as u8))
                .collect(),
            codes: table
                .codes
                .iter()
                .enumerate()
                .map(|(i, c)| (c.as_str(), i))
                .collect(),
        }
    }
}

/// Finds an experiment by its displayed name (`guess AABB`) or, when
/// unambiguous, its bare parameters (`AABB`).
pub fn experiment_by_name(table: &Table, name: &str) -> Option<usize> {
    Names::new(table).experiments.get(name.trim()).copied()
}

struct TreeSeed<'n, 'a> {
    names: &'n Names<'a>,
}

impl<'de> DeserializeSeed<'de> for TreeSeed<'_, '_> {
    type Value = Tree;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Tree, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TreeSeed<'_, '_> {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"a tree node: {"code": …} or {"experiment": …, "children": {…}}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut code = None;
        let mut experiment = None;
        let mut children = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "code" => {
                    let name: String = map.next_value()?;
                    let c = self
                        .names
                        .codes
                        .get(name.as_str())
                        .copied()
                        .ok_or_else(|| {
                            de::Error::custom(format!(
                                "unknown code `{name}` in game {}",
                                self.names.table.name
                            ))
                        })?;
                    set_once(&mut code, c, "code")?;
                }
                "experiment" => {
                    let name: String = map.next_value()?;
                    let e = self
                        .names
                        .experiments
                        .get(name.trim())
                        .copied()
                        .ok_or_else(|| {
                            de::Error::custom(format!(
                                "unknown experiment `{name}` in game {}",
                                self.names.table.name
                            ))
                        })?;
                    set_once(&mut experiment, e, "experiment")?;
                }
                "children" => {
                    let kids = map.next_value_seed(ChildrenSeed { names: self.names })?;
                    set_once(&mut children, kids, "children")?;
                }
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown key `{other}` (expected code, experiment or children)"
                    )))
                }
            }
        }
        match (code, experiment, children) {
            (Some(code), None, None) => Ok(Tree::Leaf { code }),
            (None, Some(experiment), Some(children)) => Ok(Tree::Node {
                experiment,
                children,
            }),
            (None, Some(_), None) => Err(de::Error::custom(
                "a node with `experiment` needs `children`",
            )),
            _ => Err(de::Error::custom(
                "a node has either `code` alone or `experiment` with `children`",
            )),
        }
    }
}

fn set_once<T, E: de::Error>(slot: &mut Option<T>, v: T, what: &str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::custom(format!("duplicate `{what}`")));
    }
    *slot = Some(v);
    Ok(())
}

struct ChildrenSeed<'n, 'a> {
    names: &'n Names<'a>,
}

impl<'de> DeserializeSeed<'de> for ChildrenSeed<'_, '_> {
    type Value = Vec<(u8, Tree)>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed<'_, '_> {
    type Value = Vec<(u8, Tree)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map from outcome names to tree nodes")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out: Vec<(u8, Tree)> = Vec::new();
        while let Some(name) = map.next_key::<String>()? {
            let o = self
                .names
                .outcomes
                .get(name.as_str())
                .copied()
                .ok_or_else(|| {
                    de::Error::custom(format!(
                        "unknown outcome `{name}` in game {}",
                        self.names.table.name
                    ))
                })?;
            if out.iter().any(|(k, _)| *k == o) {
                return Err(de::Error::custom(format!("duplicate outcome `{name}`")));
            }
            let child = map.next_value_seed(TreeSeed { names: self.names })?;
            out.push((o, child));
        }
        if out.is_empty() {
            return Err(de::Error::custom("a node needs at least one child"));
        }
        out.sort_by_key(|(o, _)| *o);
        Ok(out)
    }
}

struct DocumentSeed<'n, 'a> {
    names: &'n Names<'a>,
}

/// What the top level of a file holds.
struct Parsed {
    tree: Tree,
    game: Option<String>,
}

impl<'de> DeserializeSeed<'de> for DocumentSeed<'_, '_> {
    type Value = Parsed;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Parsed, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_, '_> {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"a strategy tree file: {"game": …, "tree": {…}}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed, A::Error> {
        let mut tree = None;
        let mut game = None;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "tree" => {
                    let t = map.next_value_seed(TreeSeed { names: self.names })?;
                    set_once(&mut tree, t, "tree")?;
                }
                "game" => {
                    let g: String = map.next_value()?;
                    set_once(&mut game, g, "game")?;
                }
                "format" => {
                    let f: String = map.next_value()?;
                    if f != FORMAT {
                        return Err(de::Error::custom(format!("format `{f}` is not `{FORMAT}`")));
                    }
                }
                "version" => {
                    let v: u64 = map.next_value()?;
                    if v != 1 {
                        return Err(de::Error::custom(format!(
                            "version {v} is not supported (only 1)"
                        )));
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let tree = tree.ok_or_else(|| de::Error::custom("missing `tree`"))?;
        Ok(Parsed { tree, game })
    }
}

/// Reads a tree file (schema in the module documentation) against the
/// game's table.
pub fn from_json(table: &Table, text: &str) -> Result<Tree, TreeFileError> {
    let names = Names::new(table);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = DocumentSeed { names: &names }.deserialize(&mut de)?;
    de.end()?;
    if let Some(game) = parsed.game {
        if game != table.name {
            return Err(TreeFileError::WrongGame {
                file: game,
                expected: table.name.clone(),
            });
        }
    }
    Ok(parsed.tree)
}

/// Reads a tree file and replays it over every code of the game: the
/// check behind `game analyze --tree`, independent of the solver that
/// wrote the file.
pub fn replay_json(table: &Table, text: &str) -> Result<(Tree, Analysis), TreeFileError> {
    let tree = from_json(table, text)?;
    let analysis = tree.analyze(table)?;
    Ok((tree, analysis))
}

// ----- Graphviz ------------------------------------------------------

/// The tree as a Graphviz digraph: boxes for experiments, ellipses for
/// found codes, edges labelled with outcomes.
pub fn to_dot(table: &Table, tree: &Tree) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph strategy {{");
    let _ = writeln!(out, "  label={};", quote(&table.name));
    let _ = writeln!(out, "  node [fontname=\"Helvetica\"];");
    let mut next = 0usize;
    dot_node(table, tree, &mut next, &mut out);
    out.push_str("}\n");
    out
}

fn dot_node(table: &Table, tree: &Tree, next: &mut usize, out: &mut String) -> usize {
    let id = *next;
    *next += 1;
    match tree {
        Tree::Leaf { code } => {
            let name = table.codes.get(*code).map(String::as_str).unwrap_or("?");
            let _ = writeln!(out, "  n{id} [shape=ellipse, label={}];", quote(name));
        }
        Tree::Node {
            experiment,
            children,
        } => {
            let name = table
                .experiments
                .get(*experiment)
                .map(|e| e.to_string())
                .unwrap_or_else(|| "?".into());
            let _ = writeln!(out, "  n{id} [shape=box, label={}];", quote(&name));
            for (o, child) in children {
                let c = dot_node(table, child, next, out);
                let label = table
                    .outcomes
                    .get(*o as usize)
                    .map(String::as_str)
                    .unwrap_or("?");
                let _ = writeln!(out, "  n{id} -> n{c} [label={}];", quote(label));
            }
        }
    }
    id
}

/// A DOT string literal.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for ch in s.chars() {
        match ch {
            '"' | '\\' => {
                q.push('\\');
                q.push(ch);
            }
            '\n' => q.push_str("\\n"),
            _ => q.push(ch),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::optimal::{solve, Objective, Options};
    use crate::game::table::Builtin;

    fn table(name: &str) -> Table {
        name.parse::<Builtin>().unwrap().table()
    }

    fn optimal(t: &Table) -> Tree {
        solve(t, None, &Options::default(), None).unwrap().tree
    }

    #[test]
    fn json_round_trip() {
        for name in ["mastermind:3x3", "coins:5+1", "bulls-cows:3x4"] {
            let t = table(name);
            let tree = optimal(&t);
            let text = to_json(&t, &tree);
            assert_eq!(from_json(&t, &text).unwrap(), tree, "{name}");
        }
        let t = table("coins:4");
        let tree = solve(
            &t,
            None,
            &Options {
                objective: Objective::Worst,
                ..Options::default()
            },
            None,
        )
        .unwrap()
        .tree;
        assert_eq!(from_json(&t, &to_json(&t, &tree)).unwrap(), tree);
    }

    #[test]
    fn small_tree_snapshot() {
        let t = table("mastermind:2x2");
        insta::assert_snapshot!(to_json(&t, &optimal(&t)));
        insta::assert_snapshot!(to_dot(&t, &optimal(&t)));
    }

    #[test]
    fn unknown_names_are_located() {
        let t = table("mastermind:2x2");
        let text =
            "{\n  \"tree\": {\n    \"experiment\": \"guess ZZ\",\n    \"children\": {}\n  }\n}";
        let err = from_json(&t, text).unwrap_err();
        let TreeFileError::At { line, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*line, 3);
        assert!(
            message.contains("unknown experiment `guess ZZ`"),
            "{message}"
        );

        let text = r#"{"tree": {"experiment": "AB", "children": {"9b9w": {"code": "AA"}}}}"#;
        let err = from_json(&t, text).unwrap_err().to_string();
        assert!(err.contains("unknown outcome `9b9w`"), "{err}");

        let text = r#"{"tree": {"experiment": "AB", "children": {"2b0w": {"code": "QQ"}}}}"#;
        let err = from_json(&t, text).unwrap_err().to_string();
        assert!(err.contains("unknown code `QQ`"), "{err}");

        let err = from_json(&t, "{\"tree\": {\"code\": \"AA\"},").unwrap_err();
        assert!(matches!(err, TreeFileError::At { line: 1, .. }), "{err:?}");

        let text = r#"{"game": "mastermind:2x3", "tree": {"code": "AA"}}"#;
        assert!(matches!(
            from_json(&t, text),
            Err(TreeFileError::WrongGame { .. })
        ));
    }

    #[test]
    fn replay_checks_the_tree() {
        let t = table("mastermind:2x3");
        let tree = optimal(&t);
        let (back, analysis) = replay_json(&t, &to_json(&t, &tree)).unwrap();
        assert_eq!(back, tree);
        assert_eq!(analysis.total, 21);
        // Drop a branch: replay names a code the tree does not find.
        let mut broken = tree.clone();
        if let Tree::Node { children, .. } = &mut broken {
            children.remove(0);
        }
        let err = replay_json(&t, &to_json(&t, &broken)).unwrap_err();
        assert!(matches!(err, TreeFileError::Replay(_)), "{err}");
    }

    #[test]
    fn experiments_by_bare_or_full_name() {
        let t = table("mastermind:4x6");
        assert_eq!(
            experiment_by_name(&t, "AABB"),
            experiment_by_name(&t, "guess AABB")
        );
        assert!(experiment_by_name(&t, "AABB").is_some());
        assert!(experiment_by_name(&t, "AAGG").is_none());
        let c = table("coins:4");
        assert!(experiment_by_name(&c, "weighing2 1 2 3 4").is_some());
    }
}
