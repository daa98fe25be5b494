//! Where dispatch meets the extensions: a method no core handler serves, and an extension's
//! result answering a core method. Both run after the gate, so the version check, `_meta`,
//! the caller's identity, cancellation and the transports' bounds apply as to core methods.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{ExtensionResult, Generation, McpError, RequestId};

use crate::server::{Context, Server};

impl Server {
    /// Serves `method` with the extension that has it, for a client that declared that
    /// extension (when the method asks for it); `-32601` when none has it, or on 2025-11-25.
    pub(in crate::server) async fn extension_method(
        &self,
        id: &RequestId,
        ctx: Context,
        method: &str,
        params: Option<&RawValue>,
    ) -> Result<String, McpError> {
        let generation = ctx.generation();
        let served = match self.inner.extensions.method(method) {
            Some(served) if generation == Generation::V2026_07_28 => served,
            _ => return Err(McpError::method_not_found(method)),
        };
        if served.requires_declaration && ctx.client_extension(&served.extension).is_none() {
            return Err(undeclared(method, &served.extension));
        }
        let Value::Object(body) = (served.handler)(ctx, params).await? else {
            tracing::error!(
                method,
                "an extension method's handler answered with JSON that is not an object"
            );
            return Err(McpError::internal("Internal error"));
        };
        Ok(self.result_line(id, generation, ExtensionResult::complete(body)))
    }

    /// Lets `result` answer `method` if an extension of this server may answer it with that
    /// `resultType` and the client declared that extension on the request.
    pub(in crate::server) fn extension_answer(
        &self,
        method: &str,
        result: ExtensionResult,
        ctx: &Context,
    ) -> Result<ExtensionResult, McpError> {
        if ctx.generation() == Generation::V2025_11_25 {
            tracing::warn!(
                method,
                "a handler answered a 2025-11-25 session with an extension's result; answering \
                 -32603"
            );
            return Err(McpError::internal(
                "This request's answer needs an extension, which a 2025-11-25 session cannot \
                 carry",
            ));
        }
        let Some(owner) = self.inner.extensions.owner_of(result.result_type(), method) else {
            tracing::error!(
                method,
                result_type = ?result.result_type(),
                "a handler answered with a resultType no extension of this server declares \
                 for the method; answering -32603"
            );
            return Err(McpError::internal("Internal error"));
        };
        if ctx.client_extension(owner).is_none() {
            return Err(McpError::missing_extension(
                format!("This request's answer needs extension {owner}, which it does not declare"),
                owner,
            ));
        }
        Ok(result)
    }
}

/// The refusal of a request for `method` of `extension` that does not declare it.
pub(in crate::server) fn undeclared(method: &str, extension: &str) -> McpError {
    McpError::missing_extension(
        format!("{method} belongs to extension {extension}, which this request does not declare"),
        extension,
    )
}
