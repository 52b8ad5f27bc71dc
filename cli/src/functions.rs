//! `kcel functions`: the environment's functions, macros and libraries, from the library
//! declarations and the parser's macro tables. Internal functions (names with `@`, which
//! macros expand to) are listed only with `--all`.

use kcel::Env;
use kcel::library::syntax::macro_docs::{self, MacroDoc};
use kcel::library::{Function, is_internal_name};
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
                return usage(format!(
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
                .filter(|f| all || !is_internal_name(f.name()))
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

/// The documented forms of the macros `env` expands.
fn macro_docs(env: &Env) -> Vec<&'static MacroDoc> {
    macro_docs::enabled(env.parse_options())
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
        name: f.name(),
        kind: "function",
        doc: f.doc(),
        overloads: f
            .overloads()
            .iter()
            .map(|o| OverloadDoc {
                id: Some(o.id().to_string()),
                signature: o.signature(f.name()),
            })
            .collect(),
        examples: f.examples().to_vec(),
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
        use kcel::library::syntax::macro_docs::{display_name, documentation};
        let mut tables = vec![kcel::library::syntax::STANDARD];
        for available in kcel_stdlib::catalog::available() {
            for version in available.versions.clone() {
                tables.extend(available.build(version).macros().iter().copied());
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
        assert!(is_internal_name("@not_strictly_false"));
        assert!(is_internal_name("cel.@mapInsert"));
        assert!(!is_internal_name("_+_"));
        assert!(!is_internal_name("startsWith"));
    }
}
