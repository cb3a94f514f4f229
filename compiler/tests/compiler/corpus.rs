//! Every file of the shared real-world corpus (and corpus/real) parses with
//! no panic and yields rules, records or diagnostics; corpus/real files also
//! compile and load here (differential.rs compiles every shared file).

use robocc_testkit::paths::{root, shared_real};

use robocc_compiler::parse::{parse, ParseOptions};
use robocc_compiler::CompileOptions;
use robocc_engine::Policy;

fn check_dir(dir: &std::path::Path, compile: bool) -> (usize, usize) {
    let files = robocc_testkit::corpus::txt_files(dir);
    let mut compiled = 0;
    for path in &files {
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
        if compile {
            let c = robocc_compiler::compile(&body, "Googlebot", &CompileOptions::default())
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
    let (files, compiled) = check_dir(&root().join("corpus/real"), true);
    assert_eq!(files, compiled);
    assert!(files >= 40);
}

#[test]
fn shared_corpus_parses_and_compiles() {
    let Some(dir) = shared_real() else {
        eprintln!("../shared/corpus/real not present: skipped");
        return;
    };
    // Parse every file here; differential.rs compiles every one of them.
    let (files, _) = check_dir(&dir, false);
    assert!(files > 4000, "{files} files");
}
