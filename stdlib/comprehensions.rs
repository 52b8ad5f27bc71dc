//! Libraries that are mostly macros: cel-go's `ext.Bindings()` (`cel.bind`) and
//! `ext.TwoVarComprehensions()` (`all(i, v, p)`, `transformList`, `transformMap`, ...,
//! which build maps through `cel.@mapInsert`).

use kcel::Value;
use kcel::library::standard::map_insert;
use kcel::library::syntax::{BIND, MAP_INSERT, TWO_VARIABLE};
use kcel::library::{Implementation, Library, overloads};
use kcel::{EvalError, EvalResult};

/// The newest version of the bindings library.
pub const BINDINGS_VERSION: u32 = 1;

/// cel-go's `ext.Bindings(ext.BindingsVersion(version))`: `cel.bind(name, init, expr)`;
/// from version 1 also `cel.@block([e0, e1, ...], expr)`, which no source text can spell
/// (`@` is not an identifier character): it is the form of cel-go's optimized ASTs, in
/// which `@index0`, `@index1`, ... name the block's expressions, each evaluated when
/// first read and at most once per evaluation of the block (an expression never read is
/// never evaluated, so its error does not surface). The interpreter evaluates the block
/// itself (see the planner); this declaration is for the checker, as cel-go declares it.
pub fn bindings(version: u32) -> Library {
    let mut lib = Library::new("cel.lib.ext.cel.bindings", version);
    lib.add_macros(BIND);
    if version >= 1 {
        overloads!(lib.function(
            "cel.@block",
            "Internal to optimized expressions: evaluates the last argument with @index0, \
             @index1, ... naming the list's expressions, each evaluated lazily at most once.",
        );
            global "cel_block_list" ("list(dyn)", "T") -> "T" => Implementation::Declared;
        );
        // As cel-go's block validator configures it: the list holds expressions of any
        // types.
        lib.exempt_from_homogeneous("cel.@block");
    }
    lib
}

/// The two-variable comprehension macros and their map-building helper.
pub fn two_var_comprehensions() -> Library {
    let mut lib = Library::new("cel.lib.ext.comprev2", 0);
    lib.add_macros(TWO_VARIABLE);
    overloads!(lib.function(
        MAP_INSERT,
        "Internal to the transformMap macros: inserts an entry, failing on a duplicate key.",
    );
        global "@mapInsert_map_key_value" ("map(K, V)", "K", "V") -> "map(K, V)"
            => Implementation::Nary(map_insert_key_value);
        global "@mapInsert_map_map" ("map(K, V)", "map(K, V)") -> "map(K, V)"
            => Implementation::Binary(map_insert_map);
    )
    .examples(&["{'a': 1}.transformMap(k, v, v + 1) == {'a': 2}"]);
    lib
}

fn map_insert_key_value(args: &[Value]) -> EvalResult {
    match args {
        [m, k, v] => map_insert(m.clone(), k, v.clone()),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn map_insert_map(target: &Value, update: &Value) -> EvalResult {
    let Value::Map(u) = update else {
        return Err(EvalError::no_such_overload());
    };
    let mut out = target.clone();
    for (k, v) in u.iter() {
        out = map_insert(out, &k.to_value(), v.clone())?;
    }
    Ok(out)
}
