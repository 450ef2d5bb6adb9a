//! `skills check`: every diagnostic the macro would report, then a verdict.

use std::io;

use serde::Serialize;
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
            let document = Document {
                diagnostics: bundle
                    .diagnostics
                    .iter()
                    .map(DiagnosticJson::from)
                    .collect(),
                summary: Summary {
                    skills: checked,
                    valid: bundle.skills.len(),
                    errors,
                    warnings,
                    ok: errors == 0,
                    text: summary(checked, errors, warnings),
                },
            };
            let text = serde_json::to_string_pretty(&document).map_err(io::Error::other)?;
            writeln!(streams.out, "{text}")?;
        }
    }
    Ok(code)
}

/// The `--format json` document. Structs, not maps, so the key order is the declaration order
/// whatever features `serde_json` is built with.
#[derive(Serialize)]
struct Document<'a> {
    diagnostics: Vec<DiagnosticJson<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Summary {
    skills: usize,
    valid: usize,
    errors: usize,
    warnings: usize,
    ok: bool,
    text: String,
}

/// One diagnostic for machines. `code` names the rule (`name-mismatch`); `line` and `column`
/// are `null` when unknown (a problem with a whole file or folder); `rendered` is the text form,
/// as `skills check` prints it.
#[derive(Serialize)]
struct DiagnosticJson<'a> {
    severity: &'static str,
    code: &'static str,
    path: &'a str,
    line: Option<u32>,
    column: Option<u32>,
    message: &'a str,
    help: Option<&'a str>,
    source_line: Option<&'a str>,
    rendered: String,
}

impl<'a> From<&'a Diagnostic> for DiagnosticJson<'a> {
    fn from(diagnostic: &'a Diagnostic) -> Self {
        DiagnosticJson {
            severity: diagnostic.severity().as_str(),
            code: diagnostic.code().as_str(),
            path: diagnostic.path(),
            line: diagnostic.line(),
            column: diagnostic.column(),
            message: diagnostic.message(),
            help: diagnostic.help(),
            source_line: diagnostic.source_line(),
            rendered: diagnostic.to_string(),
        }
    }
}
