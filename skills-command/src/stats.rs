//! `skills stats`: what a bundle costs in context, and what progressive disclosure saves.
//!
//! Token counts are **estimates**: characters (Unicode scalar values) divided by 4, rounded up.
//! That is the usual rule of thumb for English prose and Markdown with current tokenizers; a
//! real tokenizer differs by some 10-30 % either way, and more for code or non-Latin scripts.
//! It is good enough to compare a catalog with the bodies it stands for, and it is the estimate
//! of `skills_core::lint` (the `long_body` lint), so both speak of the same numbers.

use std::io::{self, Write};

use skills_core::SkillDef;

use crate::args::{CatalogFormat, Source};
use crate::bundle;
use crate::listing;
use crate::output::Streams;

use skills_core::lint::estimate_tokens;
use skills_core::visible::escape_line;

/// The numbers of one skill.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkillStats {
    /// Characters of the description as the catalog shows it (collapsed, with `Not for:`).
    pub description_chars: usize,
    /// Lines of the body.
    pub body_lines: usize,
    /// Bytes of the body (UTF-8).
    pub body_bytes: usize,
    /// Estimated tokens of the body.
    pub body_tokens: usize,
    /// Files shipped beside `SKILL.md`.
    pub resources: usize,
}

impl SkillStats {
    /// Measures one skill.
    pub fn of(skill: &SkillDef) -> Self {
        let entry = skill.catalog_entry();
        let body = skill.body();
        SkillStats {
            description_chars: entry.summary().chars().count(),
            body_lines: body.lines().count(),
            body_bytes: body.len(),
            body_tokens: estimate_tokens(body),
            resources: skill.resources.len(),
        }
    }

    fn add(&mut self, other: &SkillStats) {
        self.description_chars += other.description_chars;
        self.body_lines += other.body_lines;
        self.body_bytes += other.body_bytes;
        self.body_tokens += other.body_tokens;
        self.resources += other.resources;
    }
}

/// Codex's default budget for the skills list in its prompt, in characters.
pub const CODEX_SKILLS_BUDGET_CHARS: usize = 8_000;

/// Claude Code's budget for its skill listing: 1% of the context window, counted as 4
/// characters a token (`skillListingBudgetFraction`, default 0.01, of a 200,000-token window
/// unless the model's is known), so 8,000 characters by default.
fn claude_code_listing_budget(context_window: Option<u64>) -> u64 {
    (context_window.unwrap_or(200_000) * 4 / 100).max(1)
}

/// Shares of the context window a catalog is held against, in percent: a catalog within 1% is
/// cheap, one over 2% crowds out the task.
const CONTEXT_SHARES: [u64; 2] = [1, 2];

/// `skills stats`: a table per skill with a total row, then the catalog against all bodies and
/// against the budgets it must fit.
pub fn run(
    source: &Source,
    format: CatalogFormat,
    context_window: Option<u64>,
    streams: &mut Streams<'_>,
) -> io::Result<u8> {
    let Some(bundle) = bundle::load_valid(source, streams.err)? else {
        return Ok(1);
    };
    let out = &mut *streams.out;
    let rows: Vec<(String, SkillStats)> = bundle
        .skills
        .iter()
        .map(|skill| (escape_line(&skill.name.value), SkillStats::of(skill)))
        .collect();
    let mut total = SkillStats::default();
    for (_, row) in &rows {
        total.add(row);
    }
    let total_label = format!(
        "total ({} {})",
        rows.len(),
        bundle::plural(rows.len(), "skill", "skills")
    );
    let width = rows
        .iter()
        .map(|(name, _)| name.chars().count())
        .chain([total_label.len(), "skill".len()])
        .max()
        .unwrap_or(0);
    writeln!(
        out,
        "{:width$}  {:>11}  {:>10}  {:>10}  {:>11}  {:>9}",
        "skill", "description", "body lines", "body bytes", "body tokens", "resources"
    )?;
    let write_row = |out: &mut dyn Write, label: &str, row: &SkillStats| {
        writeln!(
            out,
            "{label:width$}  {:>11}  {:>10}  {:>10}  {:>11}  {:>9}",
            row.description_chars, row.body_lines, row.body_bytes, row.body_tokens, row.resources
        )
    };
    for (name, row) in &rows {
        write_row(out, name, row)?;
    }
    write_row(out, &total_label, &total)?;
    writeln!(out)?;

    let format_name = match format {
        CatalogFormat::Markdown => "Markdown",
        CatalogFormat::Xml => "XML",
    };
    if rows.is_empty() {
        writeln!(
            out,
            "no skills: the system prompt gets no skills section and no load_skill tool"
        )?;
    } else {
        let catalog = listing::catalog(&bundle.skills, format);
        let catalog_tokens = estimate_tokens(&catalog);
        let catalog_label = format!("catalog ({format_name}), sent in every request:");
        let bodies_label = "all bodies, sent only on load_skill:";
        let label_width = catalog_label.len().max(bodies_label.len());
        let bytes_width = total.body_bytes.max(catalog.len()).to_string().len();
        writeln!(
            out,
            "{catalog_label:label_width$} {:>bytes_width$} bytes  ~{catalog_tokens} tokens",
            catalog.len()
        )?;
        writeln!(
            out,
            "{bodies_label:label_width$} {:>bytes_width$} bytes  ~{} tokens",
            total.body_bytes, total.body_tokens
        )?;
        writeln!(out, "{}", savings(catalog.len(), catalog_tokens, &total))?;
        writeln!(out)?;
        let mut lines = budgets(catalog.chars().count(), catalog_tokens, context_window);
        let entries: Vec<_> = bundle.skills.iter().map(SkillDef::catalog_entry).collect();
        let instructions =
            skills_core::mcp::instructions(&entries, skills_core::mcp::INSTRUCTIONS_LIMIT);
        // After Codex's and Claude Code's budgets, before the context window's.
        lines.insert(2, mcp_instructions(&instructions));
        for line in lines {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(
        out,
        "(description: characters the catalog shows; tokens estimated as characters / 4, rounded up)"
    )?;
    Ok(0)
}

/// The verdict line: bytes and tokens saved per request, and the share of the bodies' bytes.
fn savings(catalog_bytes: usize, catalog_tokens: usize, total: &SkillStats) -> String {
    if catalog_bytes >= total.body_bytes {
        return format!(
            "progressive disclosure saves nothing here: the catalog is {} bytes larger than all \
             bodies together (the bodies are very short)",
            catalog_bytes - total.body_bytes
        );
    }
    let saved_bytes = total.body_bytes - catalog_bytes;
    let saved_tokens = total.body_tokens.saturating_sub(catalog_tokens);
    let percent = saved_bytes as f64 * 100.0 / total.body_bytes as f64;
    format!(
        "progressive disclosure saves {saved_bytes} bytes (~{saved_tokens} tokens, {percent:.1}% \
         of the bodies) in every request"
    )
}

/// One line per budget: Codex's default skills budget in characters, then 1% and 2% of the
/// context window in estimated tokens when it is known.
fn budgets(
    catalog_chars: usize,
    catalog_tokens: usize,
    context_window: Option<u64>,
) -> Vec<String> {
    let verdict = |used: u64, budget: u64| {
        let percent = used as f64 * 100.0 / budget as f64;
        if used <= budget {
            format!("{percent:.1}% of it, fits")
        } else {
            format!("{percent:.1}% of it, over by {}", used - budget)
        }
    };
    let claude_code = claude_code_listing_budget(context_window);
    let mut lines = vec![
        format!(
            "catalog against Codex's default skills budget ({CODEX_SKILLS_BUDGET_CHARS} characters): {catalog_chars} characters, {}",
            verdict(catalog_chars as u64, CODEX_SKILLS_BUDGET_CHARS as u64)
        ),
        format!(
            "catalog against Claude Code's skill listing budget (1% of the context window, {claude_code} characters): {catalog_chars} characters, {}",
            verdict(catalog_chars as u64, claude_code)
        ),
    ];
    match context_window {
        Some(window) => {
            for share in CONTEXT_SHARES {
                let budget = (window * share / 100).max(1);
                lines.push(format!(
                    "catalog against {share}% of a {window}-token context window ({budget} tokens): ~{catalog_tokens} tokens, {}",
                    verdict(catalog_tokens as u64, budget)
                ));
            }
        }
        None => lines.push(
            "(give --context-window TOKENS to hold the catalog against 1% and 2% of the model's context window)"
                .to_owned(),
        ),
    }
    lines
}

/// The line on the MCP server's instructions: their length against the 2,048 UTF-16 units
/// Claude Code keeps, and how much of the catalog they hold.
fn mcp_instructions(instructions: &skills_core::mcp::Instructions) -> String {
    let units = skills_core::mcp::utf16_len(&instructions.text);
    let limit = skills_core::mcp::INSTRUCTIONS_LIMIT;
    let holds = if instructions.is_whole_catalog() {
        "the whole catalog".to_owned()
    } else {
        let mut holds = format!(
            "{} of {} skills with their descriptions",
            instructions.described, instructions.total
        );
        if instructions.named > 0 {
            holds.push_str(&format!(", {} more by name", instructions.named));
        }
        let unnamed = instructions.total - instructions.described - instructions.named;
        if unnamed > 0 {
            holds.push_str(&format!(
                ", {unnamed} only through load_skill and skills/list"
            ));
        }
        holds
    };
    format!(
        "MCP server instructions against Claude Code's cut ({limit} UTF-16 units): {units} units, {holds}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_characters_over_four_rounded_up() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("éééé"), 1, "characters, not bytes");
    }

    #[test]
    fn savings_are_relative_to_the_bodies() {
        let total = SkillStats {
            body_bytes: 1000,
            body_tokens: 250,
            ..SkillStats::default()
        };
        assert_eq!(
            savings(100, 25, &total),
            "progressive disclosure saves 900 bytes (~225 tokens, 90.0% of the bodies) in every request"
        );
        assert!(savings(2000, 500, &total).contains("saves nothing"));
    }

    #[test]
    fn budgets_hold_the_catalog_against_codex_and_the_context_window() {
        let lines = budgets(4_000, 1_000, None);
        assert_eq!(
            lines[0],
            "catalog against Codex's default skills budget (8000 characters): 4000 characters, 50.0% of it, fits"
        );
        assert_eq!(
            lines[1],
            "catalog against Claude Code's skill listing budget (1% of the context window, 8000 characters): 4000 characters, 50.0% of it, fits"
        );
        assert!(lines[2].contains("--context-window"), "{lines:?}");
        let lines = budgets(9_000, 2_250, Some(200_000));
        assert!(
            lines[0].ends_with("112.5% of it, over by 1000"),
            "{lines:?}"
        );
        assert!(
            lines[1].ends_with("112.5% of it, over by 1000"),
            "{lines:?}"
        );
        assert_eq!(
            lines[2],
            "catalog against 1% of a 200000-token context window (2000 tokens): ~2250 tokens, 112.5% of it, over by 250"
        );
        assert_eq!(
            lines[3],
            "catalog against 2% of a 200000-token context window (4000 tokens): ~2250 tokens, 56.2% of it, fits"
        );
        assert_eq!(lines.len(), 4);
        // A larger window gives Claude Code's listing more room.
        assert!(budgets(9_000, 2_250, Some(1_000_000))[1].contains("40000 characters"));
    }

    #[test]
    fn the_mcp_line_says_how_much_of_the_catalog_the_instructions_hold() {
        let whole = skills_core::mcp::Instructions {
            text: "x".repeat(100),
            described: 3,
            named: 0,
            total: 3,
        };
        assert_eq!(
            mcp_instructions(&whole),
            "MCP server instructions against Claude Code's cut (2048 UTF-16 units): 100 units, the whole catalog"
        );
        let short = skills_core::mcp::Instructions {
            text: "😀".repeat(1000),
            described: 4,
            named: 30,
            total: 40,
        };
        assert_eq!(
            mcp_instructions(&short),
            "MCP server instructions against Claude Code's cut (2048 UTF-16 units): 2000 units, 4 of 40 skills with their descriptions, 30 more by name, 6 only through load_skill and skills/list"
        );
    }
}
