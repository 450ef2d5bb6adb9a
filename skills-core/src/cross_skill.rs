//! Duplicate names across roots and the cross-field rules of `requires` / `conflicts-with`: checks that look at
//! more than one skill, or at one skill against the bundle. One small function per rule.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{Code, Diagnostic};
use crate::discover::FoundSkill;
use crate::render::suggestion;
use crate::skill::{FrontmatterKey, SkillDef};
use crate::spanned::Spanned;

/// Two folders with the same name (from two roots) would shadow each other. One error per
/// name, naming every path involved.
pub(crate) fn duplicate_names(found: &[FoundSkill]) -> Vec<Diagnostic> {
    let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for skill in found {
        by_name
            .entry(&skill.dir_name)
            .or_default()
            .push(&skill.display_path);
    }
    by_name
        .into_iter()
        .filter(|(_, paths)| paths.len() > 1)
        .map(|(name, paths)| {
            Diagnostic::error(
                Code::DuplicateName,
                paths[1],
                format!(
                    "skill `{name}` is defined more than once: {}",
                    paths.join(", ")
                ),
            )
            .with_help("skill names must be unique across all roots and packs; rename or remove one of them")
        })
        .collect()
}

/// Skill names that look the same: equal Unicode confusable skeletons (UTS #39: `сode-review`
/// with a Cyrillic `с` and `code-review`, `paypal` and `paypa1`), among every name and display
/// name of the bundle, packs included. A person reading the catalog, `skills list` or an audit
/// log could not tell which skill the model loaded. One error per look-alike, at its name,
/// naming the first of its group and its file.
pub(crate) fn confusable_names(skills: &[SkillDef]) -> Vec<Diagnostic> {
    /// A name a person reads: the text, its skill, and what kind of name it is.
    struct Shown<'a> {
        name: &'a Spanned<String>,
        skill: &'a SkillDef,
        kind: &'static str,
    }
    let mut names: Vec<Shown<'_>> = Vec::new();
    for skill in skills {
        names.push(Shown {
            name: &skill.name,
            skill,
            kind: "skill name",
        });
        if let Some(display) = &skill.claude_code.display_name {
            names.push(Shown {
                name: display,
                skill,
                kind: "display name",
            });
        }
    }
    names.sort_by(|a, b| (&a.name.value, &a.skill.path).cmp(&(&b.name.value, &b.skill.path)));
    let mut groups: BTreeMap<String, Vec<Shown<'_>>> = BTreeMap::new();
    for shown in names {
        groups
            .entry(skeleton(&shown.name.value))
            .or_default()
            .push(shown);
    }
    let mut diagnostics = Vec::new();
    for group in groups.values() {
        let first = &group[0];
        for other in group[1..]
            .iter()
            .filter(|o| o.name.value != first.name.value)
        {
            diagnostics.push(
                Diagnostic::error(
                    Code::ConfusableName,
                    &other.skill.path,
                    format!(
                        "{} `{}` looks the same as {} `{}` of `{}`: people cannot tell the two apart",
                        other.kind, other.name.value, first.kind, first.name.value, first.skill.path
                    ),
                )
                .at(&other.skill.text, other.name.line, other.name.column)
                .with_help("rename one of them to a name that reads differently"),
            );
        }
    }
    diagnostics
}

/// The UTS #39 confusable skeleton of `text`. Every name of the bundle goes through it on every
/// build, so an ASCII name (the common case) is mapped character by character from a table of
/// the 128 ASCII skeletons: the skeleton of ASCII text is the concatenation of its characters'
/// (ASCII needs no normalization, and every ASCII prototype is ASCII).
fn skeleton(text: &str) -> String {
    use std::sync::OnceLock;
    static ASCII: OnceLock<Vec<String>> = OnceLock::new();
    if !text.is_ascii() {
        return unicode_security::skeleton(text).collect();
    }
    let table = ASCII.get_or_init(|| {
        (0u8..128)
            .map(|b| unicode_security::skeleton(&char::from(b).to_string()).collect())
            .collect()
    });
    text.bytes()
        .map(|b| table[usize::from(b)].as_str())
        .collect()
}

/// The rules for `requires` and `conflicts-with`: every target exists in the
/// bundle, no skill names itself, and no skill both requires and conflicts with the same one.
/// `bundle_names` holds every discovered skill, valid or not, so a broken target is not
/// reported twice.
pub(crate) fn references(skill: &SkillDef, bundle_names: &BTreeSet<String>) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let error = |code: Code, at: &Spanned<String>, message: String| {
        Diagnostic::error(code, &skill.path, message).at(&skill.text, at.line, at.column)
    };
    for (key, dangling, targets) in [
        (
            FrontmatterKey::Requires.as_str(),
            Code::DanglingRequires,
            &skill.requires,
        ),
        (
            FrontmatterKey::ConflictsWith.as_str(),
            Code::DanglingConflict,
            &skill.conflicts_with,
        ),
    ] {
        for target in targets {
            if target.value == skill.name.value {
                diagnostics.push(error(
                    Code::SelfReference,
                    target,
                    format!("`{key}` names the skill itself (`{}`)", target.value),
                ));
            } else if !bundle_names.contains(&target.value) {
                let mut diagnostic = error(
                    dangling,
                    target,
                    format!(
                        "`{key}` names `{}`, which is not a skill in this bundle",
                        target.value
                    ),
                );
                let names: Vec<&str> = bundle_names
                    .iter()
                    .map(String::as_str)
                    .filter(|name| *name != skill.name.value)
                    .collect();
                if let Some(help) = suggestion(&target.value, &names, "skills of the bundle") {
                    diagnostic = diagnostic.with_help(help);
                }
                diagnostics.push(diagnostic);
            }
        }
    }
    for conflict in &skill.conflicts_with {
        if skill
            .requires
            .iter()
            .any(|required| required.value == conflict.value)
            && conflict.value != skill.name.value
        {
            diagnostics.push(error(
                Code::RequiresAndConflicts,
                conflict,
                format!(
                    "`{}` is both required and in `conflicts-with`",
                    conflict.value
                ),
            ));
        }
    }
    diagnostics
}

/// The skills the task cases' `loaded` and `not_loaded` checks name must be in the bundle: a
/// misspelled name would make a `not_loaded` check pass whatever the agent does.
pub(crate) fn task_skills(skill: &SkillDef, bundle_names: &BTreeSet<String>) -> Vec<Diagnostic> {
    let Some(tasks) = &skill.tasks else {
        return Vec::new();
    };
    let names: Vec<&str> = bundle_names.iter().map(String::as_str).collect();
    tasks
        .skill_refs
        .iter()
        .filter(|(name, _)| !bundle_names.contains(&name.value))
        .map(|(name, line)| {
            let mut diagnostic = Diagnostic::error(
                Code::TaskUnknownSkill,
                &tasks.path,
                format!(
                    "a check names `{}`, which is not a skill in this bundle",
                    name.value
                ),
            )
            .at(line, 1, name.column);
            diagnostic.line = u32::try_from(name.line).ok();
            if let Some(help) = suggestion(&name.value, &names, "skills of the bundle") {
                diagnostic = diagnostic.with_help(help);
            }
            diagnostic
        })
        .collect()
}

/// `catalog_budget`: the catalog is in every system prompt, so its length is a cost on every
/// turn. Over the budget, one error naming the skills whose lines are longest (at most three).
pub(crate) fn catalog_budget(
    skills: &[SkillDef],
    shown_roots: &[String],
    budget: u64,
) -> Vec<Diagnostic> {
    let entries: Vec<_> = skills.iter().map(SkillDef::catalog_entry).collect();
    let length = crate::render::catalog_markdown(&entries).chars().count() as u64;
    if skills.is_empty() || length <= budget {
        return Vec::new();
    }
    // Each listed skill's share: its line and the newline before the next one.
    let mut shares: Vec<(usize, &str)> = crate::render::listed(&entries)
        .map(|entry| {
            let line = crate::render::catalog_markdown(std::slice::from_ref(entry));
            (line.chars().count() + 1, entry.name)
        })
        .collect();
    shares.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let largest: Vec<String> = shares
        .iter()
        .take(3)
        .map(|(chars, name)| format!("`{name}` ({chars})"))
        .collect();
    vec![
        Diagnostic::error(
            Code::CatalogOverBudget,
            shown_roots.join(", "),
            format!(
                "the catalog is {length} characters, over the budget of {budget}; the skills that \
                 contribute most: {}",
                largest.join(", ")
            ),
        )
        .with_help(
            "shorten those descriptions (details belong in the body), or raise `catalog_budget`",
        ),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ascii_skeletons_are_those_of_the_library() {
        for text in [
            "paypal",
            "paypa1",
            "rn-m",
            "0O-Il1|",
            "code-review",
            "ABC xyz ~!",
        ] {
            let library: String = unicode_security::skeleton(text).collect();
            assert_eq!(super::skeleton(text), library, "{text}");
        }
        // Every pair of ASCII characters: the table's concatenation is the library's skeleton.
        for a in 0u8..128 {
            for b in 0u8..128 {
                let text = String::from_utf8(vec![a, b]).unwrap();
                let library: String = unicode_security::skeleton(&text).collect();
                assert_eq!(super::skeleton(&text), library, "{text:?}");
            }
        }
        assert_eq!(super::skeleton("paypa1"), super::skeleton("paypal"));
        assert_eq!(super::skeleton("рое"), super::skeleton("poe"));
    }
}
