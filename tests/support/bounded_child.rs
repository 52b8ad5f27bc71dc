//! What the tests of bounded evaluation share (`tests/hostile.rs`, `tests/expression_fuzz.rs`):
//! the two environments expressions run in, and the limits a child process puts on itself
//! before it evaluates anything (an address-space limit, so that an allocation the budget
//! missed aborts the child instead of exhausting the machine).

use kcel::{Env, ProgramOptions};
use kcel_stdlib::kubernetes::presets::{self, Mode};

/// What the address-space limit allows beyond the child's address space at its start: the
/// default memory budget (64 MiB) four times over, for what the budget does not count
/// (allocator slack, vectors' spare capacity, intermediate copies).
pub const HEADROOM: u64 = 4 * kcel::DEFAULT_MEMORY_LIMIT;

/// The cost limit of the plain environment.
pub const PLAIN_COST_LIMIT: u64 = 100_000_000;

/// The environments expressions run in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Which {
    /// Kubernetes' (1.37, new expressions): its per-call cost limit of 1,000,000 and the
    /// default memory limit.
    Kubernetes,
    /// The plain CEL environment with cel-go's extensions (strings, lists, sets, encoders,
    /// regex, optional, math) and a cost limit of [`PLAIN_COST_LIMIT`].
    Plain,
}

impl Which {
    /// Both, in the order tests run them.
    pub const ALL: [Which; 2] = [Which::Kubernetes, Which::Plain];

    /// A one-letter tag for command lines and reports.
    pub fn tag(self) -> &'static str {
        match self {
            Which::Kubernetes => "k",
            Which::Plain => "p",
        }
    }

    /// The inverse of [`Which::tag`].
    pub fn from_tag(tag: &str) -> Which {
        if tag == "k" {
            Which::Kubernetes
        } else {
            Which::Plain
        }
    }
}

/// The environment and the program options of `which`.
pub fn env(which: Which) -> (Env, ProgramOptions) {
    match which {
        Which::Kubernetes => {
            let env = presets::kubernetes((1, 37), Mode::NewExpressions);
            (env, ProgramOptions::default())
        }
        Which::Plain => {
            let mut env = Env::new();
            for lib in [
                kcel_stdlib::ext::strings(4),
                kcel_stdlib::ext::lists(3),
                kcel_stdlib::ext::sets(),
                kcel_stdlib::ext::encoders(),
                kcel_stdlib::ext::regex(),
                kcel_stdlib::ext::math(2),
                kcel_stdlib::optional::optional(kcel_stdlib::optional::LATEST),
            ] {
                env.add_library(&lib);
            }
            let options = ProgramOptions::default().with_cost_limit(Some(PLAIN_COST_LIMIT));
            (env, options)
        }
    }
}

/// The process's peak resident set, in MiB (Linux: `VmHWM`; 0 where unknown).
pub fn peak_rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb / 1024)
}

/// Limits the process's address space to what it has now plus [`HEADROOM`].
#[cfg(unix)]
pub fn limit_address_space() {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let now = pages * 4096;
    let limit = now + HEADROOM;
    let rlimit = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit reads the struct passed by reference and nothing else.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_AS, &rlimit) };
    assert_eq!(rc, 0, "setrlimit");
}

/// Without `setrlimit`, nothing is limited (the wall bound still holds).
#[cfg(not(unix))]
pub fn limit_address_space() {}
