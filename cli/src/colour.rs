//! Whether diagnostics on stderr are coloured.

use std::io::IsTerminal;

/// Whether to colour diagnostics on stderr: never when `NO_COLOR` is set (non-empty), always
/// when `CLICOLOR_FORCE` is set (non-empty, not `0`), otherwise only on a terminal.
pub fn stderr_colour() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        false
    } else if set("CLICOLOR_FORCE") {
        true
    } else {
        std::io::stderr().is_terminal()
    }
}
