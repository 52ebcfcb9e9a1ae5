// Node client test for a BesluitBron MCP connector, with the official
// @modelcontextprotocol/sdk client over Streamable HTTP.
//
//   BESLUITBRON_MCP_URL=http://127.0.0.1:8080/mcp/alles node client-test.mjs
//
// Connects, lists the tools, checks their read-only annotations, calls a
// search tool and a fetch tool (OpenBesluitvorming: sources -> search in
// one organisation -> fetch the first hit) and checks the results. Exits
// non-zero on the first failure.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.env.BESLUITBRON_MCP_URL;
if (!url) {
  console.error("set BESLUITBRON_MCP_URL to a connector's URL, e.g. http://127.0.0.1:8080/mcp/alles");
  process.exit(2);
}

function json(result, tool) {
  assert.ok(!result.isError, `${tool} returned isError: ${JSON.stringify(result.content)}`);
  const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  return JSON.parse(text);
}

const client = new Client({ name: "besluitbron-node-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
console.log(`connected: server ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}, session ${transport.sessionId ?? "(none)"}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
console.log(`tools (${tools.length}): ${names.join(", ")}`);
for (const t of tools) {
  const a = t.annotations ?? {};
  assert.equal(a.readOnlyHint, true, `${t.name}: readOnlyHint`);
  assert.equal(a.destructiveHint, false, `${t.name}: destructiveHint`);
  assert.equal(a.idempotentHint, true, `${t.name}: idempotentHint`);
  assert.equal(a.openWorldHint, true, `${t.name}: openWorldHint`);
  assert.match(t.description, /Cost/, `${t.name}: cost hint`);
}
for (const want of ["obv_search", "obv_fetch", "obv_sources", "besluitbron_platforms"]) {
  assert.ok(names.includes(want), `missing tool ${want}`);
}

const sources = json(await client.callTool({ name: "obv_sources", arguments: { organization_type: "gemeente" } }), "obv_sources");
assert.ok(sources.organizations.length > 0, "no organisations");
const org = sources.organizations[0].key;

const search = json(await client.callTool({ name: "obv_search", arguments: { organization: org, limit: 5 } }), "obv_search");
assert.ok(search.results.length > 0, `no results for ${org}`);
for (const h of search.results) {
  assert.ok(h.id && h.title && h.date, `compact hit lacks id/title/date: ${JSON.stringify(h)}`);
}
assert.equal(typeof search.from_cache, "boolean", "search result says nothing about the cache");
assert.equal(typeof search.queue_wait_ms, "number", "search result says nothing about the queue wait");
console.log(`obv_search ${org}: ${search.results.length} of ${search.total}, from_cache=${search.from_cache}, queue_wait_ms=${search.queue_wait_ms}`);

const id = search.results[0].id;
const doc = json(await client.callTool({ name: "obv_fetch", arguments: { id, max_chars: 500 } }), "obv_fetch");
assert.equal(doc.document.id, id);
assert.ok(doc.text.length > 0 && doc.text.length <= 500, `fetch text length ${doc.text.length}`);
console.log(`obv_fetch ${id}: ${doc.total_chars} chars, got ${doc.text.length}, next_offset=${doc.next_offset ?? "-"}`);

// A bad argument is an isError result with a message that says what to fix.
const bad = await client.callTool({ name: "obv_search", arguments: { query: "x", limit: 1000 } });
assert.equal(bad.isError, true, "limit 1000 accepted");
assert.match(bad.content[0].text, /out of range/);

// The document as a resource: the hit's uri and resource_link, read with
// resources/read; its citation in the read's metadata.
const searchRes = await client.callTool({ name: "obv_search", arguments: { organization: org, limit: 5 } });
const link = searchRes.content.find((c) => c.type === "resource_link");
assert.ok(link && link.uri === search.results[0].uri && link.uri.startsWith("besluitbron://obv/"), `no resource_link for the first hit: ${JSON.stringify(link)}`);
const { resourceTemplates } = await client.listResourceTemplates();
assert.ok(resourceTemplates.some((t) => t.uriTemplate === "besluitbron://obv/{id}{?page}"), "no obv resource template");
const read = await client.readResource({ uri: link.uri });
assert.equal(read.contents.length, 1);
assert.equal(read.contents[0].mimeType, "text/markdown");
assert.ok(read.contents[0].text.startsWith("# "), "the read has no title");
console.log(`resources/read ${link.uri}: ${read.contents[0].text.length} chars, citation ${read.contents[0]._meta?.citation ?? "-"}`);
await assert.rejects(client.readResource({ uri: "besluitbron://obv/" }), /Invalid resource URI/, "an empty reference was read");

// A prompt, and a completion of its organisation argument.
const { prompts } = await client.listPrompts();
assert.ok(prompts.some((p) => p.name === "council_decisions"), "no council_decisions prompt");
const prompt = await client.getPrompt({ name: "council_decisions", arguments: { organisation: org, subject: "begroting" } });
assert.ok(prompt.messages.length > 0 && /obv_search/.test(JSON.stringify(prompt.messages)), "the prompt names no obv_search");
const done = await client.complete({ ref: { type: "ref/prompt", name: "council_decisions" }, argument: { name: "organisation", value: org.slice(0, 3) } });
assert.ok(done.completion.values.includes(org), `completing ${org.slice(0, 3)} does not offer ${org}: ${done.completion.values.slice(0, 5)}`);
console.log(`prompt council_decisions: ${prompt.messages.length} message(s); completion of "${org.slice(0, 3)}": ${done.completion.values.length} values`);

await client.close();
console.log("node client test: OK");
