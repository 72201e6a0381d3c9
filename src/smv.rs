//! (smv: under construction)
