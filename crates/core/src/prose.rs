//! Prose for people (parameter help, policy, metric and cluster
//! descriptions) stays out of the WebAssembly package, which has a size
//! budget (issue 4: 600 KB gzipped). [`doc`] keeps a text natively and
//! gives "" in wasm; the page reads the texts from `www/catalog-text.json`
//! instead, which `web::catalog::prose` writes and a test keeps in sync.

/// `text` natively, "" in the WebAssembly build (evaluated at compile time
/// in constants, so the text is not in the package at all).
pub const fn doc(text: &'static str) -> &'static str {
    if cfg!(target_arch = "wasm32") {
        ""
    } else {
        text
    }
}
