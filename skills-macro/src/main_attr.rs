//! `#[skills_runtime::main]`: an `async fn main` that first runs the sandbox's entry line, then
//! builds a tokio runtime and blocks on the body. It takes the place of `#[tokio::main]`, whose
//! runtime starts its threads before the body runs, too late for the entry line (a process with
//! threads cannot create the user namespace every `bash` call is sandboxed in).
//!
//! Arguments, all optional: `flavor = "multi_thread"` (the default) or `"current_thread"`,
//! `worker_threads = N` (multi-thread only), and `crate = path` for a renamed `skills-runtime`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, LitInt, LitStr};

/// What the attribute's arguments ask for.
struct Settings {
    multi_thread: bool,
    worker_threads: Option<(usize, Span)>,
    krate: syn::Path,
}

impl Settings {
    fn parse(args: TokenStream) -> syn::Result<Settings> {
        let mut settings = Settings {
            multi_thread: true,
            worker_threads: None,
            krate: crate::args::default_crate_path(),
        };
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("flavor") {
                let flavor: LitStr = meta.value()?.parse()?;
                settings.multi_thread = match flavor.value().as_str() {
                    "multi_thread" => true,
                    "current_thread" => false,
                    _ => {
                        return Err(syn::Error::new(
                            flavor.span(),
                            "the flavor is \"multi_thread\" or \"current_thread\"",
                        ));
                    }
                };
                Ok(())
            } else if meta.path.is_ident("worker_threads") {
                let threads: LitInt = meta.value()?.parse()?;
                let count: usize = threads.base10_parse()?;
                if count == 0 {
                    return Err(syn::Error::new(
                        threads.span(),
                        "worker_threads is at least 1",
                    ));
                }
                settings.worker_threads = Some((count, threads.span()));
                Ok(())
            } else if meta.path.is_ident("crate") {
                settings.krate = meta.value()?.parse()?;
                Ok(())
            } else {
                Err(meta.error(
                    "unknown argument: `flavor = \"multi_thread\" | \"current_thread\"`, \
                     `worker_threads = N` and `crate = path` are known",
                ))
            }
        });
        syn::parse::Parser::parse2(parser, args)?;
        if let (false, Some((_, span))) = (settings.multi_thread, settings.worker_threads) {
            return Err(syn::Error::new(
                span,
                "worker_threads needs the multi_thread flavor",
            ));
        }
        Ok(settings)
    }
}

/// The expansion, or the errors with the function left as written (so its body still gets
/// checked and no error about a missing `main` follows).
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(error) => {
            let error = error.to_compile_error();
            return quote!(#error #item);
        }
    };
    match Settings::parse(args).and_then(|settings| checked(&function).map(|()| settings)) {
        Ok(settings) => generate(function, &settings),
        Err(error) => {
            let error = error.to_compile_error();
            // Without `async` the function type-checks as the program wrote it.
            let mut function = function;
            function.sig.asyncness = None;
            quote!(#error #function)
        }
    }
}

/// The function must be `async`, without parameters or generics.
fn checked(function: &ItemFn) -> syn::Result<()> {
    let signature = &function.sig;
    if signature.asyncness.is_none() {
        return Err(syn::Error::new(
            signature.fn_token.span(),
            "#[skills_runtime::main] goes on an `async fn`",
        ));
    }
    if !signature.inputs.is_empty() {
        return Err(syn::Error::new(
            signature.inputs.span(),
            "#[skills_runtime::main] takes a function without parameters",
        ));
    }
    if !signature.generics.params.is_empty() || signature.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            signature.generics.span(),
            "#[skills_runtime::main] takes a function without generics",
        ));
    }
    Ok(())
}

fn generate(function: ItemFn, settings: &Settings) -> TokenStream {
    let ItemFn {
        attrs,
        vis,
        mut sig,
        block,
    } = function;
    sig.asyncness = None;
    let krate = &settings.krate;
    let multi_thread = settings.multi_thread;
    let worker_threads = match settings.worker_threads {
        Some((count, _)) => quote!(::core::option::Option::Some(#count)),
        None => quote!(::core::option::Option::None),
    };
    let span = sig.ident.span();
    let enter = quote_spanned!(span=> #krate::agent::sandbox::enter());
    quote! {
        #(#attrs)*
        #vis #sig {
            // First, before any thread: in a copy started as a sandbox stage this never returns.
            #enter;
            let body = async #block;
            #krate::agent::__private::runtime(#multi_thread, #worker_threads).block_on(body)
        }
    }
}
