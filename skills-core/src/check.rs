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
