//! What every module of the CLI tests needs: running the binary, reading
//! what it said, and scratch directories.

use robocc_testkit::paths::root;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `robocc ARGS…` in `dir`, with `stdin` on its standard input (none:
/// an empty one), and waits for it.
pub fn robocc_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args(args)
        .current_dir(dir)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(s) = stdin {
        let mut input = child.stdin.take().unwrap();
        // A command that refuses its arguments exits without reading.
        match input.write_all(s) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("{e}"),
            _ => {}
        }
    }
    child.wait_with_output().unwrap()
}

/// Runs `robocc ARGS…` in the workspace root.
pub fn robocc(args: &[&str]) -> Output {
    robocc_in(&root(), args, None)
}

/// Runs `robocc ARGS…` (no standard input), killed and the test failed if
/// it has not ended within a minute: a command that waits on a FIFO would
/// hang the suite, while a refusal takes milliseconds.
pub fn robocc_bounded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_robocc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    for _ in 0..600 {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().ok();
    panic!("robocc {args:?} did not end within a minute (a FIFO waited on?)");
}

/// Standard output, lossily decoded.
pub fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error, lossily decoded.
pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit `code`, and `needle` on stderr.
#[track_caller]
pub fn assert_exit(o: &Output, code: i32, needle: &str) {
    let e = err(o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "stderr: {e}\nstdout: {}",
        out(o)
    );
    assert!(e.contains(needle), "expected {needle:?} on stderr: {e}");
}

/// A fresh, empty scratch directory for one test, named after the calling
/// module's file and `name` (the modules share one process, so one id).
#[track_caller]
pub fn scratch(name: &str) -> PathBuf {
    let caller = Path::new(std::panic::Location::caller().file());
    let module = caller.file_stem().and_then(|s| s.to_str()).unwrap_or("cli");
    let dir = std::env::temp_dir().join(format!("robocc-{module}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A path as the `&str` an argument list takes.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
