// The attribute with `#[tokio::main]`'s flavor, and a body that returns an exit code.
use std::process::ExitCode;

#[skills_runtime::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let handle = tokio::runtime::Handle::current();
    assert_eq!(handle.runtime_flavor(), tokio::runtime::RuntimeFlavor::CurrentThread);
    match skills_runtime::agent::Sandbox::default().check_entry() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
