//! Evaluating one policy for one binding and one params object (Kubernetes' validator):
//! match conditions, validations with their messages, audit annotations, cost budgets.

use std::sync::Arc;

use kcel::Value;

use super::activation::{LazyVariables, Phase, PolicyActivation};
use super::api::FailurePolicy;
use super::compile::{Compiled, CompiledPolicy};
use super::expression_errors::ExpressionError;

/// The runtime cost budget of one binding's validations (and, separately, its audit
/// annotations).
pub const BINDING_COST_BUDGET: u64 = 10_000_000;
/// The runtime cost budget of the match conditions.
pub const MATCH_CONDITION_COST_BUDGET: u64 = 2_500_000;
/// The longest message a messageExpression may produce.
pub const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// Why an expression of a policy gave no value; `Display` is the API server's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvaluationError {
    /// The expression has no program.
    #[error("compilation error: {0}")]
    Compile(ExpressionError),
    /// The evaluation failed.
    #[error("expression '{expression}' resulted in error: {error}")]
    Eval {
        /// The expression.
        expression: String,
        /// The error.
        error: kcel::EvalError,
    },
    /// The phase's cost budget ran out.
    #[error(
        "validation failed due to running out of cost budget, no further validation rules will be run"
    )]
    OutOfBudget,
    /// The messageExpressions failed.
    #[error("failed messageExpression: {0}")]
    Message(Box<EvaluationError>),
    /// Several match conditions failed (Kubernetes' `utilerrors.NewAggregate`: once each,
    /// in brackets).
    #[error("[{}]", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    Several(Vec<EvaluationError>),
}

/// What one validation decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The validation held.
    Admit,
    /// The validation evaluated to false: message and reason.
    Deny {
        /// The message (`message`, `messageExpression` or the default).
        message: String,
        /// The Status reason.
        reason: String,
    },
    /// Evaluation failed (its effect follows the failure policy).
    Error(EvaluationError),
}

/// The cost of one evaluated expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpressionCost {
    /// The field path, like `spec.validations[0].expression`.
    pub field: String,
    /// The actual cost of its evaluation.
    pub cost: u64,
}

/// An audit annotation's result: published value, or an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnnotationOutcome {
    /// A value to publish under a key.
    Publish(String, String),
    /// An evaluation error (denies under failurePolicy Fail).
    Error(EvaluationError),
    /// A value neither string nor null (denies whatever the failure policy).
    BadType(String),
}

/// The result for one binding and params object.
#[derive(Clone, Debug, Default)]
pub struct ValidateResult {
    /// One per validation (or a single error for the match conditions or the budget).
    pub outcomes: Vec<(usize, Outcome)>,
    /// One per audit annotation.
    pub annotations: Vec<AnnotationOutcome>,
    /// The cost of each expression evaluated.
    pub costs: Vec<ExpressionCost>,
}

struct Run<'a> {
    bindings: Arc<PolicyActivation>,
    policy: &'a CompiledPolicy,
    /// The current phase's `variables`.
    variables: Arc<LazyVariables>,
    costs: Vec<ExpressionCost>,
}

impl<'a> Run<'a> {
    /// A run of `policy` over `bindings`, in `phase` with nothing computed yet.
    fn new(policy: &'a CompiledPolicy, bindings: Arc<PolicyActivation>, phase: Phase) -> Run<'a> {
        let variables = LazyVariables::new(bindings.clone(), policy.variables.clone(), phase);
        Run {
            bindings,
            policy,
            variables,
            costs: Vec::new(),
        }
    }

    /// Starts a phase (Kubernetes evaluates match conditions, validations,
    /// messageExpressions and audit annotations as separate filters, each with its own
    /// `variables`): nothing computed yet; `authorizer` visible or not.
    fn new_phase(&mut self, phase: Phase) {
        let variables = self.policy.variables.clone();
        self.variables = LazyVariables::new(self.bindings.clone(), variables, phase);
    }

    /// Evaluates one expression, recording its cost (with the variables it computed).
    fn eval(&mut self, compiled: &Compiled) -> (Result<Value, EvaluationError>, u64) {
        let program = match &compiled.program {
            Ok(p) => p,
            Err(e) => return (Err(EvaluationError::Compile(e.clone())), 0),
        };
        let (result, details) = program.eval_with_details(&self.variables.activation());
        // The variables this expression caused to be computed count towards its budget.
        let cost = details
            .actual_cost
            .saturating_add(self.variables.take_cost());
        self.costs.push(ExpressionCost {
            field: compiled.field.clone(),
            cost,
        });
        let result = result.map_err(|error| EvaluationError::Eval {
            expression: compiled.source.to_string(),
            error,
        });
        (result, cost)
    }

    /// Evaluates a list of expressions within `budget`; `Err` once it runs out.
    fn eval_all(
        &mut self,
        list: &[Option<&Compiled>],
        budget: u64,
    ) -> Result<Vec<Option<Result<Value, EvaluationError>>>, EvaluationError> {
        let mut remaining = budget;
        let mut out = Vec::with_capacity(list.len());
        for compiled in list {
            let Some(compiled) = compiled else {
                out.push(None);
                continue;
            };
            let (result, cost) = self.eval(compiled);
            if cost > remaining {
                return Err(EvaluationError::OutOfBudget);
            }
            remaining -= cost;
            out.push(Some(result));
        }
        Ok(out)
    }
}

/// Whether the match conditions hold: `Ok(false)` as soon as one is false, `Err` with
/// the errors when none is false but some failed.
fn match_conditions(run: &mut Run<'_>, policy: &CompiledPolicy) -> Result<bool, EvaluationError> {
    let list: Vec<_> = policy.match_conditions.iter().map(Some).collect();
    let results = run.eval_all(&list, MATCH_CONDITION_COST_BUDGET)?;
    let mut errors: Vec<EvaluationError> = Vec::new();
    for result in results.into_iter().flatten() {
        match result {
            Ok(Value::Bool(false)) => return Ok(false),
            // Only false fails a condition (the matcher compares with false).
            Ok(_) => {}
            // Kubernetes aggregates the errors (utilerrors.NewAggregate): duplicates once,
            // brackets around several.
            Err(e) if errors.contains(&e) => {}
            Err(e) => errors.push(e),
        }
    }
    match errors.len() {
        0 => Ok(true),
        1 => Err(errors.swap_remove(0)),
        _ => Err(EvaluationError::Several(errors)),
    }
}

/// The message of a failed validation: messageExpression's result if it is a usable
/// string, else `message`, else `failed expression: <expression>`.
fn deny_message(policy: &CompiledPolicy, index: usize, evaluated: Option<&Value>) -> String {
    let validation = &policy.policy.spec.validations[index];
    if let Some(Value::String(s)) = evaluated {
        let s = s.trim();
        if !s.is_empty() && s.len() <= MAX_MESSAGE_BYTES && !s.contains('\n') {
            return s.to_string();
        }
    }
    let message = validation.message.trim();
    if !message.is_empty() {
        return message.to_string();
    }
    format!("failed expression: {}", validation.expression.trim())
}

/// Evaluates a policy for one binding and params object.
pub fn evaluate(policy: &CompiledPolicy, bindings: Arc<PolicyActivation>) -> ValidateResult {
    let mut run = Run::new(policy, bindings, Phase::MatchConditions);
    let mut result = ValidateResult::default();
    match match_conditions(&mut run, policy) {
        Ok(true) => {}
        Ok(false) => {
            result.costs = run.costs;
            return result;
        }
        Err(e) => {
            result.outcomes.push((0, Outcome::Error(e)));
            result.costs = run.costs;
            return result;
        }
    }
    run.new_phase(Phase::Validations);
    let list: Vec<_> = policy.validations.iter().map(Some).collect();
    let evaluated = match run.eval_all(&list, BINDING_COST_BUDGET) {
        Ok(v) => v,
        Err(e) => {
            result.outcomes.push((0, Outcome::Error(e)));
            result.costs = run.costs;
            return result;
        }
    };
    let spent: u64 = run.costs.iter().map(|c| c.cost).sum();
    run.new_phase(Phase::Messages);
    let messages: Vec<_> = policy.messages.iter().map(Option::as_ref).collect();
    let messages = run.eval_all(&messages, BINDING_COST_BUDGET.saturating_sub(spent));
    for (i, evaluated) in evaluated.into_iter().enumerate() {
        let outcome = match evaluated {
            Some(Err(e)) => Outcome::Error(e),
            _ if messages.is_err() => Outcome::Error(EvaluationError::Message(Box::new(
                messages
                    .as_ref()
                    .err()
                    .cloned()
                    .unwrap_or(EvaluationError::OutOfBudget),
            ))),
            Some(Ok(Value::Bool(true))) => Outcome::Admit,
            _ => {
                let message = messages
                    .as_ref()
                    .ok()
                    .and_then(|m| m.get(i))
                    .and_then(|m| m.as_ref())
                    .and_then(|m| m.as_ref().ok());
                let reason = policy.policy.spec.validations[i].reason.clone();
                Outcome::Deny {
                    message: deny_message(policy, i, message),
                    reason: reason.unwrap_or_else(|| "Invalid".into()),
                }
            }
        };
        result.outcomes.push((i, outcome));
    }
    match audit_annotations(&mut run, policy) {
        Ok(annotations) => result.annotations = annotations,
        // Running out of budget here replaces every decision (validator.go).
        Err(e) => result.outcomes = vec![(0, Outcome::Error(e))],
    }
    result.costs = run.costs;
    result
}

fn audit_annotations(
    run: &mut Run<'_>,
    policy: &CompiledPolicy,
) -> Result<Vec<AnnotationOutcome>, EvaluationError> {
    run.new_phase(Phase::AuditAnnotations);
    let list: Vec<_> = policy.audit_annotations.iter().map(Some).collect();
    let results = run.eval_all(&list, BINDING_COST_BUDGET)?;
    let mut out = Vec::new();
    for (i, result) in results.into_iter().enumerate() {
        let annotation = &policy.policy.spec.audit_annotations[i];
        match result {
            Some(Ok(Value::String(s))) if !s.trim().is_empty() => out.push(
                AnnotationOutcome::Publish(annotation.key.clone(), s.trim().to_string()),
            ),
            Some(Ok(Value::String(_) | Value::Null)) | None => {}
            Some(Ok(other)) => out.push(AnnotationOutcome::BadType(format!(
                "valueExpression '{}' resulted in unsupported return type: {}. Return type must be either string or null.",
                annotation.value_expression,
                other.type_name()
            ))),
            Some(Err(e)) => out.push(AnnotationOutcome::Error(e)),
        }
    }
    Ok(out)
}

/// Whether an error outcome denies under `policy`: anything but `Ignore` does (the
/// validator's `policyDecisionActionForError`).
pub fn error_denies(policy: Option<&FailurePolicy>) -> bool {
    policy != Some(&FailurePolicy::Ignore)
}

/// The match conditions of `policy` alone (a mutating policy's, before its mutations):
/// whether they hold (`Err` with the errors when none is false but some failed), and
/// their costs.
pub(crate) fn match_conditions_only(
    policy: &CompiledPolicy,
    bindings: Arc<PolicyActivation>,
) -> (Result<bool, EvaluationError>, Vec<ExpressionCost>) {
    let mut run = Run::new(policy, bindings, Phase::MatchConditions);
    let result = match_conditions(&mut run, policy);
    (result, run.costs)
}

/// Evaluates one expression of `policy` (a mutation's, compiled: the caller reports a
/// missing program) as the validations are evaluated (`authorizer`, the trimmed namespace,
/// `variables` computed afresh) within `budget`: its value or error, and its cost.
pub(crate) fn evaluate_one(
    policy: &CompiledPolicy,
    bindings: Arc<PolicyActivation>,
    compiled: &Compiled,
    budget: u64,
) -> (Result<Value, EvaluationError>, Vec<ExpressionCost>) {
    let mut run = Run::new(policy, bindings, Phase::Validations);
    let (result, cost) = run.eval(compiled);
    let result = if cost > budget {
        Err(EvaluationError::OutOfBudget)
    } else {
        result
    };
    (result, run.costs)
}
