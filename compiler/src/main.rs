//! The `robocc` command line: compile robots.txt files and check URLs.
//!
//! Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL,
//! or `lint --fail-on SEVERITY` a finding that severe; 2 usage, input or
//! output error (the message names the file).

// clap turns the CLI's doc comments into --help text, where `<host>.txt` and
// `verdict<TAB>URL` are meant literally, not as HTML.
#![allow(rustdoc::invalid_html_tags)]

mod cli;

fn main() {
    // `robocc explain … | head` closes stdout early: `println!` then panics
    // with "failed printing to stdout: Broken pipe". Like `check` (which
    // handles the error itself), end quietly instead of printing a panic.
    // Any other failed write to stdout (a full disk, /dev/full) is an error
    // of the output, not a bug: say so, exit 2. (Diagnostics go through
    // `diag!`, which ignores a closed stderr.)
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            if why.contains("Broken pipe") {
                std::process::exit(0);
            }
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "robocc: error: cannot write to standard output: {why}"
            );
            std::process::exit(2);
        }
        default_hook(info);
    }));
    std::process::exit(cli::run());
}
