//! skills-rig's integration tests in one binary, laid out as every crate's of the workspace: the
//! tools through rig's own dispatch, and the definitions rig sends.

mod tools;
