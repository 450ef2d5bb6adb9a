//! Demo package.
