//! Cursor pagination of the list methods.

use serde::{Deserialize, Serialize};

use super::error::McpError;

/// Params of a paginated list request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PaginatedParams {
    /// Where to continue; absent for the first page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One page of `items`, starting at `cursor`, with the cursor of the next page.
///
/// Cursors are opaque to clients; here they are the offset of the page's first item. A cursor
/// this function did not produce is -32602.
///
/// ```
/// use mcp::protocol::paginate;
/// let items = [1, 2, 3, 4, 5];
/// let (page, next) = paginate(&items, None, 2).unwrap();
/// assert_eq!(page, &[1, 2]);
/// let (page, next) = paginate(&items, next.as_deref(), 2).unwrap();
/// assert_eq!((page, next.as_deref()), (&[3, 4][..], Some("4")));
/// assert!(paginate(&items, Some("bogus"), 2).is_err());
/// ```
pub fn paginate<'a, T>(
    items: &'a [T],
    cursor: Option<&str>,
    page_size: usize,
) -> Result<(&'a [T], Option<String>), McpError> {
    let start = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= items.len())
            .ok_or_else(|| McpError::invalid_params("Invalid cursor"))?,
    };
    let end = start.saturating_add(page_size.max(1)).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((&items[start..end], next))
}
