//! The wasm-bindgen boundary (placeholder until the page issue lands a full API).
