//! cel-go's extension libraries (`ext/` in cel-go), with cel-go's overload ids, version
//! gating, error messages and cost functions.
//!
//! | constructor | library | versions |
//! | --- | --- | --- |
//! | [`strings`](fn@strings) | `charAt`, `indexOf`, ..., `format`, `strings.quote`, `reverse` | 0..=4 |
//! | [`math`](fn@math) | `math.greatest`, `math.least`, rounding, `math.abs`, bit operations, `math.sqrt` | 0..=2 |
//! | [`encoders`](fn@encoders) | `base64.encode`, `base64.decode` | 0 |
//! | [`sets`](fn@sets) | `sets.contains`, `sets.equivalent`, `sets.intersects` | 0 |
//! | [`lists`](fn@lists) | `slice`, `flatten`, `sort`, `lists.range`, `reverse`, `distinct` | 0..=3 |
//! | [`regex`](fn@regex) | `regex.replace`, `regex.extract`, `regex.extractAll` | 0 |
//! | [`network`](fn@network) | `ip`, `cidr`, `isIP`, `isCIDR`, `ip.isCanonical`, address and prefix methods | 1 |
//!
//! Implementations are total over [`Value`](kcel::Value): arguments of the wrong
//! runtime type give `no such overload`, never a panic.

pub(crate) mod encoders;
pub(crate) mod format;
pub(crate) mod format_check;
pub(crate) mod lists;
pub(crate) mod math;
pub(crate) mod network;
pub(crate) mod regex;
pub(crate) mod sets;
pub(crate) mod strings;

use kcel::library::Library;
use kcel::library::syntax::{ExprKind, Literal};
use kcel::library::{CostEstimate, EstimateArgs, SizeEstimate};

/// The newest version of [`strings`](fn@strings) implemented here.
pub const STRINGS_VERSION: u32 = 4;
/// The newest version of [`math`](fn@math).
pub const MATH_VERSION: u32 = 2;
/// The newest version of [`lists`](fn@lists).
pub const LISTS_VERSION: u32 = 3;

/// cel-go's `ext.Strings(ext.StringsVersion(version))`.
pub fn strings(version: u32) -> Library {
    strings::library(version)
}

/// cel-go's `ext.Math(ext.MathVersion(version))`.
pub fn math(version: u32) -> Library {
    math::library(version)
}

/// cel-go's `ext.Encoders()`.
pub fn encoders() -> Library {
    encoders::library()
}

/// cel-go's `ext.Sets()`.
pub fn sets() -> Library {
    sets::library()
}

/// cel-go's `ext.Lists(ext.ListsVersion(version))`.
pub fn lists(version: u32) -> Library {
    lists::library(version)
}

/// cel-go's `ext.Regex()`.
pub fn regex() -> Library {
    regex::library()
}

/// cel-go's `ext.Network()` (version 1, its only version).
pub fn network() -> Library {
    network::library()
}

/// Every extension library at its newest version.
pub fn all() -> Vec<Library> {
    vec![
        strings(STRINGS_VERSION),
        math(MATH_VERSION),
        encoders(),
        sets(),
        lists(LISTS_VERSION),
        regex(),
        network(),
    ]
}

/// `x + y`, saturating (cel-go's `safeAdd`).
fn sat_add(x: u64, y: u64) -> u64 {
    x.saturating_add(y)
}

/// `⌊x × factor⌋` as cel-go computes `uint64(float64(x) * factor)`.
fn floor_factor(x: u64, factor: f64) -> u64 {
    // Float-to-int casts saturate, like cel-go's clamping.
    (x as f64 * factor) as u64
}

/// The estimated size of a call argument (`args[i]`), unknown when absent.
fn arg_size(e: &EstimateArgs<'_>, i: usize) -> SizeEstimate {
    e.args.get(i).map_or(SizeEstimate::UNKNOWN, |n| e.size(n))
}

/// The estimated size of the receiver, unknown when absent.
fn target_size(e: &EstimateArgs<'_>) -> SizeEstimate {
    e.target.map_or(SizeEstimate::UNKNOWN, |n| e.size(n))
}

/// cel-go's `nodeAsUintValue`: an int literal argument as a u64 (negative → 0), else
/// `default`.
fn literal_uint(e: &EstimateArgs<'_>, i: usize, default: u64) -> u64 {
    match e.args.get(i).map(|n| &n.expr.kind) {
        Some(ExprKind::Literal(Literal::Int(v))) => u64::try_from(*v).unwrap_or(0),
        _ => default,
    }
}

/// `sizes × factor` with cel-go's ceiling and saturation, as a cost range.
fn size_times(s: SizeEstimate, factor: f64) -> CostEstimate {
    s.times_factor(factor)
}

/// `a × b` for size ranges, saturating.
fn size_mul(a: SizeEstimate, b: SizeEstimate) -> SizeEstimate {
    SizeEstimate {
        min: a.min.saturating_mul(b.min),
        max: a.max.saturating_mul(b.max),
    }
}

#[cfg(test)]
mod tests;
