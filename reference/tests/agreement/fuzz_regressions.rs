//! Replays the fuzz seed corpus (fuzz/corpus/<target>/) and every saved crash
//! (fuzz/regressions/<target>/) through the fuzz targets' own code, so that a
//! crash found once stays fixed without the nightly toolchain.

#[path = "../../../fuzz/fuzz_targets/common.rs"]
mod fuzz;

use crate::common;

#[test]
fn fuzz_inputs_replay() {
    let root = common::root().join("fuzz");
    type Target = (&'static str, fn(&[u8]));
    let targets: [Target; 7] = [
        ("parse", fuzz::parse_one),
        ("compile", fuzz::compile_one),
        ("check", fuzz::check_one),
        ("load", fuzz::load_one),
        ("store", fuzz::store_one),
        ("page", fuzz::page_one),
        ("manifest", fuzz::manifest_one),
    ];
    let mut replayed = 0;
    for (name, run) in targets {
        for dir in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else {
                continue;
            };
            for e in entries {
                let path = e.unwrap().path();
                if path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                {
                    continue;
                }
                run(&std::fs::read(&path).unwrap());
                replayed += 1;
            }
        }
    }
    assert!(replayed >= 25, "only {replayed} fuzz inputs replayed");
}
