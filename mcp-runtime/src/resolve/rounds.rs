//! Running a function's Resolve parameters across rounds: what is already answered, what
//! to ask now (every question whose inputs are known, together), and when the function may run.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::protocol::{
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, Generation,
    InputRequest, InputRequiredResult, ListRootsResult, McpError,
};
use crate::server::Context;
use crate::state::fill_random;

use super::answers::{ElicitUrl, Elicited, FromElicitation, ListRoots, Sample, UrlQuestion};
use super::elicitation::{Elicitation, fill_defaults};
use super::forms::{Form, form};
use super::ledger::{Entry, Ledger, QuestionDigest, question_digest};
use super::validate::fits;

/// Why [`Rounds::call_back`] did not get the answers.
#[derive(Debug)]
pub enum CallBack {
    /// A 2026-07-28 request: return the round's questions as an `InputRequiredResult`.
    Ask,
    /// The call ends with this message (an answer the function cannot use).
    Halt(Halt),
    /// The call ends with this protocol error (a capability the client did not declare).
    Failed(McpError),
}

/// Why a call stops before its function runs: the message for the client (an `isError` tool
/// result, or an error for a prompt or resource). It never carries parser internals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Halt(pub String);

/// One call's Resolve parameters in one round. Macro-generated wrappers drive it: they ask for
/// each parameter whose inputs are known, then either run the function or [`finish`] the round.
///
/// [`finish`]: Rounds::finish
#[derive(Debug)]
pub struct Rounds {
    /// The request's context, handed to the parameters that talk back later (`ElicitUrl`).
    ctx: Context,
    subject: &'static str,
    previous: Ledger,
    next: Ledger,
    /// Answers of this round taken from the request as they stand, by key and question
    /// digest: copied into `next` only if the round ends with questions (most end with
    /// the function running, and the copy would be dropped).
    taken_in_place: Vec<(String, QuestionDigest)>,
    responses: Responses,
    /// This round's questions: key, digest, request.
    questions: Vec<(String, QuestionDigest, InputRequest)>,
    /// 2025-11-25: the `elicitationId` each URL question was sent with, by key.
    elicitation_ids: HashMap<String, String>,
}

/// An answer [`Rounds::lookup`] found.
#[derive(Debug)]
enum Answer {
    /// Its response, held: from the ledger, or given over the back-channel.
    Held(Value),
    /// The request's `inputResponses` holds it, read in place.
    InRequest,
}

/// Where a round's fresh answers are read from.
#[derive(Debug)]
enum Responses {
    /// The request's `inputResponses`, read in place from its context: a round uses the answers
    /// it finds a question for, so copying them all out first would be wasted.
    OfRequest,
    /// Answers a 2025-11-25 client gave over the back-channel during this call.
    CalledBack(Map<String, Value>),
}

impl Rounds {
    /// Reads the ledger from this round's state and the client's answers. `subject` names the
    /// tool, prompt or resource in messages.
    pub fn open(ctx: &Context, subject: &'static str) -> Self {
        Self {
            ctx: ctx.clone(),
            subject,
            previous: Ledger::decode(ctx.request_state()),
            next: Ledger::default(),
            taken_in_place: Vec::new(),
            responses: Responses::OfRequest,
            questions: Vec::new(),
            elicitation_ids: HashMap::new(),
        }
    }

    /// A form question under `key`: the parameter once answered, `None` while it is asked.
    pub fn elicit<P: FromElicitation>(
        &mut self,
        key: &str,
        message: impl AsRef<str> + Into<String>,
    ) -> Result<Option<P>, Halt>
    where
        P::Form: 'static,
    {
        let form = form::<P::Form>();
        // The question itself is built only when it is asked: a round that finds its answer
        // needs no more than the question's digest.
        let question = |message: String, form: &Form| {
            InputRequest::Elicit(ElicitParams::form(message, form.schema.clone()))
        };
        let digest = form.question_digest(message.as_ref());
        let Some((answer, fresh)) = self.lookup(key, digest) else {
            self.ask(key, digest, question(message.into(), &form));
            return Ok(None);
        };
        match self.read_elicitation::<P::Form>(key, self.raw(key, &answer), &form.schema) {
            Ok(outcome) => {
                self.record(key, digest, answer);
                P::from_outcome(outcome)
                    .map(Some)
                    .ok_or_else(|| self.declined(key))
            }
            Err(halt) if fresh => Err(halt),
            Err(_) => {
                self.ask(key, digest, question(message.into(), &form));
                Ok(None)
            }
        }
    }

    /// A URL question under `key`: the parameter once the user accepted to go, `None` while it
    /// is asked.
    pub fn elicit_url(
        &mut self,
        key: &str,
        question: UrlQuestion,
    ) -> Result<Option<ElicitUrl>, Halt> {
        // Pinned without an `elicitationId`: a 2025-11-25 session adds a fresh one each time
        // it sends the question, and that does not make it another question.
        let request = InputRequest::Elicit(ElicitParams::url(
            question.message.clone(),
            question.url.clone(),
        ));
        let digest = question_digest(&request);
        let Some((answer, fresh)) = self.lookup(key, digest) else {
            self.ask(key, digest, request);
            return Ok(None);
        };
        let Ok(result) = ElicitResult::deserialize(self.raw(key, &answer)) else {
            if fresh {
                return Err(self.wrong_kind(key));
            }
            self.ask(key, digest, request);
            return Ok(None);
        };
        self.record(key, digest, answer);
        match result.action {
            ElicitAction::Accept => Ok(Some(ElicitUrl {
                question,
                elicitation_id: self.elicitation_ids.get(key).cloned(),
                ctx: self.ctx.clone(),
            })),
            ElicitAction::Decline | ElicitAction::Cancel => Err(self.declined(key)),
        }
    }

    /// A sampling request under `key`.
    pub fn sample(
        &mut self,
        key: &str,
        params: CreateMessageParams,
    ) -> Result<Option<Sample>, Halt> {
        let request = InputRequest::CreateMessage(Box::new(params));
        let digest = question_digest(&request);
        let Some((answer, fresh)) = self.lookup(key, digest) else {
            self.ask(key, digest, request);
            return Ok(None);
        };
        match CreateMessageResult::deserialize(self.raw(key, &answer)) {
            Ok(result) => {
                self.record(key, digest, answer);
                Ok(Some(Sample(result)))
            }
            Err(_) if fresh => Err(self.wrong_kind(key)),
            Err(_) => {
                self.ask(key, digest, request);
                Ok(None)
            }
        }
    }

    /// The client's roots under `key`.
    pub fn list_roots(&mut self, key: &str) -> Result<Option<ListRoots>, Halt> {
        let request = InputRequest::ListRoots;
        let digest = question_digest(&request);
        let Some((answer, fresh)) = self.lookup(key, digest) else {
            self.ask(key, digest, request);
            return Ok(None);
        };
        match ListRootsResult::deserialize(self.raw(key, &answer)) {
            Ok(result) => {
                self.record(key, digest, answer);
                Ok(Some(ListRoots(result.roots)))
            }
            Err(_) if fresh => Err(self.wrong_kind(key)),
            Err(_) => {
                self.ask(key, digest, request);
                Ok(None)
            }
        }
    }

    /// Whether this round has questions to send (the function cannot run yet).
    pub fn is_asking(&self) -> bool {
        !self.questions.is_empty()
    }

    /// In a 2025-11-25 session, asks this round's questions over the back-channel (real
    /// `elicitation/create`, `sampling/createMessage`, `roots/list` requests) and takes their
    /// answers as this round's responses, so the same function serves both generations.
    pub async fn call_back(&mut self, ctx: &Context) -> Result<(), CallBack> {
        if ctx.generation() != Generation::V2025_11_25 || self.questions.is_empty() {
            return Err(CallBack::Ask);
        }
        // Boxed: a call waiting on the client is the largest state of a function with
        // questions, and every call's future would carry room for it (past the 1 KiB from
        // which glibc's `malloc` takes its slow path), though a 2026-07-28 round never waits.
        Box::pin(self.ask_over_back_channel(ctx)).await
    }

    async fn ask_over_back_channel(&mut self, ctx: &Context) -> Result<(), CallBack> {
        let mut check = InputRequiredResult::new();
        for (key, _, request) in &self.questions {
            check = check.ask(key.clone(), request.clone());
        }
        if let Some(missing) = check.missing_capabilities(ctx.client_capabilities()) {
            return Err(CallBack::Failed(McpError::missing_capability(
                "This request needs client capabilities it did not declare",
                &missing,
            )));
        }
        if !ctx.can_ask_client() {
            return Err(CallBack::Failed(self.no_back_channel()));
        }
        self.copy_taken_in_place();
        let answered = std::mem::take(&mut self.next.answers);
        self.previous.answers.extend(answered);
        self.previous.asked.clear();
        self.responses = Responses::CalledBack(Map::new());
        for (key, digest, request) in std::mem::take(&mut self.questions) {
            let request = self.with_elicitation_id(&key, request);
            let params = serde_json::to_value(&request)
                .ok()
                .and_then(|mut v| v.get_mut("params").map(Value::take))
                .unwrap_or_else(|| Value::Object(Map::new()));
            let answer: Value = ctx
                .request_client(request.method(), &params)
                .await
                .map_err(|error| {
                    CallBack::Halt(Halt(format!(
                        "{}: the client could not answer `{key}`: {}",
                        self.subject, error.message
                    )))
                })?;
            self.previous.asked.insert(key.clone(), digest);
            if let Responses::CalledBack(answers) = &mut self.responses {
                answers.insert(key, answer);
            }
        }
        Ok(())
    }

    /// A 2025-11-25 URL question as sent: with a fresh `elicitationId`, remembered under `key`
    /// for the parameter (unique per server, as the spec wants, being random).
    fn with_elicitation_id(&mut self, key: &str, request: InputRequest) -> InputRequest {
        let InputRequest::Elicit(ElicitParams::Url { message, url, .. }) = request else {
            return request;
        };
        let mut bytes = [0u8; 16];
        fill_random(&mut bytes);
        let id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.elicitation_ids.insert(key.to_owned(), id.clone());
        InputRequest::Elicit(ElicitParams::Url {
            message,
            url,
            elicitation_id: Some(id),
        })
    }

    /// Why a 2025-11-25 request whose client cannot be asked anything stops: -32042 with the
    /// URLs when those are all it needs (the user can go there and the client retry), else an
    /// error saying the client must take an event stream.
    fn no_back_channel(&mut self) -> McpError {
        let questions = std::mem::take(&mut self.questions);
        let all_urls = questions
            .iter()
            .all(|(_, _, q)| matches!(q, InputRequest::Elicit(ElicitParams::Url { .. })));
        if !all_urls {
            return McpError::internal(format!(
                "{}: the client takes no event stream on this request, so the server cannot \
                 ask it the questions the call needs",
                self.subject
            ));
        }
        let elicitations: Vec<ElicitParams> = questions
            .into_iter()
            .filter_map(|(key, _, q)| match self.with_elicitation_id(&key, q) {
                InputRequest::Elicit(params) => Some(params),
                _ => None,
            })
            .collect();
        McpError::url_elicitation_required(
            format!(
                "{}: the user must first visit {}",
                self.subject,
                if elicitations.len() == 1 {
                    "a URL"
                } else {
                    "some URLs"
                }
            ),
            &elicitations,
        )
    }

    /// The round's questions (all asked together) and the state that carries the answers so far.
    pub fn finish(mut self) -> InputRequiredResult {
        self.copy_taken_in_place();
        let mut next = self.next;
        let mut result = InputRequiredResult::new();
        for (key, digest, request) in self.questions {
            next.asked.insert(key.clone(), digest);
            result = result.ask(key, request);
        }
        result.with_state(next.encode())
    }

    /// The answer under `key` to the question with this digest (where it is, and whether it
    /// arrived in this round), from the ledger or the answers; `None` when the question must
    /// be asked. Each key is looked up once per round.
    fn lookup(&mut self, key: &str, digest: QuestionDigest) -> Option<(Answer, bool)> {
        if let Some(entry) = self.previous.answers.remove(key) {
            if entry.q == digest {
                return Some((Answer::Held(entry.r), false));
            }
            tracing::info!(
                key,
                "a recorded answer is to another question; asking again"
            );
        }
        // A fresh answer counts only for the question that was asked, as it was asked.
        let fresh = match &mut self.responses {
            Responses::OfRequest => self.in_request(key).is_some().then_some(Answer::InRequest),
            Responses::CalledBack(answers) => answers.remove(key).map(Answer::Held),
        };
        if let Some(answer) = fresh {
            if self
                .previous
                .asked
                .get(key)
                .is_some_and(|asked| *asked == digest)
            {
                return Some((answer, true));
            }
            tracing::info!(
                key,
                "an answer does not match the question as asked now; asking again"
            );
        }
        None
    }

    /// Queues `request` for this round.
    fn ask(&mut self, key: &str, digest: QuestionDigest, request: InputRequest) {
        self.questions.push((key.to_owned(), digest, request));
    }

    /// The raw response of an answer [`lookup`](Self::lookup) found under `key`.
    fn raw<'s>(&'s self, key: &str, answer: &'s Answer) -> &'s Value {
        match answer {
            Answer::Held(raw) => raw,
            // Found there by the lookup, in the request that cannot change.
            Answer::InRequest => self.in_request(key).unwrap_or(&Value::Null),
        }
    }

    /// The request's own answer under `key`.
    fn in_request(&self, key: &str) -> Option<&Value> {
        self.ctx
            .input_responses()
            .and_then(|responses| responses.0.get(key))
    }

    fn record(&mut self, key: &str, digest: QuestionDigest, answer: Answer) {
        match answer {
            Answer::Held(raw) => {
                self.next
                    .answers
                    .insert(key.to_owned(), Entry { q: digest, r: raw });
            }
            Answer::InRequest => self.taken_in_place.push((key.to_owned(), digest)),
        }
    }

    /// Copies into the ledger the answers this round took from the request in place, for a
    /// round that carries its ledger on.
    fn copy_taken_in_place(&mut self) {
        for (key, digest) in std::mem::take(&mut self.taken_in_place) {
            if let Some(raw) = self.in_request(&key).cloned() {
                self.next.answers.insert(key, Entry { q: digest, r: raw });
            }
        }
    }

    fn read_elicitation<T: Elicitation>(
        &self,
        key: &str,
        raw: &Value,
        schema: &Value,
    ) -> Result<Elicited<T>, Halt> {
        let subject = &self.subject;
        let (action, content) = elicit_result_in_place(raw).ok_or_else(|| {
            Halt(format!(
                "{subject}: the answer to `{key}` is not an elicitation result"
            ))
        })?;
        match action {
            ElicitAction::Decline => Ok(Elicited::Declined),
            ElicitAction::Cancel => Ok(Elicited::Cancelled),
            ElicitAction::Accept => {
                let content = content.ok_or_else(|| {
                    Halt(format!(
                        "{subject}: the answer to `{key}` was accepted with no content"
                    ))
                })?;
                let mismatch = || {
                    Halt(format!(
                        "{subject}: the answer to `{key}` does not match the requested schema"
                    ))
                };
                // Copied only when the schema's defaults fill in what the user left out.
                let content = fill_defaults(content, schema);
                if !fits(&content, schema) {
                    return Err(mismatch());
                }
                T::deserialize(&*content)
                    .map(Elicited::Accepted)
                    .map_err(|_| mismatch())
            }
        }
    }

    fn declined(&self, key: &str) -> Halt {
        Halt(format!(
            "{}: the user did not answer `{key}` (declined or cancelled)",
            self.subject
        ))
    }

    fn wrong_kind(&self, key: &str) -> Halt {
        Halt(format!(
            "{}: the answer to `{key}` is of the wrong kind",
            self.subject
        ))
    }
}

/// An `ElicitResult` read where it stands: its action, and its content unless absent or
/// `null`; `None` for anything that is not such an object (stricter than decoding one, which
/// also takes the struct's array form).
fn elicit_result_in_place(raw: &Value) -> Option<(ElicitAction, Option<&Map<String, Value>>)> {
    let result = raw.as_object()?;
    let action = ElicitAction::deserialize(result.get("action")?).ok()?;
    let content = match result.get("content") {
        None | Some(Value::Null) => None,
        Some(Value::Object(content)) => Some(content),
        Some(_) => return None,
    };
    Some((action, content))
}
