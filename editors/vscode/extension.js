// Starts `crowd lsp` for .crowd files: diagnostics as you type, hover,
// go to definition, references, completion, rename, formatting, outline.
// The server is the `crowd` on PATH, or the one named in the setting
// `crowd.server.path`.

"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const path = vscode.workspace.getConfiguration("crowd").get("server.path") || "crowd";
  const run = { command: path, args: ["lsp"], transport: TransportKind.stdio };
  client = new LanguageClient(
    "crowd",
    "crowd language server",
    { run, debug: run },
    { documentSelector: [{ scheme: "file", language: "crowd" }, { scheme: "untitled", language: "crowd" }] },
  );
  context.subscriptions.push(client);
  return client.start().catch((e) => {
    vscode.window.showErrorMessage(
      `crowd: could not start \`${path} lsp\` (${e.message}). Install crowd (cargo install --locked --path .) ` +
        "or set crowd.server.path.",
    );
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
