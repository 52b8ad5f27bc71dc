//! Validating an object (and optionally its old version) against the compiled rules of a
//! schema, as kube-apiserver does: per-call and per-object cost budgets, transition rules,
//! messages and message expressions, reasons and field paths, and ratcheting.

use std::sync::Arc;

use super::compile_rules::{
    CompileOptions, CompiledRule, CompiledSchema, OLD_SELF, RuleNode, SELF, compile_schema,
    rule_env,
};
use super::decl_types::{DeclKind, DeclType, ListKind};
use super::defaulting::{prepare, prepare_in_place};
use super::field_error::{ErrorType, FieldError, FieldPath, aggregate, go_json_value, go_quote};
use super::key_index::FirstByKey;
use super::schema::Schema;
use super::values::{Doc, view};
use super::{embedded_meta, list_invariants, openapi, pruning};
use kcel::Value;
use kcel::{Activation, Env, EvalError, EvalErrorKind, Program};

/// The runtime cost budget for all rules of one object.
pub const PER_OBJECT_COST_BUDGET: i64 = 10_000_000;
/// The longest message a `messageExpression` may produce.
pub const MAX_MESSAGE_EXPRESSION_SIZE: usize = 5 * 1024;

/// The error that stands for the rules skipped after a blocking schema error
/// (apiextensions-apiserver's `hasBlockingErr`).
pub const RULES_NOT_CHECKED: &str = "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";
const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// A schema's rules, ready to validate objects.
#[derive(Debug)]
pub struct Validator {
    /// The compiled rules, by schema node.
    pub(crate) compiled: CompiledSchema,
    /// The schema, for pruning nulls and applying defaults before validation.
    schema: Schema,
    /// Whether the schema has rules anywhere: without any, upstream builds no CEL
    /// validator, so a blocking error adds no [`RULES_NOT_CHECKED`] (apiextensions-apiserver
    /// `cel.NewValidator` answers nil without `x-kubernetes-validations`).
    has_rules: bool,
}

/// The outcome of validating one object.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The field errors, in Kubernetes' order.
    pub errors: Vec<FieldError>,
    /// Errors of unchanged values under ratcheting, reported as warnings.
    pub warnings: Vec<String>,
    /// The actual cost of each rule evaluation, in order.
    pub costs: Vec<RuleCost>,
    /// What is left of the per-object budget (negative once it ran out).
    pub remaining_budget: i64,
}

impl Validator {
    /// Compiles `schema` in the default rule environment.
    pub fn new(schema: &Schema, options: CompileOptions) -> Validator {
        Validator::with_env(schema, &rule_env(), options)
    }

    /// Compiles `schema` in `env`, and validates its `default` values against the rules
    /// at and below them as Kubernetes does when a CRD is written: invalid defaults are
    /// reported instead of the errors of compiling the rules.
    pub fn with_env(schema: &Schema, env: &Env, options: CompileOptions) -> Validator {
        let mut validator = Validator {
            compiled: compile_schema(schema, env, options),
            schema: schema.clone(),
            has_rules: schema.has_validations(),
        };
        if validator.compiled.structural {
            let defaults = validator.default_errors(schema);
            if !defaults.is_empty() {
                let compiled = &mut validator.compiled;
                compiled.errors.truncate(compiled.schema_errors);
                compiled.errors.extend(defaults);
            }
        }
        validator
    }

    /// The errors of `default` values (Kubernetes' `ValidateDefaults`): unknown fields, the
    /// embedded resources in it (`embedded_meta`), then the OpenAPI value validation
    /// against the default's node (a `default: "x"` on an integer is `must be of type
    /// integer`), and only when that passes the rules at the node and below: each default
    /// is validated as a new value with itself as the old value, then (when that passes) as
    /// a value without an old one, within one runtime budget for all defaults. A default
    /// inside a resource's `metadata`, `kind` or `apiVersion` is first put in a resource
    /// (`validation/v1`, `Validation`) whose type and object meta must be valid. Defaults
    /// under `additionalProperties` are not visited.
    pub fn default_errors(&self, schema: &Schema) -> Vec<FieldError> {
        let mut run = Run {
            outcome: Outcome {
                remaining_budget: PER_OBJECT_COST_BUDGET,
                ..Outcome::default()
            },
        };
        let path = self.compiled.options.schema_path.clone();
        let at = DefaultAt {
            path,
            resource: schema,
            steps: Vec::new(),
            inside_meta: false,
            is_resource_root: self.compiled.options.is_resource_root,
        };
        run.defaults(schema, Some(&self.compiled.root), at, 0);
        run.outcome.errors
    }

    /// A written object as kube-apiserver decodes it before storing it: the fields the
    /// schema does not specify pruned (their paths returned, sorted, as the warnings
    /// `unknown field "<path>"` name them), non-nullable nulls without defaults dropped, and
    /// `default`s applied (apiextensions-apiserver's pruning, `PruneNonNullableNullsWithoutDefaults`
    /// and `Default`, in that order).
    pub fn decode(&self, obj: &serde_json::Value) -> (serde_json::Value, Vec<String>) {
        self.decode_owned(obj.clone())
    }

    /// [`Validator::decode`] of an object the caller gives up: pruned and defaulted in
    /// place, with no copy of the document.
    pub fn decode_owned(&self, mut obj: serde_json::Value) -> (serde_json::Value, Vec<String>) {
        let unknown = pruning::prune(&mut obj, &self.schema);
        prepare_in_place(&mut obj, &self.schema);
        (obj, unknown)
    }

    /// Applies the schema's `default`s to `obj` in place, without pruning: what
    /// apiextensions-apiserver's defaulter of custom resources does to an object a
    /// mutating admission policy changed (`unstructuredDefaulter.Default`, structural
    /// `Default`), before the object is pruned and validated.
    pub fn apply_defaults(&self, obj: &mut serde_json::Value) {
        super::defaulting::apply_defaults(obj, &self.schema, 0);
    }

    /// The schema this validator was compiled from.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The compiled rules: the schema's errors and each rule's cost facts.
    pub fn compiled(&self) -> &CompiledSchema {
        &self.compiled
    }

    /// Validates `obj` (and `old` on update) with the default per-object budget.
    pub fn validate(&self, obj: &serde_json::Value, old: Option<&serde_json::Value>) -> Outcome {
        self.validate_with_budget(obj, old, PER_OBJECT_COST_BUDGET)
    }

    /// Validates with a given per-object budget, as kube-apiserver validates a custom
    /// resource: unknown fields are pruned (each reported as the warning `unknown field
    /// "spec.x"`), non-nullable nulls without defaults are dropped and defaults applied (to
    /// the old object too), then the OpenAPI value validation (`crd/openapi.rs`) and the
    /// list-type invariants (`crd/list_invariants.rs`) — on update both ratcheted as
    /// upstream: errors of values unchanged from `old` dropped — and, unless they found a
    /// blocking error (which adds the error that the rules were not checked), the CEL rules.
    pub fn validate_with_budget(
        &self,
        obj: &serde_json::Value,
        old: Option<&serde_json::Value>,
        budget: i64,
    ) -> Outcome {
        self.validate_after(obj, old, budget, Vec::new())
    }

    /// Validates as [`Validator::validate_with_budget`] does, after `earlier` errors the
    /// API server found first (an object's `metadata`): they come first in the outcome and
    /// block the rules as schema errors do.
    pub fn validate_after(
        &self,
        obj: &serde_json::Value,
        old: Option<&serde_json::Value>,
        budget: i64,
        earlier: Vec<FieldError>,
    ) -> Outcome {
        let old = old.map(Source::Borrowed);
        self.validate_source(&mut Source::Borrowed(obj), old, budget, earlier)
    }

    /// Validates as [`Validator::validate_after`] does an object shared with the caller:
    /// the rules read it in place (a borrowed object is copied once for them to share).
    pub fn validate_shared(
        &self,
        obj: &Arc<serde_json::Value>,
        old: Option<&serde_json::Value>,
        budget: i64,
        earlier: Vec<FieldError>,
    ) -> Outcome {
        let old = old.map(Source::Borrowed);
        self.validate_source(&mut Source::Shared(obj), old, budget, earlier)
    }

    /// Validates as [`Validator::validate_after`] does an object the caller gives up: it is
    /// pruned and defaulted in place and the rules read it in place, so the document is
    /// never copied (the way to validate large objects). Answers the object as
    /// kube-apiserver would store it (pruned and defaulted, as [`Validator::decode`]
    /// answers it) with the outcome. The old object, shared, is read in place too (copied
    /// only when pruning or defaulting changes it).
    pub fn validate_owned(
        &self,
        obj: serde_json::Value,
        old: Option<&Arc<serde_json::Value>>,
        budget: i64,
        earlier: Vec<FieldError>,
    ) -> (serde_json::Value, Outcome) {
        let mut source = Source::Owned(Arc::new(obj));
        let old = old.map(Source::Shared);
        let outcome = self.validate_source(&mut source, old, budget, earlier);
        let Source::Owned(obj) = source else {
            unreachable!("an owned object stays owned")
        };
        // The rules' values are gone with the run: the document is the caller's again.
        let obj = Arc::try_unwrap(obj).unwrap_or_else(|shared| shared.as_ref().clone());
        (obj, outcome)
    }

    fn validate_source(
        &self,
        obj: &mut Source<'_>,
        mut old: Option<Source<'_>>,
        budget: i64,
        earlier: Vec<FieldError>,
    ) -> Outcome {
        // Unknown fields are pruned (and reported as kube-apiserver's fieldValidation=Warn
        // does); the old object, as stored, has none. An owned object is pruned in place,
        // another copied only when something is pruned.
        let unknown = match obj {
            Source::Owned(x) => pruning::prune(Arc::make_mut(x), &self.schema),
            _ => {
                let unknown = pruning::unknown_fields(obj.get(), &self.schema);
                if !unknown.is_empty() {
                    *obj = Source::Owned(Arc::new(pruned_copy(obj.get(), &self.schema)));
                }
                unknown
            }
        };
        if let Some(o) = &mut old
            && !pruning::unknown_fields(o.get(), &self.schema).is_empty()
        {
            *o = Source::Owned(Arc::new(pruned_copy(o.get(), &self.schema)));
        }
        let warnings: Vec<String> = unknown
            .iter()
            .map(|path| format!("unknown field {}", go_quote(path)))
            .collect();
        let mut outcome = self.checked(obj, old, budget, earlier);
        outcome.warnings.splice(0..0, warnings);
        outcome
    }

    /// Validation after pruning: defaults, the OpenAPI schema, list types, the rules.
    fn checked(
        &self,
        source: &mut Source<'_>,
        mut old_source: Option<Source<'_>>,
        budget: i64,
        mut errors: Vec<FieldError>,
    ) -> Outcome {
        source.prepare(&self.schema);
        if let Some(o) = &mut old_source {
            o.prepare(&self.schema);
        }
        let old = old_source.as_ref().map(Source::get);
        let obj = source.get();
        // As kube-apiserver's custom resource strategy: the OpenAPI value validation and the
        // list-type invariants first; after a type, required, enum or size error the rules
        // (if the schema has any) are not run.
        // On update, both ratcheted as upstream: OpenAPI errors of values unchanged from the
        // old object dropped; list-type errors reported only when the old object had none
        // (apiextensions-apiserver's customresource strategy, ValidateUpdate).
        errors.extend(openapi::validate_update(obj, old, &self.schema));
        // Then the type and object meta of embedded resources (the strategy's
        // schemaobjectmeta.Validate).
        errors.extend(embedded_meta::errors(
            &FieldPath::root(),
            obj,
            &self.schema,
            false,
        ));
        let list_errors = list_invariants::validate(obj, &self.schema);
        if !list_errors.is_empty()
            && old.is_none_or(|o| list_invariants::validate(o, &self.schema).is_empty())
        {
            errors.extend(list_errors);
        }
        if self.has_rules && errors.iter().any(|e| e.error_type.blocks_rules()) {
            errors.push(FieldError::with_rendered_value(
                FieldPath::root(),
                ErrorType::Invalid,
                "null".into(),
                RULES_NOT_CHECKED,
            ));
            return Outcome {
                errors,
                remaining_budget: budget,
                ..Outcome::default()
            };
        }
        let mut outcome = self.rules(source, old_source.as_ref(), budget);
        errors.append(&mut outcome.errors);
        outcome.errors = errors;
        outcome
    }

    /// Validates with the CEL rules alone, as apiextensions-apiserver's CEL validator does
    /// (and its unit tests): no OpenAPI value validation first, so data of the wrong shape
    /// reaches the rules and fails them with the CEL validator's `invalid data` errors.
    pub fn validate_rules(
        &self,
        obj: &serde_json::Value,
        old: Option<&serde_json::Value>,
        budget: i64,
    ) -> Outcome {
        let mut obj = Source::Borrowed(obj);
        obj.prepare(&self.schema);
        let mut old = old.map(Source::Borrowed);
        if let Some(o) = &mut old {
            o.prepare(&self.schema);
        }
        self.rules(&obj, old.as_ref(), budget)
    }

    /// The CEL rules over a prepared object.
    fn rules(&self, obj: &Source<'_>, old: Option<&Source<'_>>, budget: i64) -> Outcome {
        let root = &self.compiled.root;
        // Rules read the documents in place, lazily ([`view`]): shared, not converted.
        let obj = obj.shared();
        let old = old.map(Source::shared);
        let (obj_doc, old_doc) = (Doc::new(obj.clone()), old.clone().map(Doc::new));
        let (obj, old) = (obj.as_ref(), old.as_deref());
        let mut run = Run {
            outcome: Outcome {
                remaining_budget: budget,
                ..Outcome::default()
            },
        };
        let at = Node {
            json: obj,
            doc: obj_doc,
            old: old.zip(old_doc),
            ratchet_old: old,
            ratchet: old.map(|o| deep_equal(o, obj, root.ty.as_deref())),
        };
        run.node(root, &FieldPath::root(), at);
        run.outcome
    }
}

/// An object under validation, as the rules will share it ([`Doc`]).
enum Source<'a> {
    /// The caller's, borrowed: copied once for the rules to share.
    Borrowed(&'a serde_json::Value),
    /// The caller's, already shared: read in place.
    Shared(&'a Arc<serde_json::Value>),
    /// Owned here (given up by the caller, or a copy made on the way: pruned,
    /// defaulted), held alone outside the rules' run: changed in place, shared with the
    /// rules without a copy.
    Owned(Arc<serde_json::Value>),
}

impl Source<'_> {
    fn get(&self) -> &serde_json::Value {
        match self {
            Source::Borrowed(j) => j,
            Source::Shared(j) => j,
            Source::Owned(j) => j,
        }
    }

    /// Non-nullable nulls dropped and defaults applied ([`prepare`]): in place when owned,
    /// else on a copy made only when that changes something.
    fn prepare(&mut self, s: &Schema) {
        match self {
            Source::Owned(x) => prepare_in_place(Arc::make_mut(x), s),
            _ => {
                if let std::borrow::Cow::Owned(o) = prepare(self.get(), s) {
                    *self = Source::Owned(Arc::new(o));
                }
            }
        }
    }

    /// The object for the rules to share.
    fn shared(&self) -> Arc<serde_json::Value> {
        match self {
            Source::Borrowed(j) => Arc::new((*j).clone()),
            Source::Shared(j) => Arc::clone(j),
            Source::Owned(j) => Arc::clone(j),
        }
    }
}

/// A value as a Go field error shows it (`field.Error.ErrorBody`): numbers and booleans as
/// `%v`, strings as `%q`, null as `null`; anything else as its JSON.
fn go_simple_value(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => "null".to_owned(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) => kcel::library::standard::format_double(f),
            _ => n.to_string(),
        },
        J::String(s) => go_quote(s),
        other => go_json_value(other),
    }
}

/// `x` with the fields its schema does not specify pruned.
fn pruned_copy(x: &serde_json::Value, s: &Schema) -> serde_json::Value {
    let mut x = x.clone();
    pruning::prune(&mut x, s);
    x
}

/// The actual cost of one rule evaluation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCost {
    /// The field path of the value the rule ran on.
    pub(crate) path: String,
    /// The rule's text.
    pub(crate) rule: String,
    /// The evaluation's actual cost.
    pub(crate) cost: u64,
}

impl RuleCost {
    /// The field path of the value the rule ran on, as field errors print it
    /// (`spec.replicas`; `<nil>` at the root).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The rule's text.
    pub fn rule(&self) -> &str {
        &self.rule
    }

    /// The evaluation's actual cost.
    pub fn cost(&self) -> u64 {
        self.cost
    }
}

/// A data node under validation: its JSON and its place in the shared document (which rules
/// read lazily), the correlated old value, and whether errors here are ratcheted.
struct Node<'a> {
    json: &'a serde_json::Value,
    doc: Doc,
    old: Option<(&'a serde_json::Value, Doc)>,
    /// The old value as ratcheting correlates it (also through atomic maps and by index in
    /// lists without a list type).
    ratchet_old: Option<&'a serde_json::Value>,
    /// Whether the nearest correlated value equals its old value (`None` on create).
    ratchet: Option<bool>,
}

struct Run {
    outcome: Outcome,
}

/// Where a default is validated: its schema path, the nearest resource around it (the
/// root or an embedded resource) and the steps from there, and whether it lies in that
/// resource's `metadata`, `kind` or `apiVersion` (defaulting's `SurroundingObjectFunc`).
struct DefaultAt<'s> {
    path: FieldPath,
    resource: &'s Schema,
    steps: Vec<Step<'s>>,
    inside_meta: bool,
    is_resource_root: bool,
}

/// A step down from a resource to a default: a property, or an array's item.
#[derive(Clone, Copy)]
enum Step<'s> {
    Field(&'s str),
    Item,
}

impl<'s> DefaultAt<'s> {
    fn child(&self, path: FieldPath, step: Step<'s>, enters_meta: bool) -> DefaultAt<'s> {
        let mut steps = self.steps.clone();
        steps.push(step);
        DefaultAt {
            path,
            resource: self.resource,
            steps,
            inside_meta: self.inside_meta || enters_meta,
            is_resource_root: self.is_resource_root,
        }
    }

    /// The errors of the type and object meta of a resource (`validation/v1`, kind
    /// `Validation`, unless the default sets them) holding `default` at this place.
    fn surrounding_meta_errors(&self, default: &serde_json::Value) -> Vec<FieldError> {
        let mut object = default.clone();
        for step in self.steps.iter().rev() {
            object = match step {
                Step::Field(k) => {
                    let mut fields = serde_json::Map::new();
                    fields.insert((*k).to_string(), object);
                    serde_json::Value::Object(fields)
                }
                Step::Item => serde_json::Value::Array(vec![object]),
            };
        }
        let Some(fields) = object.as_object_mut() else {
            return Vec::new();
        };
        for (name, value) in [("kind", "Validation"), ("apiVersion", "validation/v1")] {
            fields
                .entry(name)
                .or_insert_with(|| serde_json::Value::from(value));
        }
        embedded_meta::errors(&FieldPath::root(), &object, self.resource, true)
    }
}

struct SelfActivation {
    this: Value,
    old: Option<Value>,
}

impl Activation for SelfActivation {
    fn resolve(&self, name: &str) -> Option<Value> {
        match name {
            SELF => Some(self.this.clone()),
            OLD_SELF => self.old.clone(),
            _ => None,
        }
    }
}

impl Run {
    fn out_of_budget(&self) -> bool {
        self.outcome.remaining_budget < 0
    }

    /// Validates the defaults at `s` (whose rules are `rn`, whose place is `at`) and below.
    fn defaults<'s>(
        &mut self,
        s: &'s Schema,
        rn: Option<&RuleNode>,
        mut at: DefaultAt<'s>,
        depth: usize,
    ) {
        if depth > super::decl_types::MAX_SCHEMA_DEPTH || self.out_of_budget() {
            return;
        }
        // A resource (the root, or an embedded one) starts a new surrounding object.
        let resource = s.embedded_resource || (depth == 0 && at.is_resource_root);
        if resource {
            at.resource = s;
            at.steps.clear();
            at.inside_meta = false;
        }
        let path = &at.path;
        if let Some(default) = &s.default {
            let here = path.child("default");
            // defaulting/validation.go `validate`: inside resource meta, the surrounding
            // object's meta first; elsewhere pruning, then the embedded resources in the
            // default; then the OpenAPI value validation, and the rules only when that passes.
            let meta_errors = if at.inside_meta {
                let errors = at.surrounding_meta_errors(default);
                if errors.is_empty() {
                    errors
                } else {
                    vec![FieldError::with_rendered_value(
                        here.clone(),
                        ErrorType::Invalid,
                        go_json_value(default),
                        format!("must result in valid metadata: {}", aggregate(&errors)),
                    )]
                }
            } else {
                if pruning::has_unknown_fields(default, s) {
                    self.outcome.errors.push(FieldError::with_rendered_value(
                        here.clone(),
                        ErrorType::Invalid,
                        go_json_value(default),
                        "must not have unknown fields",
                    ));
                }
                embedded_meta::errors(&here, default, s, resource)
            };
            if !meta_errors.is_empty() {
                self.outcome.errors.extend(meta_errors);
            } else {
                let schema_errors = openapi::validate_at(default, s, &here);
                if !schema_errors.is_empty() {
                    self.outcome.errors.extend(schema_errors);
                } else if let Some(rn) = rn {
                    self.default_rules(rn, default, &here);
                }
            }
            if self.out_of_budget() {
                return;
            }
        }
        if let Some(items) = s.items() {
            let item_node = rn.and_then(|rn| rn.items.as_deref());
            let child = at.child(path.child("items"), Step::Item, false);
            self.defaults(items, item_node, child, depth + 1);
        }
        for (k, ps) in &s.properties {
            let prop_node = rn.and_then(|rn| rn.properties.get(k));
            let meta_field = resource && ["metadata", "apiVersion", "kind"].contains(&k.as_str());
            let step = path.child("properties").key(k);
            let child = at.child(step, Step::Field(k), meta_field);
            self.defaults(ps, prop_node, child, depth + 1);
            if self.out_of_budget() {
                return;
            }
        }
    }

    /// Runs the rules at and below `rn` on a default value `at` path `at`.
    fn default_rules(&mut self, rn: &RuleNode, default: &serde_json::Value, at: &FieldPath) {
        let doc = Doc::new(Arc::new(default.clone()));
        let errors_before = self.outcome.errors.len();
        let budget = self.outcome.remaining_budget;
        let node = Node {
            json: default,
            doc: doc.clone(),
            old: Some((default, doc.clone())),
            ratchet_old: None,
            ratchet: None,
        };
        self.node(rn, at, node);
        if self.outcome.errors.len() == errors_before {
            // Again as a value with no old one (rules with optionalOldSelf run); the run
            // that costs more counts.
            let after_first = self.outcome.remaining_budget;
            self.outcome.remaining_budget = budget;
            let node = Node {
                json: default,
                doc,
                old: None,
                ratchet_old: None,
                ratchet: None,
            };
            self.node(rn, at, node);
            self.outcome.remaining_budget = self.outcome.remaining_budget.min(after_first);
        }
    }

    fn node(&mut self, rn: &RuleNode, path: &FieldPath, at: Node<'_>) {
        if at.json.is_null() || self.out_of_budget() {
            return;
        }
        self.rules(rn, path, &at);
        if self.out_of_budget() {
            return;
        }
        match at.json {
            serde_json::Value::Object(obj) => self.object(rn, path, &at, obj),
            serde_json::Value::Array(items) => self.array(rn, path, &at, items),
            _ => {}
        }
    }

    fn object(
        &mut self,
        rn: &RuleNode,
        path: &FieldPath,
        at: &Node<'_>,
        obj: &serde_json::Map<String, serde_json::Value>,
    ) {
        let old_obj = at.old.as_ref().and_then(|(o, _)| o.as_object());
        if let Some(values) = rn.additional.as_deref() {
            for (k, v) in obj {
                let old = old_obj
                    .filter(|_| rn.map_correlatable)
                    .and_then(|o| o.get(k));
                let child = Node {
                    json: v,
                    doc: at.doc.property(k),
                    old: old.zip(at.old.as_ref().map(|(_, d)| d.property(k))),
                    ratchet_old: ratchet_key(at, k),
                    ratchet: ratchet_for(ratchet_key(at, k), v, values, at.ratchet),
                };
                self.node(values, &path.key(k), child);
                if self.out_of_budget() {
                    return;
                }
            }
        }
        for (k, v) in obj {
            let Some(prop) = rn.properties.get(k) else {
                continue;
            };
            let old = old_obj
                .filter(|_| rn.map_correlatable)
                .and_then(|o| o.get(k));
            let child = Node {
                json: v,
                doc: at.doc.property(k),
                old: old.zip(at.old.as_ref().map(|(_, d)| d.property(k))),
                ratchet_old: ratchet_key(at, k),
                ratchet: ratchet_for(ratchet_key(at, k), v, prop, at.ratchet),
            };
            self.node(prop, &path.child(k), child);
            if self.out_of_budget() {
                return;
            }
        }
    }

    fn array(
        &mut self,
        rn: &RuleNode,
        path: &FieldPath,
        at: &Node<'_>,
        items: &[serde_json::Value],
    ) {
        let Some(item_node) = rn.items.as_deref() else {
            return;
        };
        let old_items = at.old.as_ref().and_then(|(o, _)| o.as_array());
        // The old items by key, built once per list (not a scan per item).
        fn keyed<'a>(
            olds: Option<&'a [serde_json::Value]>,
            keys: &'a [(String, Option<serde_json::Value>)],
        ) -> Option<FirstByKey<'a, String>> {
            olds.filter(|_| !keys.is_empty())
                .map(|olds| FirstByKey::new(olds, |item| map_index_key(item, keys)))
        }
        let old_index_by_key = keyed(old_items.map(Vec::as_slice), &rn.list_map_keys);
        let ratchet_items = at.ratchet_old.and_then(|o| o.as_array());
        let ratchet_by_key = match rn.list_type.as_deref() {
            Some("map") => keyed(ratchet_items.map(Vec::as_slice), &rn.list_map_keys),
            _ => None,
        };
        for (i, v) in items.iter().enumerate() {
            // Only map lists correlate items with old items (by their keys).
            let old_index = old_index_by_key.as_ref().and_then(|index| index.first(v));
            let old = old_index.and_then(|j| old_items.map(|o| (j, &o[j])));
            let ratchet_old = match (rn.list_type.as_deref(), ratchet_items) {
                (Some("map"), Some(olds)) => ratchet_by_key
                    .as_ref()
                    .and_then(|index| index.first(v))
                    .map(|j| &olds[j]),
                _ => ratchet_index(rn, at, v, i),
            };
            let child = Node {
                json: v,
                doc: at.doc.index(i),
                old: old
                    .zip(at.old.as_ref())
                    .map(|((j, o), (_, d))| (o, d.index(j))),
                ratchet_old,
                ratchet: ratchet_for(ratchet_old, v, item_node, at.ratchet),
            };
            self.node(item_node, &path.index(i), child);
            if self.out_of_budget() {
                return;
            }
        }
    }

    fn rules(&mut self, rn: &RuleNode, path: &FieldPath, at: &Node<'_>) {
        if rn.rules.is_empty() && rn.compile_errors.is_empty() {
            return;
        }
        if self.outcome.remaining_budget <= 0 {
            self.outcome.errors.push(FieldError::new(
                path.clone(),
                ErrorType::Invalid,
                &rn.schema_type,
                OUT_OF_BUDGET,
            ));
            self.outcome.remaining_budget = -1;
            return;
        }
        let invalid = |detail: String| {
            FieldError::new(path.clone(), ErrorType::Invalid, &rn.schema_type, detail)
        };
        for detail in &rn.compile_errors {
            self.outcome
                .errors
                .push(invalid(format!("rule compile error: {detail}")));
        }
        // Kubernetes' unstructured values: only the node's own shape is checked here; the
        // data below it is converted (and fails) as a rule reads it.
        let value = rn.ty.as_ref().map(|t| view(&at.doc, t));
        let this = match value {
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                // The data does not fit the schema: every rule reading it fails alike.
                for r in &rn.rules {
                    self.outcome.errors.push(invalid(format!(
                        "{e} evaluating rule: {}",
                        rule_error_string(r)
                    )));
                }
                return;
            }
            None => return,
        };
        let old = match (&at.old, &rn.ty) {
            (Some((_, doc)), Some(t)) => view(doc, t).ok(),
            _ => None,
        };
        for r in &rn.rules {
            let optional_old_self = r.rule.optional_old_self == Some(true);
            if r.uses_old_self && old.is_none() && !optional_old_self {
                continue;
            }
            let activation = SelfActivation {
                this: this.clone(),
                old: if optional_old_self {
                    Some(Value::Optional(old.clone().map(Arc::new)))
                } else {
                    old.clone()
                },
            };
            let (result, cost) = self.eval(&r.program, &activation);
            self.outcome.costs.push(RuleCost {
                path: path.to_string(),
                rule: r.rule.rule.clone(),
                cost,
            });
            if cost > i64::MAX as u64 || cost as i64 > self.outcome.remaining_budget {
                self.outcome.errors.push(invalid(OUT_OF_BUDGET.into()));
                self.outcome.remaining_budget = -1;
                return;
            }
            self.outcome.remaining_budget -= cost as i64;
            let passed = match result {
                Ok(Value::Bool(true)) => true,
                Ok(_) => false,
                Err(e) => {
                    let rule = rule_error_string(r);
                    // apiextensions-apiserver's validation.go tells these two apart by
                    // their texts' prefixes; they are kinds here.
                    match e.kind() {
                        EvalErrorKind::NoSuchOverload => {
                            self.outcome.errors.push(invalid(format!(
                                "'{e}': call arguments did not match a supported operator, function or macro signature for rule: {rule}"
                            )));
                        }
                        EvalErrorKind::CostLimitExceeded => {
                            self.outcome.errors.push(invalid(format!(
                                "'{e}': no further validation rules will be run due to call cost exceeds limit for rule: {rule}"
                            )));
                            self.outcome.remaining_budget = -1;
                            return;
                        }
                        _ => {
                            self.outcome
                                .errors
                                .push(invalid(format!("{e} evaluating rule: {rule}")));
                        }
                    }
                    continue;
                }
            };
            if passed {
                continue;
            }
            let error_path = match &r.field_path {
                Some(p) => path.child(p),
                None => path.clone(),
            };
            let ratchet = !r.uses_old_self && at.ratchet == Some(true);
            let mut detail = None;
            if let Some(message_program) = &r.message_program {
                let plain = SelfActivation {
                    this: this.clone(),
                    old: old.clone(),
                };
                match self.message(message_program, &r.rule.message_expression, &plain) {
                    Ok(m) => detail = Some(m),
                    Err(Some(fatal)) => {
                        let e =
                            FieldError::new(error_path, ErrorType::Invalid, &rn.schema_type, fatal);
                        self.report(e, ratchet);
                        self.outcome.remaining_budget = -1;
                        return;
                    }
                    Err(None) => {}
                }
            }
            let detail = detail.unwrap_or_else(|| rule_message_or_default(r));
            let error_type = ErrorType::from_reason(r.rule.reason.as_deref());
            // Since Kubernetes 1.35 (kubernetes/kubernetes#132798, #133832) a failed rule
            // shows the value it ran on when that is a simple value, and no value for objects
            // and arrays (`field.OmitValueType`), where it used to show the schema type.
            let shown = match rn.schema_type.as_str() {
                "object" | "array" => String::new(),
                _ => go_simple_value(at.json),
            };
            let e = FieldError::with_rendered_value(error_path, error_type, shown, detail);
            self.report(e, ratchet);
        }
    }

    fn report(&mut self, e: FieldError, ratchet: bool) {
        if ratchet {
            self.outcome.warnings.push(e.to_string());
        } else {
            self.outcome.errors.push(e);
        }
    }

    fn eval(
        &self,
        program: &Program,
        activation: &SelfActivation,
    ) -> (Result<Value, EvalError>, u64) {
        let (result, details) = program.eval_with_details(activation);
        (result, details.actual_cost)
    }

    /// Evaluates a message expression: `Ok(message)`, `Err(None)` when it failed (the static
    /// message is used), `Err(Some(detail))` when validation must stop.
    fn message(
        &mut self,
        program: &Program,
        source: &str,
        activation: &SelfActivation,
    ) -> Result<String, Option<String>> {
        let (result, cost) = self.eval(program, activation);
        if cost > i64::MAX as u64 || cost as i64 > self.outcome.remaining_budget {
            return Err(Some(
                "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run".into(),
            ));
        }
        if let Err(e) = &result {
            if *e.kind() == EvalErrorKind::CostLimitExceeded {
                return Err(Some(format!(
                    "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                    super::field_error::go_quote(source)
                )));
            }
        }
        self.outcome.remaining_budget -= cost as i64;
        match result {
            Ok(Value::String(s)) => {
                let m = s.trim();
                if m.is_empty() || m.len() > MAX_MESSAGE_EXPRESSION_SIZE || m.contains('\n') {
                    Err(None)
                } else {
                    Ok(m.to_string())
                }
            }
            _ => Err(None),
        }
    }
}

/// The old value of property or map key `k`, as ratcheting correlates it.
fn ratchet_key<'a>(at: &Node<'a>, k: &str) -> Option<&'a serde_json::Value> {
    at.ratchet_old?.as_object()?.get(k)
}

/// The old value of list item `i` (`v`), as ratcheting correlates it: by key in map lists,
/// by index in lists without a list type, not at all in sets and atomic lists.
fn ratchet_index<'a>(
    rn: &RuleNode,
    at: &Node<'a>,
    v: &serde_json::Value,
    i: usize,
) -> Option<&'a serde_json::Value> {
    let olds = at.ratchet_old?.as_array()?;
    match rn.list_type.as_deref() {
        Some("map") => olds.iter().find(|o| same_map_keys(o, v, &rn.list_map_keys)),
        Some(_) => None,
        None => olds.get(i),
    }
}

/// The text of a map-list item's key (a missing key field counting as its default).
fn map_index_key(item: &serde_json::Value, keys: &[(String, Option<serde_json::Value>)]) -> String {
    let values: Vec<Option<&serde_json::Value>> = keys
        .iter()
        .map(|(k, default)| item.get(k).or(default.as_ref()))
        .collect();
    serde_json::to_string(&values).unwrap_or_default()
}

/// Whether two map-list items have the same key (a missing key field counts as its default).
fn same_map_keys(
    a: &serde_json::Value,
    b: &serde_json::Value,
    keys: &[(String, Option<serde_json::Value>)],
) -> bool {
    keys.iter()
        .all(|(k, default)| a.get(k).or(default.as_ref()) == b.get(k).or(default.as_ref()))
}

/// Ratcheting at a child: its own old value decides when it has one, else the nearest
/// correlated ancestor.
fn ratchet_for(
    old: Option<&serde_json::Value>,
    new: &serde_json::Value,
    rn: &RuleNode,
    parent: Option<bool>,
) -> Option<bool> {
    match old {
        Some(o) => Some(deep_equal(o, new, rn.ty.as_deref())),
        None => parent,
    }
}

/// Whether an old and a new value are equal as ratcheting compares them: map-list items are
/// matched by key (order does not matter), everything else structurally.
fn deep_equal(old: &serde_json::Value, new: &serde_json::Value, ty: Option<&DeclType>) -> bool {
    use serde_json::Value as J;
    let Some(ty) = ty else {
        return old == new;
    };
    match (old, new, &ty.kind) {
        (J::Array(o), J::Array(n), DeclKind::List { elem, list }) => {
            if o.len() != n.len() {
                return false;
            }
            match list {
                ListKind::Map(keys) => {
                    // The old items by key, indexed once (a scan per item was quadratic).
                    let old_by_key = FirstByKey::new(o, |v| -> Vec<Option<serde_json::Value>> {
                        keys.iter().map(|k| map_key_field(v, k)).collect()
                    });
                    n.iter().all(|item| {
                        old_by_key
                            .first(item)
                            .is_some_and(|j| deep_equal(&o[j], item, Some(elem)))
                    })
                }
                _ => o.iter().zip(n).all(|(a, b)| deep_equal(a, b, Some(elem))),
            }
        }
        (J::Object(o), J::Object(n), DeclKind::Object { fields, .. }) => {
            o.len() == n.len()
                && n.iter().all(|(k, v)| {
                    let field = fields.values().find(|f| &f.property == k);
                    o.get(k)
                        .is_some_and(|ov| deep_equal(ov, v, field.map(|f| f.ty.as_ref())))
                })
        }
        (J::Object(o), J::Object(n), DeclKind::Map { value }) => {
            o.len() == n.len()
                && n.iter()
                    .all(|(k, v)| o.get(k).is_some_and(|ov| deep_equal(ov, v, Some(value))))
        }
        _ => old == new,
    }
}

/// A map-list key field of an item, looked up by its escaped or plain name.
fn map_key_field(item: &serde_json::Value, escaped: &str) -> Option<serde_json::Value> {
    let plain = super::escaping::unescape(escaped).unwrap_or_else(|| escaped.to_string());
    item.get(&plain).cloned()
}

fn rule_error_string(r: &CompiledRule) -> String {
    if r.rule.message.is_empty() {
        r.rule.rule.trim().to_string()
    } else {
        r.rule.message.trim().to_string()
    }
}

fn rule_message_or_default(r: &CompiledRule) -> String {
    if r.rule.message.is_empty() {
        format!("failed rule: {}", rule_error_string(r))
    } else {
        r.rule.message.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validators_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Validator>();
    }
}
