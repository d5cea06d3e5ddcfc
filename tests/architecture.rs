//! Architecture invariants that the compiler does not check: the top-level
//! modules form layers without loops (docs/ARCHITECTURE.md, "Module
//! layering"). A `crate::X` path in a file of module Y is a dependency of
//! Y on X.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn collect(dir: &Path, src: &Path, deps: &mut BTreeMap<String, BTreeSet<String>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, src, deps);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "bin" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices("crate::") {
            let name: String = text[at + 7..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() && name != module {
                deps.entry(module.clone()).or_default().insert(name);
            }
        }
    }
}

/// The modules reachable from `from` through dependencies.
fn reach(deps: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(m) = stack.pop() {
        for d in deps.get(&m).into_iter().flatten() {
            if seen.insert(d.clone()) {
                stack.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn top_level_modules_have_no_loops() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut deps = BTreeMap::new();
    collect(&src, &src, &mut deps);
    assert!(
        deps.contains_key("sim") && deps.contains_key("policy"),
        "{deps:?}"
    );
    // The engine depends on no policy, and the models on no workload.
    assert!(
        !reach(&deps, "sim").contains("policy"),
        "sim reaches policy"
    );
    assert!(
        !reach(&deps, "perf").contains("workload"),
        "perf reaches workload"
    );
    let loops: Vec<&String> = deps
        .keys()
        .filter(|m| reach(&deps, m).contains(*m))
        .collect();
    assert!(loops.is_empty(), "modules in a dependency loop: {loops:?}");
}
