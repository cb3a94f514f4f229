//! The `robocc` command line: compile robots.txt files and check URLs.
//!
//! Exit codes: 0 success; 1 `check --fail-on-disallow` saw a disallowed URL;
//! 2 usage or input error (the message names the file).

// clap turns the CLI's doc comments into --help text, where `<host>.txt` and
// `verdict<TAB>URL` are meant literally, not as HTML.
#![allow(rustdoc::invalid_html_tags)]

mod cli;

fn main() {
    // `robocc explain … | head` closes stdout early: `println!` then panics
    // with "failed printing to stdout: Broken pipe". Like `check` (which
    // handles the error itself), end quietly instead of printing a panic.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
    std::process::exit(cli::run());
}
