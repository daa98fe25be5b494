//! Shared application state: values registered once on the server and handed to every
//! handler that asks for them by type (`mcp::State<T>` parameters, or `ctx.state::<T>()`).

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The values a server was given with `.state(…)`, by type.
#[derive(Clone, Default)]
pub struct AppState {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl AppState {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was registered.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<State<T>> {
        let value = self.values.get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok().map(State)
    }

    /// Whether a value with this key was registered.
    pub fn contains(&self, key: &StateKey) -> bool {
        self.values.contains_key(&key.id)
    }
}

impl fmt::Debug for AppState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppState")
            .field("values", &self.values.len())
            .finish()
    }
}

/// Shared state of type `T`, as a handler parameter: `db: mcp::State<Db>` receives the `Db`
/// registered with `McpServer::state`. A server whose handlers need a type that was never
/// registered fails to build, naming the type.
pub struct State<T>(Arc<T>);

impl<T> State<T> {
    /// The shared handle.
    pub fn into_arc(self) -> Arc<T> {
        self.0
    }
}

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T> Deref for State<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Identifies a state type, for checking at build time that it was registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateKey {
    pub(crate) id: TypeId,
    /// The type's name, for messages.
    pub name: &'static str,
}

impl StateKey {
    /// The key of `T`.
    pub fn of<T: 'static>() -> Self {
        Self {
            id: TypeId::of::<T>(),
            name: type_name::<T>(),
        }
    }
}

/// A parameter filled from the server's shared state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not shared state",
    note = "take shared state as `mcp::State<T>` and register the value with `.state(value)`"
)]
pub trait FromAppState: Sized {
    /// The state type it needs.
    fn key() -> StateKey;
    /// Takes it from the server's state.
    fn from_state(state: &AppState) -> Option<Self>;
}

impl<T: Send + Sync + 'static> FromAppState for State<T> {
    fn key() -> StateKey {
        StateKey::of::<T>()
    }

    fn from_state(state: &AppState) -> Option<Self> {
        state.get::<T>()
    }
}
