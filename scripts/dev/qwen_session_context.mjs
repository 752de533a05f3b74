// Loads a Qwen Code session file with the client's own code (SessionService.loadSession and
// buildSessionHistoryFromConversation from the installed package) and prints, as JSON, what
// the client would send on resuming it: the user turns' texts, the first one, calls left
// without a response (before the client's own send-time repair) and responses naming no call,
// and the session as the client's session list shows it (listSessions: its prompt).
// Usage: QWEN_CODE_DIR=<@qwen-code/qwen-code package dir> node scripts/dev/qwen_session_context.mjs FILE
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
const dir = process.env.QWEN_CODE_DIR;
const chunks = path.join(dir, 'chunks');
const chunk = fs
  .readdirSync(chunks)
  .map((n) => path.join(chunks, n))
  .find((p) => p.endsWith('.js') && fs.readFileSync(p, 'utf8').includes('var SessionService = class'));
const first = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]);
const runtime = fs.mkdtempSync(path.join(os.tmpdir(), 'qwen-ctx-'));
process.env.QWEN_RUNTIME_DIR = runtime;
const cwd = first.cwd;
const chats = path.join(runtime, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), 'chats');
fs.mkdirSync(chats, { recursive: true });
fs.copyFileSync(file, path.join(chats, `${first.sessionId}.jsonl`));
const core = await import(pathToFileURL(chunk).href);
const service = new core.SessionService(cwd);
const loaded = await service.loadSession(first.sessionId);
const history = loaded ? core.buildSessionHistoryFromConversation(loaded.conversation).apiHistory : [];
const calls = new Map();
const faults = [];
const texts = [];
for (const content of history) {
  for (const part of content.parts ?? []) {
    if (part.functionCall) calls.set(part.functionCall.id, part.functionCall.name);
    if (part.functionResponse) {
      if (!calls.delete(part.functionResponse.id)) faults.push(`response ${part.functionResponse.id} answers no call`);
    }
    if (content.role === 'user' && typeof part.text === 'string') texts.push(part.text);
  }
}
const list = await service.listSessions({ size: 50 });
const listed = (list.items ?? list.sessions ?? []).find((s) => s.sessionId === first.sessionId);
fs.rmSync(runtime, { recursive: true, force: true });
console.log(
  JSON.stringify({
    loaded: Boolean(loaded),
    gaps: loaded?.historyGaps?.length ?? 0,
    turns: history.length,
    first: texts[0] ?? '',
    texts,
    unanswered: [...calls.keys()],
    faults,
    listed: listed ? { title: listed.customTitle ?? listed.prompt ?? '' } : null,
  }),
);
