//! skills-core's integration tests in one binary: discovery and the rules across skills on real
//! folders, the trigger cases of a skill's `evals/`, the property tests of the parser and of the
//! whole pipeline, and the option tables of the docs against the options themselves.
//!
//! proptest keeps the failures it found for `properties` in
//! `tests/proptest-regressions/properties.txt` (beside the folder of this `main.rs`, its default
//! place) and replays them before any new case.

mod bundle;
mod folders;
mod options_docs;
mod properties;
mod trigger_files;
