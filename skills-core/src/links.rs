//! The rule that a skill's body points only at files it ships: relative Markdown links and
//! images must resolve to an embedded file (an error in every dialect), and so must code spans
//! naming a path in a resource folder (the lint `dangling_code_path`, `deny` by default in
//! strict mode and `warn` under `compat = "claude-code"`, whose skills about writing skills name
//! example paths in their prose).

use std::collections::BTreeSet;

use crate::diagnostic::{Code, Diagnostic};
use crate::lint::{self, Lint, LintOptions};
use crate::skill::SkillDef;
use crate::triggers::EVALS_DIR;

/// Folders that, by the Agent Skills convention, hold a skill's files. A code span such as
/// `scripts/fill.py` is checked when its first segment is one of these or a folder of the skill.
const CONVENTIONAL_DIRS: &[&str] = &["references", "scripts", "assets"];

/// The variable Claude Code (and `invoke`) replaces with the skill's folder.
const SKILL_DIR_VARIABLE: &str = "${CLAUDE_SKILL_DIR}";

/// A reference to a file of the skill found in its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalReference {
    /// The path as written (anchor and query removed).
    pub target: String,
    /// 1-based line in `SKILL.md`.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
    /// Found in a code span (`` `scripts/fill.py` ``), not a link or an image.
    pub in_code: bool,
}

/// Finds the body's references into its own folder: relative Markdown link and image targets
/// (inline and reference definitions), and code spans whose first segment is a resource folder.
/// Fenced code blocks are skipped: what they hold is code, not links.
pub(crate) fn local_references(
    skill: &SkillDef,
    resource_dirs: &BTreeSet<String>,
) -> Vec<LocalReference> {
    let mut found = Vec::new();
    let mut fence: Option<&str> = None;
    for (index, line) in skill.body().lines().enumerate() {
        let line_number = skill.body_line + index;
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(marker)) => {
                fence = Some(marker);
                continue;
            }
            (Some(open), Some(marker)) if open == marker => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            (None, None) => {}
        }
        let mut push = |target: &str, byte_offset: usize, in_code: bool| {
            let column = line[..byte_offset].chars().count() + 1;
            found.push(LocalReference {
                target: target.to_owned(),
                line: line_number,
                column,
                in_code,
            });
        };
        // Reference definitions: `[id]: target`.
        if let Some(rest) = trimmed.strip_prefix('[')
            && let Some((_, after)) = rest.split_once("]:")
        {
            let target = after.trim_start();
            let target = target.split_whitespace().next().unwrap_or("");
            if let Some(target) = local_link_target(target) {
                push(target, line.len() - after.trim_start().len(), false);
            }
        }
        // Inline links and images: `[text](target "title")`.
        let mut search = 0;
        while let Some(found_at) = line[search..].find("](") {
            let start = search + found_at + 2;
            let rest = &line[start..];
            let end = rest.find([')', ' ']).unwrap_or(rest.len());
            if let Some(target) = local_link_target(&rest[..end]) {
                push(target, start, false);
            }
            search = start;
        }
        // Code spans naming a file in a resource folder: `scripts/fill.py`.
        let mut parts = line.split('`');
        let mut offset = 0;
        let mut inside = false;
        for part in parts.by_ref() {
            if inside {
                let candidate = part.trim();
                let first_segment = candidate.split('/').next().unwrap_or("");
                let looks_like_path = candidate.contains('/')
                    && !candidate.contains(char::is_whitespace)
                    && !candidate.contains("://");
                if looks_like_path
                    && (CONVENTIONAL_DIRS.contains(&first_segment)
                        || resource_dirs.contains(first_segment))
                {
                    push(candidate.trim_start_matches("./"), offset, true);
                }
            }
            offset += part.len() + 1;
            inside = !inside;
        }
    }
    found
}

/// The path part of a link target if it is relative (not a URL, not an anchor, not absolute).
fn local_link_target(target: &str) -> Option<&str> {
    let target = target.trim_start_matches('<').trim_end_matches('>');
    let path = target.split(['#', '?']).next().unwrap_or("");
    let is_url = path.contains(':'); // `https:`, `mailto:`, `tel:`, `data:`...
    (!path.is_empty() && !is_url && !path.starts_with('/')).then(|| path.trim_start_matches("./"))
}

/// Resolves a relative reference against the skill folder: `Some(normalized)` when it stays
/// inside, `None` when `..` climbs out.
fn normalize(target: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            segment => parts.push(segment),
        }
    }
    Some(parts.join("/"))
}

/// The rows of the lint table whose lint this module finds on its way (`references(f)`): each
/// names a function of here, with the signature the bundle calls it with.
macro_rules! reference_rules {
    ($($(#[doc = $doc:literal])* $variant:ident { $($key:ident: $value:tt $(($f:ident))?),* $(,)? })*) => {
        $(reference_rules!(@row $($key $value $(($f))?)*);)*
    };
    (@row $($key:ident $value:tt $(($f:ident))?)*) => {
        $(reference_rules!(@check $key $value $(($f))?);)*
    };
    (@check check references($f:ident)) => {
        const _: fn(&SkillDef, &LintOptions) -> Vec<Diagnostic> = $f;
    };
    (@check $key:ident $value:tt $(($f:ident))?) => {};
}
crate::lint_table::lint_table!(reference_rules);

/// The rule: every local reference in the body resolves to an embedded file (or a folder of
/// them, or `SKILL.md` itself). `lints` are resolved for the bundle's dialect.
pub(crate) fn check_references(skill: &SkillDef, lints: &LintOptions) -> Vec<Diagnostic> {
    let dirs: BTreeSet<String> = skill
        .resources
        .iter()
        .filter_map(|r| r.path.split_once('/').map(|(dir, _)| dir.to_owned()))
        .collect();
    let available: Vec<&str> = skill.resources.iter().map(|r| r.path.as_str()).collect();
    let mut diagnostics = Vec::new();
    for reference in local_references(skill, &dirs) {
        let decoded = reference.target.replace("%20", " ");
        // `${CLAUDE_SKILL_DIR}` is the skill's own folder (hosts and `invoke` substitute it), so
        // what follows it is checked as a relative path. Another `${CLAUDE_...}` variable
        // (`${CLAUDE_PLUGIN_ROOT}`) names a place outside the skill that only the host knows:
        // the build cannot check it, and the variable rule already reports it.
        let decoded = match decoded.strip_prefix(SKILL_DIR_VARIABLE) {
            Some(rest) => rest.trim_start_matches('/').to_owned(),
            None if decoded.starts_with("${CLAUDE_") => continue,
            None => decoded,
        };
        let Some(normalized) = normalize(&decoded) else {
            diagnostics.push(
                Diagnostic::error(
                    Code::LinkOutside,
                    &skill.path,
                    format!("`{}` points outside the skill folder", reference.target),
                )
                .at(&skill.text, reference.line, reference.column)
                .with_help("a skill can only use files inside its own folder"),
            );
            continue;
        };
        let exists = normalized == "SKILL.md"
            || normalized.is_empty()
            || skill.resources.iter().any(|r| {
                r.path == normalized
                    || r.path
                        .starts_with(&format!("{}/", normalized.trim_end_matches('/')))
            });
        if exists {
            continue;
        }
        let message = format!(
            "`{}` does not match any file in the skill folder",
            reference.target
        );
        let help = if normalized.split('/').next() == Some(EVALS_DIR) {
            format!(
                "files under `{EVALS_DIR}/` are never embedded nor shown to the model (it must not see its own test)"
            )
        } else {
            match crate::render::suggestion(&normalized, &available, "files of the skill") {
                Some(hint) => hint,
                None => "the skill folder holds no other files; add it next to SKILL.md".to_owned(),
            }
        };
        let position = Some((reference.line, reference.column));
        if reference.in_code {
            let level = lints.level(Lint::DanglingCodePath);
            let help = format!("{help}; if it is only an example, write it as text, not code");
            diagnostics.extend(lint::finding(
                level,
                Lint::DanglingCodePath,
                skill,
                position,
                message,
                &help,
            ));
        } else {
            diagnostics.push(
                Diagnostic::error(Code::DanglingLink, &skill.path, message)
                    .at(&skill.text, reference.line, reference.column)
                    .with_help(help),
            );
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::claude_code::Compat;
    use crate::resources::ResourceDef;
    use crate::skill::{ParseOptions, parse};

    fn skill_with(body: &str, files: &[&str]) -> SkillDef {
        let text = format!("---\nname: s\ndescription: d\n---\n{body}\n");
        let (skill, diagnostics) = parse(
            "k/s/SKILL.md",
            "s",
            text.as_bytes(),
            &ParseOptions::default(),
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let mut skill = skill.unwrap();
        skill.resources = files
            .iter()
            .map(|path| ResourceDef {
                path: (*path).into(),
                file: PathBuf::new(),
                size: 1,
                is_text: true,
                executable: false,
                sha256: String::new(),
            })
            .collect();
        skill
    }

    fn problems(body: &str, files: &[&str]) -> Vec<String> {
        problems_at(body, files, Compat::Strict)
    }

    /// `line:column [code] message` under `compat`, each lint at its default there.
    fn problems_at(body: &str, files: &[&str], compat: Compat) -> Vec<String> {
        let lints = LintOptions::default().resolved(compat);
        check_references(&skill_with(body, files), &lints)
            .iter()
            .map(|d| {
                let (line, column) = (d.line().unwrap_or(0), d.column().unwrap_or(0));
                let severity = if d.is_error() { "error" } else { "warning" };
                format!("{line}:{column} {severity}[{}] {}", d.code(), d.message())
            })
            .collect()
    }

    #[test]
    fn links_and_code_spans_must_resolve() {
        let body = "Read [forms](references/forms.md) and ![chart](assets/chart.png \"t\").\n\
                    Run `scripts/fill.py` then `scripts/missing.py`.\n\
                    See [the guide](./references/guide.md#setup) and [home](https://example.com/x).\n\
                    [ref]: references/gone.md\n\
                    Not ours: `src/lib.rs`, `cargo test`, [top](#usage), [mail](mailto:a@b).";
        let found = problems(
            body,
            &["references/forms.md", "assets/chart.png", "scripts/fill.py"],
        );
        assert_eq!(
            found,
            [
                "6:29 error[dangling-code-path] `scripts/missing.py` does not match any file in the skill folder",
                "7:17 error[dangling-link] `references/guide.md` does not match any file in the skill folder",
                "8:8 error[dangling-link] `references/gone.md` does not match any file in the skill folder",
            ]
        );
    }

    /// Under Claude Code's dialect a code span naming no file is a warning (meta-skills name
    /// example paths); a link that resolves to nothing is an error in every dialect.
    #[test]
    fn code_paths_warn_under_claude_code_and_links_stay_errors() {
        let body = "Put scripts in `scripts/rotate_pdf.py` and assets in `assets/`.\n\
                    See [the guide](references/guide.md) and ![logo](assets/logo.png).";
        assert_eq!(
            problems_at(body, &[], Compat::ClaudeCode),
            [
                "5:17 warning[dangling-code-path] `scripts/rotate_pdf.py` does not match any file in the skill folder",
                "5:55 warning[dangling-code-path] `assets/` does not match any file in the skill folder",
                "6:17 error[dangling-link] `references/guide.md` does not match any file in the skill folder",
                "6:50 error[dangling-link] `assets/logo.png` does not match any file in the skill folder",
            ]
        );
        assert_eq!(
            problems_at(body, &[], Compat::Strict)
                .iter()
                .filter(|p| p.contains(" error[dangling-code-path]"))
                .count(),
            2,
            "strict mode stays strict"
        );
        // Allowed, the lint says nothing; the links are still errors.
        let mut lints = LintOptions::default();
        lints.set_level(Lint::DanglingCodePath, crate::Level::Allow);
        let found = check_references(&skill_with(body, &[]), &lints.resolved(Compat::Strict));
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|d| d.code() == Code::DanglingLink));
    }

    #[test]
    fn a_link_through_the_skill_folder_variable_is_checked_and_plugin_variables_are_not() {
        let body = "[scan](${CLAUDE_SKILL_DIR}/jobs/scan.md) [gone](${CLAUDE_SKILL_DIR}/jobs/gone.md)\n\
                    [scripts](${CLAUDE_PLUGIN_ROOT}/scripts)";
        for compat in [Compat::Strict, Compat::ClaudeCode] {
            assert_eq!(
                problems_at(body, &["jobs/scan.md"], compat),
                [
                    "5:49 error[dangling-link] `${CLAUDE_SKILL_DIR}/jobs/gone.md` does not match any file in the skill folder"
                ],
                "{compat:?}"
            );
        }
    }

    #[test]
    fn evals_are_not_files_the_body_can_name() {
        let found = check_references(
            &skill_with("See [cases](evals/triggers.json).", &["references/a.md"]),
            &LintOptions::default(),
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0].help().unwrap().contains("never embedded"),
            "{}",
            found[0]
        );
    }

    #[test]
    fn fenced_blocks_are_skipped_and_escapes_are_errors() {
        let body = "```sh\npython scripts/absent.py [x](nope.md)\n```\n[up](../other/SKILL.md)\n[folder](references/)";
        let found = problems(body, &["references/a.md"]);
        assert_eq!(
            found,
            ["8:6 error[link-outside] `../other/SKILL.md` points outside the skill folder"]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

        /// The link checker and the lints read arbitrary Markdown: they must never panic.
        #[test]
        fn link_checker_and_lints_never_panic(body in "[ -~\n\t`\\[\\]()#:/.éü漢]{1,300}") {
            let text = format!("---\nname: x\ndescription: d\n---\nx{body}\n");
            if let (Some(mut skill), _) = parse("s/x/SKILL.md", "x", text.as_bytes(), &ParseOptions::default()) {
                skill.resources.clear();
                let _ = check_references(&skill, &crate::LintOptions::default());
                let mut options = crate::LintOptions::default();
                options.set_level(crate::Lint::ExternalUrls, crate::Level::Warn);
                let _ = crate::lint::lint_skill(&skill, &options);
                let _ = crate::lint::lint_bundle(&[skill.clone(), skill], &options);
            }
        }
    }
}
