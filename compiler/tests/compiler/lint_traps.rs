//! The traps of issue 46, one file each in `tests/lint-traps/`: a file
//! named for its finding says on its first line `# expect: LINE SEVERITY
//! CODE`, and lint must report exactly that finding of that code; a file
//! named `clean-*` is a control, on which lint reports nothing above info.

use robocc_compiler::diag::Severity;
use robocc_compiler::lint::lint;
use robocc_compiler::CompileOptions;

#[test]
fn trap_files_get_their_finding_and_controls_none() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint-traps");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (mut traps, mut controls) = (0, 0);
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let body = std::fs::read(path).unwrap();
        let findings = lint(&body, None, &CompileOptions::default());
        if name.starts_with("clean-") {
            controls += 1;
            let loud: Vec<_> = findings
                .iter()
                .filter(|f| f.severity > Severity::Info)
                .collect();
            assert!(loud.is_empty(), "{name}: {loud:#?}");
            continue;
        }
        traps += 1;
        let text = String::from_utf8(body).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| panic!("{name}: no `# expect:` line"));
        let mut words = expect.split(' ');
        let line: u32 = words.next().unwrap().parse().unwrap();
        let severity = words.next().unwrap();
        let code = words.next().unwrap();
        let of_code: Vec<_> = findings.iter().filter(|f| f.code == code).collect();
        assert_eq!(of_code.len(), 1, "{name}: {findings:#?}");
        assert_eq!(
            (of_code[0].line, of_code[0].severity.name()),
            (line, severity),
            "{name}: {findings:#?}"
        );
        // Each says what a crawler does and how to write what was meant.
        assert!(!of_code[0].fix.is_empty(), "{name}");
    }
    assert!(
        traps >= 12 && controls >= 3,
        "{traps} traps, {controls} controls"
    );
}
