//! What hosted agents accept of a skill uploaded as a zip: claude.ai and Anthropic's Skills API
//! on one side, OpenAI's `/v1/skills` on the other. Both take one top-level folder with
//! `SKILL.md` at its root; they differ in their name rules and limits.
//!
//! [`check`] judges one checked skill for one host and [`check_zip`] the zip built of it;
//! `skills package` writes nothing while either reports an error, and reads each file it packs
//! with [`read_resource`]. The frontmatter keys outside what the uploads accept are the
//! `portable` lint's, at level `deny` ([`crate::lint::PORTABLE_KEYS`]), so each is reported once,
//! at its line, by the same code as in a build.
//!
//! The limits are the published ones; where two published figures for a host disagree, the
//! smaller: an exporter that writes what a host then refuses has failed at its one job.

use std::fmt;
use std::str::FromStr;

use crate::diagnostic::{Code, Diagnostic};
use crate::digest::sha256_hex;
use crate::files::{ReadError, read_limited};
use crate::resources::ResourceDef;
use crate::skill::SkillDef;
use crate::spanned::Spanned;

/// The file every uploaded folder has at its root.
pub const MANIFEST: &str = "SKILL.md";

/// A platform that takes skills as zip uploads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Host {
    /// claude.ai's skill upload and Anthropic's Skills API (`POST /v1/skills`): one folder,
    /// `SKILL.md` at its root, at most [`ANTHROPIC_MAX_BYTES`] in all.
    Anthropic,
    /// OpenAI's Skills API (`POST /v1/skills`): one folder with exactly one `SKILL.md`, at most
    /// [`OPENAI_MAX_FILES`] files of [`OPENAI_MAX_FILE_BYTES`] each, a zip of at most
    /// [`OPENAI_MAX_ZIP_BYTES`].
    OpenAi,
}

/// The smaller of the two total upload sizes published for an Anthropic skill (the sum of its
/// files; the other figure is 30 MB uncompressed): 8 MB.
pub const ANTHROPIC_MAX_BYTES: u64 = 8_000_000;
/// The reserved words an Anthropic skill name must not contain.
pub const ANTHROPIC_RESERVED_WORDS: [&str; 2] = ["anthropic", "claude"];
/// Most files in one OpenAI skill version, `SKILL.md` included.
pub const OPENAI_MAX_FILES: usize = 500;
/// Largest single file of an OpenAI skill, uncompressed: 25 MB.
pub const OPENAI_MAX_FILE_BYTES: u64 = 25_000_000;
/// Largest zip OpenAI accepts: 50 MB.
pub const OPENAI_MAX_ZIP_BYTES: u64 = 50_000_000;
/// Longest `description` either host accepts, in characters (the spec's limit).
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

impl Host {
    /// Every host, in the order `skills package` writes them.
    pub const ALL: [Host; 2] = [Host::Anthropic, Host::OpenAi];

    /// `anthropic` or `openai`: the command-line value and the output folder's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Host::Anthropic => "anthropic",
            Host::OpenAi => "openai",
        }
    }

    /// Where the upload goes, for messages: "uploads to {label} accept ...".
    pub fn label(self) -> &'static str {
        match self {
            Host::Anthropic => "claude.ai and Anthropic's Skills API",
            Host::OpenAi => "OpenAI's Skills API",
        }
    }
}

impl FromStr for Host {
    type Err = String;

    /// `anthropic` or `openai`, as [`Host::as_str`] writes them.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Host::ALL
            .into_iter()
            .find(|host| host.as_str() == text)
            .ok_or_else(|| format!("unknown host `{text}`: expected `anthropic` or `openai`"))
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every reason `host` would refuse `skill` (a skill that passed the bundle's own checks),
/// besides its frontmatter keys: the name and description rules and the size limits. Empty when
/// the upload would be accepted.
pub fn check(skill: &SkillDef, host: Host) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    out.extend(display_name(skill, host));
    out.extend(name(skill, host));
    out.extend(description(skill, host));
    out.extend(sizes(skill, host));
    out.extend(second_manifest(skill, host));
    out
}

/// An error at `field`'s line in `skill`'s `SKILL.md`.
fn at_field(
    code: Code,
    skill: &SkillDef,
    field: &Spanned<String>,
    message: String,
    help: &str,
) -> Diagnostic {
    Diagnostic::error(code, &skill.path, message)
        .at(&skill.text, field.line, field.column)
        .with_help(help)
}

/// With `compat = "claude-code"` a `name` may be a display name; an upload takes the name as
/// the skill's identifier, which must be the folder's.
fn display_name(skill: &SkillDef, host: Host) -> Option<Diagnostic> {
    let shown = name_as_display_name(skill)?;
    Some(at_field(
        Code::UploadName,
        skill,
        shown,
        format!(
            "uploads to {} take `name` as the skill's identifier, and `{}` is a display name",
            host.label(),
            shown.value
        ),
        &format!("set `name: {}`, the folder's name", skill.name.value),
    ))
}

/// The display name `name` itself holds, if it is one (not one from `display-name` or from
/// Codex's `agents/openai.yaml`, which leave `name` the identifier).
fn name_as_display_name(skill: &SkillDef) -> Option<&Spanned<String>> {
    let shown = skill.claude_code.display_name.as_ref()?;
    skill
        .keys
        .iter()
        .any(|key| key.value == "name" && key.line == shown.line)
        .then_some(shown)
}

/// Anthropic's rules on top of the spec's: ASCII only, no reserved word. (The spec's own rules,
/// which OpenAI follows, the bundle has already checked.)
fn name(skill: &SkillDef, host: Host) -> Option<Diagnostic> {
    if host != Host::Anthropic || name_as_display_name(skill).is_some() {
        return None;
    }
    let name = &skill.name;
    if !name.value.is_ascii() {
        return Some(at_field(
            Code::UploadName,
            skill,
            name,
            format!(
                "uploads to {} accept only ASCII lowercase letters, digits and hyphens in `name`, \
                 not `{}`",
                host.label(),
                name.value
            ),
            "rename the skill (and its folder) with ASCII letters",
        ));
    }
    let reserved = ANTHROPIC_RESERVED_WORDS
        .iter()
        .find(|word| name.value.contains(*word))?;
    Some(at_field(
        Code::UploadName,
        skill,
        name,
        format!(
            "uploads to {} refuse a `name` that contains the reserved word `{reserved}`",
            host.label()
        ),
        "rename the skill (and its folder) without `anthropic` or `claude`",
    ))
}

/// Both hosts keep the spec's 1,024 characters (a Claude Code bundle may go to 1,536); Anthropic
/// refuses XML tags, and so any `<` or `>`.
fn description(skill: &SkillDef, host: Host) -> Vec<Diagnostic> {
    let description = &skill.description;
    let mut out = Vec::new();
    let chars = description.value.chars().count();
    if chars > MAX_DESCRIPTION_CHARS {
        out.push(at_field(
            Code::UploadDescription,
            skill,
            description,
            format!(
                "uploads to {} accept a `description` of at most {MAX_DESCRIPTION_CHARS} \
                 characters; this one has {chars}",
                host.label()
            ),
            "shorten it: the description says what the skill does and when to use it",
        ));
    }
    if host == Host::Anthropic && description.value.contains(['<', '>']) {
        out.push(at_field(
            Code::UploadDescription,
            skill,
            description,
            format!(
                "uploads to {} refuse XML tags in `description`, and this one has `<` or `>`",
                host.label()
            ),
            "write the tag's name without angle brackets",
        ));
    }
    out
}

fn sizes(skill: &SkillDef, host: Host) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    match host {
        Host::Anthropic => {
            let total: u64 = skill.file_sizes().map(|(_, size)| size).sum();
            if total > ANTHROPIC_MAX_BYTES {
                out.push(
                    Diagnostic::error(
                        Code::UploadSize,
                        &skill.path,
                        format!(
                            "uploads to {} accept at most {ANTHROPIC_MAX_BYTES} bytes of files per \
                             skill; `{}` has {total}",
                            host.label(),
                            skill.name.value
                        ),
                    )
                    .with_help("move large assets out of the skill, or fetch them at run time"),
                );
            }
        }
        Host::OpenAi => {
            let files = skill.file_sizes().count();
            if files > OPENAI_MAX_FILES {
                out.push(
                    Diagnostic::error(
                        Code::UploadSize,
                        &skill.path,
                        format!(
                            "uploads to {} accept at most {OPENAI_MAX_FILES} files per skill; `{}` \
                             has {files}",
                            host.label(),
                            skill.name.value
                        ),
                    )
                    .with_help("bundle small files together (an archive, one data file)"),
                );
            }
            for (path, size) in skill
                .file_sizes()
                .filter(|(_, size)| *size > OPENAI_MAX_FILE_BYTES)
            {
                out.push(
                    Diagnostic::error(
                        Code::UploadSize,
                        skill.file_path(path),
                        format!(
                            "uploads to {} accept files of at most {OPENAI_MAX_FILE_BYTES} bytes; \
                             this one has {size}",
                            host.label()
                        ),
                    )
                    .with_help("split the file, or fetch it at run time"),
                );
            }
        }
    }
    out
}

/// OpenAI matches the manifest's name without regard to case and wants exactly one: a
/// `skill.md` anywhere among the resources would be a second.
fn second_manifest(skill: &SkillDef, host: Host) -> Vec<Diagnostic> {
    if host != Host::OpenAi {
        return Vec::new();
    }
    skill
        .resources
        .iter()
        .filter(|resource| {
            let file_name = resource.path.rsplit('/').next().unwrap_or(&resource.path);
            file_name.eq_ignore_ascii_case(MANIFEST)
        })
        .map(|resource| {
            Diagnostic::error(
                Code::UploadManifest,
                skill.file_path(&resource.path),
                format!(
                    "uploads to {} allow one `SKILL.md` per skill, matched without regard to \
                     case, and `{}` is a second",
                    host.label(),
                    resource.path
                ),
            )
            .with_help("rename the file (`NOTES.md`, say)")
        })
        .collect()
}

/// The bytes of `resource` to upload, read again from disk: refused unless they still have the
/// SHA-256 they were checked with, so what is uploaded is what was judged (and what the lock
/// reviewed).
pub fn read_resource(skill: &SkillDef, resource: &ResourceDef) -> Result<Vec<u8>, Diagnostic> {
    let shown = skill.file_path(&resource.path);
    let changed = || {
        Diagnostic::error(
            Code::UploadFile,
            &shown,
            "the file changed after it was checked",
        )
        .with_help("package again once nothing is writing to the folder")
    };
    // No more than the size it was checked at: a file swapped for a larger one (or a link to
    // `/dev/zero`) is refused after that many bytes, not read to the end.
    let bytes = match read_limited(&resource.file, resource.size) {
        Ok((bytes, _)) => bytes,
        Err(ReadError::TooLarge(_)) => return Err(changed()),
        Err(ReadError::Io(error)) => {
            return Err(Diagnostic::error(
                Code::UploadFile,
                &shown,
                format!("cannot read the file to package it: {error}"),
            ));
        }
    };
    if sha256_hex(&bytes) != resource.sha256 {
        return Err(changed());
    }
    Ok(bytes)
}

/// The rule only the written zip can be held to: its own size, for a host that limits it.
pub fn check_zip(skill: &SkillDef, host: Host, zip_bytes: u64) -> Option<Diagnostic> {
    let max = match host {
        Host::Anthropic => return None,
        Host::OpenAi => OPENAI_MAX_ZIP_BYTES,
    };
    (zip_bytes > max).then(|| {
        Diagnostic::error(
            Code::UploadSize,
            &skill.path,
            format!(
                "uploads to {} accept a zip of at most {max} bytes; the zip of `{}` has \
                 {zip_bytes}",
                host.label(),
                skill.name.value
            ),
        )
        .with_help("move large assets out of the skill, or fetch them at run time")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skill::{ParseOptions, parse};

    fn skill(frontmatter: &str) -> SkillDef {
        let text = format!("---\n{frontmatter}\n---\nDo it.\n");
        let (skill, diagnostics) = parse(
            "skills/demo/SKILL.md",
            "demo",
            text.as_bytes(),
            &ParseOptions::default(),
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        skill.expect("a valid skill")
    }

    fn resource(path: &str, size: u64) -> ResourceDef {
        ResourceDef {
            path: path.to_owned(),
            file: path.into(),
            size,
            is_text: true,
            executable: false,
            sha256: String::new(),
        }
    }

    fn messages(skill: &SkillDef, host: Host) -> Vec<String> {
        check(skill, host)
            .iter()
            .map(|d| format!("{} {} {}", d.code(), d.location(), d.message()))
            .collect()
    }

    #[test]
    fn a_plain_skill_passes_both_hosts() {
        let demo = skill("name: demo\ndescription: Does a thing. Use when asked.");
        for host in Host::ALL {
            assert_eq!(messages(&demo, host), Vec::<String>::new(), "{host}");
        }
    }

    #[test]
    fn anthropic_refuses_angle_brackets_openai_does_not() {
        let demo = skill("name: demo\ndescription: Fills in the <form> tag.");
        assert_eq!(
            messages(&demo, Host::Anthropic),
            [
                "upload-description skills/demo/SKILL.md:3:14 uploads to claude.ai and Anthropic's \
              Skills API refuse XML tags in `description`, and this one has `<` or `>`"
            ]
        );
        assert!(messages(&demo, Host::OpenAi).is_empty());
    }

    #[test]
    fn reserved_words_are_anthropics_rule() {
        let text = "---\nname: claude-helper\ndescription: Helps.\n---\nDo it.\n";
        let (parsed, diagnostics) = parse(
            "skills/claude-helper/SKILL.md",
            "claude-helper",
            text.as_bytes(),
            &ParseOptions::default(),
        );
        assert!(diagnostics.is_empty());
        let parsed = parsed.unwrap();
        assert_eq!(
            messages(&parsed, Host::Anthropic),
            [
                "upload-name skills/claude-helper/SKILL.md:2:7 uploads to claude.ai and Anthropic's \
              Skills API refuse a `name` that contains the reserved word `claude`"
            ]
        );
        assert!(messages(&parsed, Host::OpenAi).is_empty());
    }

    #[test]
    fn limits_are_counted_per_host() {
        let mut big = skill("name: demo\ndescription: Big.");
        big.resources = vec![resource("assets/a.bin", ANTHROPIC_MAX_BYTES)];
        assert_eq!(check(&big, Host::Anthropic)[0].code(), Code::UploadSize);
        assert!(check(&big, Host::OpenAi).is_empty());

        let mut many = skill("name: demo\ndescription: Many.");
        many.resources = (0..OPENAI_MAX_FILES)
            .map(|i| resource(&format!("data/{i}.txt"), 1))
            .collect();
        // SKILL.md and 500 resources: one file too many.
        assert_eq!(
            messages(&many, Host::OpenAi),
            [
                "upload-size skills/demo/SKILL.md uploads to OpenAI's Skills API accept at most 500 \
              files per skill; `demo` has 501"
            ]
        );
        many.resources.pop();
        assert!(messages(&many, Host::OpenAi).is_empty());

        let mut huge = skill("name: demo\ndescription: Huge.");
        huge.resources = vec![resource("assets/video.mp4", OPENAI_MAX_FILE_BYTES + 1)];
        assert_eq!(
            messages(&huge, Host::OpenAi),
            [
                "upload-size skills/demo/assets/video.mp4 uploads to OpenAI's Skills API accept files \
              of at most 25000000 bytes; this one has 25000001"
            ]
        );
    }

    #[test]
    fn only_openai_limits_the_zip_itself() {
        let demo = skill("name: demo\ndescription: Zipped.");
        assert!(check_zip(&demo, Host::OpenAi, OPENAI_MAX_ZIP_BYTES).is_none());
        let over = check_zip(&demo, Host::OpenAi, OPENAI_MAX_ZIP_BYTES + 1).expect("refused");
        assert_eq!(
            format!("{} {} {}", over.code(), over.location(), over.message()),
            "upload-size skills/demo/SKILL.md uploads to OpenAI's Skills API accept a zip of at \
             most 50000000 bytes; the zip of `demo` has 50000001"
        );
        assert!(check_zip(&demo, Host::Anthropic, u64::MAX).is_none());
    }

    #[test]
    fn hosts_parse_from_the_names_they_are_shown_by() {
        for host in Host::ALL {
            assert_eq!(host.as_str().parse::<Host>(), Ok(host));
        }
        assert!("Anthropic".parse::<Host>().is_err());
    }

    #[test]
    fn a_second_manifest_in_any_case_is_refused_by_openai() {
        let mut demo = skill("name: demo\ndescription: Two manifests.");
        demo.resources = vec![
            resource("docs/skill.md", 10),
            resource("docs/skills.md", 10),
        ];
        assert_eq!(
            messages(&demo, Host::OpenAi),
            [
                "upload-manifest skills/demo/docs/skill.md uploads to OpenAI's Skills API allow one \
              `SKILL.md` per skill, matched without regard to case, and `docs/skill.md` is a \
              second"
            ]
        );
        assert!(messages(&demo, Host::Anthropic).is_empty());
    }
}
