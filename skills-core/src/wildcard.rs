//! The one `*` matcher: `*` stands for any run of characters, everything else matches itself.
//! Used for resource `ignore` patterns and for `allowed-tools` command patterns.

/// Whether `text` matches `pattern`. Greedy with one backtrack point, so a pattern full of `*`
/// costs at most the pattern's length times the text's, never exponential time.
pub(crate) fn matches(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some((star_p, star_t)) = star {
            pi = star_p + 1;
            ti = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn stars_and_literals() {
        assert!(matches("*.bak", "notes.bak"));
        assert!(!matches("*.bak", "notes.bak.md"));
        assert!(matches("draft-*.md", "draft-1.md"));
        assert!(matches("a*b*c", "aXbYc"));
        assert!(!matches("a*b*c", "aXbY"));
        assert!(matches("*", ""));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exactly"));
        assert!(matches("é*漢", "éx漢"));
    }

    #[test]
    fn bombs_are_cheap() {
        let pattern = "*a".repeat(2000);
        let text = "a".repeat(3000) + "b";
        assert!(!matches(&pattern, &text));
    }
}
