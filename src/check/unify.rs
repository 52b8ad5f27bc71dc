//! Type assignability with type-parameter substitution, following cel-go's checker rules.

use std::sync::Arc;

use crate::types::Type;

/// Bindings of type parameters (including the checker's fresh `_varN` variables).
#[derive(Clone, Debug, Default)]
pub(crate) struct Mapping {
    bindings: Vec<(Arc<str>, Type)>,
}

impl Mapping {
    fn find(&self, param: &str) -> Option<&Type> {
        self.bindings
            .iter()
            .rev()
            .find(|(p, _)| &**p == param)
            .map(|(_, t)| t)
    }

    fn add(&mut self, param: Arc<str>, t: Type) {
        self.bindings.push((param, t));
    }
}

fn is_dyn_or_error(t: &Type) -> bool {
    matches!(t, Type::Dyn | Type::Error)
}

/// Whether `t1` is at most as specific as `t2` (dyn and type parameters are least specific).
fn is_equal_or_less_specific(t1: &Type, t2: &Type) -> bool {
    match (t1, t2) {
        (Type::Dyn | Type::Param(_), _) => true,
        (_, Type::Dyn | Type::Param(_)) => false,
        (Type::List(a), Type::List(b)) => is_equal_or_less_specific(a, b),
        (Type::Map(k1, v1), Type::Map(k2, v2)) => {
            is_equal_or_less_specific(k1, k2) && is_equal_or_less_specific(v1, v2)
        }
        (Type::Optional(a), Type::Optional(b)) => is_equal_or_less_specific(a, b),
        (Type::Named(n1, p1), Type::Named(n2, p2)) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1
                    .iter()
                    .zip(p2)
                    .all(|(a, b)| is_equal_or_less_specific(a, b))
        }
        (Type::TypeOf(_), Type::TypeOf(_)) => true,
        _ => t1 == t2,
    }
}

/// The more general of two types.
pub(crate) fn most_general(t1: &Type, t2: &Type) -> Type {
    if is_equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

/// Whether `t` occurs within `within` (after following bindings).
fn not_referenced_in(m: &Mapping, t: &Type, within: &Type) -> bool {
    if t == within {
        return false;
    }
    match within {
        Type::Param(p) => match m.find(p) {
            None => true,
            Some(sub) => not_referenced_in(m, t, sub),
        },
        Type::List(e) | Type::Optional(e) | Type::TypeOf(e) => not_referenced_in(m, t, e),
        Type::Map(k, v) => not_referenced_in(m, t, k) && not_referenced_in(m, t, v),
        Type::Named(_, ps) => ps.iter().all(|p| not_referenced_in(m, t, p)),
        _ => true,
    }
}

/// Tries to bind type parameter `param` (the type `t2`) to `t1`. Returns (valid, had a
/// binding).
fn valid_substitution(m: &mut Mapping, t1: &Type, t2: &Type, param: &Arc<str>) -> (bool, bool) {
    if t1 == t2 {
        return (true, true);
    }
    if let Some(sub) = m.find(param).cloned() {
        if *t1 == sub {
            return (true, true);
        }
        if assignable(m, t1, &sub) {
            let new = most_general(t1, &sub);
            if not_referenced_in(m, t2, &new) {
                m.add(param.clone(), new);
            }
            return (true, true);
        }
        return (false, true);
    }
    if not_referenced_in(m, t2, t1) {
        m.add(param.clone(), t1.clone());
        return (true, false);
    }
    (false, false)
}

/// Whether a value of type `t2` may be used where `t1` is expected, extending the mapping.
fn assignable(m: &mut Mapping, t1: &Type, t2: &Type) -> bool {
    if let Type::Param(p2) = t2 {
        let (valid, had_sub) = valid_substitution(m, t1, t2, p2);
        if valid {
            return true;
        }
        if had_sub {
            return false;
        }
    }
    if let Type::Param(p1) = t1 {
        return valid_substitution(m, t2, t1, p1).0;
    }
    if is_dyn_or_error(t1) || is_dyn_or_error(t2) {
        return true;
    }
    if matches!(t1, Type::Null) {
        return nullable(t2);
    }
    if matches!(t2, Type::Null) {
        return nullable(t1);
    }
    match (t1, t2) {
        (Type::TypeOf(_), Type::TypeOf(_)) => true,
        (Type::List(a), Type::List(b)) | (Type::Optional(a), Type::Optional(b)) => {
            assignable(m, a, b)
        }
        (Type::Map(k1, v1), Type::Map(k2, v2)) => assignable(m, k1, k2) && assignable(m, v1, v2),
        (Type::Named(n1, p1), Type::Named(n2, p2)) => {
            n1 == n2 && p1.len() == p2.len() && p1.iter().zip(p2).all(|(a, b)| assignable(m, a, b))
        }
        _ => t1 == t2,
    }
}

/// Types to which `null` may be assigned (cel-go's legacy nullable kinds).
fn nullable(t: &Type) -> bool {
    matches!(
        t,
        Type::Null
            | Type::Named(..)
            | Type::Object(_)
            | Type::Optional(_)
            | Type::Timestamp
            | Type::Duration
    )
}

impl Mapping {
    /// Checks assignability, committing new bindings only on success.
    pub fn is_assignable(&mut self, t1: &Type, t2: &Type) -> bool {
        // Bindings are only ever appended, so undoing a failed attempt is a truncation.
        let mark = self.bindings.len();
        if assignable(self, t1, t2) {
            true
        } else {
            self.bindings.truncate(mark);
            false
        }
    }

    /// Checks a list of argument types against parameter types (all or nothing).
    pub fn is_assignable_list(&mut self, args: &[Type], params: &[Type]) -> bool {
        if args.len() != params.len() {
            return false;
        }
        let mark = self.bindings.len();
        // cel-go checks with the argument as t1 and the parameter as t2.
        if args.iter().zip(params).all(|(a, p)| assignable(self, a, p)) {
            true
        } else {
            self.bindings.truncate(mark);
            false
        }
    }

    /// Replaces bound type parameters by their bindings; unbound ones become `dyn` when
    /// `params_to_dyn` is set.
    pub fn substitute(&self, t: &Type, params_to_dyn: bool) -> Type {
        self.substitute_depth(t, params_to_dyn, 0)
    }

    /// [`Mapping::substitute`] of an owned type, kept as it is when substitution would not
    /// change it.
    pub fn resolve(&self, t: Type, params_to_dyn: bool) -> Type {
        if substitutable(&t, 0) {
            self.substitute(&t, params_to_dyn)
        } else {
            t
        }
    }

    fn substitute_depth(&self, t: &Type, to_dyn: bool, depth: usize) -> Type {
        if depth > SUBSTITUTION_DEPTH {
            return Type::Dyn;
        }
        let sub = |x: &Type| self.substitute_depth(x, to_dyn, depth + 1);
        match t {
            Type::Param(p) => match self.find(p) {
                Some(bound) => sub(bound),
                None if to_dyn => Type::Dyn,
                None => t.clone(),
            },
            Type::List(e) => Type::List(Arc::new(sub(e))),
            Type::Optional(e) => Type::Optional(Arc::new(sub(e))),
            Type::TypeOf(e) => Type::TypeOf(Arc::new(sub(e))),
            Type::Map(k, v) => Type::Map(Arc::new(sub(k)), Arc::new(sub(v))),
            Type::Named(n, ps) => Type::Named(n.clone(), ps.iter().map(sub).collect()),
            other => other.clone(),
        }
    }
}

/// How deep [`Mapping::substitute`] goes; it replaces what is nested deeper by `dyn`.
const SUBSTITUTION_DEPTH: usize = 64;

/// Whether substituting `t` (at `depth`) may change it: it mentions a type parameter or
/// nests deeper than substitution goes.
pub(crate) fn substitutable(t: &Type, depth: usize) -> bool {
    if depth > SUBSTITUTION_DEPTH {
        return true;
    }
    let inner = |t: &Type| substitutable(t, depth + 1);
    match t {
        Type::Param(_) => true,
        Type::List(e) | Type::Optional(e) | Type::TypeOf(e) => inner(e),
        Type::Map(k, v) => inner(k) || inner(v),
        Type::Named(_, ps) => ps.iter().any(inner),
        _ => false,
    }
}

/// Whether a type mentions a type parameter.
pub(crate) fn has_params(t: &Type) -> bool {
    match t {
        Type::Param(_) => true,
        Type::List(e) | Type::Optional(e) | Type::TypeOf(e) => has_params(e),
        Type::Map(k, v) => has_params(k) || has_params(v),
        Type::Named(_, ps) => ps.iter().any(has_params),
        _ => false,
    }
}

/// The name of the checker's `n`th fresh type variable (`_var0`, `_var1`, ...), shared so
/// that creating one does not allocate.
pub(crate) fn fresh_var(n: usize) -> Type {
    static NAMES: std::sync::OnceLock<Vec<Arc<str>>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| (0..256).map(|i| format!("_var{i}").into()).collect());
    match names.get(n) {
        Some(name) => Type::Param(name.clone()),
        None => Type::Param(format!("_var{n}").into()),
    }
}

/// Renames every type parameter of an overload signature with a fresh variable.
/// Pins a renaming closure's argument to the lifetime of the declared types (so that it may
/// keep the names it was given without copying them).
pub(crate) fn renamer<'t, F: FnMut(&'t str) -> Type>(f: F) -> F {
    f
}

pub(crate) fn instantiate<'t>(t: &'t Type, fresh: &mut dyn FnMut(&'t str) -> Type) -> Type {
    match t {
        Type::Param(p) => fresh(p),
        Type::List(e) => Type::List(Arc::new(instantiate(e, fresh))),
        Type::Optional(e) => Type::Optional(Arc::new(instantiate(e, fresh))),
        Type::TypeOf(e) => Type::TypeOf(Arc::new(instantiate(e, fresh))),
        Type::Map(k, v) => Type::Map(
            Arc::new(instantiate(k, fresh)),
            Arc::new(instantiate(v, fresh)),
        ),
        Type::Named(n, ps) => Type::Named(
            n.clone(),
            ps.iter().map(|p| instantiate(p, fresh)).collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Type {
        Type::parse(s).unwrap()
    }

    #[test]
    fn params_bind_and_generalise() {
        let mut m = Mapping::default();
        assert!(m.is_assignable_list(
            &[t("list(int)"), t("list(int)")],
            &[t("list(A)"), t("list(A)")]
        ));
        assert_eq!(m.substitute(&t("list(A)"), true), t("list(int)"));
        let mut m = Mapping::default();
        assert!(!m.is_assignable_list(
            &[t("list(int)"), t("list(string)")],
            &[t("list(A)"), t("list(A)")]
        ));
        let mut m = Mapping::default();
        assert!(m.is_assignable_list(
            &[t("list(int)"), t("list(dyn)")],
            &[t("list(A)"), t("list(A)")]
        ));
        assert_eq!(m.substitute(&t("A"), true), t("dyn"));
    }

    #[test]
    fn resolve_is_substitute() {
        let mut m = Mapping::default();
        assert!(m.is_assignable(&t("A"), &t("int")));
        let deep = (0..70).fold(Type::Int, |t, _| Type::list(t));
        for ty in [t("list(A)"), t("map(string, B)"), t("list(int)"), deep] {
            for to_dyn in [false, true] {
                assert_eq!(m.resolve(ty.clone(), to_dyn), m.substitute(&ty, to_dyn));
            }
        }
    }

    #[test]
    fn dyn_and_null_rules() {
        let mut m = Mapping::default();
        assert!(m.is_assignable(&t("int"), &t("dyn")));
        assert!(!m.is_assignable(&t("int"), &t("null")));
        assert!(m.is_assignable(&t("timestamp"), &t("null")));
        assert!(!m.is_assignable(&t("int"), &t("uint")));
    }
}
