//! The scopes a tool needs, against the ones the caller's token holds.

use crate::identity::Identity;
use crate::protocol::McpError;

/// Refuses a caller whose token lacks any of `required`, naming them all.
///
/// A request without a verified caller is not checked: only a transport that authenticates
/// (HTTP with `auth`) has tokens and scopes at all; over stdio the MCP spec has the server
/// take its credentials from its environment, and the user who started it is trusted.
pub(crate) fn check(identity: Option<&Identity>, required: &[String]) -> Result<(), McpError> {
    let Some(identity) = identity else {
        return Ok(());
    };
    let holds = |scope: &String| identity.scopes.iter().any(|held| held == scope);
    if required.iter().all(holds) {
        return Ok(());
    }
    Err(McpError::insufficient_scope(required))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(scopes: &[&str]) -> Identity {
        Identity {
            scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
            ..Identity::default()
        }
    }

    #[test]
    fn every_required_scope_must_be_held() {
        let required = ["notes:read".to_owned(), "notes:write".to_owned()];
        assert!(
            check(
                Some(&caller(&["notes:write", "notes:read", "x"])),
                &required
            )
            .is_ok()
        );
        let refused = check(Some(&caller(&["notes:read"])), &required).expect_err("refused");
        assert_eq!(
            refused.required_scopes(),
            Some(vec!["notes:read", "notes:write"])
        );
        assert!(check(Some(&caller(&[])), &[]).is_ok());
        assert!(check(None, &required).is_ok());
    }
}
