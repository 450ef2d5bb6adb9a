//! The output formats: catalog (Markdown and XML), system prompt,
//! `load_skill` tool definitions and results.
//!
//! Written once, with no dependencies: the macro calls these at build time to bake the full
//! catalog into the binary, and the runtime calls them for a registry restricted at run time,
//! so both always produce the same bytes.

use std::fmt::Write as _;

/// What the catalog shows of one skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CatalogEntry<'a> {
    /// The skill's name.
    pub name: &'a str,
    /// The skill's description, as written (whitespace is collapsed when rendered).
    pub description: &'a str,
    /// Claude Code's optional `when_to_use`, appended to the description after a space.
    pub when_to_use: Option<&'a str>,
    /// The optional `when-not-to-use` text, rendered as ` Not for: ...`.
    pub when_not_to_use: Option<&'a str>,
    /// `false` for a skill with `disable-model-invocation: true`: see [`is_listed`](Self::is_listed).
    pub model_invocable: bool,
}

impl CatalogEntry<'_> {
    /// Whether the model is shown this skill: in the catalogs, the system prompt and the
    /// `load_skill` names. A skill only a person may invoke is not (it can still be looked up by
    /// name). The one place this rule is decided.
    pub fn is_listed(&self) -> bool {
        self.model_invocable
    }

    /// The description as the catalog shows it: whitespace runs collapsed, `when_to_use` and
    /// `Not for:` appended.
    pub fn summary(&self) -> String {
        let mut summary = collapse_whitespace(self.description);
        if let Some(when) = self.when_to_use {
            summary.push(' ');
            summary.push_str(&collapse_whitespace(when));
        }
        if let Some(not_for) = self.when_not_to_use {
            summary.push_str(" Not for: ");
            summary.push_str(&collapse_whitespace(not_for));
        }
        summary
    }
}

/// What an empty Markdown catalog says.
pub const EMPTY_CATALOG: &str = "(no skills found)";

/// Name of the tool that loads a skill.
pub const LOAD_SKILL_TOOL: &str = "load_skill";

/// Description of the `load_skill` tool, identical on every turn so prompts cache well.
pub(crate) const LOAD_SKILL_DESCRIPTION: &str = "Load the full instructions of one of the skills listed \
under \"Skills available\" in the system prompt. Call it before starting a task that matches a \
skill's description, then follow the instructions it returns.";

/// The sentence that closes the skills section of the system prompt.
pub(crate) const LOAD_SKILL_HINT: &str = "When a task matches one of these skills, call the `load_skill` \
tool with the skill's name before you start, and follow the instructions it returns.";

/// Replaces every run of whitespace with one space and trims both ends.
#[doc(hidden)]
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// The entries the model is shown (see [`CatalogEntry::is_listed`]), in the order given.
pub fn listed<'e, 'a>(
    entries: &'e [CatalogEntry<'a>],
) -> impl Iterator<Item = &'e CatalogEntry<'a>> + Clone {
    entries.iter().filter(|entry| entry.is_listed())
}

/// The names the `load_skill` tool offers: those of the [`listed`] entries.
pub fn listed_names<'a>(entries: &[CatalogEntry<'a>]) -> Vec<&'a str> {
    listed(entries).map(|entry| entry.name).collect()
}

/// The Markdown catalog: `- {name}: {description}` per [`listed`] skill, in the order given
/// (the registry keeps skills sorted by name), joined with `\n`, no trailing newline.
pub fn catalog_markdown(entries: &[CatalogEntry<'_>]) -> String {
    if listed(entries).next().is_none() {
        return EMPTY_CATALOG.to_owned();
    }
    let mut out = String::new();
    for (i, entry) in listed(entries).enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(out, "- {}: {}", entry.name, entry.summary());
    }
    out
}

/// The XML catalog of the agentskills.io prompt format, without `<location>` (an embedded skill
/// has no file), of the [`listed`] skills.
pub fn catalog_xml(entries: &[CatalogEntry<'_>]) -> String {
    let mut out = String::from("<available_skills>\n");
    for entry in listed(entries) {
        out.push_str("<skill>\n<name>\n");
        out.push_str(&xml_escape(entry.name));
        out.push_str("\n</name>\n<description>\n");
        out.push_str(&xml_escape(&entry.summary()));
        out.push_str("\n</description>\n</skill>\n");
    }
    out.push_str("</available_skills>");
    out
}

/// Escapes `& < > " '` as `&amp; &lt; &gt; &quot; &#x27;`.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a JSON string literal, quotes included.
#[doc(hidden)]
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The JSON schema of the `load_skill` input: one required string `name`, restricted to `names`.
pub(crate) fn load_skill_input_schema(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|name| json_string(name)).collect();
    format!(
        "{{\"type\":\"object\",\"properties\":{{\"name\":{{\"type\":\"string\",\
         \"description\":\"Name of the skill to load\",\"enum\":[{}]}}}},\
         \"required\":[\"name\"],\"additionalProperties\":false}}",
        names.join(",")
    )
}

/// The `load_skill` tool in the Anthropic Messages shape (`name`, `description`, `input_schema`).
#[doc(hidden)]
pub fn load_skill_tool_anthropic(names: &[&str]) -> String {
    tool_anthropic(
        LOAD_SKILL_TOOL,
        LOAD_SKILL_DESCRIPTION,
        &load_skill_input_schema(names),
    )
}

/// The `load_skill` tool in the OpenAI Chat Completions shape (`type: function`, `parameters`).
#[doc(hidden)]
pub fn load_skill_tool_openai(names: &[&str]) -> String {
    tool_openai(
        LOAD_SKILL_TOOL,
        LOAD_SKILL_DESCRIPTION,
        &load_skill_input_schema(names),
    )
}

/// A tool definition in the Anthropic Messages shape: `name`, `description`, `input_schema`.
#[doc(hidden)]
pub fn tool_anthropic(name: &str, description: &str, input_schema: &str) -> String {
    format!(
        "{{\"name\":{},\"description\":{},\"input_schema\":{input_schema}}}",
        json_string(name),
        json_string(description)
    )
}

/// A tool definition in the OpenAI Chat Completions shape: `type: function` wrapping `name`,
/// `description`, `parameters`.
#[doc(hidden)]
pub fn tool_openai(name: &str, description: &str, parameters: &str) -> String {
    format!(
        "{{\"type\":\"function\",\"function\":{{\"name\":{},\"description\":{},\"parameters\":{parameters}}}}}",
        json_string(name),
        json_string(description)
    )
}

/// Name of the tool that reads a file shipped with a skill.
#[doc(hidden)]
pub const READ_RESOURCE_TOOL: &str = "read_skill_resource";

/// Description of the `read_skill_resource` tool.
pub(crate) const READ_RESOURCE_DESCRIPTION: &str = "Read a file shipped with a skill (listed at the end \
of its load_skill result), such as references/guide.md. Text files are returned by lines from \
`offset` (1-based), at most `limit` lines; binary files are described, not returned.";

/// The JSON schema of the `read_skill_resource` input: the skill (one of `names`), the path,
/// and optional `offset` / `limit`.
pub(crate) fn read_resource_input_schema(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|name| json_string(name)).collect();
    format!(
        "{{\"type\":\"object\",\"properties\":{{\"skill\":{{\"type\":\"string\",\
         \"description\":\"Name of the skill\",\"enum\":[{}]}},\"path\":{{\"type\":\"string\",\
         \"description\":\"Path of the file inside the skill folder\"}},\"offset\":{{\"type\":\"integer\",\
         \"minimum\":1,\"description\":\"First line to read (1-based)\"}},\"limit\":{{\"type\":\"integer\",\
         \"minimum\":1,\"description\":\"Maximum number of lines\"}}}},\"required\":[\"skill\",\"path\"],\
         \"additionalProperties\":false}}",
        names.join(",")
    )
}

/// The `read_skill_resource` tool in the Anthropic shape.
#[doc(hidden)]
pub fn read_resource_tool_anthropic(names: &[&str]) -> String {
    tool_anthropic(
        READ_RESOURCE_TOOL,
        READ_RESOURCE_DESCRIPTION,
        &read_resource_input_schema(names),
    )
}

/// The `read_skill_resource` tool in the OpenAI shape.
#[doc(hidden)]
pub fn read_resource_tool_openai(names: &[&str]) -> String {
    tool_openai(
        READ_RESOURCE_TOOL,
        READ_RESOURCE_DESCRIPTION,
        &read_resource_input_schema(names),
    )
}

/// The system prompt: the caller's preamble, a blank line, `Skills available:`, the catalog, a
/// blank line and `LOAD_SKILL_HINT`. With no skills it is the preamble alone.
#[doc(hidden)]
pub fn system_prompt(preamble: &str, catalog: &str, skill_count: usize) -> String {
    if skill_count == 0 {
        return preamble.to_owned();
    }
    let mut out = String::with_capacity(preamble.len() + catalog.len() + 200);
    if !preamble.is_empty() {
        out.push_str(preamble);
        out.push_str("\n\n");
    }
    out.push_str("Skills available:\n");
    out.push_str(catalog);
    out.push_str("\n\n");
    out.push_str(LOAD_SKILL_HINT);
    out
}

/// One file shipped beside a skill's `SKILL.md`, as the `load_skill` result lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct ResourceEntry<'a> {
    /// Path relative to the skill's folder, with `/`.
    pub path: &'a str,
    /// Size in bytes.
    pub size: u64,
}

/// The `load_skill` result: the body wrapped in `<skill name=".." version="..">`, then the
/// resource files when there are any (and where they were written to disk, when they were).
#[doc(hidden)]
pub fn load_skill_result(
    name: &str,
    version: Option<&str>,
    body: &str,
    resources: &[ResourceEntry<'_>],
    resource_dir: Option<&str>,
) -> String {
    let mut out = format!("<skill name=\"{}\"", xml_escape(name));
    if let Some(version) = version {
        let _ = write!(out, " version=\"{}\"", xml_escape(version));
    }
    out.push_str(">\n");
    out.push_str(body);
    out.push_str("\n</skill>");
    if !resources.is_empty() {
        match resource_dir {
            Some(dir) => {
                let _ = write!(out, "\n\nResources of this skill, written to {dir}:");
            }
            None => {
                out.push_str("\n\nResources of this skill (read them with read_skill_resource):")
            }
        }
        for resource in resources {
            let _ = write!(out, "\n- {} ({} bytes)", resource.path, resource.size);
        }
    }
    out
}

/// The short note returned when a skill is loaded a second time in one conversation.
#[doc(hidden)]
pub fn already_loaded_note(name: &str) -> String {
    format!(
        "The skill \"{name}\" is already loaded earlier in this conversation; \
         follow the instructions given there."
    )
}

/// The error text for a `load_skill` call naming no skill of the registry.
#[doc(hidden)]
pub fn unknown_skill_message(requested: &str, available: &[&str]) -> String {
    let mut out = format!("No skill named \"{requested}\".");
    if let Some(closest) = closest_match(requested, available.iter().copied()) {
        let _ = write!(out, " Did you mean \"{closest}\"?");
    }
    if available.is_empty() {
        out.push_str(" No skills are available.");
    } else {
        let _ = write!(out, " Available skills: {}.", available.join(", "));
    }
    out
}

/// The help for a name that matches none of `candidates`: `` did you mean `x`? `` with the
/// closest one, or, when none is close, `` the {what} are `a`, `b` `` with every one (at most
/// [`MAX_LISTED`], then how many more); `None` when there are no candidates. Every
/// "did you mean" of the build's diagnostics is worded here.
#[doc(hidden)]
pub fn suggestion(target: &str, candidates: &[&str], what: &str) -> Option<String> {
    if let Some(closest) = closest_match(target, candidates.iter().copied()) {
        return Some(format!("did you mean `{closest}`?"));
    }
    let (shown, rest) = candidates.split_at(candidates.len().min(MAX_LISTED));
    if shown.is_empty() {
        return None;
    }
    let mut listed: Vec<String> = shown.iter().map(|name| format!("`{name}`")).collect();
    if !rest.is_empty() {
        listed.push(format!("and {} more", rest.len()));
    }
    Some(format!("the {what} are {}", listed.join(", ")))
}

/// How many names [`suggestion`] lists when none is close.
pub const MAX_LISTED: usize = 30;

/// The candidate closest to `target` by edit distance, if it is close enough to be a likely typo
/// (at most a third of the longer word's length, and at least one character).
#[doc(hidden)]
pub fn closest_match<'a>(
    target: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let target_lower = target.to_lowercase();
    candidates
        .into_iter()
        .map(|candidate| {
            (
                edit_distance(&target_lower, &candidate.to_lowercase()),
                candidate,
            )
        })
        .filter(|(distance, candidate)| {
            let longest = target.chars().count().max(candidate.chars().count());
            *distance <= (longest / 3).max(1)
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Edit distance in characters, counting an insertion, a deletion, a substitution or a swap of
/// two neighbouring characters as one edit (the optimal string alignment distance, a restricted
/// Damerau-Levenshtein): `alpah` is one edit from `alpha`, as a typist sees it, where Levenshtein
/// counts two.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: two back (for a swap), one back, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j - 1] + cost)
                .min(previous[j] + 1)
                .min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
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

    #[test]
    fn markdown_catalog_is_one_line_per_skill_without_trailing_newline() {
        let entries = [
            entry("a", "First  skill.\n  Spans lines."),
            CatalogEntry {
                when_not_to_use: Some("small\tfixes"),
                ..entry("b", "Second.")
            },
        ];
        assert_eq!(
            catalog_markdown(&entries),
            "- a: First skill. Spans lines.\n- b: Second. Not for: small fixes"
        );
    }

    #[test]
    fn empty_catalogs() {
        assert_eq!(catalog_markdown(&[]), "(no skills found)");
        assert_eq!(catalog_xml(&[]), "<available_skills>\n</available_skills>");
    }

    #[test]
    fn xml_catalog_escapes_values_on_their_own_lines() {
        let xml = catalog_xml(&[entry("x", "Use <tags> & \"quotes\" 'here'")]);
        assert_eq!(
            xml,
            "<available_skills>\n<skill>\n<name>\nx\n</name>\n<description>\n\
             Use &lt;tags&gt; &amp; &quot;quotes&quot; &#x27;here&#x27;\n</description>\n\
             </skill>\n</available_skills>"
        );
    }

    #[test]
    fn json_strings_escape_control_characters() {
        assert_eq!(json_string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    #[test]
    fn tool_schemas_list_names_as_enum() {
        let anthropic = load_skill_tool_anthropic(&["a", "b"]);
        assert!(anthropic.starts_with("{\"name\":\"load_skill\""));
        assert!(anthropic.contains("\"input_schema\":{\"type\":\"object\""));
        assert!(anthropic.contains("\"enum\":[\"a\",\"b\"]"));
        let openai = load_skill_tool_openai(&["a"]);
        assert!(openai.starts_with("{\"type\":\"function\",\"function\":{\"name\":\"load_skill\""));
        assert!(openai.contains("\"parameters\":{\"type\":\"object\""));
        assert!(openai.contains("\"required\":[\"name\"]"));
    }

    #[test]
    fn system_prompt_layout() {
        assert_eq!(
            system_prompt("Be brief.", "- a: A", 1),
            format!("Be brief.\n\nSkills available:\n- a: A\n\n{LOAD_SKILL_HINT}")
        );
        assert_eq!(system_prompt("Be brief.", EMPTY_CATALOG, 0), "Be brief.");
    }

    #[test]
    fn load_result_wraps_body_and_lists_resources() {
        assert_eq!(
            load_skill_result("a", None, "Do it.", &[], None),
            "<skill name=\"a\">\nDo it.\n</skill>"
        );
        let with = load_skill_result(
            "a",
            Some("1.0"),
            "Do it.",
            &[ResourceEntry {
                path: "scripts/x.py",
                size: 12,
            }],
            None,
        );
        assert!(
            with.starts_with("<skill name=\"a\" version=\"1.0\">\nDo it.\n</skill>\n\nResources")
        );
        assert!(with.ends_with("\n- scripts/x.py (12 bytes)"));
    }

    #[test]
    fn unknown_skill_suggests_the_closest_name() {
        let message = unknown_skill_message("code-reveiw", &["code-review", "write-tests"]);
        assert_eq!(
            message,
            "No skill named \"code-reveiw\". Did you mean \"code-review\"? Available skills: code-review, write-tests."
        );
        assert_eq!(closest_match("zzz", ["code-review"]), None);
    }

    #[test]
    fn edit_distance_counts_characters() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("héllo", "hello"), 1);
    }

    #[test]
    fn a_swap_of_neighbours_is_one_edit() {
        assert_eq!(edit_distance("alpah", "alpha"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("code-reveiw", "code-review"), 1);
        // Two swaps are two edits; a swap and a substitution in the same place are not one.
        assert_eq!(edit_distance("badc", "abcd"), 2);
        assert_eq!(edit_distance("ca", "abc"), 3);
        // Symmetric, and zero only for equal strings.
        for (a, b) in [("alpah", "alpha"), ("kitten", "sitting"), ("é漢", "漢é")] {
            assert_eq!(edit_distance(a, b), edit_distance(b, a));
            assert_eq!(edit_distance(a, a), 0);
        }
        assert_eq!(
            closest_match("alpah", ["alpha-review", "alpha", "beta"]),
            Some("alpha")
        );
        assert_eq!(closest_match("alpah", ["beta"]), None);
    }

    #[test]
    fn a_suggestion_is_the_closest_name_or_every_name() {
        assert_eq!(
            suggestion("alpah", &["alpha", "beta"], "skills").as_deref(),
            Some("did you mean `alpha`?")
        );
        assert_eq!(
            suggestion("zzz", &["alpha", "beta"], "skills").as_deref(),
            Some("the skills are `alpha`, `beta`")
        );
        assert_eq!(suggestion("zzz", &[], "skills"), None);
        let many: Vec<String> = (0..MAX_LISTED + 2).map(|i| format!("skill-{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let listed = suggestion("zzzzzzzzzz", &many, "skills").unwrap();
        assert!(listed.ends_with(", and 2 more"), "{listed}");
        assert!(
            listed.contains(&format!("`skill-{}`", MAX_LISTED - 1)),
            "{listed}"
        );
        assert!(
            !listed.contains(&format!("`skill-{MAX_LISTED}`")),
            "{listed}"
        );
    }
}
