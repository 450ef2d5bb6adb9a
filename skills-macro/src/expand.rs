//! Generates the registry from a checked bundle, or compile errors plus an empty registry.

use std::path::PathBuf;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use skills_core::render::{self, CatalogEntry};
use skills_core::{Bundle, SkillDef, discover::display_root};

use crate::args::Args;

/// How generated code refers to files for `include_bytes!` tracking.
pub struct FileLocation {
    pub manifest_dir: PathBuf,
    /// When the manifest directory came from the test override, `env!("CARGO_MANIFEST_DIR")`
    /// points elsewhere, so paths are emitted absolute.
    pub overridden: bool,
}

impl FileLocation {
    /// An expression naming `file` for `include_bytes!`. Normally
    /// `concat!(env!("CARGO_MANIFEST_DIR"), "/skills/x/SKILL.md")`, so the generated code is
    /// the same on every machine.
    fn include_path(&self, file: &std::path::Path, display_path: &str) -> TokenStream {
        let relative = !self.overridden && !std::path::Path::new(display_path).is_absolute();
        if relative {
            let suffix = format!("/{display_path}");
            quote!(::core::concat!(::core::env!("CARGO_MANIFEST_DIR"), #suffix))
        } else {
            let absolute = self.manifest_dir.join(file).to_string_lossy().into_owned();
            quote!(#absolute)
        }
    }
}

/// The whole expansion.
pub fn expand(args: &Args, bundle: &Bundle, location: &FileLocation) -> TokenStream {
    let krate = &args.krate;
    let warnings: Vec<TokenStream> = bundle
        .warnings()
        .map(|d| warning(span_for(args, &d.path), &d.to_string()))
        .collect();
    if bundle.has_errors() {
        let errors = bundle
            .errors()
            .map(|diagnostic| {
                syn::Error::new(span_for(args, &diagnostic.path), diagnostic.to_string())
            })
            .collect();
        let fallback = fallback(krate, errors);
        return quote!({ #(#warnings)* #fallback });
    }

    let tracking = bundle.skills.iter().map(|skill| {
        let path = location.include_path(&skill.file, &skill.path);
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    let contents = bundle.skills.iter().enumerate().map(|(index, skill)| {
        let ident = format_ident!("CONTENT_{}", index);
        let text = &skill.text;
        quote!(const #ident: &str = #text;)
    });
    let skills = bundle
        .skills
        .iter()
        .enumerate()
        .map(|(index, skill)| skill_expr(krate, index, skill, location));

    let entries: Vec<CatalogEntry<'_>> =
        bundle.skills.iter().map(SkillDef::catalog_entry).collect();
    let names: Vec<&str> = entries.iter().map(|e| e.name).collect();
    let catalog = render::catalog_markdown(&entries);
    let index = skills_core::index::build(&names);
    let (tool_anthropic, tool_openai) = if names.is_empty() {
        (String::new(), String::new())
    } else {
        (
            render::load_skill_tool_anthropic(&names),
            render::load_skill_tool_openai(&names),
        )
    };

    quote! {
        {
            #(#warnings)*
            #(#tracking)*
            #(#contents)*
            const SKILLS: &[#krate::Skill] = &[#(#skills),*];
            #krate::__private::registry(SKILLS, &[#(#index),*], #catalog, #tool_anthropic, #tool_openai)
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

/// A string of the skill as a `Text`: a slice of the embedded file when the value appears in it
/// verbatim (the usual case), so it is stored once; otherwise its own literal.
fn text_expr(krate: &syn::Path, value: &str, content: &str) -> TokenStream {
    match content.find(value).filter(|_| !value.is_empty()) {
        Some(start) => {
            let (start, end) = (start as u32, (start + value.len()) as u32);
            quote!(#krate::__private::Text::Slice(#start, #end))
        }
        None => quote!(#krate::__private::Text::Literal(#value)),
    }
}

fn skill_expr(
    krate: &syn::Path,
    index: usize,
    skill: &SkillDef,
    location: &FileLocation,
) -> TokenStream {
    let content_ident = format_ident!("CONTENT_{}", index);
    let content = skill.text.as_str();
    let name = text_expr(krate, &skill.name.value, content);
    let description = text_expr(krate, &skill.description.value, content);
    let (body_start, body_end) = (skill.body.start as u32, skill.body.end as u32);
    let sha256 = &skill.sha256;
    let path = &skill.path;
    let extra = extra_expr(krate, skill, location);
    quote! {
        #krate::__private::skill(#krate::__private::SkillParts {
            content: #content_ident,
            name: #name,
            description: #description,
            body: #krate::__private::Text::Slice(#body_start, #body_end),
            sha256: #sha256,
            path: #path,
            extra: #extra,
        })
    }
}

fn extra_expr(krate: &syn::Path, skill: &SkillDef, location: &FileLocation) -> TokenStream {
    let has_extra = skill.license.is_some()
        || skill.compatibility.is_some()
        || !skill.metadata.is_empty()
        || !skill.allowed_tools.is_empty()
        || skill.version.is_some()
        || !skill.tags.is_empty()
        || skill.when_not_to_use.is_some()
        || !skill.requires.is_empty()
        || !skill.conflicts_with.is_empty()
        || !skill.resources.is_empty();
    if !has_extra {
        return quote!(&#krate::__private::EMPTY_EXTRA);
    }
    let content = skill.text.as_str();
    let mut fields = Vec::new();
    for (name, value) in [
        ("license", &skill.license),
        ("compatibility", &skill.compatibility),
        ("version", &skill.version),
        ("when_not_to_use", &skill.when_not_to_use),
    ] {
        if let Some(value) = value {
            let field = format_ident!("{}", name);
            let text = text_expr(krate, &value.value, content);
            fields.push(quote!(#field: ::core::option::Option::Some(#text)));
        }
    }
    // Only non-empty lists are written out; the rest come from `NO_EXTRA`, which keeps the
    // expansion small (every literal costs type-checking time in the user's build).
    let lists: [(&str, Vec<TokenStream>); 5] = [
        (
            "metadata",
            skill
                .metadata
                .iter()
                .map(|(k, v)| quote!((#k, #v)))
                .collect(),
        ),
        (
            "allowed_tools",
            skill.allowed_tools.iter().map(|t| quote!(#t)).collect(),
        ),
        ("tags", skill.tags.iter().map(|t| quote!(#t)).collect()),
        (
            "requires",
            skill
                .requires
                .iter()
                .map(|s| {
                    let v = &s.value;
                    quote!(#v)
                })
                .collect(),
        ),
        (
            "conflicts_with",
            skill
                .conflicts_with
                .iter()
                .map(|s| {
                    let v = &s.value;
                    quote!(#v)
                })
                .collect(),
        ),
    ];
    for (name, items) in lists {
        if !items.is_empty() {
            let field = format_ident!("{}", name);
            fields.push(quote!(#field: &[#(#items),*]));
        }
    }
    if !skill.resources.is_empty() {
        let skill_dir = skill.path.trim_end_matches("SKILL.md");
        let resources = skill.resources.iter().map(|resource| {
            let path = &resource.path;
            let bytes = location.include_path(&resource.file, &format!("{skill_dir}{path}"));
            let (is_text, executable) = (resource.is_text, resource.executable);
            quote!(#krate::__private::resource(#path, ::core::include_bytes!(#bytes), #is_text, #executable))
        });
        let hash = &skill.tree_sha256;
        fields.push(quote!(resources: &[#(#resources),*]));
        fields.push(quote!(tree_sha256: ::core::option::Option::Some(#hash)));
    }
    quote! {
        &#krate::__private::SkillExtra {
            #(#fields,)*
            ..#krate::__private::NO_EXTRA
        }
    }
}
