//! A registry built at run time, from the tables `skills_core::tables` lays out for the macro:
//! the `skills` command reads folders from disk and evaluates the very bundle `embed_skills!`
//! would compile from them.
//!
//! Only with the feature `folders`, which turns on skills-core's validation.
//!
//! The data is leaked, so it lives for the rest of the process as a compiled bundle does and
//! every `&'static` the API hands out stays valid: build one registry per process, not one per
//! request.

use skills_core::layout;
use skills_core::tables::Tables;

use crate::Registry;
use crate::bundle::{BundleData, Cache, Resource, Skill, Tasks, Triggers};

/// One file of a skill, read from disk, for [`build_registry`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BuiltResource {
    /// Path relative to the skill's folder, with `/`.
    pub(crate) path: String,
    /// The file's bytes.
    pub(crate) bytes: Vec<u8>,
    /// Whether the file is UTF-8 text.
    pub(crate) is_text: bool,
    /// Whether the file is executable.
    pub(crate) executable: bool,
}

pub use from_bundle::{BuildError, registry_from_bundle};

/// The registry of `tables`, with `resources`: every skill's files, skill after skill, in the
/// bundle's order (the records point into that list), and with the task cases the bytes of
/// the files they copy (`task_files`, in the order of the tables' list).
pub(crate) fn build_registry(
    tables: Tables,
    resources: Vec<BuiltResource>,
    task_files: Vec<Vec<u8>>,
) -> Registry {
    let Tables {
        text,
        names,
        records,
        record_starts,
        hashes,
        index,
        catalog,
        roots,
        triggers,
        tasks,
    } = tables;
    let roots: Vec<&'static str> = roots.into_iter().map(|root| &*root.leak()).collect();
    let resources: Vec<Resource> = resources
        .into_iter()
        .map(|resource| Resource {
            path: resource.path.leak(),
            bytes: resource.bytes.leak(),
            is_text: resource.is_text,
            executable: resource.executable,
        })
        .collect();
    let cache: &'static Cache = Box::leak(Box::new(Cache::new()));
    let data: &'static BundleData = Box::leak(Box::new(BundleData {
        // Set below, through the cache: the skills point back at this data.
        skills: &[],
        text: text.leak(),
        names: names.leak(),
        records: records.leak(),
        hashes: hashes.leak(),
        index: index.leak(),
        roots: roots.leak(),
        resources: resources.leak(),
        catalog: catalog.leak(),
        lock_digest: None,
        triggers: triggers.map(|triggers| Triggers {
            table: triggers.table.leak(),
            queries: triggers.queries.leak(),
        }),
        tasks: tasks.map(|tasks| Tasks {
            table: tasks.table.leak(),
            files: task_files
                .into_iter()
                .map(|bytes| &*bytes.leak())
                .collect::<Vec<&'static [u8]>>()
                .leak(),
        }),
        cache,
    }));
    let skills: Vec<Skill> = (0..record_starts.len() / 4)
        .map(|i| Skill {
            data,
            index: i as u32,
            record: layout::u32_at(&record_starts, 4 * i),
        })
        .collect();
    // The cache is new: nothing has set its skills yet.
    let _ = cache.skills.set(skills.leak());
    Registry::from_bundle(data)
}

mod from_bundle {
    use std::fmt;
    use std::io;

    use skills_core::tables::TextTooLarge;
    use skills_core::{Bundle, ReadCheckedError};

    use super::{BuiltResource, build_registry};
    use crate::Registry;

    /// Why a bundle read from disk could not become a registry.
    #[derive(Debug)]
    #[non_exhaustive]
    pub enum BuildError {
        /// More `SKILL.md` text than one registry can address.
        TooLarge(TextTooLarge),
        /// A resource could not be read again.
        Unreadable {
            /// The file, as diagnostics show it.
            path: String,
            /// Why.
            source: io::Error,
        },
        /// A resource changed between the check and this read.
        Changed {
            /// The file, as diagnostics show it.
            path: String,
        },
    }

    impl fmt::Display for BuildError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                BuildError::TooLarge(error) => error.fmt(f),
                BuildError::Unreadable { path, source } => {
                    write!(f, "cannot read `{path}` again: {source}")
                }
                BuildError::Changed { path } => write!(
                    f,
                    "`{path}` changed while the skills were read: run the command again"
                ),
            }
        }
    }

    impl std::error::Error for BuildError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            match self {
                BuildError::TooLarge(error) => Some(error),
                BuildError::Unreadable { source, .. } => Some(source),
                BuildError::Changed { .. } => None,
            }
        }
    }

    /// The registry `embed_skills!` would compile from `bundle` (loaded from `roots` by
    /// `skills_core::load`, without errors), built at run time: the same tables, and each
    /// resource's bytes read again and checked against the hash the bundle recorded. With
    /// `frontmatter_json` the records point at each frontmatter as JSON, as with the macro's
    /// feature of that name; with `embed_evals` the trigger and task cases are in.
    pub fn registry_from_bundle(
        bundle: &Bundle,
        roots: &[&str],
        frontmatter_json: bool,
        embed_evals: bool,
    ) -> Result<Registry, BuildError> {
        let tables = skills_core::tables::build(bundle, roots, frontmatter_json, embed_evals)
            .map_err(BuildError::TooLarge)?;
        let mut resources = Vec::new();
        for skill in &bundle.skills {
            let skill_dir = skill.path.trim_end_matches("SKILL.md");
            for resource in &skill.resources {
                let path = format!("{skill_dir}{}", resource.path);
                let bytes = resource.read_checked().map_err(|error| match error {
                    ReadCheckedError::Changed => BuildError::Changed { path: path.clone() },
                    ReadCheckedError::Unreadable(source) => BuildError::Unreadable {
                        path: path.clone(),
                        source,
                    },
                })?;
                resources.push(BuiltResource {
                    path: resource.path.clone(),
                    bytes,
                    is_text: resource.is_text,
                    executable: resource.executable,
                });
            }
        }
        // The files task cases copy, read again and checked the same way.
        let mut task_files = Vec::new();
        for (path, file, sha256) in tables.tasks.iter().flat_map(|tasks| &tasks.files) {
            let bytes = std::fs::read(file).map_err(|source| BuildError::Unreadable {
                path: path.clone(),
                source,
            })?;
            if skills_core::digest::sha256_hex(&bytes) != *sha256 {
                return Err(BuildError::Changed { path: path.clone() });
            }
            task_files.push(bytes);
        }
        Ok(build_registry(tables, resources, task_files))
    }
}
