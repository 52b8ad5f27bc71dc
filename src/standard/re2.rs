//! RE2 (Go `regexp`) patterns on the `regex` crate.
//!
//! [`compile`] reads the pattern as Go's parser does (`regexp/syntax/parse.go`, Perl flags),
//! reporting Go's errors with Go's texts and fragments, and writes an equivalent pattern for
//! the crate, so that the crate never decides what is valid where the dialects differ.
//! Patterns the crate accepts but RE2 rejects (each tested below):
//!
//! * stacked repetition operators (`a**`, `x++`, `a*{2}`, `a{2}*`): "invalid nested
//!   repetition operator";
//! * repeat counts over 1000, alone or multiplied through nested repetitions (`a{1001}`,
//!   `(a{500}){3}`): "invalid repeat count";
//! * flags other than `i`, `m`, `s`, `U` (`(?x)`, `(?u)`, `(?R)`), and `(?'name'...)`:
//!   "invalid or unsupported Perl syntax";
//! * group names with characters other than ASCII letters, digits and `_` (`(?P<a.b>x)`,
//!   `(?<a[0]>x)`): "invalid named capture";
//! * the crate's escapes `\u0041`, `\u{41}`, `\U0001F600`, `\e`, `\b{start}`-style
//!   assertions' `\b` in a class, `\A`/`\z`/`\Q` in a class, `\C`: "invalid escape sequence";
//! * a range ending in a Perl class (`[a-\d]`): "invalid escape sequence".
//!
//! And the reverse — text Go reads as literal that the crate reads otherwise or rejects:
//! a `{` that does not start `{n}`, `{n,}` or `{n,m}` (`a{,3}`, `a{01}`, `a{x}`, `a{`), `[`,
//! `&&` and `~~` inside a class, `\<` and `\>`, `]` and `}` outside one; duplicate group
//! names (Go accepts them; groups are written unnamed since CEL reads groups by index);
//! `(?)`. The semantics differences are rewritten too: Go's `\d \w \s \b` (and negations)
//! are ASCII-only where the crate's are Unicode, and Go supports `\Q...\E` and octal
//! escapes. Unicode class names (`\p{Greek}`) are read as Go 1.25's `unicodeTable` reads
//! them (see `unicode_class`) and written in the crate's explicit `gc=`/`sc=` forms, so
//! that the crate's wider set of names (script codes, binary properties, `sc=` forms) is
//! not accepted.

use regex::{Regex, RegexBuilder};

use crate::error::EvalError;

/// What compiling a pattern is counted as against an evaluation's memory budget, per byte
/// of the pattern (the parser's syntax tree, the compiled program): a pattern built at run
/// time (`s.matches(p)`, `regex.replace`, `find`) of megabytes would take hundreds of
/// megabytes to compile.
const COMPILE_BYTES_PER_PATTERN_BYTE: u64 = 64;

/// Compiles a RE2 pattern with Go's syntax, semantics and error texts.
///
/// Go's limits on the parse tree are checked here, with Go's texts (`expression nests too
/// deeply`, `expression too large`). The crate's own compiled-size limit (10 MiB) stays: a
/// pattern Go accepts that compiles larger in the crate (`\pL{1000}`: a large Unicode class
/// repeated) fails with Go's `expression too large`, a bound on memory Go does not have.
pub fn compile(pattern: &str) -> Result<Regex, EvalError> {
    crate::budget::reserve((pattern.len() as u64).saturating_mul(COMPILE_BYTES_PER_PATTERN_BYTE))?;
    let (translated, height) = translate(pattern).map_err(|(code, expr)| {
        EvalError::new(format!("error parsing regexp: {code}: `{expr}`"))
    })?;
    build(translated, height).map_err(|(translated, e)| error(pattern, &translated, &e))
}

/// How deep a pattern may nest before the crate compiles it on a thread of its own: its
/// compiler recurses along the tree, and 1,000 levels need more than a 2 MiB stack.
#[cfg(not(target_arch = "wasm32"))]
const DEEP: u32 = 100;

/// The crate's nesting limit: a group and a repetition are a level each there, where Go's
/// tree has one node for `(?:x)*`, so up to twice Go's height.
const CRATE_NEST_LIMIT: u32 = 2 * MAX_HEIGHT + 10;

/// Builds the translated pattern, on a thread with a large stack when it nests deeper
/// than [`DEEP`] (where threads exist).
fn build(translated: String, height: u32) -> Result<Regex, (String, regex::Error)> {
    let build = |translated: String| {
        RegexBuilder::new(&translated)
            .nest_limit(CRATE_NEST_LIMIT)
            .build()
            .map_err(|e| (translated, e))
    };
    #[cfg(not(target_arch = "wasm32"))]
    if height > DEEP {
        let deep = translated.clone();
        let spawned = std::thread::Builder::new()
            .name("kcel-regex".into())
            .stack_size(256 << 20)
            .spawn(move || build(deep));
        if let Ok(Ok(built)) = spawned.map(std::thread::JoinHandle::join) {
            return built;
        }
    }
    #[cfg(target_arch = "wasm32")]
    let _ = height;
    build(translated)
}

/// The ASCII class for a Perl escape letter, as a bracketed class.
fn perl_class(c: char) -> Option<&'static str> {
    Some(match c {
        'd' => "[0-9]",
        'D' => "[^0-9]",
        'w' => "[0-9A-Za-z_]",
        'W' => "[^0-9A-Za-z_]",
        's' => "[\\t\\n\\x0C\\r ]",
        'S' => "[^\\t\\n\\x0C\\r ]",
        _ => return None,
    })
}

/// Go's POSIX class names (`posixGroup`), with and without `^`.
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// A Go parse error: its code (`ErrorCode`) and the fragment Go quotes.
type GoError = (&'static str, String);

const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_CHAR_RANGE: &str = "invalid character class range";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const NESTING_DEPTH: &str = "expression nests too deeply";
const LARGE: &str = "expression too large";

/// Go's largest repeat count, alone or as the product of nested counts (`maxRepeat`).
const MAX_REPEAT: u64 = 1000;

/// What Go's parse stack needs to be known for errors: per open group, whether an operand
/// is on top (something a repetition may apply to), the largest product of nested repeat
/// counts in it (`repeatIsValid`), and the shape of Go's parse tree for its size and height
/// limits (see [`Tree`]).
#[derive(Clone, Copy)]
struct Group {
    /// The repeat weight of the operand on top, if an operand is on top.
    top: Option<u64>,
    /// The largest repeat weight of any operand in the group so far.
    weight: u64,
    /// The operand on top (meaningful while `top` is set).
    top_tree: Tree,
    /// The operands of the current alternative before the one on top.
    items: Trees,
    /// The alternatives before the current one, each as its concatenation.
    alternatives: Trees,
    /// Whether the group captures (Go makes a capture node of it).
    capture: bool,
}

/// Go's `calcSize` and `calcHeight` of a parse tree node (`regexp/syntax/parse.go`), as
/// this translation sees the tree: without Go's merging of literals into strings and of
/// alternatives into classes, and without its factoring of alternations, so within a few
/// units of Go's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Tree {
    size: u64,
    height: u32,
}

impl Tree {
    /// A literal, a class, `.`, an assertion or an empty match.
    const LEAF: Tree = Tree { size: 1, height: 1 };

    /// The node of a repetition of this one: `*` (and a capture) 2 + sub, `+` and `?`
    /// 1 + sub, `{min,max}` max × sub + (max - min), `{min,}` 1 + min × sub (2 + sub for
    /// `{0,}`); at least 1.
    fn repeated(self, op: char, counts: Option<(i64, i64)>) -> Tree {
        let sub = self.size;
        let size = match (op, counts) {
            ('*', _) => sub.saturating_add(2),
            ('+' | '?', _) => sub.saturating_add(1),
            (_, Some((0, -1))) => sub.saturating_add(2),
            (_, Some((min, -1))) => (min as u64).saturating_mul(sub).saturating_add(1),
            (_, Some((min, max))) => (max as u64)
                .saturating_mul(sub)
                .saturating_add((max - min) as u64),
            _ => sub,
        };
        Tree {
            size: size.max(1),
            height: self.height.saturating_add(1),
        }
    }
}

/// Several nodes under one: their sizes summed, their largest height, their number.
#[derive(Clone, Copy)]
struct Trees {
    size: u64,
    height: u32,
    count: u32,
}

impl Trees {
    const NONE: Trees = Trees {
        size: 0,
        height: 0,
        count: 0,
    };

    fn add(&mut self, tree: Tree) {
        self.size = self.size.saturating_add(tree.size);
        self.height = self.height.max(tree.height);
        self.count = self.count.saturating_add(1);
    }

    /// The concatenation of the nodes: an empty match for none, the node for one.
    fn concatenation(self) -> Tree {
        match self.count {
            0 => Tree::LEAF,
            1 => Tree {
                size: self.size,
                height: self.height,
            },
            _ => Tree {
                size: self.size,
                height: self.height.saturating_add(1),
            },
        }
    }
}

impl Group {
    const EMPTY: Group = Group {
        top: None,
        weight: 1,
        top_tree: Tree::LEAF,
        items: Trees::NONE,
        alternatives: Trees::NONE,
        capture: false,
    };
    const CAPTURE: Group = Group {
        capture: true,
        ..Group::EMPTY
    };

    fn push(&mut self, weight: u64) {
        self.push_tree(weight, Tree::LEAF);
    }

    fn push_tree(&mut self, weight: u64, tree: Tree) {
        if self.top.is_some() {
            self.items.add(self.top_tree);
        }
        self.top = Some(weight);
        self.top_tree = tree;
        self.weight = self.weight.max(weight);
    }

    /// Ends the current alternative at a `|`.
    fn alternate(&mut self) {
        let mut items = self.items;
        if self.top.take().is_some() {
            items.add(self.top_tree);
        }
        self.alternatives.add(items.concatenation());
        self.items = Trees::NONE;
    }

    /// The group's node once closed: the alternation of its alternatives (Go's `calcSize`
    /// adds one per `|`), in a capture node if it captures.
    fn tree(mut self) -> Tree {
        self.alternate();
        let a = self.alternatives;
        let mut tree = match a.count {
            1 => a.concatenation(),
            n => Tree {
                size: a.size.saturating_add(u64::from(n) - 1),
                height: a.height.saturating_add(1),
            },
        };
        if self.capture {
            tree = Tree {
                size: tree.size.saturating_add(2),
                height: tree.height.saturating_add(1),
            };
        }
        tree
    }
}

/// Go's largest parse tree height (`maxHeight`).
const MAX_HEIGHT: u32 = 1000;
/// Go's largest compiled size, in instructions (`maxSize`: 128 MiB of 40-byte `Inst`s).
const MAX_SIZE: u64 = (128 << 20) / 40;

/// Reads a Go pattern as `regexp/syntax.Parse(s, Perl)` does and writes the equivalent
/// pattern in the crate's syntax, or returns Go's first error.
fn translate(pattern: &str) -> Result<(String, u32), GoError> {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut groups = vec![Group::EMPTY];
    // The text from the previous token, if that token was a repetition operator.
    let mut last_repeat: Option<&str> = None;
    let mut t = pattern;
    while let Some(c) = t.chars().next() {
        let mut repeat = None;
        let group = groups.last_mut().expect("the outermost group stays");
        match c {
            '(' if t.starts_with("(?") => {
                t = perl_flags(t, &mut out, &mut groups)?;
            }
            '(' => {
                out.push('(');
                groups.push(Group::CAPTURE);
                t = &t[1..];
            }
            '|' => {
                out.push('|');
                group.alternate();
                t = &t[1..];
            }
            ')' => {
                if groups.len() < 2 {
                    return Err((UNEXPECTED_PAREN, pattern.into()));
                }
                let inner = groups.pop().expect("checked");
                out.push(')');
                groups
                    .last_mut()
                    .expect("the outermost group stays")
                    .push_tree(inner.weight, inner.tree());
                t = &t[1..];
            }
            '^' | '$' | '.' => {
                out.push(c);
                group.push(1);
                t = &t[1..];
            }
            '[' => {
                t = class(t, &mut out)?;
                group.push(1);
            }
            '*' | '+' | '?' => {
                let before = t;
                let mut after = &t[1..];
                out.push(c);
                if let Some(rest) = after.strip_prefix('?') {
                    after = rest;
                    out.push('?');
                }
                apply_repeat(group, before, after, last_repeat, None)?;
                repeat = Some(before);
                t = after;
            }
            '{' => match parse_repeat(t) {
                None => {
                    // Not a repetition: a literal `{`.
                    out.push_str("\\{");
                    group.push(1);
                    t = &t[1..];
                }
                Some((min, max, after)) => {
                    let before = t;
                    let counted = &before[..before.len() - after.len()];
                    let too_big = |n: i64| n > MAX_REPEAT as i64;
                    if min < 0 || too_big(min) || too_big(max) || max >= 0 && min > max {
                        return Err((INVALID_REPEAT_SIZE, counted.into()));
                    }
                    let mut after = after;
                    match max {
                        -1 => out.push_str(&format!("{{{min},}}")),
                        _ if max == min => out.push_str(&format!("{{{min}}}")),
                        _ => out.push_str(&format!("{{{min},{max}}}")),
                    }
                    if let Some(rest) = after.strip_prefix('?') {
                        after = rest;
                        out.push('?');
                    }
                    apply_repeat(group, before, after, last_repeat, Some((min, max)))?;
                    repeat = Some(before);
                    t = after;
                }
            },
            '\\' => {
                t = escape_outside_class(t, &mut out, group)?;
            }
            c => {
                out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                group.push(1);
                t = &t[c.len_utf8()..];
            }
        }
        last_repeat = repeat;
    }
    if groups.len() > 1 {
        return Err((MISSING_PAREN, pattern.into()));
    }
    // Go's limits on the parse tree (`checkHeight`, `checkSize`), which it reports with the
    // whole pattern.
    let tree = groups[0].tree();
    if tree.height > MAX_HEIGHT {
        return Err((NESTING_DEPTH, pattern.into()));
    }
    if tree.size > MAX_SIZE {
        return Err((LARGE, pattern.into()));
    }
    Ok((out, tree.height))
}

/// Go's `parser.repeat`: a repetition needs an operand and may not follow another one; a
/// counted one may not make the product of nested counts exceed 1000.
fn apply_repeat(
    group: &mut Group,
    before: &str,
    after: &str,
    last_repeat: Option<&str>,
    counts: Option<(i64, i64)>,
) -> Result<(), GoError> {
    if let Some(last) = last_repeat {
        return Err((INVALID_REPEAT_OP, last[..last.len() - after.len()].into()));
    }
    let Some(sub) = group.top else {
        return Err((
            MISSING_REPEAT_ARGUMENT,
            before[..before.len() - after.len()].into(),
        ));
    };
    let weight = match counts {
        None => sub,
        Some((min, max)) => {
            let m = if max < 0 { min } else { max } as u64;
            if m == 0 {
                1
            } else {
                let weight = m.saturating_mul(sub);
                if (min >= 2 || max >= 2) && weight > MAX_REPEAT {
                    return Err((
                        INVALID_REPEAT_SIZE,
                        before[..before.len() - after.len()].into(),
                    ));
                }
                weight
            }
        }
    };
    group.weight = group.weight.max(weight);
    group.top = Some(weight);
    let op = before.chars().next().unwrap_or('{');
    group.top_tree = group.top_tree.repeated(op, counts);
    Ok(())
}

/// Go's `parseRepeat`: `{n}`, `{n,}` (max -1) or `{n,m}` at the start of `s` (no leading
/// zeros), with the text after it; `None` where `{` is literal. A number of 10^8 or more
/// makes min -1 (an invalid count).
fn parse_repeat(s: &str) -> Option<(i64, i64, &str)> {
    let s = s.strip_prefix('{')?;
    let (min, s) = parse_int(s)?;
    let (max, s) = match s.strip_prefix(',') {
        None => (min, s),
        Some(rest) if rest.starts_with('}') => (-1, rest),
        Some(rest) => parse_int(rest)?,
    };
    let rest = s.strip_prefix('}')?;
    let too_big = min == TOO_BIG || max == TOO_BIG;
    Some((if too_big { -1 } else { min }, max, rest))
}

/// What [`parse_int`] gives for a number of 10^8 or more.
const TOO_BIG: i64 = -2;

/// Go's `parseInt`: decimal digits without a leading zero (unless alone); [`TOO_BIG`] for
/// a number of 10^8 or more.
fn parse_int(s: &str) -> Option<(i64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n >= 2 && s.starts_with('0') {
        return None;
    }
    let value = s[..n]
        .bytes()
        .try_fold(0i64, |acc, d| {
            (acc < 100_000_000).then(|| acc * 10 + i64::from(d - b'0'))
        })
        .unwrap_or(TOO_BIG);
    Some((value, &s[n..]))
}

/// Go's `parsePerlFlags` for `s` starting with `(?`: a named group (written unnamed), or
/// flags `i`, `m`, `s`, `U` with an optional `-` part, ending in `)` or `:`.
fn perl_flags<'a>(
    s: &'a str,
    out: &mut String,
    groups: &mut Vec<Group>,
) -> Result<&'a str, GoError> {
    let t = s;
    let named = if t.len() > 4 && t[2..].starts_with("P<") {
        Some(4)
    } else if t.len() > 3 && t[2..].starts_with('<') {
        Some(3)
    } else {
        None
    };
    if let Some(start) = named {
        let Some(end) = t.find('>') else {
            return Err((INVALID_NAMED_CAPTURE, s.into()));
        };
        let name = &t[start..end];
        if name.is_empty() || !name.bytes().all(|c| c == b'_' || c.is_ascii_alphanumeric()) {
            return Err((INVALID_NAMED_CAPTURE, t[..=end].into()));
        }
        out.push('(');
        groups.push(Group::CAPTURE);
        return Ok(&t[end + 1..]);
    }
    let mut rest = &t[2..];
    let mut negated = false;
    let mut saw_flag = false;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            'i' | 'm' | 's' | 'U' => saw_flag = true,
            '-' if !negated => {
                negated = true;
                saw_flag = false;
            }
            ':' | ')' if !negated || saw_flag => {
                let flags = &t[2..t.len() - rest.len() - 1];
                if c == ':' {
                    out.push_str("(?");
                    out.push_str(flags);
                    out.push(':');
                    groups.push(Group::EMPTY);
                } else if !flags.is_empty() {
                    out.push_str("(?");
                    out.push_str(flags);
                    out.push(')');
                }
                return Ok(rest);
            }
            _ => break,
        }
    }
    Err((INVALID_PERL_OP, s[..s.len() - rest.len()].into()))
}

/// An escape outside a class: Go's `\A \b \B \z \Q...\E` (and `\C`, unsupported), a
/// Unicode class, a Perl class, or an escaped character.
fn escape_outside_class<'a>(
    t: &'a str,
    out: &mut String,
    group: &mut Group,
) -> Result<&'a str, GoError> {
    let mut chars = t[1..].chars();
    match chars.next() {
        Some('A') => out.push_str("\\A"),
        Some('z') => out.push_str("\\z"),
        Some('b') => out.push_str("(?-u:\\b)"),
        Some('B') => out.push_str("(?-u:\\B)"),
        Some('C') => return Err((INVALID_ESCAPE, t[..2].into())),
        Some('Q') => {
            let (literal, rest) = t[2..].split_once("\\E").unwrap_or((&t[2..], ""));
            for c in literal.chars() {
                out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                group.push(1);
            }
            return Ok(rest);
        }
        _ => {
            let rest = class_escape(t, out)?;
            group.push(1);
            return Ok(rest);
        }
    }
    // Assertions are operands too (Go pushes an op).
    group.push(1);
    Ok(&t[2..])
}

/// A Unicode class (`\pL`, `\p{Greek}`, written as is), a Perl class (written as an ASCII
/// class) or an escaped character (Go's `parseEscape`), at the start of `t` (a backslash).
fn class_escape<'a>(t: &'a str, out: &mut String) -> Result<&'a str, GoError> {
    let mut chars = t[1..].chars();
    let Some(c) = chars.next() else {
        return Err((TRAILING_BACKSLASH, String::new()));
    };
    if c == 'p' || c == 'P' {
        let rest = &t[2..];
        let (seq, mut name) = match rest.chars().next() {
            // Go reads an empty name, which names no class.
            None => return Err((INVALID_CHAR_RANGE, t.into())),
            Some('{') => match t.find('}') {
                Some(end) => (&t[..end + 1], &t[3..end]),
                None => return Err((INVALID_CHAR_RANGE, t.into())),
            },
            Some(n) => (&t[..2 + n.len_utf8()], &t[2..2 + n.len_utf8()]),
        };
        // `\p{^Greek}` is `\P{Greek}`, `\P{^Greek}` is `\p{Greek}`.
        let mut positive = c == 'p';
        if let Some(negated) = name.strip_prefix('^') {
            positive = !positive;
            name = negated;
        }
        let Some((class, sign)) = unicode_class(name) else {
            return Err((INVALID_CHAR_RANGE, seq.into()));
        };
        let positive = positive == sign;
        match class.as_str() {
            // Go's `C` is `Cc`, `Cf`, `Co` and `Cs`, without the unassigned code points the
            // crate's `C` has; `Cs` (surrogates) matches nothing in valid UTF-8, and the
            // crate rejects it.
            "gc=C" => out.push_str(if positive {
                "[\\p{Cc}\\p{Cf}\\p{Co}]"
            } else {
                "[^\\p{Cc}\\p{Cf}\\p{Co}]"
            }),
            "gc=Cs" => out.push_str(if positive {
                "[^\\x{0}-\\x{10FFFF}]"
            } else {
                "[\\x{0}-\\x{10FFFF}]"
            }),
            _ => {
                out.push_str(if positive { "\\p{" } else { "\\P{" });
                out.push_str(&class);
                out.push('}');
            }
        }
        return Ok(&t[seq.len()..]);
    }
    if let Some(class) = perl_class(c) {
        out.push_str(class);
        return Ok(&t[2..]);
    }
    let (r, rest) = go_escape(t)?;
    push_char(out, r);
    Ok(rest)
}

/// The class a Unicode class name names as Go's `regexp/syntax` `unicodeTable` looks it up
/// (Go 1.25 and later): the name made canonical (`canonicalName`: a leading capital, the
/// rest in lower case, without `_`, `-` and spaces), then `Any`, `Assigned` (everything
/// but `Cn`), `ASCII` and `LC`, the general categories of `unicode.Categories`, the
/// scripts of `unicode.Scripts` (keyed by their Unicode names, so that only the one-word
/// ones match a canonical name), and the category aliases of `unicode.CategoryAliases`
/// (`Letter`, `Decimal_Number`, ...). The class in the crate's syntax and whether it is
/// positive; `None` for a name Go rejects (Script codes like `Latn`, properties like
/// `Alphabetic`, `sc=` forms). Go's tables are Unicode 15.0.0, the crate's a later
/// version: the names are Go's, the code points in a class the crate's.
fn unicode_class(name: &str) -> Option<(String, bool)> {
    let name = go_canonical_name(name);
    match name.as_str() {
        "Any" => return Some(("Any".into(), true)),
        "Assigned" => return Some(("gc=Cn".into(), false)),
        "Ascii" => return Some(("ASCII".into(), true)),
        "Lc" => return Some(("gc=LC".into(), true)),
        _ => {}
    }
    if GO_CATEGORIES.contains(&name.as_str()) {
        return Some((format!("gc={name}"), true));
    }
    if GO_SCRIPTS.contains(&name.as_str()) {
        return Some((format!("sc={name}"), true));
    }
    GO_CATEGORY_ALIASES
        .iter()
        .find(|(alias, _)| go_canonical_name(alias) == name)
        .map(|(_, category)| (format!("gc={category}"), true))
}

/// Go's `regexp/syntax` `canonicalName`: the first letter upper case, the others lower case
/// (ASCII only), `_`, `-` and spaces dropped.
fn go_canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for c in name.chars() {
        match c {
            '_' | '-' | ' ' => {}
            c if first => {
                out.push(c.to_ascii_uppercase());
                first = false;
            }
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// The keys of Go's `unicode.Categories` (Go 1.25: with `Cn` and `LC`).
const GO_CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "LC", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me",
    "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk",
    "Sm", "So", "Z", "Zl", "Zp", "Zs",
];

/// Go's `unicode.CategoryAliases` (Go 1.25): Unicode's long names of the general categories
/// and their other aliases (`PropertyValueAliases.txt`, `gc`).
const GO_CATEGORY_ALIASES: &[(&str, &str)] = &[
    ("Cased_Letter", "LC"),
    ("Close_Punctuation", "Pe"),
    ("Combining_Mark", "M"),
    ("Connector_Punctuation", "Pc"),
    ("Control", "Cc"),
    ("Currency_Symbol", "Sc"),
    ("Dash_Punctuation", "Pd"),
    ("Decimal_Number", "Nd"),
    ("Enclosing_Mark", "Me"),
    ("Final_Punctuation", "Pf"),
    ("Format", "Cf"),
    ("Initial_Punctuation", "Pi"),
    ("Letter", "L"),
    ("Letter_Number", "Nl"),
    ("Line_Separator", "Zl"),
    ("Lowercase_Letter", "Ll"),
    ("Mark", "M"),
    ("Math_Symbol", "Sm"),
    ("Modifier_Letter", "Lm"),
    ("Modifier_Symbol", "Sk"),
    ("Nonspacing_Mark", "Mn"),
    ("Number", "N"),
    ("Open_Punctuation", "Ps"),
    ("Other", "C"),
    ("Other_Letter", "Lo"),
    ("Other_Number", "No"),
    ("Other_Punctuation", "Po"),
    ("Other_Symbol", "So"),
    ("Paragraph_Separator", "Zp"),
    ("Private_Use", "Co"),
    ("Punctuation", "P"),
    ("Separator", "Z"),
    ("Space_Separator", "Zs"),
    ("Spacing_Mark", "Mc"),
    ("Surrogate", "Cs"),
    ("Symbol", "S"),
    ("Titlecase_Letter", "Lt"),
    ("Unassigned", "Cn"),
    ("Uppercase_Letter", "Lu"),
    ("cntrl", "Cc"),
    ("digit", "Nd"),
    ("punct", "P"),
];

/// The keys of Go's `unicode.Scripts` (Unicode 15.0.0).
const GO_SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Anatolian_Hieroglyphs",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Bassa_Vah",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Canadian_Aboriginal",
    "Carian",
    "Caucasian_Albanian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cypro_Minoan",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dives_Akuru",
    "Dogra",
    "Duployan",
    "Egyptian_Hieroglyphs",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gunjala_Gondi",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanifi_Rohingya",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Imperial_Aramaic",
    "Inherited",
    "Inscriptional_Pahlavi",
    "Inscriptional_Parthian",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kayah_Li",
    "Kharoshthi",
    "Khitan_Small_Script",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Linear_A",
    "Linear_B",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Masaram_Gondi",
    "Medefaidrin",
    "Meetei_Mayek",
    "Mende_Kikakui",
    "Meroitic_Cursive",
    "Meroitic_Hieroglyphs",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nag_Mundari",
    "Nandinagari",
    "New_Tai_Lue",
    "Newa",
    "Nko",
    "Nushu",
    "Nyiakeng_Puachue_Hmong",
    "Ogham",
    "Ol_Chiki",
    "Old_Hungarian",
    "Old_Italic",
    "Old_North_Arabian",
    "Old_Permic",
    "Old_Persian",
    "Old_Sogdian",
    "Old_South_Arabian",
    "Old_Turkic",
    "Old_Uyghur",
    "Oriya",
    "Osage",
    "Osmanya",
    "Pahawh_Hmong",
    "Palmyrene",
    "Pau_Cin_Hau",
    "Phags_Pa",
    "Phoenician",
    "Psalter_Pahlavi",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "SignWriting",
    "Sinhala",
    "Sogdian",
    "Sora_Sompeng",
    "Soyombo",
    "Sundanese",
    "Syloti_Nagri",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Tai_Le",
    "Tai_Tham",
    "Tai_Viet",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Warang_Citi",
    "Yezidi",
    "Yi",
    "Zanabazar_Square",
];

/// Go's `parseEscape` for the escape at the start of `s`: the character and the rest.
fn go_escape(s: &str) -> Result<(char, &str), GoError> {
    let invalid = |rest: &str| (INVALID_ESCAPE, s[..s.len() - rest.len()].to_string());
    let mut t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err((TRAILING_BACKSLASH, String::new()));
    };
    t = &t[c.len_utf8()..];
    let octal = |b: Option<&u8>| b.is_some_and(|d| (b'0'..=b'7').contains(d));
    match c {
        _ if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, t)),
        '1'..='7' if !octal(t.as_bytes().first()) => Err(invalid(t)),
        '0'..='7' => {
            let mut value = c as u32 - '0' as u32;
            for _ in 1..3 {
                if !octal(t.as_bytes().first()) {
                    break;
                }
                value = value * 8 + u32::from(t.as_bytes()[0] - b'0');
                t = &t[1..];
            }
            Ok((char::from_u32(value).unwrap_or('\0'), t))
        }
        'x' => {
            let Some(first) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[first.len_utf8()..];
            if first == '{' {
                let mut value = 0u32;
                let mut digits = 0;
                loop {
                    let Some(d) = t.chars().next() else {
                        return Err(invalid(t));
                    };
                    t = &t[d.len_utf8()..];
                    if d == '}' {
                        break;
                    }
                    let Some(v) = d.to_digit(16) else {
                        return Err(invalid(t));
                    };
                    value = value * 16 + v;
                    if value > 0x10FFFF {
                        return Err(invalid(t));
                    }
                    digits += 1;
                }
                if digits == 0 {
                    return Err(invalid(t));
                }
                // Surrogates are not chars; Go reads them as U+FFFD when matching.
                return Ok((char::from_u32(value).unwrap_or('\u{FFFD}'), t));
            }
            let Some(second) = t.chars().next() else {
                return Err(invalid(t));
            };
            t = &t[second.len_utf8()..];
            match (first.to_digit(16), second.to_digit(16)) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\0'), t)),
                _ => Err(invalid(t)),
            }
        }
        'a' => Ok(('\x07', t)),
        'f' => Ok(('\x0C', t)),
        'n' => Ok(('\n', t)),
        'r' => Ok(('\r', t)),
        't' => Ok(('\t', t)),
        'v' => Ok(('\x0B', t)),
        _ => Err(invalid(t)),
    }
}

/// Writes a character as a literal in the crate's syntax (inside or outside a class).
fn push_char(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() && !c.is_whitespace() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:x}}}", c as u32));
    }
}

/// Go's `parseClass` for `s` starting with `[`: writes the class, returns the rest.
fn class<'a>(s: &'a str, out: &mut String) -> Result<&'a str, GoError> {
    let mut t = &s[1..];
    out.push('[');
    if let Some(rest) = t.strip_prefix('^') {
        out.push('^');
        t = rest;
    }
    let mut first = true;
    while !t.starts_with(']') || first {
        first = false;
        if t.len() > 2 && t.starts_with("[:") {
            if let Some(i) = t[2..].find(":]") {
                let name = &t[..i + 4];
                let bare = &name[2..name.len() - 2];
                if !POSIX_CLASSES.contains(&bare.strip_prefix('^').unwrap_or(bare)) {
                    return Err((INVALID_CHAR_RANGE, name.into()));
                }
                out.push_str(name);
                t = &t[name.len()..];
                continue;
            }
        }
        if t.starts_with("\\p") || t.starts_with("\\P") {
            t = class_escape(t, out)?;
            continue;
        }
        if let Some(class) = t
            .strip_prefix('\\')
            .and_then(|r| r.chars().next())
            .and_then(perl_class)
        {
            out.push_str(class);
            t = &t[2..];
            continue;
        }
        let range = t;
        let (lo, rest) = class_char(t, s)?;
        t = rest;
        let mut hi = lo;
        if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
            let (h, rest) = class_char(&t[1..], s)?;
            t = rest;
            hi = h;
            if hi < lo {
                return Err((INVALID_CHAR_RANGE, range[..range.len() - t.len()].into()));
            }
        }
        push_char(out, lo);
        if hi != lo {
            out.push('-');
            push_char(out, hi);
        }
    }
    out.push(']');
    Ok(&t[1..])
}

/// Go's `parseClassChar`: an escaped or plain character at the start of `s`; `whole` is the
/// class from its `[`, quoted when the class does not end.
fn class_char<'a>(s: &'a str, whole: &str) -> Result<(char, &'a str), GoError> {
    let Some(c) = s.chars().next() else {
        return Err((MISSING_BRACKET, whole.into()));
    };
    if c == '\\' {
        return go_escape(s);
    }
    Ok((c, &s[c.len_utf8()..]))
}

/// Translates a `regex` crate error into Go's wording where the kinds correspond. The crate
/// reports syntax errors as text only, so the translated pattern is parsed again with
/// `regex-syntax` (the crate's own parser, same settings) to learn the error's kind.
fn error(pattern: &str, translated: &str, e: &regex::Error) -> EvalError {
    use regex_syntax::ast::ErrorKind as Ast;
    use regex_syntax::hir::ErrorKind as Hir;
    let kind = match e {
        regex::Error::CompiledTooBig(_) => None,
        _ => regex_syntax::ParserBuilder::new()
            .nest_limit(CRATE_NEST_LIMIT)
            .build()
            .parse(translated)
            .err(),
    };
    let code = match &kind {
        None => "expression too large".to_string(),
        Some(regex_syntax::Error::Parse(p)) => match p.kind() {
            Ast::GroupUnclosed => "missing closing )".into(),
            Ast::GroupUnopened => "unexpected )".into(),
            Ast::ClassUnclosed => "missing closing ]".into(),
            Ast::RepetitionMissing => "missing argument to repetition operator".into(),
            Ast::EscapeUnrecognized | Ast::UnsupportedBackreference => {
                "invalid escape sequence".into()
            }
            Ast::EscapeUnexpectedEof => "trailing backslash at end of expression".into(),
            Ast::ClassRangeInvalid => "invalid character class range".into(),
            Ast::RepetitionCountInvalid => "invalid repeat count".into(),
            Ast::NestLimitExceeded(_) => "expression nests too deeply".into(),
            other => other.to_string(),
        },
        Some(regex_syntax::Error::Translate(t)) => match t.kind() {
            Hir::UnicodePropertyNotFound | Hir::UnicodePropertyValueNotFound => {
                "invalid character class range".into()
            }
            other => other.to_string(),
        },
        Some(other) => other.to_string(),
    };
    EvalError::new(format!("error parsing regexp: {code}: `{pattern}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(pattern: &str, text: &str) -> bool {
        compile(pattern).unwrap().is_match(text)
    }

    #[test]
    fn perl_classes_are_ascii_like_go() {
        assert!(is_match(r"^\d+$", "123"));
        assert!(!is_match(r"^\d+$", "١٢٣"));
        assert!(!is_match(r"^\w$", "é"));
        assert!(is_match(r"^\W$", "é"));
        assert!(!is_match(r"\s", "\u{a0}"));
        assert!(is_match(r"^[\d.]+$", "1.5"));
        assert!(!is_match(r"^[\d]+$", "١"));
        assert!(is_match(r"^[^\d]+$", "abc"));
        assert!(is_match(r"\bfoo\b", "a foo b"));
        // Go's \b is an ASCII word boundary: é is not a word character.
        assert!(is_match(r"\bfoo\b", "éfooé"));
        assert!(!is_match(r"\bfoo\b", "xfoox"));
    }

    #[test]
    fn go_class_syntax() {
        assert!(is_match(r"^[[]$", "["));
        assert!(is_match(r"^[]a]+$", "]a"));
        assert!(is_match(r"^[^]a]$", "b"));
        assert!(is_match(r"^[a&&b]+$", "&"));
        assert!(is_match(r"^[~]$", "~"));
        assert!(is_match(r"^[[:alpha:]]+$", "abc"));
        assert!(!is_match(r"^[[:alpha:]]+$", "a1"));
    }

    #[test]
    fn go_escapes() {
        assert!(is_match(r"^\Qa.b\E$", "a.b"));
        assert!(!is_match(r"^\Qa.b\E$", "axb"));
        assert!(is_match(r"^\141$", "a"));
        assert!(is_match(r"^\0$", "\0"));
        assert!(compile(r"\1").is_err());
        assert!(is_match(r"^\<a\>$", "<a>"));
    }

    #[test]
    fn errors_use_go_wording() {
        let msg = |p: &str| compile(p).err().map(|e| e.into_message());
        assert_eq!(
            msg("("),
            Some("error parsing regexp: missing closing ): `(`".into())
        );
        assert_eq!(
            msg("[a"),
            Some("error parsing regexp: missing closing ]: `[a`".into())
        );
        assert_eq!(
            msg("a)"),
            Some("error parsing regexp: unexpected ): `a)`".into())
        );
        assert_eq!(
            msg("*"),
            Some("error parsing regexp: missing argument to repetition operator: `*`".into())
        );
        assert_eq!(
            msg(r"\8"),
            Some("error parsing regexp: invalid escape sequence: `\\8`".into())
        );
    }

    /// What the `regex` crate accepts and RE2 rejects, each with Go's error code and the
    /// fragment Go quotes (`regexp/syntax/parse.go`: `parser.repeat`, `repeatIsValid`,
    /// `parsePerlFlags`, `isValidCaptureName`, `parseEscape`, `parseUnicodeClass`; the
    /// texts as `regexp.Compile` reports them, cf. Go's `parse_test.go` `invalidRegexps`).
    #[test]
    fn rejects_what_re2_rejects_though_the_crate_accepts_it() {
        let cases: &[(&str, &str, &str)] = &[
            // Stacked repetition operators.
            ("x++", "invalid nested repetition operator", "++"),
            ("a**", "invalid nested repetition operator", "**"),
            ("a*+", "invalid nested repetition operator", "*+"),
            ("a??*", "invalid nested repetition operator", "??*"),
            ("a*?+", "invalid nested repetition operator", "*?+"),
            ("a{2}*", "invalid nested repetition operator", "{2}*"),
            ("a*{2}", "invalid nested repetition operator", "*{2}"),
            ("a{2}{3}", "invalid nested repetition operator", "{2}{3}"),
            // Counts over 1000, alone or through nesting.
            ("a{1001}", "invalid repeat count", "{1001}"),
            ("a{2,1001}", "invalid repeat count", "{2,1001}"),
            ("a{1001,}", "invalid repeat count", "{1001,}"),
            ("(a{500}){3}", "invalid repeat count", "{3}"),
            ("((a{10}){10}){11}", "invalid repeat count", "{11}"),
            ("(a{2}|b{600}){2}?", "invalid repeat count", "{2}?"),
            // Flags and group syntax.
            ("(?x)a", "invalid or unsupported Perl syntax", "(?x"),
            ("(?u:a)", "invalid or unsupported Perl syntax", "(?u"),
            ("(?R)a", "invalid or unsupported Perl syntax", "(?R"),
            ("(?P<a.b>x)", "invalid named capture", "(?P<a.b>"),
            ("(?<a[0]>x)", "invalid named capture", "(?<a[0]>"),
            // Escapes.
            (r"\u0041", "invalid escape sequence", r"\u"),
            (r"\u{41}", "invalid escape sequence", r"\u"),
            (r"\U0001F600", "invalid escape sequence", r"\U"),
        ];
        let crate_rejects: Vec<_> = cases
            .iter()
            .filter(|(p, _, _)| Regex::new(p).is_err())
            .map(|(p, _, _)| *p)
            .collect();
        assert!(
            crate_rejects.is_empty(),
            "the crate rejects {crate_rejects:?}"
        );
        assert_go_errors(cases);
    }

    /// Each pattern fails with Go's error code and the fragment Go quotes.
    #[track_caller]
    fn assert_go_errors(cases: &[(&str, &str, &str)]) {
        for (pattern, code, fragment) in cases {
            assert_eq!(
                compile(pattern).err().map(|e| e.into_message()),
                Some(format!("error parsing regexp: {code}: `{fragment}`")),
                "{pattern}"
            );
        }
    }

    /// Go's errors where both reject, with Go's fragments.
    #[test]
    fn errors_quote_what_go_quotes() {
        let cases: &[(&str, &str, &str)] = &[
            ("a{100000000}", "invalid repeat count", "{100000000}"),
            ("(?i-)a", "invalid or unsupported Perl syntax", "(?i-)"),
            ("(?--i)a", "invalid or unsupported Perl syntax", "(?--"),
            ("(?'n'a)", "invalid or unsupported Perl syntax", "(?'"),
            ("(?P=n)", "invalid or unsupported Perl syntax", "(?P"),
            ("(?<name%>el*)", "invalid named capture", "(?<name%>"),
            ("(?P<>x)", "invalid named capture", "(?P<>"),
            (r"\e", "invalid escape sequence", r"\e"),
            (r"\C", "invalid escape sequence", r"\C"),
            (r"\Z", "invalid escape sequence", r"\Z"),
            (r"[\b]", "invalid escape sequence", r"\b"),
            (r"[\A]", "invalid escape sequence", r"\A"),
            (r"[a-\d]", "invalid escape sequence", r"\d"),
            (r"\x{110000}", "invalid escape sequence", r"\x{110000"),
            (r"\xZ0", "invalid escape sequence", r"\xZ0"),
            ("??el*", "missing argument to repetition operator", "??"),
            ("{2}", "missing argument to repetition operator", "{2}"),
            ("a|*", "missing argument to repetition operator", "*"),
            ("(*)", "missing argument to repetition operator", "*"),
            ("a{3,2}", "invalid repeat count", "{3,2}"),
            ("a(b", "missing closing )", "a(b"),
            ("a)b", "unexpected )", "a)b"),
            ("[a-", "missing closing ]", "[a-"),
            ("x[z-a]", "invalid character class range", "z-a"),
            ("[[:foo:]]", "invalid character class range", "[:foo:]"),
            (r"\p", "invalid character class range", r"\p"),
            (r"\p{L", "invalid character class range", r"\p{L"),
            (r"a\", "trailing backslash at end of expression", ""),
            (r"\1", "invalid escape sequence", r"\1"),
            ("(?i", "invalid or unsupported Perl syntax", "(?i"),
            ("(?P<n", "invalid named capture", "(?P<n"),
        ];
        assert_go_errors(cases);
    }

    /// Text RE2 accepts (as a literal, or as Go reads it) that the crate rejects or reads
    /// otherwise.
    #[test]
    fn accepts_what_re2_accepts() {
        // A `{` that starts no repetition is literal (Go's `parseRepeat` fails).
        assert!(is_match("^a{,3}$", "a{,3}"));
        assert!(!is_match("^a{,3}$", "aa"));
        assert!(is_match("^a{01}$", "a{01}"));
        assert!(is_match("^a{x}$", "a{x}"));
        assert!(is_match("^a{$", "a{"));
        assert!(is_match("^{$", "{"));
        assert!(is_match("^a{1,2$", "a{1,2"));
        assert!(is_match("^a{ 2 }$", "a{ 2 }"));
        assert!(is_match("^x}]$", "x}]"));
        // Counts up to 1000, also through nesting.
        assert!(is_match("^a{1000}$", &"a".repeat(1000)));
        assert!(is_match("^(a{10}){100}$", &"a".repeat(1000)));
        assert!(is_match("^(a{0}){1000}(b{1000}){1}$", &"b".repeat(1000)));
        // Duplicate and any valid group names.
        assert!(is_match("^(?P<x>a)(?P<x>b)$", "ab"));
        assert!(is_match("^(?<x_1>a)$", "a"));
        // Flags Go has; an empty flag group.
        assert!(is_match("^(?i)ab$", "AB"));
        assert!(is_match("^(?i:a)(?-i)b$", "Ab"));
        assert!(!is_match("^(?i:a)(?-i)b$", "AB"));
        assert!(is_match("(?s)^a.b$", "a\nb"));
        assert!(is_match("^a(?)b$", "ab"));
        assert!(is_match("(?U)^(a+)", "aaa"));
        // Escapes of punctuation, `\_`, hex, and a repetition of an assertion.
        assert!(is_match(r"^\_\!\#\x41\x{1F600}$", "_!#A😀"));
        assert!(compile("^*").is_ok());
        assert!(compile(r"\b+").is_ok());
        // Deep nesting (Go allows a parse tree 1000 high).
        let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
        assert!(is_match(&deep, "a"));
    }

    /// Unicode class names as Go's `regexp/syntax` reads them (`parse.go`: `parseUnicodeClass`,
    /// `unicodeTable`, `canonicalName`): the cases of Go's `parse_test.go` `parseTests` under
    /// "Unicode, negatives, and a double negative" as matches, then the names Go 1.25 added
    /// (issue golang/go#70781: `Any`, `Assigned`, `ASCII`, `Cn`, `LC`, category aliases,
    /// case-insensitive lookup) and names the crate knows but Go does not.
    #[test]
    fn unicode_class_names_as_go_reads_them() {
        let braille = "\u{2800}";
        for p in [
            r"^\p{Braille}$",
            r"^\P{^Braille}$",
            r"^[\p{Braille}]$",
            r"^[\P{^Braille}]$",
        ] {
            assert!(is_match(p, braille), "{p}");
            assert!(!is_match(p, "a"), "{p}");
        }
        for p in [
            r"^\P{Braille}$",
            r"^\p{^Braille}$",
            r"^[\P{Braille}]$",
            r"^[\p{^Braille}]$",
        ] {
            assert!(!is_match(p, braille), "{p}");
            assert!(is_match(p, "a"), "{p}");
        }
        for p in [r"^\pZ$", r"^[\pZ]$"] {
            assert!(
                is_match(p, " ") && is_match(p, "\u{3000}") && !is_match(p, "a"),
                "{p}"
            );
        }
        for p in [r"^\p{Lu}$", r"^[\p{Lu}]$"] {
            assert!(
                is_match(p, "A") && is_match(p, "Ω") && !is_match(p, "a"),
                "{p}"
            );
        }
        assert!(is_match(r"^(?i)[\p{Lu}]$", "a"));
        assert!(is_match(r"^\p{Any}$", "\n"));
        assert!(!is_match(r"\p{^Any}", "a\n"));
        // Go 1.25: special names, aliases, loose matching.
        let accepted: &[(&str, &str, &str)] = &[
            (r"\p{Letter}", "é", "1"),
            (r"\p{letter}", "é", "1"),
            (r"\p{Cased_Letter}", "a", "ª"),
            (r"\p{cased-letter}", "a", "ª"),
            (r"\p{LC}", "a", "ª"),
            (r"\p{lc}", "a", "ª"),
            (r"\p{Decimal Number}", "٣", "a"),
            (r"\p{digit}", "٣", "a"),
            (r"\p{punct}", "!", "a"),
            (r"\p{ASCII}", "a", "é"),
            (r"\p{ascii}", "a", "é"),
            (r"\p{Assigned}", "a", "\u{378}"),
            (r"\p{Cn}", "\u{378}", "a"),
            (r"\p{greek}", "α", "a"),
            (r"\p{GREEK}", "α", "a"),
            (r"\p{Nko}", "\u{7c0}", "a"),
            (r"\p{Kawi}", "\u{11f04}", "a"),
            (r"\p{lu}", "A", "a"),
            // Go's C is Cc, Cf, Co, Cs: not the unassigned code points.
            (r"\pC", "\u{1}", "\u{378}"),
            (r"\p{Other}", "\u{1}", "\u{378}"),
            // Surrogates: never in valid UTF-8.
            (r"\P{Cs}", "a", ""),
        ];
        for (p, yes, no) in accepted {
            let anchored = format!("^{p}$");
            assert!(is_match(&anchored, yes), "{p} on {yes:?}");
            assert!(!is_match(&anchored, no), "{p} on {no:?}");
        }
        assert!(!is_match(r"\p{Cs}", "a\u{fffd}"));
        // Names the crate resolves that Go's tables do not have: script codes, `Is`
        // prefixes, `sc=`/`gc=` forms, binary properties, Unicode 16 scripts, and (after
        // `canonicalName`) script names of more than one word.
        let rejected = [
            r"\p{Latn}",
            r"\p{IsGreek}",
            r"\p{sc=Greek}",
            r"\p{Script=Latin}",
            r"\p{gc=L}",
            r"\p{Alphabetic}",
            r"\p{Lowercase}",
            r"\p{White_Space}",
            r"\p{L&}",
            r"\p{Garay}",
            r"\p{Old_Italic}",
            r"\p{SignWriting}",
            r"[\p{Zyyy}]",
            r"\pX",
            r"\p{}",
            r"\p{^}",
        ];
        for p in rejected {
            let seq = &p[p.find('\\').unwrap()..p.find('}').map_or(p.len(), |i| i + 1)];
            assert_eq!(
                compile(p).err().map(|e| e.into_message()),
                Some(format!(
                    "error parsing regexp: invalid character class range: `{seq}`"
                )),
                "{p}"
            );
        }
    }

    /// Go's `parse_test.go` `TestParseInvalidRegexps` (Perl flags, as `regexp.Compile`),
    /// every pattern of `invalidRegexps` but the four of invalid UTF-8, which a CEL string
    /// cannot hold.
    #[test]
    fn go_invalid_regexps() {
        let mut patterns: Vec<String> = [
            "(",
            ")",
            "(a",
            "a)",
            "(a))",
            "(a|b|",
            "a|b|)",
            "(a|b|))",
            "(a|b",
            "a|b)",
            "(a|b))",
            "[a-z",
            "([a-z)",
            "[a-z)",
            "([a-z]))",
            "x{1001}",
            "x{9876543210}",
            "x{2,1}",
            "x{1,9876543210}",
            "(?P<name>a",
            "(?P<name>",
            "(?P<name",
            "(?P<x y>a)",
            "(?P<>a)",
            "(?<name>a",
            "(?<name>",
            "(?<name",
            "(?<x y>a)",
            "(?<>a)",
            "[a-Z]",
            "(?i)[a-Z]",
            r"\Q\E*",
            "a{100000}",
            "a{100000,}",
            "((((((((((x{2}){2}){2}){2}){2}){2}){2}){2}){2}){2})",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        patterns.push("(".repeat(1000) + &")".repeat(1000));
        patterns.push("(?:".repeat(1000) + &")*".repeat(1000));
        patterns.push(format!("({}){{1000}}", "(xx?)".repeat(1000)));
        patterns.push("(xx?){1000}".repeat(1000));
        patterns.push(r"\pL".repeat(27000));
        let accepted: Vec<_> = patterns
            .iter()
            .filter(|p| compile(p).is_ok())
            .map(|p| p.chars().take(40).collect::<String>())
            .collect();
        println!(
            "{} invalid patterns, {} accepted",
            patterns.len(),
            accepted.len()
        );
        assert!(accepted.is_empty(), "accepted: {accepted:?}");
    }

    /// Go's limits on the parse tree (`parse.go`: `maxHeight` 1000 in `checkHeight`, `maxSize`
    /// in `checkSize`/`calcSize`), reported with the whole pattern as Go's `Parse` does; the
    /// deepest trees Go accepts compile (on a thread of their own, see [`build`]).
    #[test]
    fn go_parse_tree_limits() {
        let message = |p: &str| compile(p).err().map(|e| e.into_message());
        // Height 1000: 999 captures around an empty match.
        let deepest = "(".repeat(999) + &")".repeat(999);
        assert!(is_match(&deepest, ""));
        // 700 nested stars are 701 high in Go's tree (the crate counts two levels each).
        assert!(is_match(
            &("(?:".repeat(700) + "a" + &")*".repeat(700)),
            "aa"
        ));
        for too_deep in [
            "(".repeat(1000) + &")".repeat(1000),
            "(?:".repeat(1000) + &")*".repeat(1000),
            // cat{star{a}, cat{star{a}, ...}}: 1001 high.
            "(?:a*".repeat(1000) + &")".repeat(1000),
        ] {
            assert_eq!(
                message(&too_deep),
                Some(format!(
                    "error parsing regexp: expression nests too deeply: `{too_deep}`"
                ))
            );
        }
        for too_large in [
            format!("({}){{1000}}", "(xx?)".repeat(1000)),
            "(xx?){1000}".repeat(1000),
            "a{1000}".repeat(3400),
        ] {
            assert_eq!(
                message(&too_large),
                Some(format!(
                    "error parsing regexp: expression too large: `{too_large}`"
                ))
            );
        }
        // Within Go's size, and within the crate's bound.
        assert!(compile(&"a{1000}".repeat(50)).is_ok());
        // Go accepts it; its compiled form passes the crate's 10 MiB bound.
        assert_eq!(
            message(r"\pL{1000}"),
            Some("error parsing regexp: expression too large: `\\pL{1000}`".into())
        );
    }
}
