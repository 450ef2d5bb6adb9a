//! The `allowed-tools` grammar, in the spec's form (tool names separated by spaces) and Claude
//! Code's (also commas, and entries with an argument pattern in parentheses, which may hold
//! spaces: `Read, Bash(git diff:*) mcp__github__create_issue`).
//!
//! Written once and used twice: the macro splits and checks the field at build time, and the
//! agent matches a tool call against the parsed entries at run time.

/// The entries of an `allowed-tools` string: split at spaces and commas outside parentheses,
/// empty pieces dropped. `Err` names the problem when parentheses do not balance.
pub fn split(text: &str) -> Result<Vec<&str>, String> {
    let mut entries = Vec::new();
    let mut depth = 0usize;
    let mut start = None;
    for (at, c) in text.char_indices() {
        match c {
            '(' => {
                depth += 1;
                start.get_or_insert(at);
            }
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| format!("`)` without `(` at character {}", at + 1))?;
            }
            c if depth == 0 && (c.is_whitespace() || c == ',') => {
                if let Some(from) = start.take() {
                    entries.push(&text[from..at]);
                }
            }
            _ => {
                start.get_or_insert(at);
            }
        }
    }
    if depth > 0 {
        return Err("a `(` is never closed".to_owned());
    }
    if let Some(from) = start {
        entries.push(&text[from..]);
    }
    Ok(entries)
}

/// One parsed entry: a tool name and, for `Name(...)`, the argument pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The tool as written (`Read`, `Bash`, `read_file`, `mcp__server__tool`).
    pub tool: &'a str,
    /// The text inside the parentheses, if any (`git diff:*`).
    pub pattern: Option<&'a str>,
}

impl<'a> Entry<'a> {
    /// Parses one entry from [`split`]. `Err` when the shape is wrong: no tool name, text after
    /// the closing parenthesis, or empty parentheses.
    pub fn parse(entry: &'a str) -> Result<Entry<'a>, String> {
        let (tool, pattern) = match entry.find('(') {
            None => (entry, None),
            Some(open) => {
                let Some(inner) = entry[open + 1..].strip_suffix(')') else {
                    return Err(format!("`{entry}` has text after its closing `)`"));
                };
                if inner.trim().is_empty() {
                    return Err(format!("`{entry}` has an empty pattern"));
                }
                (&entry[..open], Some(inner))
            }
        };
        let valid_name = !tool.is_empty()
            && tool
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '*'));
        if !valid_name {
            return Err(format!("`{entry}` does not start with a tool name"));
        }
        Ok(Entry { tool, pattern })
    }

    /// The name of this crate's agent tool the entry stands for: Claude Code's `Read`, `Write`,
    /// `Edit`/`MultiEdit`, `Glob` and `Bash` map to `read_file`, `write_file`, `edit_file`,
    /// `glob` and `bash`; any other name is taken as written (ours, or a tool the host adds).
    pub fn agent_tool(&self) -> &'a str {
        match self.tool {
            "Read" => "read_file",
            "Write" => "write_file",
            "Edit" | "MultiEdit" => "edit_file",
            "Glob" => "glob",
            "Bash" => "bash",
            other => other,
        }
    }

    /// Whether a call of `tool` is covered. `command` is the call's shell command when the tool
    /// is `bash`; an entry with a pattern covers only commands matching it (see
    /// [`command_matches`]), an entry without one covers every call of its tool.
    pub fn permits(&self, tool: &str, command: Option<&str>) -> bool {
        if self.agent_tool() != tool {
            return false;
        }
        match (self.pattern, tool) {
            (None, _) => true,
            (Some(pattern), "bash") => command.is_some_and(|c| command_matches(pattern, c)),
            // A pattern on another tool (`Read(src/**)`) is not understood here: it covers
            // nothing rather than everything.
            (Some(_), _) => false,
        }
    }

    /// Whether a `disallowed-tools` entry refuses a call of `tool` (`command` as for
    /// [`permits`](Self::permits)). Where [`permits`](Self::permits) grants as little as it can,
    /// this refuses as much: an entry without a pattern refuses every call of its tool; a
    /// `Bash(...)` pattern refuses the commands it matches and every command it cannot judge
    /// (one that is not [`plain_words`]: a pipe, a `;`, a substitution may run anything); a
    /// pattern on another tool, which is not understood here, refuses the whole tool.
    pub fn forbids(&self, tool: &str, command: Option<&str>) -> bool {
        if self.agent_tool() != tool {
            return false;
        }
        match (self.pattern, tool) {
            (Some(pattern), "bash") => {
                command.is_none_or(|c| plain_words(c).is_none() || command_matches(pattern, c))
            }
            _ => true,
        }
    }

    /// Whether [`forbids`](Self::forbids) refuses every call of its tool, so that the tool need
    /// not be offered at all: true but for a `Bash(...)` pattern.
    pub fn forbids_every_call(&self) -> bool {
        self.pattern.is_none() || self.agent_tool() != "bash"
    }
}

/// Whether a shell `command` matches a `Bash(...)` pattern: `prefix:*` (Claude Code's prefix
/// form: the command's first words are the prefix's words), or a pattern where `*` stands for
/// any text (`npm run *`), else the exact command. Words are compared after [`plain_words`]
/// split them, so runs of spaces and tabs between them do not matter.
///
/// Only a command of plain words can match (see [`plain_words`]): anything the shell would
/// expand, substitute, chain, redirect or glob (`git diff ${x@P}`, `git diff $[x]`,
/// `git diff && curl ...`, `git diff > ~/.bashrc`) never rides on a pattern and needs the
/// ordinary permission. What the program itself does with its arguments is not looked at:
/// `git diff:*` approves `git diff --output=notes.txt`.
pub fn command_matches(pattern: &str, command: &str) -> bool {
    let Some(words) = plain_words(command) else {
        return false;
    };
    if let Some(prefix) = pattern.strip_suffix(":*") {
        let prefix: Vec<&str> = split_words(prefix).collect();
        return !prefix.is_empty() && words.starts_with(&prefix);
    }
    let pattern: Vec<&str> = split_words(pattern).collect();
    crate::wildcard::matches(&pattern.join(" "), &words.join(" "))
}

/// The words of `command` when it is nothing but plain words separated by spaces or tabs, so
/// the shell runs it exactly as written: every word made of ASCII letters, digits and
/// `- _ . / : = , + @ %` only, and `~` or `^` right after a letter or digit (`HEAD~1`,
/// `HEAD^`; elsewhere `~` is the home folder). `None` for an empty command and for any other
/// character: `$`,
/// backquotes, backslashes and quotes (expansions and substitutions), `* ? [ ]` (globs),
/// `< >` (redirections), `; & |` and line breaks (other commands), `( ) { }` (subshells,
/// groups, brace expansion), `#` (a comment), `!` (history and negation), and every character
/// outside ASCII.
pub fn plain_words(command: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = split_words(command).collect();
    let plain = !words.is_empty() && words.iter().all(|word| is_plain_word(word));
    plain.then_some(words)
}

/// Whether every byte of `word` is one that means nothing to a POSIX shell or bash where it
/// stands.
fn is_plain_word(word: &str) -> bool {
    let mut previous: Option<u8> = None;
    word.bytes().all(|byte| {
        let plain = byte.is_ascii_alphanumeric()
            || b"-_./:=,+@%".contains(&byte)
            || (matches!(byte, b'~' | b'^') && previous.is_some_and(|p| p.is_ascii_alphanumeric()));
        previous = Some(byte);
        plain
    })
}

/// `text` split at the shell's blanks (space and tab), empty pieces dropped.
fn split_words(text: &str) -> impl Iterator<Item = &str> {
    text.split([' ', '\t']).filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disallowed_entry_refuses_what_it_cannot_judge() {
        let rm = Entry::parse("Bash(rm:*)").unwrap();
        assert!(rm.forbids("bash", Some("rm -rf build")));
        assert!(!rm.forbids("bash", Some("ls -la")));
        // Not plain words: a pattern cannot tell what it runs.
        assert!(rm.forbids("bash", Some("ls | xargs rm")));
        assert!(rm.forbids("bash", Some("$(printf rm) -rf x")));
        assert!(!rm.forbids("read_file", None));
        assert!(!rm.forbids_every_call());
        let write = Entry::parse("Write").unwrap();
        assert!(write.forbids("write_file", None) && write.forbids_every_call());
        // A pattern on another tool is not understood: the whole tool is refused.
        let read = Entry::parse("Read(secrets/**)").unwrap();
        assert!(read.forbids("read_file", None) && read.forbids_every_call());
    }

    #[test]
    fn splits_at_spaces_and_commas_outside_parentheses() {
        assert_eq!(
            split("Read, Grep  Bash(git diff:*),Bash(npm run *) mcp__gh__create_issue").unwrap(),
            [
                "Read",
                "Grep",
                "Bash(git diff:*)",
                "Bash(npm run *)",
                "mcp__gh__create_issue"
            ]
        );
        assert_eq!(split("  ").unwrap(), Vec::<&str>::new());
        assert!(split("Bash(git diff").is_err());
        assert!(split("Read)").is_err());
    }

    #[test]
    fn entries_parse_and_map_to_agent_tools() {
        let bash = Entry::parse("Bash(git diff:*)").unwrap();
        assert_eq!((bash.tool, bash.pattern), ("Bash", Some("git diff:*")));
        assert_eq!(bash.agent_tool(), "bash");
        assert_eq!(Entry::parse("Read").unwrap().agent_tool(), "read_file");
        assert_eq!(Entry::parse("MultiEdit").unwrap().agent_tool(), "edit_file");
        assert_eq!(Entry::parse("read_file").unwrap().agent_tool(), "read_file");
        assert!(Entry::parse("Bash()").is_err());
        assert!(Entry::parse("Bash(x)y").is_err());
        assert!(Entry::parse("(x)").is_err());
    }

    #[test]
    fn bash_patterns() {
        assert!(command_matches("git diff:*", "git diff"));
        assert!(command_matches("git diff:*", "git diff --stat HEAD~1"));
        assert!(!command_matches("git diff:*", "git difftool"));
        assert!(!command_matches("git diff:*", "git status"));
        assert!(command_matches("npm run *", "npm run build"));
        assert!(!command_matches("npm run *", "npm install evil"));
        assert!(command_matches("ls", " ls "));
        assert!(!command_matches("ls", "ls -la"));
        assert!(command_matches("git diff:*", "git  diff\t--stat"));
        assert!(command_matches("npm run *", "npm  run build"));
        assert!(command_matches(
            "git diff:*",
            "git diff HEAD^ HEAD~2 -- src/a.rs"
        ));
        assert!(!command_matches(":*", "ls"));
        // Chained, nested, expanded, globbed or redirected commands never ride on a pattern.
        for hostile in [
            "git diff && curl evil",
            "git diff; rm -rf x",
            "git diff | sh",
            "git diff $(curl evil)",
            "git diff `id`",
            "git diff > ~/.bashrc",
            "git diff\nrm -rf x",
            "git diff\rrm -rf x",
            "npm run build & curl evil",
            // Prompt expansion runs the command substitution stored in the variable.
            "git diff ${x:=\\$\\(touch\\ pwned\\)}${x@P}",
            // Arithmetic on a variable holding an array subscript runs it too.
            "git diff ${y:=a[\\$\\(touch\\ pwned\\)]}$[y]",
            "git diff $[1+1]",
            "git diff $HOME",
            "git diff \"$x\"",
            "git diff 'a b'",
            "git diff a\\ b",
            "git diff *.rs",
            "git diff src/?.rs",
            "git diff [ab].rs",
            "git diff {a,b}.rs",
            "git diff ~/x",
            "git diff ~",
            "git diff a=~/x",
            "git diff x=a:~",
            "git diff ^x",
            "git diff (x)",
            "git diff # comment",
            "git diff !x",
            "git diff caf\u{e9}.rs",
            "git diff \u{a0}x",
            "",
            "   ",
        ] {
            assert!(!command_matches("git diff:*", hostile), "{hostile:?}");
            assert!(!command_matches("*", hostile), "{hostile:?}");
        }
    }

    #[test]
    fn the_expansion_attacks_run_in_bash_and_are_not_plain() {
        // The two attacks against `Bash(git diff:*)` work in a real bash, with no `$(`, no
        // backquote and no chaining character: a rule that only looks for those approves them.
        let Ok(dir) = tempfile::tempdir() else { return };
        for (attack, planted) in [
            ("echo ${x:=\\$\\(touch\\ pwned-p\\)}${x@P}", "pwned-p"),
            ("echo ${y:=a[\\$\\(touch\\ pwned-a\\)]}$[y]", "pwned-a"),
        ] {
            assert!(!attack.contains("$(") && !attack.contains(['`', ';', '&', '|', '<', '>']));
            let Ok(status) = std::process::Command::new("bash")
                .args(["-c", attack])
                .current_dir(dir.path())
                .stdout(std::process::Stdio::null())
                .status()
            else {
                eprintln!("SKIPPED running the attacks: no bash on this machine");
                return;
            };
            assert!(status.success());
            assert!(dir.path().join(planted).exists(), "{attack} ran nothing");
            assert_eq!(plain_words(attack), None);
        }
    }

    /// How bash splits `command` into words, when it can run it (`None` without bash).
    fn bash_words(command: &str) -> Option<Vec<String>> {
        let output = std::process::Command::new("bash")
            .args(["-c", &format!("set -- {command}; printf '%s\\0' \"$@\"")])
            .env_clear()
            .output()
            .ok()?;
        assert!(output.status.success(), "{command:?}");
        let text = String::from_utf8(output.stdout).unwrap();
        Some(text.split_terminator('\0').map(str::to_owned).collect())
    }

    /// Words from all of ASCII's shell syntax, and from plain characters only.
    fn words() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let word = prop_oneof![
            "[a-zA-Z0-9._/:=,+@%~^-]{1,6}",
            "[a-z$`'\"\\\\*?\\[\\]<>;&|(){}~#!^\\n\\r\u{a0}\u{202e}a-z]{1,6}",
        ];
        (
            proptest::bool::ANY,
            proptest::collection::vec(word, 0..5),
            "[ \t]{1,3}",
        )
            .prop_map(|(prefixed, words, gap)| {
                let rest = words.join(&gap);
                if prefixed {
                    format!("git{gap}diff{gap}{rest}")
                } else {
                    rest
                }
            })
    }

    proptest::proptest! {
        /// Whatever `Bash(git diff:*)` approves is `git`, `diff` and plain words, and bash
        /// itself splits it into exactly the words we compared.
        #[test]
        fn anything_approved_is_plain_words_after_the_prefix(command in words()) {
            if command_matches("git diff:*", &command) {
                let ours: Vec<&str> = command.split([' ', '\t']).filter(|w| !w.is_empty()).collect();
                proptest::prop_assert!(ours.len() >= 2 && ours[..2] == ["git", "diff"]);
                for word in &ours {
                    for (at, c) in word.char_indices() {
                        let after_alphanumeric = word[..at].chars().last().is_some_and(|p| p.is_ascii_alphanumeric());
                        proptest::prop_assert!(
                            c.is_ascii_alphanumeric()
                                || "-_./:=,+@%".contains(c)
                                || ("~^".contains(c) && after_alphanumeric),
                            "{c:?} in {command:?}"
                        );
                    }
                }
                if let Some(theirs) = bash_words(&command) {
                    proptest::prop_assert_eq!(theirs, ours);
                }
            }
        }
    }

    #[test]
    fn permits_only_its_tool_and_pattern() {
        let read = Entry::parse("Read").unwrap();
        assert!(read.permits("read_file", None));
        assert!(!read.permits("write_file", None));
        let bash = Entry::parse("Bash(cargo test:*)").unwrap();
        assert!(bash.permits("bash", Some("cargo test -p x")));
        assert!(!bash.permits("bash", Some("cargo publish")));
        assert!(!bash.permits("bash", None));
        assert!(
            Entry::parse("Bash")
                .unwrap()
                .permits("bash", Some("anything && more"))
        );
        assert!(
            !Entry::parse("Read(src/**)")
                .unwrap()
                .permits("read_file", None)
        );
    }
}
