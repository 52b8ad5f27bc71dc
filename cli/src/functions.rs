//! `kcel functions`: the environment's functions and libraries, from the library declarations.

use kcel::registry::{Function, Overload};
use serde::Serialize;

use crate::args::{EnvChoice, Format};
use crate::environment;
use crate::libraries::{LibrarySpec, available};
use crate::output::{Status, machine, usage};

/// The `-o json` shape of one function.
#[derive(Serialize)]
struct FunctionDoc<'a> {
    name: &'a str,
    doc: &'a str,
    overloads: Vec<OverloadDoc>,
    examples: &'a [String],
}

#[derive(Serialize)]
struct OverloadDoc {
    id: String,
    signature: String,
}

/// The `-o json` shape of one library.
#[derive(Serialize)]
struct LibraryDoc {
    name: &'static str,
    versions: Vec<u32>,
}

/// Lists functions, documents one, or lists the libraries.
pub fn run(
    name: Option<&str>,
    libraries: bool,
    kind: EnvChoice,
    lib: &[LibrarySpec],
    format: Format,
) -> Status {
    if libraries {
        return list_libraries(format);
    }
    let env = environment::base(kind, lib, None);
    let registry = env.registry();
    match name {
        Some(name) => match registry.get(name) {
            Some(f) => {
                match format {
                    Format::Text => out!("{}", describe(f)),
                    _ => out!("{}", machine(format, &doc(f))),
                }
                Status::Ok
            }
            None => usage(format!(
                "no function named '{name}' (see `kcel functions` for the list)"
            )),
        },
        None => {
            let functions = registry.functions();
            match format {
                Format::Text => {
                    let width = functions.iter().map(|f| f.name.len()).max().unwrap_or(0);
                    for f in functions {
                        outln!("{:width$}  {}", f.name, summary(&f.doc));
                    }
                }
                _ => {
                    let docs: Vec<_> = functions.into_iter().map(doc).collect();
                    out!("{}", machine(format, &docs));
                }
            }
            Status::Ok
        }
    }
}

fn list_libraries(format: Format) -> Status {
    let libraries: Vec<LibraryDoc> = available()
        .into_iter()
        .map(|a| LibraryDoc {
            name: a.name,
            versions: a.versions.collect(),
        })
        .collect();
    match format {
        Format::Text => {
            for lib in &libraries {
                for version in &lib.versions {
                    outln!("{}@{version}", lib.name);
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
        doc: &f.doc,
        overloads: f
            .overloads
            .iter()
            .map(|o| OverloadDoc {
                id: o.id.to_string(),
                signature: signature(&f.name, o),
            })
            .collect(),
        examples: &f.examples,
    }
}

/// The text page of one function: documentation, signatures, examples.
fn describe(f: &Function) -> String {
    let mut out = format!("{}\n\n", f.name);
    if !f.doc.is_empty() {
        out.push_str(&format!("{}\n\n", f.doc.trim_end()));
    }
    out.push_str("Overloads:\n");
    for o in &f.overloads {
        out.push_str(&format!("  {}  ({})\n", signature(&f.name, o), o.id));
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
