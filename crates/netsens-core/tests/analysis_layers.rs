//! The sensitivity analysis (`src/analysis`) reads as five layers, each a folder,
//! each using only the layers before it: record ← prices ← passes ← searches ←
//! answer. This reads the sources and fails where a file of one layer names a later
//! layer (outside its tests), where a file lies outside the layers, or where a file
//! grows past the size a newcomer can read in one go.

use std::path::{Path, PathBuf};

/// The layers, lowest first.
const LAYERS: [&str; 5] = ["record", "prices", "passes", "searches", "answer"];

/// Lines a file of the analysis may have at most.
const MAX_LINES: usize = 600;

/// The code of a source file a layer check reads: comments and the tests (from the
/// first `#[cfg(test)]` on, where a file keeps them at its end) left out.
fn code_of(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or("");
    text.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// The later layers a file of layer `own` names in `code`, as `crate::analysis::L`,
/// `analysis::L::` or a path up out of its own folder (`super::super::L`).
fn later_layers_named(own: usize, code: &str) -> Vec<&'static str> {
    LAYERS[own + 1..]
        .iter()
        .copied()
        .filter(|l| {
            [format!("crate::analysis::{l}"), format!("super::super::{l}"), format!("analysis::{l}::")]
                .iter()
                .any(|p| code.contains(p.as_str()))
        })
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("the analysis folder reads") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn no_layer_of_the_analysis_uses_a_later_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis");
    let mut wrong = Vec::new();
    let mut seen = [0usize; LAYERS.len()];
    for path in rust_files(&root) {
        let rel = path.strip_prefix(&root).expect("under the analysis folder");
        let parts: Vec<_> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        if parts == ["mod.rs"] {
            continue; // The module's root runs and records: above every layer.
        }
        let Some(own) = LAYERS.iter().position(|l| parts[0] == *l) else {
            wrong.push(format!("{}: outside the layers {LAYERS:?}", rel.display()));
            continue;
        };
        seen[own] += 1;
        let text = std::fs::read_to_string(&path).expect("a source file reads");
        let lines = text.lines().count();
        if lines > MAX_LINES {
            wrong.push(format!("{}: {lines} lines (at most {MAX_LINES})", rel.display()));
        }
        if parts.last().is_some_and(|f| f.ends_with("_tests.rs")) {
            continue; // A layer's tests may check it against a later one.
        }
        for later in later_layers_named(own, &code_of(&text)) {
            wrong.push(format!("{}: a file of `{}` uses the later layer `{later}`", rel.display(), LAYERS[own]));
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "every layer holds files: {seen:?}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_finds_a_lower_layer_naming_a_later_one() {
    // The record naming the passes, in a `use` and in a path up and out of its folder.
    let code = code_of("use crate::analysis::passes::lanes::Lane;\nfn f() { super::super::answer::x(); }\n");
    assert_eq!(later_layers_named(0, &code), ["passes", "answer"]);
    // Comments and tests are left out; a later layer may name an earlier one.
    let code = code_of("// see crate::analysis::answer\nfn f() {}\n#[cfg(test)]\nuse crate::analysis::answer::x;\n");
    assert!(later_layers_named(0, &code).is_empty());
    assert!(later_layers_named(4, &code_of("use crate::analysis::record::graph::ExecGraph;")).is_empty());
}
