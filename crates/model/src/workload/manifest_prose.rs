// The bundled-trace manifest without its prose (each entry's `description`
// and `source` lines), for the WebAssembly build, which has a size budget:
// the page reads those texts from `www/catalog-text.json` instead. Shared by
// `build.rs` (which writes the stripped copy) and a test (which checks that
// the copy parses to the same entries). The manifest is pretty-printed with
// one key per line, and `description` and `source` are never an entry's last key.

/// `json` without the lines of its `description` and `source` keys.
pub fn strip_prose(json: &str) -> String {
    json.lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("\"description\":") || t.starts_with("\"source\":"))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}
