//! The documentation of the parser's macros (`has`, `all`, `exists`, `map`, `cel.bind`,
//! `sortBy`, ...), listed and shown like functions by front ends (the CLI's `kcel
//! functions`, the playground's completion): a page per form, by the name users write.

use super::ParseOptions;
use super::macros::{Macro, Style};

/// The documentation of one form of a macro.
pub struct MacroDoc {
    /// As users write it: `all`, `cel.bind`, `math.greatest`.
    pub name: &'static str,
    /// Arguments, not counting the receiver ([`ANY_ARGS`]: any number).
    pub args: usize,
    /// `name(args)` for global macros, `receiver.name(args)` for receiver ones.
    pub signature: &'static str,
    /// What it does, in one paragraph.
    pub doc: &'static str,
    /// An expression using it that evaluates to `true`.
    pub example: &'static str,
}

/// [`MacroDoc::args`] of a macro with any number of arguments.
pub const ANY_ARGS: usize = usize::MAX;

/// Every macro of the parser's tables, documented.
pub const MACRO_DOCS: &[MacroDoc] = &[
    MacroDoc {
        name: "has",
        args: 1,
        signature: "has(e.f) -> bool",
        doc: "Whether field f of e is set: for maps, whether the key is present; for objects, whether the field has a value. No error when it is absent.",
        example: "has(self.spec.replicas)",
    },
    MacroDoc {
        name: "all",
        args: 2,
        signature: "list(A).all(x, bool) -> bool; map(K, V).all(k, bool) -> bool",
        doc: "Whether the predicate holds for every element of a list (or key of a map). Errors are absorbed when another element makes the result false.",
        example: "[1, 2, 3].all(x, x > 0)",
    },
    MacroDoc {
        name: "all",
        args: 3,
        signature: "list(A).all(i, x, bool) -> bool; map(K, V).all(k, v, bool) -> bool",
        doc: "The two-variable form: the predicate sees the index and the element (or the key and the value).",
        example: "[1, 2, 3].all(i, x, x > i)",
    },
    MacroDoc {
        name: "exists",
        args: 2,
        signature: "list(A).exists(x, bool) -> bool; map(K, V).exists(k, bool) -> bool",
        doc: "Whether the predicate holds for some element of a list (or key of a map).",
        example: "self.spec.containers.exists(c, c.name == \"app\")",
    },
    MacroDoc {
        name: "exists",
        args: 3,
        signature: "list(A).exists(i, x, bool) -> bool; map(K, V).exists(k, v, bool) -> bool",
        doc: "The two-variable form of exists.",
        example: "{\"a\": 1}.exists(k, v, v > 0)",
    },
    MacroDoc {
        name: "exists_one",
        args: 2,
        signature: "list(A).exists_one(x, bool) -> bool; map(K, V).exists_one(k, bool) -> bool",
        doc: "Whether the predicate holds for exactly one element (or key). Also spelled existsOne.",
        example: "[1, 2, 3].exists_one(x, x == 2)",
    },
    MacroDoc {
        name: "exists_one",
        args: 3,
        signature: "list(A).exists_one(i, x, bool) -> bool; map(K, V).exists_one(k, v, bool) -> bool",
        doc: "The two-variable form of exists_one.",
        example: "[1, 2].exists_one(i, x, i == x)",
    },
    MacroDoc {
        name: "existsOne",
        args: 2,
        signature: "list(A).existsOne(x, bool) -> bool; map(K, V).existsOne(k, bool) -> bool",
        doc: "Another spelling of exists_one.",
        example: "[1, 2, 3].existsOne(x, x == 2)",
    },
    MacroDoc {
        name: "existsOne",
        args: 3,
        signature: "list(A).existsOne(i, x, bool) -> bool; map(K, V).existsOne(k, v, bool) -> bool",
        doc: "The two-variable form of existsOne.",
        example: "[1, 2].existsOne(i, x, i == x)",
    },
    MacroDoc {
        name: "map",
        args: 2,
        signature: "list(A).map(x, B) -> list(B); map(K, V).map(k, B) -> list(B)",
        doc: "The list of the transform of each element (or key).",
        example: "[1, 2, 3].map(x, x * 2)",
    },
    MacroDoc {
        name: "map",
        args: 3,
        signature: "list(A).map(x, bool, B) -> list(B); map(K, V).map(k, bool, B) -> list(B)",
        doc: "The list of the transform of each element (or key) for which the filter holds.",
        example: "[1, 2, 3].map(x, x > 1, x * 2)",
    },
    MacroDoc {
        name: "filter",
        args: 2,
        signature: "list(A).filter(x, bool) -> list(A); map(K, V).filter(k, bool) -> list(K)",
        doc: "The elements (or keys) for which the predicate holds.",
        example: "[1, 2, 3].filter(x, x > 1)",
    },
    MacroDoc {
        name: "transformList",
        args: 3,
        signature: "list(A).transformList(i, x, B) -> list(B); map(K, V).transformList(k, v, B) -> list(B)",
        doc: "The list of the transform of each index and element (or key and value).",
        example: "[10, 20].transformList(i, x, i + x)",
    },
    MacroDoc {
        name: "transformList",
        args: 4,
        signature: "list(A).transformList(i, x, bool, B) -> list(B); map(K, V).transformList(k, v, bool, B) -> list(B)",
        doc: "transformList for the entries for which the filter holds.",
        example: "[10, 20].transformList(i, x, i > 0, x)",
    },
    MacroDoc {
        name: "transformMap",
        args: 3,
        signature: "list(A).transformMap(i, x, B) -> map(int, B); map(K, V).transformMap(k, v, B) -> map(K, B)",
        doc: "The map from each index (or key) to the transform of its entry.",
        example: "{\"a\": 1}.transformMap(k, v, v * 2)",
    },
    MacroDoc {
        name: "transformMap",
        args: 4,
        signature: "list(A).transformMap(i, x, bool, B) -> map(int, B); map(K, V).transformMap(k, v, bool, B) -> map(K, B)",
        doc: "transformMap for the entries for which the filter holds.",
        example: "{\"a\": 1, \"b\": 2}.transformMap(k, v, v > 1, v)",
    },
    MacroDoc {
        name: "transformMapEntry",
        args: 3,
        signature: "list(A).transformMapEntry(i, x, map(K2, V2)) -> map(K2, V2); map(K, V).transformMapEntry(k, v, map(K2, V2)) -> map(K2, V2)",
        doc: "The map made of the one-entry maps the transform returns for each entry (a key given twice is an error).",
        example: "{\"a\": \"b\"}.transformMapEntry(k, v, {v: k})",
    },
    MacroDoc {
        name: "transformMapEntry",
        args: 4,
        signature: "list(A).transformMapEntry(i, x, bool, map(K2, V2)) -> map(K2, V2); map(K, V).transformMapEntry(k, v, bool, map(K2, V2)) -> map(K2, V2)",
        doc: "transformMapEntry for the entries for which the filter holds.",
        example: "{\"a\": \"b\"}.transformMapEntry(k, v, k != \"\", {v: k})",
    },
    MacroDoc {
        name: "optMap",
        args: 2,
        signature: "optional_type(A).optMap(x, B) -> optional_type(B)",
        doc: "optional.of(the transform of the value), or optional.none() when there is none.",
        example: "optional.of(2).optMap(x, x * 2)",
    },
    MacroDoc {
        name: "optFlatMap",
        args: 2,
        signature: "optional_type(A).optFlatMap(x, optional_type(B)) -> optional_type(B)",
        doc: "The optional the transform returns for the value, or optional.none() when there is none.",
        example: "optional.of(2).optFlatMap(x, optional.of(x * 2))",
    },
    MacroDoc {
        name: "sortBy",
        args: 2,
        signature: "list(A).sortBy(x, K) -> list(A)",
        doc: "The list sorted by the key each element maps to (keys of one comparable type: int, uint, double, bool, string, bytes, timestamp, duration); elements with equal keys keep their order.",
        example: "[-3, 1, -5].sortBy(e, e * e)",
    },
    MacroDoc {
        name: "math.greatest",
        args: ANY_ARGS,
        signature: "math.greatest(number, ...) -> number; math.greatest(list(number)) -> number",
        doc: "The greatest of its arguments, or of a list: ints, uints and doubles compared by value.",
        example: "math.greatest(1, 2.5, 3u)",
    },
    MacroDoc {
        name: "math.least",
        args: ANY_ARGS,
        signature: "math.least(number, ...) -> number; math.least(list(number)) -> number",
        doc: "The least of its arguments, or of a list: ints, uints and doubles compared by value.",
        example: "math.least([3, -1, 2])",
    },
    MacroDoc {
        name: "cel.bind",
        args: 3,
        signature: "cel.bind(name, init, expr) -> T",
        doc: "Evaluates expr with name bound to the value of init (evaluated once).",
        example: "cel.bind(x, 2 * 3, x * x)",
    },
];

/// The documented forms of the macros a parser with `options` expands (the standard ones
/// and the libraries' tables), each once.
pub fn enabled(options: &ParseOptions) -> Vec<&'static MacroDoc> {
    if !options.macros {
        return vec![];
    }
    let tables =
        std::iter::once(super::macros::STANDARD).chain(options.extra_macros.iter().copied());
    let mut docs: Vec<&'static MacroDoc> = Vec::new();
    for m in tables.flatten() {
        if let Some(d) = documentation(m) {
            if !docs.iter().any(|x| std::ptr::eq(*x, d)) {
                docs.push(d);
            }
        }
        // A macro without documentation is not listed (front ends' tests keep the table
        // whole for the libraries they offer).
    }
    docs
}

/// The documentation of a macro form.
pub fn documentation(m: &Macro) -> Option<&'static MacroDoc> {
    let name = display_name(m);
    MACRO_DOCS
        .iter()
        .find(|d| d.name == name && (d.args == m.args || d.args == ANY_ARGS))
}

/// How users write a macro's name: `cel.bind` for namespaced ones.
pub fn display_name(m: &Macro) -> String {
    match (m.style, m.receiver) {
        (Style::Receiver, Some(receiver)) => format!("{receiver}.{}", m.name),
        _ => m.name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::macros::{BIND, OPTIONAL, STANDARD, TWO_VARIABLE};

    #[test]
    fn the_engines_macros_are_documented() {
        for m in [STANDARD, TWO_VARIABLE, OPTIONAL, BIND]
            .into_iter()
            .flatten()
        {
            assert!(
                documentation(m).is_some(),
                "{} has no page",
                display_name(m)
            );
        }
        assert_eq!(display_name(&BIND[0]), "cel.bind");
        let options = ParseOptions::default();
        let names: Vec<&str> = enabled(&options).iter().map(|d| d.name).collect();
        assert!(names.contains(&"has") && !names.contains(&"cel.bind"));
    }
}
