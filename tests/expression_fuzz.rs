//! Generated expressions under an address-space limit and a time bound (issue 27): no
//! expression may abort the process, panic, overflow the stack or run past the bound,
//! whatever it builds — each ends with a value, a compile error or an evaluation error
//! (the cost limit, the memory budget or any other).
//!
//! A seeded generator writes expressions by type: literals (short and 100-character
//! strings, large and extreme numbers), operators, conversions, the macros (`all`,
//! `exists`, `exists_one`, `map`, `filter`, `has`, `cel.bind`), the extension libraries
//! (strings, lists, sets, math, encoders, regex, optional; in Kubernetes' environment its
//! own libraries: lists, regex, quantities, URLs, IPs, CIDRs, semver), and the patterns
//! whose work or output grows faster than their cost: lists and maps doubled through a
//! comprehension (`[E].map(a, [a, a])[0]`, up to 32 times), strings doubled through
//! `cel.bind` and `replace`, `lists.range` of large sizes, `join` with long separators,
//! `format` of shared values, equality, `flatten`, `distinct`, `sort` and the sets
//! functions over all of these. Expression `i` of seed `s` depends on `s` and `i` alone.
//!
//! Expressions run in child processes (this test binary, re-executed with
//! `KCEL_FUZZ_CHILD` set), each child evaluating a run of them under `RLIMIT_AS` (its
//! address space at start plus 256 MiB, `support/bounded_child.rs`), in Kubernetes'
//! environment (cost limit 1,000,000, memory budget 64 MiB) and in the plain one (cost
//! limit 10^8). The child announces each expression before evaluating it and reports the
//! CPU time it took; the parent fails an expression that takes more than [`CPU_LIMIT`]
//! of CPU time (ten times that in unoptimized builds) and takes a child that says nothing
//! for [`WALL_FACTOR`] times as long (wall-clock) to hang.
//! Results are rendered as the front ends render them (CEL syntax and JSON) when not too
//! large. An abort, a signal, a panic or a hang is a failure: the expression, its seed and index
//! and the command that repeats it are printed, and the run goes on with a new child
//! from the next expression. The run prints the outcomes by kind and the pass/fail counts.
//!
//! Settings (environment variables):
//! - `KCEL_FUZZ_CASES=N`: expressions per environment (default [`CI_CASES`]);
//! - `KCEL_FUZZ_SEED=S`: the seed (default [`DEFAULT_SEED`]);
//! - `KCEL_FUZZ_ONLY=I`: only expression `I` (to repeat a failure);
//! - `KCEL_FUZZ_ENV=k|p`: only Kubernetes' or the plain environment;
//! - `KCEL_FUZZ_SHOW=1`: print every expression and its outcome.
//!
//! Long runs by hand: `KCEL_FUZZ_CASES=100000 KCEL_FUZZ_SEED=$RANDOM cargo test --release
//! --test expression_fuzz` (see BENCHMARKS.md, "Fuzz-style runs").

#[path = "support/bounded_child.rs"]
mod bounded_child;

use std::collections::BTreeMap;
use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use bounded_child::{Which, env, limit_address_space, peak_rss_mib};
use kcel::{Type, Value};

/// Expressions per environment in a default run (CI).
const CI_CASES: u64 = 1000;

/// The default seed.
const DEFAULT_SEED: u64 = 27;

/// Expressions one child evaluates before the parent starts a fresh one (a child that
/// fails is replaced at once).
const PER_CHILD: u64 = 250;

/// Results up to this size as text are rendered (CEL syntax and JSON) after evaluation.
const MAX_SHOWN: u64 = 1 << 20;

/// The CPU-time bound of one expression (optimized builds).
const CPU_LIMIT: Duration = Duration::from_secs(2);

/// A child that says nothing for this many times the CPU bound (wall-clock time) is taken
/// to hang: a loaded machine stretches wall-clock time, not CPU time.
const WALL_FACTOR: u32 = 5;

// ---------------------------------------------------------------------------------------
// The generator

/// SplitMix64: small, seedable, good enough to pick grammar productions.
struct Rng(u64);

impl Rng {
    fn new(seed: u64, index: u64) -> Rng {
        let mut rng = Rng(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The types the generator writes expressions of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Int,
    Uint,
    Double,
    Bool,
    Str,
    Bytes,
    ListInt,
    ListStr,
    /// A list of lists or of maps (the shapes that share structure).
    ListAny,
    Map,
    Any,
}

const CONCRETE: [Ty; 10] = [
    Ty::Int,
    Ty::Uint,
    Ty::Double,
    Ty::Bool,
    Ty::Str,
    Ty::Bytes,
    Ty::ListInt,
    Ty::ListStr,
    Ty::ListAny,
    Ty::Map,
];

struct Gen {
    rng: Rng,
    /// For Kubernetes' environment (its libraries; no `cel.bind`, `math`, `base64` or
    /// `regex.replace`) or the plain one (cel-go's extensions, no Kubernetes library).
    kubernetes: bool,
    /// Comprehension and `cel.bind` variables in scope: name and type.
    scope: Vec<(String, Ty)>,
    names: u32,
}

fn x100() -> String {
    format!("'{}'", "x".repeat(100))
}

impl Gen {
    fn new(seed: u64, index: u64, which: Which) -> Gen {
        Gen {
            rng: Rng::new(seed, index),
            kubernetes: which == Which::Kubernetes,
            scope: Vec::new(),
            names: 0,
        }
    }

    fn fresh(&mut self) -> String {
        self.names += 1;
        format!("v{}", self.names)
    }

    /// An expression of type `ty`, at most `depth` levels deep.
    fn expr(&mut self, ty: Ty, depth: u32) -> String {
        if depth == 0 || self.rng.chance(20) {
            return self.leaf(ty);
        }
        let d = depth - 1;
        match ty {
            Ty::Int => self.int(d),
            Ty::Uint => self.uint(d),
            Ty::Double => self.double(d),
            Ty::Bool => self.boolean(d),
            Ty::Str => self.string(d),
            Ty::Bytes => self.bytes(d),
            Ty::ListInt => self.list_int(d),
            Ty::ListStr => self.list_str(d),
            Ty::ListAny => self.list_any(d),
            Ty::Map => self.map(d),
            Ty::Any => {
                let ty = *self.rng.pick(&CONCRETE);
                self.expr(ty, depth)
            }
        }
    }

    fn leaf(&mut self, ty: Ty) -> String {
        let in_scope: Vec<String> = self
            .scope
            .iter()
            .filter(|(_, t)| *t == ty || ty == Ty::Any)
            .map(|(n, _)| n.clone())
            .collect();
        if !in_scope.is_empty() && self.rng.chance(50) {
            return self.rng.pick(&in_scope).clone();
        }
        let pick = |rng: &mut Rng, items: &[&str]| rng.pick(items).to_string();
        match ty {
            Ty::Int => {
                if self.rng.chance(10) {
                    return pick(&mut self.rng, &["x.a", "x.n", "size(x.items)"]);
                }
                pick(
                    &mut self.rng,
                    &[
                        "0",
                        "1",
                        "2",
                        "-1",
                        "3",
                        "7",
                        "10",
                        "64",
                        "100",
                        "1000",
                        "3000",
                        "10000",
                        "100000",
                        "1000000",
                        "100000000",
                        "9223372036854775807",
                        "-9223372036854775808",
                    ],
                )
            }
            Ty::Uint => pick(&mut self.rng, &["0u", "1u", "7u", "18446744073709551615u"]),
            Ty::Double => pick(
                &mut self.rng,
                &[
                    "0.0",
                    "-0.0",
                    "1.5",
                    "-2.5",
                    "1e300",
                    "double('NaN')",
                    "double('inf')",
                ],
            ),
            Ty::Bool => pick(&mut self.rng, &["true", "false", "has(x.a)"]),
            Ty::Str => {
                if self.rng.chance(15) {
                    return x100();
                }
                pick(
                    &mut self.rng,
                    &[
                        "''",
                        "'x'",
                        "'abc'",
                        "'a-b.c'",
                        "'%s'",
                        "'x.*'",
                        "'(x+)+y'",
                        "'127.0.0.1'",
                        "'10.0.0.0/8'",
                        "'https://example.com/p?q=1'",
                        "'1.2.3'",
                        "'100Mi'",
                        "'\\u00e9\\U0001F600'",
                        "x.b",
                    ],
                )
            }
            Ty::Bytes => pick(&mut self.rng, &["b''", "b'abc'", "b'\\xff\\x00'"]),
            Ty::ListInt => pick(&mut self.rng, &["[]", "[1, 2, 3]", "[3, 1, 2, 1]"]),
            Ty::ListStr => pick(&mut self.rng, &["['a', 'b']", "['b', 'a', 'b']", "x.s"]),
            Ty::ListAny => pick(
                &mut self.rng,
                &[
                    "[[1], [2, 3]]",
                    "[[], []]",
                    "[{'a': 1}, {'a': 1}]",
                    "x.items",
                ],
            ),
            Ty::Map => pick(
                &mut self.rng,
                &[
                    "{}",
                    "{'a': 1, 'b': 2}",
                    "x.m",
                    "{'a': [1], 'b': {'c': 'd'}}",
                ],
            ),
            Ty::Any => {
                let ty = *self.rng.pick(&CONCRETE);
                self.leaf(ty)
            }
        }
    }

    /// `body` with a new variable of type `ty` in scope: (name, body).
    fn with_var(&mut self, ty: Ty, body: Ty, depth: u32) -> (String, String) {
        let name = self.fresh();
        self.scope.push((name.clone(), ty));
        let b = self.expr(body, depth);
        self.scope.pop();
        (name, b)
    }

    /// A comprehension over `list` (of element type `elem`) whose result is `out`.
    fn macro_call(&mut self, list: &str, elem: Ty, out: Ty, depth: u32) -> String {
        match out {
            Ty::Bool => {
                let m = *self.rng.pick(&["all", "exists", "exists_one"]);
                let (v, b) = self.with_var(elem, Ty::Bool, depth);
                format!("{list}.{m}({v}, {b})")
            }
            _ => {
                let (v, b) = self.with_var(elem, out, depth);
                if self.rng.chance(25) {
                    self.scope.push((v.clone(), elem));
                    let f = self.expr(Ty::Bool, depth);
                    self.scope.pop();
                    format!("{list}.map({v}, {f}, {b})")
                } else {
                    format!("{list}.map({v}, {b})")
                }
            }
        }
    }

    /// `body` with `v` bound to `e`: `cel.bind`, or in Kubernetes (which has no
    /// `cel.bind`) the same through a comprehension.
    fn bind(&self, v: &str, e: &str, body: &str) -> String {
        if self.kubernetes {
            format!("[{e}].map({v}, {body})[0]")
        } else {
            format!("cel.bind({v}, {e}, {body})")
        }
    }

    /// `e` doubled `n` times through a comprehension: `[e].map(a, [a, a])[0]`.
    fn doubled_list(&mut self, e: String) -> String {
        let n = 1 + self.rng.below(32);
        let mut out = e;
        for _ in 0..n {
            let a = self.fresh();
            out = format!("[{out}].map({a}, [{a}, {a}])[0]");
        }
        out
    }

    fn int(&mut self, d: u32) -> String {
        match self.rng.below(16) {
            0 => {
                let op = *self.rng.pick(&["+", "-", "*", "/", "%"]);
                format!("({} {op} {})", self.expr(Ty::Int, d), self.expr(Ty::Int, d))
            }
            1 => format!("size({})", self.expr(Ty::Str, d)),
            2 => {
                let ty = *self
                    .rng
                    .pick(&[Ty::ListInt, Ty::ListStr, Ty::ListAny, Ty::Map]);
                format!("{}.size()", self.expr(ty, d))
            }
            3 => {
                let ty = *self.rng.pick(&[Ty::Double, Ty::Str, Ty::Uint]);
                format!("int({})", self.expr(ty, d))
            }
            4 => format!("{}[{}]", self.expr(Ty::ListInt, d), self.expr(Ty::Int, d)),
            5 => format!(
                "{}.{}({})",
                self.expr(Ty::Str, d),
                self.rng.pick(&["indexOf", "lastIndexOf"]),
                self.expr(Ty::Str, d)
            ),
            6 if self.kubernetes => format!(
                "[{}, {}].max()",
                self.expr(Ty::Int, d),
                self.expr(Ty::Int, d)
            ),
            6 => format!(
                "math.{}({}, {})",
                self.rng
                    .pick(&["greatest", "least", "bitShiftLeft", "bitXor"]),
                self.expr(Ty::Int, d),
                self.expr(Ty::Int, d)
            ),
            7 if !self.kubernetes => format!("math.abs({})", self.expr(Ty::Int, d)),
            7 => format!(
                "{}.{}()",
                self.expr(Ty::ListInt, d),
                self.rng.pick(&["sum", "min", "max"])
            ),
            8 => {
                let (v, b) = self.with_var(Ty::Int, Ty::Int, d);
                let e = self.expr(Ty::Int, d);
                self.bind(&v, &e, &b)
            }
            9 => format!(
                "({} ? {} : {})",
                self.expr(Ty::Bool, d),
                self.expr(Ty::Int, d),
                self.expr(Ty::Int, d)
            ),
            10 => format!("{}.getHours()", self.timestamp()),
            11 if !self.kubernetes => format!("math.sign({})", self.expr(Ty::Int, d)),
            11 => format!(
                "{}.indexOf({})",
                self.expr(Ty::ListInt, d),
                self.expr(Ty::Int, d)
            ),
            12 if !self.kubernetes => format!("math.bitOr({}, 3)", self.expr(Ty::Int, d)),
            12 => format!(
                "quantity({}).compareTo(quantity('1Gi'))",
                self.expr(Ty::Str, d)
            ),
            13 => format!("{}.first().orValue(0)", self.expr(Ty::ListInt, d)),
            14 if !self.kubernetes => format!("{}.lastIndexOf('x')", self.expr(Ty::Str, d)),
            14 => format!("semver({}).major()", self.expr(Ty::Str, d)),
            _ => format!("-{}", self.expr(Ty::Int, d)),
        }
    }

    fn timestamp(&mut self) -> String {
        self.rng
            .pick(&[
                "timestamp('2024-01-01T00:00:00Z')",
                "(timestamp('2024-01-01T00:00:00Z') + duration('1000000h'))",
                "timestamp(0)",
            ])
            .to_string()
    }

    fn uint(&mut self, d: u32) -> String {
        match self.rng.below(3) {
            0 => format!("uint({})", self.expr(Ty::Int, d)),
            1 => format!(
                "({} {} {})",
                self.expr(Ty::Uint, d),
                self.rng.pick(&["+", "-", "*", "/", "%"]),
                self.expr(Ty::Uint, d)
            ),
            _ if self.kubernetes => format!("(uint({}) * 2u)", self.expr(Ty::Int, d)),
            _ => format!("math.bitNot({})", self.expr(Ty::Uint, d)),
        }
    }

    fn double(&mut self, d: u32) -> String {
        match self.rng.below(4) {
            0 => format!("double({})", self.expr(Ty::Int, d)),
            1 => format!(
                "({} {} {})",
                self.expr(Ty::Double, d),
                self.rng.pick(&["+", "-", "*", "/"]),
                self.expr(Ty::Double, d)
            ),
            2 | 3 if self.kubernetes => {
                format!("quantity({}).asApproximateFloat()", self.expr(Ty::Str, d))
            }
            2 => format!(
                "math.{}({})",
                self.rng.pick(&["sqrt", "ceil", "floor", "round", "abs"]),
                self.expr(Ty::Double, d)
            ),
            _ => format!("math.sqrt({})", self.expr(Ty::Double, d)),
        }
    }

    fn boolean(&mut self, d: u32) -> String {
        match self.rng.below(14) {
            0 | 1 => {
                let ty = *self.rng.pick(&CONCRETE);
                let op = *self.rng.pick(&["==", "!=", "==", "<", ">="]);
                format!("({} {op} {})", self.expr(ty, d), self.expr(ty, d))
            }
            2 => format!("!{}", self.expr(Ty::Bool, d)),
            3 => format!(
                "({} {} {})",
                self.expr(Ty::Bool, d),
                self.rng.pick(&["&&", "||"]),
                self.expr(Ty::Bool, d)
            ),
            4 | 5 => {
                let (list, elem) = self.any_list(d);
                self.macro_call(&list, elem, Ty::Bool, d)
            }
            6 => {
                let (list, elem) = self.any_list(d);
                format!("({} in {list})", self.expr(elem, d))
            }
            7 => format!(
                "{}.{}({})",
                self.expr(Ty::Str, d),
                self.rng
                    .pick(&["contains", "startsWith", "endsWith", "matches"]),
                self.expr(Ty::Str, d)
            ),
            8 => {
                let (a, _) = self.any_list(d);
                let (b, _) = self.any_list(d);
                format!(
                    "sets.{}({a}, {b})",
                    self.rng.pick(&["contains", "intersects", "equivalent"])
                )
            }
            9 => format!("has({}.a)", self.expr(Ty::Map, d)),
            10..=12 if !self.kubernetes => format!(
                "sets.contains({}, {})",
                self.expr(Ty::ListInt, d),
                self.expr(Ty::ListInt, d)
            ),
            10 => format!("{}.isSorted()", self.expr(Ty::ListInt, d)),
            11 => format!("isURL({})", self.expr(Ty::Str, d)),
            12 => format!(
                "isCIDR({}) || isIP({})",
                self.expr(Ty::Str, d),
                self.leaf(Ty::Str)
            ),
            _ if self.rng.chance(10) => {
                // Nested quantifiers: work up to the cost limit, nothing large built.
                let (n, m) = (self.leaf(Ty::Int), self.leaf(Ty::Int));
                let (a, b) = (self.fresh(), self.fresh());
                format!("lists.range({n}).all({a}, lists.range({m}).all({b}, {a} + {b} >= 0))")
            }
            _ => {
                let e = self.expr(Ty::Any, d);
                let (v, b) = self.with_var(Ty::Any, Ty::Bool, d);
                self.bind(&v, &e, &b)
            }
        }
    }

    fn string(&mut self, d: u32) -> String {
        match self.rng.below(24) {
            0 | 1 => format!("({} + {})", self.expr(Ty::Str, d), self.expr(Ty::Str, d)),
            2 | 3 => format!(
                "{}.replace({}, {})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d)
            ),
            4 => format!(
                "{}.replace({}, {}, {})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d),
                self.expr(Ty::Int, d)
            ),
            5 => format!(
                "{}.join({})",
                self.expr(Ty::ListStr, d),
                self.expr(Ty::Str, d)
            ),
            6 => format!(
                "{}.{}()",
                self.expr(Ty::Str, d),
                self.rng
                    .pick(&["lowerAscii", "upperAscii", "trim", "reverse"])
            ),
            7 => format!(
                "{}.substring({}, {})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Int, d),
                self.expr(Ty::Int, d)
            ),
            8 => format!(
                "{}.charAt({})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Int, d)
            ),
            9 => format!("strings.quote({})", self.expr(Ty::Str, d)),
            10 | 11 => format!(
                "{}.format([{}])",
                self.rng
                    .pick(&["'%s'", "'%s %s'", "'%d'", "'%.3f'", "'%x'"]),
                self.expr(Ty::Any, d)
            ),
            12 => {
                let ty = *self
                    .rng
                    .pick(&[Ty::Int, Ty::Uint, Ty::Double, Ty::Bytes, Ty::Bool]);
                format!("string({})", self.expr(ty, d))
            }
            13 => format!("{}[{}]", self.expr(Ty::ListStr, d), self.expr(Ty::Int, d)),
            14 if self.kubernetes => format!("{}.upperAscii()", self.expr(Ty::Str, d)),
            14 => format!("base64.encode({})", self.expr(Ty::Bytes, d)),
            15 if self.kubernetes => format!(
                "{}.replace({}, {})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d)
            ),
            15 => format!(
                "regex.replace({}, {}, {})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d)
            ),
            16 if !self.kubernetes => format!(
                "regex.extract({}, {}).orValue('')",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d)
            ),
            16 => format!("{}.find({})", self.expr(Ty::Str, d), self.expr(Ty::Str, d)),
            17 => {
                // A string doubled through `cel.bind`, `n` times.
                let mut out = self.expr(Ty::Str, d);
                for _ in 0..1 + self.rng.below(30) {
                    let v = self.fresh();
                    out = self.bind(&v, &out, &format!("{v} + {v}"));
                }
                out
            }
            18 => {
                // `replace` of `replace`: each step multiplies the length.
                let x = x100();
                let mut out = x.clone();
                for _ in 0..1 + self.rng.below(5) {
                    out = format!("{out}.replace('x', {x})");
                }
                out
            }
            19 => format!(
                "{}.join({})",
                self.list_str(d),
                if self.rng.chance(50) {
                    format!("{}.replace('x', {})", x100(), x100())
                } else {
                    self.expr(Ty::Str, d)
                }
            ),
            20 | 21 if !self.kubernetes => format!("strings.quote({})", self.expr(Ty::Str, d)),
            20 => format!("url({}).getHost()", self.expr(Ty::Str, d)),
            21 => format!("ip({}).family() == 4 ? 'v4' : 'v6'", self.expr(Ty::Str, d)),
            22 => format!("{}.orValue('')", self.optional_str(d)),
            _ => {
                let (v, b) = self.with_var(Ty::Str, Ty::Str, d);
                let e = self.expr(Ty::Str, d);
                self.bind(&v, &e, &b)
            }
        }
    }

    fn optional_str(&mut self, d: u32) -> String {
        match self.rng.below(3) {
            0 => format!("optional.of({})", self.expr(Ty::Str, d)),
            1 => format!("{}.?a.b", self.expr(Ty::Map, d)),
            _ => "optional.none()".to_string(),
        }
    }

    fn bytes(&mut self, d: u32) -> String {
        match self.rng.below(3) {
            0 => format!("bytes({})", self.expr(Ty::Str, d)),
            1 => format!(
                "({} + {})",
                self.expr(Ty::Bytes, d),
                self.expr(Ty::Bytes, d)
            ),
            _ if self.kubernetes => format!("bytes({})", self.expr(Ty::Str, d)),
            _ => format!("base64.decode({})", self.expr(Ty::Str, d)),
        }
    }

    /// A list of any element type: (expression, element type).
    fn any_list(&mut self, d: u32) -> (String, Ty) {
        match self.rng.below(3) {
            0 => (self.expr(Ty::ListInt, d), Ty::Int),
            1 => (self.expr(Ty::ListStr, d), Ty::Str),
            _ => (self.expr(Ty::ListAny, d), Ty::Any),
        }
    }

    fn list_ops(&mut self, list: String, elem: Ty, d: u32) -> String {
        match self.rng.below(9) {
            0 => format!("{list}.distinct()"),
            1 => format!("{list}.sort()"),
            2 => format!("{list}.reverse()"),
            3 => format!(
                "{list}.slice({}, {})",
                self.expr(Ty::Int, d),
                self.expr(Ty::Int, d)
            ),
            4 => {
                let (v, b) = self.with_var(elem, Ty::Bool, d);
                format!("{list}.filter({v}, {b})")
            }
            5 => format!("({list} + {list})"),
            6 => {
                let (v, b) = self.with_var(elem, Ty::Int, d);
                format!("{list}.sortBy({v}, {b})")
            }
            7 => format!("[{list}].flatten()"),
            _ => format!(
                "({list} + {})",
                self.leaf(if elem == Ty::Str {
                    Ty::ListStr
                } else {
                    Ty::ListInt
                })
            ),
        }
    }

    fn list_int(&mut self, d: u32) -> String {
        match self.rng.below(7) {
            0 | 1 => format!("lists.range({})", self.expr(Ty::Int, d)),
            2 => {
                let n = self.rng.below(4);
                let items: Vec<String> = (0..n).map(|_| self.expr(Ty::Int, d)).collect();
                format!("[{}]", items.join(", "))
            }
            3 => {
                let list = self.expr(Ty::ListInt, d);
                self.list_ops(list, Ty::Int, d)
            }
            4 => {
                let (list, elem) = self.any_list(d);
                self.macro_call(&list, elem, Ty::Int, d)
            }
            5 => format!("{}.flatten()", self.expr(Ty::ListAny, d)),
            _ => format!("{}.map(v, size(v))", self.expr(Ty::ListStr, d)),
        }
    }

    fn list_str(&mut self, d: u32) -> String {
        match self.rng.below(6) {
            0 => format!("{}.split({})", self.expr(Ty::Str, d), self.expr(Ty::Str, d)),
            1 => {
                let (list, elem) = self.any_list(d);
                self.macro_call(&list, elem, Ty::Str, d)
            }
            2 => {
                let list = self.expr(Ty::ListStr, d);
                self.list_ops(list, Ty::Str, d)
            }
            3 if !self.kubernetes => format!(
                "regex.extractAll({}, {})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d)
            ),
            3 => format!(
                "{}.findAll({})",
                self.expr(Ty::Str, d),
                self.expr(Ty::Str, d)
            ),
            4 => format!(
                "lists.range({}).map(i, {})",
                self.expr(Ty::Int, d),
                self.leaf(Ty::Str)
            ),
            _ => {
                let n = self.rng.below(4);
                let items: Vec<String> = (0..n).map(|_| self.expr(Ty::Str, d)).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }

    fn list_any(&mut self, d: u32) -> String {
        match self.rng.below(8) {
            0 | 1 => {
                let ty = *self
                    .rng
                    .pick(&[Ty::ListInt, Ty::ListStr, Ty::ListAny, Ty::Map]);
                let e = self.expr(ty, d);
                format!("[{}]", self.doubled_list(e))
            }
            2 => {
                let (list, elem) = self.any_list(d);
                let ty = *self.rng.pick(&[Ty::ListInt, Ty::ListAny, Ty::Map]);
                self.macro_call(&list, elem, ty, d)
            }
            3 => {
                let list = self.expr(Ty::ListAny, d);
                self.list_ops(list, Ty::Any, d)
            }
            4 => format!(
                "{}.flatten({})",
                self.expr(Ty::ListAny, d),
                self.expr(Ty::Int, d)
            ),
            5 => {
                let (v, b) = self.with_var(Ty::Int, Ty::ListInt, d);
                format!("lists.range({}).map({v}, {b})", self.expr(Ty::Int, d))
            }
            6 => {
                let n = self.rng.below(4);
                let ty = *self.rng.pick(&[Ty::ListInt, Ty::ListAny, Ty::Map]);
                let items: Vec<String> = (0..n).map(|_| self.expr(ty, d)).collect();
                format!("[{}]", items.join(", "))
            }
            _ => {
                let (v, b) = self.with_var(Ty::ListAny, Ty::ListAny, d);
                let e = self.expr(Ty::ListAny, d);
                self.bind(&v, &e, &format!("[{v}, {v}] + {b}"))
            }
        }
    }

    fn map(&mut self, d: u32) -> String {
        match self.rng.below(4) {
            0 => {
                let n = self.rng.below(3);
                let entries: Vec<String> = (0..n)
                    .map(|i| {
                        format!(
                            "'{}': {}",
                            ["a", "b", "c"][i as usize],
                            self.expr(Ty::Any, d)
                        )
                    })
                    .collect();
                format!("{{{}}}", entries.join(", "))
            }
            1 => {
                // A map holding one map twice, doubled `n` times.
                let mut out = self.expr(Ty::Map, d);
                for _ in 0..1 + self.rng.below(30) {
                    let m = self.fresh();
                    out = format!("[{out}].map({m}, {{'a': {m}, 'b': {m}}})[0]");
                }
                out
            }
            2 => {
                let (v, b) = self.with_var(Ty::Map, Ty::Any, d);
                let e = self.expr(Ty::Map, d);
                self.bind(&v, &e, &format!("{{'x': {v}, 'y': {b}}}"))
            }
            _ => format!("{}[{}]", self.expr(Ty::ListAny, d), self.expr(Ty::Int, d)),
        }
    }
}

/// The indexes of the controls: expressions that must fail without a memory budget (see
/// [`controls`]).
const ABORT_CONTROL: u64 = u64::MAX - 1;
const HANG_CONTROL: u64 = u64::MAX - 2;

/// Expression `index` of `seed` (or a control).
fn expression(seed: u64, index: u64, which: Which) -> String {
    match index {
        // The first reproducer: 10^10 characters.
        ABORT_CONTROL => {
            let x = x100();
            return format!(
                "{x}.replace('x', {x}).replace('x', {x}).replace('x', {x}).replace('x', {x}).size()"
            );
        }
        // A list doubled 40 times compared with itself: 2^41 steps.
        HANG_CONTROL => {
            let mut e = "[1, 1]".to_string();
            for _ in 0..40 {
                e = format!("[{e}].map(a, [a, a])[0]");
            }
            return format!("{e} == {e}");
        }
        _ => {}
    }
    let mut g = Gen::new(seed, index, which);
    let depth = 2 + g.rng.below(4) as u32;
    let ty = *g.rng.pick(&CONCRETE);
    g.expr(ty, depth)
}

// ---------------------------------------------------------------------------------------
// The child

/// The variable `x` of every expression: a small document.
fn document() -> Value {
    Value::from(&serde_json::json!({
        "a": 1, "b": "two", "n": 100000, "s": ["p", "q"],
        "items": [[1, 2], [3]], "m": {"a": {"b": "c"}, "k": 7}
    }))
}

/// Evaluates expressions `start..end` of `seed` in `which`, announcing each (`begin I`)
/// before evaluating it and reporting its outcome (`end I OUTCOME`) after.
fn child(which: Which, seed: u64, start: u64, end: u64) {
    limit_address_space();
    let (mut env, mut options) = env(which);
    if start >= HANG_CONTROL {
        options = options.with_memory_limit(None);
    }
    env.declare("x", Type::Dyn);
    let bindings = std::collections::HashMap::from([("x".to_string(), document())]);
    let show = std::env::var_os("KCEL_FUZZ_SHOW").is_some();
    let mut out = std::io::stdout().lock();
    for i in start..end {
        let src = expression(seed, i, which);
        let _ = writeln!(out, "begin {i}");
        let _ = out.flush();
        let started = cpu_time();
        let outcome = match env.compile(&src) {
            Err(_) => "compile-error".to_string(),
            Ok(ast) => match env.program_with(&ast, options.clone()) {
                Err(_) => "compile-error".to_string(),
                Ok(program) => match program.eval(&bindings) {
                    Ok(v) => {
                        // Rendered as the front ends render results, when not too large.
                        if !kcel::library::budget::text_exceeds(&v, MAX_SHOWN) {
                            let _ = v.to_string();
                            let _ = serde_json::to_string(&kcel::Natural(&v));
                        }
                        "value".to_string()
                    }
                    Err(e) if show => format!("error {}: {e}", kind(&e.to_string())),
                    Err(e) => format!("error {}", kind(&e.to_string())),
                },
            },
        };
        let _ = writeln!(
            out,
            "end {i} {} {} {outcome}",
            cpu_time().saturating_sub(started).as_micros(),
            peak_rss_mib()
        );
        let _ = out.flush();
    }
}

/// The CPU time the process has used (Linux: `CLOCK_PROCESS_CPUTIME_ID`): the bound is
/// on CPU time, so that a loaded machine does not turn a slow expression into a failure.
#[cfg(unix)]
fn cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec passed by reference and nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Elsewhere, wall-clock time since the first call.
#[cfg(not(unix))]
fn cpu_time() -> Duration {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

/// The class of an evaluation error, for the summary.
fn kind(message: &str) -> String {
    for known in [
        "actual cost limit exceeded",
        "memory limit exceeded",
        "value traversal limit exceeded",
    ] {
        if message.contains(known) {
            return known.replace(' ', "-");
        }
    }
    "other".to_string()
}

// ---------------------------------------------------------------------------------------
// The parent

struct Settings {
    cases: u64,
    seed: u64,
    only: Option<u64>,
    envs: Vec<Which>,
    show: bool,
}

fn settings() -> Settings {
    let number = |name: &str| {
        std::env::var(name).ok().map(|v| {
            v.parse::<u64>()
                .unwrap_or_else(|_| panic!("{name} must be a whole number, not {v:?}"))
        })
    };
    Settings {
        cases: number("KCEL_FUZZ_CASES").unwrap_or(CI_CASES),
        seed: number("KCEL_FUZZ_SEED").unwrap_or(DEFAULT_SEED),
        only: number("KCEL_FUZZ_ONLY"),
        envs: match std::env::var("KCEL_FUZZ_ENV").as_deref() {
            Ok("k") => vec![Which::Kubernetes],
            Ok("p") => vec![Which::Plain],
            _ => Which::ALL.to_vec(),
        },
        show: std::env::var_os("KCEL_FUZZ_SHOW").is_some(),
    }
}

/// A running child and the lines it writes.
struct Running {
    process: Child,
    lines: Receiver<String>,
}

fn spawn(which: Which, seed: u64, start: u64, end: u64) -> Running {
    let exe = std::env::current_exe().expect("test binary");
    let mut process = Command::new(exe)
        .env(
            "KCEL_FUZZ_CHILD",
            format!("{}:{seed}:{start}:{end}", which.tag()),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns the child");
    let stdout = process.stdout.take().expect("piped");
    let (send, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    Running { process, lines }
}

/// The last lines of a finished child's stderr (a panic message, an allocation failure).
fn stderr_tail(process: &mut Child) -> String {
    let mut text = String::new();
    if let Some(mut err) = process.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut err, &mut text);
    }
    let lines: Vec<&str> = text.lines().rev().take(3).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
}

struct Tally {
    outcomes: BTreeMap<String, u64>,
    failures: Vec<String>,
    slowest: (u128, u64),
    peak_mib: u64,
}

/// Runs expressions `indexes` of the seed in `which`, a child at a time.
fn run(
    which: Which,
    s: &Settings,
    indexes: std::ops::Range<u64>,
    (limit, wall): (Duration, Duration),
    tally: &mut Tally,
) {
    let mut next = indexes.start;
    while next < indexes.end {
        let end = next.saturating_add(PER_CHILD).min(indexes.end);
        let mut child = spawn(which, s.seed, next, end);
        let mut current: Option<u64> = None;
        let mut deadline = Instant::now() + wall * 5; // the child's start-up
        let failure = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match child.lines.recv_timeout(left) {
                Ok(line) => {
                    let mut words = line.splitn(5, ' ');
                    match (
                        words.next(),
                        words.next().and_then(|i| i.parse::<u64>().ok()),
                    ) {
                        (Some("begin"), Some(i)) => {
                            current = Some(i);
                            deadline = Instant::now() + wall;
                        }
                        (Some("end"), Some(i)) => {
                            let micros: u128 =
                                words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
                            if micros > limit.as_micros() {
                                tally.failures.push(failure(
                                    which,
                                    s.seed,
                                    i,
                                    &format!("took {micros} µs of CPU time, over {limit:?}"),
                                ));
                            }
                            let peak: u64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
                            let outcome = words.next().unwrap_or("").to_string();
                            if s.show {
                                println!(
                                    "[{}] #{i} {outcome} ({micros} µs): {}",
                                    which.tag(),
                                    expression(s.seed, i, which)
                                );
                            }
                            *tally.outcomes.entry(outcome).or_default() += 1;
                            if micros > tally.slowest.0 {
                                tally.slowest = (micros, i);
                            }
                            tally.peak_mib = tally.peak_mib.max(peak);
                            current = None;
                            next = i + 1;
                            deadline = Instant::now() + wall;
                        }
                        _ => {}
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    let _ = child.process.kill();
                    let _ = child.process.wait();
                    break Some(format!("no answer within {wall:?}"));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = child.process.wait().expect("waits");
                    if status.success() && current.is_none() {
                        break None;
                    }
                    break Some(format!("{status}: {}", stderr_tail(&mut child.process)));
                }
            }
        };
        if let Some(why) = failure {
            let i = current.unwrap_or(next);
            tally.failures.push(self::failure(which, s.seed, i, &why));
            next = i + 1;
        }
    }
}

/// The report of a failed expression: what happened, the expression, how to repeat it.
fn failure(which: Which, seed: u64, i: u64, why: &str) -> String {
    format!(
        "FAIL [{}] expression #{i} of seed {seed}: {why}\n  expression: {}\n  repeat with: \
         KCEL_FUZZ_SEED={seed} KCEL_FUZZ_ONLY={i} KCEL_FUZZ_ENV={} cargo test --test expression_fuzz",
        which.tag(),
        expression(seed, i, which),
        which.tag()
    )
}

/// The controls: without a memory budget, the first reproducer must fail (abort
/// under the address-space limit, or pass the wall bound on a slow machine) and a doubled
/// list compared with itself must pass a wall bound of one second — each reported as a
/// failure, or the harness could not see one.
fn controls(s: &Settings, limit: Duration) {
    let one = Duration::from_secs(1);
    for (index, what, bounds) in [
        (ABORT_CONTROL, "abort", (limit, limit * WALL_FACTOR)),
        (HANG_CONTROL, "hang", (one, one)),
    ] {
        let mut tally = Tally {
            outcomes: BTreeMap::new(),
            failures: Vec::new(),
            slowest: (0, 0),
            peak_mib: 0,
        };
        run(Which::Kubernetes, s, index..index + 1, bounds, &mut tally);
        assert_eq!(
            tally.failures.len(),
            1,
            "the {what} control (no memory budget) was not caught: {:?}",
            tally.outcomes
        );
        let why = tally.failures[0].lines().next().unwrap_or("");
        let why = why.split_once(" of seed ").map_or(why, |(_, w)| w);
        let why = why.split_once(": ").map_or(why, |(_, w)| w);
        println!("control ({what}, no memory budget): caught ({why})");
    }
}

fn main() {
    if let Ok(spec) = std::env::var("KCEL_FUZZ_CHILD") {
        let parts: Vec<&str> = spec.split(':').collect();
        let n = |i: usize| {
            parts[i]
                .parse::<u64>()
                .expect("KCEL_FUZZ_CHILD=TAG:SEED:START:END")
        };
        child(Which::from_tag(parts[0]), n(1), n(2), n(3));
        return;
    }
    let s = settings();
    let limit = if cfg!(debug_assertions) {
        CPU_LIMIT * 10
    } else {
        CPU_LIMIT
    };
    controls(&s, limit);
    let indexes = match s.only {
        Some(i) => i..i + 1,
        None => 0..s.cases,
    };
    let started = Instant::now();
    let mut failed = 0;
    let mut evaluated = 0;
    for &which in &s.envs {
        let mut tally = Tally {
            outcomes: BTreeMap::new(),
            failures: Vec::new(),
            slowest: (0, 0),
            peak_mib: 0,
        };
        run(
            which,
            &s,
            indexes.clone(),
            (limit, limit * WALL_FACTOR),
            &mut tally,
        );
        for failure in &tally.failures {
            println!("{failure}");
        }
        let total: u64 = tally.outcomes.values().sum();
        evaluated += total;
        failed += tally.failures.len();
        let shown: Vec<String> = tally
            .outcomes
            .iter()
            .map(|(k, n)| format!("{k}: {n}"))
            .collect();
        println!(
            "[{}] {total} expressions ended ({}); slowest #{} in {:.1} ms; peak RSS {} MiB; {} failed",
            which.tag(),
            shown.join(", "),
            tally.slowest.1,
            tally.slowest.0 as f64 / 1000.0,
            tally.peak_mib,
            tally.failures.len()
        );
    }
    println!(
        "expression fuzz (seed {}): {evaluated} passed, {failed} failed, in {:.1?}",
        s.seed,
        started.elapsed()
    );
    if failed > 0 {
        std::process::exit(1);
    }
}
