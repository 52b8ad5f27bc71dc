//! The CLI's usage errors (exit status 2, `error: ...` on stderr): bad arguments, input that
//! cannot be read or does not fit, written here once.

use kcel::{DeclaredTypeError, FitError, TypeSyntaxError};
use kcel_stdlib::catalog::LibraryError;
use kcel_stdlib::documents::DocumentError;
use kcel_stdlib::kubernetes::crd::{DataError, DefinitionError, SchemaTooDeep};
use kcel_stdlib::kubernetes::suite::SuiteError;

use crate::input::InputError;

/// Why a command cannot start.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// Input that cannot be read.
    #[error(transparent)]
    Input(#[from] InputError),
    /// `--k8s-version` outside the versions kcel has.
    #[error("expected a Kubernetes version 1.27 to 1.37, like 1.33, not '{0}'")]
    K8sVersion(String),
    /// `--var` without `=`.
    #[error("expected NAME=VALUE, got '{0}'")]
    NotNameValue(String),
    /// `--declare` without `=`.
    #[error("expected NAME=TYPE, got '{0}'")]
    NotNameType(String),
    /// A `--declare`d type that does not parse.
    #[error(transparent)]
    TypeSyntax(#[from] TypeSyntaxError),
    /// A variable name that is not a (qualified) CEL identifier.
    #[error("'{0}' is not a valid variable name")]
    VariableName(String),
    /// A `--lib` that names no library.
    #[error("{0} (see `kcel functions --libraries`)")]
    UnknownLibrary(LibraryError),
    /// A `--lib` version the library does not have.
    #[error(transparent)]
    Library(LibraryError),
    /// `-f FILE` that cannot be read.
    #[error("-f: {0}")]
    ExpressionFile(InputError),
    /// `-f FILE` that holds only white space.
    #[error("-f: '{0}' holds no expression")]
    EmptyExpressionFile(String),
    /// Neither an expression nor `-f`.
    #[error("no expression given (an argument or -f FILE)")]
    NoExpression,
    /// `--authorizer` with `--var authorizer=...` or `--declare authorizer=...`.
    #[error("--authorizer binds 'authorizer'; do not give it with --var or --declare")]
    AuthorizerBoundTwice,
    /// An `--authorizer` that is none of the forms.
    #[error("--authorizer: expected allow-all, deny-all or @PATH, got '{0}'")]
    AuthorizerSpec(String),
    /// An authorizer file that is not a mapping.
    #[error("authorizer file '{0}': expected a mapping with `user` and `rules`")]
    AuthorizerNotMapping(String),
    /// An authorizer file's `user` that does not decode.
    #[error("authorizer file '{path}': user: {error}")]
    AuthorizerUser {
        path: String,
        error: serde_json::Error,
    },
    /// An authorizer file's rules that do not decode.
    #[error("authorizer file '{path}': {error}")]
    AuthorizerRules {
        path: String,
        error: serde_json::Error,
    },
    /// A suite directory without suite files.
    #[error("'{0}' holds no suite files (*.yaml, *.yml, *.json)")]
    NoSuiteFiles(String),
    /// A suite file that does not decode.
    #[error("'{path}' is not a valid suite: {error}")]
    Suite { path: String, error: SuiteError },
    /// A `--schema` CRD whose versions do not decode.
    #[error("'{path}': {error}")]
    Definition {
        path: String,
        error: DefinitionError,
    },
    /// A `--schema` CRD without a schema.
    #[error("'{0}': the CRD has no spec.versions[].schema.openAPIV3Schema")]
    NoCrdSchema(String),
    /// A `--schema` that is not an OpenAPI v3 schema.
    #[error("'{path}' is not an OpenAPI v3 schema: {error}")]
    NotASchema {
        path: String,
        error: serde_json::Error,
    },
    /// A `--schema` too deep for CEL types.
    #[error("schema '{path}': {error}")]
    SchemaTooDeep { path: String, error: SchemaTooDeep },
    /// A `--schema` whose root has no CEL type.
    #[error(
        "schema '{0}' has no CEL type at its root (it needs a `type`; \
         x-kubernetes-preserve-unknown-fields alone is not enough)"
    )]
    UntypedSchemaRoot(String),
    /// A variable both typed by `--schema` and `--declare`d.
    #[error("variable '{0}' is typed by --schema; do not --declare it")]
    TypedBySchema(String),
    /// A variable `--declare`d twice.
    #[error("variable '{0}' is declared twice")]
    DeclaredTwice(String),
    /// A `--declare`d type the environment does not know.
    #[error("--declare {name}: {error}")]
    DeclaredType {
        name: String,
        error: DeclaredTypeError,
    },
    /// A variable given twice.
    #[error("variable '{0}' is given twice")]
    GivenTwice(String),
    /// A variable's text that cannot be read.
    #[error("variable '{name}': {error}")]
    VariableInput { name: String, error: InputError },
    /// A variable's text that is empty.
    #[error("variable '{name}': {from} (write null for a null value)")]
    EmptyVariable { name: String, from: EmptySource },
    /// A variable's text that is not JSON or YAML.
    #[error("variable '{name}': {error}")]
    VariableDocument { name: String, error: DocumentError },
    /// A variable's value that does not fit its declared type.
    #[error("variable '{name}': {error}")]
    VariableFit { name: String, error: FitError },
    /// `self`/`oldSelf` that does not fit the `--schema`.
    #[error("variable '{name}' does not fit the schema: {error}")]
    VariableSchema { name: String, error: DataError },
}

/// Where an empty variable's text came from.
#[derive(Debug, thiserror::Error)]
pub enum EmptySource {
    /// `@-`.
    #[error("stdin is empty")]
    Stdin,
    /// `@PATH`.
    #[error("'{0}' is empty")]
    File(String),
    /// Inline.
    #[error("the value is empty")]
    Inline,
}
