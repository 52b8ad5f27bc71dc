//! `kcel functions`: the environment's functions, macros and libraries, from the library
//! declarations and the parser's macro tables. Internal functions (names with `@`, which
//! macros expand to) are listed only with `--all`.

use kcel::Env;
use kcel::registry::{Function, Overload};
use kcel::syntax::macros::{Macro, STANDARD, Style};
use serde::Serialize;

use crate::args::{EnvChoice, Format};
use crate::environment;
use crate::libraries::{LibrarySpec, available};
use crate::output::{Status, machine, usage};

/// The `-o json` shape of one function.
#[derive(Serialize)]
struct FunctionDoc<'a> {
    name: &'a str,
    /// `function` or `macro`.
    kind: &'static str,
    doc: &'a str,
    overloads: Vec<OverloadDoc>,
    examples: Vec<String>,
}

#[derive(Serialize)]
struct OverloadDoc {
    /// The overload id (functions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    signature: String,
}

/// The `-o json` shape of one library.
#[derive(Serialize)]
struct LibraryDoc {
    name: &'static str,
    /// The short name `--lib` also accepts.
    alias: &'static str,
    versions: Vec<u32>,
}

/// Whether a function is for users: internal ones (`@not_strictly_false`,
/// `cel.@mapInsert`, `@sortByAssociatedKeys`) have an `@` in their name.
pub fn is_public_name(name: &str) -> bool {
    !name.contains('@')
}

/// Lists functions and macros, documents one, or lists the libraries.
pub fn run(
    name: Option<&str>,
    libraries: bool,
    all: bool,
    kind: EnvChoice,
    lib: &[LibrarySpec],
    format: Format,
) -> Status {
    if libraries {
        return list_libraries(format);
    }
    let env = environment::base(kind, lib, None);
    let registry = env.registry();
    let macros = macro_docs(&env);
    match name {
        Some(name) => {
            let function = registry.get(name).map(doc);
            let macro_doc = macro_doc(name, &macros);
            let found: Vec<FunctionDoc<'_>> = function.into_iter().chain(macro_doc).collect();
            if found.is_empty() {
                return usage(&format!(
                    "no function or macro named '{name}' (see `kcel functions` for the list)"
                ));
            }
            match format {
                _ if format.is_text() => {
                    let pages: Vec<String> = found.iter().map(describe).collect();
                    out!("{}", pages.join("\n"));
                }
                _ if found.len() == 1 => out!("{}", machine(format, &found[0])),
                _ => out!("{}", machine(format, &found)),
            }
            Status::Ok
        }
        None => {
            let mut docs: Vec<FunctionDoc<'_>> = registry
                .functions()
                .into_iter()
                .filter(|f| all || is_public_name(&f.name))
                .map(doc)
                .collect();
            let mut names: Vec<&str> = macros.iter().map(|m| m.name).collect();
            names.sort_unstable();
            names.dedup();
            docs.extend(names.into_iter().filter_map(|n| macro_doc(n, &macros)));
            docs.sort_by(|a, b| a.name.cmp(b.name).then(a.kind.cmp(b.kind)));
            match format {
                _ if format.is_text() => {
                    let width = docs.iter().map(|f| f.name.len()).max().unwrap_or(0);
                    for f in &docs {
                        let tag = if f.kind == "macro" { "(macro) " } else { "" };
                        outln!("{:width$}  {tag}{}", f.name, summary(f.doc));
                    }
                }
                _ => out!("{}", machine(format, &docs)),
            }
            Status::Ok
        }
    }
}

/// The documentation of one form of a macro.
pub struct MacroDoc {
    /// As users write it: `all`, `cel.bind`, `math.greatest`.
    pub name: &'static str,
    /// Arguments, not counting the receiver ([`ANY_ARGS`]: any number).
    pub args: usize,
    /// `name(args)` for global macros, `receiver.name(args)` for receiver ones.
    pub signature: &'static str,
    pub doc: &'static str,
    pub example: &'static str,
}

/// [`MacroDoc::args`] of a macro with any number of arguments.
const ANY_ARGS: usize = usize::MAX;

/// Every macro of the parser's tables, documented.
pub const MACROS: &[MacroDoc] = &[
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

/// The documented forms of the macros `env` expands.
fn macro_docs(env: &Env) -> Vec<&'static MacroDoc> {
    let options = env.parse_options();
    if !options.macros {
        return vec![];
    }
    let tables = std::iter::once(STANDARD).chain(options.extra_macros.iter().copied());
    let mut docs: Vec<&'static MacroDoc> = Vec::new();
    for m in tables.flatten() {
        if let Some(d) = documentation(m) {
            if !docs.iter().any(|x| std::ptr::eq(*x, d)) {
                docs.push(d);
            }
        }
        // A macro without documentation is not listed (a unit test keeps the table whole).
    }
    docs
}

/// The documentation of a macro form.
fn documentation(m: &Macro) -> Option<&'static MacroDoc> {
    let name = display_name(m);
    MACROS
        .iter()
        .find(|d| d.name == name && (d.args == m.args || d.args == ANY_ARGS))
}

/// How users write a macro's name: `cel.bind` for namespaced ones.
fn display_name(m: &Macro) -> String {
    match (m.style, m.receiver) {
        (Style::Receiver, Some(receiver)) => format!("{receiver}.{}", m.name),
        _ => m.name.to_string(),
    }
}

/// The page of a macro by the name users write (`all`, `cel.bind`): all its forms.
fn macro_doc<'a>(name: &str, macros: &[&'static MacroDoc]) -> Option<FunctionDoc<'a>> {
    let forms: Vec<&MacroDoc> = macros.iter().copied().filter(|m| m.name == name).collect();
    let first = forms.first()?;
    Some(FunctionDoc {
        name: first.name,
        kind: "macro",
        doc: first.doc,
        overloads: forms
            .iter()
            .flat_map(|m| m.signature.split("; "))
            .map(|signature| OverloadDoc {
                id: None,
                signature: signature.to_string(),
            })
            .collect(),
        examples: forms.iter().map(|m| m.example.to_string()).collect(),
    })
}

fn list_libraries(format: Format) -> Status {
    let libraries: Vec<LibraryDoc> = available()
        .into_iter()
        .map(|a| LibraryDoc {
            name: a.name,
            alias: a.alias,
            versions: a.versions.collect(),
        })
        .collect();
    match format {
        _ if format.is_text() => {
            let width = libraries.iter().map(|l| l.name.len()).max().unwrap_or(0) + 3;
            for lib in &libraries {
                for version in &lib.versions {
                    let name = format!("{}@{version}", lib.name);
                    if lib.alias == lib.name {
                        outln!("{name}");
                    } else {
                        outln!("{name:width$}  {}@{version}", lib.alias);
                    }
                }
            }
        }
        _ => out!("{}", machine(format, &libraries)),
    }
    Status::Ok
}

fn doc(f: &Function) -> FunctionDoc<'_> {
    FunctionDoc {
        name: &f.name,
        kind: "function",
        doc: &f.doc,
        overloads: f
            .overloads
            .iter()
            .map(|o| OverloadDoc {
                id: Some(o.id.to_string()),
                signature: signature(&f.name, o),
            })
            .collect(),
        examples: f.examples.clone(),
    }
}

/// The text page of one function or macro: documentation, signatures, examples.
fn describe(f: &FunctionDoc<'_>) -> String {
    let mut out = if f.kind == "macro" {
        format!("{} (macro)\n\n", f.name)
    } else {
        format!("{}\n\n", f.name)
    };
    if !f.doc.is_empty() {
        out.push_str(&format!("{}\n\n", f.doc.trim_end()));
    }
    out.push_str(if f.kind == "macro" {
        "Forms:\n"
    } else {
        "Overloads:\n"
    });
    for o in &f.overloads {
        match &o.id {
            Some(id) => out.push_str(&format!("  {}  ({id})\n", o.signature)),
            None => out.push_str(&format!("  {}\n", o.signature)),
        }
    }
    if !f.examples.is_empty() {
        out.push_str("\nExamples:\n");
        for e in &f.examples {
            out.push_str(&format!("  {e}\n"));
        }
    }
    out
}

/// `name(int, int) -> int`, or `string.name(string) -> bool` for member overloads.
fn signature(name: &str, o: &Overload) -> String {
    let types: Vec<String> = o.params.iter().map(ToString::to_string).collect();
    if o.member {
        let (receiver, rest) = types
            .split_first()
            .map_or(("", &[][..]), |(r, rest)| (r, rest));
        format!("{receiver}.{name}({}) -> {}", rest.join(", "), o.result)
    } else {
        format!("{name}({}) -> {}", types.join(", "), o.result)
    }
}

/// The first sentence (or line) of a doc string.
fn summary(doc: &str) -> &str {
    let line = doc.lines().next().unwrap_or("");
    match line.find(". ") {
        Some(i) => &line[..=i],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every macro of every library the CLI offers has a page.
    #[test]
    fn every_macro_is_documented() {
        let mut tables = vec![STANDARD];
        for available in kcel_stdlib::catalog::available() {
            for version in available.versions.clone() {
                tables.extend(available.build(version).macros.iter().copied());
            }
        }
        for m in tables.into_iter().flatten() {
            assert!(
                documentation(m).is_some(),
                "macro {} with {} arguments has no documentation",
                display_name(m),
                m.args
            );
        }
    }

    #[test]
    fn internal_functions_are_hidden() {
        assert!(!is_public_name("@not_strictly_false"));
        assert!(!is_public_name("cel.@mapInsert"));
        assert!(is_public_name("_+_"));
        assert!(is_public_name("startsWith"));
    }
}
