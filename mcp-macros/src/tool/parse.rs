//! From the attribute and the function's tokens to a [`ToolFn`]: what is written, with every
//! syntax mistake (an unknown key, a key given twice, a value of the wrong kind) reported.

use proc_macro2::TokenStream;
use syn::parse::Parser;

use crate::common::attrs::{Slot, flag, string, unknown_key};
use crate::common::describe::Describe;
use crate::common::errors::Errors;
use crate::common::naming::{Naming, signature};
use crate::common::policy::Policy;
use crate::common::resolve::plan;

use super::model::{Hints, Tasks, ToolFn};

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "icons",
    "meta",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "task",
    "ask_before_task",
    "scopes",
    "timeout",
    "rate_limit",
    "crate",
];
const PARAM_KEYS: &[&str] = &["default", "rename", "header", "ask", "key"];

/// Reads the attribute arguments and the function. The model is as complete as the input
/// allows, so the checks can still run on it.
pub fn parse(attr: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> ToolFn {
    let mut naming = Naming::default();
    let mut describe = Describe::default();
    let mut policy = Policy::default();
    let mut read_only = Slot::default();
    let mut destructive = Slot::default();
    let mut idempotent = Slot::default();
    let mut open_world = Slot::default();
    let mut task = Slot::default();
    let mut ask_before_task = Slot::default();
    let parser = syn::meta::parser(|meta| {
        if naming.accept(&meta, errors)?
            || describe.accept(&meta, errors)?
            || policy.accept(&meta, errors)?
        {
            return Ok(());
        }
        if meta.path.is_ident("task") {
            let lit = string(&meta)?;
            task.set(&meta, lit, errors);
            return Ok(());
        }
        let slot = if meta.path.is_ident("read_only") {
            &mut read_only
        } else if meta.path.is_ident("destructive") {
            &mut destructive
        } else if meta.path.is_ident("idempotent") {
            &mut idempotent
        } else if meta.path.is_ident("open_world") {
            &mut open_world
        } else if meta.path.is_ident("ask_before_task") {
            &mut ask_before_task
        } else {
            return Err(unknown_key(&meta, TOOL_KEYS));
        };
        let value = flag(&meta)?;
        slot.set(&meta, value, errors);
        Ok(())
    });
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    let (params, ret) = signature(&mut item, PARAM_KEYS, errors);
    ToolFn {
        name: naming.name_or(&item.sig.ident),
        description: naming.description(&item.attrs),
        title: naming.title.get().cloned(),
        paths: naming.paths(),
        describe,
        policy,
        hints: Hints {
            read_only: read_only.into_inner(),
            destructive: destructive.into_inner(),
            idempotent: idempotent.into_inner(),
            open_world: open_world.into_inner(),
        },
        tasks: Tasks {
            task: task.into_inner(),
            ask_before_task: ask_before_task
                .span()
                .filter(|_| ask_before_task.get() == Some(&true)),
        },
        plan: plan(&params),
        params,
        ret,
        item,
    }
}
