//! `skills check`: every diagnostic the macro would report, then a verdict.

use std::io;

use serde_json::{Value, json};
use skills_core::Diagnostic;

use crate::args::{CheckFormat, Source};
use crate::bundle::{self, counts, summary};
use crate::output::Streams;

/// Runs `skills check`. Exit code 1 when any diagnostic is an error, 0 otherwise (warnings
/// do not fail, as they do not fail the build). Everything goes to stdout: here the
/// diagnostics *are* the result.
pub fn run(source: &Source, format: CheckFormat, streams: &mut Streams<'_>) -> io::Result<u8> {
    let bundle = bundle::load(source);
    let checked = bundle.skills_found;
    let (errors, warnings) = counts(&bundle);
    let code = u8::from(errors > 0);
    match format {
        CheckFormat::Text => {
            for diagnostic in &bundle.diagnostics {
                bundle::write_diagnostic(streams.out, diagnostic)?;
            }
            writeln!(streams.out, "{}", summary(checked, errors, warnings))?;
        }
        CheckFormat::Json => {
            let document = json!({
                "diagnostics": bundle.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
                "summary": {
                    "skills": checked,
                    "valid": bundle.skills.len(),
                    "errors": errors,
                    "warnings": warnings,
                    "ok": errors == 0,
                    "text": summary(checked, errors, warnings),
                },
            });
            let text = serde_json::to_string_pretty(&document).map_err(io::Error::other)?;
            writeln!(streams.out, "{text}")?;
        }
    }
    Ok(code)
}

/// One diagnostic for machines. `code` names the rule (`name-mismatch`); `line` and `column`
/// are `null` when unknown (a problem with a whole file or folder); `rendered` is the text form,
/// as `skills check` prints it.
fn diagnostic_json(diagnostic: &Diagnostic) -> Value {
    json!({
        "severity": diagnostic.severity().as_str(),
        "code": diagnostic.code().as_str(),
        "path": diagnostic.path(),
        "line": diagnostic.line(),
        "column": diagnostic.column(),
        "message": diagnostic.message(),
        "help": diagnostic.help(),
        "source_line": diagnostic.source_line(),
        "rendered": diagnostic.to_string(),
    })
}
