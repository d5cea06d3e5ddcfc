//! Architecture invariants (docs/ARCHITECTURE.md). The compiler keeps the layer
//! crates apart (a crate sees only the crates it depends on, and Cargo refuses
//! loops); this test keeps the *order* of the layers: a crate may depend only on
//! crates of lower layers, so nobody adds an upward dependency by accident.

use std::collections::BTreeMap;
use std::path::Path;

/// The layers from the bottom up; a crate may depend on crates of lower rank.
/// `lab` and `web` sit side by side: neither may depend on the other.
const LAYERS: &[(&str, u32)] = &[
    ("core", 0),
    ("model", 1),
    ("solve", 1),
    ("sim", 2),
    ("policies", 3),
    ("metrics", 3),
    ("run", 4),
    ("lab", 5),
    ("web", 5),
    ("cli", 6),
];

/// The `schedlab-*` dependencies of a crate's Cargo.toml (every table: normal,
/// dev and target-specific).
fn schedlab_deps(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("schedlab-"))
        .filter_map(|rest| rest.split([' ', '=']).next())
        .map(str::to_string)
        .collect()
}

#[test]
fn layer_crates_depend_only_on_lower_layers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rank: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let own = *rank
            .get(name.as_str())
            .unwrap_or_else(|| panic!("crates/{name} is not in LAYERS: give it a layer"));
        for dep in schedlab_deps(&dir.join("Cargo.toml")) {
            let theirs = *rank
                .get(dep.as_str())
                .unwrap_or_else(|| panic!("crates/{name} depends on unknown schedlab-{dep}"));
            assert!(
                theirs < own,
                "crates/{name} (layer {own}) depends on schedlab-{dep} (layer {theirs}): \
                 a crate may depend only on lower layers"
            );
        }
        seen += 1;
    }
    assert_eq!(seen, LAYERS.len(), "every layer has its crate");
}

#[test]
fn only_the_facade_knows_wasm_bindgen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        for forbidden in ["wasm-bindgen", "js-sys", "web-sys"] {
            assert!(
                !text.contains(forbidden),
                "{} depends on {forbidden}: only src/wasm.rs talks to JavaScript",
                manifest.display()
            );
        }
    }
}
