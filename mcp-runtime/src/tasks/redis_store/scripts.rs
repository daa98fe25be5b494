//! The store's Lua scripts, one per operation so that each operation is one atomic step in
//! Redis, whatever other instances do at the same moment. Each is `lua/common.lua` (the key
//! layout and the shared bookkeeping) followed by its own file.

use std::sync::LazyLock;

use redis::Script;

macro_rules! script {
    ($file:literal) => {
        LazyLock::new(|| {
            Script::new(concat!(
                include_str!("lua/common.lua"),
                include_str!(concat!("lua/", $file))
            ))
        })
    };
}

pub(super) static CREATE: LazyLock<Script> = script!("create.lua");
pub(super) static READ: LazyLock<Script> = script!("read.lua");
pub(super) static UPDATE: LazyLock<Script> = script!("update.lua");
pub(super) static CANCEL: LazyLock<Script> = script!("cancel.lua");
pub(super) static ADVANCE: LazyLock<Script> = script!("advance.lua");
pub(super) static INBOX: LazyLock<Script> = script!("inbox.lua");
pub(super) static RENEW: LazyLock<Script> = script!("renew.lua");
pub(super) static SWEEP: LazyLock<Script> = script!("sweep.lua");
