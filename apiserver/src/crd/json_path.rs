//! The simple JSONPaths of CRDs (printer columns, scale paths): `.spec.replicas`,
//! `.status.conditions[0].type`, `.metadata.labels['app.kubernetes.io/name']`.

use serde_json::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// An object's field.
    Field(String),
    /// A list's item.
    Index(usize),
}

/// Parses a simple JSONPath (an optional `{...}` wrapper, then `.field`, `['field']` and
/// `[index]` steps); `None` for anything else.
pub fn parse(path: &str) -> Option<Vec<Step>> {
    let path = path.trim();
    let path = path
        .strip_prefix('{')
        .and_then(|p| p.strip_suffix('}'))
        .unwrap_or(path);
    let path = path.strip_prefix('$').unwrap_or(path);
    let mut steps = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Field(r[..end].to_owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            match quoted {
                Some(name) => steps.push(Step::Field(name.to_owned())),
                None => steps.push(Step::Index(inner.parse().ok()?)),
            }
            rest = &r[end + 1..];
        } else {
            return None;
        }
    }
    Some(steps)
}

/// The value at `steps` in `value`.
pub fn get<'a>(value: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    let mut at = value;
    for step in steps {
        at = match step {
            Step::Field(f) => at.get(f.as_str())?,
            Step::Index(i) => at.get(*i)?,
        };
    }
    Some(at)
}

/// Sets the value at `steps` (objects made on the way; `false` when a step cannot be taken).
pub fn set(value: &mut Value, steps: &[Step], new: Value) -> bool {
    let Some((last, parents)) = steps.split_last() else {
        return false;
    };
    let mut at = value;
    for step in parents {
        at = match step {
            Step::Field(f) => {
                let Some(map) = at.as_object_mut() else {
                    return false;
                };
                map.entry(f.clone())
                    .or_insert_with(|| Value::Object(Default::default()))
            }
            Step::Index(i) => match at.get_mut(*i) {
                Some(v) => v,
                None => return false,
            },
        };
    }
    match (last, at) {
        (Step::Field(f), Value::Object(map)) => {
            map.insert(f.clone(), new);
            true
        }
        (Step::Index(i), Value::Array(items)) if *i < items.len() => {
            items[*i] = new;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn simple_paths() {
        let v = json!({"spec": {"replicas": 3, "list": [{"a": 1}]}, "metadata": {"labels": {"x.y/z": "q"}}});
        let at = |p: &str| get(&v, &parse(p).unwrap()).cloned();
        assert_eq!(at(".spec.replicas"), Some(json!(3)));
        assert_eq!(at("{.spec.list[0].a}"), Some(json!(1)));
        assert_eq!(at(".metadata.labels['x.y/z']"), Some(json!("q")));
        assert_eq!(at(".spec.missing"), None);
        assert!(parse("spec..x").is_none());
        let mut w = json!({});
        assert!(set(&mut w, &parse(".status.replicas").unwrap(), json!(2)));
        assert_eq!(w, json!({"status": {"replicas": 2}}));
    }
}
