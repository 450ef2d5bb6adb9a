//! The task report as one self-contained HTML page: inline CSS, no script, nothing fetched (a
//! content security policy forbids it), every value escaped. Per skill, bars of the pass rate
//! with and without the skill; per case, its runs with each assertion's evidence, and each
//! transcript folded, as skill-creator's viewer shows them. The numbers carry `data-skill` and
//! `data-metric` attributes, so a test (or a script of the reader's) finds them.

use std::fmt::Write;

use super::report::{CaseTaskReport, ConfigSummary, RunRecord, TaskReport, signed};

/// `text` escaped for HTML text and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            // Control characters other than line breaks and tabs show as their code.
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;color:#1b1b1b}\
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse;margin:.5em 0}\
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}th{background:#f3f3f3}\
.bar{height:.9em;background:#eee;width:14em;position:relative}.bar span{display:block;height:100%}\
.with span{background:#2e7d32}.without span{background:#9e9e9e}.pass{color:#2e7d32}.fail{color:#b71c1c}\
.flag{background:#fff3cd;padding:0 .3em}pre{white-space:pre-wrap;background:#f7f7f7;padding:.5em;margin:.3em 0}\
details{margin:.3em 0}summary{cursor:pointer}.case{border-top:1px solid #ddd;padding-top:.5em}";

/// The page.
pub(super) fn page(report: &TaskReport) -> String {
    let mut out = String::new();
    let title = format!("Task evals: {} {}", report.provider, report.model);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n",
        esc(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", esc(&title));
    let _ = writeln!(
        out,
        "<p>{} runs per case and configuration; baseline: <b>{}</b>{}. bash: {}.</p>",
        report.runs_per_configuration,
        esc(&report.baseline),
        report
            .grader
            .as_ref()
            .map(|g| format!("; grader: {}", esc(g)))
            .unwrap_or_default(),
        esc(&report.sandbox)
    );
    let verdict = match report.verdict() {
        crate::eval::Verdict::Pass => "pass",
        crate::eval::Verdict::GateFailed => "a gate failed",
        crate::eval::Verdict::Errors => "some runs were errors: the numbers are incomplete",
    };
    let _ = writeln!(
        out,
        "<p>Result: <b data-metric=\"verdict\">{verdict}</b>. {} runs, {} from the cache, {} errors, {} requests sent.</p>",
        report.runs.len(),
        report.cached,
        report.errors,
        report.requests
    );
    skills(&mut out, report);
    let _ = writeln!(out, "<h2>Cases</h2>");
    for case in &report.cases {
        self::case(&mut out, report, case);
    }
    if let Some(gates) = &report.gates {
        let _ = writeln!(out, "<h2>Gates</h2><ul>");
        if gates.failures.is_empty() {
            let _ = writeln!(out, "<li class=\"pass\">every gate passed</li>");
        }
        for failure in &gates.failures {
            let _ = writeln!(out, "<li class=\"fail\">{}</li>", esc(&failure.to_string()));
        }
        let _ = writeln!(out, "</ul>");
    }
    out.push_str("</body></html>\n");
    out
}

/// A bar of `value` (0 to 1).
fn bar(class: &str, value: f64) -> String {
    let percent = (value.clamp(0.0, 1.0) * 100.0).round();
    format!("<div class=\"bar {class}\"><span style=\"width:{percent}%\"></span></div>")
}

fn skills(out: &mut String, report: &TaskReport) {
    let _ = writeln!(
        out,
        "<h2>Skills</h2><table><tr><th>skill</th><th>cases</th><th>pass rate</th><th></th>\
         <th>uplift</th><th>assertion pass rate</th><th>turns</th><th>tokens</th><th>time (s)</th><th>flags</th></tr>"
    );
    for skill in &report.skills {
        let name = esc(&skill.name);
        let (w, o) = (&skill.with_skill, &skill.without_skill);
        let metric = |metric: &str, text: String| {
            format!("<span data-skill=\"{name}\" data-metric=\"{metric}\">{text}</span>")
        };
        let mut flags = Vec::new();
        if !skill.flaky.is_empty() {
            let ids: Vec<String> = skill.flaky.iter().map(|id| format!("#{id}")).collect();
            flags.push(format!("flaky: {}", ids.join(", ")));
        }
        if !skill.non_discriminating.is_empty() {
            flags.push(format!(
                "non-discriminating: {}",
                skill.non_discriminating.join("; ")
            ));
        }
        let _ = writeln!(
            out,
            "<tr><td>{name}</td><td>{}</td><td>with {}<br>without {}</td><td>{}{}</td><td>{}</td>\
             <td>{} / {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            skill.cases,
            metric("pass-rate-with", format!("{:.2}", w.pass_rate.mean)),
            metric("pass-rate-without", format!("{:.2}", o.pass_rate.mean)),
            bar("with", w.pass_rate.mean),
            bar("without", o.pass_rate.mean),
            metric("uplift", signed(skill.delta.pass_rate, 2)),
            metric(
                "assertions-with",
                format!("{:.2}", w.assertion_pass_rate.mean)
            ),
            metric(
                "assertions-without",
                format!("{:.2}", o.assertion_pass_rate.mean)
            ),
            pair(w, o, |c| c.turns.shown(1)),
            pair(w, o, |c| c.tokens.shown(0)),
            pair(w, o, |c| c.time_seconds.shown(2)),
            flags
                .iter()
                .map(|f| format!("<span class=\"flag\">{}</span>", esc(f)))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let _ = writeln!(out, "</table>");
}

/// `with / without` of one number, shown by `show`.
fn pair(
    with: &ConfigSummary,
    without: &ConfigSummary,
    show: fn(&ConfigSummary) -> String,
) -> String {
    format!("{} / {}", show(with), show(without))
}

fn case(out: &mut String, report: &TaskReport, case: &CaseTaskReport) {
    let id = format!("{} #{}", case.skill, case.id);
    let _ = writeln!(
        out,
        "<section class=\"case\" data-skill=\"{}\" data-case=\"{}\"><h3>{}</h3><p><b>Task:</b> {}</p>",
        esc(&case.skill),
        case.id,
        esc(&id),
        esc(&case.prompt)
    );
    if !case.expected_output.is_empty() {
        let _ = writeln!(
            out,
            "<p><b>Expected:</b> {}</p>",
            esc(&case.expected_output)
        );
    }
    let _ = writeln!(
        out,
        "<p>pass rate with <span data-metric=\"case-pass-with\">{:.2}</span>, without \
         <span data-metric=\"case-pass-without\">{:.2}</span>, uplift {}; assertion pass rate {:.2} / {:.2}{}{}</p>",
        case.with_skill.pass_rate.mean,
        case.without_skill.pass_rate.mean,
        signed(case.delta.pass_rate, 2),
        case.with_skill.assertion_pass_rate.mean,
        case.without_skill.assertion_pass_rate.mean,
        if case.flaky {
            " <span class=\"flag\">flaky</span>"
        } else {
            ""
        },
        if case.non_discriminating.is_empty() {
            String::new()
        } else {
            format!(
                " <span class=\"flag\">non-discriminating: {}</span>",
                esc(&case.non_discriminating.join("; "))
            )
        }
    );
    for run in report
        .runs
        .iter()
        .filter(|r| r.skill == case.skill && r.eval_id == case.id)
    {
        self::run(out, run);
    }
    let _ = writeln!(out, "</section>");
}

fn run(out: &mut String, run: &RunRecord) {
    let (class, verdict) = if run.pass {
        ("pass", "pass")
    } else {
        ("fail", "fail")
    };
    let note = run
        .error
        .as_deref()
        .or(run.stopped.as_deref())
        .map(|n| format!(" ({})", esc(n)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<details><summary>{} run {}: <span class=\"{class}\">{verdict}</span>{note}; {} turns, {} tool calls, {} tokens, {:.2} s; loaded: {}</summary>",
        run.configuration.as_str(),
        run.run_number,
        run.turns,
        run.result.tool_calls,
        run.result.tokens,
        run.result.time_seconds,
        esc(&if run.skills_loaded.is_empty() {
            "no skill".to_owned()
        } else {
            run.skills_loaded.join(", ")
        })
    );
    let _ = writeln!(
        out,
        "<table><tr><th>assertion</th><th></th><th>evidence</th></tr>"
    );
    for expectation in &run.expectations {
        let (class, mark) = if expectation.passed {
            ("pass", "passed")
        } else {
            ("fail", "failed")
        };
        let _ = writeln!(
            out,
            "<tr><td>{}{}</td><td class=\"{class}\">{mark}</td><td>{}</td></tr>",
            esc(&expectation.text),
            if expectation.graded { " (graded)" } else { "" },
            esc(&expectation.evidence)
        );
    }
    let _ = writeln!(
        out,
        "</table><p><b>Final answer:</b></p><pre>{}</pre>",
        esc(&run.answer)
    );
    if !run.changed_files.is_empty() {
        let _ = writeln!(out, "<p><b>Files changed:</b></p><ul>");
        for file in &run.changed_files {
            let _ = writeln!(out, "<li>{} ({})</li>", esc(&file.path), esc(&file.change));
        }
        let _ = writeln!(out, "</ul>");
    }
    let _ = writeln!(
        out,
        "<details><summary>transcript ({} entries)</summary>",
        run.transcript.len()
    );
    for entry in &run.transcript {
        let _ = writeln!(
            out,
            "<pre><b>{}</b> {}</pre>",
            esc(&entry.role),
            esc(&entry.text)
        );
    }
    let _ = writeln!(out, "</details></details>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_shown_is_escaped() {
        assert_eq!(
            esc("</details><script>x('1' & \"2\")</script>\u{1b}"),
            "&lt;/details&gt;&lt;script&gt;x(&#x27;1&#x27; &amp; &quot;2&quot;)&lt;/script&gt;\\u{1b}"
        );
    }
}
