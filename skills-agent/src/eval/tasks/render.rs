//! A task report for people and machines: [`TaskFormat`] and [`TaskReport::render`] (the table,
//! JSON, Markdown and JUnit here; the HTML page in `html.rs`).

use std::fmt::Write;

use super::report::{
    CaseTaskReport, ConfigSummary, RunRecord, Stats, TaskGateFailure, TaskGateReport, TaskReport,
    signed,
};
use crate::eval::Verdict;
use crate::eval::format::cell;
use crate::eval::junit::xml;
use crate::terminal_line;

/// How [`TaskReport::render`] writes a report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TaskFormat {
    /// A table for a terminal.
    #[default]
    Table,
    /// The JSON report: `benchmark.json`'s fields and ours (what `--baseline` and the merge of
    /// shards read back).
    Json,
    /// Markdown, for a pull-request comment.
    Markdown,
    /// JUnit XML: a test suite per skill, a test case per task case, one per gate.
    Junit,
    /// One self-contained HTML page (no script, nothing fetched): per-skill bars with and
    /// without the skill, every run with its assertions' evidence and its transcript folded.
    Html,
}

impl TaskFormat {
    /// The names [`FromStr`](std::str::FromStr) takes, in the order of the variants.
    pub const NAMES: [&'static str; 5] = ["table", "json", "markdown", "junit", "html"];
}

impl std::str::FromStr for TaskFormat {
    type Err = String;

    /// `table`, `json`, `markdown`, `junit` or `html`.
    fn from_str(name: &str) -> Result<TaskFormat, String> {
        match name {
            "table" => Ok(TaskFormat::Table),
            "json" => Ok(TaskFormat::Json),
            "markdown" => Ok(TaskFormat::Markdown),
            "junit" => Ok(TaskFormat::Junit),
            "html" => Ok(TaskFormat::Html),
            _ => Err(format!(
                "`{name}` is not a report format; the formats are {}",
                TaskFormat::NAMES.join(", ")
            )),
        }
    }
}

impl TaskReport {
    /// The report in `format`, ending with a newline.
    pub fn render(&self, format: TaskFormat) -> String {
        match format {
            TaskFormat::Table => table(self),
            TaskFormat::Json => {
                let mut json = serde_json::to_string_pretty(self).unwrap_or_default();
                json.push('\n');
                json
            }
            TaskFormat::Markdown => markdown(self),
            TaskFormat::Junit => junit(self),
            TaskFormat::Html => super::html::page(self),
        }
    }
}

/// `with / without` of one number.
fn pair(
    with: &ConfigSummary,
    without: &ConfigSummary,
    pick: fn(&ConfigSummary) -> &Stats,
    places: usize,
) -> String {
    format!(
        "{} / {}",
        pick(with).shown(places),
        pick(without).shown(places)
    )
}

fn setup(report: &TaskReport) -> String {
    let runs = if report.runs_per_configuration == 1 {
        "run"
    } else {
        "runs"
    };
    let mut text = format!(
        "{} {runs} per case and configuration; baseline: {}",
        report.runs_per_configuration, report.baseline
    );
    if let Some(grader) = &report.grader {
        let _ = write!(text, "; grader: {grader}");
    }
    if !report.shards.is_empty() {
        let _ = write!(text, "; shards {}", report.shards.join(", "));
    }
    text
}

fn totals(report: &TaskReport) -> String {
    format!(
        "{} runs, {} from the cache, {} errors; {} requests sent; tokens: {} in, {} out",
        report.runs.len(),
        report.cached,
        report.errors,
        report.requests,
        report.tokens.input,
        report.tokens.output
    )
}

fn verdict_text(report: &TaskReport) -> &'static str {
    match report.verdict() {
        Verdict::Pass if report.gates.is_none() => "pass (no gate was set)",
        Verdict::Pass => "pass",
        Verdict::GateFailed => "FAIL: a gate failed",
        Verdict::Errors => "ERROR: some runs were errors, so the numbers are incomplete",
    }
}

/// The gates checked, one line each.
fn gate_lines(gates: &TaskGateReport) -> Vec<String> {
    let line = |label: String, of_kind: fn(&TaskGateFailure) -> bool| {
        let failures: Vec<String> = gates
            .failures
            .iter()
            .filter(|f| of_kind(f))
            .map(ToString::to_string)
            .collect();
        if failures.is_empty() {
            format!("{label}: passed")
        } else {
            format!("{label}: failed: {}", failures.join("; "))
        }
    };
    let mut lines = Vec::new();
    if let Some(min) = gates.min_pass_rate {
        lines.push(line(format!("min pass rate {min}"), |f| {
            matches!(f, TaskGateFailure::MinPassRate { .. })
        }));
    }
    if let Some(min) = gates.min_uplift {
        lines.push(line(format!("min uplift {min}"), |f| {
            matches!(f, TaskGateFailure::MinUplift { .. })
        }));
    }
    if let Some(passed) = gates.baseline_passed {
        lines.push(line(
            format!("baseline ({passed} cases passed there)"),
            |f| matches!(f, TaskGateFailure::Regressed { .. }),
        ));
    }
    lines
}

/// `flaky; non-discriminating: a, b`, or nothing.
fn flags(case: &CaseTaskReport) -> String {
    let mut flags = Vec::new();
    if case.flaky {
        flags.push("flaky".to_owned());
    }
    if !case.non_discriminating.is_empty() {
        flags.push(format!(
            "non-discriminating: {}",
            case.non_discriminating.join("; ")
        ));
    }
    flags.join("; ")
}

/// The runs that did not pass, a line each with the first failed assertion.
fn failing_runs(report: &TaskReport) -> Vec<(&RunRecord, String)> {
    report
        .runs
        .iter()
        .filter(|r| !r.pass)
        .map(|run| {
            let why = run
                .error
                .clone()
                .or_else(|| run.stopped.clone())
                .or_else(|| {
                    run.expectations
                        .iter()
                        .find(|e| !e.passed)
                        .map(|e| format!("{}: {}", e.text, e.evidence))
                })
                .unwrap_or_default();
            (run, why)
        })
        .collect()
}

fn table(report: &TaskReport) -> String {
    let name = |text: &str| terminal_line(text, 64);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Task evals: {}, model {}; {}",
        name(&report.provider),
        name(&report.model),
        setup(report)
    );
    let _ = writeln!(out, "bash: {}", terminal_line(&report.sandbox, 300));
    let width = report
        .skills
        .iter()
        .map(|s| name(&s.name).chars().count())
        .max()
        .unwrap_or(0)
        .max("skill".len());
    let _ = writeln!(
        out,
        "\n{:<width$}  {:>5}  {:>23}  {:>6}  {:>23}  {:>19}  {:>23}  {:>21}",
        "skill",
        "cases",
        "pass rate with / w/o",
        "uplift",
        "assertions with / w/o",
        "turns with / w/o",
        "tokens with / w/o",
        "time s with / w/o"
    );
    for skill in &report.skills {
        let (w, o) = (&skill.with_skill, &skill.without_skill);
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {:>23}  {:>6}  {:>23}  {:>19}  {:>23}  {:>21}",
            name(&skill.name),
            skill.cases,
            pair(w, o, |c| &c.pass_rate, 2),
            signed(skill.delta.pass_rate, 2),
            pair(w, o, |c| &c.assertion_pass_rate, 2),
            pair(w, o, |c| &c.turns, 1),
            pair(w, o, |c| &c.tokens, 0),
            pair(w, o, |c| &c.time_seconds, 2),
        );
    }
    let _ = writeln!(out, "\ncases (with / without the skill):");
    for case in &report.cases {
        let (w, o) = (&case.with_skill, &case.without_skill);
        let _ = write!(
            out,
            "  {} #{}: pass {} (uplift {}), assertions {}, turns {}, tool calls {}, tokens {}",
            name(&case.skill),
            case.id,
            pair(w, o, |c| &c.pass_rate, 2),
            signed(case.delta.pass_rate, 2),
            pair(w, o, |c| &c.assertion_pass_rate, 2),
            pair(w, o, |c| &c.turns, 1),
            pair(w, o, |c| &c.tool_calls, 1),
            pair(w, o, |c| &c.tokens, 0),
        );
        if let (Some(with), Some(without)) = (w.selection_accuracy, o.selection_accuracy) {
            let _ = write!(out, ", selection accuracy {with:.2} / {without:.2}");
        }
        let flags = flags(case);
        if !flags.is_empty() {
            let _ = write!(out, " [{}]", terminal_line(&flags, 300));
        }
        out.push('\n');
    }
    let failing = failing_runs(report);
    if !failing.is_empty() {
        let _ = writeln!(
            out,
            "\nruns that did not pass ({} of {}):",
            failing.len(),
            report.runs.len()
        );
        for (run, why) in failing {
            let _ = writeln!(
                out,
                "  {} #{} {}, run {}: {}",
                name(&run.skill),
                run.eval_id,
                run.configuration.as_str(),
                run.run_number,
                terminal_line(&why, 200)
            );
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

fn markdown(report: &TaskReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### Task evals: {}, model `{}`\n\n{}. Result: **{}**.\n",
        cell(&report.provider),
        cell(&report.model).replace("\\`", "'"),
        cell(&setup(report)),
        verdict_text(report)
    );
    out.push_str("| skill | cases | pass rate with / without | uplift | assertion pass rate with / without | turns | tokens | time (s) |\n");
    out.push_str("|---|---|---|---|---|---|---|---|\n");
    for skill in &report.skills {
        let (w, o) = (&skill.with_skill, &skill.without_skill);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&skill.name),
            skill.cases,
            pair(w, o, |c| &c.pass_rate, 2),
            signed(skill.delta.pass_rate, 2),
            pair(w, o, |c| &c.assertion_pass_rate, 2),
            pair(w, o, |c| &c.turns, 1),
            pair(w, o, |c| &c.tokens, 0),
            pair(w, o, |c| &c.time_seconds, 2),
        );
    }
    let _ = writeln!(
        out,
        "\n<details><summary>{} cases</summary>\n",
        report.cases.len()
    );
    out.push_str(
        "| skill | case | pass rate with / without | uplift | flags |\n|---|---|---|---|---|\n",
    );
    for case in &report.cases {
        let _ = writeln!(
            out,
            "| {} | #{} {} | {} | {} | {} |",
            cell(&case.skill),
            case.id,
            cell(&case.prompt),
            pair(&case.with_skill, &case.without_skill, |c| &c.pass_rate, 2),
            signed(case.delta.pass_rate, 2),
            cell(&flags(case))
        );
    }
    out.push_str("\n</details>\n");
    if let Some(gates) = &report.gates {
        out.push('\n');
        for line in gate_lines(gates) {
            let _ = writeln!(out, "- gate {}", cell(&line));
        }
    }
    let _ = writeln!(out, "\n{}.", totals(report));
    out
}

fn junit(report: &TaskReport) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors) = (0usize, 0usize, 0usize);
    for skill in &report.skills {
        let cases: Vec<&CaseTaskReport> = report
            .cases
            .iter()
            .filter(|c| c.skill == skill.name)
            .collect();
        let suite_errors = cases.iter().filter(|c| c.with_skill.errors > 0).count();
        let suite_failures = cases
            .iter()
            .filter(|c| !c.pass && c.with_skill.errors == 0)
            .count();
        tests += cases.len();
        failures += suite_failures;
        errors += suite_errors;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{suite_failures}\" errors=\"{suite_errors}\">\n    <properties>",
            xml(&skill.name),
            cases.len()
        );
        for (key, value) in [
            ("pass_rate_with_skill", skill.with_skill.pass_rate.mean),
            (
                "pass_rate_without_skill",
                skill.without_skill.pass_rate.mean,
            ),
            ("uplift", skill.delta.pass_rate),
        ] {
            let _ = writeln!(suites, "      <property name=\"{key}\" value=\"{value}\"/>");
        }
        suites.push_str("    </properties>\n");
        for case in cases {
            let _ = write!(
                suites,
                "    <testcase classname=\"{}\" name=\"#{}: {}\"",
                xml(&case.skill),
                case.id,
                xml(&case.prompt)
            );
            let detail = format!(
                "pass rate with the skill {} (without {}), assertion pass rate {} (without {})",
                case.with_skill.pass_rate.mean,
                case.without_skill.pass_rate.mean,
                case.with_skill.assertion_pass_rate.mean,
                case.without_skill.assertion_pass_rate.mean
            );
            let first_error = report
                .runs
                .iter()
                .filter(|r| r.skill == case.skill && r.eval_id == case.id)
                .find_map(|r| r.error.as_deref());
            if let (true, Some(error)) = (case.with_skill.errors > 0, first_error) {
                let _ = writeln!(
                    suites,
                    ">\n      <error message=\"{}\">{}</error>\n    </testcase>",
                    xml(error),
                    xml(&detail)
                );
            } else if !case.pass {
                let _ = writeln!(
                    suites,
                    ">\n      <failure message=\"fewer than half its runs with the skill passed\">{}</failure>\n    </testcase>",
                    xml(&detail)
                );
            } else {
                suites.push_str("/>\n");
            }
        }
        suites.push_str("  </testsuite>\n");
    }
    if let Some(gates) = &report.gates {
        let lines = gate_lines(gates);
        let failed = lines.iter().filter(|l| l.contains(": failed: ")).count();
        tests += lines.len();
        failures += failed;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"gates\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">",
            lines.len()
        );
        for line in lines {
            match line.split_once(": failed: ") {
                Some((label, why)) => {
                    let _ = writeln!(
                        suites,
                        "    <testcase classname=\"gates\" name=\"{}\">\n      <failure message=\"failed\">{}</failure>\n    </testcase>",
                        xml(label),
                        xml(why)
                    );
                }
                None => {
                    let label = line.trim_end_matches(": passed");
                    let _ = writeln!(
                        suites,
                        "    <testcase classname=\"gates\" name=\"{}\"/>",
                        xml(label)
                    );
                }
            }
        }
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"task evals: {} {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{suites}</testsuites>\n",
        xml(&report.provider),
        xml(&report.model)
    )
}
