//! Every file of the shared real-world corpus (and corpus/real) parses and
//! compiles: no panic, and each file yields rules or diagnostics.

mod common;

use robocc_compiler::parse::{parse, ParseOptions};
use robocc_compiler::{compile, CompileOptions};
use robocc_engine::Policy;

fn check_dir(dir: &std::path::Path, compile_every: usize) -> (usize, usize) {
    let files = common::txt_files(dir);
    let mut compiled = 0;
    for (i, path) in files.iter().enumerate() {
        let body = std::fs::read(path).unwrap();
        let robots = parse(&body, &ParseOptions::default());
        let rules = robots.rules().count() + robots.orphan_rules.len();
        let records =
            robots.global.len() + robots.groups.iter().map(|g| g.records.len()).sum::<usize>();
        assert!(
            rules + records + robots.diagnostics.len() > 0,
            "{}: nothing parsed and nothing said",
            path.display()
        );
        if i % compile_every == 0 {
            let c = compile(&body, "Googlebot", &CompileOptions::default())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let bytes = c.to_bytes();
            Policy::from_bytes(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            compiled += 1;
        }
    }
    (files.len(), compiled)
}

#[test]
fn corpus_real_parses_and_compiles() {
    let (files, compiled) = check_dir(&common::root().join("corpus/real"), 1);
    assert_eq!(files, compiled);
    assert!(files >= 40);
}

#[test]
fn shared_corpus_parses_and_compiles() {
    let Some(dir) = common::shared_real() else {
        eprintln!("../shared/corpus/real not present: skipped");
        return;
    };
    // Parse every file; compile every 4th (all of them with ROBOCC_FULL=1).
    let every = if std::env::var_os("ROBOCC_FULL").is_some() {
        1
    } else {
        4
    };
    let (files, compiled) = check_dir(&dir, every);
    assert!(files > 4000, "{files} files");
    assert!(compiled >= files / every);
}
