//! Request method names.

/// `server/discover` (2026-07-28).
pub const DISCOVER: &str = "server/discover";
/// `initialize` (2025-11-25).
pub const INITIALIZE: &str = "initialize";
/// `ping` (2025-11-25).
pub const PING: &str = "ping";
/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";
/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCE_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe` (2025-11-25).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (2025-11-25).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `completion/complete`.
pub const COMPLETE: &str = "completion/complete";
/// `logging/setLevel` (2025-11-25).
pub const SET_LEVEL: &str = "logging/setLevel";
/// `subscriptions/listen` (2026-07-28).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `tasks/get` (the tasks extension).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/update` (the tasks extension).
pub const TASKS_UPDATE: &str = "tasks/update";
/// `tasks/cancel` (the tasks extension).
pub const TASKS_CANCEL: &str = "tasks/cancel";

/// Methods that exist only in 2025-11-25: a 2026-07-28 request for one is -32601.
pub const LEGACY_ONLY: &[&str] = &[
    INITIALIZE,
    PING,
    SET_LEVEL,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
];

/// Methods whose params may carry `inputResponses` / `requestState`, and whose result may be
/// an `InputRequiredResult`.
pub const MULTI_ROUND: &[&str] = &[TOOLS_CALL, PROMPTS_GET, RESOURCES_READ];

/// Every request method of the core protocol, of either revision: an extension may not serve
/// one of these.
pub const CORE: &[&str] = &[
    DISCOVER,
    INITIALIZE,
    PING,
    TOOLS_LIST,
    TOOLS_CALL,
    PROMPTS_LIST,
    PROMPTS_GET,
    RESOURCES_LIST,
    RESOURCE_TEMPLATES_LIST,
    RESOURCES_READ,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
    COMPLETE,
    SET_LEVEL,
    SUBSCRIPTIONS_LISTEN,
];
