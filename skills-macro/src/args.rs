//! Parses `embed_skills!("root", "other/root", key = value, ...)`.

use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitBool, LitInt, LitStr, Token};

/// The parsed invocation.
pub struct Args {
    /// The roots, in the order given; their spans carry the compile errors.
    pub roots: Vec<LitStr>,
    /// Validation options.
    pub options: skills_core::Options,
    /// Path of the runtime crate in generated code.
    pub krate: syn::Path,
}

const OPTIONS_HELP: &str =
    "known options: `max_file_size = <bytes>`, `allow_unknown_keys = <bool>`, `crate = <path>`";

pub fn default_crate_path() -> syn::Path {
    syn::parse_quote!(::skills_runtime)
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut args = Args {
            roots: Vec::new(),
            options: skills_core::Options::default(),
            krate: default_crate_path(),
        };
        while input.peek(LitStr) {
            args.roots.push(input.parse()?);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        if args.roots.is_empty() {
            return Err(
                input.error("expected at least one skills root, e.g. `embed_skills!(\"skills\")`")
            );
        }
        while !input.is_empty() {
            if input.peek(Token![crate]) {
                input.parse::<Token![crate]>()?;
                input.parse::<Token![=]>()?;
                args.krate = input.parse()?;
            } else {
                let key: Ident = input.parse().map_err(|e| {
                    syn::Error::new(
                        e.span(),
                        format!("expected a root string or an option; {OPTIONS_HELP}"),
                    )
                })?;
                input.parse::<Token![=]>()?;
                match key.to_string().as_str() {
                    "max_file_size" => {
                        args.options.max_file_size = input.parse::<LitInt>()?.base10_parse()?
                    }
                    "allow_unknown_keys" => {
                        args.options.allow_unknown_keys = input.parse::<LitBool>()?.value
                    }
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}`; {OPTIONS_HELP}"),
                        ));
                    }
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
            if input.peek(LitStr) {
                return Err(input.error("roots must come before options"));
            }
        }
        Ok(args)
    }
}
