// What Gemini CLI would send from a session file: loads it with the client's own
// `loadConversationRecord` and turns it into the history it resumes with
// (`convertSessionToClientHistory`), both from the installed @google/gemini-cli bundle, and
// prints the roles, the first and last text, the calls left unanswered, results that answer no
// call, and how the session browser lists it (`summary`, else the first user message; only
// sessions with resumable content that are not a subagent's).
// Usage: npm install @google/gemini-cli@0.61.0 && node gemini_session_context.mjs FILE
//        (GEMINI_CLI_DIR names the package directory if it is not ./node_modules/@google/gemini-cli)
import { readdirSync, readFileSync } from "fs";
import { join } from "path";
import { pathToFileURL } from "url";

const pkg = process.env.GEMINI_CLI_DIR ?? join(process.cwd(), "node_modules/@google/gemini-cli");
const bundle = join(pkg, "bundle");
// The bundle's chunks are named by hash: take the one that exports the session loader.
const chunk = readdirSync(bundle)
  .filter((f) => f.startsWith("chunk-") && f.endsWith(".js"))
  .find((f) => {
    const text = readFileSync(join(bundle, f), "utf8");
    const tail = text.slice(text.lastIndexOf("export {"));
    return tail.includes("loadConversationRecord") && tail.includes("convertSessionToClientHistory");
  });
if (!chunk) throw new Error(`no chunk of ${bundle} exports loadConversationRecord`);
const core = await import(pathToFileURL(join(bundle, chunk)).href);

const file = process.argv[2];
const record = await core.loadConversationRecord(file);
if (!record) throw new Error(`${file}: Gemini CLI cannot load it`);
const history = core.convertSessionToClientHistory(record.messages);
const open = new Map();
const answered = new Set();
const faults = [];
let repeated = 0;
for (const turn of history) {
  for (const part of turn.content.parts ?? []) {
    if (part.functionCall) open.set(part.functionCall.id, part.functionCall.name);
    const r = part.functionResponse;
    if (!r) continue;
    if (open.has(r.id)) {
      open.delete(r.id);
      answered.add(r.id);
    } else if (answered.has(r.id)) {
      // The client resends a response it stored twice (its toolCalls and its user turn).
      repeated += 1;
    } else {
      faults.push("stray " + r.id);
    }
  }
}
const text = (turn) =>
  (turn?.content.parts ?? [])
    .map((p) => p.text ?? (p.functionCall ? "call " + p.functionCall.name : p.functionResponse ? "response" : "?"))
    .join(" | ");
const head = await core.loadConversationRecord(file, { metadataOnly: true });
const listed = head.hasResumableContent && head.kind !== "subagent";
console.log(
  JSON.stringify(
    {
      sessionId: record.sessionId,
      n: history.length,
      roles: history.map((t) => t.content.role).join(","),
      first: text(history[0]).slice(0, 160),
      last: text(history[history.length - 1]).slice(0, 160),
      texts: history.map(text),
      unanswered: [...open.keys()],
      faults,
      repeated,
      listed: listed ? { id: head.sessionId, title: head.summary ?? head.firstUserMessage } : null,
    },
    null,
    1,
  ),
);
