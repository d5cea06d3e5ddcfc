//! The `schedlab` command-line tool (see `schedlab --help`).

fn main() {
    std::process::exit(schedlab::cli::main());
}
