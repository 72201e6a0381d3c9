//! checkmate: a model-checking backend for puzzles and games.
//!
//! One pipeline: a frontend (`grid`, `game`) turns a puzzle or game into a
//! [`ir::System`]; an engine (`smv` + `checker` + `trace` for NuSMV/nuXmv,
//! `bmc` for the embedded SAT solver) produces an [`ir::Trace`]; the
//! frontend decodes it and its own checker verifies it before it is shown.

pub mod bmc;
pub mod checker;
pub mod game;
pub mod grid;
pub mod input;
pub mod ir;
pub mod smv;
pub mod trace;
