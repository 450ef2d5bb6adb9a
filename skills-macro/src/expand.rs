//! Generates the registry from a checked bundle, or compile errors plus an empty registry.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use skills_core::claude_code::{Effort, Shell, SkillContext};
use skills_core::layout::{self, Field, HASH_LEN, Header, NameEntry};
use skills_core::render::{self, CatalogEntry};
use skills_core::{Bundle, SkillDef, display_root};

use crate::args::{Args, SkillNameArgs};

/// How generated code refers to files for `include_bytes!` tracking.
pub struct FileLocation {
    /// When the manifest directory came from the test override, `env!("CARGO_MANIFEST_DIR")`
    /// points elsewhere, so paths are emitted absolute.
    pub overridden: bool,
    /// The directory the crate's own roots resolve against.
    pub manifest_dir: std::path::PathBuf,
}

impl FileLocation {
    /// An expression naming `file` for `include_bytes!`. Normally
    /// `concat!(env!("CARGO_MANIFEST_DIR"), "/skills/x/SKILL.md")`, so the generated code is
    /// the same on every machine. A pack's files (shown as `acme-skills@1.4.0/...`) live
    /// elsewhere, and are named by their absolute path.
    fn include_path(&self, file: &std::path::Path, display_path: &str) -> TokenStream {
        let relative = !self.overridden
            && !std::path::Path::new(display_path).is_absolute()
            && file == self.manifest_dir.join(display_path);
        if relative {
            let suffix = format!("/{display_path}");
            quote!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix))
        } else {
            // `file` is already absolute: discovery joined it onto the manifest directory.
            let absolute = file.to_string_lossy().into_owned();
            quote!(#absolute)
        }
    }
}

/// The whole expansion. With `frontmatter_json` each record also carries the skill's
/// frontmatter as JSON text (see the `frontmatter-json` feature).
pub fn expand(
    args: &Args,
    bundle: &Bundle,
    location: &FileLocation,
    frontmatter_json: bool,
) -> TokenStream {
    let krate = &args.krate;
    let warnings: Vec<TokenStream> = bundle
        .warnings()
        .map(|d| warning(span_for(args, d.path()), &d.compile_error_text()))
        .collect();
    if bundle.has_errors() {
        let errors = bundle
            .errors()
            .map(|diagnostic| {
                syn::Error::new(
                    span_for(args, diagnostic.path()),
                    diagnostic.compile_error_text(),
                )
            })
            .collect();
        let fallback = fallback(krate, errors);
        return quote!({ #(#warnings)* #fallback });
    }

    // Offsets are `u32`: the files take at most half the range, leaving the rest for the tails
    // (decoded frontmatter values and source paths, short next to their files).
    let text_len: u64 = bundle.skills.iter().map(|s| s.text.len() as u64).sum();
    if text_len > u64::from(u32::MAX / 2) {
        let error = syn::Error::new(
            args.roots[0].span(),
            format!(
                "the skills hold {text_len} bytes of SKILL.md text, over the 2 GiB one registry can embed"
            ),
        );
        let fallback = fallback(krate, vec![error]);
        return quote!({ #(#warnings)* #fallback });
    }
    let roots: Vec<String> = args
        .roots
        .iter()
        .map(|root| display_root(&root.value()))
        .collect();
    let layout = Layout::new(krate, bundle, &roots, location, frontmatter_json);

    let entries: Vec<CatalogEntry<'_>> =
        bundle.skills.iter().map(SkillDef::catalog_entry).collect();
    let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
    let catalog = render::catalog_markdown(&entries);
    let index = byte_string(&skills_core::index::encode(&skills_core::index::build(
        &names,
    )));
    // With a lock, the lock is tracked too (editing it rebuilds) and its digest is recorded.
    let (lock_tracking, lock_digest) = match (&bundle.lock_file, &bundle.lock_digest) {
        (Some(file), Some(digest)) => {
            let shown = args.options.lock.as_deref().unwrap_or_default();
            let path = location.include_path(file, shown);
            (
                quote!(
                    const _: &[u8] = ::core::include_bytes!(#path);
                ),
                quote!(::core::option::Option::Some(#digest)),
            )
        }
        _ => (TokenStream::new(), quote!(::core::option::Option::None)),
    };
    // Each pack's variable is read through `option_env!` too, so rustc records it and a pack
    // that moves (a new version, another checkout) rebuilds the crate.
    let pack_tracking = bundle.packs.iter().map(|pack| {
        let (variable, _) = pack.rustc_env();
        quote!(
            const _: ::core::option::Option<&str> = ::core::option_env!(#variable);
        )
    });

    let Layout {
        pieces,
        tracking,
        text_len,
        names,
        records,
        record_starts,
        hashes,
        resources,
    } = layout;
    let count = bundle.skills.len();
    let (names, records, record_starts, hashes) = (
        byte_string(&names),
        byte_string(&records),
        byte_string(&record_starts),
        byte_string(&hashes),
    );
    let text_len = text_len as usize;
    let layout_version = skills_core::layout::VERSION;
    quote! {
        {
            #(#warnings)*
            #(#tracking)*
            #lock_tracking
            #(#pack_tracking)*
            const TEXT: &str = ::core::concat!(#(#pieces),*);
            // The offsets were computed from the files as the macro read them.
            const _: () = ::core::assert!(
                TEXT.len() == #text_len,
                "a skill file changed while the crate was compiling: build again"
            );
            const _: () = ::core::assert!(
                #krate::__private::LAYOUT_VERSION == #layout_version,
                "skills-macro and skills-runtime are of different releases (their registry layouts differ): use the same version of both"
            );
            static CACHE: #krate::__private::Cache = #krate::__private::Cache::new();
            static BUNDLE: #krate::__private::BundleData = #krate::__private::BundleData {
                skills: &SKILLS,
                text: TEXT,
                names: #names,
                records: #records,
                hashes: #hashes,
                index: #index,
                roots: &[#(#roots),*],
                resources: &[#(#resources),*],
                catalog: #catalog,
                lock_digest: #lock_digest,
                cache: &CACHE,
            };
            static SKILLS: [#krate::Skill; #count] =
                #krate::__private::skills::<#count>(&BUNDLE, #record_starts);
            #krate::__private::registry(&BUNDLE)
        }
    }
}

/// The span to blame: the root literal the file came from.
fn span_for(args: &Args, path: &str) -> Span {
    args.roots
        .iter()
        .find(|root| {
            let shown = display_root(&root.value());
            path == shown || path.starts_with(&format!("{shown}/"))
        })
        .unwrap_or(&args.roots[0])
        .span()
}

/// A warning on stable Rust: proc macros cannot emit one directly, but using a deprecated item
/// makes rustc print its note as a warning at our span, in normal cargo output.
fn warning(span: Span, text: &str) -> TokenStream {
    quote::quote_spanned! {span=>
        const _: () = {
            #[deprecated(note = #text)]
            #[allow(non_camel_case_types)]
            struct skill_lint;
            let _ = skill_lint;
        };
    }
}

/// Compile errors, then an empty registry so the user's code still type-checks.
pub fn fallback(krate: &syn::Path, errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote! {
        {
            #(#errors)*
            #krate::__private::EMPTY_REGISTRY
        }
    }
}

/// A byte-string literal: one token however long, so a table costs rustc next to nothing.
fn byte_string(bytes: &[u8]) -> proc_macro2::Literal {
    proc_macro2::Literal::byte_string(bytes)
}

/// The bundle as flat tables (the format is `skills_core::layout`), and the pieces of the one
/// text every string of every skill is a range of.
pub(crate) struct Layout {
    /// The arguments of the `concat!` building the text: each file by `include_str!` (which
    /// also tracks it) or, when the embedded text differs from the file's bytes (a BOM, CRLF),
    /// as a literal of the normalized text; then the file's tail, when it has one.
    pub(crate) pieces: Vec<TokenStream>,
    /// `include_bytes!` of the files embedded as normalized literals, so they are tracked too.
    pub(crate) tracking: Vec<TokenStream>,
    /// Length of the whole text.
    pub(crate) text_len: u32,
    /// The names table: where each name is, and so where each skill's text starts.
    pub(crate) names: Vec<u8>,
    /// The records.
    pub(crate) records: Vec<u8>,
    /// Where each record starts.
    pub(crate) record_starts: Vec<u8>,
    /// Raw SHA-256s: every `SKILL.md`, then for each skill with resources its tree and each
    /// resource.
    pub(crate) hashes: Vec<u8>,
    /// `resource(..)` expressions, skill after skill.
    pub(crate) resources: Vec<TokenStream>,
}

impl Layout {
    pub(crate) fn new(
        krate: &syn::Path,
        bundle: &Bundle,
        roots: &[String],
        location: &FileLocation,
        frontmatter_json: bool,
    ) -> Self {
        // The hash of each file's bytes on disk: equal to the hash of the normalized text
        // exactly when normalizing changed nothing.
        let on_disk: std::collections::HashMap<&str, &str> = bundle
            .files
            .iter()
            .map(|file| (file.path.as_str(), file.sha256.as_str()))
            .collect();
        let mut layout = Layout {
            pieces: Vec::new(),
            tracking: Vec::new(),
            text_len: 0,
            names: Vec::new(),
            records: Vec::new(),
            record_starts: Vec::new(),
            hashes: Vec::new(),
            resources: Vec::new(),
        };
        let mut tree_hashes = Vec::new();
        for skill in &bundle.skills {
            let path = location.include_path(&skill.file, &skill.path);
            let verbatim = on_disk.get(skill.path.as_str()) == Some(&skill.sha256.as_str());
            if verbatim {
                layout.pieces.push(quote!(::core::include_str!(#path)));
            } else {
                let text = &skill.text;
                layout.pieces.push(quote!(#text));
                layout.tracking.push(quote!(
                    const _: &[u8] = ::core::include_bytes!(#path);
                ));
            }
            let mut text = SkillText::new(layout.text_len, &skill.text);
            let name = text.span(&skill.name.value);
            let from_base = u8::try_from(name[0])
                .ok()
                .filter(|&offset| offset != NameEntry::FAR);
            let entry = NameEntry {
                start: text.base + name[0],
                len: name[1] as u16, // names are 1 to 64 characters
                from_base: from_base.unwrap_or(NameEntry::FAR),
            };
            layout.names.extend(entry.to_bytes());
            layout
                .record_starts
                .extend_from_slice(&(layout.records.len() as u32).to_le_bytes());
            layout.hashes.extend(hex_bytes(&skill.sha256));

            let mut fields = Fields::default();
            if from_base.is_none() {
                fields.set(Field::Base, vec![text.base]);
            }
            fields.texts(&mut text, skill);
            if frontmatter_json {
                let json = text.span(&skill.frontmatter_json);
                fields.set(Field::Frontmatter, json.to_vec());
            }
            if !skill.resources.is_empty() {
                let first = layout.resources.len() as u32;
                let skill_dir = skill.path.trim_end_matches("SKILL.md");
                layout.resources.extend(skill.resources.iter().map(|resource| {
                    let path = &resource.path;
                    let bytes =
                        location.include_path(&resource.file, &format!("{skill_dir}{path}"));
                    let (is_text, executable) = (resource.is_text, resource.executable);
                    quote!(#krate::__private::resource(#path, ::core::include_bytes!(#bytes), #is_text, #executable))
                }));
                let slot = (bundle.skills.len() + tree_hashes.len() / HASH_LEN) as u32;
                tree_hashes.extend(hex_bytes(&skill.tree_sha256));
                for resource in &skill.resources {
                    tree_hashes.extend(hex_bytes(&resource.sha256));
                }
                fields.set(
                    Field::Resources,
                    vec![first, skill.resources.len() as u32, slot],
                );
            }
            let root = roots
                .iter()
                .position(|root| skill.path.starts_with(&format!("{root}/")));
            let composed =
                root.map(|root| format!("{}/{}/SKILL.md", roots[root], skill.name.value));
            match root {
                Some(root) if composed.as_deref() == Some(skill.path.as_str()) => {
                    if root != 0 {
                        fields.set(Field::Root, vec![root as u32]);
                    }
                }
                _ => {
                    let span = text.span(&skill.path);
                    fields.set(Field::SourcePath, span.to_vec());
                }
            }

            let header = Header {
                content_len: skill.text.len() as u32,
                description: text.span(&skill.description.value),
                body: [
                    skill.body.start as u32,
                    (skill.body.end - skill.body.start) as u32,
                ],
                flags: fields.flags,
            };
            header.write(&mut layout.records);
            for field in Field::ALL {
                if let Some(values) = &fields.values[*field as usize] {
                    for &value in values {
                        layout::write(&mut layout.records, value);
                    }
                }
            }

            layout.text_len = text.base + skill.text.len() as u32 + text.tail.len() as u32;
            if !text.tail.is_empty() {
                let tail = &text.tail;
                layout.pieces.push(quote!(#tail));
            }
        }
        layout.hashes.extend(tree_hashes);
        layout
    }
}

/// The optional fields of one record, as the numbers that follow its header.
struct Fields {
    flags: u32,
    values: Vec<Option<Vec<u32>>>,
}

impl Default for Fields {
    fn default() -> Self {
        Fields {
            flags: 0,
            values: vec![None; Field::ALL.len()],
        }
    }
}

impl Fields {
    fn set(&mut self, field: Field, values: Vec<u32>) {
        self.flags |= field.bit();
        self.values[field as usize] = Some(values);
    }

    /// Every field read from the frontmatter; only those the skill sets cost anything.
    fn texts(&mut self, text: &mut SkillText, skill: &SkillDef) {
        let claude = &skill.claude_code;
        for (field, value) in [
            (Field::Version, &skill.version),
            (Field::License, &skill.license),
            (Field::WhenNotToUse, &skill.when_not_to_use),
            (Field::Compatibility, &skill.compatibility),
            (Field::DisplayName, &claude.display_name),
            (Field::WhenToUse, &claude.when_to_use),
            (Field::ArgumentHint, &claude.argument_hint),
            (Field::Model, &claude.model),
            (Field::Agent, &claude.agent),
            (Field::Hooks, &claude.hooks),
        ] {
            if let Some(value) = value {
                self.set(field, text.span(&value.value).to_vec());
            }
        }
        let requires: Vec<&str> = skill.requires.iter().map(|s| s.value.as_str()).collect();
        let conflicts: Vec<&str> = skill
            .conflicts_with
            .iter()
            .map(|s| s.value.as_str())
            .collect();
        for (field, list) in [
            (Field::Tags, strings(&skill.tags)),
            (Field::AllowedTools, strings(&skill.allowed_tools)),
            (Field::Requires, requires),
            (Field::ConflictsWith, conflicts),
            (Field::Arguments, strings(&claude.arguments)),
            (Field::DisallowedTools, strings(&claude.disallowed_tools)),
            (Field::Paths, strings(&claude.paths)),
        ] {
            if !list.is_empty() {
                let mut values = vec![list.len() as u32];
                for item in list {
                    values.extend(text.span(item));
                }
                self.set(field, values);
            }
        }
        if !skill.metadata.is_empty() {
            let mut values = vec![skill.metadata.len() as u32];
            for (key, value) in &skill.metadata {
                values.extend(text.span(key));
                values.extend(text.span(value));
            }
            self.set(Field::Metadata, values);
        }
        if !claude.model_invocable {
            self.set(Field::NotModelInvocable, Vec::new());
        }
        if !claude.user_invocable {
            self.set(Field::NotUserInvocable, Vec::new());
        }
        if let Some(effort) = &claude.effort {
            let p = position(Effort::ALL, &effort.value);
            self.set(Field::Effort, p.into_iter().collect());
        }
        if let Some(context) = &claude.context {
            let p = position(SkillContext::ALL, &context.value);
            self.set(Field::Context, p.into_iter().collect());
        }
        if let Some(shell) = &claude.shell {
            let p = position(Shell::ALL, &shell.value);
            self.set(Field::Shell, p.into_iter().collect());
        }
    }
}

fn strings(list: &[String]) -> Vec<&str> {
    list.iter().map(String::as_str).collect()
}

/// The position of `value` in one of the `ALL` lists of `skills_core::claude_code`.
fn position<T: PartialEq>(all: &[T], value: &T) -> Option<u32> {
    all.iter().position(|v| v == value).map(|p| p as u32)
}

/// One skill's text: the normalized file, then a tail for the strings that are not in the
/// file verbatim (decoded escapes or folded scalars, an unusual source path). Every string of
/// the skill is a `[start, length]` range of it, from `base`, its place in the bundle's text.
struct SkillText<'a> {
    base: u32,
    file: &'a str,
    tail: String,
}

impl<'a> SkillText<'a> {
    fn new(base: u32, file: &'a str) -> Self {
        SkillText {
            base,
            file,
            tail: String::new(),
        }
    }

    /// The range of `value`: where it already appears (file or tail), else appended to the tail.
    fn span(&mut self, value: &str) -> [u32; 2] {
        let start = match self.file.find(value) {
            Some(start) => start, // an empty value is found at 0
            None => match self.tail.find(value) {
                Some(start) => self.file.len() + start,
                None => {
                    self.tail.push_str(value);
                    self.file.len() + self.tail.len() - value.len()
                }
            },
        };
        [start as u32, value.len() as u32]
    }
}

/// The 32 bytes of a SHA-256 written as 64 hex digits.
fn hex_bytes(hex: &str) -> Vec<u8> {
    let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
    hex.as_bytes()
        .chunks(2)
        .map(|pair| pair.iter().fold(0, |byte, &c| byte << 4 | digit(c)))
        .collect()
}

/// `skill_name!`: the name, with the skill's file tracked, or the errors at the name literal.
pub fn skill_name(
    args: &SkillNameArgs,
    found: Result<SkillDef, Vec<skills_core::Diagnostic>>,
    location: &FileLocation,
) -> TokenStream {
    match found {
        Ok(skill) => {
            let path = location.include_path(&skill.file, &skill.path);
            let name = &args.name;
            quote!({
                const _: &[u8] = ::core::include_bytes!(#path);
                #name
            })
        }
        Err(diagnostics) => name_fallback(
            diagnostics
                .iter()
                .map(|d| syn::Error::new(args.name.span(), d.compile_error_text()))
                .collect(),
        ),
    }
}

/// Compile errors, then a `&'static str` so the user's code still type-checks.
pub fn name_fallback(errors: Vec<syn::Error>) -> TokenStream {
    let errors = errors.iter().map(syn::Error::to_compile_error);
    quote!({
        #(#errors)*
        ""
    })
}
