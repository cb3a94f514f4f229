//! The `robocc` command line: compile robots.txt files and check URLs.
//!
//! Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL;
//! 2 usage or input error (the message names the file).

mod cli;

fn main() {
    std::process::exit(cli::run());
}
