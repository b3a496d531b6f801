// The extension's wiring, outside VS Code: `vscode` and the language client
// are stood in for, and activate() must start `crowd lsp` over stdio for
// .crowd files (the setting's path when given), and deactivate() stop it.
// Exits 1 on the first difference. (The server itself is tested with a real
// client in tests/lsp_client.rs.)
//
// usage: node test/extension.js

"use strict";

const Module = require("module");
const assert = require("assert");

const made = [];
const settings = {};
const stand_ins = {
  vscode: {
    workspace: { getConfiguration: (section) => ({ get: (key) => settings[`${section}.${key}`] }) },
    window: { showErrorMessage: (m) => made.push({ error: m }) },
  },
  "vscode-languageclient/node": {
    TransportKind: { stdio: 0 },
    LanguageClient: class {
      constructor(id, name, server, client) {
        Object.assign(this, { id, name, server, client, started: false, stopped: false });
        made.push(this);
      }
      start() {
        this.started = true;
        return Promise.resolve();
      }
      stop() {
        this.stopped = true;
        return Promise.resolve();
      }
    },
  },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request in stand_ins ? stand_ins[request] : load.call(this, request, ...rest);
};

const manifest = require("../package.json");
assert.deepStrictEqual(manifest.activationEvents, ["onLanguage:crowd"]);
assert.strictEqual(manifest.main, "./extension.js");
assert.ok(manifest.dependencies["vscode-languageclient"], "the language client is a dependency");

(async () => {
  const extension = require("../extension.js");
  const context = { subscriptions: [] };
  await extension.activate(context);
  let client = made.pop();
  assert.deepStrictEqual(client.server.run, { command: "crowd", args: ["lsp"], transport: 0 });
  assert.deepStrictEqual(client.client.documentSelector.map((s) => s.language), ["crowd", "crowd"]);
  assert.ok(client.started && context.subscriptions.includes(client), "started and disposed with the extension");
  await extension.deactivate();
  assert.ok(client.stopped, "stopped on deactivate");

  settings["crowd.server.path"] = "/opt/crowd/bin/crowd";
  await extension.activate({ subscriptions: [] });
  client = made.pop();
  assert.strictEqual(client.server.run.command, "/opt/crowd/bin/crowd");
  console.log("extension: starts `crowd lsp` for .crowd files, honours crowd.server.path, stops on deactivate");
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
