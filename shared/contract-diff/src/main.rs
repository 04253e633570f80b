//! `contract-diff OLD.json NEW.json`: prints every change the classifier
//! (OpenAPI, or AsyncAPI when NEW is one) finds and the version NEW must carry, and exits 1 when NEW's
//! `info.version` does not move accordingly from OLD's.

use std::process::ExitCode;

fn read(path: &str) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [old, new] = args.as_slice() else {
        eprintln!("usage: contract-diff OLD.json NEW.json");
        return ExitCode::from(2);
    };
    let (old, new) = match (read(old), read(new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    // An AsyncAPI document (the device broker's) by its own rules.
    let report = if new.get("asyncapi").is_some() {
        alyt_contract_diff::classify_asyncapi(&old, &new)
    } else {
        alyt_contract_diff::classify(&old, &new)
    };
    for finding in &report.findings {
        println!("{:?}: {}", finding.change, finding.what);
    }
    println!("change: {:?}", report.change());
    match alyt_contract_diff::check_version(&old, &new, &report) {
        Ok(version) => {
            println!("version {version}: as required");
            ExitCode::SUCCESS
        }
        Err(wrong) => {
            eprintln!("{wrong}");
            ExitCode::FAILURE
        }
    }
}
