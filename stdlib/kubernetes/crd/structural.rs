//! Kubernetes' structural-schema checks, as far as they decide what happens to rules: a CRD
//! schema that is not structural is rejected before any rule is compiled (and before
//! defaults are validated), and list-type mistakes at a node keep the rules at that node and
//! above from being compiled.
//!
//! Sources: apiextensions-apiserver `pkg/apiserver/schema/validation.go`
//! (`validateStructuralInvariants`, `validateNestedValueValidation`), `complete.go`
//! (`validateStructuralCompleteness`) and `pkg/apis/apiextensions/validation/validation.go`
//! (list and map types; the atomic-set-items check applies to new CRDs).

use super::field_error::{ErrorType, FieldError, FieldPath, go_json_quote, go_quote};
use super::schema::{AdditionalProperties, Dependency, Schema};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// The structural-schema errors of a CRD version's schema (`path` is the schema's own path,
/// `spec.versions[0].schema.openAPIV3Schema`). Kubernetes compiles no rule and validates no
/// default when there are any. A schema that is not a resource root is checked as an object
/// field.
pub fn structural_errors(
    root: &Schema,
    path: &FieldPath,
    is_resource_root: bool,
) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let level = if is_resource_root {
        Level::Root
    } else {
        Level::Field
    };
    invariants(root, level, path, &mut errors, 0);
    completeness(root, root, path, path, &mut errors, 0);
    errors
}

const MAX_DEPTH: usize = super::decl_types::MAX_SCHEMA_DEPTH;

fn invariants(s: &Schema, level: Level, path: &FieldPath, out: &mut Vec<FieldError>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    if s.type_ == "array" && s.items().is_none() {
        out.push(required(path.child("items"), "must be specified"));
    }
    if let Some(items) = s.items() {
        invariants(items, Level::Item, &path.child("items"), out, depth + 1);
    }
    for (k, p) in &s.properties {
        invariants(
            p,
            Level::Field,
            &path.child("properties").key(k),
            out,
            depth + 1,
        );
    }
    if let Some(additional) = &s.additional_properties {
        if level == Level::Root {
            out.push(forbidden(
                path.child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let AdditionalProperties::Schema(values) = additional {
            invariants(
                values,
                Level::Field,
                &path.child("additionalProperties"),
                out,
                depth + 1,
            );
        }
    }
    if s.int_or_string && s.preserves_unknown_fields() {
        out.push(invalid_raw(
            path.child("x-kubernetes-preserve-unknown-fields"),
            "true",
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if s.int_or_string && s.embedded_resource {
        out.push(invalid_raw(
            path.child("x-kubernetes-embedded-resource"),
            "true",
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    value_validation(
        s,
        is_int_or_string_any_of(&s.any_of),
        s.all_of
            .first()
            .is_some_and(|a| is_int_or_string_any_of(&a.any_of)),
        path,
        out,
        depth,
    );
    let check_metadata = level == Level::Root || s.embedded_resource;
    if s.embedded_resource && s.type_ != "object" {
        let msg = "must be object if x-kubernetes-embedded-resource is true";
        out.push(if s.type_.is_empty() {
            required(path.child("type"), msg)
        } else {
            invalid(path.child("type"), &s.type_, msg)
        });
    } else if s.type_.is_empty() && !s.int_or_string && !s.preserves_unknown_fields() {
        let msg = match level {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        out.push(required(path.child("type"), msg));
    }
    if s.embedded_resource && s.additional_properties.is_some() {
        out.push(forbidden(
            path.child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if level == Level::Root && !s.type_.is_empty() && s.type_ != "object" {
        out.push(invalid(
            path.child("type"),
            &s.type_,
            "must be object at the root",
        ));
    }
    if check_metadata {
        for name in ["kind", "apiVersion"] {
            if let Some(p) = s.properties.get(name).filter(|p| p.type_ != "string") {
                out.push(invalid(
                    path.child("properties").key(name).child("type"),
                    &p.type_,
                    "must be string",
                ));
            }
        }
    }
    if let Some(meta) = s.properties.get("metadata") {
        let at = path.child("properties").key("metadata");
        if check_metadata && meta.type_ != "object" {
            out.push(invalid(at.child("type"), &meta.type_, "must be object"));
        }
        if level == Level::Root && !metadata_is_implicit(meta) {
            out.push(forbidden(
                at,
                "must not specify anything other than name and generateName, but metadata is implicitly specified",
            ));
        }
    }
    if s.embedded_resource && !s.preserves_unknown_fields() && s.properties.is_empty() {
        out.push(required(
            path.child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

/// Whether a root `metadata` schema says nothing beyond `name` and/or `generateName` (its
/// type and default aside).
fn metadata_is_implicit(meta: &Schema) -> bool {
    let names_only = meta
        .properties
        .keys()
        .all(|k| k == "name" || k == "generateName");
    let mut rest = meta.clone();
    if names_only {
        rest.properties.clear();
    }
    rest.type_.clear();
    rest.default = None;
    rest == Schema::default()
}

/// `anyOf: [{type: integer}, {type: string}]`, the int-or-string pattern whose types are
/// allowed.
fn is_int_or_string_any_of(any_of: &[Schema]) -> bool {
    let only_type = |t: &str| Schema {
        type_: t.into(),
        ..Schema::default()
    };
    any_of.len() == 2 && any_of[0] == only_type("integer") && any_of[1] == only_type("string")
}

/// A schema's value validations (upstream's `validateValueValidation`): the schemas under its
/// junctors, and its `pattern`, which must compile.
fn value_validation(
    v: &Schema,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    path: &FieldPath,
    out: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if !skip_any_of {
        for (i, n) in v.any_of.iter().enumerate() {
            nested(n, false, &path.child("anyOf").index(i), out, depth + 1);
        }
    }
    for (i, n) in v.all_of.iter().enumerate() {
        let skip = skip_first_all_of_any_of && i == 0;
        nested(n, skip, &path.child("allOf").index(i), out, depth + 1);
    }
    for (i, n) in v.one_of.iter().enumerate() {
        nested(n, false, &path.child("oneOf").index(i), out, depth + 1);
    }
    if let Some(n) = v.not.as_deref() {
        nested(n, false, &path.child("not"), out, depth + 1);
    }
    if !v.pattern.is_empty()
        && let Err(e) = kcel::library::standard::compile_regex(&v.pattern)
    {
        let detail = format!("must be a valid regular expression, but isn't: {e}");
        out.push(invalid(path.child("pattern"), &v.pattern, &detail));
    }
}

/// A schema under `allOf`, `anyOf`, `oneOf` or `not`: value validations only.
fn nested(
    v: &Schema,
    skip_any_of: bool,
    path: &FieldPath,
    out: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    value_validation(v, skip_any_of, false, path, out, depth);
    if let Some(items) = v.items() {
        nested(items, false, &path.child("items"), out, depth + 1);
    }
    for (k, p) in &v.properties {
        nested(p, false, &path.child("properties").key(k), out, depth + 1);
    }
    let checks: [(bool, &str, &str); 13] = [
        (
            !v.type_.is_empty(),
            "type",
            "must be empty to be structural",
        ),
        (
            v.additional_properties.is_some(),
            "additionalProperties",
            "must be undefined to be structural",
        ),
        (
            v.default.is_some(),
            "default",
            "must be undefined to be structural",
        ),
        (
            !v.title.is_empty(),
            "title",
            "must be empty to be structural",
        ),
        (
            !v.description.is_empty(),
            "description",
            "must be empty to be structural",
        ),
        (v.nullable, "nullable", "must be false to be structural"),
        (
            v.preserves_unknown_fields(),
            "x-kubernetes-preserve-unknown-fields",
            "must be false to be structural",
        ),
        (
            v.embedded_resource,
            "x-kubernetes-embedded-resource",
            "must be false to be structural",
        ),
        (
            v.int_or_string,
            "x-kubernetes-int-or-string",
            "must be false to be structural",
        ),
        (
            !v.list_map_keys.is_empty(),
            "x-kubernetes-list-map-keys",
            "must be empty to be structural",
        ),
        (
            v.list_type.is_some(),
            "x-kubernetes-list-type",
            "must be undefined to be structural",
        ),
        (
            v.map_type.is_some(),
            "x-kubernetes-map-type",
            "must be undefined to be structural",
        ),
        (
            !v.validations.is_empty(),
            "x-kubernetes-validations",
            "must be empty to be structural",
        ),
    ];
    for (bad, name, msg) in checks {
        if bad {
            out.push(forbidden(path.child(name), msg));
        }
    }
    if v.properties.contains_key("metadata") {
        out.push(forbidden(
            path.child("properties").key("metadata"),
            "must not be specified in a nested context",
        ));
    }
}

/// Every property, `items` or `additionalProperties` a root-level junctor constrains must
/// exist in the structural part of the schema.
fn completeness(
    v: &Schema,
    s: &Schema,
    s_path: &FieldPath,
    v_path: &FieldPath,
    out: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let junctors = v
        .not
        .as_deref()
        .map(|n| (n, v_path.child("not")))
        .into_iter()
        .chain(
            v.all_of
                .iter()
                .enumerate()
                .map(|(i, n)| (n, v_path.child("allOf").index(i))),
        )
        .chain(
            v.any_of
                .iter()
                .enumerate()
                .map(|(i, n)| (n, v_path.child("anyOf").index(i))),
        )
        .chain(
            v.one_of
                .iter()
                .enumerate()
                .map(|(i, n)| (n, v_path.child("oneOf").index(i))),
        );
    for (n, at) in junctors {
        nested_completeness(n, Some(s), s_path, &at, out, depth + 1);
    }
}

fn nested_completeness(
    v: &Schema,
    s: Option<&Schema>,
    s_path: &FieldPath,
    v_path: &FieldPath,
    out: &mut Vec<FieldError>,
    depth: usize,
) {
    let Some(s) = s else {
        out.push(required(
            s_path.clone(),
            format!("because it is defined in {v_path}"),
        ));
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    completeness(v, s, s_path, v_path, out, depth);
    if let Some(items) = v.items() {
        nested_completeness(
            items,
            s.items(),
            &s_path.child("items"),
            &v_path.child("items"),
            out,
            depth + 1,
        );
    }
    for (k, p) in &v.properties {
        let s_at = s_path.child("properties").key(k);
        let v_at = v_path.child("properties").key(k);
        match s.properties.get(k) {
            Some(sp) => nested_completeness(p, Some(sp), &s_at, &v_at, out, depth + 1),
            None => out.push(required(s_at, format!("because it is defined in {v_at}"))),
        }
    }
}

/// Why a schema cannot be made structural at all (apiextensions-apiserver `NewStructural`,
/// `pkg/apiserver/schema/convert.go`): a keyword a CRD may not use, anywhere in the spine or
/// its junctors, or `x-kubernetes-preserve-unknown-fields: false`. Kubernetes then runs no
/// structural check, validates no default and compiles no rule; it reports this text (at the
/// schema, `Invalid value: ""`) only when the schema has no other error.
pub fn conversion_error(s: &Schema) -> Option<&'static str> {
    conversion_error_at(s, 0)
}

fn conversion_error_at(s: &Schema, depth: usize) -> Option<&'static str> {
    if depth > MAX_DEPTH {
        return None;
    }
    let u = &s.unsupported;
    let unsupported = [
        (!u.id.is_empty(), "OpenAPIV3Schema 'id' is not supported"),
        (
            !u.schema.is_empty(),
            "OpenAPIV3Schema 'schema' is not supported",
        ),
        (
            u.reference.as_deref().is_some_and(|r| !r.is_empty()),
            "OpenAPIV3Schema '$ref' is not supported",
        ),
        (
            !u.pattern_properties.is_empty(),
            "OpenAPIV3Schema 'patternProperties' is not supported",
        ),
        (
            u.dependencies.as_ref().is_some_and(|d| !d.is_empty()),
            "OpenAPIV3Schema 'dependencies' is not supported",
        ),
        (
            u.additional_items.is_some(),
            "OpenAPIV3Schema 'additionalItems' is not supported",
        ),
        (
            !u.definitions.is_empty(),
            "OpenAPIV3Schema 'definitions' is not supported",
        ),
    ];
    if let Some((_, msg)) = unsupported.into_iter().find(|(bad, _)| *bad) {
        return Some(msg);
    }
    // The value validations (not, allOf, anyOf, oneOf), the generic fields
    // (additionalProperties), the extensions, then items and properties.
    let junctors = s
        .not
        .as_deref()
        .into_iter()
        .chain(&s.all_of)
        .chain(&s.any_of)
        .chain(&s.one_of);
    let below = junctors.chain(s.additional_schema());
    if let Some(e) = below
        .into_iter()
        .find_map(|n| conversion_error_at(n, depth + 1))
    {
        return Some(e);
    }
    if s.preserve_unknown_fields == Some(false) {
        return Some(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined",
        );
    }
    // An empty array is as if `items` were not given.
    if !s.item_array().is_empty() {
        return Some("OpenAPIV3Schema 'items' must be a schema, but is an array");
    }
    s.items()
        .into_iter()
        .chain(s.properties.values())
        .find_map(|n| conversion_error_at(n, depth + 1))
}

/// What a node's keyword checks depend on above it (apiextensions-apiserver's
/// `specStandardValidator` as `ValidateCustomResourceDefinitionOpenAPISchema` hands it
/// down): whether the node describes a resource's TypeMeta or ObjectMeta (at the root or
/// in an embedded resource), and why `default` is forbidden there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeContext {
    /// Inside `metadata`, `kind` or `apiVersion` of the root or of an embedded resource.
    inside_resource_meta: bool,
    /// Why a `default` here is forbidden (`in top-level metadata`), if it is.
    forbidden_defaults: Option<&'static str>,
}

impl NodeContext {
    /// The context of the property `name` of `parent` (a node in this context;
    /// `parent_is_root`: the schema's root).
    pub fn property(self, parent: &Schema, parent_is_root: bool, name: &str) -> NodeContext {
        let meta_field = match name {
            "metadata" => "in top-level metadata",
            "kind" => "in top-level kind",
            "apiVersion" => "in top-level apiVersion",
            _ => return self,
        };
        if !(parent_is_root || parent.embedded_resource) {
            return self;
        }
        NodeContext {
            inside_resource_meta: true,
            forbidden_defaults: if parent_is_root {
                Some(meta_field)
            } else {
                self.forbidden_defaults
            },
        }
    }

    /// The context of `additionalProperties` of a node in this context: no defaults
    /// under resource metadata (pruning without a value is ambiguous).
    pub fn additional_properties(self) -> NodeContext {
        if !self.inside_resource_meta {
            return self;
        }
        NodeContext {
            forbidden_defaults: Some("inside additionalProperties applying to object metadata"),
            ..self
        }
    }
}

/// The schema errors of one node that Kubernetes reports with its rule-field errors: the
/// keywords a CRD may not use, the type name, `default` where it is forbidden, `uniqueItems`,
/// `additionalProperties` beside `properties`, `x-kubernetes-preserve-unknown-fields: false`,
/// list and map types (`validation.go`, `specStandardValidatorV3` and
/// `ValidateCustomResourceDefinitionOpenAPISchema`). They keep the rules at this node and
/// above from being compiled. Kubernetes checks the nodes under `allOf`, `anyOf`, `oneOf`,
/// `not`, `definitions` and `dependencies` so too ([`junctor_schemas`]).
pub fn node_errors(s: &Schema, path: &FieldPath, context: NodeContext) -> Vec<FieldError> {
    let mut out = Vec::new();
    const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
    if !s.type_.is_empty() && !TYPES.contains(&s.type_.as_str()) {
        out.push(not_supported(path.child("type"), &s.type_, &TYPES));
    }
    if s.default.is_some()
        && let Some(reason) = context.forbidden_defaults
    {
        out.push(forbidden(
            path.child("default"),
            format!("must not be set {reason}"),
        ));
    }
    let u = &s.unsupported;
    let refused = [
        (!u.id.is_empty(), "id"),
        (u.additional_items.is_some(), "additionalItems"),
        (!u.pattern_properties.is_empty(), "patternProperties"),
        (!u.definitions.is_empty(), "definitions"),
        (u.dependencies.is_some(), "dependencies"),
        (u.reference.is_some(), "$ref"),
    ];
    for (_, keyword) in refused.into_iter().filter(|(bad, _)| *bad) {
        out.push(forbidden(
            path.child(keyword),
            format!("{keyword} is not supported"),
        ));
    }
    if s.type_ == "null" {
        out.push(forbidden(
            path.child("type"),
            "type cannot be set to null, use nullable as an alternative",
        ));
    }
    if !s.item_array().is_empty() {
        out.push(forbidden(
            path.child("items"),
            "items must be a schema object and not an array",
        ));
    }
    if context.inside_resource_meta && s.embedded_resource {
        out.push(forbidden(
            path.child("x-kubernetes-embedded-resource"),
            "must not be used inside of resource meta",
        ));
    }
    // After the standard keyword checks, before the extensions' (apis validation.go
    // ValidateCustomResourceDefinitionOpenAPISchema).
    if s.unique_items {
        out.push(forbidden(
            path.child("uniqueItems"),
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
        ));
    }
    // Properties are for structs, additionalProperties for maps (Kubernetes' convention of
    // ignoring unknown fields); `additionalProperties: true` beside properties is allowed.
    if !s.properties.is_empty()
        && s.additional_properties.is_some()
        && s.additional_properties != Some(AdditionalProperties::Bool(true))
    {
        out.push(forbidden(
            path.child("additionalProperties"),
            "additionalProperties and properties are mutual exclusive",
        ));
    }
    if s.preserve_unknown_fields == Some(false) {
        out.push(invalid_raw(
            path.child("x-kubernetes-preserve-unknown-fields"),
            "false",
            "must be true or undefined",
        ));
    }
    if s.map_type.is_some() && s.type_ != "object" {
        let msg = "must be object if x-kubernetes-map-type is specified";
        out.push(if s.type_.is_empty() {
            required(path.child("type"), msg)
        } else {
            invalid(path.child("type"), &s.type_, msg)
        });
    }
    if let Some(m) = s
        .map_type
        .as_deref()
        .filter(|m| !["atomic", "granular"].contains(m))
    {
        out.push(not_supported(
            path.child("x-kubernetes-map-type"),
            m,
            &["atomic", "granular"],
        ));
    }
    let list_type = s.list_type.as_deref();
    if list_type.is_some() && s.type_ != "array" {
        let msg = "must be array if x-kubernetes-list-type is specified";
        out.push(if s.type_.is_empty() {
            required(path.child("type"), msg)
        } else {
            invalid(path.child("type"), &s.type_, msg)
        });
    } else if let (Some("set"), Some(items)) = (list_type, s.items()) {
        let msg = "must be atomic as item of a list with x-kubernetes-list-type=set";
        match items.type_.as_str() {
            "array" if items.list_type.as_deref().is_some_and(|t| t != "atomic") => {
                out.push(invalid_raw(
                    path.child("items").child("x-kubernetes-list-type"),
                    &go_json_quote(items.list_type.as_deref().unwrap_or_default()),
                    msg,
                ));
            }
            // Kubernetes shows the items' x-kubernetes-list-type here (null when unset).
            "object" if items.map_type.as_deref() != Some("atomic") => {
                out.push(invalid_raw(
                    path.child("items").child("x-kubernetes-map-type"),
                    &items
                        .list_type
                        .as_deref()
                        .map_or("null".to_string(), go_json_quote),
                    msg,
                ));
            }
            _ => {}
        }
    }
    if let Some(t) = list_type.filter(|t| !["atomic", "set", "map"].contains(t)) {
        out.push(not_supported(
            path.child("x-kubernetes-list-type"),
            t,
            &["atomic", "set", "map"],
        ));
    }
    if !s.list_map_keys.is_empty() {
        let msg = "must be map if x-kubernetes-list-map-keys is non-empty";
        match list_type {
            None => out.push(required(path.child("x-kubernetes-list-type"), msg)),
            Some(t) if t != "map" => {
                out.push(invalid(path.child("x-kubernetes-list-type"), t, msg));
            }
            _ => {}
        }
    }
    if list_type == Some("map") {
        out.extend(map_list_errors(s, path));
    }
    if let (Some(t @ ("set" | "map")), Some(items)) = (list_type, s.items()) {
        if items.nullable {
            out.push(forbidden(
                path.child("items").child("nullable"),
                format!("cannot be nullable when x-kubernetes-list-type is {t}"),
            ));
        }
        if t == "map" {
            for k in &s.list_map_keys {
                let Some(p) = items.properties.get(k) else {
                    continue;
                };
                let at = path.child("items").child("properties").key(k);
                if !items.required.contains(k) && p.default.is_none() {
                    out.push(required(
                        at.child("default"),
                        "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                    ));
                }
                if p.nullable {
                    out.push(forbidden(
                        at.child("nullable"),
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                    ));
                }
            }
        }
    }
    out
}

/// The schemas below a node that are checked as nodes but are no part of its structure:
/// `not`, `allOf`, `oneOf`, `anyOf`, `definitions` and the schemas of `dependencies`, in
/// Kubernetes' order, each with its path. `patternProperties` and `additionalItems` are
/// refused without being looked into.
pub fn junctor_schemas<'a>(s: &'a Schema, path: &FieldPath) -> Vec<(&'a Schema, FieldPath)> {
    let not = s.not.as_deref().map(|n| (n, path.child("not")));
    let indexed = |name: &'static str, list: &'a [Schema]| {
        let at = path.child(name);
        list.iter().enumerate().map(move |(i, n)| (n, at.index(i)))
    };
    let definitions = s
        .unsupported
        .definitions
        .iter()
        .map(|(k, n)| (n, path.child("definitions").key(k)));
    let dependencies = s
        .unsupported
        .dependencies
        .iter()
        .flatten()
        .filter_map(|(k, d)| match d {
            Dependency::Schema(n) => Some((&**n, path.child("dependencies").key(k))),
            Dependency::Properties(_) => None,
        });
    not.into_iter()
        .chain(indexed("allOf", &s.all_of))
        .chain(indexed("oneOf", &s.one_of))
        .chain(indexed("anyOf", &s.any_of))
        .chain(definitions)
        .chain(dependencies)
        .collect()
}

/// The checks of a map list's keys and items.
fn map_list_errors(s: &Schema, path: &FieldPath) -> Vec<FieldError> {
    let mut out = Vec::new();
    if s.list_map_keys.is_empty() {
        out.push(required(
            path.child("x-kubernetes-list-map-keys"),
            "must not be empty if x-kubernetes-list-type is map",
        ));
    }
    // Kubernetes also reports `items` given as an array here ("must only have a single
    // schema"), with the Go value dumped by `%#v`, pointer addresses included: a text no
    // one can reproduce. The array is refused by `node_errors` in any case.
    if !s.item_array().is_empty() {
        return out;
    }
    let Some(items) = s.items() else {
        out.push(required(
            path.child("items"),
            "must have a schema if x-kubernetes-list-type is map",
        ));
        return out;
    };
    if items.type_ != "object" {
        out.push(invalid(
            path.child("items").child("type"),
            &items.type_,
            "must be object if parent array's x-kubernetes-list-type is map",
        ));
        return out;
    }
    // Kubernetes shows the keys as Go's json.Marshal of the list.
    let keys: Vec<String> = s.list_map_keys.iter().map(|k| go_json_quote(k)).collect();
    let keys = format!("[{}]", keys.join(","));
    let mut seen = std::collections::HashSet::new();
    for k in &s.list_map_keys {
        match items.properties.get(k) {
            Some(p) if p.type_ == "array" || p.type_ == "object" => out.push(invalid(
                path.child("items").child("properties").key(k).child("type"),
                &items.type_,
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
            )),
            Some(_) => {}
            None => out.push(invalid_raw(
                path.child("x-kubernetes-list-map-keys"),
                &keys,
                "entries must all be names of item properties",
            )),
        }
        if !seen.insert(k) {
            out.push(invalid_raw(
                path.child("x-kubernetes-list-map-keys"),
                &keys,
                "must not contain duplicate entries",
            ));
        }
    }
    out
}

fn required(path: FieldPath, detail: impl Into<String>) -> FieldError {
    FieldError::new(path, ErrorType::Required, "", detail)
}

fn forbidden(path: FieldPath, detail: impl Into<String>) -> FieldError {
    FieldError::new(path, ErrorType::Forbidden, "", detail)
}

fn invalid(path: FieldPath, value: &str, detail: &str) -> FieldError {
    FieldError::new(path, ErrorType::Invalid, value, detail)
}

fn invalid_raw(path: FieldPath, rendered: &str, detail: &str) -> FieldError {
    FieldError::with_rendered_value(path, ErrorType::Invalid, rendered.to_string(), detail)
}

fn not_supported(path: FieldPath, value: &str, supported: &[&str]) -> FieldError {
    let list: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
    FieldError::new(
        path,
        ErrorType::NotSupported,
        value,
        format!("supported values: {}", list.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(v: serde_json::Value) -> Vec<String> {
        let s = Schema::from_json(&v).unwrap();
        let mut out: Vec<String> = structural_errors(&s, &FieldPath::new("schema"), true)
            .iter()
            .map(|e| e.to_string())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn junctors_hold_value_validations_only() {
        let got = errors(json!({
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "allOf": [{"properties": {"a": {"x-kubernetes-validations": [{"rule": "true"}]}}}],
            "anyOf": [{"type": "object", "nullable": true}],
            "not": {"default": 1, "properties": {"b": {}}}
        }));
        assert_eq!(
            got,
            [
                "schema.allOf[0].properties[a].x-kubernetes-validations: Forbidden: must be empty to be structural",
                "schema.anyOf[0].nullable: Forbidden: must be false to be structural",
                "schema.anyOf[0].type: Forbidden: must be empty to be structural",
                "schema.not.default: Forbidden: must be undefined to be structural",
                "schema.properties[b]: Required value: because it is defined in schema.not.properties[b]",
            ]
        );
    }

    #[test]
    fn int_or_string_patterns_may_name_types() {
        let ios = json!([{"type": "integer"}, {"type": "string"}]);
        assert!(errors(json!({"type": "object", "properties": {
            "a": {"x-kubernetes-int-or-string": true, "anyOf": ios},
            "b": {"x-kubernetes-int-or-string": true, "allOf": [{"anyOf": ios}, {"maxLength": 3}]}
        }}))
        .is_empty());
    }

    #[test]
    fn spine_invariants() {
        let got = errors(json!({
            "type": "object",
            "additionalProperties": {"type": "string"},
            "properties": {
                "l": {"type": "array"},
                "u": {},
                "e": {"type": "string", "x-kubernetes-embedded-resource": true},
                "metadata": {"type": "object", "properties": {"labels": {"type": "object"}}}
            }
        }));
        assert_eq!(
            got,
            [
                "schema.additionalProperties: Forbidden: must not be used at the root",
                "schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
                "schema.properties[e].type: Invalid value: \"string\": must be object if x-kubernetes-embedded-resource is true",
                "schema.properties[l].items: Required value: must be specified",
                "schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
                "schema.properties[u].type: Required value: must not be empty for specified object fields",
            ]
        );
        assert!(
            errors(json!({"type": "object", "properties": {
                "metadata": {"type": "object", "properties": {"name": {"type": "string"}}}
            }}))
            .is_empty()
        );
    }

    #[test]
    fn refused_keywords_make_a_schema_unconvertible() {
        let conversion = |v: serde_json::Value| conversion_error(&Schema::from_json(&v).unwrap());
        assert_eq!(conversion(json!({"type": "object"})), None);
        assert_eq!(
            conversion(json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}})),
            Some("OpenAPIV3Schema '$ref' is not supported")
        );
        // Junctors are converted before items and properties; `id` before the rest.
        assert_eq!(
            conversion(
                json!({"not": {"definitions": {"d": {}}}, "items": {"id": "i"},
                              "dependencies": {}})
            ),
            Some("OpenAPIV3Schema 'definitions' is not supported")
        );
        assert_eq!(
            conversion(
                json!({"additionalProperties": {"x-kubernetes-preserve-unknown-fields": false}})
            ),
            Some(
                "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined"
            )
        );
        assert_eq!(
            conversion(json!({"$schema": "s", "$ref": ""})),
            Some("OpenAPIV3Schema 'schema' is not supported")
        );
    }

    #[test]
    fn defaults_are_forbidden_in_resource_meta() {
        let root = Schema::from_json(&json!({"type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {
                "kind": {"type": "string"}, "other": {"type": "string"}}}
        }}))
        .unwrap();
        let top = NodeContext::default();
        let meta = top.property(&root, true, "metadata");
        assert_eq!(meta.forbidden_defaults, Some("in top-level metadata"));
        assert!(meta.inside_resource_meta);
        assert_eq!(
            meta.additional_properties().forbidden_defaults,
            Some("inside additionalProperties applying to object metadata")
        );
        let spec = top.property(&root, true, "spec");
        assert_eq!(spec, top);
        assert_eq!(spec.additional_properties(), top);
        let embedded = &root.properties["spec"];
        let kind = spec.property(embedded, false, "kind");
        assert!(kind.inside_resource_meta);
        assert_eq!(kind.forbidden_defaults, None);
        assert_eq!(spec.property(embedded, false, "other"), spec);
        let node =
            Schema::from_json(&json!({"type": "string", "default": "x", "$ref": "r"})).unwrap();
        let got: Vec<String> = node_errors(&node, &FieldPath::new("s"), meta)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            got,
            [
                "s.default: Forbidden: must not be set in top-level metadata",
                "s.$ref: Forbidden: $ref is not supported",
            ]
        );
    }

    #[test]
    fn set_items_must_be_atomic() {
        let s = Schema::from_json(&json!({"type": "object", "properties": {
            "objs": {"type": "array", "x-kubernetes-list-type": "set",
                     "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
            "ok": {"type": "array", "x-kubernetes-list-type": "set",
                   "items": {"type": "object", "x-kubernetes-map-type": "atomic"}},
            "lists": {"type": "array", "x-kubernetes-list-type": "set",
                      "items": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}},
            "n": {"type": "array", "x-kubernetes-list-type": "set",
                  "items": {"type": "string", "nullable": true}},
            "bad": {"type": "string", "x-kubernetes-list-type": "bag"},
            "nil": {"type": "null"},
            "ml": {"type": "array", "x-kubernetes-list-type": "map",
                   "x-kubernetes-list-map-keys": ["k", "o", "nope", "k", "n"],
                   "items": {"type": "object", "required": ["k"], "properties": {
                       "k": {"type": "string"}, "o": {"type": "object"},
                       "n": {"type": "string", "nullable": true, "default": "x"}}}},
            "keys": {"type": "array", "x-kubernetes-list-map-keys": ["a"],
                     "items": {"type": "object", "properties": {"a": {"type": "string"}}}}
        }}))
        .unwrap();
        let path = FieldPath::new("s");
        let got: Vec<String> = s
            .properties
            .iter()
            .flat_map(|(k, p)| {
                node_errors(p, &path.child("properties").key(k), NodeContext::default())
            })
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            got,
            [
                "s.properties[bad].type: Invalid value: \"string\": must be array if x-kubernetes-list-type is specified",
                "s.properties[bad].x-kubernetes-list-type: Unsupported value: \"bag\": supported values: \"atomic\", \"set\", \"map\"",
                "s.properties[keys].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty",
                "s.properties[lists].items.x-kubernetes-list-type: Invalid value: \"set\": must be atomic as item of a list with x-kubernetes-list-type=set",
                "s.properties[ml].items.properties[o].type: Invalid value: \"object\": must be a scalar type if parent array's x-kubernetes-list-type is map",
                "s.properties[ml].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"o\",\"nope\",\"k\",\"n\"]: entries must all be names of item properties",
                "s.properties[ml].x-kubernetes-list-map-keys: Invalid value: [\"k\",\"o\",\"nope\",\"k\",\"n\"]: must not contain duplicate entries",
                "s.properties[ml].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
                "s.properties[ml].items.properties[n].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable",
                "s.properties[n].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set",
                "s.properties[nil].type: Unsupported value: \"null\": supported values: \"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"",
                "s.properties[nil].type: Forbidden: type cannot be set to null, use nullable as an alternative",
                "s.properties[objs].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set",
            ]
        );
    }
}
