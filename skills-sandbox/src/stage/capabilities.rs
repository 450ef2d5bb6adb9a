//! Capabilities: none at all for the command, also when it is uid 0.
//!
//! The init stage holds every capability of the call's namespaces (it is a fork of the process
//! that created them). Before the command starts, everything goes: the bounding set (so no later
//! `execve` of a set-user-ID or file-capability program can grant any), the ambient,
//! inheritable, permitted and effective sets, and locked securebits so that uid 0 gets nothing
//! back at `execve` either; then `no_new_privs`.

use rustix::io::Errno;
use rustix::thread::{
    CapabilitiesSecureBits, CapabilitySet, CapabilitySets, capabilities,
    clear_ambient_capability_set, remove_capability_from_bounding_set, set_capabilities,
    set_capabilities_secure_bits, set_no_new_privs,
};

use crate::stage::{Failure, Step};

/// Drops every capability of the calling thread for good, and sets `no_new_privs`. Threads and
/// processes it starts afterwards inherit this.
pub(crate) fn drop_all() -> Result<(), Failure> {
    let held = capabilities(None).step(|| "read the capabilities".to_owned())?;
    // Without CAP_SETPCAP (a caller that is not root, in the fallback) there is nothing to
    // drop but the bounding set, which `no_new_privs` makes harmless.
    if held.effective.contains(CapabilitySet::SETPCAP) {
        set_capabilities_secure_bits(
            CapabilitiesSecureBits::NO_ROOT
                | CapabilitiesSecureBits::NO_ROOT_LOCKED
                | CapabilitiesSecureBits::NO_SETUID_FIXUP
                | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED
                | CapabilitiesSecureBits::KEEP_CAPS_LOCKED
                | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE
                | CapabilitiesSecureBits::NO_CAP_AMBIENT_RAISE_LOCKED,
        )
        .step(|| "lock the securebits".to_owned())?;
        // Every capability number the kernel knows, including ones newer than rustix's names;
        // the first unknown number says EINVAL.
        for bit in 0..64 {
            match remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(1 << bit)) {
                Ok(()) => {}
                Err(Errno::INVAL) => break,
                Err(error) => {
                    return Err(error)
                        .step(|| format!("drop capability {bit} from the bounding set"));
                }
            }
        }
    }
    clear_ambient_capability_set().step(|| "clear the ambient capabilities".to_owned())?;
    set_capabilities(
        None,
        CapabilitySets {
            effective: CapabilitySet::empty(),
            permitted: CapabilitySet::empty(),
            inheritable: CapabilitySet::empty(),
        },
    )
    .step(|| "drop every capability".to_owned())?;
    set_no_new_privs(true).step(|| "set no_new_privs".to_owned())
}
