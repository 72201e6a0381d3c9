//! Deductive games (Klimoš–Kučera): built-in games, the spec language,
//! knowledge as a formula, explicit outcome tables, strategies.

pub mod optimal;
pub mod strategy_model;
pub mod symmetry;
pub mod table;
pub mod tree;
pub mod tree_io;
