//! How a mounted server's names and URIs read in the server it is mounted in.

use crate::server::BuildError;

/// What joins a mount's prefix to a task id of its server: a character of neither a prefix
/// nor a task id of the crate's stores, so an id splits one way only.
const TASK_SEPARATOR: char = ':';

/// A mount's prefix: tool and prompt `name` become `{prefix}_{name}`, resource URIs and URI
/// templates `uri` become `{prefix}+{uri}` (so `file:///a` reads `notes+file:///a`, still a
/// URI of a scheme of its own). An empty prefix leaves both as they are.
///
/// `_` joins names because tool names are `[A-Za-z0-9_.-]` in MCP and many model APIs accept
/// no `.` in a function name; `+` joins URIs because it is a scheme character, so a mapped
/// URI stays a URI and its own scheme stays readable in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Prefix(String);

impl Prefix {
    /// A prefix of a letter and then letters, digits or `-` (a scheme and a name both), or
    /// the empty one.
    pub fn new(prefix: &str) -> Result<Self, BuildError> {
        let mut chars = prefix.chars();
        let valid = match chars.next() {
            None => true,
            Some(first) => {
                first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || c == '-')
            }
        };
        if !valid {
            return Err(BuildError::InvalidMount {
                prefix: prefix.to_owned(),
                reason: "a prefix is a letter followed by letters, digits or `-` (or empty)"
                    .to_owned(),
            });
        }
        Ok(Self(prefix.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A child's tool or prompt name as the parent lists it.
    pub fn name(&self, name: &str) -> String {
        self.join(name, '_')
    }

    /// The child's name behind a name the parent was asked for, if it carries this prefix.
    pub fn strip_name<'a>(&self, name: &'a str) -> Option<&'a str> {
        self.strip(name, '_')
    }

    /// A child's resource URI or URI template as the parent lists it.
    pub fn uri(&self, uri: &str) -> String {
        self.join(uri, '+')
    }

    /// The child's URI behind a URI the parent was asked for, if it carries this prefix.
    pub fn strip_uri<'a>(&self, uri: &'a str) -> Option<&'a str> {
        self.strip(uri, '+')
    }

    /// A child's task id as the parent shows it: `{prefix}:{id}`, `:{id}` under the empty
    /// prefix. Always marked, so that it never reads as one of the parent's own ids (which are
    /// base64url, without a `:`), and the prefix is unique among siblings.
    pub fn task_id(&self, id: &str) -> String {
        format!("{}{TASK_SEPARATOR}{id}", self.0)
    }

    /// The child's task id behind an id the parent was asked for, if it carries this prefix.
    pub fn strip_task_id<'a>(&self, id: &'a str) -> Option<&'a str> {
        id.strip_prefix(self.0.as_str())?
            .strip_prefix(TASK_SEPARATOR)
            .filter(|rest| !rest.is_empty())
    }

    fn join(&self, rest: &str, separator: char) -> String {
        if self.0.is_empty() {
            return rest.to_owned();
        }
        format!("{}{separator}{rest}", self.0)
    }

    fn strip<'a>(&self, full: &'a str, separator: char) -> Option<&'a str> {
        if self.0.is_empty() {
            return Some(full);
        }
        full.strip_prefix(self.0.as_str())?
            .strip_prefix(separator)
            .filter(|rest| !rest.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_uris_map_both_ways() {
        let notes = Prefix::new("notes").expect("valid");
        assert_eq!(notes.name("add"), "notes_add");
        assert_eq!(notes.strip_name("notes_add"), Some("add"));
        assert_eq!(notes.strip_name("notesadd"), None);
        assert_eq!(notes.strip_name("notes_"), None);
        assert_eq!(notes.strip_name("calc_add"), None);
        assert_eq!(notes.uri("file:///a.txt"), "notes+file:///a.txt");
        assert_eq!(
            notes.strip_uri("notes+file:///a.txt"),
            Some("file:///a.txt")
        );
        assert_eq!(notes.strip_uri("file:///a.txt"), None);
    }

    #[test]
    fn the_empty_prefix_changes_nothing() {
        let none = Prefix::new("").expect("valid");
        assert_eq!(none.name("add"), "add");
        assert_eq!(none.strip_name("add"), Some("add"));
        assert_eq!(none.uri("test://x"), "test://x");
        assert_eq!(none.strip_uri("test://x"), Some("test://x"));
    }

    #[test]
    fn task_ids_are_marked_even_under_the_empty_prefix() {
        let notes = Prefix::new("notes").expect("valid");
        assert_eq!(notes.task_id("abc"), "notes:abc");
        assert_eq!(notes.strip_task_id("notes:abc"), Some("abc"));
        assert_eq!(notes.strip_task_id("notes:gw:abc"), Some("gw:abc"));
        for other in ["abc", "notes:", "notesabc", "calc:abc", ":abc", "notes_abc"] {
            assert_eq!(notes.strip_task_id(other), None, "{other:?}");
        }
        let none = Prefix::new("").expect("valid");
        assert_eq!(none.task_id("abc"), ":abc");
        assert_eq!(none.strip_task_id(":abc"), Some("abc"));
        assert_eq!(none.strip_task_id("abc"), None);
        assert_eq!(none.strip_task_id("notes:abc"), None);
    }

    #[test]
    fn a_prefix_is_a_scheme_and_a_name() {
        for bad in ["1notes", "no tes", "notes_", "notes.x", "nötes", "+x"] {
            assert!(Prefix::new(bad).is_err(), "{bad:?} accepted");
        }
        for good in ["notes", "n", "calc-2"] {
            assert!(Prefix::new(good).is_ok(), "{good:?} refused");
        }
    }
}
