//! Writes the bundled-trace manifest without its prose for the wasm build
//! (`crates/model/src/workload/manifest_prose.rs`).

include!("src/workload/manifest_prose.rs");

fn main() {
    println!("cargo:rerun-if-changed=../../traces/manifest.json");
    println!("cargo:rerun-if-changed=src/workload/manifest_prose.rs");
    let text =
        std::fs::read_to_string("../../traces/manifest.json").expect("../../traces/manifest.json");
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR"))
        .join("manifest-core.json");
    std::fs::write(out, strip_prose(&text)).expect("write manifest-core.json");
}
