//! Loading roots through `skills-core`, exactly as `embed_skills!` does, and reporting what
//! went wrong the way the compiler would.

use std::env;
use std::io::{self, Write};
use std::path::PathBuf;

use skills_core::{Bundle, Code, Diagnostic};

use crate::args::Source;

/// Loads `source`, resolving its roots against the current directory (the macro resolves them
/// against the crate's manifest directory; run the command from there to get the same paths),
/// with the `warnings` group level (`-D warnings`, `-A warnings`) applied as `#![deny(warnings)]`
/// (or `allow`) in the consuming crate applies it to the macro's warnings: every warning left
/// after the per-lint levels becomes an error, or goes away.
///
/// Packs (`--pack`) are looked up with `cargo metadata` in the current directory; one that
/// cannot be found is an error of the bundle.
pub fn load(source: &Source) -> Bundle {
    let base = base_dir();
    let (packs, unresolved) = match source.options.packs.as_slice() {
        [] => (Vec::new(), None),
        names => match crate::packs::resolve(names, &base) {
            Ok(packs) => (packs, None),
            Err(message) => (Vec::new(), Some(message)),
        },
    };
    let mut bundle = skills_core::load_packs(&base, &source.roots(), &packs, &source.options, None);
    if let Some(message) = unresolved {
        bundle.diagnostics.push(skills_core::unknown_pack(message));
    }
    // The rules' help says where the macro looks; this command looks elsewhere.
    for diagnostic in &mut bundle.diagnostics {
        if diagnostic.code() == Code::MissingRoot {
            *diagnostic = diagnostic.clone().with_help(format!(
                "the `skills` command resolves roots against the current directory ({}); \
                 run it in the folder of the crate's Cargo.toml, as `embed_skills!` resolves \
                 them there",
                base.display()
            ));
        }
    }
    bundle.set_warnings(source.warnings);
    bundle
}

fn base_dir() -> PathBuf {
    env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Writes one diagnostic as [`Diagnostic`]'s `Display` renders it (`error[skills::code]: `,
/// then what the macro's compile error says), then a blank line.
pub fn write_diagnostic(w: &mut dyn Write, diagnostic: &Diagnostic) -> io::Result<()> {
    writeln!(w, "{diagnostic}\n")
}

/// Errors and warnings in `bundle`.
pub fn counts(bundle: &Bundle) -> (usize, usize) {
    let errors = bundle.errors().count();
    (errors, bundle.diagnostics.len() - errors)
}

/// `checked 3 skills: 2 errors` (and `, 1 warning` when there are warnings).
pub fn summary(skills: usize, errors: usize, warnings: usize) -> String {
    let mut line = format!(
        "checked {} {}: {} {}",
        skills,
        plural(skills, "skill", "skills"),
        errors,
        plural(errors, "error", "errors")
    );
    if warnings > 0 {
        line.push_str(&format!(
            ", {} {}",
            warnings,
            plural(warnings, "warning", "warnings")
        ));
    }
    line
}

pub fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// For the commands that show a bundle (list, show, prompt, stats): loads it, writes any
/// warnings to stderr, and returns it when it would compile. When it would not, writes every
/// diagnostic and the summary to stderr and returns `None` (exit code 1): a catalog of a bundle
/// that does not build is not what any binary carries.
pub fn load_valid(source: &Source, err: &mut dyn Write) -> io::Result<Option<Bundle>> {
    let bundle = load(source);
    for diagnostic in &bundle.diagnostics {
        write_diagnostic(err, diagnostic)?;
    }
    if bundle.has_errors() {
        let (errors, warnings) = counts(&bundle);
        writeln!(err, "{}", summary(bundle.skills_found, errors, warnings))?;
        return Ok(None);
    }
    Ok(Some(bundle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_with_plurals() {
        assert_eq!(summary(3, 2, 0), "checked 3 skills: 2 errors");
        assert_eq!(summary(1, 1, 1), "checked 1 skill: 1 error, 1 warning");
        assert_eq!(summary(0, 0, 2), "checked 0 skills: 0 errors, 2 warnings");
    }
}
