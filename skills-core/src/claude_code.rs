//! Claude Code's dialect: [`Compat`], the option that turns it on, the closed value sets of its
//! frontmatter fields (`effort`, `context`, `shell`), the spellings and boolean words it reads,
//! and the `${CLAUDE_*}` variables of a body, defined once: the macro checks a value against
//! them at build time and generated code names the same enums, which `skills-runtime`
//! re-exports.

/// Defines a closed set of values: the enum, its `ALL`, `as_str`, `from_name` and `expected`.
macro_rules! choices {
    ($(#[doc = $doc:literal])* $name:ident { $($(#[doc = $vdoc:literal])* $variant:ident = $text:literal,)* }) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $($(#[doc = $vdoc])* $variant,)*
        }

        impl $name {
            /// Every value, in the order the docs list them.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The value as written in `SKILL.md`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// The value spelled exactly `text`.
            pub fn from_name(text: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|value| value.as_str() == text)
            }

            /// The valid values for an error message: `` `a`, `b` or `c` ``.
            pub fn expected() -> String {
                let names: Vec<String> = Self::ALL.iter().map(|v| format!("`{}`", v.as_str())).collect();
                match names.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => String::new(),
                }
            }
        }
    };
}

choices! {
    /// `effort`: how hard the model should think while the skill is active.
    Effort {
        /// `low`.
        Low = "low",
        /// `medium`.
        Medium = "medium",
        /// `high`.
        High = "high",
        /// `xhigh`.
        XHigh = "xhigh",
        /// `max`.
        Max = "max",
    }
}

choices! {
    /// `context`: where the skill runs.
    SkillContext {
        /// `inherit` (the default): in the conversation that invoked it.
        Inherit = "inherit",
        /// `fork`: in a child agent session of its own (optionally the `agent` named).
        Fork = "fork",
        /// `inline`: what Claude Code's own schema calls the default, the same as `inherit`.
        Inline = "inline",
    }
}

choices! {
    /// `shell`: the shell of the skill's inline commands.
    Shell {
        /// `bash`.
        Bash = "bash",
        /// `powershell`.
        PowerShell = "powershell",
    }
}

/// The frontmatter dialect a bundle is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compat {
    /// The Agent Skills spec and this crate's keys only.
    #[default]
    Strict,
    /// Also Claude Code's keys and its reading of `name` as a display name.
    ClaudeCode,
}

impl Compat {
    /// Every dialect.
    pub const ALL: [Compat; 2] = [Compat::Strict, Compat::ClaudeCode];

    /// The name in `compat = "..."`.
    pub const fn name(self) -> &'static str {
        match self {
            Compat::Strict => "strict",
            Compat::ClaudeCode => "claude-code",
        }
    }

    /// The dialect called `name`.
    pub fn parse(name: &str) -> Option<Compat> {
        Compat::ALL.into_iter().find(|compat| compat.name() == name)
    }
}

/// The keys Claude Code reads in kebab-case, snake_case and camelCase alike (since 2.1.186),
/// each with its other two spellings: the frontmatter may use any one of them, once.
#[cfg(feature = "validate")]
const SPELLED_THREE_WAYS: [(&str, [&str; 2]); 2] = [
    ("display-name", ["display_name", "displayName"]),
    ("default-enabled", ["default_enabled", "defaultEnabled"]),
];

/// The kebab-case name of a key Claude Code also reads as `key` (`displayName` is
/// `display-name`); `None` for any other spelling.
#[cfg(feature = "validate")]
pub(crate) fn kebab_case_of(key: &str) -> Option<&'static str> {
    SPELLED_THREE_WAYS
        .iter()
        .find(|(_, others)| others.contains(&key))
        .map(|(kebab, _)| *kebab)
}

/// The words Claude Code reads as a boolean besides YAML's `true` and `false` (since 2.1.218),
/// compared without case and surrounding spaces: `yes`/`no`, `on`/`off`, `1`/`0`, and the
/// quoted `"true"`/`"false"`. Other hosts and the spec's validator read them as text.
#[cfg(feature = "validate")]
pub(crate) fn boolean_word(text: &str) -> Option<bool> {
    let word = text.trim().to_ascii_lowercase();
    match word.as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// White space as JavaScript's `\s` and `trim` have it, for the rules that read text as Claude
/// Code (a JavaScript program) reads it: it holds U+FEFF and not U+0085, unlike
/// [`char::is_whitespace`].
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// The `${CLAUDE_*}` variables of a body that are substituted at run time, as Claude Code does:
/// where the skill's files are (`SKILL_DIR`), the session (`SESSION_ID`), the effort level
/// (`EFFORT`) and the working directory (`PROJECT_DIR`). Any other, such as a plugin's
/// `PLUGIN_ROOT` or `PLUGIN_DATA`, is left as written.
pub const SUBSTITUTED_VARIABLES: [&str; 4] = [
    "CLAUDE_SKILL_DIR",
    "CLAUDE_SESSION_ID",
    "CLAUDE_EFFORT",
    "CLAUDE_PROJECT_DIR",
];

/// Every `${CLAUDE_...}` in `text`: its byte range and its name (`CLAUDE_SKILL_DIR`), in order.
/// A name is `CLAUDE_` followed by ASCII letters, digits and `_`.
pub fn variables(text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(at) = text[search..].find("${CLAUDE_") {
        let start = search + at;
        let name_start = start + 2;
        let name_len = text[name_start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len() - name_start);
        let name_end = name_start + name_len;
        if text[name_end..].starts_with('}') {
            found.push((start..name_end + 1, &text[name_start..name_end]));
            search = name_end + 1;
        } else {
            search = name_end;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_listed() {
        for effort in Effort::ALL {
            assert_eq!(Effort::from_name(effort.as_str()), Some(*effort));
        }
        assert_eq!(Effort::from_name("High"), None);
        assert_eq!(
            Effort::expected(),
            "`low`, `medium`, `high`, `xhigh` or `max`"
        );
        assert_eq!(SkillContext::expected(), "`inherit`, `fork` or `inline`");
        assert_eq!(Shell::from_name("powershell"), Some(Shell::PowerShell));
    }

    #[cfg(feature = "validate")]
    #[test]
    fn three_spellings_and_boolean_words_are_claude_codes() {
        assert_eq!(kebab_case_of("displayName"), Some("display-name"));
        assert_eq!(kebab_case_of("display_name"), Some("display-name"));
        assert_eq!(kebab_case_of("defaultEnabled"), Some("default-enabled"));
        assert_eq!(kebab_case_of("default_enabled"), Some("default-enabled"));
        // The kebab-case name is the key itself; other spellings are no key.
        assert_eq!(kebab_case_of("display-name"), None);
        assert_eq!(kebab_case_of("DisplayName"), None);
        assert_eq!(kebab_case_of("display__name"), None);
        for (word, value) in [
            ("yes", true),
            ("YES", true),
            (" on ", true),
            ("1", true),
            ("True", true),
            ("no", false),
            ("Off", false),
            ("0", false),
            ("false", false),
        ] {
            assert_eq!(boolean_word(word), Some(value), "{word:?}");
        }
        for word in ["", "y", "n", "2", "enabled", "nope", "10"] {
            assert_eq!(boolean_word(word), None, "{word:?}");
        }
    }

    #[test]
    fn variables_are_found_with_their_ranges() {
        let text = "Run ${CLAUDE_SKILL_DIR}/x.sh in ${CLAUDE_PLUGIN_ROOT}; not ${CLAUDE_ or $CLAUDE_EFFORT or ${CLAUDE_BAD-NAME}, but ${CLAUDE_EFFORT}";
        let found: Vec<(&str, &str)> = variables(text)
            .into_iter()
            .map(|(range, name)| (&text[range], name))
            .collect();
        assert_eq!(
            found,
            [
                ("${CLAUDE_SKILL_DIR}", "CLAUDE_SKILL_DIR"),
                ("${CLAUDE_PLUGIN_ROOT}", "CLAUDE_PLUGIN_ROOT"),
                ("${CLAUDE_EFFORT}", "CLAUDE_EFFORT"),
            ]
        );
        assert!(variables("${CLAUDE_").is_empty());
        assert!(SUBSTITUTED_VARIABLES.contains(&"CLAUDE_SKILL_DIR"));
    }
}
