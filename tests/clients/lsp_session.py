"""A real editor session against `crowd lsp`, through pygls's language client.

Usage: lsp_session.py CROWD SCENARIO ENCODING

Opens the scenario, breaks it and mends it, then asks hover, definition,
references, completion, rename, formatting and the outline, checking every
answer. ENCODING is what the client offers for positions: `utf-16` (the
protocol's default) or `utf-8`; the edits put non-ASCII text before names so
a server counting the wrong units would answer at the wrong columns.
Prints one line per check and exits non-zero on the first that fails.
"""

import asyncio
import os
import sys

from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

CROWD, SCENARIO, ENCODING = sys.argv[1], sys.argv[2], sys.argv[3]
URI = "file://" + os.path.abspath(SCENARIO)


def position(text, offset):
    line = text.count("\n", 0, offset)
    before = text[text.rfind("\n", 0, offset) + 1 : offset]
    units = len(before.encode("utf-8")) if ENCODING == "utf-8" else len(before.encode("utf-16-le")) // 2
    return T.Position(line=line, character=units)


def span(text, start, end):
    return T.Range(start=position(text, start), end=position(text, end))


def find(text, needle, word, nth=0):
    """The offset of `word` inside the nth occurrence of `needle`."""
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    return at + needle.index(word)


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        sys.exit(1)


def apply(text, edits):
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(text, e.range.start), offset(text, e.range.end)
        text = text[:start] + e.new_text + text[end:]
    return text


def offset(text, p):
    lines = text.split("\n")
    start = sum(len(l) + 1 for l in lines[: p.line])
    line, units, i = lines[p.line], 0, 0
    while i < len(line) and units < p.character:
        units += len(line[i].encode("utf-8")) if ENCODING == "utf-8" else len(line[i].encode("utf-16-le")) // 2
        i += 1
    return start + i


async def main():
    text = open(SCENARIO, encoding="utf-8").read()
    client = LanguageClient("crowd-lsp-session", "1")
    published = asyncio.Queue()

    @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(*args):
        # pygls passes the client before the params, or (2.x) the params alone.
        published.put_nowait(args[-1])

    async def diagnostics(version):
        while True:
            p = await asyncio.wait_for(published.get(), 30)
            if p.version == version:
                return p.diagnostics

    def errors(diags):
        return [d for d in diags if d.severity == T.DiagnosticSeverity.Error]

    await client.start_io(CROWD, "lsp")
    caps = T.ClientCapabilities(general=T.GeneralClientCapabilities(position_encodings=[ENCODING]))
    init = await client.initialize_async(T.InitializeParams(capabilities=caps, process_id=os.getpid()))
    check(init.capabilities.position_encoding == ENCODING, f"positions in {ENCODING}", init.capabilities.position_encoding)
    client.initialized(T.InitializedParams())
    doc = T.TextDocumentIdentifier(uri=URI)

    client.text_document_did_open(T.DidOpenTextDocumentParams(
            text_document=T.TextDocumentItem(uri=URI, language_id="crowd", version=1, text=text)
        ))
    check(errors(await diagnostics(1)) == [], "the scenario opens with no errors")

    # A broken edit, made as an editor makes it: a range replaced.
    name = find(text, "behaviour errands\n}", "errands")
    inserted = "/* Durupınar 𝛼 */ erands"
    broken = text[:name] + inserted + text[name + len("errands") :]
    change = T.TextDocumentContentChangePartial(range=span(text, name, name + len("errands")), text=inserted)
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(version=2, uri=URI), content_changes=[change])
    )
    found = [d for d in errors(await diagnostics(2)) if d.code == "E010"]
    check(len(found) == 1, "the misspelt behaviour is an E010 error", found)
    typo = broken.index("erands")
    check(found[0].range == span(broken, typo, typo + len("erands")), "at the misspelt name", found[0].range)
    check("did you mean `errands`?" in found[0].message, "with the checker's help", found[0].message)

    # Mended, and a parameters block added, as a whole-text change.
    text = text + "parameters boids { view_radius 6 m }\n"
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(version=3, uri=URI), content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]
        )
    )
    check(errors(await diagnostics(3)) == [], "mended, no errors")

    async def hover(offset):
        h = await client.text_document_hover_async(T.HoverParams(text_document=doc, position=position(text, offset)))
        return h.contents.value if h else ""

    h = await hover(find(text, "sees wolf", "wolf") + 2)
    check("agent" in h and "`wolf`" in h and "agent wolf at (1 m, 16 m)" in h, "hover on a name", h)
    h = await hover(find(text, "view_radius 6 m", "view_radius"))
    check("perception radius" in h and "default: 5 m" in h and "between 0.01 m and 1000 m" in h, "hover on a parameter", h)
    check("Durupınar" in h, "with the model's source", h)
    h = await hover(find(text, "rise 2 per s", "rise"))
    check("keyword" in h and "fear" not in h.split("\n")[0], "hover on a keyword", h)
    h = await hover(find(text, "fear > 0.5", "fear"))
    check("var" in h and "errands" in h, "hover on a var", h)

    loc = await client.text_document_definition_async(
        T.DefinitionParams(text_document=doc, position=position(text, find(text, "flee wolf", "wolf")))
    )
    wolf = find(text, "agent wolf", "wolf")
    check(loc.range == span(text, wolf, wolf + 4), "definition of a name", loc)

    async def references(word_at):
        refs = await client.text_document_references_async(
            T.ReferenceParams(
                text_document=doc, position=position(text, word_at), context=T.ReferenceContext(include_declaration=True)
            )
        )
        return sorted((r.range.start.line, r.range.start.character) for r in refs)

    water = [find(text, "provides water", "water"), find(text, "wants water", "water")]
    expected = sorted((position(text, o).line, position(text, o).character) for o in water)
    check(await references(water[1]) == expected, "references of a resource")
    errands = [find(text, "behaviour errands\n}", "errands"), find(text, "behaviour errands {", "errands")]
    expected = sorted((position(text, o).line, position(text, o).character) for o in errands)
    check(await references(errands[0]) == expected, "references of a behaviour")

    async def completion(offset):
        c = await client.text_document_completion_async(T.CompletionParams(text_document=doc, position=position(text, offset)))
        items = c.items if hasattr(c, "items") else c
        return {i.label: i for i in items}

    items = await completion(find(text, "  spawn in homes", "spawn"))
    check({"spawn", "speed", "homes", "errands", "wolf"} <= items.keys(), "keywords and names complete", sorted(items)[:20])
    check(items["homes"].detail == "region", "a name says what it is", items["homes"].detail)
    items = await completion(find(text, "wolf within 10 m", " m") + 1)
    check({"m", "cm", "km"} <= items.keys() and "spawn" not in items, "units after a number", sorted(items))
    items = await completion(find(text, "{ view_radius", "view_radius"))
    check({"separation", "view_radius", "catch_distance"} <= items.keys() and "spawn" not in items,
          "a model's parameters in its block", sorted(items))

    fear = find(text, "var fear", "fear")
    prepared = await client.text_document_prepare_rename_async(T.PrepareRenameParams(text_document=doc, position=position(text, fear)))
    check(prepared.placeholder == "fear", "rename is offered on a var", prepared)
    edit = await client.text_document_rename_async(T.RenameParams(text_document=doc, position=position(text, fear), new_name="dread"))
    edits = edit.changes[URI]
    check(len(edits) == 3, "a var renamed where declared, compared and listed as a column", edits)
    renamed = apply(text, edits)
    check("var dread" in renamed and "dread > 0.5" in renamed and "columns dread" in renamed and "fear" not in
          renamed.split("scenario")[1], "the renamed text", renamed)
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(version=4, uri=URI), content_changes=[T.TextDocumentContentChangeWholeDocument(text=renamed)]
        )
    )
    check(errors(await diagnostics(4)) == [], "the renamed file has no errors")
    try:
        await client.text_document_rename_async(T.RenameParams(text_document=doc, position=position(renamed, find(renamed, "agent wolf", "wolf")), new_name="villagers"))
        check(False, "a clashing rename is refused")
    except Exception as e:
        check("already a population" in str(e), "a clashing rename is refused", e)

    messy = renamed.replace("  count 40\n", "  count    40 ;\n").replace("speed 1.8 m/s", "speed 1.8m/s")
    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(version=5, uri=URI), content_changes=[T.TextDocumentContentChangeWholeDocument(text=messy)]
        )
    )
    await diagnostics(5)
    fmt = await client.text_document_formatting_async(
        T.DocumentFormattingParams(text_document=doc, options=T.FormattingOptions(tab_size=2, insert_spaces=True))
    )
    formatted = apply(messy, fmt)
    check("count    40" not in formatted and "count 40" in formatted and "1.8 m/s" in formatted, "formatting", formatted)

    outline = await client.text_document_document_symbol_async(T.DocumentSymbolParams(text_document=doc))
    names = {s.name for s in outline}
    check({"villagers", "wolf", "errands", "dread", "water", "homes"} <= names, "the outline", names)

    client.text_document_did_change(
        T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(version=6, uri=URI), content_changes=[T.TextDocumentContentChangeWholeDocument(text=broken)]
        )
    )
    await diagnostics(6)
    try:
        await client.text_document_formatting_async(
            T.DocumentFormattingParams(text_document=doc, options=T.FormattingOptions(tab_size=2, insert_spaces=True))
        )
        check(False, "a file with errors is not formatted")
    except Exception as e:
        check("error" in str(e), "a file with errors is not formatted", e)

    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    print("all checks passed")


asyncio.run(main())
