//! How a macro-generated wrapper fills each parameter of a tool, prompt or resource: through the
//! parameter type's trait, never its name. Only the runtime's own request context and
//! [`State<T>`] are filled by the runtime; a user's type that happens to be called `Context` is
//! an ordinary argument. Every call is monomorphized; nothing here allocates beyond what the
//! parameter itself needs.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::protocol::{CallToolResult, JsonObject, McpError, Outcome};
use crate::server::{Context, FromAppState, State, StateKey};

use super::args::{InvalidArgument, take_arg, take_arg_or};
use super::prompts::PromptArgumentType;

/// A parameter of a `#[mcp::tool]` function: an argument from the client (any type deriving
/// `serde::Deserialize`, described in the input schema through [`ToolParamSchema`]), the request
/// context, or shared state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter",
    label = "not an argument, the request context or shared state",
    note = "an argument's type derives `serde::Deserialize` and `schemars::JsonSchema`; the \
            runtime fills `mcp::Context` and `mcp::State<T>`"
)]
pub trait ToolParam: Sized {
    /// Whether the client sends it (it is a property of the input schema).
    const ARGUMENT: bool;
    /// Whether it reads the round's answers and state (so the wrapper attaches them).
    const ROUND: bool = false;
    /// The shared state it needs, checked when the server is built.
    const STATE: Option<fn() -> StateKey> = None;

    /// The value for one call; `name` is its name on the wire.
    fn from_call(
        context: &Context,
        arguments: &mut JsonObject,
        tool: &str,
        name: &str,
    ) -> Result<Self, ParamError>;
}

impl<T: DeserializeOwned> ToolParam for T {
    const ARGUMENT: bool = true;

    #[inline]
    fn from_call(
        _: &Context,
        arguments: &mut JsonObject,
        tool: &str,
        name: &str,
    ) -> Result<Self, ParamError> {
        take_arg(arguments, tool, name).map_err(ParamError::Invalid)
    }
}

impl ToolParam for Context {
    const ARGUMENT: bool = false;
    const ROUND: bool = true;

    #[inline]
    fn from_call(
        context: &Context,
        _: &mut JsonObject,
        _: &str,
        _: &str,
    ) -> Result<Self, ParamError> {
        Ok(context.clone())
    }
}

impl<T: Send + Sync + 'static> ToolParam for State<T> {
    const ARGUMENT: bool = false;
    const STATE: Option<fn() -> StateKey> = Some(StateKey::of::<T>);

    #[inline]
    fn from_call(
        context: &Context,
        _: &mut JsonObject,
        _: &str,
        _: &str,
    ) -> Result<Self, ParamError> {
        shared_state(context).map_err(ParamError::Failed)
    }
}

/// A tool parameter that carries `#[mcp(default = …)]`, `#[mcp(rename = …)]` or
/// `#[mcp(header = …)]`: those describe an argument, so only an argument may have them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool argument, so `#[mcp(default)]`, `rename` and `header` do \
               not apply to it",
    label = "not an argument",
    note = "an argument's type derives `serde::Deserialize` and `schemars::JsonSchema`; the \
            request context and shared state take no `#[mcp(…)]` attributes"
)]
pub trait ToolArgument: Sized {
    /// Argument `name` of `tool`.
    fn take(arguments: &mut JsonObject, tool: &str, name: &str) -> Result<Self, ParamError>;

    /// Argument `name` of `tool`, or `default()` when it is missing or `null`.
    fn take_or(
        arguments: &mut JsonObject,
        tool: &str,
        name: &str,
        default: impl FnOnce() -> Self,
    ) -> Result<Self, ParamError>;
}

// Not recommended: the message above says what an argument is, where the unmet bound would
// only name serde's trait.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> ToolArgument for T {
    #[inline]
    fn take(arguments: &mut JsonObject, tool: &str, name: &str) -> Result<Self, ParamError> {
        take_arg(arguments, tool, name).map_err(ParamError::Invalid)
    }

    #[inline]
    fn take_or(
        arguments: &mut JsonObject,
        tool: &str,
        name: &str,
        default: impl FnOnce() -> Self,
    ) -> Result<Self, ParamError> {
        take_arg_or(arguments, tool, name, default).map_err(ParamError::Invalid)
    }
}

/// A tool parameter with `#[mcp(default)]`: an argument that `Default::default()` fills in when
/// the client leaves it out.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot take `#[mcp(default)]`",
    label = "not an argument with a `Default`",
    note = "`#[mcp(default)]` fills in a missing argument with `Default::default()`: the type \
            derives `serde::Deserialize`, `serde::Serialize` (the schema shows the default) and \
            `schemars::JsonSchema` and implements `Default` (or give the value: \
            `#[mcp(default = …)]`); the request context and shared state take no `#[mcp(…)]` \
            attributes"
)]
pub trait DefaultArgument: Sized {
    /// The value of a missing argument (also its `default` in the input schema).
    fn default_value() -> Self;

    /// Argument `name` of `tool`, or [`default_value`](Self::default_value) when it is
    /// missing or `null`.
    fn take_or_default(
        arguments: &mut JsonObject,
        tool: &str,
        name: &str,
    ) -> Result<Self, ParamError>;
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + serde::Serialize + Default> DefaultArgument for T {
    #[inline]
    fn default_value() -> Self {
        T::default()
    }

    #[inline]
    fn take_or_default(
        arguments: &mut JsonObject,
        tool: &str,
        name: &str,
    ) -> Result<Self, ParamError> {
        take_arg_or(arguments, tool, name, T::default).map_err(ParamError::Invalid)
    }
}

/// A parameter default the input schema can show: schemars writes a `default` only for a type
/// it can serialize, and would leave it out without a word.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has a default that the input schema cannot show",
    label = "`{Self}` does not implement `serde::Serialize`",
    note = "derive `serde::Serialize` for `{Self}`, so clients see the default in the schema"
)]
pub trait SchemaDefault: serde::Serialize {}

impl<T: serde::Serialize> SchemaDefault for T {}

/// `value`, once its type is known to show in the schema.
#[inline]
pub fn shown_in_schema<T: SchemaDefault>(value: T) -> T {
    value
}

/// Why a tool parameter could not be filled.
#[derive(Debug)]
pub enum ParamError {
    /// The client sent a bad argument: the call answers with an `isError` result naming it.
    Invalid(InvalidArgument),
    /// The server cannot serve the call (a JSON-RPC error).
    Failed(McpError),
}

impl ParamError {
    /// What the tool call answers.
    pub fn into_tool_answer(self) -> Result<Outcome<CallToolResult>, McpError> {
        match self {
            ParamError::Invalid(invalid) => Ok(Outcome::Complete(invalid.into_result())),
            ParamError::Failed(error) => Err(error),
        }
    }
}

/// What the input-schema struct of a tool holds for a parameter: the argument's own type, or
/// [`Injected`] for what the runtime fills (which [`keep_arguments`] then removes).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON schema, so it cannot be a tool argument",
    label = "not described by `schemars::JsonSchema`",
    note = "an argument's type derives `schemars::JsonSchema` (and `serde::Deserialize`); the \
            runtime fills `mcp::Context` and `mcp::State<T>`"
)]
pub trait ToolParamSchema {
    /// The field type of the schema struct.
    type Schema;
}

impl<T: ArgumentSchema> ToolParamSchema for T {
    type Schema = T;
}

/// A tool argument's type with a JSON schema. It stands between [`ToolParamSchema`] and
/// `schemars::JsonSchema` so that rustc, reporting a missing `JsonSchema` on the way to the
/// schema struct's field type, words it with this trait's message and says which schemars.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON schema, so it cannot be a tool argument",
    label = "not described by `schemars::JsonSchema`",
    note = "derive `schemars::JsonSchema` (schemars 1.x, `schemars = \"1\"` in Cargo.toml; a \
            0.8 derive implements another trait and does not count) and `serde::Deserialize` \
            on it; the runtime fills `mcp::Context` and `mcp::State<T>`"
)]
pub trait ArgumentSchema: JsonSchema {}

impl<T: JsonSchema> ArgumentSchema for T {}

impl ToolParamSchema for Context {
    type Schema = Injected;
}

impl<T> ToolParamSchema for State<T> {
    type Schema = Injected;
}

/// The schema-struct field of a parameter the runtime fills; never part of an input schema.
#[derive(Debug, Clone, Copy, Default)]
pub struct Injected;

impl JsonSchema for Injected {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("Injected")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::default()
    }
}

/// Removes from a derived input schema the properties of parameters the runtime fills, as if
/// the struct never had them: `params` lists each parameter's wire name and whether it is an
/// argument. Runs once per tool when the server is built.
pub fn keep_arguments(schema: &mut Schema, params: &[(&str, bool)]) {
    let injected = |name: &str| params.iter().any(|(n, argument)| *n == name && !argument);
    if params.iter().all(|(_, argument)| *argument) {
        return;
    }
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        properties.retain(|name, _| !injected(name));
        if properties.is_empty() {
            object.remove("properties");
        }
    }
    if let Some(Value::Array(required)) = object.get_mut("required") {
        required.retain(|name| !name.as_str().is_some_and(injected));
        if required.is_empty() {
            object.remove("required");
        }
    }
}

/// A parameter of a `#[mcp::prompt]` function: an argument (any [`PromptArgumentType`]: a
/// `FromStr` type, or an `Option` of one when optional), the request context, or shared state.
/// `M` tells the impls apart, as for [`PromptArgumentType`]; generated code names it as
/// `PromptParam<_>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a prompt parameter",
    label = "not a prompt argument, the request context or shared state",
    note = "prompt arguments are strings parsed with `FromStr`: use `String`, a number, or a type \
            implementing `FromStr` with a `Display` error (an `Option` of one when optional); \
            the runtime fills `mcp::Context` and `mcp::State<T>`"
)]
pub trait PromptParam<M>: Sized {
    /// `Some(required)` for an argument listed by `prompts/list`; `None` for what the runtime
    /// fills.
    const ARGUMENT: Option<bool>;
    /// Whether it reads the round's answers and state.
    const ROUND: bool = false;
    /// The shared state it needs.
    const STATE: Option<fn() -> StateKey> = None;

    /// The value for one `prompts/get`; `name` is its name on the wire.
    fn from_call(
        context: &Context,
        arguments: &mut BTreeMap<String, String>,
        prompt: &str,
        name: &str,
    ) -> Result<Self, McpError>;
}

/// The [`PromptParam`] impl of an argument, of kind `M`.
#[derive(Debug)]
pub struct PromptArgument<M>(PhantomData<M>);

/// The [`PromptParam`] impls of what the runtime fills.
#[derive(Debug)]
pub enum Filled {}

impl<M, T: PromptArgumentType<M>> PromptParam<PromptArgument<M>> for T {
    const ARGUMENT: Option<bool> = Some(T::REQUIRED);

    #[inline]
    fn from_call(
        _: &Context,
        arguments: &mut BTreeMap<String, String>,
        prompt: &str,
        name: &str,
    ) -> Result<Self, McpError> {
        T::take(arguments, prompt, name)
    }
}

impl PromptParam<Filled> for Context {
    const ARGUMENT: Option<bool> = None;
    const ROUND: bool = true;

    #[inline]
    fn from_call(
        context: &Context,
        _: &mut BTreeMap<String, String>,
        _: &str,
        _: &str,
    ) -> Result<Self, McpError> {
        Ok(context.clone())
    }
}

impl<T: Send + Sync + 'static> PromptParam<Filled> for State<T> {
    const ARGUMENT: Option<bool> = None;
    const STATE: Option<fn() -> StateKey> = Some(StateKey::of::<T>);

    #[inline]
    fn from_call(
        context: &Context,
        _: &mut BTreeMap<String, String>,
        _: &str,
        _: &str,
    ) -> Result<Self, McpError> {
        shared_state(context)
    }
}

/// A parameter of a resource template that is not one of its `{variables}`: the request
/// context or shared state.
#[diagnostic::on_unimplemented(
    message = "this parameter is not a variable of the URI template, and the runtime cannot fill \
               a `{Self}`",
    label = "no `{{variable}}` of the URI has this parameter's name",
    note = "a resource template binds each `{{variable}}` to the parameter of the same name; its \
            other parameters are `mcp::Context` and `mcp::State<T>`"
)]
pub trait ResourceParam: Sized {
    /// Whether it reads the round's answers and state.
    const ROUND: bool = false;
    /// The shared state it needs.
    const STATE: Option<fn() -> StateKey> = None;

    /// The value for one `resources/read`.
    fn from_call(context: &Context) -> Result<Self, McpError>;
}

// The impls are not recommended: the note above names them, without the runtime's source.
#[diagnostic::do_not_recommend]
impl ResourceParam for Context {
    const ROUND: bool = true;

    #[inline]
    fn from_call(context: &Context) -> Result<Self, McpError> {
        Ok(context.clone())
    }
}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ResourceParam for State<T> {
    const STATE: Option<fn() -> StateKey> = Some(StateKey::of::<T>);

    #[inline]
    fn from_call(context: &Context) -> Result<Self, McpError> {
        shared_state(context)
    }
}

/// A parameter of a static resource (a URI without `{variables}`): the request context (who
/// asks, logging, cancellation) or shared state. It has no arguments, and never asks the client
/// (the compiler refuses Resolve parameters and a return type that can ask).
#[diagnostic::on_unimplemented(
    message = "a static resource cannot take a `{Self}`",
    label = "a static resource takes the request context and shared state only",
    note = "a static resource (a URI without `{{variables}}`) has no arguments: it may take \
            `mcp::Context` and `mcp::State<T>`; use a template (`…/{{name}}`) to take a value \
            from the URI"
)]
pub trait StaticResourceParam: Sized {
    /// The shared state it needs.
    const STATE: Option<fn() -> StateKey>;

    /// The value for one `resources/read`.
    fn from_call(context: &Context) -> Result<Self, McpError>;
}

// Without the round: a static resource never asks, so it has no answers or state to read.
#[diagnostic::do_not_recommend]
impl StaticResourceParam for Context {
    const STATE: Option<fn() -> StateKey> = None;

    #[inline]
    fn from_call(context: &Context) -> Result<Self, McpError> {
        Ok(context.clone())
    }
}

#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> StaticResourceParam for State<T> {
    const STATE: Option<fn() -> StateKey> = Some(StateKey::of::<T>);

    #[inline]
    fn from_call(context: &Context) -> Result<Self, McpError> {
        shared_state(context)
    }
}

fn shared_state<S: FromAppState>(context: &Context) -> Result<S, McpError> {
    S::from_state(context.app_state())
        .ok_or_else(|| McpError::internal("a shared state value is missing"))
}

/// How many of `items` are `Some`: the length of [`compact`]'s result.
pub const fn count_some<T: Copy, const N: usize>(items: &[Option<T>; N]) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < N {
        if items[i].is_some() {
            count += 1;
        }
        i += 1;
    }
    count
}

/// The `Some` values of `items`, in order, as a constant array: the macros build the static
/// lists of arguments and shared-state keys with it, since which parameters belong in them is
/// known only from their types' traits. `M` must be [`count_some`] of `items`.
pub const fn compact<T: Copy, const N: usize, const M: usize>(
    items: &[Option<T>; N],
    filler: T,
) -> [T; M] {
    let mut out = [filler; M];
    let mut i = 0;
    let mut j = 0;
    while i < N {
        if let Some(value) = items[i] {
            out[j] = value;
            j += 1;
        }
        i += 1;
    }
    assert!(
        j == M,
        "`compact` needs `M` to be `count_some` of the items"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn injected_properties_leave_no_trace() {
        let mut schema = Schema::try_from(json!({
            "type": "object",
            "properties": {"ctx": {}, "text": {"type": "string"}},
            "required": ["ctx", "text"],
        }))
        .expect("an object");
        keep_arguments(&mut schema, &[("ctx", false), ("text", true)]);
        assert_eq!(
            schema.clone().to_value(),
            json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            })
        );
        keep_arguments(&mut schema, &[("text", false)]);
        assert_eq!(schema.to_value(), json!({"type": "object"}));
    }

    #[test]
    fn compact_keeps_the_order_of_what_is_there() {
        const ALL: [Option<u8>; 4] = [None, Some(1), None, Some(2)];
        const SOME: [u8; count_some(&ALL)] = compact(&ALL, 0);
        assert_eq!(SOME, [1, 2]);
    }
}
