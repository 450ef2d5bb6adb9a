//! `skills list`, `skills show NAME` and `skills prompt`: what a bundle holds and what the
//! model sees of it.

use std::io::{self, IsTerminal};

use skills_core::SkillDef;
use skills_core::render::{self, collapse_whitespace};

use crate::args::{CatalogFormat, Source};
use crate::bundle;
use crate::output::Streams;

/// `skills list`: one line per skill, sorted by name: name, version (`-` when unset) and the
/// description with whitespace collapsed, in aligned columns.
pub fn list(source: &Source, streams: &mut Streams<'_>) -> io::Result<u8> {
    let Some(bundle) = bundle::load_valid(source, streams.err)? else {
        return Ok(1);
    };
    if bundle.skills.is_empty() {
        writeln!(
            streams.err,
            "note: no skills found in {}",
            source.dirs.join(", ")
        )?;
        return Ok(0);
    }
    let name_width = bundle
        .skills
        .iter()
        .map(|s| s.name.value.len())
        .max()
        .unwrap_or(0);
    let version_width = bundle
        .skills
        .iter()
        .map(|s| version(s).chars().count())
        .max()
        .unwrap_or(0);
    for skill in &bundle.skills {
        writeln!(
            streams.out,
            "{:name_width$}  {:version_width$}  {}",
            skill.name.value,
            version(skill),
            collapse_whitespace(&skill.description.value)
        )?;
    }
    Ok(0)
}

/// The version `list` shows: `-` when unset.
fn version(skill: &SkillDef) -> &str {
    skill.version.as_ref().map_or("-", |v| v.value.as_str())
}

/// `skills show NAME`: every frontmatter field that is set, the path, the SHA-256 the binary
/// records, the resources, the trigger and task cases (`evals/triggers.json`, `evals/evals.json`)
/// when there are any, then a blank line and the body exactly as `load_skill` returns it.
/// An unknown name fails (exit 1) with the same message the `load_skill` tool gives.
pub fn show(name: &str, source: &Source, streams: &mut Streams<'_>) -> io::Result<u8> {
    let Some(bundle) = bundle::load_valid(source, streams.err)? else {
        return Ok(1);
    };
    let Some(skill) = bundle.skills.iter().find(|s| s.name.value == name) else {
        let names: Vec<&str> = bundle
            .skills
            .iter()
            .map(|s| s.name.value.as_str())
            .collect();
        writeln!(
            streams.err,
            "error: {}",
            render::unknown_skill_message(name, &names)
        )?;
        return Ok(1);
    };
    let out = &mut *streams.out;
    writeln!(out, "name: {}", skill.name.value)?;
    writeln!(
        out,
        "description: {}",
        collapse_whitespace(&skill.description.value)
    )?;
    let optional = [
        ("when-not-to-use", &skill.when_not_to_use),
        ("version", &skill.version),
        ("license", &skill.license),
        ("compatibility", &skill.compatibility),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            writeln!(out, "{key}: {}", collapse_whitespace(&value.value))?;
        }
    }
    let lists = [
        ("allowed-tools", skill.allowed_tools.join(" ")),
        ("tags", skill.tags.join(", ")),
        ("requires", spanned_list(&skill.requires)),
        ("conflicts-with", spanned_list(&skill.conflicts_with)),
    ];
    for (key, value) in lists {
        if !value.is_empty() {
            writeln!(out, "{key}: {value}")?;
        }
    }
    if !skill.metadata.is_empty() {
        writeln!(out, "metadata:")?;
        for (key, value) in &skill.metadata {
            writeln!(out, "  {key}: {}", collapse_whitespace(value))?;
        }
    }
    writeln!(out, "path: {}", skill.path)?;
    writeln!(out, "sha256: {}", skill.sha256)?;
    if skill.resources.is_empty() {
        writeln!(out, "resources: none")?;
    } else {
        writeln!(out, "tree-sha256: {}", skill.tree_sha256)?;
        writeln!(out, "resources:")?;
        for resource in &skill.resources {
            writeln!(out, "  {} ({} bytes)", resource.path, resource.size)?;
        }
    }
    if let Some(triggers) = &skill.triggers {
        let (positive, negative) = triggers.counts();
        writeln!(
            out,
            "trigger cases: {} ({positive} should load it, {negative} should not)",
            triggers.cases.len()
        )?;
    }
    if let Some(tasks) = &skill.tasks {
        let assertions: usize = tasks.cases.iter().map(|c| c.assertions.len()).sum();
        writeln!(
            out,
            "task cases: {} ({assertions} assertions, {} files)",
            tasks.cases.len(),
            tasks.fixtures.len()
        )?;
    }
    writeln!(out, "body: {} lines", skill.body().lines().count())?;
    writeln!(out)?;
    writeln!(out, "{}", skill.body())?;
    Ok(0)
}

fn spanned_list(items: &[skills_core::Spanned<String>]) -> String {
    items
        .iter()
        .map(|item| item.value.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `skills prompt`: the catalog the binary would carry, byte for byte, rendered by the same
/// `skills_core::render` function the macro calls. Nothing else goes to stdout; a newline is
/// added only when stdout is a terminal, so redirected output is exact.
pub fn prompt(source: &Source, format: CatalogFormat, streams: &mut Streams<'_>) -> io::Result<u8> {
    let Some(bundle) = bundle::load_valid(source, streams.err)? else {
        return Ok(1);
    };
    let catalog = catalog(&bundle.skills, format);
    streams.out.write_all(catalog.as_bytes())?;
    if io::stdout().is_terminal() {
        writeln!(streams.out)?;
    }
    Ok(0)
}

/// The catalog of `skills` in `format`.
pub fn catalog(skills: &[SkillDef], format: CatalogFormat) -> String {
    let entries: Vec<_> = skills.iter().map(SkillDef::catalog_entry).collect();
    match format {
        CatalogFormat::Markdown => render::catalog_markdown(&entries),
        CatalogFormat::Xml => render::catalog_xml(&entries),
    }
}
