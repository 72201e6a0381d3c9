//! (bmc: under construction)
