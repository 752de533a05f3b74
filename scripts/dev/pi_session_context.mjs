// What pi would send from a session file: loads it with pi's own SessionManager (a copy, as
// pi migrates old versions in place), builds the context and converts it as pi does, and prints
// the roles, first and last text, unanswered calls and how pi's session picker lists it.
// Usage: npm install @mariozechner/pi-coding-agent@0.58.3 && node pi_session_context.mjs FILE
import { SessionManager, convertToLlm } from "@mariozechner/pi-coding-agent";
import { copyFileSync, mkdtempSync } from "fs";
import { join, basename } from "path";
import { tmpdir } from "os";
const src = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), "pisess-"));
const file = join(dir, basename(src));
copyFileSync(src, file);
const sm = SessionManager.open(file, dir);
const ctx = sm.buildSessionContext();
const msgs = convertToLlm(ctx.messages);
const open = new Map(); const faults = [];
for (const m of msgs) {
  if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") open.set(b.id, b.name);
  if (m.role === "toolResult") { if (!open.has(m.toolCallId)) faults.push("stray " + m.toolCallId); open.delete(m.toolCallId); }
}
const text = (m) => typeof m.content === "string" ? m.content : m.content.map(b => b.text ?? b.type).join(" | ");
const list = await SessionManager.list(sm.getCwd(), dir);
console.log(JSON.stringify({
  leaf: sm.getLeafId(), n: msgs.length, model: ctx.model,
  roles: msgs.map(m => m.role).join(","),
  first: text(msgs[0]).slice(0, 120), last: text(msgs[msgs.length - 1]).slice(0, 120),
  unanswered: [...open.keys()], faults,
  listed: list.map(s => ({ id: s.id, name: s.name, first: (s.firstMessage || "").slice(0, 60) })),
}, null, 1));
