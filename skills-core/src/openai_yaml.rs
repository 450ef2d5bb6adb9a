//! Codex's `agents/openai.yaml`: the file beside `SKILL.md` where Codex reads how to show a
//! skill (`interface`), what it needs (`dependencies.tools`) and whether the model may load it
//! by itself (`policy.allow_implicit_invocation`).
//!
//! It is one of the skill's files (embedded, locked and served like every other), and the
//! build reads it too, with the rules Codex applies to its values, each problem at its line:
//! every string a single line within Codex's lengths, `brand_color` as `#RRGGBB`, icons under
//! the skill's `assets/` and present, a tool dependency with its `type` and `value`, and no key
//! Codex does not read. Its settings are then honoured as their frontmatter counterparts:
//! `allow_implicit_invocation: false` keeps the skill from the model as
//! `disable-model-invocation: true` does, and `display_name` is the skill's display name. Where
//! the two files say different things, a warning says so: hosts reading one or the other would
//! show or offer the skill differently.

use crate::claude_code::Compat;
use crate::diagnostic::{Code, Diagnostic};
use crate::layout::openai as keys;
use crate::skill::{FrontmatterKey, SkillDef};
use crate::yaml::{self, Node, Value};

/// Where the file is in a skill's folder.
pub const OPENAI_YAML: &str = "agents/openai.yaml";

/// Codex's limits: a display name as long as a skill name, the other texts as long as a
/// description, a tool's `type` and `transport` as short as a name.
const MAX_SHORT: usize = 64;
const MAX_LONG: usize = 1024;

/// A skill's `agents/openai.yaml`, as read and checked: its values (single-line, as Codex
/// reads them) as `(key, value)` pairs named in [`crate::layout::openai`], the form the
/// bundle's records carry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpenAiYaml {
    /// The values, in the order [`crate::layout::openai`] describes.
    pub pairs: Vec<(String, String)>,
}

impl OpenAiYaml {
    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `policy.allow_implicit_invocation`, if the file sets it.
    pub fn allow_implicit_invocation(&self) -> Option<bool> {
        self.get(keys::ALLOW_IMPLICIT_INVOCATION)
            .map(|value| value == "true")
    }
}

/// The sections of the file and their keys (`dependencies` holds `tools`, a list of tools).
const INTERFACE: [&str; 6] = [
    keys::DISPLAY_NAME,
    keys::SHORT_DESCRIPTION,
    keys::ICON_SMALL,
    keys::ICON_LARGE,
    keys::BRAND_COLOR,
    keys::DEFAULT_PROMPT,
];
const TOOL: [&str; 6] = [
    keys::TOOL_TYPE,
    keys::TOOL_VALUE,
    keys::TOOL_DESCRIPTION,
    keys::TOOL_TRANSPORT,
    keys::TOOL_COMMAND,
    keys::TOOL_URL,
];
const POLICY: [&str; 2] = ["allow_implicit_invocation", "products"];
const SECTIONS: [&str; 3] = ["interface", "dependencies", "policy"];

/// Reads `bytes`, the skill's `agents/openai.yaml` (shown as `shown`), into `skill`, whose
/// files are `files` (paths in the folder): its values, the display name it gives and its
/// invocation policy. Returns every problem, and a warning where it and `SKILL.md` disagree.
pub(crate) fn read(
    shown: &str,
    bytes: &[u8],
    files: &[&str],
    skill: &mut SkillDef,
    compat: Compat,
) -> Vec<Diagnostic> {
    let mut reader = Reader {
        shown,
        text: "",
        files,
        diagnostics: Vec::new(),
        pairs: Vec::new(),
    };
    let Ok(text) = std::str::from_utf8(bytes) else {
        return vec![Diagnostic::error(
            Code::InvalidOpenaiYaml,
            shown,
            format!("`{shown}` is not UTF-8 text"),
        )];
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    reader.text = text;
    let source = yaml::Source {
        path: shown,
        file_text: text,
        fragment: text,
        first_line: 1,
    };
    let (root, diagnostics) = yaml::parse(&source);
    reader
        .diagnostics
        .extend(diagnostics.into_iter().map(|mut diagnostic| {
            diagnostic.message = diagnostic
                .message
                .replace("in frontmatter", &format!("in {OPENAI_YAML}"));
            diagnostic
        }));
    let Some(root) = root else {
        if reader.diagnostics.is_empty() {
            reader.error(
                &Node {
                    value: Value::Null,
                    line: 1,
                    column: 1,
                },
                format!("`{shown}` is empty"),
                Some("remove it, or give it `interface:`, `dependencies:` or `policy:`".into()),
            );
        }
        return reader.diagnostics;
    };
    let mut spans = Spans::default();
    reader.root(&root, &mut spans);
    if reader.diagnostics.iter().any(Diagnostic::is_error) {
        return reader.diagnostics;
    }
    let yaml = OpenAiYaml {
        pairs: reader.pairs,
    };
    let mut diagnostics = reader.diagnostics;
    diagnostics.extend(agree(shown, text, &yaml, &spans, skill, compat));
    honour(&yaml, skill);
    skill.openai = Some(yaml);
    diagnostics
}

/// Where the values the frontmatter also has are, for the warnings.
#[derive(Default)]
struct Spans {
    display_name: Option<(usize, usize)>,
    policy: Option<(usize, usize)>,
}

/// `allow_implicit_invocation: false` keeps the skill from the model, as
/// `disable-model-invocation: true` does; `display_name` is the display name when `SKILL.md`
/// gives none.
fn honour(yaml: &OpenAiYaml, skill: &mut SkillDef) {
    if yaml.allow_implicit_invocation() == Some(false) {
        skill.claude_code.model_invocable = false;
    }
    if skill.claude_code.display_name.is_none()
        && let Some(shown) = yaml.get(keys::DISPLAY_NAME)
        && shown != skill.name.value
    {
        // Not a place in `SKILL.md`: the opening line, as for what a file leaves out.
        skill.claude_code.display_name = Some(crate::spanned::Spanned {
            value: shown.to_owned(),
            line: 1,
            column: 1,
        });
    }
}

/// The warnings where the file and the frontmatter disagree.
fn agree(
    shown: &str,
    text: &str,
    yaml: &OpenAiYaml,
    spans: &Spans,
    skill: &SkillDef,
    compat: Compat,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut warn = |at: Option<(usize, usize)>, message: String, help: String| {
        let (line, column) = at.unwrap_or((1, 1));
        out.push(
            Diagnostic::warning(Code::OpenaiYamlDisagrees, shown, message)
                .at(text, line, column)
                .with_help(help),
        );
    };
    if let (Some(codex), Some(claude)) = (
        yaml.get(keys::DISPLAY_NAME),
        skill.claude_code.display_name.as_ref(),
    ) && codex != claude.value
    {
        warn(
            spans.display_name,
            format!(
                "`interface.display_name` is `{codex}`, but `{}` gives the display name `{}`: \
                 Codex shows one, Claude Code the other",
                skill.path, claude.value
            ),
            "use one display name in both files".to_owned(),
        );
    }
    let disable = FrontmatterKey::DisableModelInvocation.as_str();
    let frontmatter_says = skill
        .keys
        .iter()
        .any(|key| key.value == disable)
        .then_some(!skill.claude_code.model_invocable);
    match (frontmatter_says, yaml.allow_implicit_invocation()) {
        (Some(disabled), Some(allowed)) if disabled == allowed => warn(
            spans.policy,
            format!(
                "`policy.allow_implicit_invocation: {allowed}` but `{}` has \
                 `{disable}: {disabled}`: the model may load the skill in one host and not in the \
                 other (here it may not)",
                skill.path
            ),
            format!(
                "say the same in both: `allow_implicit_invocation: {disabled}`",
                disabled = !disabled
            ),
        ),
        (None, Some(false)) if compat == Compat::ClaudeCode => warn(
            spans.policy,
            format!(
                "`policy.allow_implicit_invocation: false` keeps the skill from Codex's model, \
                 but Claude Code reads `{disable}`, which `{}` does not set",
                skill.path
            ),
            format!(
                "add `{disable}: true` to the frontmatter so both hosts keep it from the model"
            ),
        ),
        (Some(true), None) => warn(
            None,
            format!(
                "`{}` has `{disable}: true`, but Codex reads `policy.allow_implicit_invocation`, \
                 which this file does not set, so Codex's model may load the skill",
                skill.path
            ),
            "add `policy:` with `allow_implicit_invocation: false`".to_owned(),
        ),
        _ => {}
    }
    out
}

struct Reader<'a> {
    shown: &'a str,
    text: &'a str,
    files: &'a [&'a str],
    diagnostics: Vec<Diagnostic>,
    pairs: Vec<(String, String)>,
}

impl Reader<'_> {
    fn error(&mut self, at: &Node, message: impl Into<String>, help: Option<String>) {
        let diagnostic = Diagnostic::error(Code::InvalidOpenaiYaml, self.shown, message)
            .at(self.text, at.line, at.column);
        self.diagnostics.push(match help {
            Some(help) => diagnostic.with_help(help),
            None => diagnostic,
        });
    }

    /// The entries of a mapping, or `None` (reported) when `node` is not one.
    fn mapping<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n [(Node, Node)]> {
        match &node.value {
            Value::Map(entries) => Some(entries),
            other => {
                self.error(
                    node,
                    format!("`{what}` must be a mapping, found {}", other.kind()),
                    None,
                );
                None
            }
        }
    }

    /// The key of an entry, when it is one of `known` (reported otherwise, with the closest).
    fn key(&mut self, key: &Node, section: &str, known: &[&str]) -> Option<String> {
        let name = key.value.scalar_text().unwrap_or_default();
        if known.contains(&name.as_str()) {
            return Some(name);
        }
        let place = if section.is_empty() {
            String::new()
        } else {
            format!(" under `{section}`")
        };
        let help = crate::render::suggestion(&name, known, "keys Codex reads here")
            .map(|suggestion| format!("{suggestion}; Codex reads no other key"));
        self.error(
            key,
            format!("unknown key `{name}`{place} in {OPENAI_YAML}"),
            help,
        );
        None
    }

    fn root(&mut self, root: &Node, spans: &mut Spans) {
        let Some(entries) = self.mapping(root, OPENAI_YAML) else {
            return;
        };
        for (key, value) in entries {
            let Some(section) = self.key(key, "", &SECTIONS) else {
                continue;
            };
            match section.as_str() {
                "interface" => self.interface(value, spans),
                "dependencies" => self.dependencies(value),
                _ => self.policy(value, spans),
            }
        }
    }

    fn interface(&mut self, node: &Node, spans: &mut Spans) {
        let Some(entries) = self.mapping(node, "interface") else {
            return;
        };
        for (key, value) in entries {
            let Some(name) = self.key(key, "interface", &INTERFACE) else {
                continue;
            };
            let what = format!("interface.{name}");
            let max = if name == keys::DISPLAY_NAME {
                MAX_SHORT
            } else {
                MAX_LONG
            };
            let Some(text) = self.line(value, &what, max) else {
                continue;
            };
            let valid = match name.as_str() {
                keys::BRAND_COLOR => self.color(value, &text),
                keys::ICON_SMALL | keys::ICON_LARGE => self.icon(value, &what, &text),
                _ => true,
            };
            if name == keys::DISPLAY_NAME {
                spans.display_name = Some((value.line, value.column));
            }
            if valid {
                self.pairs.push((name, text));
            }
        }
    }

    fn dependencies(&mut self, node: &Node) {
        let Some(entries) = self.mapping(node, "dependencies") else {
            return;
        };
        for (key, value) in entries {
            if self.key(key, "dependencies", &["tools"]).is_none() {
                continue;
            }
            let Value::Seq(tools) = &value.value else {
                self.error(
                    value,
                    format!(
                        "`dependencies.tools` must be a list of tools, found {}",
                        value.value.kind()
                    ),
                    Some("write one `- type: ...` mapping per tool".into()),
                );
                continue;
            };
            for tool in tools {
                self.tool(tool);
            }
        }
    }

    fn tool(&mut self, node: &Node) {
        let Some(entries) = self.mapping(node, "dependencies.tools[]") else {
            return;
        };
        let mut fields: Vec<(String, String)> = Vec::new();
        for (key, value) in entries {
            let Some(name) = self.key(key, "dependencies.tools[]", &TOOL) else {
                continue;
            };
            let max = if matches!(name.as_str(), keys::TOOL_TYPE | keys::TOOL_TRANSPORT) {
                MAX_SHORT
            } else {
                MAX_LONG
            };
            if let Some(text) = self.line(value, &format!("dependencies.tools[].{name}"), max) {
                fields.push((name, text));
            }
        }
        for required in [keys::TOOL_TYPE, keys::TOOL_VALUE] {
            if !fields.iter().any(|(k, _)| k == required) {
                self.error(
                    node,
                    format!("a tool of `dependencies.tools` needs `{required}`"),
                    Some(
                        "e.g. `- type: \"mcp\"` with `value: \"github\"` (the server's name)"
                            .into(),
                    ),
                );
            }
        }
        // The type first: it starts a tool in the pairs.
        fields.sort_by_key(|(k, _)| TOOL.iter().position(|t| t == k));
        self.pairs.extend(fields);
    }

    fn policy(&mut self, node: &Node, spans: &mut Spans) {
        let Some(entries) = self.mapping(node, "policy") else {
            return;
        };
        for (key, value) in entries {
            let Some(name) = self.key(key, "policy", &POLICY) else {
                continue;
            };
            if name == "products" {
                let Value::Seq(items) = &value.value else {
                    self.error(
                        value,
                        format!(
                            "`policy.products` must be a list, found {}",
                            value.value.kind()
                        ),
                        None,
                    );
                    continue;
                };
                for item in items {
                    if let Some(product) = self.line(item, "policy.products[]", MAX_SHORT) {
                        self.pairs.push((keys::PRODUCT.to_owned(), product));
                    }
                }
                continue;
            }
            match value.value {
                Value::Bool(allowed) => {
                    spans.policy = Some((value.line, value.column));
                    self.pairs.push((name, allowed.to_string()));
                }
                ref other => self.error(
                    value,
                    format!(
                        "`policy.allow_implicit_invocation` must be `true` or `false`, found {}",
                        other.kind()
                    ),
                    None,
                ),
            }
        }
    }

    /// A string value as Codex reads it: its words joined by single spaces, 1 to `max`
    /// characters.
    fn line(&mut self, node: &Node, what: &str, max: usize) -> Option<String> {
        let Value::Str(text) = &node.value else {
            let help = node
                .value
                .scalar_text()
                .filter(|t| !t.is_empty())
                .map(|t| format!("quote it: `\"{t}\"`"));
            self.error(
                node,
                format!("`{what}` must be a string, found {}", node.value.kind()),
                help,
            );
            return None;
        };
        let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let chars = line.chars().count();
        if chars == 0 || chars > max {
            self.error(
                node,
                format!("`{what}` must be 1 to {max} characters long, found {chars}"),
                None,
            );
            return None;
        }
        if let Some(bad) = line.chars().find(|c| c.is_control()) {
            self.error(
                node,
                format!("`{what}` holds the control character {bad:?}"),
                None,
            );
            return None;
        }
        Some(line)
    }

    fn color(&mut self, node: &Node, text: &str) -> bool {
        let hex = text.strip_prefix('#').unwrap_or("");
        let valid = hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit());
        if !valid {
            self.error(
                node,
                format!("`interface.brand_color` is `{text}`; Codex reads `#RRGGBB` only"),
                Some("six hexadecimal digits after `#`, e.g. `\"#3B82F6\"`".into()),
            );
        }
        valid
    }

    /// An icon: a relative path under the skill's `assets/` (Codex ignores any other) that
    /// names one of its files.
    fn icon(&mut self, node: &Node, what: &str, text: &str) -> bool {
        let path = text.strip_prefix("./").unwrap_or(text);
        let under_assets = path.starts_with("assets/")
            && !path.split('/').any(|part| matches!(part, "" | "." | ".."));
        if !under_assets {
            self.error(
                node,
                format!(
                    "`{what}` is `{text}`; Codex shows only an icon under the skill's `assets/`"
                ),
                Some("a relative path such as `\"./assets/icon.png\"`, without `..`".into()),
            );
            return false;
        }
        if !self.files.contains(&path) {
            let help = crate::render::suggestion(path, self.files, "the skill's files");
            self.error(
                node,
                format!("`{what}` names `{path}`, which is not a file of the skill"),
                help,
            );
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests;
