//! Name resolution against a container (cel-spec's "Name Resolution"): the candidate fully
//! qualified names of an identifier, a function or a type name, most qualified first. The
//! checker and the planner resolve names the same way through these two functions.

/// Candidate fully qualified names for `name` in `container`, most qualified first
/// (cel-spec's name resolution). A leading dot means the name is already absolute.
pub(crate) fn candidate_names(name: &str, container: &str) -> Vec<String> {
    if let Some(abs) = name.strip_prefix('.') {
        return vec![abs.to_string()];
    }
    let mut out = Vec::new();
    let mut prefix = container;
    while !prefix.is_empty() {
        out.push(format!("{prefix}.{name}"));
        prefix = prefix.rfind('.').map_or("", |i| &prefix[..i]);
    }
    out.push(name.to_string());
    out
}

/// Calls `f` with the candidate names of [`candidate_names`], in its order, until `f` returns
/// `Some`; allocates nothing when the container is empty (the usual case).
pub(crate) fn find_candidate<R>(
    name: &str,
    container: &str,
    mut f: impl FnMut(&str) -> Option<R>,
) -> Option<R> {
    if let Some(abs) = name.strip_prefix('.') {
        return f(abs);
    }
    let mut prefix = container;
    let mut buf = String::new();
    while !prefix.is_empty() {
        buf.clear();
        buf.push_str(prefix);
        buf.push('.');
        buf.push_str(name);
        if let Some(r) = f(&buf) {
            return Some(r);
        }
        prefix = prefix.rfind('.').map_or("", |i| &prefix[..i]);
    }
    f(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_follow_the_container() {
        assert_eq!(
            candidate_names("y", "com.example"),
            ["com.example.y", "com.y", "y"]
        );
        assert_eq!(candidate_names(".y", "com.example"), ["y"]);
        assert_eq!(candidate_names("y", ""), ["y"]);
    }
}
