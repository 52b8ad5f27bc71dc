//! Response helpers every layer may use (the error type renders its Status with them): a
//! JSON body with its content type, and `Warning:` headers.

use axum::http::{HeaderValue, StatusCode, header::CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// A JSON response with kube-apiserver's content type.
pub fn json_response(code: StatusCode, body: &impl Serialize) -> Response {
    let bytes = serde_json::to_vec(body).expect("response bodies always serialize");
    let mut response = (code, bytes).into_response();
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Adds one `Warning: 299 - "<text>"` header per warning (quotes and backslashes escaped).
pub fn add_warnings(response: &mut Response, warnings: &[String]) {
    for text in warnings {
        let quoted = text.replace('\\', "\\\\").replace('"', "\\\"");
        if let Ok(value) = HeaderValue::from_str(&format!("299 - \"{quoted}\"")) {
            response
                .headers_mut()
                .append(axum::http::header::WARNING, value);
        }
    }
}
