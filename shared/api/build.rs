//! Embeds the committed contract documents compact: every hosted function
//! serves them (`openapi::COMMITTED_*`), and the pretty-printed files cost
//! about 5 KB more of each zipped bootstrap (the homes group's is within
//! a few KB of Lambda's 5 MB goal). The committed files stay pretty for
//! review; a test holds the embedded copies equal to the generated ones.

use std::path::Path;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for name in ["openapi.json", "asyncapi.json"] {
        let source = Path::new("contract").join(name);
        println!("cargo:rerun-if-changed={}", source.display());
        let text = std::fs::read_to_string(&source)
            .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        let document: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{} is not JSON: {e}", source.display()));
        let compact = serde_json::to_vec(&document).expect("a JSON value serializes");
        std::fs::write(Path::new(&out).join(name), compact).expect("OUT_DIR is writable");
    }
}
