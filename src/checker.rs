//! (checker: under construction)
