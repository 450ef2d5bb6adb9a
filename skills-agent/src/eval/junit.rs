//! The report as JUnit XML, the format CI dashboards read: one test suite per skill with a test
//! case per trigger case (a failure when it did not do what it should, an error when a reply
//! was one), and a `gates` suite with a test case per gate checked.

use std::fmt::Write;

use super::report::{GateFailure, Report};

/// `text` as XML 1.0 character data or attribute value: escaped, and the characters XML cannot
/// carry at all (most control characters) written as `\u{..}`.
pub(crate) fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

pub(super) fn junit(report: &Report) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures, mut errors) = (0usize, 0usize, 0usize);
    let mut skills: Vec<&str> = Vec::new();
    for case in &report.cases {
        if !skills.contains(&case.skill.as_str()) {
            skills.push(&case.skill);
        }
    }
    for skill in skills {
        let cases: Vec<_> = report.cases.iter().filter(|c| c.skill == skill).collect();
        let suite_errors = cases.iter().filter(|c| c.errors > 0).count();
        let suite_failures = cases.iter().filter(|c| !c.pass && c.errors == 0).count();
        tests += cases.len();
        failures += suite_failures;
        errors += suite_errors;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{suite_failures}\" errors=\"{suite_errors}\">",
            xml(skill),
            cases.len()
        );
        if let Some(numbers) = report.skill(skill) {
            suites.push_str("    <properties>\n");
            for (name, value) in [
                ("recall", numbers.recall),
                ("precision", numbers.precision),
                ("false_trigger_rate", numbers.false_trigger_rate),
            ] {
                if let Some(value) = value {
                    let _ = writeln!(
                        suites,
                        "      <property name=\"{name}\" value=\"{value}\"/>"
                    );
                }
            }
            suites.push_str("    </properties>\n");
        }
        for case in cases {
            let expected = if case.should_trigger {
                "should trigger"
            } else {
                "should not trigger"
            };
            let _ = write!(
                suites,
                "    <testcase classname=\"{}\" name=\"{}: {}\"",
                xml(skill),
                expected,
                xml(&case.query)
            );
            let loaded: Vec<String> = case
                .loaded
                .iter()
                .map(|(name, n)| format!("{name} {n}"))
                .collect();
            let detail = format!(
                "trigger rate {} against the threshold {}; runs by what they loaded: {}",
                case.trigger_rate,
                report.threshold,
                loaded.join(", ")
            );
            if let Some(error) = &case.error {
                let _ = writeln!(
                    suites,
                    ">\n      <error message=\"{}\">{}</error>\n    </testcase>",
                    xml(error),
                    xml(&detail)
                );
            } else if !case.pass {
                let _ = writeln!(
                    suites,
                    ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    xml(&format!("{expected}, and did not")),
                    xml(&detail)
                );
            } else {
                suites.push_str("/>\n");
            }
        }
        suites.push_str("  </testsuite>\n");
    }
    if let Some(gates) = &report.gates {
        let mut checked: Vec<(String, Vec<&GateFailure>)> = Vec::new();
        let mut add = |label: String, of_kind: fn(&GateFailure) -> bool| {
            checked.push((
                label,
                gates.failures.iter().filter(|f| of_kind(f)).collect(),
            ));
        };
        if let Some(min) = gates.min_recall {
            add(format!("min recall {min}"), |f| {
                matches!(f, GateFailure::MinRecall { .. })
            });
        }
        if let Some(min) = gates.min_precision {
            add(format!("min precision {min}"), |f| {
                matches!(f, GateFailure::MinPrecision { .. })
            });
        }
        if gates.baseline_passed.is_some() {
            add("baseline".to_owned(), |f| {
                matches!(f, GateFailure::Regressed { .. })
            });
        }
        let failed = checked.iter().filter(|(_, f)| !f.is_empty()).count();
        tests += checked.len();
        failures += failed;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"gates\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">",
            checked.len()
        );
        for (label, found) in checked {
            if found.is_empty() {
                let _ = writeln!(
                    suites,
                    "    <testcase classname=\"gates\" name=\"{label}\"/>"
                );
            } else {
                let text: Vec<String> = found.iter().map(ToString::to_string).collect();
                let _ = writeln!(
                    suites,
                    "    <testcase classname=\"gates\" name=\"{label}\">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                    xml(&format!("{} failed", found.len())),
                    xml(&text.join("\n"))
                );
            }
        }
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"trigger evals: {} {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\">\n{suites}</testsuites>\n",
        xml(&report.provider),
        xml(&report.model)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_xml_cannot_carry_is_escaped() {
        assert_eq!(
            xml("a<b & \"c\" 'd'\u{1b}[1m\u{0}\n"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;\\u{1b}[1m\\u{0}\n"
        );
    }
}
