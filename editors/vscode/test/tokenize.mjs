// Tokenises every .crowd file given (directories are walked) with the
// TextMate grammar, as VS Code does (vscode-textmate on the Oniguruma regex
// engine), and checks the scopes: every keyword of grammar/crowd.pest is in
// the grammar, and in the files keywords, declared names, numbers, units and
// comments get theirs. Prints counts; exits 1 on any mismatch.
//
// usage: node test/tokenize.mjs GRAMMAR.pest FILE_OR_DIR...

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import vsctm from "vscode-textmate";
import oniguruma from "vscode-oniguruma";

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const wasm = fs.readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm")).buffer;
await oniguruma.loadWASM(wasm);

const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (p) => new oniguruma.OnigScanner(p),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async (scope) => {
    if (scope !== "source.crowd") return null;
    const file = path.join(here, "..", "syntaxes", "crowd.tmLanguage.json");
    return vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file);
  },
});
const grammar = await registry.loadGrammar("source.crowd");

const [pest, ...inputs] = process.argv.slice(2);
const keywords = new Set();
for (const m of fs.readFileSync(pest, "utf8").matchAll(/k_[a-z_]+ = @\{ (\([^)]*\)|"[^"]*")/g)) {
  for (const w of m[1].matchAll(/"([^"]+)"/g)) keywords.add(w[1]);
}
const UNITS = /^(m\/s|km\/h|cm\/s|per\s+m2|per\s+m²|\/m2|\/m²|per\s+min|per\s+s|\/min|\/s|min|ms|mm|cm|km|deg|rad|m|s|h|%|°)$/;
const DECLARES = new Set(["population", "agent", "group", "behaviour", "behavior", "space", "scenario", "region", "obstacle", "object", "state", "rule", "resource"]);

function files(p, out) {
  if (fs.statSync(p).isDirectory()) {
    for (const e of fs.readdirSync(p).sort()) files(path.join(p, e), out);
  } else if (p.endsWith(".crowd")) out.push(p);
  return out;
}

const failures = [];
const seen = { files: 0, keyword: 0, name: 0, number: 0, unit: 0, comment: 0 };
const grammarText = fs.readFileSync(path.join(here, "..", "syntaxes", "crowd.tmLanguage.json"), "utf8");
for (const k of keywords) {
  if (!new RegExp(`[(|]${k}[|)]`).test(grammarText)) failures.push(`keyword \`${k}\` of the pest grammar is not in the TextMate grammar`);
}

for (const file of inputs.flatMap((p) => files(p, []))) {
  seen.files++;
  let state = vsctm.INITIAL;
  const lines = fs.readFileSync(file, "utf8").split(/\r\n|\r|\n/);
  lines.forEach((line, n) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    let previous = "";
    let previousScopes = [];
    for (const t of r.tokens) {
      const text = line.slice(t.startIndex, t.endIndex);
      const word = text.trim();
      const scopes = t.scopes.join(" ");
      const at = `${file}:${n + 1}: \`${word}\` has ${scopes}`;
      if (word === "") continue;
      if (scopes.includes("comment")) {
        if (word.startsWith("//") || word.startsWith("/*")) seen.comment++;
      } else if (/^-?[0-9]/.test(word)) {
        if (!scopes.includes("constant.numeric")) failures.push(at);
        else seen.number++;
      } else if (UNITS.test(word) && previousScopes.includes("constant.numeric")) {
        if (!scopes.includes("keyword.other.unit")) failures.push(at);
        else seen.unit++;
      } else if (DECLARES.has(previous) && !keywords.has(word) && /^[A-Za-z_]\w*$/.test(word)) {
        if (!scopes.includes("entity.name")) failures.push(at);
        else seen.name++;
      } else if (keywords.has(word)) {
        if (!/keyword|storage\.type|support\.constant/.test(scopes)) failures.push(at);
        else seen.keyword++;
      }
      previous = word;
      previousScopes = scopes;
    }
  });
}

console.log(
  `${seen.files} files: ${seen.keyword} keywords, ${seen.name} declared names, ${seen.number} numbers, ` +
    `${seen.unit} units, ${seen.comment} comments in their scopes; ${failures.length} mismatches`,
);
for (const f of failures.slice(0, 20)) console.log(f);
process.exit(failures.length || !seen.files || !seen.comment || !seen.unit ? 1 : 0);
