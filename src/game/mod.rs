//! Deductive games (Klimoš–Kučera): built-in games, the spec language,
//! knowledge as a formula, explicit outcome tables, strategies.

pub mod cnf;
pub mod generate;
pub mod knowledge;
pub mod spec;
pub mod table;
pub mod tree;
