//! (trace: under construction)
