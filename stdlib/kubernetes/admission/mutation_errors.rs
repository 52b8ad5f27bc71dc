//! The errors of mutating admission policies' mutations, in the API server's words: every
//! text a failed mutation can show (the policy error's message after `policy '<p>' with
//! binding '<b>' denied request: `) is rendered here, from typed errors built by the
//! evaluation, the JSON patcher (`json_patch.rs`, evanphx/json-patch v4's texts) and the
//! strict decoding of its result; the errors of converting values to JSON are declared with
//! those values (`patch_types.rs`, which the evaluation reaches first) and re-exported here.

use super::evaluate::EvaluationError;
use super::expression_errors::ExpressionError;
use crate::kubernetes::merge::ApplyError;

pub use super::patch_types::{JsonConversionError, TypeNameError, TypeNameErrors};

/// Why one mutation failed (kube-apiserver's patcher and dispatcher errors); `Display` is
/// the message the API server reports.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MutationError {
    /// The expression has no program (`compilation failed: ...`).
    #[error(transparent)]
    Compile(ExpressionError),
    /// The expression (or a match condition) failed or ran out of budget.
    #[error(transparent)]
    Evaluation(EvaluationError),
    /// `Object...` literals not named by their field path.
    #[error("type mismatch: {0}")]
    TypeNames(TypeNameErrors),
    /// The apply configuration's value has no JSON form.
    #[error(transparent)]
    ApplyConfigurationValue(JsonConversionError),
    /// The apply configuration does not merge (`error applying patch: ...`).
    #[error("error applying patch: {0}")]
    Apply(ApplyError),
    /// A JSON patch expression's value is not a list.
    #[error("type mismatch: JSONPatchType.expression should evaluate to array")]
    NotAList,
    /// A JSON patch expression's list holds something other than `JSONPatch` values.
    #[error("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch")]
    NotJsonPatches,
    /// A JSON patch operation's value has no JSON form.
    #[error("JSONPath valueExpression evaluated to a type that could not marshal to JSON: {0}")]
    PatchValue(JsonConversionError),
    /// A JSON patch operation does not apply.
    #[error("JSON Patch: {0}")]
    JsonPatch(OperationError),
    /// The JSON patcher panicked ([`PatchError::Panic`]): the request fails as a
    /// panicking request does, whatever the failure policy (`Mutated::panicked`).
    #[error("{}", PatchError::Panic)]
    JsonPatchPanic,
    /// A mutation without an expression of a known patch type (which the API server
    /// refuses when the policy is written).
    #[error("expected {expected} compiled evaluators for policy {policy}, got fewer")]
    MissingEvaluator {
        /// The number of mutations.
        expected: usize,
        /// The policy's name.
        policy: String,
    },
    /// The JSON patch's result does not decode strictly into the kind's Go type (an
    /// internal error, 500, whatever the failure policy).
    #[error(transparent)]
    Decode(DecodeError),
}

impl MutationError {
    /// Whether the error is one upstream's `ErrorType` classifies as `compile_error` (its
    /// text starts with `compilation`: an expression that does not compile).
    pub fn is_compile_error(&self) -> bool {
        matches!(
            self,
            MutationError::Compile(ExpressionError::Compile(_))
                | MutationError::Evaluation(EvaluationError::Compile(_))
        )
    }

    /// Whether the expression ran out of its cost budget (`out_of_budget`).
    pub fn is_out_of_budget(&self) -> bool {
        matches!(
            self,
            MutationError::Evaluation(EvaluationError::OutOfBudget)
        )
    }
}

/// Why a JSON patch does not apply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// A `test` operation failed: the patch is not applied, and that is no error.
    #[error("testing value {0} failed: test failed")]
    TestFailed(String),
    /// The library panics: it dereferences a nil pointer (a `test` of the whole document
    /// without `value`; a null item in an array `test` compares; a `replace` of the whole
    /// document without `value`) or writes to a nil map (a value put as the text `null`,
    /// stepped into). The text is Go's for the first (no client sees it:
    /// kube-apiserver answers such a request with its panic recovery's 500).
    #[error("runtime error: invalid memory address or nil pointer dereference")]
    Panic,
    /// Any other failure.
    #[error(transparent)]
    Failed(OperationError),
}

/// Why a JSON patch operation does not apply, in evanphx/json-patch v4's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OperationError {
    /// The parent of an `add` or `remove` path does not exist.
    #[error("{op} operation does not apply: doc is missing path: \"{path}\": missing value")]
    MissingPathQuoted {
        /// `add` or `remove`.
        op: &'static str,
        /// The operation's path.
        path: String,
    },
    /// The parent of a `replace` path does not exist.
    #[error("replace operation does not apply: doc is missing path: {0}: missing value")]
    ReplaceMissingPath(String),
    /// A `replace` of a list item that does not exist.
    #[error("replace operation does not apply: doc is missing key: {0}: missing value")]
    ReplaceMissingKey(String),
    /// The parent of a `move` or `copy` source does not exist.
    #[error("{op} operation does not apply: doc is missing from path: {from}: missing value")]
    MissingFrom {
        /// `move` or `copy`.
        op: &'static str,
        /// The operation's `from`.
        from: String,
    },
    /// The parent of a `move` or `copy` destination does not exist.
    #[error(
        "{op} operation does not apply: doc is missing destination path: {path}: missing value"
    )]
    MissingDestination {
        /// `move` or `copy`.
        op: &'static str,
        /// The operation's path.
        path: String,
    },
    /// A `replace` of the whole document with a value that is no object or list (or a
    /// patch body's `null`): v4.13.0 wraps a nil error there, which Go's `fmt.Errorf`
    /// writes as `%!w(<nil>)`.
    #[error("replace operation value must be object or array: %!w(<nil>)")]
    ReplaceDocument,
    /// The parent of a `test` path does not exist.
    #[error("test operation does not apply: is missing path: {0}: missing value")]
    TestMissingPath(String),
    /// The operation failed at its container (`error in <op> for path: '<at>': ...`; a
    /// `replace` reports itself as `remove`, as the library does).
    #[error("error in {op} for {what}: '{at}': {error}")]
    At {
        /// The operation named: `add`, `remove`, `move`, `copy`, `test`.
        op: &'static str,
        /// `path` or `from`.
        what: &'static str,
        /// The path (or key) named.
        at: String,
        /// The container's error.
        error: ContainerError,
    },
    /// A `copy` could not add the copied value.
    #[error("error while adding value during copy: {0}")]
    CopyAdd(ContainerError),
    /// An operation other than the six.
    #[error("Unexpected kind: {0}")]
    UnexpectedKind(String),
}

/// Why a step into a map or list failed (the library's container errors).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// The container is neither a map nor a list.
    #[error("missing value")]
    Missing,
    /// A list index that does not exist.
    #[error("Unable to access invalid index: {0}: invalid index referenced")]
    InvalidIndex(String),
    /// A list key that is not an integer (`strconv.Atoi`).
    #[error("strconv.Atoi: parsing {0:?}: invalid syntax")]
    NotAnInteger(String),
    /// An `add` into a list at a key that is not an integer.
    #[error(
        "value was not a proper array index: '{0}': strconv.Atoi: parsing {0:?}: invalid syntax"
    )]
    NotAnArrayIndex(String),
    /// A `remove` of a map key that is not there.
    #[error("Unable to remove nonexistent key: {0}: missing value")]
    NonexistentKey(String),
}

/// Why a JSON patch's result does not decode into the kind's Go type (kube-apiserver's
/// `policy/mutating/patch/json_patch.go`: the patched object decoded strictly).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The patched document is a list (a `replace` of the whole object with one), which
    /// the codec cannot read for apiVersion and kind (apimachinery's
    /// `SimpleMetaFactory.Interpret`; its `json.Unmarshal` error).
    #[error(
        "couldn't get version/kind; json parse error: json: cannot unmarshal array into Go \
         value of type struct {{ APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; \
         Kind string \"json:\\\"kind,omitempty\\\"\" }}"
    )]
    List,
    /// A value of the wrong type (the Go decoder's text: `json: cannot unmarshal string
    /// into Go struct field DeploymentSpec.spec.replicas of type int32`).
    #[error("{0}")]
    Type(String),
    /// Fields the kind does not have (their paths).
    #[error(
        "strict decoding error: {}",
        .0.iter().map(|f| format!("unknown field \"{f}\"")).collect::<Vec<_>>().join(", ")
    )]
    UnknownFields(Vec<String>),
}
