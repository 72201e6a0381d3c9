//! The `checkmate` binary: parses arguments, calls the library, prints
//! `checkmate: <error>` once and sets the exit code.

fn main() {
    println!("checkmate: under construction");
}
