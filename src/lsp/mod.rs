//! `crowd lsp`: a language server over stdio (the protocol through
//! `lsp-server` and `lsp-types`, as rust-analyzer speaks it). It checks every
//! open file on each change and publishes the checker's diagnostics, and
//! answers hover, go to definition, find references, completion, rename,
//! the outline, and formatting through `crowd fmt`'s layout.
//!
//! One thread answers in the order messages come: a file checks in
//! milliseconds, so nothing is gained by answering out of order.

mod complete;
mod document;
mod hover;
mod navigate;
pub mod position;

use std::collections::BTreeMap;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest, PrepareRenameRequest, References,
    Rename, Request as _,
};
use lsp_types::{
    CompletionOptions, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentSymbolResponse,
    GotoDefinitionResponse, InitializeParams, Location, NumberOrString, OneOf, PositionEncodingKind,
    PrepareRenameResponse, PublishDiagnosticsParams, RenameOptions, ServerCapabilities, ServerInfo,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind, TextEdit, Uri, WorkspaceEdit,
};
use serde_json::Value;

use crate::check::layout::{relayout, Refused};
use crate::diag::{Diagnostic, Severity};
use document::Document;
use position::Encoding;

/// Serves one client on stdin and stdout until it says `exit`; files larger
/// than `max_bytes` are not checked.
pub fn serve_stdio(max_bytes: usize) -> Result<(), String> {
    let (connection, threads) = Connection::stdio();
    serve(&connection, max_bytes)?;
    drop(connection);
    threads.join().map_err(|e| e.to_string())
}

/// Serves one client on a connection: the handshake, then every message
/// until the client shuts the server down.
pub fn serve(connection: &Connection, max_bytes: usize) -> Result<(), String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let params: InitializeParams = serde_json::from_value(params).map_err(|e| e.to_string())?;
    let offered = (params.capabilities.general.as_ref()).and_then(|g| g.position_encodings.as_ref());
    let encoding = match offered {
        Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    };
    let result = serde_json::json!({
        "capabilities": capabilities(encoding),
        "serverInfo": ServerInfo { name: "crowd".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    connection.initialize_finish(id, result).map_err(|e| e.to_string())?;
    let mut server = Server { connection, encoding, max_bytes, docs: BTreeMap::new() };
    for message in &connection.receiver {
        match message {
            Message::Request(req) => {
                if connection.handle_shutdown(&req).map_err(|e| e.to_string())? {
                    return Ok(());
                }
                let id = req.id.clone();
                let response = match server.request(req) {
                    Ok(result) => Response { id, response_result: Ok(result) },
                    Err((code, message)) => Response::new_err(id, code as i32, message),
                };
                server.send(response.into());
            }
            Message::Notification(n) => server.notification(n),
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
        hover_provider: Some(true.into()),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions::default()),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

type Failed = (ErrorCode, String);

struct Server<'c> {
    connection: &'c Connection,
    encoding: Encoding,
    max_bytes: usize,
    docs: BTreeMap<Uri, Document>,
}

impl Server<'_> {
    fn send(&self, message: Message) {
        // The client has gone: the receiver loop ends by itself.
        let _ = self.connection.sender.send(message);
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD) else {
                    return;
                };
                let name = file_name(&p.text_document.uri);
                let doc = Document::new(&name, p.text_document.text, self.encoding, self.max_bytes);
                self.open(p.text_document.uri, Some(p.text_document.version), doc);
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD) else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some(doc) = self.docs.get(&uri) else { return };
                let doc = doc.changed(p.content_changes, self.encoding, self.max_bytes);
                self.open(uri, Some(p.text_document.version), doc);
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD) else {
                    return;
                };
                self.docs.remove(&p.text_document.uri);
                self.publish(p.text_document.uri, None, Vec::new());
            }
            _ => {}
        }
    }

    fn open(&mut self, uri: Uri, version: Option<i32>, doc: Document) {
        let diagnostics = doc.diagnostics.iter().map(|d| to_lsp(d, &doc, &uri)).collect();
        self.docs.insert(uri.clone(), doc);
        self.publish(uri, version, diagnostics);
    }

    fn publish(&self, uri: Uri, version: Option<i32>, diagnostics: Vec<lsp_types::Diagnostic>) {
        let params = PublishDiagnosticsParams { uri, diagnostics, version };
        self.send(Notification::new(PublishDiagnostics::METHOD.into(), params).into());
    }

    fn request(&mut self, req: Request) -> Result<Value, Failed> {
        let json = |v: Result<Value, serde_json::Error>| v.map_err(|e| (ErrorCode::InternalError, e.to_string()));
        match req.method.as_str() {
            HoverRequest::METHOD => {
                let p = params::<HoverRequest>(req)?;
                let (doc, offset) = self.at(&p.text_document_position_params)?;
                json(serde_json::to_value(hover::hover(doc, offset)))
            }
            GotoDefinition::METHOD => {
                let p = params::<GotoDefinition>(req)?;
                let uri = p.text_document_position_params.text_document.uri.clone();
                let (doc, offset) = self.at(&p.text_document_position_params)?;
                let found = navigate::definition(doc, &uri, offset).map(GotoDefinitionResponse::Scalar);
                json(serde_json::to_value(found))
            }
            References::METHOD => {
                let p = params::<References>(req)?;
                let uri = p.text_document_position.text_document.uri.clone();
                let (doc, offset) = self.at(&p.text_document_position)?;
                let found: Vec<Location> = navigate::references(doc, &uri, offset, p.context.include_declaration);
                json(serde_json::to_value(found))
            }
            Completion::METHOD => {
                let p = params::<Completion>(req)?;
                let (doc, offset) = self.at(&p.text_document_position)?;
                json(serde_json::to_value(complete::complete(doc, offset)))
            }
            PrepareRenameRequest::METHOD => {
                let p = params::<PrepareRenameRequest>(req)?;
                let (doc, offset) = self.at(&p)?;
                let found = navigate::prepare_rename(doc, offset)
                    .map(|(range, placeholder)| PrepareRenameResponse::RangeWithPlaceholder { range, placeholder });
                json(serde_json::to_value(found))
            }
            Rename::METHOD => {
                let p = params::<Rename>(req)?;
                let uri = p.text_document_position.text_document.uri.clone();
                let (doc, offset) = self.at(&p.text_document_position)?;
                let edits = navigate::rename(doc, offset, &p.new_name).map_err(|m| (ErrorCode::InvalidParams, m))?;
                #[allow(clippy::mutable_key_type)] // `Uri` hashes its text only.
                let changes = std::iter::once((uri, edits)).collect();
                json(serde_json::to_value(WorkspaceEdit::new(changes)))
            }
            Formatting::METHOD => {
                let p = params::<Formatting>(req)?;
                let doc = self.doc(&p.text_document.uri)?;
                json(serde_json::to_value(format(doc)?))
            }
            DocumentSymbolRequest::METHOD => {
                let p = params::<DocumentSymbolRequest>(req)?;
                let doc = self.doc(&p.text_document.uri)?;
                json(serde_json::to_value(DocumentSymbolResponse::Nested(navigate::outline(doc))))
            }
            other => Err((ErrorCode::MethodNotFound, format!("crowd lsp does not answer `{other}`"))),
        }
    }

    fn doc(&self, uri: &Uri) -> Result<&Document, Failed> {
        (self.docs.get(uri)).ok_or_else(|| (ErrorCode::InvalidParams, format!("{} is not open", uri.as_str())))
    }

    fn at(&self, p: &TextDocumentPositionParams) -> Result<(&Document, usize), Failed> {
        let doc = self.doc(&p.text_document.uri)?;
        Ok((doc, doc.lines.offset(doc.text(), p.position)))
    }
}

fn params<R: lsp_types::request::Request>(req: Request) -> Result<R::Params, Failed> {
    serde_json::from_value(req.params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

/// The whole file in the canonical layout, as one edit; none when it already is.
fn format(doc: &Document) -> Result<Vec<TextEdit>, Failed> {
    match relayout(&doc.file) {
        Ok(None) => Ok(Vec::new()),
        Ok(Some(text)) => Ok(vec![TextEdit::new(doc.lines.range(doc.text(), &(0..doc.text().len())), text)]),
        Err(Refused::Errors(diags)) => Err((
            ErrorCode::RequestFailed,
            format!("the file has {} error(s): fix them, then format", diags.iter().filter(|d| d.is_error()).count()),
        )),
        Err(Refused::MeaningChanged) => Err((
            ErrorCode::InternalError,
            "the canonical layout would change what the file means (a fault of crowd fmt): left as it is".into(),
        )),
    }
}

/// A checker diagnostic as the protocol carries it: its code, its help after
/// the message (the protocol has no place of its own for help), and its
/// related places. The label is left out: beside the message, at the same
/// place, it would only repeat it.
fn to_lsp(d: &Diagnostic, doc: &Document, uri: &Uri) -> lsp_types::Diagnostic {
    let text = doc.text();
    let mut message = d.message.clone();
    if !d.help.is_empty() {
        message.push_str(&format!("\nhelp: {}", d.help));
    }
    let related = (d.related.iter())
        .map(|(span, label)| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), doc.lines.range(text, span)),
            message: label.clone(),
        })
        .collect::<Vec<_>>();
    lsp_types::Diagnostic {
        range: doc.lines.range(text, &d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("crowd".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..lsp_types::Diagnostic::default()
    }
}

/// The name a file's diagnostics use: its path for a `file:` URI.
fn file_name(uri: &Uri) -> String {
    let s = uri.as_str();
    s.strip_prefix("file://").unwrap_or(s).to_string()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use lsp_server::{Connection, Message, Notification, Request, RequestId};
    use serde_json::json;

    use super::*;
    use crate::test_files::crowd_files;

    /// Every question at every seventh offset of every scenario and fixture,
    /// broken ones too: an answer or none, never a panic.
    #[test]
    fn any_question_anywhere_is_answered() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut all = crowd_files(&root.join("scenarios"));
        all.extend(crowd_files(&root.join("tests/fixtures")));
        let uri: Uri = "file:///t.crowd".parse().unwrap();
        for path in all {
            let text = std::fs::read_to_string(&path).unwrap();
            let doc = Document::new("t.crowd", text, Encoding::Utf16, usize::MAX);
            let _ = format(&doc);
            let _ = navigate::outline(&doc);
            for offset in (0..=doc.text().len()).step_by(7) {
                let _ = hover::hover(&doc, offset);
                let _ = navigate::definition(&doc, &uri, offset);
                let _ = navigate::references(&doc, &uri, offset, true);
                let _ = navigate::prepare_rename(&doc, offset);
                let _ = navigate::rename(&doc, offset, "renamed");
                let _ = complete::complete(&doc, offset);
            }
        }
    }

    fn request(id: i32, method: &str, params: Value) -> Message {
        Request::new(RequestId::from(id), method.into(), params).into()
    }

    fn notify(method: &str, params: Value) -> Message {
        Notification::new(method.into(), params).into()
    }

    /// The protocol's edges, in process: questions about a file not open,
    /// malformed parameters and unknown methods get errors; positions past
    /// the end are clamped; the server stops on `shutdown`.
    #[test]
    fn bad_requests_get_errors_and_the_server_goes_on() {
        let (server, client) = Connection::memory();
        let serving = std::thread::spawn(move || serve(&server, 200));
        let send = |m: Message| client.sender.send(m).unwrap();
        let answer = |id: i32| loop {
            match client.receiver.recv().unwrap() {
                Message::Response(r) if r.id == RequestId::from(id) => return r.response_result,
                _ => {}
            }
        };
        send(request(1, "initialize", json!({ "capabilities": {} })));
        assert!(answer(1).is_ok());
        send(notify("initialized", json!({})));
        let at = |line: u32, character: u32| json!({ "textDocument": { "uri": "file:///a.crowd" }, "position": { "line": line, "character": character } });
        send(request(2, "textDocument/hover", at(0, 0)));
        assert!(answer(2).unwrap_err().message.contains("not open"));
        let item = json!({ "uri": "file:///a.crowd", "languageId": "crowd", "version": 1,
                           "text": "world { bounds (0 m, 0 m) to (9 m, 9 m)\n  region exit rect (0 m, 0 m) to (1 m, 1 m) }" });
        send(notify("textDocument/didOpen", json!({ "textDocument": item })));
        send(request(3, "textDocument/hover", at(99, 99)));
        assert_eq!(answer(3).unwrap(), Value::Null);
        send(request(4, "textDocument/hover", json!({ "position": "nowhere" })));
        assert_eq!(answer(4).unwrap_err().code, ErrorCode::InvalidParams as i32);
        send(request(5, "textDocument/codeLens", at(0, 0)));
        assert_eq!(answer(5).unwrap_err().code, ErrorCode::MethodNotFound as i32);
        send(request(6, "textDocument/definition", at(1, 10)));
        let found = answer(6).unwrap();
        assert_eq!(found["range"]["start"], json!({ "line": 1, "character": 9 }), "{found}");
        // Larger than the server's limit (200 bytes here): one error, nothing checked.
        let big = json!({ "uri": "file:///big.crowd", "languageId": "crowd", "version": 1, "text": "x".repeat(201) });
        send(notify("textDocument/didOpen", json!({ "textDocument": big })));
        let published = loop {
            match client.receiver.recv().unwrap() {
                Message::Notification(n) if n.params["uri"] == "file:///big.crowd" => break n.params,
                _ => {}
            }
        };
        assert_eq!(published["diagnostics"].as_array().unwrap().len(), 1, "{published}");
        assert_eq!(published["diagnostics"][0]["code"], "E004", "{published}");
        send(request(7, "shutdown", Value::Null));
        assert!(answer(7).is_ok());
        send(notify("exit", Value::Null));
        serving.join().unwrap().unwrap();
    }
}
