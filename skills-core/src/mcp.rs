//! What MCP hosts take of a bundle besides its files: the MCP Skills extension's per-skill
//! limits, the server's instructions within what hosts keep of them, and the wording of the
//! `load_skill` tool for hosts that never show the agent's system prompt.
//!
//! No dependencies: the MCP server renders its instructions with this, and `skills stats`
//! reports what a bundle's instructions cost with the same code.

use std::fmt::Write as _;

use crate::render::{CatalogEntry, EMPTY_CATALOG, LOAD_SKILL_TOOL, listed};

/// Most files (`SKILL.md` included) a server should serve for one skill: the MCP Skills
/// extension's limit, which every conforming host accepts.
pub const MAX_FILES: usize = 512;
/// Most bytes (the sum of a skill's file sizes) a server should serve for one skill: the MCP
/// Skills extension's 16 MiB.
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The longest server instructions Claude Code keeps, in UTF-16 code units (as JavaScript
/// counts a string's length): it cuts longer ones there and appends `… [truncated]`.
pub const INSTRUCTIONS_LIMIT: usize = 2048;

/// The description of `load_skill` as an MCP server offers it. The agent's own description
/// points at the "Skills available" section of its system prompt, which an MCP host never
/// shows; this one points at what the host does show.
pub const LOAD_SKILL_DESCRIPTION: &str = "Load the full instructions of one of this server's \
skills: `name` is one of the names listed in this tool's schema and in the server's \
instructions. Call it before starting a task that matches a skill's description, then follow \
the instructions it returns.";

/// The length of `text` in UTF-16 code units, the unit of [`INSTRUCTIONS_LIMIT`].
pub fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// A server's instructions and how much of the catalog they hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instructions {
    /// The text.
    pub text: String,
    /// Skills shown with their description, the first ones in catalog order.
    pub described: usize,
    /// Skills after those, shown by name only.
    pub named: usize,
    /// Skills the model is shown in all; those neither described nor named are reached through
    /// `load_skill`'s names and `skills/list`.
    pub total: usize,
}

impl Instructions {
    /// Whether every skill is shown with its description (the whole catalog fits).
    pub fn is_whole_catalog(&self) -> bool {
        self.described == self.total
    }
}

/// The instructions of a server of `entries` (the catalog's entries, in catalog order), at most
/// `limit` UTF-16 code units long whenever the shortest form fits:
///
/// - the catalog, after one sentence naming `load_skill`, when that fits;
/// - else a short text naming `load_skill`, `skills/list` and `skill://index.json`, then as
///   many catalog lines as fit, in catalog order, and the names of the other skills after
///   `Also:`; the names too, when they do not all fit, as many as do and how many are left.
///
/// A line is never cut: what does not fit whole is left out, and the count says so.
pub fn instructions(entries: &[CatalogEntry<'_>], limit: usize) -> Instructions {
    let shown: Vec<&CatalogEntry<'_>> = listed(entries).collect();
    let total = shown.len();
    if total == 0 {
        return Instructions {
            text: EMPTY_CATALOG.to_owned(),
            described: 0,
            named: 0,
            total,
        };
    }
    let lines: Vec<String> = shown
        .iter()
        .map(|entry| format!("- {}: {}", entry.name, entry.summary()))
        .collect();
    let whole = format!(
        "Skills of this server: call the tool `{LOAD_SKILL_TOOL}` with a skill's name before \
         starting a task that matches its description, and follow the instructions it returns.\n{}",
        lines.join("\n")
    );
    if utf16_len(&whole) <= limit {
        return Instructions {
            text: whole,
            described: total,
            named: 0,
            total,
        };
    }
    let header = format!(
        "This server has {total} skills. Before starting a task that matches one, call the tool \
         `{LOAD_SKILL_TOOL}` with its name (the tool's `name` parameter lists every skill) and \
         follow the instructions it returns. `skills/list` and the resource skill://index.json \
         describe every skill."
    );
    let names: Vec<&str> = shown.iter().map(|entry| entry.name).collect();
    // The most catalog lines, in order, that leave room for the other skills' names.
    for described in (0..total).rev() {
        let text = short_form(&header, &lines[..described], &names[described..], None);
        if utf16_len(&text) <= limit {
            return Instructions {
                text,
                described,
                named: total - described,
                total,
            };
        }
    }
    // Not even every name fits: as many names as do, and how many are left.
    let named = (0..total)
        .rev()
        .find(|&named| {
            let text = short_form(&header, &[], &names[..named], Some(total - named));
            utf16_len(&text) <= limit
        })
        .unwrap_or(0);
    Instructions {
        text: short_form(&header, &[], &names[..named], Some(total - named)),
        described: 0,
        named,
        total,
    }
}

/// The header, the catalog `lines`, then `Also:` and `names`, and `and N more` when some are
/// left out.
fn short_form(header: &str, lines: &[String], names: &[&str], left_out: Option<usize>) -> String {
    let mut text = header.to_owned();
    for line in lines {
        text.push('\n');
        text.push_str(line);
    }
    if !names.is_empty() || left_out.is_some() {
        text.push_str(if lines.is_empty() {
            "\nSkills: "
        } else {
            "\nAlso: "
        });
        text.push_str(&names.join(", "));
        if let Some(more) = left_out {
            let _ = write!(
                text,
                "{}and {more} more (see `{LOAD_SKILL_TOOL}`'s names)",
                if names.is_empty() { "" } else { ", " }
            );
        }
        text.push('.');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(name: &'a str, description: &'a str) -> CatalogEntry<'a> {
        CatalogEntry {
            name,
            description,
            when_to_use: None,
            when_not_to_use: None,
            model_invocable: true,
        }
    }

    /// Every line of `text` is the header, a whole catalog line of `entries` or the names line.
    fn assert_no_cut_line(text: &str, entries: &[CatalogEntry<'_>]) {
        let catalog: Vec<String> = entries
            .iter()
            .map(|e| format!("- {}: {}", e.name, e.summary()))
            .collect();
        for line in text.lines().skip(1) {
            assert!(
                catalog.iter().any(|c| c == line)
                    || line.starts_with("Also: ")
                    || line.starts_with("Skills: "),
                "a cut line: {line:?}"
            );
        }
    }

    #[test]
    fn the_catalog_when_it_fits() {
        let entries = [
            entry("a", "Does a."),
            entry("b", "Does b."),
            CatalogEntry {
                model_invocable: false,
                ..entry("c", "Only for a person.")
            },
        ];
        let out = instructions(&entries, INSTRUCTIONS_LIMIT);
        assert!(out.is_whole_catalog());
        assert_eq!((out.described, out.named, out.total), (2, 0, 2));
        assert!(
            out.text.ends_with("\n- a: Does a.\n- b: Does b."),
            "{}",
            out.text
        );
        assert!(out.text.contains("`load_skill`"));
        assert!(!out.text.contains("- c:"));
        let empty = instructions(&entries[2..], INSTRUCTIONS_LIMIT);
        assert_eq!(empty.text, EMPTY_CATALOG);
    }

    #[test]
    fn forty_skills_fit_and_every_one_is_named() {
        let names: Vec<String> = (0..40).map(|i| format!("skill-number-{i:02}")).collect();
        let description = "Use when the task needs this particular skill: it explains \
                           step by step how to do the work and what to check afterwards.";
        let entries: Vec<_> = names.iter().map(|n| entry(n, description)).collect();
        let out = instructions(&entries, INSTRUCTIONS_LIMIT);
        assert!(
            utf16_len(&out.text) <= INSTRUCTIONS_LIMIT,
            "{}",
            utf16_len(&out.text)
        );
        assert!(!out.is_whole_catalog());
        assert_eq!(out.described + out.named, 40);
        assert!(out.described > 0, "some skills keep their description");
        for name in &names {
            assert!(out.text.contains(name.as_str()), "{name} is not named");
        }
        assert!(out.text.contains("skills/list") && out.text.contains("`load_skill`"));
        assert_no_cut_line(&out.text, &entries);
        // The described ones are the first, in catalog order; the rest follow by name.
        let also = out.text.lines().last().unwrap();
        assert!(also.starts_with("Also: skill-number-"), "{also}");
        assert!(out.text.contains("- skill-number-00: "));
        // The same input gives the same text.
        assert_eq!(instructions(&entries, INSTRUCTIONS_LIMIT), out);
    }

    #[test]
    fn without_room_for_every_name_the_rest_is_counted() {
        let names: Vec<String> = (0..400)
            .map(|i| format!("a-rather-long-skill-name-{i:03}"))
            .collect();
        let entries: Vec<_> = names.iter().map(|n| entry(n, "Does it.")).collect();
        let out = instructions(&entries, INSTRUCTIONS_LIMIT);
        assert!(utf16_len(&out.text) <= INSTRUCTIONS_LIMIT);
        assert_eq!(out.described, 0);
        assert!(out.named > 10 && out.named < 400, "{}", out.named);
        let more = 400 - out.named;
        assert!(
            out.text
                .ends_with(&format!("and {more} more (see `load_skill`'s names).")),
            "{}",
            out.text
        );
        assert_no_cut_line(&out.text, &entries);
    }

    #[test]
    fn the_limit_counts_utf16_code_units() {
        assert_eq!(utf16_len("aé漢😀"), 1 + 1 + 1 + 2);
        // 30 skills whose descriptions are mostly astral characters: each counts twice.
        let description = "😀".repeat(40);
        let names: Vec<String> = (0..30).map(|i| format!("s{i}")).collect();
        let entries: Vec<_> = names.iter().map(|n| entry(n, &description)).collect();
        let out = instructions(&entries, INSTRUCTIONS_LIMIT);
        assert!(out.text.chars().count() < INSTRUCTIONS_LIMIT);
        assert!(utf16_len(&out.text) <= INSTRUCTIONS_LIMIT);
        assert!(
            !out.is_whole_catalog(),
            "the catalog is over 2,048 UTF-16 units"
        );
    }
}
