//! (grid: under construction)
