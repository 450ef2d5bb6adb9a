//! The report for people: a table for a terminal and Markdown for a pull-request comment
//! ([`Format`] also names JSON and the JUnit XML of `junit.rs`).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::gates::Verdict;
use super::report::{CaseReport, GateFailure, GateReport, Report};
use crate::terminal_line;

/// How [`Report::render`] writes a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Format {
    /// A table for a terminal.
    #[default]
    Table,
    /// The JSON report (what [`Baseline`](super::Baseline) reads back).
    Json,
    /// Markdown, for a pull-request comment.
    Markdown,
    /// JUnit XML, what CI dashboards read: a test suite per skill, a test case per trigger case,
    /// and one per gate.
    Junit,
}

impl Format {
    /// The names [`FromStr`](std::str::FromStr) takes, in the order of the variants.
    pub const NAMES: [&'static str; 4] = ["table", "json", "markdown", "junit"];
}

impl std::str::FromStr for Format {
    type Err = String;

    /// `table`, `json`, `markdown` or `junit`.
    fn from_str(name: &str) -> Result<Format, String> {
        match name {
            "table" => Ok(Format::Table),
            "json" => Ok(Format::Json),
            "markdown" => Ok(Format::Markdown),
            "junit" => Ok(Format::Junit),
            _ => Err(format!(
                "`{name}` is not a report format; the formats are {}",
                Format::NAMES.join(", ")
            )),
        }
    }
}

impl Report {
    /// The report in `format`, ending with a newline.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => table(self),
            Format::Json => {
                // A report holds only strings, numbers and maps with string keys.
                let mut json = serde_json::to_string_pretty(self).unwrap_or_default();
                json.push('\n');
                json
            }
            Format::Markdown => markdown(self),
            Format::Junit => super::junit::junit(self),
        }
    }
}

/// A fraction as the tables show it; `-` when there is nothing to count.
fn shown(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| format!("{value:.2}"))
}

/// `name (n), other (m)`, names escaped by `escape`.
fn counts(map: &BTreeMap<String, u32>, escape: impl Fn(&str) -> String) -> String {
    map.iter()
        .map(|(name, count)| format!("{} ({count})", escape(name)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `3 runs per case, threshold 0.5, whole bundle`.
fn setup(report: &Report) -> String {
    let runs = if report.runs == 1 { "run" } else { "runs" };
    let catalog = if report.isolated {
        "each skill alone in the catalog"
    } else {
        "whole bundle in the catalog"
    };
    format!(
        "{} {runs} per case, threshold {}, {catalog}, {}",
        report.runs,
        report.threshold,
        report.rule.describe()
    )
}

fn totals(report: &Report) -> String {
    format!(
        "{} requests sent, {} answers cached; tokens: {} in, {} out",
        report.requests, report.cached, report.tokens.input, report.tokens.output
    )
}

fn verdict_text(report: &Report) -> &'static str {
    match report.verdict() {
        Verdict::Pass if report.gates.is_none() => "pass (no gate was set)",
        Verdict::Pass => "pass",
        Verdict::GateFailed => "FAIL: a gate failed",
        Verdict::Errors => "ERROR: some replies were errors, so the numbers are incomplete",
    }
}

/// `should trigger, rate 0.33` or `should not trigger, rate 0.67`.
fn expectation(case: &CaseReport) -> String {
    let should = if case.should_trigger {
        "should trigger"
    } else {
        "should not trigger"
    };
    format!("{should}, rate {:.2}", case.trigger_rate)
}

/// The gates checked, one line each.
fn gate_lines(gates: &GateReport) -> Vec<String> {
    let line = |label: String, of_kind: fn(&GateFailure) -> bool| {
        let failures: Vec<String> = gates
            .failures
            .iter()
            .filter(|failure| of_kind(failure))
            .map(ToString::to_string)
            .collect();
        if failures.is_empty() {
            format!("{label}: passed")
        } else {
            format!("{label}: failed: {}", failures.join("; "))
        }
    };
    let mut lines = Vec::new();
    if let Some(min) = gates.min_recall {
        lines.push(line(format!("min recall {min}"), |f| {
            matches!(f, GateFailure::MinRecall { .. })
        }));
    }
    if let Some(min) = gates.min_precision {
        lines.push(line(format!("min precision {min}"), |f| {
            matches!(f, GateFailure::MinPrecision { .. })
        }));
    }
    if let Some(passed) = gates.baseline_passed {
        lines.push(line(
            format!("baseline ({passed} cases passed there)"),
            |f| matches!(f, GateFailure::Regressed { .. }),
        ));
    }
    lines
}

fn table(report: &Report) -> String {
    let name = |text: &str| terminal_line(text, 64);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Trigger evals: {}, model {}; {}",
        name(&report.provider),
        name(&report.model),
        setup(report)
    );
    let width = report
        .skills
        .iter()
        .map(|skill| name(&skill.name).chars().count())
        .max()
        .unwrap_or(0)
        .max("skill".len());
    let _ = writeln!(
        out,
        "\n{:<width$}  {:>9}  {:>6}  {:>9}  {:>14}  confused with",
        "skill", "cases +/-", "recall", "precision", "false triggers"
    );
    for skill in &report.skills {
        let cases = format!("{} / {}", skill.positives, skill.negatives);
        let row = format!(
            "{:<width$}  {cases:>9}  {:>6}  {:>9}  {:>14}  {}",
            name(&skill.name),
            shown(skill.recall),
            shown(skill.precision),
            shown(skill.false_trigger_rate),
            counts(&skill.confused_with, name),
        );
        let _ = writeln!(out, "{}", row.trim_end());
    }
    let failing: Vec<&CaseReport> = report.cases.iter().filter(|case| !case.pass).collect();
    if !failing.is_empty() {
        let _ = writeln!(
            out,
            "\nfailing cases ({} of {}):",
            failing.len(),
            report.cases.len()
        );
        for case in failing {
            let _ = write!(
                out,
                "  {}, {}: \"{}\" -> {}",
                name(&case.skill),
                expectation(case),
                terminal_line(&case.query, 100),
                counts(&case.loaded, name)
            );
            if let Some(error) = &case.error {
                let _ = write!(
                    out,
                    "; {} error(s), the first: {}",
                    case.errors,
                    terminal_line(error, 300)
                );
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "\n{}", totals(report));
    if let Some(gates) = &report.gates {
        for line in gate_lines(gates) {
            let _ = writeln!(out, "gate {line}");
        }
    }
    let _ = writeln!(out, "result: {}", verdict_text(report));
    out
}

/// Text for a Markdown table cell: one line, nothing a renderer would take as markup of its own.
pub(crate) fn cell(text: &str) -> String {
    terminal_line(text, 200)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace('`', "\\`")
}

fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Trigger evals: {}, model `{}`\n\n{}. Result: **{}**.\n",
        cell(&report.provider),
        cell(&report.model).replace("\\`", "'"),
        setup(report),
        verdict_text(report)
    );
    out.push_str(
        "| skill | cases (+ / -) | recall | precision | false triggers | confused with |\n",
    );
    out.push_str("|---|---|---|---|---|---|\n");
    for skill in &report.skills {
        let _ = writeln!(
            out,
            "| {} | {} / {} | {} | {} | {} | {} |",
            cell(&skill.name),
            skill.positives,
            skill.negatives,
            shown(skill.recall),
            shown(skill.precision),
            shown(skill.false_trigger_rate),
            counts(&skill.confused_with, cell)
        );
    }
    let failing: Vec<&CaseReport> = report.cases.iter().filter(|case| !case.pass).collect();
    if !failing.is_empty() {
        let _ = writeln!(
            out,
            "\n<details><summary>{} failing cases of {}</summary>\n",
            failing.len(),
            report.cases.len()
        );
        out.push_str("| skill | query | expected | loaded | error |\n|---|---|---|---|---|\n");
        for case in failing {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&case.skill),
                cell(&case.query),
                expectation(case),
                counts(&case.loaded, cell),
                case.error.as_deref().map(cell).unwrap_or_default()
            );
        }
        out.push_str("\n</details>\n");
    }
    if let Some(gates) = &report.gates {
        out.push('\n');
        for line in gate_lines(gates) {
            let _ = writeln!(out, "- gate {}", cell(&line));
        }
    }
    let _ = writeln!(out, "\n{}.", totals(report));
    out
}
